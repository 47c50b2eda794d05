"""Functions that define a `lambda` or `def` and call it (reverse/call_types.local_function types the calls of
those that capture nothing), and near misses: captured variables, defaults, generators, *args, a local function
handed to another function, one chosen by a branch."""
import math

import numpy as np


def normal_cdf_price(S, K, sigma):
    N = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))  # noqa: E731
    d = math.log(S / K) / sigma
    return S * N(d) - K * N(d - sigma)


def nested_def_arrays(x):
    def energy(v):
        return np.sum(v * v) + np.sum(np.sin(v))

    def grad_step(v):
        return v - 0.1 * np.cos(v)

    y = grad_step(x)
    return energy(y) * energy(x)


def lambda_in_loop(x):
    sq = lambda v: v * v  # noqa: E731
    s = 0.0
    for i in range(4):
        s = s + sq(x + i) / (1 + i)
    return s


def captures_a_parameter(x, k):
    f = lambda v: v * k  # noqa: E731  (a captured cell: dispatched as before)
    return f(x) * f(x + 1.0)


def with_default(x):
    f = lambda v, c=2.0: v * c  # noqa: E731  (a default: dispatched as before)
    return f(x) + f(x, 3.0)


def chosen_by_branch(x):
    if x > 0:
        f = lambda v: v * v  # noqa: E731
    else:
        f = lambda v: -v  # noqa: E731
    return f(x) + 1.0


def handed_on(xs):
    key = lambda v: v * v  # noqa: E731
    return sum(sorted(xs, key=key)[:2]) + key(xs[0])


def returns_tuple(x):
    def polar(r, t):
        return r * math.cos(t), r * math.sin(t)

    a, b = polar(x, 0.3)
    return a * b


def local_recursion(x, n):
    def power(v, k):
        return 1.0 if k == 0 else v * power(v, k - 1)  # (a captured cell: itself)

    return power(x, n)


def writes_its_argument(x):
    def bump(v):
        v[0] = v[0] * 2.0
        return v

    y = np.array([x, 1.0])
    return float(np.sum(bump(y)) * x)
