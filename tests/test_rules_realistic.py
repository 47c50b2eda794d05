"""Checks of the rules added for scripts/realistic_audit.py beyond their derivative cases (those are in
tests/rule_cases_realistic.py, run by tests/test_rules.py): honest refusals, and constants passed to
rules that refuse a differentiated operand (reverse mode used to refuse them from their type alone)."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

x3 = np.array([0.3, 0.5, 0.9])


def quantile_of(x, q):
    return np.quantile(x, q)


def gradient_of(x, xs):
    return np.sum(np.gradient(x, xs) ** 2)


def gradient_spaced(x, h):
    return np.sum(np.gradient(x * x, h, edge_order=2))


def nan_filled(x, v):
    return np.sum(np.nan_to_num(x, nan=v))


def padded(x, c):
    return np.sum(np.pad(x, 1, constant_values=c))


@pytest.mark.parametrize("f, const", [(quantile_of, 0.3), (nan_filled, 0.5), (padded, 0.5), (gradient_spaced, 0.4)],
                         ids=["q", "nan=", "constant_values=", "spacing"])
def test_constant_passed_to_a_helper_is_not_refused(f, const):
    """The helper's operand is differentiated as far as the helper knows, but the caller passes a constant
    number: its refused adjoint is discarded unread (rules/numpy_extra.refused_adjoint).  (An array constant
    is still refused: inside the helper its adjoint goes to the array's storage, which reads it.)"""
    g = mc.grad(lambda x: f(x, const))(x3)
    eps = 1e-6
    fd = [(f(x3 + eps * e, const) - f(x3 - eps * e, const)) / (2 * eps) for e in np.eye(3)]
    np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("f, const", [(quantile_of, 0.3), (gradient_of, np.array([0.0, 0.4, 1.0])), (nan_filled, 0.5)],
                         ids=["q", "coordinates", "nan="])
def test_differentiated_operand_is_still_refused(f, const):
    with pytest.raises(NotImplementedError):
        mc.grad(f, argnums=(0, 1))(x3, const)


def test_sum_of_filter_in_reverse_mode():
    check_derivatives(lambda x: sum(filter(lambda v: v > 0.4, x)) + sum(v * v for v in filter(None, x)), x3)


def test_refusals():
    import itertools

    sp = pytest.importorskip("scipy")
    import scipy.integrate as si
    import scipy.optimize as so

    del sp
    with pytest.raises(NotImplementedError, match="infinite"):
        mc.grad(lambda n: sum(itertools.islice(itertools.repeat(n), 3)))(0.5)
    with pytest.raises(NotImplementedError, match="bins='auto'"):
        mc.jvp(lambda x: np.histogram(x, bins="auto", density=True)[0], (x3,), (x3,))
    with pytest.raises(NotImplementedError, match="implicit differentiation"):
        mc.grad(lambda c: so.minimize(lambda z, a: np.sum((z - a) ** 2), np.zeros(2), args=(c,))["x"][0])(0.7)
    with pytest.raises(NotImplementedError, match="implicit differentiation"):
        mc.jvp(lambda c: so.minimize(lambda z: np.sum((z - c) ** 2), np.zeros(2))["x"], (0.7,), (1.0,))
    assert np.isclose(mc.grad(lambda a: si.quad(lambda t: np.exp(-a * t * t), 0.0, np.inf)[0])(0.6),
                      -np.sqrt(np.pi) / 4 * 0.6 ** -1.5)  # (was refused: infinite limits are mapped, breadth14)
    with pytest.raises(NotImplementedError, match="solve_ivp solved to a relative accuracy"):  # (the default rtol)
        mc.jvp(lambda T: si.solve_ivp(lambda t, y: -y, (0.0, T), np.ones(1))["y"], (0.7,), (1.0,))


def test_optimize_result_attribute_of_a_constant_fit():  # (it was refused: the lambda counted as active)
    import scipy.optimize as so

    def f(w):
        return np.sum(w * so.minimize(lambda z: np.sum((z - 1.0) ** 2), np.zeros(2)).x)

    check_derivatives(f, np.array([0.2, 0.3]), modes=("reverse",))


def test_integer_operand_of_a_refusing_rule():
    """An int computed from an int parameter (`100 - q`) reaches np.percentile's q: no refusal (ints carry none)."""
    def var(x, q=5):
        return np.percentile(x * x, 100 - q)

    check_derivatives(var, np.array([0.3, -0.5, 0.9, 0.1]))
