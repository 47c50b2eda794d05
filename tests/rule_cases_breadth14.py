"""Test inputs of the rules added by helper breadth14 (issue 12: SciPy's B-splines -- make_interp_spline,
interp1d(kind='cubic'), BSpline -- by rules/scipy_interpolate_bspline.py; scipy.optimize.root_scalar by the
implicit function theorem, rules/scipy_optimize_rules.py; quad over infinite intervals in reverse mode;
np.polynomial series' convert() and evaluation, rules/numpy_polynomial_convert.py; scipy.signal's
filter designs as data, rules/scipy_signal_design.py; RegularGridInterpolator, rules/scipy_interpolate_rgi.py).  Merged into CASES /
ZERO_CASES of tests/test_rules.py by catalog name, so each is checked by check_derivatives in both modes."""
import numpy as np
from numpy.polynomial import Chebyshev, Legendre, Polynomial
from numpy.polynomial._polybase import ABCPolyBase

from rule_case_kit import kit

try:
    import scipy.integrate as si
    import scipy.interpolate as sint
    import scipy.linalg as sl
    import scipy.optimize as so
    import scipy.signal as ss
    from scipy.interpolate import _dierckx
except ImportError:  # SciPy is optional
    si = sint = sl = so = ss = _dierckx = None

F, Case = kit("breadth14 rule case", globals())
C = Case

SITES = np.linspace(0.0, 2.0, 7)
VALS = np.sin(SITES) + 0.3 * SITES
PTS = np.array([0.15, 0.5, 0.93, 1.41, 1.77, 1.98])
KNOTS3 = np.array([0.0, 0.0, 0.0, 0.0, 0.6, 1.1, 1.6, 2.0, 2.0, 2.0, 2.0])
COEF = np.array([0.3, -0.5, 1.2, 0.8, -0.4, 0.9, 0.1])
AB = np.array([[0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.7, -0.3, 0.5, 0.2], [4.0, 3.5, 5.0, 4.2, 3.9],
               [0.4, -0.6, 0.8, 0.1, 0.0]])  # (dgbsv's storage, kl = ku = 1: the first row is LAPACK's workspace)
RHS = np.array([0.5, -1.0, 2.0, 0.3, 1.1])


GK = np.linspace(0.0, 2.0, 6)
GK2 = np.array([0.0, 0.3, 1.0, 1.6, 2.5])
GV = np.outer(np.sin(GK), np.cos(GK2))
GP = np.array([0.13, -0.41, 0.57, 0.23, -0.71, 0.37])  # (off the grid nodes: the interpolant has kinks there)


def _spline_cases():
    return {
        sint.RegularGridInterpolator.__call__: [
            C("lambda p: sint.RegularGridInterpolator((GK, GK2), GV)(p.reshape(3, 2) + 1.0)", GP),
            C("lambda v, p: np.sum(sint.RegularGridInterpolator((GK, GK2), v)(p.reshape(3, 2) + 1.0) ** 2)", GV, GP),
            C("lambda v: sint.RegularGridInterpolator((GK[:3], GK2[:3], GK[:4]), v)(np.array([[0.3, 0.2, 0.5]]))",
              np.arange(36.0).reshape(3, 3, 4) ** 0.5),
            C("lambda p: sint.RegularGridInterpolator((GK, GK2), GV, bounds_error=False, fill_value=None)"
              "(p.reshape(3, 2) * 3.0 + 1.0)", GP),
            C("lambda p: sint.RegularGridInterpolator((GK, GK2), GV, bounds_error=False, fill_value=0.0)"
              "(p.reshape(3, 2) * 3.0)", GP),
            C("lambda a: sint.RegularGridInterpolator((GK, GK2), GV)((a[:3] + 1.0, a[3:] + 1.0))", GP),
            C("lambda p: sint.RegularGridInterpolator((GK,), np.sin(GK))(p[:, None] + 1.0)", GP)],
        _dierckx.evaluate_spline: [
            C("lambda y: sint.make_interp_spline(SITES, y, k=3)(PTS)", VALS),
            C("lambda x: sint.make_interp_spline(SITES, VALS, k=3)(x)", PTS),
            C("lambda y, x: sint.make_interp_spline(SITES, y, k=2)(x * 0.9, 1) * x", VALS, PTS),
            C("lambda y: sint.make_interp_spline(SITES, np.stack([y, y * y], 1), k=3)(PTS)", VALS),
            C("lambda x: sint.interp1d(SITES, VALS, kind='cubic')(x)", PTS),
            C("lambda y: np.sum(sint.interp1d(SITES, y, kind='quadratic')(PTS) ** 2)", VALS),
            C("lambda c: sint.BSpline(KNOTS3, c, 3)(PTS)", COEF),
            C("lambda c, x: sint.BSpline(KNOTS3, c, 3, extrapolate=True)(x * 1.2 - 0.1, 2)", COEF, PTS),
            C("lambda y: sint.make_interp_spline(SITES, y, k=3).derivative()(PTS)", VALS),
        ],
        _dierckx._coloc: [C("lambda y: sint.make_interp_spline(SITES, y)(PTS)", VALS),
                          C("lambda y: sint.make_interp_spline(SITES, y * y, k=5)(PTS[::2])", VALS)],
        _dierckx.evaluate_all_bspl: [
            C("lambda y: sint.make_interp_spline(SITES, y, k=3, bc_type='natural')(PTS)", VALS),
            C("lambda y: sint.make_interp_spline(SITES, y, k=3, bc_type='clamped')(PTS, 1)", VALS),
            C("lambda y: sint.make_interp_spline(SITES, y, k=3, bc_type=([(1, y[0])], [(2, 0.5)]))(PTS)", VALS)],
        so.root_scalar: [
            C("lambda a: so.root_scalar(lambda t: t * t - a - 1.0, bracket=(0.0, 3.0)).root", 0.7),
            C("lambda a: so.root_scalar(lambda t, c: np.cos(t) - c * t, args=(a,), bracket=[0.0, 2.0], "
              "method='brentq').root * a", 0.7),
            C("lambda a: so.root_scalar(lambda t: t ** 3 - a, x0=1.0, fprime=lambda t: 3 * t * t, "
              "method='newton').root", 2.0),
            C("lambda a: so.root_scalar(lambda t: np.exp(t) - a[0] * t - a[1], x0=0.0, x1=0.5).root ** 2",
              np.array([0.5, 2.0])),
            C("lambda a: so.root_scalar(lambda t: t * t - 2.0, bracket=(0.0, 3.0)).root * a", 0.7)],
        si.quad: [  # (infinite limits in reverse mode: mapped onto a finite interval)
            C("lambda a: si.quad(lambda t: np.exp(-(a + 1.0) * t * t), -np.inf, np.inf)[0]", 0.7),
            C("lambda a: si.quad(lambda t, c: np.exp(-c * t) * np.cos(t), 0.0, np.inf, args=(a,))[0]", 1.3),
            C("lambda a: si.quad(lambda t: np.exp(a * t) / (1.0 + t * t), -np.inf, a)[0]", 0.5),
            C("lambda a: si.quad(lambda t: np.exp(-a * t * t), -np.inf, np.inf)[0]", 0.1)],
        sl.lapack.dgbsv: [C("lambda ab, b: sl.lapack.dgbsv(1, 1, ab, b)[2]", AB, RHS),
                          C("lambda ab: sl.lapack.dgbsv(1, 1, ab, np.stack([RHS, RHS ** 2], 1))[2]", AB),
                          C("lambda b: sl.lapack.dgbsv(1, 1, AB, b)[2] * 2.0", RHS)],
    }


Q = Polynomial([0.5, 2.0])
C3 = np.array([0.5, -1.0, 2.0])
POLY_CASES = {
    (ABCPolyBase, "convert"): [C("lambda y: Polynomial.fit(np.linspace(0.0, 1.0, 8), y, 2).convert().coef",
                                 np.sin(np.linspace(0.0, 3.0, 8))),
                               C("lambda c: Polynomial(c, domain=[0, 2]).convert().coef", C3),
                               C("lambda c: Chebyshev(c).convert(kind=Polynomial).coef * c", C3),
                               C("lambda c: Legendre(c).convert(domain=[-2, 3], kind=Chebyshev).coef", C3)],
    ABCPolyBase.__call__: [C("lambda c: Polynomial(c)(Q).coef", C3),
                           C("lambda c, x: Polynomial(c, domain=[0, 2])(x)", C3, PTS),
                           C("lambda c, x: Chebyshev(c)(x[0]) * x[1]", C3, PTS),
                           C("lambda c: Legendre(c)(Chebyshev([0.1, 0.3, 0.2])).coef", C3)],
}


def breadth14_cases(entries):
    """The cases by catalog name (`entries`: catalog())."""
    names = {e.key: e.name for e in entries}
    out = {names[k]: v for k, v in POLY_CASES.items() if k in names}
    if sint is None:
        return out
    for k, v in {**_spline_cases(), **_design_cases()}.items():
        if k in names:
            out[names[k]] = v
    return out


SIG = np.sin(np.arange(10.0)) + 0.1 * np.arange(10.0)
_B, _A = (np.array([0.2, 0.3, 0.2]), np.array([1.0, -0.5, 0.2]))
_DESIGN_CASES = {  # (a filter designed from constants, applied to differentiated data)
    "bessel": "ss.lfilter(*ss.bessel(2, 0.3), x)", "butter": "ss.lfilter(*ss.butter(3, [0.2, 0.6], btype='band'), x)",
    "cheby1": "ss.lfilter(*ss.cheby1(2, 1.0, 0.3), x)", "cheby2": "ss.lfilter(*ss.cheby2(2, 20.0, 0.3), x)",
    "ellip": "ss.lfilter(*ss.ellip(2, 1.0, 20.0, 0.3), x)", "iirfilter": "ss.lfilter(*ss.iirfilter(2, 0.3, btype='low'), x)",
    "iirnotch": "ss.lfilter(*ss.iirnotch(0.3, 2.0), x)", "iirpeak": "ss.lfilter(*ss.iirpeak(0.3, 2.0), x)",
    "firwin": "np.convolve(x, ss.firwin(5, 0.4))", "firwin2": "np.convolve(x, ss.firwin2(5, [0, 0.5, 1], [1, 1, 0]))",
    "remez": "np.convolve(x, ss.remez(5, [0, 0.2, 0.3, 0.5], [1, 0]))",
    "sos2tf": "ss.lfilter(*ss.sos2tf(ss.butter(2, 0.3, output='sos')), x)",
    "sos2zpk": "_sos_zpk_filter(x)",
    "tf2sos": "ss.sosfilt(ss.tf2sos(_B, _A), x)", "tf2zpk": "ss.sosfilt(ss.zpk2sos(*ss.tf2zpk(_B, _A)), x)",
    "zpk2sos": "ss.sosfilt(ss.zpk2sos(*ss.butter(2, 0.3, output='zpk')), x * x)",
    "zpk2tf": "_zpk_filter(x)",
}


def _zpk_filter(x):
    z, p, k = ss.cheby1(2, 1.0, 0.3, output="zpk")  # (unpacked by name: `zpk2tf(*zpk)` is refused in reverse mode)
    b, a = ss.zpk2tf(z, p, k)
    return ss.lfilter(b, a, x)


def _sos_zpk_filter(x):
    z, p, k = ss.sos2zpk(ss.butter(2, 0.3, output="sos"))
    return ss.lfilter(*ss.zpk2tf(z, p, k), x * x)


def _design_cases():
    return {getattr(ss, n): [C(f"lambda x: {src}", SIG)] for n, src in _DESIGN_CASES.items()}


def breadth14_zero_cases(entries):
    names = {e.key: e.name for e in entries}
    if sint is None:
        return {}
    zero = {
        _dierckx.find_interval: Case("lambda y: sint.make_interp_spline(SITES, y, bc_type='natural')(PTS)", VALS),
        sl.lapack.get_lapack_funcs: Case("lambda y: sl.lapack.get_lapack_funcs(('gbsv',), (y,))[0](0, 0, "
                                         "y[None, :3] + 2.0, y[:3])[2]", VALS),
        sl.blas.get_blas_funcs: Case("lambda y: y * len(sl.blas.get_blas_funcs(('dot', 'axpy'), (y,)))", VALS),
    }
    return {names[k]: v for k, v in zero.items() if k in names}
