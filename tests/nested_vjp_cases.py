"""Functions of tests/test_nested_vjp.py: mc.vjp called inside the function differentiated (a module of their own,
so their source is read from a file)."""
import numpy as np

import mooncake_ast as mc


def pullback_times_input(x):
    y, pb = mc.vjp(lambda z: np.sin(z) * z, x)
    return np.sum(pb(np.ones_like(y))[0] * x) + np.sum(y * y)


def cotangent_is_the_input(x):
    y, pb = mc.vjp(lambda z: np.sin(z) * 2.0, x)
    return np.sum(pb(x)[0] ** 2)


def two_primals(x):
    y, pb = mc.vjp(lambda a, b: a * np.sin(b), x[0], x)
    ga, gb = pb(np.cos(x))
    return ga * np.sum(gb * x)


CASES = [pullback_times_input, cotangent_is_the_input, two_primals]
