"""In-place updates of arrays a function just made (`a *= s`) are differentiated as the plain operation
(reverse/prepare.plain_inplace) when nothing can tell the two apart; everywhere else (aliases, views,
the caller's arrays, loops, shapes that would not fit) the in-place machinery stays.  Each case against
forward mode and finite differences, and what the pullback reads like."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives


def chain(x, s):
    a = x.copy()
    a *= s
    a += 1.0
    a **= 2
    return a.sum()


def normalise_copy(x):
    a = x * 1.0
    a /= np.sum(a * a)
    return np.sum(a * x)


def broadcast_row(A, b):
    C = A @ A.T
    C -= b
    C *= 0.5
    return np.sum(np.tanh(C))


def alias_kept(x, s):
    a = x.copy()
    b = a
    a *= s
    return np.sum(b * x)


def view_kept(x, s):
    a = x.copy()
    v = a[:2]
    a *= s
    return np.sum(v) + np.sum(a)


def view_after(x, s):
    a = x * 2.0
    a *= s
    v = a[1:]
    v += 1.0
    return np.sum(a ** 2)


def callers_array(x, s):
    x *= s
    return np.sum(x ** 2)


def in_loop(x, s, n):
    a = x.copy()
    for _ in range(n):
        a *= s
        a += x
    return np.sum(a)


def read_after(x, s):
    a = x + 0.0
    t = np.sum(a)
    a *= s
    return t * np.sum(a)


def stored_first(x, s):
    a = x.copy()
    box = [a]
    a *= s
    return np.sum(box[0]) + np.sum(a)


def rnd(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape)


CASES = [
    ("chain", chain, lambda: (rnd(4, seed=1), 1.7)),
    ("chain 2d", chain, lambda: (rnd(2, 3, seed=2), -0.6)),
    ("normalise_copy", normalise_copy, lambda: (rnd(5, seed=3),)),
    ("broadcast_row", broadcast_row, lambda: (rnd(3, 2, seed=4), rnd(3, seed=5))),
    ("broadcast_col", broadcast_row, lambda: (rnd(3, 2, seed=4), rnd(3, 1, seed=5))),
    ("alias_kept", alias_kept, lambda: (rnd(4, seed=6), 1.3)),
    ("view_kept", view_kept, lambda: (rnd(4, seed=7), 0.8)),
    ("view_after", view_after, lambda: (rnd(4, seed=8), 1.1)),
    ("in_loop", in_loop, lambda: (rnd(3, seed=9), 0.9, 3)),
    ("read_after", read_after, lambda: (rnd(4, seed=10), 1.4)),
    ("stored_first", stored_first, lambda: (rnd(4, seed=11), 0.7)),
]


@pytest.mark.parametrize("fn, make", [(f, m) for _, f, m in CASES], ids=[n for n, _, _ in CASES])
def test_inplace_cases(fn, make):
    check_derivatives(fn, *make())


def test_callers_array_is_still_changed_and_differentiated():
    check_derivatives(callers_array, rnd(4, seed=12), 1.5)
    x = rnd(4, seed=12)
    before = x.copy()
    callers_array(x, 2.0)
    assert np.allclose(x, 2.0 * before)  # (the plain call's effect is the user's)


def test_shape_that_does_not_fit_still_fails_as_numpy_does():
    def grows(x):
        a = x.copy()
        a += np.ones((2, 3))  # (3,) += (2, 3): NumPy refuses
        return np.sum(a)

    with pytest.raises(ValueError):
        grows(rnd(3, seed=13))
    with pytest.raises(ValueError):
        mc.grad(grows)(rnd(3, seed=13))


def test_fresh_array_updates_read_like_plain_arithmetic():
    x = rnd(4, seed=1)
    mc.grad(chain, argnums=(0, 1))(x, 1.7)
    body = mc.source(chain, "reverse")
    pullback = body[body.index("__pullback("):]
    assert "_mc." not in pullback and "inplace_reverse" not in body and "save_inplace" not in body
    assert "np.sum(" in pullback  # s_bar = float(np.sum(a_bar * a))
