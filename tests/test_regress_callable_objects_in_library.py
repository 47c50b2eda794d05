"""Callable objects (instances with `__call__`) handed to library code that calls them many times.

solve_ivp, quad, odeint, functools.reduce, itertools.accumulate/starmap, map and sorted(key=) call the object
once per evaluation and sum the adjoints each call hands back.  Each of those could be the object's own adjoint
storage, which already held the others: a field's adjoint came out tens to hundreds of times too large (solve_ivp
d/dk -56.8 for -0.12).  A callable object's adjoint now goes into its storage when each call is reversed
(reverse/runtime._object_adjoint).  A right-hand side whose derived rule keeps the state's adjoint in storage
(a callable object's `__call__` with args=) gave the integrators a zero for it (rules/scipy_integrate_rules.
state_adjoint_as_value)."""
import functools
import itertools

import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives

X = np.array([0.7, -1.3, 2.1])


class Decay:
    def __init__(self, k, c=0.0):
        self.k = k
        self.c = c

    def __call__(self, t, y):
        return -self.k * y + self.c


class DecayOdeint(Decay):
    def __call__(self, y, t):
        return -self.k * y + self.c * np.sin(t)


class Integrand:
    def __init__(self, k):
        self.k = k

    def __call__(self, t):
        return np.exp(-self.k * t) * (1.0 + t)


class Step:
    def __init__(self, k):
        self.k = k

    def __call__(self, a, b):
        return a * self.k + b


class WithArgs:
    def __call__(self, t, y, k):  # no fields: everything comes through args=
        return -k * y


class Weighted:
    def __init__(self, w):
        self.w = w

    def __call__(self, v):
        return np.sum(self.w * v) ** 2


def solve_ivp_fields(x):
    import scipy.integrate as si
    sol = si.solve_ivp(Decay(x[2] ** 2, x[0]), (0.0, 1.0), np.array([1.0, x[1]]), rtol=1e-10, atol=1e-12)
    return np.sum(sol.y[:, -1])


def solve_ivp_args(x):
    import scipy.integrate as si
    sol = si.solve_ivp(WithArgs(), (0.0, 1.0), np.array([1.0, x[0]]), args=(x[2],), rtol=1e-10, atol=1e-12)
    return np.sum(sol.y[:, -1] ** 2)


def quad_fields(x):
    import scipy.integrate as si
    return si.quad(Integrand(x[0] ** 2), 0.0, 1.0 + x[1] ** 2)[0]


def odeint_fields(x):
    import scipy.integrate as si
    return np.sum(si.odeint(DecayOdeint(x[2] ** 2, x[1]), x[:2], np.array([0.0, 0.5, 1.0]), rtol=1e-10, atol=1e-12)[-1])


def reduce_fields(x):
    return functools.reduce(Step(x[0]), x, 1.0) + functools.reduce(Step(x[1]), [x[2], x[0]])


def accumulate_fields(x):
    return sum(itertools.accumulate(x, Step(x[0])))


def starmap_fields(x):
    return sum(itertools.starmap(Step(x[0]), [(x[1], x[2]), (x[2], x[0]), (x[0], x[0])]))


def map_fields(x):
    f = Weighted(x)
    return sum(map(f, [x, np.ones(3), x[::-1]]))


def sorted_key_fields(x):
    f = Weighted(x * x)
    rows = sorted([x, x[::-1], np.cos(x)], key=f)
    return float(rows[0] @ rows[1]) + f(rows[-1])


FAMILY = [solve_ivp_fields, solve_ivp_args, quad_fields, odeint_fields, reduce_fields, accumulate_fields,
          starmap_fields, map_fields, sorted_key_fields]


@pytest.mark.parametrize("f", FAMILY, ids=lambda f: f.__name__)
def test_callable_object_called_many_times(f):
    check_derivatives(f, X.copy(), rtol=1e-5, atol=1e-7)
