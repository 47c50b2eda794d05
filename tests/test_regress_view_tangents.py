"""Forward mode kept a view's tangent a view of its array's tangent only when the index had no tangent known when
the code was generated.  With an index of unknown type (a slice read from a tuple, or forward mode over forward
code, where every `slice(...)` is a call with a run-time zero tangent) the tangent of `w = b[s]` was the sum
`db[s] + index_tangent(...)`, a new array: a write to b after the read (`b[1:] = ...`) changed w but not its
tangent.  First order in forward mode (0.264 for 0.0334) and every forward-over-forward nesting (jvp_jvp,
jacfwd_jacfwd: random nested family "views", seed 66000000023) were silently wrong; reverse mode was right."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

A0 = np.array([-0.665, -0.255, 0.565])
V0 = np.array([1.0, 0.5, -0.3])


def window_by_a_slice_in_a_tuple(a, idx=(slice(1, 3),)):
    b = a * 1.0
    w = b[idx[0]]
    b[1:] = b[:-1] * 0.5
    return float(np.sum(w * w))


def window_then_shift(a):
    b = np.tanh(a)
    w = b[1:3]
    b[1:] = b[:-1] * 0.5
    v = float(np.sum(w))
    return v * v


def window_read_before_and_after(a):
    b = np.tanh(a)
    w = b[1:3]
    before = w * 1.0
    if np.dot(a, a) > -0.5:
        b[1:] = b[:-1] * 0.5 + np.sin(np.max(a))
    return float(np.sum(w)) * -0.4 + np.sum(before)


def test_first_order_forward_with_an_index_of_unknown_type():
    check_derivatives(window_by_a_slice_in_a_tuple, A0.copy())


def _fd(f, x, h=1e-6):
    return (f(x + h * V0) - f(x - h * V0)) / (2 * h)


@pytest.mark.parametrize("fn", [window_by_a_slice_in_a_tuple, window_then_shift, window_read_before_and_after],
                         ids=lambda f: f.__name__)
def test_forward_over_forward(fn):
    def first(z):
        return mc.jvp(fn, (z.copy(),), (V0,))[1]

    got = mc.jvp(lambda z: mc.jvp(fn, (z,), (V0,))[1], (A0.copy(),), (V0,))[1]
    np.testing.assert_allclose(got, _fd(first, A0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(mc.jacfwd(mc.jacfwd(fn))(A0.copy()) @ V0 @ V0, got, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(mc.hessian(fn)(A0.copy()) @ V0 @ V0, got, rtol=1e-8, atol=1e-10)
