"""Reverse mode writes what a person would (issue 9): the rewrites that make the pullback leaner stay right.

- integer index arithmetic next to a recorded index (`i - 1`) is computed again in the pullback, not taped;
- two contributions to one adjoint with a scalar factor in common are summed first (`s * (y / p - t3 / t4)`),
  and `f*A + f*A` is one product;
- a loop writing only into an array of its own makes no state snapshot (nothing the caller sees is rolled back);
- one adjoint object for two arguments is still handed out as two arrays.
"""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast import api_fast
from mooncake_ast.reverse import shadows
from mooncake_ast.reverse.fastpath import fast_rule
from mooncake_ast.testing import check_derivatives


def shifted(x):
    y = np.zeros_like(x)
    y[0] = np.sin(x[0])
    for i in range(1, x.shape[0]):
        y[i] = 0.5 * y[i - 1] + np.sin(x[i]) * x[i - 1]
    return np.sum(y * y)


def shifted_while(x):
    y = np.zeros_like(x)
    y[0] = x[0]
    k = 1
    while k < x.shape[0]:
        y[k] = np.cos(y[k - 1]) * x[k] + x[k - 1] * 2.0
        k = k + 1
    return np.sum(y)


def two_terms(w, X, y):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def two_terms_minus(w, X, y):
    p = np.tanh(X @ w) * 0.4 + 0.5
    return np.mean(-(y * np.log(p)) - (1.0 - y) * np.log(1.0 - p)) * 3.0


def squares(x, c):
    z = np.tanh(x * c)
    return 0.5 * np.sum(z * z) - np.sum(z * x)


def both(a, b):
    c = a + b
    return np.sum(c * c)


def _pullback_text(f):
    src = mc.source(f, "reverse")
    start = src.index("\ndef " + f.__name__ + "__pullback(")
    end = src.find("\ndef ", start + 1)
    return src[start:] if end < 0 else src[start:end]


def test_index_arithmetic_is_recomputed_not_recorded():
    rng = np.random.default_rng(1)
    x = rng.normal(size=6)
    check_derivatives(shifted, x, modes=("reverse",))
    src = mc.source(shifted, "reverse")
    assert "y_bar[i - 1] +=" in _pullback_text(shifted)
    assert "= i - 1\n" not in src  # (recorded, `i - 1` had a name of its own, pushed and popped with i)
    check_derivatives(shifted_while, x, modes=("reverse",))


def test_common_scalar_factor_and_twice_the_same_product():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(7, 3))
    y = (rng.random(7) < 0.5).astype(float)
    w = rng.normal(size=3) * 0.3
    for f in (two_terms, two_terms_minus):
        check_derivatives(lambda w: f(w, X, y), w, modes=("reverse",))
        np.testing.assert_allclose(mc.grad(f)(w, X, y), mc.grad(lambda w: f(w, X, y))(w), rtol=1e-12)
    assert "(y / p - " in _pullback_text(two_terms)
    check_derivatives(squares, rng.normal(size=4), 0.7, modes=("reverse",))
    mc.grad(squares)(rng.normal(size=4), 0.7)
    assert "z_bar + z_bar" not in _pullback_text(squares)


def test_a_loop_writing_its_own_array_takes_no_state_snapshot():
    x = np.random.default_rng(3).normal(size=5)
    before = x.copy()
    g = mc.grad(shifted)(x)
    np.testing.assert_array_equal(x, before)
    assert fast_rule(shifted, (x,), frozenset({0})).gen.may_write is False
    assert g.shape == x.shape


def test_one_adjoint_for_two_arguments_is_handed_out_twice():
    a, b = np.arange(3.0), np.ones(3)
    ga, gb = mc.grad(both, argnums=(0, 1))(a, b)
    gen = fast_rule(both, (a, b), frozenset({0, 1})).gen
    assert gen.forward_tape is not None and api_fast._plain(gen)  # (the path without a Context)
    assert not getattr(shadows._local, "stack", None)
    assert ga is not gb
    np.testing.assert_allclose(ga, 2 * (a + b))
    np.testing.assert_allclose(gb, 2 * (a + b))


def mismatched(w, y):
    p = np.exp(w) * 2.0
    return np.sum(y * p) + np.sum((1.0 - y) * (1.0 - p))


def test_value_free_pass_still_fails_where_the_primal_does():
    # (the checks of `y * p` and `(1 - y) * (1 - p)` are one, of y's and w's shapes: p and 1 - p have w's)
    w, y = np.ones(3), np.ones(4)
    with pytest.raises(ValueError):
        mismatched(w, y)
    with pytest.raises(ValueError):
        mc.grad(mismatched)(w, y)
    w2 = np.random.default_rng(4).normal(size=4)
    check_derivatives(mismatched, w2, np.linspace(0.1, 0.9, 4), modes=("reverse",))
    src = mc.source(mismatched, "reverse")
    assert src.count("broadcast_check(") == 1
