"""What the fourth pass's rules refuse, by name, instead of answering wrong (their derivatives are checked by the
rule cases, tests/rule_cases_lang15.py)."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

sl = pytest.importorskip("scipy.linalg")
sp = pytest.importorskip("scipy.special")
st = pytest.importorskip("scipy.stats")

N3 = np.array([[0.4, -0.9, 0.3], [0.8, 0.2, -0.5], [0.1, 0.6, -0.3]])


def _both(f, *args):
    """Run f's derivative in each mode; yield the mode's error."""
    for run in (lambda: mc.grad(f)(*args), lambda: mc.jvp(f, args, args)):
        with pytest.raises(mc.UnsupportedDerivativeError) as info:
            run()
        yield info.value


def test_funm_refuses_a_defective_matrix():
    jordan = np.array([[1.0, 1.0], [0.0, 1.0]])
    for e in _both(lambda a: np.sum(sl.funm(a, np.exp)), jordan):
        assert "eigenvectors" in str(e)


def test_funm_reverse_refuses_a_func_holding_floats():
    def f(a, c):
        return np.sum(sl.funm(a, lambda z: np.exp(c * z)))

    with pytest.raises(mc.UnsupportedDerivativeError, match="closure or defaults"):
        mc.grad(f)(N3, 0.5)


def test_signm_refuses_an_eigenvalue_on_the_imaginary_axis():
    rotation = np.array([[0.0, -1.0], [1.0, 0.0]])
    for e in _both(lambda a: np.sum(sl.signm(a)), rotation):
        assert "imaginary axis" in str(e)


def test_sph_harm_y_refuses_diff_n():
    for e in _both(lambda t: np.real(sp.sph_harm_y(2, 1, t, 0.3, diff_n=1)[0]), 0.7):
        assert "diff_n" in str(e)


def test_rvs_refuses_a_shape_parameter():
    for e in _both(lambda a: np.sum(st.gamma.rvs(a, size=3, random_state=0)), 2.0):
        assert "shape parameter" in str(e)


def test_mvn_box_refuses_an_infinite_upper_limit():
    f = lambda l: st.multivariate_normal.cdf(np.array([np.inf, 0.2]), np.zeros(2), np.eye(2), lower_limit=l)  # noqa: E731
    for e in _both(f, np.array([-0.3, -1.0])):
        assert "infinite x" in str(e)


def test_solve_ivp_event_times_reverse_and_terminal_events_refused():
    si = pytest.importorskip("scipy.integrate")

    def f(k):
        r = si.solve_ivp(lambda t, y: -k * y, (0.0, 2.0), np.array([1.0, 2.0]), events=lambda t, y: y[0] - 0.5,
                         rtol=1e-10, atol=1e-12)
        return r.t_events[0][0]

    with pytest.raises(mc.UnsupportedDerivativeError, match="t_events"):
        mc.grad(f)(0.8)

    def stop(t, y):
        return y[0] - 0.5

    stop.terminal = True
    g = lambda k: si.solve_ivp(lambda t, y: -k * y, (0.0, 2.0), np.ones(1), events=stop, rtol=1e-10, atol=1e-12).y  # noqa: E731
    check_derivatives(lambda k: g(k)[:, -1], 0.8)  # (a terminal event: differentiated since, tests/test_rules_lang16.py)
