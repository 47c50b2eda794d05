"""Draws of NumPy's module-level (legacy) API, `np.random.normal(loc, scale)` and kin, reparameterised.

`np.random.normal` is a method of NumPy's global RandomState, and its rule (rules/numpy_realistic._draw_rules)
takes that object first.  Found statically, the call was given its arguments without it: the scale was taken
for the location (d/dloc 0 where it is 1) and keywords crashed.  Such a method is now dispatched with its object
(forward/resolver.callee)."""
import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives

X = np.array([0.7, -1.3, 2.1])


def normal_loc(x):
    np.random.seed(0)
    return np.sum(np.random.normal(x, 2.0) * x)


def normal_keywords(x):
    np.random.seed(1)
    return np.sum(np.random.normal(loc=x, scale=abs(x[1]) + 0.5) ** 2)


def normal_scalar_size(x):
    np.random.seed(2)
    return np.sum(np.random.normal(x[0], abs(x[1]), size=4))


def uniform_low_high(x):
    np.random.seed(3)
    return np.sum(np.random.uniform(x[0] - 3.0, x[2], size=3) * x)


def exponential_scale(x):
    np.random.seed(4)
    return np.sum(np.random.exponential(x ** 2))


def lognormal_mean_sigma(x):
    np.random.seed(5)
    return np.sum(np.random.lognormal(x * 0.1, 0.5))


def laplace_logistic_gumbel(x):
    np.random.seed(6)
    return np.sum(np.random.laplace(x, 1.5) + np.random.logistic(x[0], 2.0, size=3) * np.random.gumbel(x, 0.3))


FAMILY = [normal_loc, normal_keywords, normal_scalar_size, uniform_low_high, exponential_scale,
          lognormal_mean_sigma, laplace_logistic_gumbel]


@pytest.mark.parametrize("f", FAMILY, ids=lambda f: f.__name__)
def test_legacy_draws(f):
    check_derivatives(f, X.copy())


def test_location_derivative_is_one():
    import mooncake_ast as mc

    np.testing.assert_allclose(mc.grad(lambda x: (np.random.seed(0), np.sum(np.random.normal(x, 2.0)))[1])(X.copy()),
                               np.ones(3), rtol=1e-12)
