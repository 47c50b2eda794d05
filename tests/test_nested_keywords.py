"""Second derivatives through calls that forward code dispatches with keywords or hand-written rules (issue 10):
scipy.stats densities (nested_stats.py), checked against central differences of mc.grad in mc.hessian,
jacfwd(grad) and jacrev(grad), mixed partials through keywords included; unsupported ones refuse by name."""
import numpy as np
import pytest
import scipy.stats as st

import mooncake_ast as mc
from mooncake_ast.rules.forward_code_rules import NestingError


def _fd_jacobian_of_grad(f, args, argnum, eps=1e-6):
    """Central differences of mc.grad(f, argnum) along argument argnum (flattened), one column per entry."""
    g = mc.grad(f, argnums=argnum)
    x = np.array(args[argnum], dtype=float)
    cols = []
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = eps
        up = list(args)
        dn = list(args)
        up[argnum] = x + e.reshape(x.shape)
        dn[argnum] = x - e.reshape(x.shape)
        cols.append((np.ravel(g(*up)) - np.ravel(g(*dn))) / (2 * eps))
    return np.stack(cols, axis=-1)


def _check_all_ways(f, args, argnum=0):
    want = _fd_jacobian_of_grad(f, args, argnum)
    for how in ("hessian", "jacfwd", "jacrev"):
        if how == "hessian":
            got = mc.hessian(f, argnums=argnum)(*args)
        elif how == "jacfwd":
            got = mc.jacfwd(mc.grad(f, argnums=argnum), argnums=argnum)(*args)
        else:
            got = mc.jacrev(mc.grad(f, argnums=argnum), argnums=argnum)(*args)
        np.testing.assert_allclose(np.reshape(got, want.shape), want, rtol=1e-5, atol=1e-6, err_msg=how)


X = np.array([0.1, 0.5, -0.7])
XPOS = np.array([0.4, 1.3, 2.2])


def norm_kw(x):
    return np.sum(st.norm.logpdf(x, loc=0.3, scale=1.5))


def norm_pos(x):
    return np.sum(st.norm.logpdf(x, 0.3, 1.5))


def norm_pdf_kw(x):
    return np.sum(st.norm.pdf(x, scale=2.0) * x)


def norm_cdf_item(x):
    return st.norm.cdf(x[0]) * x[1]


def norm_logcdf_sf(x):
    return np.sum(st.norm.logcdf(x, loc=0.2)) + np.sum(st.norm.sf(x, scale=0.7))


def t_kw(x):
    return np.sum(st.t.logpdf(x, df=4.0))


def t_pos(x):
    return np.sum(st.t.logpdf(x, 4.0, 0.1, 2.0))


def cauchy_kw(x):
    return np.sum(st.cauchy.logpdf(x, loc=-0.2, scale=0.8))


def logistic_kw(x):
    return np.sum(st.logistic.logpdf(x, scale=1.3))


def gamma_kw(x):
    return np.sum(st.gamma.logpdf(x, a=2.5, scale=1.5))


def laplace_expon_pdfs(x):
    return np.sum(st.laplace.logpdf(x, loc=0.2, scale=0.9)) + np.sum(st.t.pdf(x, df=3.0) + st.cauchy.pdf(x, 0.1))


def expon_kw(x):
    return np.sum(st.expon.logpdf(x, scale=2.0) * x)


def loc_from_x(x):  # a keyword that depends on x: the mixed partials go through loc
    return np.sum(st.norm.logpdf(x, loc=np.mean(x), scale=1.0 + x[0] * x[0]))


def df_from_x(x):
    return np.sum(st.t.logpdf(x, df=3.0 + x[1] * x[1], loc=0.5 * x[2]))


def loglik(theta, data):  # a Bayesian log-likelihood: parameters in the keywords only
    mu, log_s = theta[0], theta[1]
    return np.sum(st.norm.logpdf(data, loc=mu, scale=np.exp(log_s))) + st.norm.logpdf(mu, scale=10.0)


@pytest.mark.parametrize("f", [norm_kw, norm_pos, norm_pdf_kw, norm_cdf_item, norm_logcdf_sf, t_kw, t_pos,
                               cauchy_kw, logistic_kw, laplace_expon_pdfs, loc_from_x, df_from_x])
def test_stats_second_order(f):
    _check_all_ways(f, (X,))


@pytest.mark.parametrize("f", [gamma_kw, expon_kw])
def test_stats_positive_support(f):
    _check_all_ways(f, (XPOS,))


@pytest.mark.parametrize("theta", [np.array([0.2, -0.3]), np.array([-1.0, 0.4])])
def test_loglik_in_keywords(theta):
    data = np.array([0.3, -0.2, 1.1, 0.8])
    _check_all_ways(loglik, (theta, data), argnum=0)


def test_loc_argument_wrt_keyword():  # the derivative with respect to an argument passed on as a keyword
    def f(x, m):
        return np.sum(st.norm.logpdf(x, loc=m * m, scale=1.2))

    _check_all_ways(f, (X, np.array(0.4)), argnum=1)
    _check_all_ways(f, (X, np.array(0.4)), argnum=0)


def gamma_outside(x):
    return np.sum(st.gamma.logpdf(x, a=2.0))


def test_outside_support_refused():
    with pytest.raises(NestingError, match="support"):
        mc.hessian(gamma_outside)(np.array([0.5, -1.0]))


def t_cdf(x):
    return np.sum(st.t.cdf(x, df=3.0))


def test_unmodelled_method_refused():
    with pytest.raises(NestingError):
        mc.hessian(t_cdf)(X)


def norm_third(x):
    return np.sum(st.norm.logpdf(x, 0.3 * x[0], 1.5 + x[1] ** 2))


def test_third_order_positional():
    h3 = mc.jacfwd(mc.hessian(norm_third))(X)
    for i in range(X.size):
        d = np.zeros(X.size)
        d[i] = 1e-5
        num = (mc.hessian(norm_third)(X + d) - mc.hessian(norm_third)(X - d)) / 2e-5
        np.testing.assert_allclose(h3[..., i], num, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- numpy.random Generator draws (nested_draws.py)


def uniform_kw(x):
    rng = np.random.default_rng(0)
    return np.sum(x * x * rng.uniform(-1.0, 1.0, size=3))


def uniform_active(x):
    rng = np.random.default_rng(1)
    return np.sum(x * x * rng.uniform(-1.0 + x[0], 1.0 + x[1] * x[2], size=3))


def normal_active(x):
    rng = np.random.default_rng(2)
    return np.sum(x * rng.normal(loc=x[0] * x[1], scale=np.exp(x), size=(2, 3)))


def normal_broadcast(x):
    rng = np.random.default_rng(3)
    return np.sum(np.sin(rng.normal(x, 0.5)))


def exponential_kw(x):
    rng = np.random.default_rng(5)
    return np.sum(x * rng.exponential(scale=1.0 + x * x))


@pytest.mark.parametrize("f", [uniform_kw, uniform_active, normal_active, normal_broadcast, exponential_kw])
def test_draws_second_order(f):
    _check_all_ways(f, (X,))


def draw_from_argument(x, rng):
    return np.sum(x * x * rng.uniform(-1.0, 1.0, size=3))


def test_draw_from_a_generator_argument():
    """A generator passed in is drawn from at each pass, as at first order: each column of the Hessian is 2 u of
    some draw of the stream (a diagonal), the same stream whichever way it is computed."""
    got = [np.asarray(make(draw_from_argument)(X, np.random.default_rng(0)))
           for make in (mc.hessian, lambda f: mc.jacfwd(mc.grad(f)), lambda f: mc.jacrev(mc.grad(f)))]
    stream = 2 * np.random.default_rng(0).uniform(-1.0, 1.0, size=(8, 3))
    for h in got:
        np.testing.assert_allclose(h, np.diag(np.diag(h)))
        for i in range(3):
            assert np.any(np.isclose(stream[:, i], h[i, i]))
    np.testing.assert_allclose(got[0], got[1])


def laplace_draw(x):
    rng = np.random.default_rng(4)
    return np.sum(x * rng.laplace(x[2], 2.0, size=3))


def test_unmodelled_draw_refused():
    with pytest.raises(NestingError):
        mc.hessian(laplace_draw)(X)


# ---------------------------------------------------------------- NumPy functions writing out= (nested_out.py)


def clip_out_inplace(x):
    a = x * x
    np.clip(a, 0.05, 0.3, out=a)
    return np.sum(a * x)


def clip_out_other(x):
    a = np.zeros(3)
    np.clip(x, -0.5, 0.4, out=a)
    return np.sum(a * a * x)


def clip_active_bounds(x):
    a = np.zeros(3)
    np.clip(x * x, 0.4 * x[1], np.exp(x[2]) * 0.8, out=a)
    return np.sum(a * np.sin(x))


def cumsum_out(x):
    b = np.zeros(3)
    np.cumsum(x * x, out=b)
    return np.sum(b * x)


def cumprod_out_inplace(x):
    b = x + 2.0
    np.cumprod(b, out=b)
    return np.sum(b * b)


@pytest.mark.parametrize("f", [clip_out_inplace, clip_out_other, clip_active_bounds, cumsum_out, cumprod_out_inplace])
def test_out_functions_second_order(f):
    _check_all_ways(f, (X,))


# ---------------------------------------------------------------- in-place writes: np.putmask, a.sort()


def putmask_array(x):
    a = x * x
    np.putmask(a, a > 0.1, x * 3.0 + x[0])
    return np.sum(a * x)


def putmask_scalar(x):
    a = np.sin(x)
    np.putmask(a, x < 0.0, x[1] * x[1])
    return np.sum(a * a)


def putmask_constant(x):
    a = np.cos(x) * x
    np.putmask(a, x > 0.3, 0.5)
    np.putmask(a, x < -0.5, np.array([1.0, 2.0, 3.0]))
    return np.sum(a * x)


def putmask_2d(x):
    a = np.outer(x, x)
    np.putmask(a, a < 0.0, np.exp(np.outer(x, np.ones(3))))
    return np.sum(a * a)


def sort_inplace(x):
    a = x * x * np.array([1.0, 3.0, 0.5])
    a.sort()
    return np.sum(a * np.array([1.0, 2.0, 3.0]))


def sort_rows(x):
    a = np.outer(x, np.array([1.0, -2.0, 0.3])) + x
    a.sort()
    return np.sum(np.sin(a) * np.arange(9.0).reshape(3, 3))


def flat_write(x):
    a = x * x
    a.flat[1] = x[0] * x[2]
    return np.sum(a * x)


@pytest.mark.parametrize("f", [putmask_array, putmask_scalar, putmask_constant, putmask_2d, sort_inplace, sort_rows,
                               flat_write])
def test_inplace_second_order(f):
    _check_all_ways(f, (X,))


def putmask_cyclic(x):
    a = x * x
    np.putmask(a, a > 0.1, np.array([1.0, 2.0]) * x[0])
    return np.sum(a)


@pytest.mark.parametrize("f", [putmask_cyclic])
def test_inplace_still_refused(f):
    with pytest.raises(NestingError):
        mc.hessian(f)(X)
