"""Fourth batch of everyday functions (issue 12's audit, helper breadth14, 2026-11-28): what a scientist writes with
scipy.signal, scipy.optimize helpers, scipy.spatial.distance, np.polynomial, np.linalg.lstsq and matrix functions,
scipy.ndimage filters, histogram-based code, and the spline interpolators of scipy.interpolate -- each a small
function of a few lines, as in a notebook, checked in both modes by mooncake_ast.testing.check_derivatives and
printed as in scripts/audit_issue12.py (ok / missing / refused / wrong / error), with a summary.

    PYTHONPATH=. python scripts/audit_breadth14.py [-v] [substring ...]

Not a test: a map of what is left.  (UnivariateSpline is left out: its plain constructor, FITPACK's fpcurf0, did not
return inside check_derivatives in this script's process, on the trunk as well; plainly it returns at once.)
"""
import collections
import itertools
import linecache
import sys

import numpy as np
import numpy.polynomial.chebyshev as Ch  # noqa: F401  (used by the cases' source)
import numpy.polynomial.legendre as Le  # noqa: F401
import numpy.polynomial.polynomial as P  # noqa: F401
import scipy.integrate as si  # noqa: F401
import scipy.interpolate as sint  # noqa: F401
import scipy.linalg as sl  # noqa: F401
import scipy.ndimage as ndi  # noqa: F401
import scipy.optimize as so  # noqa: F401
import scipy.signal as ss  # noqa: F401
import scipy.spatial.distance as ssd  # noqa: F401
import scipy.special as sp  # noqa: F401
import scipy.stats as st  # noqa: F401

from audit_issue12 import check_both  # (this script's folder is on sys.path)

RNG = np.random.default_rng(14)
_COUNTER = itertools.count()


def U(*shape, lo=-0.9, hi=0.9):
    return RNG.uniform(lo, hi, size=shape) if shape else float(RNG.uniform(lo, hi))


x8, p8, x45, x63 = U(8), U(8, lo=0.1, hi=0.9), U(4, 5), U(6, 3)
pts = U(5, 2)
img = U(6, 7)
A3 = RNG.normal(size=(3, 3)) + 3.0 * np.eye(3)
S3 = A3 @ A3.T
SITES = np.linspace(0.0, 2.0, 7)
GRID = np.linspace(0.0, 1.0, 8)


def _peak_width(x):
    """A Gaussian peak's height and centre fitted by three-point parabola around the maximum."""
    y = np.exp(-((GRID - 0.4 - 0.1 * x[0]) ** 2) / 0.05) * (1.0 + x[1])
    i = int(np.argmax(y))
    a, b, c = y[i - 1], y[i], y[i + 1]
    return b - 0.25 * (a - c) ** 2 / (a - 2 * b + c)


def _newton_sqrt(a):
    r = so.newton(lambda t: t * t - a, 1.0)
    return r * r + r


def _kalman(x):
    """A scalar Kalman filter over noisy samples."""
    m, P_ = 0.0, 1.0
    out = []
    for z in x:
        P_ = P_ + 0.1
        k = P_ / (P_ + 0.5)
        m = m + k * (z - m)
        P_ = (1.0 - k) * P_
        out.append(m)
    return np.array(out)


def _gram_schmidt(a):
    q = []
    for v in a.T:
        w = v - sum(np.dot(v, u) * u for u in q)
        q.append(w / np.linalg.norm(w))
    return np.stack(q, 1)


CASES = [
    # ---------------------------------------------------------------- scipy.signal
    ("ss.convolve same", "lambda x: ss.convolve(x, np.array([0.25, 0.5, 0.25]), mode='same')", (x8,)),
    ("ss.fftconvolve", "lambda x, k: ss.fftconvolve(x, k[:3], mode='full')", (x8, p8)),
    ("ss.correlate valid", "lambda x: ss.correlate(x, x[:3], mode='valid')", (x8,)),
    ("ss.lfilter butter", "lambda x: ss.lfilter(*ss.butter(2, 0.3), x)", (x8,)),
    ("ss.filtfilt", "lambda x: ss.filtfilt(*ss.butter(2, 0.3), np.concatenate([x, x]))", (x8,)),
    ("ss.sosfilt", "lambda x: ss.sosfilt(ss.butter(2, 0.3, output='sos'), x)", (x8,)),
    ("ss.savgol_filter", "lambda x: ss.savgol_filter(x, 5, 2)", (x8,)),
    ("ss.detrend", "lambda x: ss.detrend(x)", (x8,)),
    ("ss.windows.hann taper", "lambda x: np.sum((x * ss.windows.hann(8)) ** 2)", (x8,)),
    ("ss.welch", "lambda x: ss.welch(np.concatenate([x, x[::-1]]), nperseg=8)[1]", (x8,)),
    ("ss.medfilt", "lambda x: ss.medfilt(x, 3)", (x8,)),
    # ---------------------------------------------------------------- scipy.optimize helpers
    ("so.newton root", "_newton_sqrt", (2.0,)),
    ("so.brentq args", "lambda a: so.brentq(lambda t, c: t ** 3 - c, 0.0, 3.0, args=(a,))", (2.0,)),
    ("so.root_scalar secant", "lambda a: so.root_scalar(lambda t: np.tanh(t) - a, x0=0.0, x1=0.3).root", (0.4,)),
    ("so.rosen", "lambda x: so.rosen(x)", (x8,)),
    ("so.rosen_der", "lambda x: np.sum(so.rosen_der(x) ** 2)", (x8,)),
    ("so.approx_fprime const f", "lambda x: np.sum(x * so.approx_fprime(np.ones(2), lambda z: np.sum(z ** 2)))", (x8[:2],)),
    # ---------------------------------------------------------------- scipy.spatial.distance
    ("ssd.cdist euclidean", "lambda a: ssd.cdist(a, np.eye(2)).sum()", (pts,)),
    ("ssd.cdist sqeuclidean", "lambda a: ssd.cdist(a, a[::-1] + 2.0, 'sqeuclidean')", (pts,)),
    ("ssd.pdist", "lambda a: ssd.pdist(a)", (pts,)),
    ("ssd.squareform pdist", "lambda a: ssd.squareform(ssd.pdist(a, 'cityblock'))", (pts,)),
    ("ssd.euclidean cosine", "lambda u, v: ssd.euclidean(u, v) + ssd.cosine(u, v)", (x8, p8)),
    ("rbf kernel by cdist", "lambda a: np.exp(-ssd.cdist(a, a, 'sqeuclidean') / 0.5) @ np.ones(5)", (pts,)),
    # ---------------------------------------------------------------- np.polynomial
    ("Ch.chebval", "lambda c, x: Ch.chebval(x, c)", (x8[:4], p8)),
    ("Le.legval", "lambda c, x: Le.legval(x, c)", (x8[:4], p8)),
    ("Ch.chebfit", "lambda y: Ch.chebfit(GRID, y, 3)", (x8,)),
    ("P.polyroots real", "lambda c: np.sort(P.polyroots(np.array([-6.0, 11.0, -6.0, 1.0]) + c * np.array([1, 0, 0, 0])).real)", (0.1,)),
    ("Polynomial.fit", "lambda y: np.polynomial.Polynomial.fit(GRID, y, 2).convert().coef", (x8,)),
    ("np.polyval polyder", "lambda c, x: np.polyval(np.polyder(c), x)", (x8[:4], p8)),
    # ---------------------------------------------------------------- np.linalg
    ("lstsq rcond None", "lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0]", (x63, x8[:6])),
    ("lstsq residuals", "lambda a, b: np.linalg.lstsq(a, b, rcond=None)[1]", (x63, x8[:6])),
    ("sl.expm", "lambda a: sl.expm(0.3 * a)", (A3,)),
    ("sl.logm spd", "lambda a: sl.logm(a @ a.T + np.eye(3)).real", (A3,)),
    ("sl.sqrtm spd", "lambda a: sl.sqrtm(a @ a.T + np.eye(3)).real", (A3,)),
    ("slogdet", "lambda a: np.linalg.slogdet(a)[1]", (A3,)),
    ("gram-schmidt", "_gram_schmidt", (x63[:3],)),
    ("cho_solve", "lambda a, b: sl.cho_solve(sl.cho_factor(a @ a.T + np.eye(3)), b)", (A3, x8[:3])),
    ("lu_solve", "lambda a, b: sl.lu_solve(sl.lu_factor(a), b)", (A3, x8[:3])),
    ("matrix_norm nuc", "lambda a: np.linalg.norm(a, 'nuc') + np.linalg.norm(a, 2)", (x45,)),
    # ---------------------------------------------------------------- scipy.ndimage
    ("ndi.gaussian_filter", "lambda a: ndi.gaussian_filter(a, 1.0)", (img,)),
    ("ndi.uniform_filter", "lambda a: ndi.uniform_filter(a, 3)", (img,)),
    ("ndi.convolve", "lambda a: ndi.convolve(a, np.array([[0, 1, 0], [1, -4, 1], [0, 1, 0]], float))", (img,)),
    ("ndi.gaussian_filter1d", "lambda x: ndi.gaussian_filter1d(x, 1.5)", (x8,)),
    ("ndi.sobel", "lambda a: ndi.sobel(a, axis=0)", (img,)),
    ("ndi.map_coordinates", "lambda a: ndi.map_coordinates(a, [[1.2, 2.5], [3.1, 0.4]], order=1)", (img,)),
    ("ndi.zoom", "lambda a: ndi.zoom(a, 2, order=1)", (img[:3, :3],)),
    ("ndi.shift", "lambda a: ndi.shift(a, (0.5, -0.3), order=1)", (img,)),
    # ---------------------------------------------------------------- histograms (differentiable in the weights)
    ("histogram weights", "lambda w: np.histogram(GRID, bins=4, weights=w)[0]", (p8,)),
    ("histogram density w", "lambda w: np.histogram(GRID, bins=3, weights=w, density=True)[0]", (p8,)),
    ("histogram2d weights", "lambda w: np.histogram2d(GRID, GRID[::-1], bins=2, weights=w)[0]", (p8,)),
    ("digitize then bincount", "lambda w: np.bincount(np.digitize(GRID, [0.3, 0.6]), weights=w)", (p8,)),
    # ---------------------------------------------------------------- splines and interpolation
    ("make_interp_spline y", "lambda y: sint.make_interp_spline(SITES, y)(GRID * 2.0)", (x8[:7],)),
    ("interp1d cubic at x", "lambda x: sint.interp1d(SITES, np.sin(SITES), kind='cubic')(x * 0.5 + 1.0)", (x8,)),
    ("PchipInterpolator y", "lambda y: sint.PchipInterpolator(SITES, y)(GRID)", (x8[:7] + np.arange(7.0),)),
    ("RegularGridInterpolator", "lambda p: sint.RegularGridInterpolator((SITES, SITES), np.outer(np.sin(SITES), np.cos(SITES)))(p.reshape(3, 2) + 1.0)", (x8[:6],)),
    ("griddata linear", "lambda v: sint.griddata(np.array([[0, 0], [1, 0], [0, 1], [1, 1.0]]), v[:4], np.array([[0.3, 0.4]]))", (x8,)),
    # ---------------------------------------------------------------- realistic helpers
    ("peak interpolation", "_peak_width", (x8[:2],)),
    ("kalman filter", "_kalman", (x8,)),
    ("st.linregress slope", "lambda y: st.linregress(GRID, y).slope", (x8,)),
    ("st.pearsonr stat", "lambda y: st.pearsonr(GRID, y)[0]", (x8,)),
    ("st.zscore", "lambda x: st.zscore(x)", (x8,)),
    ("si.trapezoid 2d", "lambda a: si.trapezoid(si.trapezoid(a, axis=1), axis=0)", (img,)),
]


def compile_case(src):
    if src.isidentifier():
        return globals()[src]
    fname = f"<breadth14 {next(_COUNTER)}>"
    linecache.cache[fname] = (len(src) + 1, None, [src + "\n"], fname)
    return eval(compile(src + "\n", fname, "eval"), globals())


def main(argv):
    import warnings

    warnings.simplefilter("ignore")
    verbose = "-v" in argv
    wanted = [a for a in argv if a != "-v"]
    counts = collections.Counter()
    bad = []
    for name, src, args in CASES:
        if wanted and not any(w in name for w in wanted):
            continue
        (fs, fm), (rs, rm) = check_both(compile_case(src), args, verbose)
        counts["forward", fs] += 1
        counts["reverse", rs] += 1
        line = f"{name:36s} fwd={fs:8s} rev={rs:8s}"
        if fm or rm:
            line += "  " + (fm or rm).splitlines()[0][:160]
            bad.append(name)
        print(line, flush=True)
    for mode in ("forward", "reverse"):
        print(mode, {k[1]: v for k, v in counts.items() if k[0] == mode})
    total = sum(1 for n, _, _ in CASES if not wanted or any(w in n for w in wanted))
    print(f"{len(bad)} of {total} not ok:", bad)


if __name__ == "__main__":
    main(sys.argv[1:])
