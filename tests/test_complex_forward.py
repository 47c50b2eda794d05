"""Every forward rule again, its float inputs made complex: the tangent agrees with finite differences,
or the rule refuses complex input with an error.  Never a silently real (or silently complex) tangent.

A rule that casts to float, takes a transpose where it needs the conjugate transpose, or hands back a
complex tangent for a real result (abs, norms, variances) is caught here; the rule cases themselves
(tests/test_rules.py) are mostly real.
"""
import copy
import warnings

import numpy as np

import mooncake_ast as mc
import pytest

from mooncake_ast.testing import check_derivatives
from tests.test_rules import CASES, _is_complex, _modes

# Formulas written for real matrices only (they refuse complex input, by name); psi's derivative,
# polygamma, is real-only in SciPy and says so.
REFUSES_COMPLEX = {
    "psi",
    "scipy.linalg._decomp_cholesky.cholesky", "scipy.linalg._decomp_cholesky.cho_factor",
    "scipy.linalg._decomp_cholesky.cho_solve", "scipy.linalg._basic.solve_triangular", "scipy.linalg._decomp_lu.lu_factor",
    "scipy.linalg._decomp_lu.lu_solve", "scipy.spatial.distance.squareform", "exp1", "scipy.optimize._zeros_py.newton",
    "scipy.integrate._quadrature.cumulative_trapezoid",
    "loggamma", "eval_legendre", "eval_hermite", "numpy.ufunc.reduceat", "scipy.signal._signaltools.lfilter",
    # (issue 12, second pass: real formulas, refusing complex input by name)
    "airy", "airye", "fresnel", "sici", "shichi", "erfi", "jve", "yve", "hyp0f1", "eval_laguerre", "eval_chebyu",
    "scipy.special._lambertw.lambertw", "scipy.special._spherical_bessel.spherical_jn",
    "scipy.special._spherical_bessel.spherical_yn", "scipy.special._spherical_bessel.spherical_in",
    "scipy.special._spherical_bessel.spherical_kn", "scipy.linalg._decomp_schur.schur", "scipy.linalg._decomp_qr.rq",
    "scipy.linalg._decomp_lu.lu", "scipy.linalg._decomp_polar.polar",
    "scipy.signal._signaltools.sosfilt", "scipy.signal._spectral_py.welch", "scipy.signal._spectral_py.periodogram",
    "sph_harm_y",  # (issue 12, fourth pass: real angles only)
}
# B-splines of complex data: SciPy solves with LAPACK zgbsv (no rule) or views the complex coefficients as floats;
# both refused by name (a missing rule, a view with another dtype), never a number.
SPLINE_REFUSES_COMPLEX = {"scipy.interpolate._dierckx._coloc", "scipy.interpolate._dierckx.evaluate_all_bspl",
                          "scipy.interpolate._dierckx.evaluate_spline"}
# SciPy's linalg through NumPy models (rules/scipy_linalg_models.py): right for complex input, or refused where
# the model's result differs from SciPy's (eigenvectors of complex matrices are defined up to a phase).
MAY_REFUSE_COMPLEX = {"scipy.linalg._basic.solve", "scipy.linalg._decomp.eigh",
                      # (issue 12, third pass: real formulas, refusing complex matrices by name)
                      "scipy.linalg._matfuncs.fractional_matrix_power", "scipy.linalg._solvers.solve_continuous_lyapunov",
                      "numpy.linalg.pinv",  # (hermitian=True: real symmetric matrices; the general pinv takes complex ones)
                      "mooncake_ast.api.vjp",  # (forward over mc.vjp of complex values: its pullback is a gradient, refused)
                      "numpy.pad",  # (its order-statistic modes refuse complex values)
                      "scipy._lib.array_api_compat.numpy.linalg.solve",  # (reached through filtfilt: lfilter refuses)
                      "scipy.integrate._ivp.ivp.solve_ivp",
                      # (issue 12, fourth pass: return_sign=True refuses complex values, the sign being a moving phase)
                      "scipy.special._logsumexp.logsumexp",
                      # (breadth14: splines, root_scalar, RegularGridInterpolator, polynomial convert and the filter
                      # designs (their lfilter) refuse complex values by name)
                      "numpy.ABCPolyBase.convert", "numpy.polynomial._polybase.ABCPolyBase.__call__",
                      "scipy.interpolate._rgi.RegularGridInterpolator.__call__", "scipy.optimize._root_scalar.root_scalar",
                      *(f"scipy.signal._filter_design.{n}" for n in (
                          "bessel", "butter", "cheby1", "cheby2", "ellip", "iirfilter", "iirnotch", "iirpeak", "sos2tf",
                          "sos2zpk", "tf2sos", "tf2zpk", "zpk2sos", "zpk2tf"))}  # (complex y0 refused; a constant call is data)  # (eigh, eigvalsh, svd, svdvals: complex forward rules in rules/numpy_linalg_complex.py)


def _complexified(a):
    """a with every float made complex (an imaginary part that is not a multiple of the real one)."""
    if isinstance(a, float):
        return complex(a, 0.3 * a + 0.1)
    if isinstance(a, np.ndarray) and a.dtype.kind == "f":
        return a + 1j * (0.3 * a + 0.1)
    if isinstance(a, (list, tuple)):
        return type(a)(_complexified(v) for v in a)
    return a


def _has_complex(args):
    return any(_is_complex(a) or (isinstance(a, (list, tuple)) and _has_complex(a)) for a in args)


def _complex_cases():
    for name, cases in CASES.items():
        for i, case in enumerate(cases):
            if case.xfail or "forward" not in _modes(name, case):
                continue
            args = [_complexified(a) for a in case.args]
            if not _has_complex(args) or all(_is_complex(a) for a in case.args):
                continue
            try:  # only functions whose primal takes complex input quietly
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    case.fn(*copy.deepcopy(args))
            except Exception:
                continue
            yield pytest.param(name, case, args, id=f"{name}[{i}]")


@pytest.mark.parametrize("name, case, args", list(_complex_cases()))
def test_forward_rule_with_complex_inputs(name, case, args):
    with warnings.catch_warnings():
        warnings.simplefilter("error", getattr(np, "exceptions", np).ComplexWarning)  # a cast that drops imaginary parts
        if name in REFUSES_COMPLEX or name.startswith("scipy.stats."):  # distributions of real numbers
            with pytest.raises((NotImplementedError, TypeError), match="complex|not supported"):
                check_derivatives(case.fn, *copy.deepcopy(args), modes=("forward",), **case.check)
        elif name in SPLINE_REFUSES_COMPLEX:
            try:
                check_derivatives(case.fn, *copy.deepcopy(args), modes=("forward",), **case.check)
            except (NotImplementedError, mc.MooncakeError) as e:
                assert "zgbsv" in str(e) or "view" in str(e) or "complex" in str(e), e
        elif name in MAY_REFUSE_COMPLEX:
            try:
                check_derivatives(case.fn, *copy.deepcopy(args), modes=("forward",), **case.check)
            except (NotImplementedError, mc.MooncakeError) as e:
                assert "complex" in str(e), e
        else:
            check_derivatives(case.fn, *copy.deepcopy(args), modes=("forward",), **case.check)
