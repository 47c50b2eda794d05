"""A function that writes its float-array argument in place, called by a function that reads the array
afterwards: the write's reverse must see the caller's adjoint of the array as it is after the call.  The callee's
adjoint of that parameter was a zero buffer of its own (reverse/buffers.py), which missed it: a silently wrong
gradient.  Both modes, through finite differences."""
import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives


def scale_first(v):
    v[0] = v[0] * 3.0
    return np.sum(v)


def shift_tail(v, a):
    v[1:] = v[1:] + a * v[:-1]
    return v[0]


def loop_update(v):
    for i in range(1, len(v)):
        v[i] = 0.5 * v[i - 1] + np.tanh(v[i])
    return 0.0


def caller_scale(x):
    y = x * 1.0
    s = scale_first(y)
    return s * np.sum(y)


def caller_shift(x, a):
    y = x + 0.0
    first = shift_tail(y, a)
    return first + np.sum(y ** 2)


def caller_loop(x):
    y = x.copy()
    loop_update(y)
    return np.sum(y * x)


def caller_twice(x):
    y = x * 2.0
    scale_first(y)
    scale_first(y)
    return np.sum(np.sin(y))


X = np.array([0.3, -0.8, 1.2, 0.5])


@pytest.mark.parametrize("fn,args", [(caller_scale, (X,)), (caller_shift, (X, 0.7)), (caller_loop, (X,)),
                                     (caller_twice, (X,)), (scale_first, (X.copy(),)), (shift_tail, (X.copy(), 0.4))],
                         ids=["scale", "shift", "loop", "twice", "alone_scale", "alone_shift"])
def test_writes_to_an_argument_the_caller_reads_after(fn, args):
    check_derivatives(fn, *args)
