"""The rules of issue 12's third pass (tests/rule_cases_lang14.py holds their cases for test_rules.py): what a
case table cannot say: the quadratures' accuracy where parameters are extreme, and what is still refused."""
import numpy as np
import pytest

import mooncake_ast as mc

sp = pytest.importorskip("scipy.special")


def _fd(f, a, rel=1e-5):
    h = rel * a
    return (f(a + h) - f(a - h)) / (2.0 * h)


@pytest.mark.parametrize("a, x", [(0.05, 0.2), (0.3, 30.0), (1.0, 1.0), (80.0, 60.0), (80.0, 100.0), (2000.0, 2030.0)])
def test_gammainc_in_a_matches_finite_differences(a, x):
    from mooncake_ast.rules.scipy_special_params import gammainc_da

    want = _fd(lambda v: sp.gammainc(v, x), a)
    assert abs(gammainc_da(a, x) - want) <= 1e-6 * abs(want) + 1e-9


@pytest.mark.parametrize("a, b, x", [(0.05, 25.0, 0.45), (3.0, 700.0, 0.45), (900.0, 900.0, 0.49), (0.5, 0.1, 0.99),
                                     (40.0, 2.0, 1e-4), (1.0, 1.0, 0.3)])
def test_betainc_in_a_and_b_match_finite_differences(a, b, x):
    from mooncake_ast.rules.scipy_special_params import betainc_da, betainc_db

    da = _fd(lambda v: sp.betainc(v, b, x), a)
    db = _fd(lambda v: sp.betainc(a, v, x), b)
    assert abs(betainc_da(a, b, x) - da) <= 1e-6 * abs(da) + 1e-9
    assert abs(betainc_db(a, b, x) - db) <= 1e-6 * abs(db) + 1e-9


def test_shape_derivatives_agree_across_distributions():
    st = pytest.importorskip("scipy.stats")
    x = np.array([0.4, 1.3, 3.0])
    g_chi2 = mc.grad(lambda k: np.sum(st.chi2.cdf(x, k)))(3.0)
    g_gamma = mc.grad(lambda a: np.sum(st.gamma.cdf(x, a, scale=2.0)))(1.5)  # (chi2(k) is gamma(k / 2, scale 2))
    assert np.isclose(g_chi2, 0.5 * g_gamma, rtol=1e-9)


def test_still_refused():
    sl = pytest.importorskip("scipy.linalg")
    si = pytest.importorskip("scipy.integrate")
    def stops_at(k):  # (terminal events are differentiated since: tests/test_rules_lang16.py)
        def event(t, y):
            return y[0] - 0.5 * k  # (reads the differentiated k from its closure)

        event.terminal = True
        return si.solve_ivp(lambda t, y: -k * y, (0.0, 3.0), np.ones(1), events=event, rtol=1e-10, atol=1e-12).y[0, -1]

    from mooncake_ast.testing import check_derivatives

    check_derivatives(stops_at, 0.7, rtol=1e-4, atol=1e-6)  # (the event reads k from its closure: both modes)
    with pytest.raises(NotImplementedError, match="negative real axis"):
        mc.jvp(lambda a: sl.fractional_matrix_power(a, 0.5), (-np.eye(2) * 2.0,), (np.eye(2),))
    with pytest.raises(NotImplementedError, match="parameter"):  # (the order of jv: no closed form, no quadrature)
        mc.jvp(lambda v: sp.jv(v, 1.5), (1.5,), (1.0,))
