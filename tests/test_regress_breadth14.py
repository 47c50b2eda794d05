"""Regressions of helper breadth14 (issue 12's SciPy leftovers), both modes, checked by check_derivatives:

* make_interp_spline / interp1d(kind='cubic' / 'quadratic') / BSpline: differentiated in the data values and where
  the spline is read (LAPACK dgbsv and the compiled B-spline evaluation had no rule: missing rule on the trunk);
  in the data sites or knots forward mode refuses by name and reverse mode gives NaN (never a number).
* scipy.optimize.root_scalar of a differentiated function (refused on the trunk): the implicit function theorem.
* scipy.integrate.quad over an infinite interval in reverse mode (refused on the trunk).
"""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

si = pytest.importorskip("scipy.integrate")
sint = pytest.importorskip("scipy.interpolate")
so = pytest.importorskip("scipy.optimize")

BOTH = ("forward", "reverse")
SITES = np.linspace(-1.0, 3.0, 9)
VALS = np.cos(SITES) * np.exp(0.2 * SITES)
PTS = np.array([-0.9, -0.2, 0.4, 1.3, 2.2, 2.95])


def _spline_y(k, bc):
    def f(y):
        return np.sum(sint.make_interp_spline(SITES, y, k=k, bc_type=bc)(PTS) ** 2)
    return f


@pytest.mark.parametrize("k, bc", [(3, None), (3, "natural"), (3, "clamped"), (2, None), (5, None), (1, None)])
def test_make_interp_spline_in_values(k, bc):
    check_derivatives(_spline_y(k, bc), VALS, modes=BOTH)


@pytest.mark.parametrize("nu", [0, 1, 2])
def test_make_interp_spline_at_points(nu):
    spl = sint.make_interp_spline(SITES, VALS)  # (made outside: a constant spline)

    def f(x):
        return spl(x * 0.8 + 0.5, nu) * x

    check_derivatives(f, PTS, modes=BOTH)


@pytest.mark.parametrize("kind", ["cubic", "quadratic", "slinear"])
def test_interp1d_kinds(kind):
    def f(y, x):
        return sint.interp1d(SITES, y, kind=kind)(x) * y[:6]

    check_derivatives(f, VALS, PTS * 0.9, modes=BOTH)


def test_spline_of_matrix_values_and_derivative_spline():
    def f(y):
        spl = sint.make_interp_spline(SITES, np.stack([y, np.sin(y)], axis=1))
        return np.sum(spl(PTS) * spl.derivative()(PTS[::-1]))

    check_derivatives(f, VALS, modes=BOTH)


def test_bspline_made_directly_in_coefficients():
    t = np.array([0.0, 0.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.0, 2.0])

    def f(c, x):
        return sint.BSpline(t, c, 2)(x) ** 2

    check_derivatives(f, np.array([0.4, -0.3, 1.1, 0.7, -0.2, 0.5]), np.array([0.1, 0.8, 1.9]), modes=BOTH)


def test_spline_sites_refused_forward_nan_reverse():
    def f(s):
        return np.sum(sint.make_interp_spline(SITES * s, VALS)(PTS))

    with pytest.raises(mc.MooncakeError, match="data sites x or knots t"):
        mc.jvp(f, (1.01,), (1.0,))
    assert np.isnan(mc.grad(f)(1.01))


def _root(a):
    return so.root_scalar(lambda t: t ** 3 + t - a, bracket=(-5.0, 5.0)).root


def _root_args(a):
    return so.root_scalar(lambda t, c, d: np.tanh(t) - c * t + d, args=(a[0], a[1]), bracket=(0.2, 10.0)).root


def _root_newton(a):
    r = so.root_scalar(lambda t: np.exp(t) - a * a, x0=0.5, fprime=lambda t: np.exp(t), method="newton")
    return r.root * a


def _root_closure(a):
    w = np.array([1.0, 2.0]) * a
    return so.root_scalar(lambda t: w[0] * t * t - w[1] - 1.0, method="brentq", bracket=[0.0, 4.0]).root


@pytest.mark.parametrize("f, x", [(_root, 0.8), (_root_args, np.array([0.5, 0.1])), (_root_newton, 1.7),
                                  (_root_closure, 0.9)], ids=["bracket", "args", "newton", "closure"])
def test_root_scalar_implicit(f, x):
    check_derivatives(f, x, modes=BOTH)


def test_root_scalar_with_fprime_true_refused():
    def f(a):
        return so.root_scalar(lambda t: (t * t - a, 2 * t), x0=1.0, fprime=True, method="newton").root

    with pytest.raises(mc.MooncakeError, match="fprime=True"):
        mc.grad(f)(2.0)


@pytest.mark.parametrize("lo, hi", [(-np.inf, np.inf), (0.0, np.inf), (-np.inf, 0.3)])
def test_quad_infinite_reverse(lo, hi):
    def f(a):
        return si.quad(lambda t: np.exp(-a * t * t + 0.3 * t), lo, hi)[0] * a

    check_derivatives(f, 1.3, modes=BOTH)


# ------------------------------------------------------------------ np.polynomial series (convert was WRONG: zero)
GRID = np.linspace(0.0, 1.0, 9)


def _fit_convert(y):
    return np.polynomial.Polynomial.fit(GRID, y, 3).convert().coef


def _cheb_fit_convert(y):
    return np.polynomial.Chebyshev.fit(GRID, y, 2).convert(kind=np.polynomial.Polynomial).coef


def _compose(c):
    q = np.polynomial.Polynomial([0.5, 2.0, -0.3])
    return np.polynomial.Polynomial(c)(q).coef


def _call_with_domain(c):
    return np.polynomial.Legendre(c, domain=[-1.0, 3.0])(GRID) * c[0]


@pytest.mark.parametrize("f", [_fit_convert, _cheb_fit_convert, _compose, _call_with_domain],
                         ids=["fit_convert", "chebyshev_kind", "compose", "call_domain"])
def test_polynomial_series(f):
    arg = np.sin(3.0 * GRID) if "fit" in f.__name__ else np.array([0.4, -1.2, 0.7, 0.3])
    check_derivatives(f, arg, modes=BOTH)


# ------------------------------------------------------------------ filters designed from constants (reverse refused)
ss = pytest.importorskip("scipy.signal")
SIG = np.cos(np.arange(40.0) * 0.7) + 0.05 * np.arange(40.0)


@pytest.mark.parametrize("f", [
    lambda x: ss.lfilter(*ss.butter(2, 0.3), x),
    lambda x: ss.filtfilt(*ss.butter(2, 0.25), x),
    lambda x: ss.sosfilt(ss.butter(4, [0.1, 0.4], btype="band", output="sos"), x),
    lambda x: ss.sosfiltfilt(ss.cheby2(3, 30.0, 0.4, output="sos"), x),
    lambda x: np.convolve(x, ss.firwin(7, 0.3), mode="same"),
], ids=["lfilter_butter", "filtfilt", "sosfilt_band", "sosfiltfilt_cheby2", "firwin"])
def test_filter_designed_from_constants(f):
    check_derivatives(f, SIG, modes=BOTH)


def test_filter_cutoff_refused_by_name():
    def f(w):
        return np.sum(ss.lfilter(*ss.butter(2, w), SIG))

    for run in (lambda: mc.grad(f)(0.3), lambda: mc.jvp(f, (0.3,), (1.0,))):
        with pytest.raises(mc.MooncakeError, match="scipy.signal.butter with respect to its specification"):
            run()


# ------------------------------------------------------------------ RegularGridInterpolator (missing rule on the trunk)
RK = np.linspace(-1.0, 1.0, 7)
RK2 = np.array([0.0, 0.25, 0.7, 1.5, 2.0])
RV = np.add.outer(RK ** 2, np.sin(RK2))
RP = np.array([[0.13, 0.41], [-0.57, 1.13], [0.81, 1.67], [-0.27, 0.05]])


@pytest.mark.parametrize("kw", [{}, {"bounds_error": False, "fill_value": None}, {"bounds_error": False}])
def test_regular_grid_interpolator_points_and_values(kw):
    def f(v, p):
        return sint.RegularGridInterpolator((RK, RK2), v, **kw)(p * 1.1) * p[:, 0]

    check_derivatives(f, RV, RP, modes=BOTH)


def test_regular_grid_interpolator_other_method_refused():
    def f(v):
        return np.sum(sint.RegularGridInterpolator((RK, RK2), v)(RP, method="nearest"))

    with pytest.raises(mc.MooncakeError, match="method='nearest'"):
        mc.grad(f)(RV)
