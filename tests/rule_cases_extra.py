"""Test inputs of the rules in mooncake_ast/rules/numpy_extra.py (issue 12), merged into CASES of
tests/test_rules.py, which checks each in both modes (forward against finite differences, reverse
against forward).  The format is test_rules.py's: a lambda (as a string, compiled into a one-line
pseudo-file so its source is found quickly) or a def, its arguments, and options."""

import numpy as np

from rule_case_kit import kit

RNG = np.random.default_rng(20261123)
FWD, REV, BOTH = ("forward",), ("reverse",), ("forward", "reverse")


def U(*shape, lo=-0.9, hi=0.9):
    if not shape:
        return float(RNG.uniform(lo, hi))
    return RNG.uniform(lo, hi, size=shape)






F, Case = kit("extra rule case", globals())
C = Case

# ---------------------------------------------------------------- defs (statements, or several results)
def meshgrid_xy(x, y):
    X, Y = np.meshgrid(x, y)
    return X * Y + X


def meshgrid_ij_sparse(x, y):
    X, Y = np.meshgrid(x, y, indexing="ij", sparse=True)
    return np.sin(X) * Y


def gradient_2d(f):
    gx, gy = np.gradient(f, 0.5)
    return gx * gy + gx


def hsplit_parts(x):
    a, b = np.hsplit(x, 2)
    return a * 2.0 + b * b


x3, x4, x5, x6 = U(3), U(4), U(5), U(6)
x23, x34, x24, x234 = U(2, 3), U(3, 4), U(2, 4), U(2, 3, 4)
w3 = U(3, lo=0.5, hi=2.0)
w4 = U(4, lo=0.5, hi=2.0)
# NaNs are made inside the functions (check_derivatives compares arguments too, and NaN != NaN)
H4 = np.array([False, True, False, False])
H23 = np.array([[False, True, False], [False, False, True]])
H24 = np.array([[False, True, False, False], [False, False, True, False]])
H33 = np.array([[False, True, False], [False, False, False], [False, False, False]])
H3 = np.array([False, True, False])
xp5 = np.array([-1.0, -0.3, 0.2, 0.6, 1.4])
xq = np.array([-1.5, -0.7, 0.1, 0.35, 0.9, 1.8])  # outside, inside, and beyond the samples
A3 = RNG.normal(size=(3, 3)) + 4.0 * np.eye(3)
A32 = RNG.normal(size=(3, 2))

EXTRA_CASES = {
    "numpy.append": [C("lambda a, b: np.append(a, b)", x23, x3),
                     C("lambda a, b: np.append(a, b, axis=0)", x23, U(1, 3)),
                     C("lambda a, b: np.append(a, b, axis=-1)", x23, U(2, 2)),
                     C("lambda a, s: np.append(a, s) * 2.0", x3, 0.4)],
    "numpy.column_stack": [C("lambda a, b: np.column_stack((a, b))", x3, U(3, 2)),
                           C("lambda a, b: np.column_stack([a, b]) ** 2", x4, x4)],
    "numpy.dstack": [C("lambda a, b: np.dstack((a, b))", x23, x23),
                     C("lambda a, b: np.dstack([a, b]) * 3.0", x3, x3)],
    "numpy.meshgrid": [C(meshgrid_xy, x3, x4),
                       C(meshgrid_ij_sparse, x3, x4),
                       C("lambda x: np.meshgrid(x)[0]", x3)],
    "numpy.hsplit": [C(hsplit_parts, x24),
                     C("lambda x: np.hsplit(x, [1, 2])[1] * 2.0", x4)],
    "numpy.vsplit": [C("lambda x: np.vsplit(x, 2)[1] * 2.0", U(4, 3)),
                     C("lambda x: np.vsplit(x, [1])[0] + np.vsplit(x, [1])[1][0]", x23)],
    "numpy.dsplit": [C("lambda x: np.dsplit(x, 2)[0] * np.dsplit(x, 2)[1]", x234)],
    "numpy.partition": [C("lambda x: np.partition(x, 2)", x6),
                        C("lambda x: np.partition(x, (0, 3), axis=0)", U(5, 2)),
                        C("lambda x: np.partition(x, 1, axis=None) * 2.0", x23)],
    "numpy.select": [C("lambda a, b: np.select([a > 0.0, b > 0.2], [a * b, b])", x23, U(2, 3)),
                     C("lambda a, b, d: np.select([a > 0.0], [a], d)", x3, x3, 0.5),
                     C("lambda a, d: np.select([a < 0.0, a > 0.5], [a, 2.0 * a], default=d)", x4, x4, modes=FWD)],
    "numpy.nan_to_num": [C("lambda x: np.nan_to_num(np.where(H4, np.nan, x))", x4),
                         C("lambda x: np.nan_to_num(np.where(H3, -np.inf, x), neginf=-5.0)", x3),
                         C("lambda x: np.nan_to_num(x)", x3)],
    "numpy.average": [C("lambda a: np.average(a)", x23),
                      C("lambda a, w: np.average(a, weights=w)", x3, w3, modes=FWD),
                      C("lambda a, w: np.average(a, 1, w)", x23, w3),
                      C("lambda a, w: np.average(a, 0, w, keepdims=True)", x23, U(2, 3, lo=0.5, hi=2.0)),
                      C("lambda a, w: np.average(a, None, w)", x23, U(2, 3, lo=0.5, hi=2.0))],
    "numpy.ptp": [C("lambda a: np.ptp(a)", x23),
                  C("lambda a: np.ptp(a, axis=1)", x34),
                  C("lambda a: np.ptp(a, axis=0, keepdims=True)", x34)],
    "numpy.median": [C("lambda a: np.median(a)", x5),
                     C("lambda a: np.median(a)", x6),
                     C("lambda a: np.median(a, axis=0)", x34),
                     C("lambda a: np.median(a, axis=(0, 2), keepdims=True)", x234)],
    "numpy.quantile": [C("lambda a: np.quantile(a, 0.3)", x6),
                       C("lambda a: np.quantile(a, [0.1, 0.5, 0.95], axis=-1)", x34),
                       C("lambda a: np.quantile(a, 0.4, method='lower')", x6),
                       C("lambda a: np.quantile(a, 0.4, axis=1, method='midpoint')", x34)],
    "numpy.percentile": [C("lambda a: np.percentile(a, 75.0)", x6),
                         C("lambda a: np.percentile(a, [20.0, 60.0], axis=0, method='higher')", x34)],
    "numpy.nansum": [C("lambda a: np.nansum(np.where(H4, np.nan, a) * 2.0)", x4),
                     C("lambda a: np.nansum(np.where(H23, np.nan, a), axis=1)", x23),
                     C("lambda a: np.nansum(np.where(H23, np.nan, a), axis=0, keepdims=True)", x23)],
    "numpy.nanmean": [C("lambda a: np.nanmean(np.where(H4, np.nan, a))", x4),
                      C("lambda a: np.nanmean(np.where(H23, np.nan, a), axis=-1)", x23)],
    "numpy.nanmax": [C("lambda a: np.nanmax(np.where(H4, np.nan, a))", x4),
                     C("lambda a: np.nanmax(np.where(H23, np.nan, a), axis=1, keepdims=True)", x23)],
    "numpy.nanmin": [C("lambda a: np.nanmin(np.where(H4, np.nan, a))", x4),
                     C("lambda a: np.nanmin(np.where(H23, np.nan, a), axis=0)", x23)],
    "numpy.nanvar": [C("lambda a: np.nanvar(np.where(H4, np.nan, a))", x4),
                     C("lambda a: np.nanvar(np.where(H24, np.nan, a), axis=1, ddof=1)", x24)],
    "numpy.nanstd": [C("lambda a: np.nanstd(np.where(H4, np.nan, a))", x4),
                     C("lambda a: np.nanstd(np.where(H33, np.nan, a), axis=0)", U(3, 3))],
    "numpy.cov": [C("lambda m: np.cov(m)", x34),
                  C("lambda m: np.cov(m, rowvar=False)", U(5, 2)),
                  C("lambda m, y: np.cov(m, y)", x5, x5),
                  C("lambda m: np.cov(m, bias=True)", x5),
                  C("lambda m: np.cov(m, ddof=0)", x24)],
    "numpy.corrcoef": [C("lambda m: np.corrcoef(m)", x34),
                       C("lambda m, y: np.corrcoef(m, y)", x5, x5),
                       C("lambda m: np.corrcoef(m, rowvar=False)", U(5, 3))],
    "numpy.gradient": [C("lambda f: np.gradient(f)", x6),
                       C("lambda f: np.gradient(f, 0.3, edge_order=2)", x6),
                       C(gradient_2d, x34),
                       C("lambda f: np.gradient(f, axis=-1)", x34),
                       C("lambda f: np.gradient(f, np.array([0.0, 0.5, 0.7, 1.5, 2.0]))", x5)],
    "numpy.trapezoid": [C("lambda y: np.trapezoid(y)", x5),
                        C("lambda y, x: np.trapezoid(y, x)", x5, np.sort(U(5)) + np.arange(5.0)),
                        C("lambda y, x: np.trapezoid(y, x, axis=0)", x34, np.arange(3.0) + U(3) * 0.3),
                        C("lambda y, d: np.trapezoid(y, None, d, 1)", x34, 0.7),
                        C("lambda y, x: np.trapezoid(y, x)", x34, np.arange(12.0).reshape(3, 4) + U(3, 4) * 0.3)],
    "numpy.interp": [C("lambda x, fp: np.interp(x, np.array([-1.0, -0.3, 0.2, 0.6, 1.4]), fp)", xq, x5),
                     C("lambda x, fp, l, r: np.interp(x, np.array([-1.0, -0.3, 0.2, 0.6, 1.4]), fp, l, r)", xq, x5, 0.3, -0.2),
                     C("lambda x, fp: np.interp(x, np.array([-1.0, -0.3, 0.2, 0.6, 1.4]), fp) * 2.0", 0.45, x5)],
    "numpy.convolve": [C("lambda a, v: np.convolve(a, v)", x5, x3),
                       C("lambda a, v: np.convolve(a, v, 'same')", x3, x5),
                       C("lambda a, v: np.convolve(a, v, mode='valid')", x6, x4),
                       C("lambda a, v: np.convolve(a, v, 'same')", x6, x4)],
    "numpy.correlate": [C("lambda a, v: np.correlate(a, v)", x5, x3),
                        C("lambda a, v: np.correlate(a, v, 'full')", x3, x5),
                        C("lambda a, v: np.correlate(a, v, 'same')", x4, x6),
                        C("lambda a, v: np.correlate(a, v, 'same')", x5, x4)],
    "numpy.linalg.pinv": [C("lambda a: np.linalg.pinv(a)", A32),
                          C("lambda a: np.linalg.pinv(a)", A32.T.copy()),
                          C("lambda a: np.linalg.pinv(a)", A3)],
    "numpy.linalg.matrix_power": [C("lambda a: np.linalg.matrix_power(a, 3)", A3),
                                  C("lambda a: np.linalg.matrix_power(a, 1)", A3),
                                  C("lambda a: np.linalg.matrix_power(a, 0) + a", A3),
                                  C("lambda a: np.linalg.matrix_power(a, -2)", A3)],
}
if hasattr(np, "row_stack"):
    EXTRA_CASES["numpy.row_stack"] = [C("lambda a, b: np.row_stack((a, b))", x3, U(2, 3))]
if hasattr(np, "trapz"):
    EXTRA_CASES["numpy.trapz"] = [C("lambda y, x: np.trapz(y, x)", x5, np.arange(5.0) + U(5) * 0.3)]
