"""Helpers memoised with functools.lru_cache / functools.cache are differentiated as the function they wrap
(rules/python_caches.py): they stopped on a missing rule in both modes."""
import functools
import math

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives


@functools.lru_cache(maxsize=None)
def cached_square(v):
    return v * v


@functools.cache
def basis(k, t):
    return math.sin(k * t) / (1.0 + k)


@functools.cache
def fib(n, a):
    if n < 2:
        return a
    return fib(n - 1, a) + fib(n - 2, a) * 0.5


class Model:
    def __init__(self, w):
        self.w = w

    @functools.lru_cache(maxsize=None)
    def feature(self, k):
        return self.w * k


def hits_and_misses(x):
    return cached_square(x) + cached_square(x) * 2.0 + cached_square(3.0)


def series(x):
    return sum(basis(k, x) for k in range(4)) + basis(1, x) ** 2


def memoised_recursion(x):
    return fib(5, x)


def memoised_method(x):
    m = Model(x)
    return m.feature(2) + m.feature(3) * m.w


@pytest.mark.parametrize("fn", [hits_and_misses, series, memoised_recursion, memoised_method],
                         ids=lambda f: f.__name__)
def test_memoised_helpers(fn):
    check_derivatives(fn, 0.7)


def local_memoised_closure(x):
    @functools.cache
    def g(v):
        return v * x
    return g(2.0) + g(2.0) + g(x)


def local_memoised_with_hits(x):
    scale = x * x

    @functools.lru_cache(maxsize=2)
    def g(v):
        return math.sin(v) * scale
    return g(x) + g(x) + g(0.5) * x


@pytest.mark.parametrize("fn", [local_memoised_closure, local_memoised_with_hits], ids=lambda f: f.__name__)
def test_local_memoised_closures(fn):
    check_derivatives(fn, 0.7)
