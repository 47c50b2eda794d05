"""hunt9 probes: state held between the passes of jacfwd / hessian (counters used in the value, random generators
at module level, caches), inner derivatives updating their argument, calls returning numbers."""
from __future__ import annotations

import math

import numpy as np

import mooncake_ast as mc


class Scaled:
    def __init__(self):
        self.n = 0

    def __call__(self, x):
        self.n += 1
        return np.sum(np.sin(x) * x) * self.n


SCALED = Scaled()


def counter_in_value(x):
    return SCALED(x)


RNG = np.random.default_rng(0)


def module_rng_noise(x):
    noise = RNG.standard_normal(x.shape)
    return np.sum((x + 0.1 * noise) ** 3)


HISTORY = []


def history_of_values(x):
    HISTORY.append(len(HISTORY))
    return np.sum(x ** 3) * len(HISTORY)


def _energy(y):
    return np.sum(y ** 4) / 4.0 + np.sum(np.cos(y))


def inplace_descent(x):
    y = x.copy()
    g = mc.grad(_energy)
    for _ in range(3):
        y -= 0.05 * g(y)
    return np.sum(y ** 2)


def _normalise_in_place(v):
    v /= np.linalg.norm(v)
    return np.sum(v * np.arange(1.0, len(v) + 1.0))


def inner_grad_of_writer(x):
    return np.sum(mc.grad(_normalise_in_place)(x.copy()) * x)


def _newton_sqrt(a, steps=6):
    t = a if a > 1.0 else 1.0
    for _ in range(steps):
        t = 0.5 * (t + a / t)
    return t


def number_call_defaults(x):
    s = 0.0
    for v in x:
        s = s + _newton_sqrt(v * v + 0.5)
    return s + _newton_sqrt(x[0] ** 2 + 1.0, steps=3)


def _fib_like(a, b, n):
    if n == 0:
        return a
    return _fib_like(b, a + 0.5 * b, n - 1)


def number_recursion(x):
    return _fib_like(x[0], x[1], 5) * x[2]


def _logsumexp(vals):
    m = max(vals)
    return m + math.log(sum(math.exp(v - m) for v in vals))


def number_logsumexp(x):
    return _logsumexp([x[0], x[1] * 2.0, x[2] - x[3]])


def global_numpy_rng_noise(x):
    noise = np.random.standard_normal(x.shape)
    return np.sum((x + 0.1 * noise) ** 3)
