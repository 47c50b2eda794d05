"""Functions that map a local function over a list (tests/test_typed_map.py): `list(map(f, xs))` is put in line as
the comprehension it is (reverse/map_calls.py)."""
import math

import numpy as np


def lambda_sort_and_map(xs, temp):
    scaled = list(map(lambda v: v / temp, xs))
    ordered = sorted(scaled, key=lambda v: -v)
    return sum(w * v for w, v in zip([3.0, 2.0, 1.0, 0.5], ordered))


def map_def(xs, a):
    def soft(v):
        return math.log(1.0 + math.exp(a * v))
    ys = list(map(soft, xs))
    return sum(ys) * ys[0]


def map_arrays(Ws, x):
    hs = list(map(lambda W: np.tanh(W @ x), Ws))
    return sum(float(np.sum(h * h)) for h in hs)


def map_in_loop(xs, s, n):
    total = 0.0
    for k in range(n):
        ys = list(map(lambda v: v * s + k, xs))
        total = total + ys[k % len(ys)] ** 2
    return total


def map_of_map(xs, s):
    ys = list(map(lambda v: v * s, list(map(lambda v: math.sin(v), xs))))
    return ys[0] + ys[-1] * s


def map_then_appended(xs, s):
    ys = list(map(lambda v: v * v, xs))
    ys.append(s * s)
    return sum(ys) / len(ys)


def divide_by(xs, d):
    ys = list(map(lambda v: v / d, xs))
    return sum(ys)


def direct_lambda(x, d):
    f = lambda v: v / d  # noqa: E731
    return f(x)


def _softsign(v):
    return v / (1.0 + abs(v))


def map_module_function(xs, s):
    ys = list(map(_softsign, xs))
    return sum(y * s for y in ys) + ys[-1]


def map_not_in_line(xs, s):
    def clipped(v):
        if v > 1.0:
            return 1.0
        return v * s
    ys = list(map(clipped, xs))
    return sum(ys) * s


def consumers_of_map(xs, s):
    total = sum(map(lambda v: v * v * s, xs))
    low = min(map(lambda v: (v - s) ** 2, xs))
    ordered = sorted(map(lambda v: v * s, xs))
    pair = tuple(map(_softsign, xs[:2]))
    return total + low + ordered[0] * ordered[-1] + pair[0] * pair[1]
