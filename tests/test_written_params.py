"""Issue 9: a float-array parameter updated in place (`x /= norm`, `v *= beta; v += g`) keeps one plain adjoint
array (reverse/written_params.py), started from what the caller keeps for the array after the call
(`shadows.claim`); callers that read the array afterwards, loops, branches and the caller's state after the
pullback must all stay right, and other uses of the array keep the generic path."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

R = np.random.default_rng(5)
X, V = R.normal(size=4), R.normal(size=4)
M = R.normal(size=(3, 4))


def normalise(x):
    x /= np.linalg.norm(x)
    return x.sum()


def momentum(w, v, lr, beta, steps):
    for _ in range(steps):
        g = 2.0 * (w - 1.0)
        v *= beta
        v += g
        w -= lr * v
    return np.sum(w * w)


def branchy(x, s):
    if s > 0.0:
        x *= s
    else:
        x -= s * x.sum()
    x += np.sin(x.sum())  # (a number broadcast in)
    return np.sum(np.tanh(x) * x)


def center(X):
    X -= X.mean(axis=0)
    return np.sum(X ** 2) + np.linalg.norm(X)


def _scaled(x, s):  # (an early return: called, not in line, so its pullback takes the caller's adjoint of x)
    n = np.linalg.norm(x)
    if n == 0.0:
        return 0.0
    x *= s / n
    x -= 0.5
    return np.sum(x * x)


def caller_reads_after(x, s):
    y = x * s
    n = _scaled(y, s)  # (y written in place by the callee)
    return n * np.sum(y * x) + np.sum(y ** 3)


def caller_passes_own(x, v):
    r = momentum(x, v, 0.1, 0.8, 2) + _scaled(v, 0.3)  # (the caller's own arguments, written by the callee)
    return r + np.sum(x * v)


def prefix(x):
    for i in range(1, x.shape[0]):
        x[i] += x[i - 1]
    x[0] = x[-1] * 0.5
    return np.sum(np.sin(x))


def _fill(x, s):  # (written item by item; an early return keeps it a call)
    if s == 0.0:
        return 0.0
    for i in range(1, x.shape[0]):
        x[i] = x[i] * s + x[i - 1] * 0.5
    return np.sum(x)


def caller_of_fill(x, s):
    y = x * 1.0
    r = _fill(y, s)
    return r * np.sum(y * y) + np.sum(y * x)


BUF, BUF2 = np.zeros(4), np.ones(4)


def _put(buf, x):  # (early returns: called, not in line; the caller passes a module buffer, read as a view of it)
    if x > 100.0:
        return
    buf[1] = x


def _scale(buf, x):
    if x > 100.0:
        return
    buf *= x


def module_buffers(x, a):
    _put(BUF, float(np.sum(a * x)))
    s = float(1.5 + np.tanh(np.sum(a)))
    _scale(BUF2, s)
    out = BUF2 * x  # (read between the updates: its adjoint reaches the first one through storage)
    _scale(BUF2, 1.0 / s)  # (BUF2 as it was: every call computes the same)
    return BUF + out  # (BUF itself: its adjoint is the caller's, in identity-keyed storage)


def also_viewed(x, s):  # a view of the array: the generic path
    x *= s
    head = x[:2]
    return np.sum(head * head) + np.sum(x)


CASES = [
    (normalise, (X,)),
    (momentum, (X, V, 0.05, 0.9, 3)),
    (branchy, (X, 0.7)),
    (branchy, (X, -0.7)),
    (center, (M,)),
    (caller_reads_after, (X, 1.3)),
    (caller_passes_own, (X, V)),
    (also_viewed, (X, 0.6)),
    (prefix, (X,)),
    (caller_of_fill, (X, 0.7)),
    (module_buffers, (X, V)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{f.__name__}-{k}" for k, (f, _) in enumerate(CASES)])
def test_written_parameters(fn, args):
    check_derivatives(fn, *(a.copy() if isinstance(a, np.ndarray) else a for a in args), modes=("reverse",))


def test_state_after_the_pullback_and_plain_code():
    w, v = X.copy(), V.copy()
    w2, v2 = X.copy(), V.copy()
    momentum(w2, v2, 0.05, 0.9, 3)
    _, pb = mc.vjp(momentum, w, v, 0.05, 0.9, 3)
    pb(1.0)
    np.testing.assert_array_equal(w, w2)  # (as the plain call leaves them)
    np.testing.assert_array_equal(v, v2)
    src = mc.source(momentum, "reverse")
    pullback = src[src.index("__pullback("):]
    assert "inplace_reverse" not in pullback and "_mc.take(" not in pullback and "_mc.claim(w)" in pullback
    check_derivatives(caller_reads_after, X.copy(), 1.3, modes=("reverse",))
    callee = mc.source(_scaled, "reverse")
    assert "_mc.claim(x)" in callee and "inplace_reverse" not in callee  # (what the caller above ran)
    check_derivatives(caller_of_fill, X.copy(), 0.7, modes=("reverse",))
    callee = mc.source(_fill, "reverse")
    assert "_mc.claim(x)" in callee and "setitem_reverse" not in callee
