"""scipy.stats calls with keywords (loc=, scale=) at the third order (issue 10): fcall of fcall of `st.norm.logpdf(x,
loc=m, scale=s)` was refused ('keyword arguments are not supported nested'); it is planned as a call of the method's
plain model (nested_stats, api_rules._fcall_plan), and gammaln's derivative psi, which scipy.special's ufuncs hold
under no module name, gets the wrapper of nested_templates at the next order."""
import numpy as np
import pytest
import scipy.stats as st

from nested_lifted_kit import check_second, check_third

POINTS = [(0.37, np.array([0.3, -0.2, 0.5])), (-0.6, np.array([1.1, 0.4, -0.7]))]


def norm_keywords(x, a):
    return np.sum(st.norm.logpdf(a, loc=x, scale=1.5 + x * x)) + st.norm.logpdf(x, loc=a[0], scale=2.0)


def t_keywords(x, a):
    return np.sum(st.t.logpdf(a * x, 3.0, loc=0.1, scale=1.2 + a[1] * a[1])) + st.t.pdf(x, 4.5, loc=a[2])


def cauchy_logistic(x, a):
    return np.sum(st.cauchy.logpdf(a, loc=x * 0.5, scale=0.8)) + np.sum(st.logistic.logpdf(a * x, scale=1.3, loc=0.2))


def gamma_shape_keyword(x, a):
    return st.gamma.logpdf(2.0 + x * x, 1.5 + a[0] * a[0], loc=0.1, scale=1.0 + 0.5 * a[1] * a[1])


def norm_cdf_keywords(x, a):
    return np.sum(st.norm.logcdf(a, loc=x, scale=2.0)) + st.norm.cdf(x * a[1], scale=1.4)


FUNCS = [norm_keywords, t_keywords, cauchy_logistic, gamma_shape_keyword, norm_cdf_keywords]


@pytest.mark.parametrize("f", FUNCS)
@pytest.mark.parametrize("x,a", POINTS)
def test_stats_keywords_second_order(f, x, a):
    check_second(f, x, a)


@pytest.mark.parametrize("f", FUNCS)
@pytest.mark.parametrize("x,a", POINTS)
def test_stats_keywords_third_order(f, x, a):
    check_third(f, x, a)
