"""`np.add(c, b, out=c)` of a float array is `c += b` (ir/typed_methods._ufunc_out_update): the same call ndarray's
in-place operator makes, so reverse mode can make the update plain (`c = c + b`).  Families in both modes: each
ufunc, broadcasting operands, the result used, the update in a loop or a branch (where c is read in other blocks:
left as it was), a parameter updated, and c read through a view."""
import numpy as np
import pytest

import mooncake_ast as mc


def chain(a, b):
    c = a.copy()
    np.add(c, b, out=c)
    np.multiply(c, a, out=c)
    return float(np.sum(c))


def each_ufunc(a, b):
    c = a * 1.0
    np.subtract(c, b, out=c)
    np.true_divide(c, 1.5 + b * b, out=c)
    np.power(c, 2, out=c)
    d = np.add(c, c, out=c)
    return np.sum(d * a)


def broadcast_row(W, v):
    c = W + 0.0
    np.multiply(c, v, out=c)
    np.add(c, 2.0, out=c)
    return np.sum(np.tanh(c))


def in_loop(a, b, n):
    c = a.copy()
    for _ in range(n):
        np.multiply(c, b, out=c)
        np.add(c, a, out=c)
    return np.sum(c ** 2)


def in_branch(a, b):
    c = a.copy()
    if np.sum(a) > 0.0:
        np.add(c, b, out=c)
    else:
        np.multiply(c, b, out=c)
    return np.sum(c * c)


def parameter_updated(a, b):
    np.add(a, b, out=a)
    return np.sum(a * b)


def through_view(a, b):
    c = a.copy()
    head = c[:2]
    np.multiply(c, b, out=c)
    return np.sum(head * a[:2]) + np.sum(c)


FAMILY = [
    (chain, lambda r: (r.normal(size=4), r.normal(size=4))),
    (each_ufunc, lambda r: (r.normal(size=5), r.normal(size=5))),
    (broadcast_row, lambda r: (r.normal(size=(3, 4)), r.normal(size=4))),
    (in_loop, lambda r: (r.normal(size=3), 0.5 * r.normal(size=3), 3)),
    (in_branch, lambda r: (r.normal(size=3), r.normal(size=3))),
    (parameter_updated, lambda r: (r.normal(size=3), r.normal(size=3))),
    (through_view, lambda r: (r.normal(size=4), r.normal(size=4))),
]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("fn,make", FAMILY, ids=[f.__name__ for f, _ in FAMILY])
def test_ufunc_out_updates_give_right_gradients(fn, make, seed):
    mc.testing.check_derivatives(fn, *make(np.random.default_rng(seed)))


@pytest.mark.parametrize("fn,make", FAMILY[:3], ids=[f.__name__ for f, _ in FAMILY[:3]])
def test_ufunc_out_updates_are_plain(fn, make):
    args = make(np.random.default_rng(0))
    mc.vjp(fn, *args)
    pullback = mc.source(fn, "reverse").split("__pullback(", 1)[1].split("\n\n\n", 1)[0]
    assert "_mc." not in pullback, pullback
