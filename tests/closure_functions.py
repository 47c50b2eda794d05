"""Functions with closures defined inside local functions (tests/test_typed_closures.py): their reverse modules are
plain code once the nested defs are put in line (reverse/inline.py)."""
import math

import numpy as np


def two_level(x, y):
    def outer(t):
        def inner(u):
            return u * t + y
        return inner(t) * inner(x)
    return outer(x) + outer(y)


def two_level_arrays(W, x):
    def layer(h):
        def act(z):
            return np.tanh(z)
        return act(W @ h)
    return np.sum(layer(layer(x)) ** 2)


def nested_in_loop(x, n):
    s = 0.0
    for k in range(n):
        def outer(t):
            def inner(u):
                return math.sin(u * k)
            return inner(t) + t
        s = s + outer(x)
    return s


def lambda_in_local_def(x):
    def make(t):
        sq = lambda u: u * u * t  # noqa: E731
        return sq(x) + sq(t)
    return make(x * 2.0)


def decorated_inside(x):
    def twice(f):
        def g(u):
            return f(f(u))
        return g

    @twice
    def h(u):
        return math.sin(u) + u
    return h(x)


def three_levels(x, y):
    def a(t):
        def b(u):
            def c(v):
                return v * x - y * u
            return c(u) * c(t)
        return b(t) + b(y)
    return a(x)


def outer_called_twice_arrays(x, w):
    def outer(t):
        def inner(u):
            return u * w
        return np.sin(inner(t)) + inner(x)
    return np.sum(outer(x) * outer(w))


def factory_in_function(x, y):
    def make(t):
        def inner(u):
            return u * t + math.sin(t)
        return inner
    f = make(x)
    g = make(y)
    return f(y) * g(x) + f(x)


def recursive_outer(x, n):
    def outer(k):
        def step(u):
            return math.sin(u) + 0.5 * x
        if k == 0:
            return x
        return step(outer(k - 1))
    return outer(n)


def inner_escapes(xs, s):
    def make(t):
        def scale(u):
            return u * t
        return scale
    sc = make(s)
    return sum(list(map(sc, xs))) + sc(s)
