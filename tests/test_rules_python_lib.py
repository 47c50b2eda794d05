"""Issue 12: Python library callables (rules/python_lib.py; the `math` module's rules) in both modes:
check_derivatives (forward against finite differences, reverse against forward) over families of
inputs, gradients against central differences computed here, and the refusals."""
import copy
import functools
import math
import operator
import statistics

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.rules.registry import lookup
from mooncake_ast.testing import check_derivatives

RNG = np.random.default_rng(4321)


def fd_grad(f, args, h=1e-6):
    """d f / d args (floats) by central differences."""
    out = []
    for i in range(len(args)):
        a, b = list(args), list(args)
        a[i] += h
        b[i] -= h
        out.append((f(*a) - f(*b)) / (2 * h))
    return tuple(out)


# ---------------------------------------------------------------- functools.reduce
def _mul_add(a, b):
    return a * b + 1.0


REDUCERS = [operator.add, operator.mul, _mul_add, lambda a, b: a * np.sin(b) + b, max, np.maximum, math.hypot]


@pytest.mark.parametrize("fn", REDUCERS, ids=["add", "mul", "user def", "lambda", "max", "np.maximum", "math.hypot"])
@pytest.mark.parametrize("initial", [None, 0.5])
def test_reduce_over_numbers(fn, initial):
    if initial is None:
        def f(x, y, z):
            return functools.reduce(fn, [x, y, z])
    else:
        def f(x, y, z):
            return functools.reduce(fn, (x, y, z), initial)
    args = (0.7, -1.3, 2.1)
    check_derivatives(f, *args)
    np.testing.assert_allclose(mc.grad(f, argnums=(0, 1, 2))(*args), fd_grad(f, args), rtol=1e-6, atol=1e-8)


def test_reduce_with_a_differentiated_initial_value_and_closure():
    def f(x, w):
        return functools.reduce(lambda acc, v: acc * w + v, [x, 2.0 * x, x * x], w)

    check_derivatives(f, 0.6, 1.4)
    np.testing.assert_allclose(mc.grad(f, argnums=(0, 1))(0.6, 1.4), fd_grad(f, (0.6, 1.4)), rtol=1e-6)


@pytest.mark.parametrize("shape", [(3,), (2, 3)])
def test_reduce_over_arrays(shape):
    xs = [RNG.normal(size=shape) for _ in range(4)]

    def f(a, b, c, d):
        return np.sum(functools.reduce(lambda p, q: p * np.tanh(q) + q, [a, b, c, d]))

    check_derivatives(f, *copy.deepcopy(xs))

    def rows(m):
        return functools.reduce(np.add, list(m), np.zeros(shape[-1])) ** 2

    check_derivatives(rows, RNG.normal(size=(3,) + shape[-1:]))


def test_reduce_of_one_item_and_of_none():
    assert mc.grad(lambda x: functools.reduce(operator.mul, [x]))(2.0) == 1.0
    assert mc.grad(lambda x: functools.reduce(operator.mul, [], x))(2.0) == 1.0
    with pytest.raises(TypeError):
        mc.grad(lambda x: functools.reduce(operator.mul, []) + x)(2.0)


# ---------------------------------------------------------------- statistics
STATS = ["fmean", "mean", "pstdev", "stdev", "pvariance", "variance"]


@pytest.mark.parametrize("name", STATS)
@pytest.mark.parametrize("container", [list, tuple, "array"])
def test_statistics_of_computed_values(name, container):
    fn = getattr(statistics, name)

    def f(x, y):
        values = [x, y, x * y, np.sin(y)]
        data = np.array(values) if container == "array" else container(values)
        return fn(data) * 2.0

    args = (0.7, -1.3)
    check_derivatives(f, *args)
    np.testing.assert_allclose(mc.grad(f, argnums=(0, 1))(*args), fd_grad(f, args), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", ["pstdev", "stdev", "pvariance", "variance"])
def test_deviation_about_a_given_mean(name):
    fn = getattr(statistics, name)

    def f(x, m):
        return fn([x, 2.0, x * x, 0.3], m)

    args = (0.7, 1.1)
    check_derivatives(f, *args)
    np.testing.assert_allclose(mc.grad(f, argnums=(0, 1))(*args), fd_grad(f, args), rtol=1e-6, atol=1e-8)


def test_statistics_of_an_array_argument():
    x = RNG.normal(size=5)
    check_derivatives(lambda x: statistics.stdev(x) + statistics.fmean(x * x), x)
    g = mc.grad(lambda x: statistics.pvariance(x))(x)
    np.testing.assert_allclose(g, 2.0 * (x - x.mean()) / x.size)


def test_zero_spread_has_slope_zero():
    assert mc.grad(lambda x: statistics.pstdev([x, x, x]))(0.5) == 0.0
    assert mc.jvp(lambda x: statistics.stdev([x, x]), (0.5,), (1.0,))[1] == 0.0


def test_statistics_refusals():
    with pytest.raises(NotImplementedError, match="numbers only"):
        mc.grad(lambda x: statistics.mean([x, "a"]))(0.5)
    # (a keyword holding a float: its tangent counts in forward mode too, no longer refused)
    check_derivatives(lambda x: statistics.pstdev([x, 1.0, 0.3 * x], mu=x * x), 0.5)
    with pytest.raises(statistics.StatisticsError):
        mc.grad(lambda x: statistics.stdev([x]))(0.5)


# ---------------------------------------------------------------- math
def test_every_differentiable_math_function_has_a_rule():
    missing = [n for n in dir(math) if callable(getattr(math, n)) and not n.startswith("_") and lookup(getattr(math, n)) is None]
    assert not missing, f"math functions without a rule: {missing}"


MATH_CASES = [
    ("erf", lambda x: math.erf(x), (0.3,)), ("erfc", lambda x: math.erfc(x), (0.3,)),
    ("gamma", lambda x: math.gamma(x), (2.3,)), ("lgamma", lambda x: math.lgamma(x), (2.3,)),
    ("expm1", lambda x: math.expm1(x), (0.3,)), ("log1p", lambda x: math.log1p(x), (0.3,)),
    ("hypot", lambda x, y: math.hypot(x, y, 0.5), (0.3, -1.2)), ("dist", lambda x, y: math.dist((x, y), (1.0, y * y)), (0.3, -1.2)),
    ("fsum", lambda x, y: math.fsum([x, y, x * y]), (0.3, -1.2)), ("prod", lambda x, y: math.prod([x, y, 2.0]), (0.3, -1.2)),
    ("copysign", lambda x, y: math.copysign(x, y), (0.3, -1.2)), ("fmod", lambda x, y: math.fmod(x, y), (2.3, 0.7)),
    ("remainder", lambda x, y: math.remainder(x, y), (2.3, 0.7)), ("ldexp", lambda x: math.ldexp(x, 3), (0.3,)),
    ("atan2", lambda x, y: math.atan2(x, y), (0.3, -1.2)), ("pow", lambda x, y: math.pow(x, y), (1.3, 0.7)),
]
if hasattr(math, "cbrt"):
    MATH_CASES += [("cbrt", lambda x: math.cbrt(x), (0.3,)), ("exp2", lambda x: math.exp2(x), (0.3,))]


@pytest.mark.parametrize("name, f, args", MATH_CASES, ids=[c[0] for c in MATH_CASES])
def test_math_functions_against_finite_differences(name, f, args):
    check_derivatives(f, *args)
    g = mc.grad(f, argnums=tuple(range(len(args))))(*args)
    g = g if isinstance(g, tuple) else (g,)
    np.testing.assert_allclose(g, fd_grad(f, args), rtol=1e-5, atol=1e-7)
