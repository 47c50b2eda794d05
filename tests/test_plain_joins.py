"""Issue 9: joins of displays (`np.concatenate([a, b])`, stack, vstack, hstack, `np.array([x, y])` of numbers) get
the pullback a person writes, `a_bar = g[:n]; b_bar = g[n:]` (reverse/specialise.join_adjoint), and views of an
array put in such a display stay out of identity-keyed storage (buffers._joined_item).  The cases where the
display is read more than once, or joined in a loop it was made outside of, must keep every derivative right."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

R = np.random.default_rng(7)
A, B = R.normal(size=3), R.normal(size=4)
M, N = R.normal(size=(2, 3)), R.normal(size=(4, 3))


def concat_axes(a, b, M, N):
    c = np.concatenate([a, b * b, a])
    rows = np.concatenate((M, N * a), axis=-2)
    cols = np.concatenate([M.T, N.T], axis=1)
    return np.sum(c * c) + np.sum(np.sin(rows)) + np.sum(cols * cols.sum(axis=0))


def stacks(a, M):
    s = np.stack([a, np.cos(a), a * a], axis=-1)
    v = np.vstack([a, a * 2.0])
    w = np.vstack((M, M * M))
    h = np.hstack([M, np.tanh(M)])
    h1 = np.hstack((a, a[:2]))
    return np.sum(s * s) + np.sum(v ** 3) + np.sum(w * w) + np.sum(np.sin(h)) + h1 @ h1


def display_read_twice(a, b):
    parts = [a, b * 2.0]
    c = np.concatenate(parts)
    return np.sum(c * c) + np.sum(parts[1])


def joined_in_a_loop(a, b, steps):
    parts = [a, np.sin(b)]
    total = 0.0
    for k in range(steps):
        c = np.concatenate(parts) * (k + 1.0)
        total = total + np.sum(c * c)
    return total


def stencil(u, alpha, steps):
    for _ in range(steps):
        lap = u[:-2] - 2.0 * u[1:-1] + u[2:]
        u = np.concatenate([u[:1], u[1:-1] + alpha * lap, u[-1:]])
    return np.sum(u * u)


def array_of_numbers(x, y):
    v = np.array([x * y, np.sin(x), y])
    return np.sum(v * v) + np.sum(np.array([x, x]))  # (the second one: a spread adjoint)


CASES = [
    (concat_axes, (A, B, M, N)),
    (stacks, (A, M)),
    (display_read_twice, (A, B)),
    (joined_in_a_loop, (A, B, 3)),
    (stencil, (R.normal(size=7), 0.2, 3)),
    (array_of_numbers, (0.7, -1.3)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_joins(fn, args):
    check_derivatives(fn, *args, modes=("reverse",))


def typed_joins(a, b):
    c = np.concatenate([a, b ** 2, a], axis=-1)
    s = np.stack([b, np.sin(b)], axis=1)
    return np.sum(c * c) + np.sum(s * s) + np.sum(np.array([a[0], b[1]]))


def test_joins_are_plain():
    for fn, args in [(typed_joins, (A, B)), (stencil, CASES[4][1])]:
        check_derivatives(fn, *args, modes=("reverse",))
        src = mc.source(fn, "reverse")
        pullback = src[src.index("__pullback("):]
        assert "join_adjoint" not in pullback and "item_of" not in pullback and "_mc.acc(" not in pullback


def _pair(a, b):  # (an early return keeps it a call: its caller's adjoint of the tuple reaches its pullback)
    if b[0] == 123.0:
        return a, 0.0
    c = a * b
    return c, np.sum(c * a)


def tuple_items_given_or_not(a, b, s):
    c, e = _pair(a, b)
    if s > 0.0:
        return e * s  # (c gets no adjoint: the callee's pullback sees the symbolic zero for it)
    return np.sum(c * c) * s + e


def test_returned_tuple_items():
    for s in (0.5, -0.5):
        check_derivatives(tuple_items_given_or_not, A, B[:3], s, modes=("reverse",))
    src = mc.source(_pair, "reverse")
    pullback = src[src.index("__pullback("):]
    assert "_mc.real_item(" in pullback and "mul_vjp" not in pullback
    _, pb = mc.vjp(_pair, A, B[:3])
    np.testing.assert_allclose(pb((None, 1.0))[0], 2.0 * A * B[:3])  # (no adjoint for the array: zeros)
