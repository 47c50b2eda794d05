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


# ---------------------------------------------------------------- frozen distributions at second order


def frozen_norm(x, a):
    d = st.norm(x, 1.0 + x * x)
    return np.sum(d.logpdf(a)) + d.logpdf(x * 0.5)


def frozen_norm_keywords(x, a):
    d = st.norm(loc=a[0], scale=1.0 + x * x)
    return np.sum(d.logpdf(a * x)) + d.cdf(x) + d.logsf(a[2])


def frozen_t_positional(x, a):
    d = st.t(4.0, x, 2.0 + a[1] ** 2)
    return np.sum(d.logpdf(a)) + d.pdf(x)


def frozen_in_loop(x, a):
    total = 0.0
    for i in range(3):
        d = st.cauchy(loc=a[i] * x, scale=0.5 + 0.1 * i)
        total = total + d.logpdf(x) + st.logistic(a[i], 1.2).logpdf(x * x)
    return total


def frozen_gamma_freeze(x, a):
    d = st.gamma.freeze(2.0 + a[0] * a[0], loc=-1.0, scale=1.0 + x * x)
    return np.sum(d.logpdf(np.abs(a) + x * x))


FROZEN = [frozen_norm, frozen_norm_keywords, frozen_t_positional, frozen_in_loop, frozen_gamma_freeze]


@pytest.mark.parametrize("f", FROZEN)
@pytest.mark.parametrize("x,a", POINTS)
def test_frozen_distributions_second_order(f, x, a):
    """`d = st.norm(mu, s); d.logpdf(x)` was refused ('the forward derivative of rv_generic.__call__ comes from a
    hand-written rule'): in code differentiated again the distribution is frozen as a plain object whose methods call
    the models (nested_stats_frozen.py)."""
    check_second(f, x, a)


def frozen_mean(x, a):
    d = st.norm(x, 2.0)
    return d.mean() * x + d.logpdf(a[0])


def frozen_outside_support(x, a):
    d = st.gamma(2.0, loc=1.0, scale=1.0 + x * x)
    return d.logpdf(0.5 + 0.0 * x)  # (below loc: SciPy's -inf, not the model's value)


def frozen_unmodelled(x, a):
    d = st.beta(2.0 + x * x, 3.0)
    return d.logpdf(0.4)


@pytest.mark.parametrize("f,what", [(frozen_mean, "mean"), (frozen_outside_support, "support"),
                                    (frozen_unmodelled, "beta")])
def test_frozen_distributions_refused_by_name(f, what):
    import mooncake_ast as mc

    x, a = POINTS[0]
    with pytest.raises(mc.NestingError, match=what):
        mc.grad(mc.grad(f))(x, a.copy())
