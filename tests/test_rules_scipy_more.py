"""Issue 12: the scipy.special and scipy.stats rules (rules/scipy_special_more.py, rules/scipy_stats.py),
checked in both modes by check_derivatives over families of distributions, parameters and shapes; the
derivatives without a closed form refused (never zero); and the lazy registration (no SciPy import
by mooncake_ast, scipy.stats' rules once the user imports it)."""
import subprocess
import sys
import os

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

sp = pytest.importorskip("scipy.special")
st = pytest.importorskip("scipy.stats")

RNG = np.random.default_rng(1212)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def U(*shape, lo=-1.0, hi=1.0):
    return RNG.uniform(lo, hi, size=shape)


# ---------------------------------------------------------------- scipy.special
@pytest.mark.parametrize("a, b", [(0.6, 0.8), (1.5, 2.5), (4.0, 1.2)])
@pytest.mark.parametrize("shape", [(3,), (2, 3)])
def test_betainc_in_x(a, b, shape):
    check_derivatives(lambda x: sp.betainc(a, b, x), U(*shape, lo=0.1, hi=0.9))


@pytest.mark.parametrize("fn", [sp.gammainc, sp.gammaincc])
@pytest.mark.parametrize("a", [0.5, 1.0, 3.5])
def test_incomplete_gamma_in_x(fn, a):
    check_derivatives(lambda x: fn(a, x) * x, U(2, 3, lo=0.2, hi=4.0))


@pytest.mark.parametrize("name, orders", [("jv", [0.0, 1.0, 2.5]), ("iv", [0.0, 1.5, 3.0]), ("ive", [0.0, 1.0, 2.5]),
                                          ("yn", [0, 1, 3])])
def test_bessel_functions_in_x(name, orders):
    fn = getattr(sp, name)
    for v in orders:
        check_derivatives(lambda x: fn(v, x), U(4, lo=0.3, hi=3.0))
    if name != "yn":  # integer orders are defined for negative x too (ive through its kink-free |x|)
        check_derivatives(lambda x: fn(1.0, x) + fn(2, x), np.array([-2.5, -0.7, 0.4, 1.9]))


def test_bessel_order_as_an_array_and_broadcasting():
    check_derivatives(lambda x: sp.jv(np.array([[0.0], [1.5]]), x), U(3, lo=0.2, hi=3.0))
    check_derivatives(lambda x, y: np.sum(sp.iv(1.0, x) * y), U(2, 3), U(3))


@pytest.mark.parametrize("fn", [sp.j0, sp.j1, sp.y0, sp.y1])
def test_integer_order_bessel(fn):
    lo = 0.2 if fn in (sp.y0, sp.y1) else -4.0
    check_derivatives(lambda x: fn(x) * 2.0, U(5, lo=lo, hi=6.0))
    check_derivatives(lambda x: fn(x), float(RNG.uniform(0.5, 3.0)))


def test_rgamma_including_its_zeros():
    check_derivatives(lambda x: sp.rgamma(x), np.array([-2.5, -0.3, 0.4, 1.0, 3.7]))
    # at the poles of Gamma, 1/Gamma is 0 with slope (-1)^n n!
    g = mc.grad(lambda x: np.sum(sp.rgamma(x)))(np.array([0.0, -1.0, -2.0, -3.0]))
    np.testing.assert_allclose(g, [1.0, -1.0, 2.0, -6.0])
    check_derivatives(lambda x: sp.rgamma(x), np.array([0.0, -1.0, -3.0]))


def test_gammasgn_has_zero_slope():
    x = np.array([-1.5, -0.5, 2.0])  # Gamma: +, -, +
    assert mc.grad(lambda x: np.sum(sp.gammasgn(x) * x))(x).tolist() == [1.0, -1.0, 1.0]


@pytest.mark.parametrize("axis, keepdims", [(None, False), (0, False), (1, True), (-1, False)])
def test_logsumexp_with_b(axis, keepdims):
    x, b = U(2, 3), U(2, 3, lo=0.3, hi=2.0)
    check_derivatives(lambda x, b: sp.logsumexp(x, axis=axis, b=b, keepdims=keepdims), x, b)
    check_derivatives(lambda x: sp.logsumexp(x, axis=axis, b=b, keepdims=keepdims), x)
    # against the plain formula
    g = mc.grad(lambda x, b: np.sum(sp.logsumexp(x, axis=axis, b=b)), argnums=(0, 1))(x, b)
    w = b * np.exp(x) / np.sum(b * np.exp(x), axis=axis, keepdims=True)
    np.testing.assert_allclose(g[0], w)
    np.testing.assert_allclose(g[1], w / b)


def test_logsumexp_b_broadcasts():
    check_derivatives(lambda x, b: sp.logsumexp(x, axis=1, b=b), U(3, 4), U(4, lo=0.5, hi=1.5))


def test_logsumexp_return_sign():
    check_derivatives(lambda x: sp.logsumexp(x, b=np.array([1.0, -2.0, 0.5]), return_sign=True)[0], U(3))
    with pytest.raises(NotImplementedError, match="complex"):  # (the sign is then a phase that moves)
        mc.jvp(lambda x: sp.logsumexp(x, return_sign=True)[0], (U(3) + 0.5j,), (U(3),))


@pytest.mark.parametrize("f, args", [
    (lambda v, x: sp.jv(v, x), (1.5, np.array([0.5, 2.0]))),
    (lambda v, x: sp.iv(v, x), (1.5, np.array([0.5, 2.0]))),
    (lambda v, x: sp.ive(v, x), (1.5, np.array([0.5, 2.0]))),
])
@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_parameters_without_a_closed_form_are_refused(f, args, mode):
    if mode == "forward":
        with pytest.raises(NotImplementedError, match="parameter"):
            check_derivatives(f, *args, modes=(mode,))
    else:
        g = lambda a, x: np.sum(f(a, x))  # noqa: E731
        with pytest.raises(NotImplementedError, match="parameter"):
            mc.grad(g, argnums=(0, 1))(np.full(2, args[0]), args[1])
        with pytest.raises(NotImplementedError, match="parameter"):  # a float parameter asked for: refused too
            mc.grad(g, argnums=0)(*args)
    # ... but a constant parameter is fine: only x is differentiated
    assert np.all(np.isfinite(mc.grad(lambda a, x: np.sum(f(a, x)), argnums=1)(*args)))


# ---------------------------------------------------------------- scipy.stats, continuous
# (distribution, shape parameters, points inside the support)
DISTS = [("norm", (), (-1.5, 1.5)), ("t", (3.5,), (-2.0, 2.0)), ("t", (1.2,), (-2.0, 2.0)), ("chi2", (2.5,), (0.3, 4.0)),
         ("chi2", (5.0,), (0.3, 6.0)), ("beta", (1.5, 2.5), (0.1, 0.9)), ("beta", (0.7, 0.8), (0.1, 0.9)),
         ("gamma", (1.7,), (0.3, 4.0)), ("gamma", (0.6,), (0.3, 3.0)), ("expon", (), (0.1, 3.0)),
         ("laplace", (), (-2.0, 2.0))]
METHODS = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def _points(lo, hi, loc, scale, shape=(4,)):
    return loc + scale * RNG.uniform(lo, hi, size=shape)


@pytest.mark.parametrize("dist, shapes, support", DISTS, ids=[f"{d}{s}" for d, s, _ in DISTS])
@pytest.mark.parametrize("method", METHODS)
def test_continuous_in_x_loc_scale(dist, shapes, support, method):
    meth = getattr(getattr(st, dist), method)
    loc, scale = 0.3, 1.4
    x = _points(*support, loc, scale)
    check_derivatives(lambda x, loc, scale: meth(x, *shapes, loc, scale), x, loc, scale)
    check_derivatives(lambda x, scale: meth(x, *shapes, loc=0.3, scale=scale), x, scale)
    check_derivatives(lambda x: meth(x, *shapes), _points(*support, 0.0, 1.0, shape=(2, 3)))


@pytest.mark.parametrize("dist, shapes, support", [d for d in DISTS if d[1]], ids=[f"{d}{s}" for d, s, _ in DISTS if s])
@pytest.mark.parametrize("method", ["logpdf", "pdf"])
def test_densities_in_their_shape_parameters(dist, shapes, support, method):
    meth = getattr(getattr(st, dist), method)
    x = _points(*support, 0.0, 1.0)
    if len(shapes) == 1:
        check_derivatives(lambda x, s: meth(x, s, loc=0.0, scale=1.0), x, shapes[0])
        check_derivatives(lambda x, s: meth(x, s), x, np.full(4, shapes[0]) + U(4, lo=0.0, hi=0.5))
    else:
        check_derivatives(lambda x, a, b: meth(x, a, b), x, shapes[0], shapes[1])


def test_arrays_of_locations_and_scales_broadcast():
    x = U(3, 1)
    check_derivatives(lambda x, loc, scale: st.norm.logpdf(x, loc, scale), x, U(4), U(4, lo=0.5, hi=2.0))
    check_derivatives(lambda x, loc, scale: st.laplace.cdf(x, loc=loc, scale=scale), x, U(4), U(4, lo=0.5, hi=2.0))


def test_outside_the_support_the_slope_is_zero():
    x = np.array([-0.5, 0.5])
    g = mc.grad(lambda x: np.sum(st.gamma.pdf(x, 2.0) + st.expon.cdf(x) + st.beta.pdf(x + 0.1, 2.0, 2.0)))(x)
    assert g[0] == 0.0 and np.isfinite(g[1]) and g[1] != 0.0
    gs = mc.grad(lambda x, scale: np.sum(st.gamma.logpdf(x, 2.0, scale=scale)), argnums=(0, 1))(x, 1.5)
    assert gs[0][0] == 0.0 and np.isfinite(gs[1])  # -inf outside the support contributes nothing


# (cdf, logcdf, sf and logsf in a shape parameter of t, chi2, gamma, invgamma and beta: differentiated by
# quadrature, checked in both modes by tests/rule_cases_lang14.py)


# ---------------------------------------------------------------- poisson and multivariate normal
@pytest.mark.parametrize("mu", [0.4, 2.3, np.array([0.5, 3.0, 7.0])])
@pytest.mark.parametrize("method", ["logpmf", "pmf"])
def test_poisson_in_mu(mu, method):
    meth = getattr(st.poisson, method)
    k = np.array([0, 2, 5]) if np.ndim(mu) else np.array([0, 1, 3, 6])
    check_derivatives(lambda mu: meth(k, mu), mu)
    check_derivatives(lambda mu: meth(k + 1, mu, loc=1), mu)
    g = mc.grad(lambda mu: np.sum(st.poisson.logpmf(k, mu)))(mu)
    np.testing.assert_allclose(g, np.sum(k / mu - 1.0) if np.ndim(mu) == 0 else k / mu - 1.0)


def _spd(d):
    a = RNG.normal(size=(d, d))
    return a @ a.T + d * np.eye(d)


@pytest.mark.parametrize("d", [1, 2, 4])
@pytest.mark.parametrize("batch", [(), (3,), (2, 3)])
@pytest.mark.parametrize("method", ["logpdf", "pdf"])
def test_multivariate_normal(d, batch, method):
    meth = getattr(st.multivariate_normal, method)
    x, mean, cov = RNG.normal(size=batch + (d,)), RNG.normal(size=d), _spd(d)
    check_derivatives(lambda x, m, c: meth(x, m, c), x, mean, cov)
    check_derivatives(lambda x, m: meth(x, mean=m, cov=np.eye(d) * 2.0), x, mean)
    check_derivatives(lambda x: meth(x, mean, 1.5), x)


def test_multivariate_normal_cov_reads_the_lower_triangle():
    x, mean, cov = RNG.normal(size=3), RNG.normal(size=3), _spd(3)
    g = mc.grad(lambda c: st.multivariate_normal.logpdf(x, mean, c))(cov)
    assert np.all(np.triu(g, 1) == 0.0)  # SciPy ignores the upper triangle
    inv = np.linalg.inv(cov)
    r = inv @ (x - mean)
    full = 0.5 * (np.outer(r, r) - inv)  # the symmetric gradient, folded onto the lower triangle
    np.testing.assert_allclose(g, np.tril(2.0 * full) - np.diag(np.diag(full)))


@pytest.mark.parametrize("cov", [np.array([1.0, 2.0, 0.5]), 1.7])
def test_multivariate_normal_diagonal_and_scalar_cov(cov):
    x, mean = RNG.normal(size=(2, 3)), RNG.normal(size=3)
    check_derivatives(lambda x, m, c: st.multivariate_normal.logpdf(x, m, c), x, mean, cov)
    check_derivatives(lambda x, c: st.multivariate_normal.pdf(x, mean, c), x[0], cov)


def test_uses_the_user_writes():
    from scipy.stats import norm, t

    def nll(mu, log_sigma, data):
        return -np.sum(norm.logpdf(data, loc=mu, scale=np.exp(log_sigma)))

    def robust(mu, data):
        return -np.sum(t.logpdf(data - mu, 4.0)) + np.sum(norm.logcdf(data, mu))

    data = RNG.normal(size=10)
    check_derivatives(nll, 0.2, -0.1, data)
    check_derivatives(robust, 0.2, data)
    g_mu = mc.grad(nll)(0.2, 0.0, data)
    np.testing.assert_allclose(g_mu, -np.sum(data - 0.2))


# ---------------------------------------------------------------- lazy registration
def test_stats_rules_registered_only_once_scipy_stats_is_imported(tmp_path):
    code = """
import sys
import mooncake_ast as mc
from mooncake_ast.rules import scipy_stats
from mooncake_ast.rules.registry import lookup
assert 'scipy' not in sys.modules
import scipy.special, numpy as np
assert lookup(scipy.special.jv) is not None and scipy_stats.REGISTERED == {}
assert 'scipy.stats' not in sys.modules
import scipy.stats
print(lookup(scipy.stats.norm.logpdf) is not None, len(scipy_stats.REGISTERED) == len(scipy_stats.FUNCTIONS))
print(mc.grad(lambda x: scipy.stats.norm.logpdf(x))(0.5))
"""
    env = dict(os.environ, PYTHONPATH=ROOT, MOONCAKE_AST_CACHE_DIR=str(tmp_path / "cache"))
    (tmp_path / "lazy_stats.py").write_text(code)
    p = subprocess.run([sys.executable, "lazy_stats.py"], capture_output=True, text=True, env=env, timeout=120, cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["True", "True", "-0.5"]
