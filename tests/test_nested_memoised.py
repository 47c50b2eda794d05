"""Nested derivatives through memoised functions and methods (`functools.cache`, `functools.lru_cache`): planned as
the function they wrap, as first-order rules dispatch them (rules/python_caches.unmemoised).  Were refused at every
second order ("the forward derivative of phi comes from a hand-written rule")."""
import functools
import math

import numpy as np
import pytest

import mooncake_ast as mc
from tests.helpers import fd_jac
from tests.test_regress_nested_hunt import DIRECTIONAL, NESTINGS, T3, X3


@functools.lru_cache(maxsize=None)
def phi(t, k):
    return math.sin(k * t) / (1.0 + k)


@functools.lru_cache(maxsize=4)
def basis(k, t):
    return t ** k * math.exp(-t)


@functools.cache
def arr_free(k):
    return np.arange(1.0, k + 1.0)  # (no differentiated argument: a constant, from the cache)


class Poly:
    def __init__(self, a, b):
        self.a = a
        self.b = b

    @functools.cache
    def at(self, k):
        return self.a * k + self.b * k * k

    @functools.lru_cache(maxsize=None)
    def cubed(self, k):
        return self.a * k ** 3 + math.sin(self.b)


def memoised_free(x):
    return sum(phi(x[0], k) for k in range(3)) + phi(x[1] * x[2], 1) + basis(2, x[2]) * basis(3, x[0])


def memoised_method(x):
    p = Poly(x[0] * x[1], x[2])
    return p.at(2) + p.at(2) * p.at(3) + p.cubed(2) * x[0]


def memoised_in_loop(x):
    acc = 0.0
    for i in range(3):
        acc = acc + phi(acc + x[i], i + 1) * np.sum(arr_free(i + 1)) + basis(i, x[i] ** 2)
    return acc


FUNCS = [memoised_free, memoised_method, memoised_in_loop]
IDS = [f.__name__ for f in FUNCS]


@pytest.mark.parametrize("nesting", sorted(NESTINGS))
@pytest.mark.parametrize("f", FUNCS, ids=IDS)
def test_second_order(f, nesting):
    H = fd_jac(lambda y: mc.grad(f)(y), X3)
    got = NESTINGS[nesting](f, X3.copy())
    np.testing.assert_allclose(got, H @ T3 if nesting in DIRECTIONAL else H, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("outer", ["jacfwd", "jacrev"])
@pytest.mark.parametrize("f", FUNCS, ids=IDS)
def test_third_order(f, outer):
    T = fd_jac(lambda y: mc.hessian(f)(y), X3)
    np.testing.assert_allclose(getattr(mc, outer)(mc.hessian(f))(X3), T, rtol=1e-4, atol=1e-5)


def test_scalar_third_derivative():
    f = lambda t: phi(t, 2) * basis(3, t)  # noqa: E731
    d3 = mc.grad(mc.grad(mc.grad(f)))(0.4)
    ref = fd_jac(lambda t: mc.grad(mc.grad(f))(float(t)), np.array(0.4))
    np.testing.assert_allclose(d3, ref, rtol=1e-5, atol=1e-6)
