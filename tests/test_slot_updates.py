"""Issue 9: `a[idx] += v` on a float array is differentiated as the write of `a[idx] + v`
(reverse/slot_updates.py), and `a[mask] = v` is undone like a write at a basic index, so the array gets a plain
adjoint array (reverse/buffers.py) instead of identity-keyed storage; neither may apply where the slot or the
update is seen by anything else, or to the caller's array."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

R = np.random.default_rng(11)
X, W = R.normal(size=4), R.normal(size=3)
A = R.normal(size=(4, 3))


def slices_accumulated(x, w):
    out = np.zeros(x.shape[0] + 2)
    for k in range(3):
        out[k:k + x.shape[0]] += w[k] * x
    return np.sum(out ** 2)


def rows_and_columns(A, v):
    B = A.copy()
    for i in range(B.shape[0]):
        B[i, :] *= 1.0 + 0.1 * i
        B[i, :] -= v
    B[:, 0] /= 2.0
    B[1:3] += v * v  # (a row vector into a block of rows)
    return np.sum(np.tanh(B))


def overlapping(x):
    a = x * 1.5
    a[1:] += a[:-1]  # (NumPy reads the operands before writing)
    a[2] **= 2
    return np.sum(np.sin(a))


def elements(x, w):
    a = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        a[i] += x[i] * w[i % 3]
        a[i] *= 0.5
    return a @ a


def caller_array(x, w):
    x[1:3] += w[:2]  # (the caller's array: written through identity-keyed storage still)
    return np.sum(x * x)


def slot_seen_later(x, v):
    a = x * 2.0
    t = a[1:3]
    t += v[:2]
    a[1:3] = t
    return np.sum(a * a) + np.sum(t * v[1:])


def masked(x, t):
    y = x.copy()
    m = y > t
    y[m] = t + np.log1p(y[m] - t)
    y[y < -t] = 0.5 * t  # (a number into every selected slot)
    return np.sum(y ** 2)


def masked_rows(A, v):
    B = A * 1.0
    for k in range(2):
        B[B[:, 0] > 0.1 * k] = v * (k + 1.0)  # (a row into every selected row)
    return np.sum(np.sin(B) * A)


def masked_caller_array(x, t):
    x[x > t] = t * 2.0
    return np.sum(x * x)


CASES = [
    (masked, (X, 0.3)),
    (masked_rows, (A, W)),
    (masked_caller_array, (X, 0.3)),
    (slices_accumulated, (X, W)),
    (rows_and_columns, (A, W)),
    (overlapping, (X,)),
    (elements, (X, W)),
    (caller_array, (X, W)),
    (slot_seen_later, (X, W)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_slot_updates(fn, args):
    check_derivatives(fn, *(a.copy() if isinstance(a, np.ndarray) else a for a in args), modes=("reverse",))


def test_slot_updates_are_plain():
    mc.vjp(rows_and_columns, A, W)
    src = mc.source(rows_and_columns, "reverse")
    pullback = src[src.index("__pullback("):]
    assert "B_bar[i, :]" in pullback
    assert not any(h in pullback for h in ("inplace_reverse", "setitem_reverse", "_mc.acc("))
