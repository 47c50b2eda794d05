"""Third batch of everyday functions (issue 12's audit, helper breadth11, 2026-11-28): what a new user reaches
for that scripts/audit_everyday.py, audit_everyday2.py and audit_issue12.py do not try -- np.polynomial, np.linalg
variants, einsum paths, sliding windows, weighted histograms; scipy.special, scipy.stats distributions with array
parameters, scipy.optimize.minimize in a non-differentiated role, scipy.integrate.quad of a differentiated
integrand, CubicSpline of constant knots at differentiated points, scipy.linalg solvers; math, statistics,
functools, operator, collections, heapq, bisect, dataclasses.replace, enum keys; scipy.sparse.  Each is a small
function checked in both modes by mooncake_ast.testing.check_derivatives and printed as in
scripts/audit_issue12.py (ok / missing / refused / wrong / error), with a summary.

    PYTHONPATH=. python scripts/audit_issue12b.py [-v] [substring ...]

Not a test: a map of what is left.  First run (2026-11-28): 70 of 73 ok in the first batch (einsum with a path
from np.einsum_path and a `%`-formatted report crashed, an Enum key handed to a function was refused), 38 of 46 in
the second (scipy.integrate.simpson crashed on np.float64(array), bisect.insort had no rule); those fixed, what is
left: scipy.optimize.root_scalar / minimize_scalar with a differentiated function (refused by name), quad over an
infinite interval in reverse mode (refused), make_interp_spline and interp1d(kind='cubic') (LAPACK gbsv has no
rule), RegularGridInterpolator at differentiated points (no rule).
"""
import bisect  # noqa: F401  (used by the cases' source)
import collections
import dataclasses
import enum
import functools  # noqa: F401
import heapq  # noqa: F401
import itertools
import linecache
import math  # noqa: F401
import operator  # noqa: F401
import statistics  # noqa: F401
import sys

import numpy as np
import numpy.polynomial.polynomial as P  # noqa: F401
import scipy.integrate as si  # noqa: F401
import scipy.interpolate as sint  # noqa: F401
import scipy.linalg as sl  # noqa: F401
import scipy.optimize as so  # noqa: F401
import scipy.sparse as sps  # noqa: F401
import scipy.sparse.linalg as spla  # noqa: F401
import scipy.special as sp  # noqa: F401
import scipy.stats as st  # noqa: F401
from numpy.lib.stride_tricks import sliding_window_view  # noqa: F401

from audit_issue12 import check_both  # (this script's folder is on sys.path)

RNG = np.random.default_rng(12)
_COUNTER = itertools.count()


def U(*shape, lo=-0.9, hi=0.9):
    return RNG.uniform(lo, hi, size=shape) if shape else float(RNG.uniform(lo, hi))


x6, p6, x45 = U(6), U(6, lo=0.1, hi=0.9), U(4, 5)
A3 = RNG.normal(size=(3, 3)) + 3.0 * np.eye(3)
S3 = A3 @ A3.T
L3 = np.tril(A3)
KNOTS = np.linspace(0.0, 2.0, 6)
VALS = np.sin(KNOTS)
HALF = np.array([0.3, 1.1, 1.7])


class Color(enum.Enum):
    RED = 1
    BLUE = 2


@dataclasses.dataclass
class Params:
    a: float
    b: float


def _min_then_use(x):
    best = so.minimize(lambda t: (t[0] - 1.0) ** 2 + 0.5, np.zeros(1)).x[0]  # (a constant: no derivative)
    return np.sum(x * best)


def _lru_square(v, cache=functools.lru_cache(maxsize=None)(lambda k: k * k)):
    return v * cache(3)


CASES = [
    # ---------------------------------------------------------------- NumPy
    ("P.polyval", "lambda c, x: P.polyval(x, c)", (x6[:3], p6)),
    ("P.polyder polyint", "lambda c: P.polyder(c, 2) + P.polyint(c)[:4]", (x6,)),
    ("P.polymul polyadd", "lambda a, b: P.polymul(a, b)[:3] + P.polyadd(a, b)[:3]", (x6[:3], p6[:4])),
    ("P.polyfit", "lambda y: P.polyfit(np.linspace(0, 1, 6), y, 2)", (x6,)),
    ("P.Polynomial call", "lambda c, x: np.polynomial.Polynomial(c)(x)", (x6[:3], p6)),
    ("P.polyvander", "lambda x: P.polyvander(x, 3) @ np.arange(4.0)", (x6,)),
    ("linalg.eigvals real", "lambda a: np.sort(np.linalg.eigvals(a @ a.T).real)", (A3,)),
    ("linalg.solve 1-D", "lambda a, b: np.linalg.solve(a, b)", (A3, x6[:3])),
    ("linalg.inv @", "lambda a: np.sum(np.linalg.inv(a) @ a.T)", (A3,)),
    ("einsum path greedy", "lambda a, b: np.einsum('ij,jk,kl->il', a, b, a, optimize='greedy')", (A3, S3)),
    ("einsum_path then einsum", "lambda a, b: np.einsum('ij,jk->ik', a, b, optimize=np.einsum_path('ij,jk->ik', a, b)[0])", (A3, S3)),
    ("sliding_window_view mean", "lambda x: sliding_window_view(x, 3).mean(axis=-1)", (x6,)),
    ("sliding_window_view 2-D axis", "lambda x: sliding_window_view(x, 2, axis=1).sum(axis=-1)", (x45,)),
    ("histogram weighted sums", "lambda w: np.histogram(x6, bins=[-1.0, 0.0, 1.0], weights=w * w)[0]", (p6,)),
    ("histogram weighted mean", "lambda y: np.histogram(x6, bins=3, weights=y)[0] / np.histogram(x6, bins=3)[0].clip(1)", (p6,)),
    ("np.cumsum reversed", "lambda x: np.cumsum(x[::-1])[::-1]", (x6,)),
    ("np.outer sum", "lambda x, y: np.outer(x, y).sum(axis=0)", (x6, p6)),
    ("np.triu_indices read", "lambda a: a[np.triu_indices(3, 1)]", (A3,)),
    ("np.logaddexp.reduce", "lambda x: np.logaddexp.reduce(x)", (x6,)),
    ("np.linalg.norm of diff", "lambda x: np.linalg.norm(np.diff(x)) ** 2", (x6,)),
    # ---------------------------------------------------------------- SciPy
    ("sp.gammaln array", "lambda a: sp.gammaln(a + 1.0).sum()", (p6,)),
    ("sp.erf erfc", "lambda x: sp.erf(x) + sp.erfc(x * 0.5)", (x6,)),
    ("sp.expm1 log1p", "lambda x: sp.expm1(x) * sp.log1p(x * 0.5)", (x6,)),
    ("sp.softplus-ish", "lambda x: sp.logsumexp(np.stack([x, np.zeros_like(x)]), axis=0)", (x6,)),
    ("sp.logsumexp weights 2-D", "lambda a: sp.logsumexp(a, axis=0, b=np.full((4, 5), 0.5))", (x45,)),
    ("st.norm.logpdf arrays", "lambda x, m, s: st.norm.logpdf(x, m, s + 1.0).sum()", (x6, p6, p6)),
    ("st.norm.cdf arrays", "lambda x, m: st.norm.cdf(x, loc=m, scale=2.0)", (x6, p6)),
    ("st.gamma.logpdf arrays", "lambda x, a: st.gamma.logpdf(x + 1.0, a + 1.0, scale=2.0)", (p6, p6)),
    ("st.beta.cdf", "lambda x: st.beta.cdf(x, 2.0, 3.0)", (p6,)),
    ("st.t.cdf", "lambda x: st.t.cdf(x, 4.0)", (x6,)),
    ("st.expon.logcdf", "lambda x, s: st.expon.logcdf(x + 1.0, scale=s + 1.0)", (p6, p6)),
    ("st.lognorm.cdf", "lambda x: st.lognorm.cdf(x + 1.0, 0.5)", (p6,)),
    ("minimize (constant role)", "_min_then_use", (x6,)),
    ("quad of differentiated integrand", "lambda a: si.quad(lambda t: np.exp(-a * t * t), 0.0, 1.0)[0]", (0.7,)),
    ("quad args", "lambda a, b: si.quad(lambda t, u, v: u * t + v * t * t, 0.0, 2.0, args=(a, b))[0]", (0.7, 0.3)),
    ("CubicSpline constant knots", "lambda x: sint.CubicSpline(KNOTS, VALS)(x * 0.5 + 1.0)", (x6,)),
    ("CubicSpline derivative", "lambda x: sint.CubicSpline(KNOTS, VALS)(x * 0.5 + 1.0, 1)", (x6,)),
    ("CubicSpline values from y", "lambda y: sint.CubicSpline(KNOTS, y)(HALF)", (x6,)),
    ("interp1d linear", "lambda x: sint.interp1d(KNOTS, VALS)(x * 0.5 + 1.0)", (x6,)),
    ("sl.expm", "lambda a: sl.expm(a * 0.1)", (A3,)),
    ("sl.solve_triangular", "lambda l, b: sl.solve_triangular(l, b, lower=True)", (L3, x6[:3])),
    ("sl.cho_solve", "lambda a, b: sl.cho_solve(sl.cho_factor(a @ a.T + np.eye(3)), b)", (A3, x6[:3])),
    ("sl.lu_solve", "lambda a, b: sl.lu_solve(sl.lu_factor(a), b)", (A3, x6[:3])),
    ("sl.solve assume_a pos", "lambda a, b: sl.solve(a @ a.T + np.eye(3), b, assume_a='pos')", (A3, x6[:3])),
    ("sl.logm", "lambda a: sl.logm(a @ a.T + np.eye(3)).real", (A3 * 0.2,)),
    ("sl.sqrtm", "lambda a: sl.sqrtm(a @ a.T + np.eye(3)).real", (A3 * 0.2,)),
    ("sl.det inv", "lambda a: sl.det(a) * sl.inv(a).sum()", (A3,)),
    # ---------------------------------------------------------------- scipy.sparse
    ("sps.diags(x) @ v", "lambda x: sps.diags(x) @ np.arange(6.0)", (x6,)),
    ("sps.kron(diags(x), eye) @ v", "lambda x: sps.kron(sps.diags(x[:3]), sps.eye(2)) @ x", (x6,)),
    ("sps.vstack @", "lambda x: sps.vstack([sps.diags(x), sps.eye(6)]) @ x", (x6,)),
    ("spsolve constant matrix", "lambda b: spla.spsolve(sps.csc_matrix(S3), b)", (x6[:3],)),
    ("sparse toarray", "lambda x: sps.diags(x[:3], 1).toarray()", (x6,)),
    # ---------------------------------------------------------------- Python
    ("math.erf gamma", "lambda x: math.erf(x) + math.lgamma(x + 2.0) + math.gamma(x + 2.0)", (0.3,)),
    ("math.atan2 copysign", "lambda x, y: math.atan2(x, y + 2.0) * math.copysign(1.0, y)", (0.3, 0.4)),
    ("math.fabs fmod", "lambda x: math.fabs(x) + math.fmod(x + 3.0, 2.0)", (0.3,)),
    ("math.exp2 cbrt", "lambda x: math.exp2(x) + math.cbrt(x + 2.0)", (0.3,)),
    ("math.prod of list", "lambda x, y: math.prod([x[0], y[1], x[2] + y[3]])", (x6, p6)),
    ("statistics.mean list", "lambda x: statistics.mean([x[0], x[1] * 2.0, x[2]])", (x6,)),
    ("statistics.pvariance mu", "lambda x: statistics.pvariance(list(x), mu=0.1)", (x6,)),
    ("statistics.covariance", "lambda x, y: statistics.covariance(list(x), list(y))", (x6, p6)),
    ("functools.reduce add lambda", "lambda x: functools.reduce(lambda a, b: a * 0.5 + b, x, 1.0)", (x6,)),
    ("functools.lru_cache constant", "_lru_square", (0.4,)),
    ("operator.mul add map", "lambda x, y: sum(map(operator.mul, x, y)) + operator.add(x[0], y[1])", (x6, p6)),
    ("operator.attrgetter", "lambda a, b: operator.attrgetter('a')(Params(a, b)) * b", (0.3, 0.4)),
    ("Counter weighted", "lambda x: sum(c * v for c, v in zip(collections.Counter('aabccc').values(), x))", (x6,)),
    ("OrderedDict values", "lambda x: sum(v * v for v in collections.OrderedDict(a=x[0], b=x[1]).values())", (x6,)),
    ("ChainMap get", "lambda x: collections.ChainMap({'a': x[0]}, {'b': x[1]}).get('b') * x[2]", (x6,)),
    ("heapq.nsmallest", "lambda x: sum(heapq.nsmallest(3, list(x)))", (x6,)),
    ("heapq push pop", "lambda x: (lambda h: ([heapq.heappush(h, v) for v in x], heapq.heappop(h) * 2.0)[1])([])", (x6,)),
    ("bisect index", "lambda x: x[bisect.bisect_left([0.1, 0.5, 0.9], 0.6)] * 2.0", (x6,)),
    ("dataclasses.replace", "lambda a, b: (lambda p: p.a * p.b)(dataclasses.replace(Params(a, b), b=a * 2.0))", (0.3, 0.4)),
    ("enum keys", "lambda x: (lambda d: d[Color.RED] * d[Color.BLUE])({Color.RED: x[0], Color.BLUE: x[1]})", (x6,)),
    ("dict comprehension enum", "lambda x: sum({c: x[i] * c.value for i, c in enumerate(Color)}.values())", (x6,)),
]


CASES2 = [
    # ---------------------------------------------------------------- second batch: other polynomial bases, keywords
    ("chebval legval hermval", "lambda c, x: np.polynomial.chebyshev.chebval(x, c) + np.polynomial.legendre.legval(x, c) + np.polynomial.hermite.hermval(x, c)", (x6[:3], p6)),
    ("Chebyshev.fit coef", "lambda y: np.polynomial.Chebyshev.fit(np.linspace(-1, 1, 6), y, 2).coef", (x6,)),
    ("einsum ij,ij->i", "lambda a, b: np.einsum('ij,ij->i', a, b)", (x45, x45 * 2.0)),
    ("einsum i,ij,j", "lambda v, a: np.einsum('i,ij,j', v, a, v)", (x6[:3], A3)),
    ("sliding_window 2-D window", "lambda x: sliding_window_view(x, (2, 3)).sum(axis=(-1, -2))", (x45,)),
    ("histogramdd weights", "lambda w: np.histogramdd(np.stack([x6, p6], 1), bins=2, weights=w)[0]", (p6,)),
    ("as_strided read", "lambda x: np.lib.stride_tricks.as_strided(x, shape=(4, 3), strides=(8, 8)).sum(axis=1)", (x6,)),
    ("np.linalg.eig symmetric", "lambda a: np.sort(np.linalg.eig(a @ a.T)[0].real)", (A3,)),
    ("sp.softmax 2-D axis", "lambda x: sp.softmax(x, axis=1)[:, 0]", (x45,)),
    ("sp.cbrt exprel", "lambda x: sp.cbrt(x) + sp.exprel(x)", (x6,)),
    ("sp.gammaincc arrays", "lambda a, x: sp.gammaincc(a + 1.0, x + 1.0)", (p6, p6)),
    ("st.norm.ppf arrays", "lambda m, s: st.norm.ppf(0.3, m, s + 1.0)", (p6, p6)),
    ("st.gamma.cdf array a", "lambda a: st.gamma.cdf(2.0, a + 1.0)", (p6,)),
    ("st.beta.logpdf arrays", "lambda a, b: st.beta.logpdf(0.3, a + 1.0, b + 1.0)", (p6, p6)),
    ("st.poisson.logpmf array mu", "lambda mu: st.poisson.logpmf(np.arange(6), mu + 1.0)", (p6,)),
    ("st.mvn.logpdf batch", "lambda x: st.multivariate_normal.logpdf(x, np.zeros(3), S3)", (x45[:, :3],)),
    ("st.t.logpdf array df", "lambda x, df: st.t.logpdf(x, df + 2.0)", (x6, p6)),
    ("st.laplace.cdf", "lambda x: st.laplace.cdf(x, 0.1, 2.0)", (x6,)),
    ("st.weibull_min.logpdf", "lambda x, c: st.weibull_min.logpdf(x + 1.0, c + 1.0)", (p6, p6)),
    ("so.brentq root in a", "lambda a: so.brentq(lambda t: t ** 3 - a - 1.0, 0.0, 3.0)", (0.7,)),
    ("so.root_scalar", "lambda a: so.root_scalar(lambda t: t * t - a - 1.0, bracket=(0.0, 3.0)).root", (0.7,)),
    ("so.minimize_scalar x", "lambda a: so.minimize_scalar(lambda t: (t - a) ** 2 + t ** 4).x", (0.7,)),
    ("si.quad infinite", "lambda a: si.quad(lambda t: np.exp(-(a + 1.0) * t * t), -np.inf, np.inf)[0]", (0.7,)),
    ("si.simpson", "lambda y: si.simpson(y, x=np.linspace(0, 1, 6))", (x6,)),
    ("si.cumulative_trapezoid", "lambda y: si.cumulative_trapezoid(y, dx=0.2, initial=0.0)", (x6,)),
    ("interp1d cubic", "lambda x: sint.interp1d(KNOTS, VALS, kind='cubic')(x * 0.5 + 1.0)", (x6,)),
    ("PchipInterpolator", "lambda x: sint.PchipInterpolator(KNOTS, VALS)(x * 0.5 + 1.0)", (x6,)),
    ("Akima1DInterpolator", "lambda x: sint.Akima1DInterpolator(KNOTS, VALS)(x * 0.5 + 1.0)", (x6,)),
    ("make_interp_spline", "lambda x: sint.make_interp_spline(KNOTS, VALS, k=3)(x * 0.5 + 1.0)", (x6,)),
    ("RegularGridInterpolator", "lambda p: sint.RegularGridInterpolator((KNOTS, KNOTS), np.outer(VALS, VALS))(p.reshape(3, 2) + 1.0)", (x6,)),
    ("sl.cholesky lower", "lambda a: sl.cholesky(a @ a.T + np.eye(3), lower=True)", (A3,)),
    ("sl.eigh eigvals_only", "lambda a: sl.eigh(a + a.T, eigvals_only=True)", (A3,)),
    ("sl.lstsq", "lambda a, b: sl.lstsq(a, b)[0]", (x45.T, x6[:5])),
    ("sl.solve_banded", "lambda ab, b: sl.solve_banded((1, 1), ab + np.array([[0.0], [4.0], [0.0]]), b)", (x45[:3], x6[:5])),
    ("sl.pinv norm", "lambda a: sl.pinv(a).sum() + sl.norm(a)", (x45,)),
    ("math.degrees radians", "lambda x: math.degrees(x) * math.radians(x + 1.0)", (0.3,)),
    ("statistics.median even", "lambda x: statistics.median(list(x))", (x6,)),
    ("statistics.quantiles n=4", "lambda x: statistics.quantiles(list(x), n=4)[1]", (x6,)),
    ("bisect.insort then sum", "lambda x: (lambda l: (bisect.insort(l, x[0] * 0.5), sum(v * v for v in l))[1])(sorted(list(x[1:])))", (x6,)),
    ("sorted key max key", "lambda x: sum(sorted(list(x), key=abs)[:3]) + max(list(x), key=lambda v: v * v)", (x6,)),
    ("zip(*rows)", "lambda a: sum(sum(c) * i for i, c in enumerate(zip(*a.tolist())))", (x45,)),
    ("sum start", "lambda x: sum(list(x), 2.0 * x[0])", (x6,)),
    ("heapq.nlargest key", "lambda x: sum(heapq.nlargest(2, list(x), key=lambda v: -v * v))", (x6,)),
    ("functools.cache helper", "lambda x: _cached_scale(2) * np.sum(x)", (x6,)),
    ("operator.itemgetter slice", "lambda x: np.sum(operator.itemgetter(slice(1, 4))(x) ** 2)", (x6,)),
    ("Counter most_common", "lambda x: sum(x[k] * c for k, c in collections.Counter([0, 1, 1, 3]).most_common(2))", (x6,)),
]


@functools.cache
def _cached_scale(k):
    return float(k) * 1.5


def compile_case(src):
    if src.isidentifier():
        return globals()[src]
    fname = f"<issue12b {next(_COUNTER)}>"
    linecache.cache[fname] = (len(src) + 1, None, [src + "\n"], fname)
    return eval(compile(src + "\n", fname, "eval"), globals())


def main(argv):
    import warnings

    warnings.simplefilter("ignore")
    verbose = "-v" in argv
    wanted = [a for a in argv if a != "-v"]
    counts = collections.Counter()
    bad = []
    for name, src, args in CASES + CASES2:
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
    total = sum(1 for n, _, _ in CASES + CASES2 if not wanted or any(w in n for w in wanted))
    print(f"{len(bad)} of {total} not ok:", bad)


if __name__ == "__main__":
    main(sys.argv[1:])
