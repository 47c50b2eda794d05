"""Issue 9: pullbacks specialised on types the emitter now knows (refs14): index tuples from itertools over a
range are ints, `np.linspace(a, b, x.shape[0])` has x's length, a matrix product's strong adjoint is a real
array, and a pure helper a template calls twice on the same operands (`px * px`) is called once.  Each case is
checked in both modes, and its pullback is plainer than before."""
import itertools
import math

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

R = np.random.default_rng(1414)


def pair_products(x):
    s = 0.0
    for i, j in itertools.combinations(range(len(x)), 2):
        s += x[i] * x[j]
    return s


def ordered_pairs(x, w):
    s = 0.0
    for i, j in itertools.permutations(range(x.shape[0]), 2):
        s = s + w * x[i] / (1.0 + x[j] ** 2)
    return s


def grid_pairs(x):
    s = 0.0
    for i, j in itertools.product(range(len(x)), range(len(x))):
        s = s + math.sin(x[i] - x[j])
    return s


def pairs_with_self(x):
    s = 0.0
    for i, j in itertools.combinations_with_replacement(range(len(x)), 2):
        s = s + x[i] * x[j] * (i + 1)
    return s


def weighted_by_linspace(x):
    return np.sum(np.tanh(x) * np.linspace(0.5, 1.5, x.shape[0]))


def ramp_loss(x, a):
    r = np.linspace(0.0, 1.0, len(x))
    return a * np.sum((x - r) ** 2)


def softmax_rows(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    w = np.exp(s - s.max(axis=1, keepdims=True))
    w = w / w.sum(axis=1, keepdims=True)
    return np.sum(w @ V)


def radii(points):
    total = 0.0
    for px, py in points:
        total += math.sqrt(px * px + py * py)
    return total


def two_state_step(a, b, dt):
    s = np.array([a, b])
    for _ in range(3):
        k = np.array([s[1], -np.sin(s[0])])
        s = s + dt * k
    return np.sum(s * np.array([1.0, 2.0]))


X = R.uniform(0.2, 0.9, size=5)
CASES = [
    (pair_products, (X,)),
    (ordered_pairs, (X, 0.7)),
    (grid_pairs, (X,)),
    (pairs_with_self, (X,)),
    (weighted_by_linspace, (X,)),
    (ramp_loss, (X, 0.8)),
    (softmax_rows, (R.normal(size=(3, 4)), R.normal(size=(5, 4)), R.normal(size=(5, 2)))),
    (radii, ([(0.3, 0.4), (1.0, -2.0), (0.5, 0.1)],)),
    (two_state_step, (0.3, -0.2, 0.1)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_derivatives(fn, args):
    check_derivatives(fn, *args)


def _module(fn, args):
    mc.vjp(fn, *args)
    return mc.source(fn, "reverse")


def _pullback(fn, args):
    text = _module(fn, args)
    start = text.index(f"def {fn.__name__}__pullback(")
    end = text.find("\ndef ", start + 1)
    return text[start:] if end < 0 else text[start:end]


@pytest.mark.parametrize("fn", [pair_products, ordered_pairs, grid_pairs, pairs_with_self])
def test_index_tuples_are_ints(fn):
    """The tuples of indexes are not code the forward pass dispatches at run time (with a pullback of its own)."""
    assert "_mc.rcall(itertools" not in _module(fn, (X,) if fn is not ordered_pairs else (X, 0.7))


@pytest.mark.parametrize("fn,args", [(weighted_by_linspace, (X,)), (ramp_loss, (X, 0.8))])
def test_linspace_of_a_length_broadcasts_nothing(fn, args):
    assert "_mc." not in _pullback(fn, args)


def test_strong_matmul_adjoint_is_a_real_array():
    """Its adjoint divided by the row sums needs no run-time unbroadcast: the shapes are the same."""
    assert "_mc.unbroadcast" not in _pullback(softmax_rows, CASES[6][1])


def test_square_partials_made_once():
    pb = _pullback(radii, CASES[7][1])
    assert pb.count("_mc.strong_mul(px,") == 1 and pb.count("_mc.strong_mul(py,") == 1, pb


def test_displays_of_equal_length_broadcast_nothing():
    """`s + dt * k` of two 2-item displays: equal sizes, so no run-time unbroadcast or generic product."""
    pb = _pullback(two_state_step, (0.3, -0.2, 0.1))
    assert "_mc.unbroadcast" not in pb and "_mc.add_vjp" not in pb and "_mc.mul_vjp" not in pb, pb
