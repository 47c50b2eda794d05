"""Items of views whose items share memory (np.broadcast_to, np.broadcast_arrays, a stride-0 as_strided) read one
by one: each read has an adjoint of its own.  Reverse mode gave a broadcast *number* (`np.broadcast_to(x[0], (3,))`,
whose base is a 0-d array NumPy makes) the same view of that base's adjoint storage, which no pullback reads, so an
adjoint added to one item showed in every item and broadcast_to's pullback summed them all: gradient 3.0 for 1.0
(found by the nest2 helper).  reverse/shadows._new_shadow gives such a view storage of its own; broadcasts of arrays
(the other cases here) were right and stay so."""
import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives

X = np.array([0.3, -0.7, 1.1])


def item_of_a_broadcast_scalar(x):
    return np.broadcast_to(x[0], (3,))[2]


def two_items_of_a_broadcast_scalar(x):
    b = np.broadcast_to(x[0], (3,))
    return b[2] * 2.0 + b[0]


def row_of_a_broadcast_vector(x):
    b = np.broadcast_to(x * 2.0, (4, 3))
    return np.sum(b[1] * x) + b[0, 0] + b[3, 2] ** 2


def broadcast_arrays_read(x):
    u, v = np.broadcast_arrays(x[:, None], x[None, :])
    return u[0, 2] * v[1, 0] + np.sum(u[2] * v[:, 1])


def stride_zero_as_strided_read(x):
    b = x * 1.5
    w = np.lib.stride_tricks.as_strided(b, shape=(2, 3), strides=(0, b.strides[0]), writeable=False)
    return w[1, 2] * w[0, 0] + np.sum(w[0])


def loop_over_broadcast_items(x):
    b = np.broadcast_to(np.sin(x[1]), (4,))
    s = 0.0
    for i in range(4):
        s = s + b[i] * (i + 1.0)
    return s


@pytest.mark.parametrize("f", [item_of_a_broadcast_scalar, two_items_of_a_broadcast_scalar, row_of_a_broadcast_vector,
                               broadcast_arrays_read, stride_zero_as_strided_read, loop_over_broadcast_items],
                         ids=lambda f: f.__name__)
def test_items_of_views_sharing_memory(f):
    check_derivatives(f, X.copy())
