"""Strided views (`sliding_window_view`, `as_strided`) whose base changes while they are read, or that are written
through: refused by name (frontend/lazy_values.py), never differentiated wrongly.

The transforms take a strided view as a new array whose derivative is a gather of its base's, made where the view
is made.  NumPy's view reads its base's memory whenever it is read, so a write to the base between the view's making
and a read (`w = sliding_window_view(b, 2); b[2] = x; w.sum()`: x reached the value but not the gradient, 0) or a
write through the view into the base (`c = as_strided(b, ...); c[1] = ...`) made both modes silently wrong (found by
the random family `fancy`).  Views read before any change, or made again after one, are differentiated as before.
"""
import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view as windows

import mooncake_ast as mc
from mooncake_ast.errors import MooncakeError
from mooncake_ast.testing import check_derivatives

_st = np.lib.stride_tricks
A = np.array([0.3, -0.45, 0.8, 1.2])


def base_written_then_read(x, a):
    b = a * 1.0
    w = _st.sliding_window_view(b, 2)
    b[2] = x
    return np.sum(w[:, 1])


def base_scaled_in_place(x, a):
    b = a * 1.0
    w = _st.sliding_window_view(b, 2)
    b *= x
    return np.sum(w * w)


def as_strided_read_after_write(x, a):
    b = a * 1.0
    w = _st.as_strided(b, shape=(2, 2), strides=(8, 8))
    b[2] = x
    return np.sum(w * w)


def written_through(x, a):
    b = a * 1.0
    c = _st.as_strided(b, (3,), (8,))
    c[1] = x * c[1]
    return np.sum(b * b)


def read_before_and_after(x, a):
    b = a * x
    w = windows(b, 2)
    s = np.sum(w)
    b[0] = 3.0 * x
    return s + np.sum(w ** 2)


def slice_of_view(x, a):
    b = a * x
    w = windows(b, 2)[::2]
    b[0] = 2.0 * x
    return np.sum(w)


def base_written_in_a_loop(x, a):
    b = a * x
    w = windows(b, 3)
    s = 0.0
    for k in range(3):
        s = s + np.sum(w[0])
        b[k] = b[k] * x
    return s


REFUSED = [base_written_then_read, base_scaled_in_place, as_strided_read_after_write, written_through,
           read_before_and_after, slice_of_view, base_written_in_a_loop]


def convolution(x, a):
    b = a * x
    w = windows(b, 2)
    s = np.sum(w @ np.array([0.5, -1.0]))
    t = np.sum(w ** 2)
    b = b * 2.0
    return s + t + np.sum(b)


def view_made_again_each_step(x, a):
    out = 0.0
    b = a * x
    for _ in range(2):
        w = windows(b, 2)
        out += np.sum(w[:, 0] * w[:, 1])
        b = b * 1.5
    return out


def copied_view(x, a):
    b = a * x
    w = windows(b, 2).copy()
    b[0] = 4.0 * x
    return np.sum(w ** 2) + np.sum(b)


def moving_average(x, a):
    b = np.sin(a * x)
    return np.sum(_st.sliding_window_view(b, 3).mean(axis=-1) ** 2)


DIFFERENTIATED = [convolution, view_made_again_each_step, copied_view, moving_average]


@pytest.mark.parametrize("f", REFUSED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_view_whose_base_changes_while_read_is_refused(f, mode):
    with pytest.raises(MooncakeError, match="strided view|base"):
        if mode == "reverse":
            mc.grad(f)(0.7, A.copy())
        else:
            mc.jvp(f, (0.7, A.copy()), (1.0, np.zeros(4)))


@pytest.mark.parametrize("f", DIFFERENTIATED, ids=lambda f: f.__name__)
def test_views_read_before_any_change_are_differentiated(f):
    check_derivatives(f, 0.7, A.copy())
