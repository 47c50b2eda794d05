"""Forward mode over an array made with a zero tangent and then written only through a view or alias of it.

`out = np.zeros_like(x)` (or np.full_like, np.where of constants, `x.astype(int) * 1.0`, a helper returning
np.zeros(n)) has the symbolic zero as its tangent; when the code writes only through `w = out[1:]`, a row of
`for row in out`, `out.reshape(...)` or a list holding out, the view's tangent was fresh storage of its own and
the writes never reached `dout`: jvp / jacfwd gave 0 silently (reverse mode was right).  Found by hunt11.  The
maker's tangent is now storage from the start (forward/transform._makes_written_object)."""
from __future__ import annotations

import numpy as np
import pytest

import mooncake_ast as mc

W = np.arange(1.0, 7.0).reshape(3, 2)
X = np.array([[0.3, -0.7], [1.1, 0.45], [-0.2, 0.9]])


def _zeros(n):
    return np.zeros(n)


def empty_rows_enumerate(X):
    out = np.empty_like(X)
    for i, row in enumerate(out):
        row[:] = np.sin(X[i]) * X[i, 0]
    return np.sum(out * W)


def astype_rows_by_index(X):
    out = X.astype(int) * 1.0
    for i in range(3):
        row = out[i]
        row += X[0] ** 2
    return np.sum(out * W)


def full_like_column_view(X):
    out = np.full_like(X, 0.25)
    col = out[:, 1]
    col *= X[:, 0]
    return np.sum(out * out * W)


def helper_zeros_reshaped(X):
    flat = _zeros(6)
    grid = flat.reshape(3, 2)
    grid[1:] = X[:2] ** 2
    return np.sum(flat * W.ravel())


def where_const_in_dict(X):
    bufs = {"a": np.where(X > 0.0, 1.0, -1.0)}
    bufs["a"][0] = X[2] * X[1]
    return np.sum(bufs["a"] * W)


def ones_transposed_loop(X):
    out = np.ones((2, 3))
    for j, col in enumerate(out.T):
        col += np.tanh(X[j]) * 2.0
    return np.sum(out ** 2)


def zeros_in_tuple_then_view(X):
    pair = (np.zeros(3), 1.5)
    tail = pair[0][1:]
    tail[:] = X[:2, 1] * pair[1]
    return np.sum(pair[0] * np.arange(1.0, 4.0))


FAMILY = [empty_rows_enumerate, astype_rows_by_index, full_like_column_view, helper_zeros_reshaped,
          where_const_in_dict, ones_transposed_loop, zeros_in_tuple_then_view]


def _fd(f, x, h=1e-6):
    g = np.zeros(x.size)
    for j in range(x.size):
        e = np.zeros(x.size)
        e[j] = h
        g[j] = (f(x + e.reshape(x.shape)) - f(x - e.reshape(x.shape))) / (2 * h)
    return g.reshape(x.shape)


@pytest.mark.parametrize("f", FAMILY, ids=lambda f: f.__name__)
def test_jvp_matches_finite_differences(f):
    t = np.linspace(-1.0, 1.3, X.size).reshape(X.shape)
    value, dot = mc.jvp(f, (X.copy(),), (t,))
    assert np.isclose(value, f(X.copy()))
    assert np.isclose(dot, np.sum(_fd(f, X) * t), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", FAMILY, ids=lambda f: f.__name__)
def test_jacfwd_and_grad_agree(f):
    ref = _fd(f, X)
    np.testing.assert_allclose(mc.jacfwd(f)(X.copy()), ref, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(mc.grad(f)(X.copy()), ref, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", FAMILY[:4], ids=lambda f: f.__name__)
def test_check_derivatives_both_modes(f):
    mc.testing.check_derivatives(f, X.copy())
