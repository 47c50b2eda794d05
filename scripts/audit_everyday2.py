"""Second batch of everyday functions (issue 12's audit, session of 2026-11-28): keyword variants the first
lists skip (fft's n/axis/axes/norm, average's weights with axis, bincount's minlength, ddof and keepdims,
quantile methods) and functions a scientist writes with scipy.special, scipy.stats distribution methods,
np.linalg, np.fft, statistics, math, collections, itertools, functools and operator.  Each is a small
function checked in both modes by mooncake_ast.testing.check_derivatives and printed as in
scripts/audit_issue12.py (ok / missing / refused / wrong / error).

    PYTHONPATH=. python scripts/audit_everyday2.py [-v] [substring ...]

Not a test: a map of what is left.
"""
import collections
import copy  # noqa: F401  (used by the cases' source)
import functools  # noqa: F401
import itertools
import linecache
import math  # noqa: F401
import operator  # noqa: F401
import statistics  # noqa: F401
import sys

import numpy as np
import scipy.linalg as sl  # noqa: F401
import scipy.special as sp  # noqa: F401
import scipy.stats as st  # noqa: F401

from audit_issue12 import check_both  # (this script's folder is on sys.path)

RNG = np.random.default_rng(7)
_COUNTER = itertools.count()


def U(*shape, lo=-0.9, hi=0.9):
    return RNG.uniform(lo, hi, size=shape) if shape else float(RNG.uniform(lo, hi))


x6, p6, x45, x345 = U(6), U(6, lo=0.1, hi=0.9), U(4, 5), U(3, 4, 5)
w6 = U(6, lo=0.2, hi=1.5)
w45 = U(4, 5, lo=0.2, hi=1.5)
A3 = RNG.normal(size=(3, 3)) + 3.0 * np.eye(3)
S3 = A3 @ A3.T
B3 = U(2, 3, 3) + 3.0 * np.eye(3)
nan6 = np.zeros(6, bool)
nan6[2] = True
nan45 = np.zeros((4, 5), bool)
nan45[1, 2] = nan45[3, 0] = True
idx6 = np.array([0, 2, 2, 5, 1, 0])
Pt = collections.namedtuple("Pt", "a b")

CASES = [
    # ---------------------------------------------------------------- np.fft keyword variants
    ("fft n norm=ortho", "lambda x: np.abs(np.fft.fft(x, n=8, norm='ortho')) ** 2", (x6,)),
    ("fft n shorter", "lambda x: np.fft.fft(x, n=4).real", (x6,)),
    ("fft axis=0 norm=forward", "lambda x: np.fft.fft(x, axis=0, norm='forward').imag", (x45,)),
    ("ifft complex in", "lambda x, y: np.fft.ifft(x + 1j * y, n=7).real", (x6, p6)),
    ("rfft n axis", "lambda x: np.abs(np.fft.rfft(x, n=6, axis=0))", (x45,)),
    ("irfft n norm", "lambda x: np.fft.irfft(np.fft.rfft(x) * 0.5, n=6, norm='ortho')", (x6,)),
    ("irfft odd n", "lambda x, y: np.fft.irfft(x + 1j * y, n=9, norm='forward')", (x6[:5], p6[:5])),
    ("hfft n norm", "lambda x: np.fft.hfft(x, n=8, norm='ortho')", (x6[:5],)),
    ("ihfft norm", "lambda x: np.fft.ihfft(x, norm='forward').imag", (x6,)),
    ("fft2 s axes", "lambda x: np.abs(np.fft.fft2(x, s=(5, 6), norm='ortho'))", (x45,)),
    ("fftn axes", "lambda x: np.fft.fftn(x, axes=(0, 2)).real", (x345,)),
    ("rfftn s", "lambda x: np.abs(np.fft.rfftn(x, s=(4, 4), axes=(0, 1)))", (x45,)),
    ("irfft2 s", "lambda x: np.fft.irfft2(np.fft.rfft2(x), s=(4, 5))", (x45,)),
    ("ifftn axes norm", "lambda x: np.fft.ifftn(x, axes=(1,), norm='ortho').imag", (x345,)),
    ("fftshift axes", "lambda x: np.fft.fftshift(x, axes=1) * np.fft.ifftshift(x, axes=(0,))", (x45,)),
    ("fftfreq const", "lambda x: x * np.fft.fftfreq(6, d=0.1) + np.fft.rfftfreq(10)[:6]", (x6,)),
    ("power spectrum", "lambda x: np.sum(np.abs(np.fft.rfft(x - x.mean())) ** 2) / len(x)", (x6,)),
    # ---------------------------------------------------------------- statistics keyword variants
    ("average weights axis returned", "lambda x, w: np.average(x, axis=1, weights=w[0], returned=True)[0]", (x45, w45)),
    ("average weights 2-D", "lambda x, w: np.average(x, weights=w)", (x45, w45)),
    ("average keepdims", "lambda x, w: np.average(x, axis=0, weights=w, keepdims=True)", (x45, w45)),
    ("bincount minlength", "lambda w: np.bincount(idx6, weights=w, minlength=8)", (x6,)),
    ("var ddof keepdims", "lambda x: np.var(x, axis=0, ddof=1, keepdims=True)", (x45,)),
    ("std ddof axis tuple", "lambda x: np.std(x, axis=(0, 2), ddof=2)", (x345,)),
    ("nanstd ddof", "lambda x: np.nanstd(np.where(nan45, np.nan, x), ddof=1, axis=1)", (x45,)),
    ("nanvar keepdims", "lambda x: np.nanvar(np.where(nan45, np.nan, x), axis=0, keepdims=True)", (x45,)),
    ("nanmean axis", "lambda x: np.nanmean(np.where(nan45, np.nan, x), axis=1)", (x45,)),
    ("nansum keepdims", "lambda x: np.nansum(np.where(nan6, np.nan, x) ** 2, keepdims=True)", (x6,)),
    ("nanmedian axis", "lambda x: np.nanmedian(np.where(nan45, np.nan, x), axis=0)", (x45,)),
    ("median keepdims", "lambda x: np.median(x, axis=1, keepdims=True)", (x45,)),
    ("percentile list axis", "lambda x: np.percentile(x, [10, 90], axis=1)", (x45,)),
    ("percentile nearest", "lambda x: np.percentile(x, 30, method='nearest')", (x6,)),
    ("quantile midpoint", "lambda x: np.quantile(x, 0.35, method='midpoint')", (x6,)),
    ("quantile hazen", "lambda x: np.quantile(x, [0.2, 0.7], method='hazen')", (x6,)),
    ("quantile weibull keepdims", "lambda x: np.quantile(x, 0.4, axis=0, method='weibull', keepdims=True)", (x45,)),
    ("cov two args ddof", "lambda x, y: np.cov(x, y, ddof=0)", (x6, p6)),
    ("cov bias fweights", "lambda x: np.cov(x, bias=True, fweights=np.array([1, 2, 1, 3, 1]))", (x45,)),
    ("cov aweights", "lambda x, w: np.cov(x, aweights=w[0])", (x45, w45)),
    ("corrcoef two", "lambda x, y: np.corrcoef(x, y)[0, 1]", (x6, p6)),
    ("ptp axis keepdims", "lambda x: np.ptp(x, axis=1, keepdims=True)", (x45,)),
    ("mean dtype", "lambda x: np.mean(x, axis=0, dtype=np.float64)", (x45,)),
    ("sum where", "lambda x: np.sum(x, where=x > 0.0)", (x45,)),
    ("max axis keepdims", "lambda x: np.max(x, axis=1, keepdims=True) - np.min(x, axis=0)[None, :]", (x45,)),
    ("histogram density weights", "lambda w: np.histogram(x6, bins=3, weights=w, density=True)[0]", (w6,)),
    # ---------------------------------------------------------------- scipy.special
    ("sp.digamma polygamma", "lambda x: sp.digamma(x + 2) + sp.polygamma(1, x + 2)", (x6,)),
    ("sp.zeta q", "lambda q: sp.zeta(3.0, q + 2)", (x6,)),
    ("sp.log_ndtr", "lambda x: sp.log_ndtr(x * 3)", (x6,)),
    ("sp.k0 k1 kn", "lambda x: sp.k0(x + 1) + sp.k1(x + 1) + sp.kn(2, x + 1)", (x6,)),
    ("sp.i0 i1", "lambda x: sp.i0(x) + sp.i1(x)", (x6,)),
    ("sp.yv jv order", "lambda x, v: sp.yv(v + 1, x + 2) + sp.jv(v + 1, x + 2)", (x6, p6)),
    ("sp.spence dawsn", "lambda x: sp.spence(x + 1) + sp.dawsn(x)", (x6,)),
    ("sp.loggamma real", "lambda x: sp.loggamma(x + 2)", (x6,)),
    ("sp.binom real", "lambda x: sp.binom(5.5, x + 2)", (x6,)),
    ("sp.beta betaln", "lambda a, b: sp.beta(a + 1, b + 1) + sp.betaln(a + 1, b + 2)", (p6, x6 + 1)),
    ("sp.hyp2f1", "lambda x: sp.hyp2f1(0.5, 1.5, 2.0, x * 0.5)", (x6,)),
    ("sp.hyp1f1", "lambda x: sp.hyp1f1(0.5, 1.5, x)", (x6,)),
    ("sp.erfc erfcx", "lambda x: sp.erfc(x) * sp.erfcx(x)", (x6,)),
    ("sp.factorial real", "lambda x: sp.factorial(x + 2, exact=False)", (p6,)),
    ("sp.gamma", "lambda x: sp.gamma(x + 2)", (x6,)),
    ("sp.logsumexp b axis keepdims", "lambda a, b: sp.logsumexp(a, axis=1, b=b, keepdims=True)", (x45, w45)),
    ("sp.logsumexp b return_sign", "lambda a, b: sp.logsumexp(a, b=b - 0.5, return_sign=True)[0]", (x6, w6)),
    ("sp.softmax axis", "lambda a: sp.softmax(a, axis=0)", (x45,)),
    ("sp.stdtr", "lambda t: sp.stdtr(4.0, t)", (x6,)),
    ("sp.ellipj", "lambda u: sp.ellipj(u, 0.3)[0]", (x6,)),
    ("sp.expit logit chain", "lambda x: sp.logit(sp.expit(x) * 0.5 + 0.25)", (x6,)),
    ("sp.gammaincinv a", "lambda p: sp.gammaincinv(2.0, p)", (p6,)),
    ("sp.xlogy arrays", "lambda x, y: sp.xlogy(x, y + 1)", (x6, p6)),
    ("sp.boxcox1p lmbda", "lambda x, l: sp.boxcox1p(x + 1, l)", (p6, x6)),
    ("sp.psi", "lambda x: sp.psi(x + 2)", (x6,)),
    # ---------------------------------------------------------------- scipy.stats distribution methods
    ("st.norm frozen", "lambda m, s: st.norm(m, s + 1).logpdf(x6).sum()", (0.3, 0.4)),
    ("st.norm frozen cdf", "lambda m, s: st.norm(loc=m, scale=s + 1).cdf(0.2)", (0.3, 0.4)),
    ("st.norm mean var std", "lambda m, s: st.norm.mean(m, s + 1) + st.norm.var(m, s + 1) + st.norm.std(loc=m, scale=s + 1)", (0.3, 0.4)),
    ("st.norm entropy", "lambda s: st.norm.entropy(scale=s + 1)", (0.4,)),
    ("st.t.ppf df", "lambda q, df: st.t.ppf(q, df + 3)", (0.3, 0.4)),
    ("st.gamma.ppf", "lambda q, a: st.gamma.ppf(q, a + 1)", (0.3, 0.4)),
    ("st.beta.logsf", "lambda x, a: st.beta.logsf(x, a + 1, 2.0)", (0.3, 0.4)),
    ("st.expon.isf", "lambda q, s: st.expon.isf(q, scale=s + 1)", (0.3, 0.4)),
    ("st.lognorm.logpdf s scale", "lambda x, s: st.lognorm.logpdf(x + 1, s + 1, scale=2.0)", (0.3, 0.4)),
    ("st.cauchy.logpdf", "lambda x: st.cauchy.logpdf(x, 0.1, 2.0)", (x6,)),
    ("st.logistic.logpdf", "lambda x: st.logistic.logpdf(x, scale=2.0)", (x6,)),
    ("st.halfnorm.logpdf", "lambda x, s: st.halfnorm.logpdf(x + 1, scale=s + 1)", (p6, 0.4)),
    ("st.invgamma.logpdf", "lambda x, a: st.invgamma.logpdf(x + 1, a + 1)", (p6, 0.4)),
    ("st.truncnorm.logpdf", "lambda x: st.truncnorm.logpdf(x, -1.0, 1.0)", (x6,)),
    ("st.vonmises.logpdf", "lambda x, k: st.vonmises.logpdf(x, k + 1)", (x6, 0.4)),
    ("st.gumbel_r.logpdf", "lambda x: st.gumbel_r.logpdf(x, 0.2, 1.5)", (x6,)),
    ("st.pareto.logpdf", "lambda x, b: st.pareto.logpdf(x + 2, b + 1)", (p6, 0.4)),
    ("st.uniform.logpdf loc scale", "lambda l, s: st.uniform.logpdf(0.5, l - 1, s + 2)", (0.3, 0.4)),
    ("st.binom.pmf p", "lambda p: st.binom.pmf(3, 7, p)", (0.4,)),
    ("st.geom.logpmf p", "lambda p: st.geom.logpmf(3, p)", (0.4,)),
    ("st.poisson.logcdf mu", "lambda mu: st.poisson.logcdf(3, mu + 1)", (0.4,)),
    ("st.skewnorm.logpdf", "lambda x, a: st.skewnorm.logpdf(x, a)", (x6, 0.7)),
    ("st.chi2.ppf", "lambda q: st.chi2.ppf(q, 3.0)", (p6,)),
    ("st.mvn frozen logpdf", "lambda m: st.multivariate_normal(m, S3).logpdf(x6[:3])", (p6[:3],)),
    ("st.mvn logpdf cov arg", "lambda x, c: st.multivariate_normal.logpdf(x, np.zeros(3), c @ c.T + np.eye(3))", (x6[:3], A3)),
    ("st.multivariate_t.logpdf", "lambda x: st.multivariate_t.logpdf(x, np.zeros(3), S3, df=4)", (x6[:3],)),
    ("st.t frozen logpdf", "lambda x, df: st.t(df + 3, loc=0.1).logpdf(x)", (x6, 0.4)),
    ("st.norm.logpdf broadcast loc", "lambda x, m: st.norm.logpdf(x[:, None], m[None, :], 2.0).sum()", (x6, p6[:3])),
    # ---------------------------------------------------------------- np.linalg
    ("linalg.solve 2-D b", "lambda a, b: np.linalg.solve(a, b)", (A3, x45[:3, :2])),
    ("linalg.eigh vectors", "lambda a: np.abs(np.linalg.eigh(a + a.T)[1]).sum()", (A3,)),
    ("linalg.qr reduced Q", "lambda a: np.abs(np.linalg.qr(a)[0]).sum()", (x45.T,)),
    ("linalg.svd U", "lambda a: np.abs(np.linalg.svd(a, full_matrices=False)[0]).sum()", (x45,)),
    ("linalg.norm -inf", "lambda a: np.linalg.norm(a, -np.inf)", (x6,)),
    ("linalg.norm ord=-2 matrix", "lambda a: np.linalg.norm(a, -2)", (A3,)),
    ("linalg.cholesky batched", "lambda a: np.linalg.cholesky(a @ np.swapaxes(a, -1, -2))", (B3,)),
    ("linalg.inv complex", "lambda a, b: np.abs(np.linalg.inv(a + 1j * b)).sum()", (A3, A3.T * 0.2)),
    ("linalg.matrix_power neg", "lambda a: np.linalg.matrix_power(a, -2)", (A3,)),
    ("linalg.pinv rcond", "lambda a: np.linalg.pinv(a, rcond=1e-10)", (x45,)),
    ("linalg.lstsq both", "lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0]", (x45.T, x6[:5])),
    ("linalg.cond fro", "lambda a: np.linalg.cond(a, 'fro')", (A3,)),
    ("linalg.eigvalsh UPLO", "lambda a: np.linalg.eigvalsh(a, UPLO='U')", (S3,)),
    ("linalg.det complex", "lambda a, b: np.abs(np.linalg.det(a + 1j * b))", (A3, A3.T * 0.2)),
    ("linalg.solve batched vector", "lambda a, b: np.linalg.solve(a, b[..., None])[..., 0]", (B3, x6.reshape(2, 3))),
    # ---------------------------------------------------------------- Python standard library
    ("math.hypot 3", "lambda x, y: math.hypot(x, y, 2.0)", (0.3, 0.4)),
    ("math.prod start", "lambda x: math.prod(list(x), start=2.0)", (x6,)),
    ("math.log base", "lambda x, b: math.log(x + 2, b + 3)", (0.3, 0.4)),
    ("math.fsum generator", "lambda x: math.fsum(v * v for v in x)", (x6,)),
    ("math.pow both", "lambda x, y: math.pow(x + 2, y)", (0.3, 0.4)),
    ("math.dist", "lambda x, y: math.dist(list(x), list(y))", (x6[:3], p6[:3])),
    ("statistics.fmean weights", "lambda x, w: statistics.fmean(list(x), weights=list(w))", (x6, w6)),
    ("statistics.NormalDist pdf cdf", "lambda m, s: statistics.NormalDist(m, s + 1).pdf(0.2) + statistics.NormalDist(m, s + 1).cdf(0.1)", (0.3, 0.4)),
    ("statistics.NormalDist inv_cdf zscore", "lambda m, s: statistics.NormalDist(m, s + 1).inv_cdf(0.3) + statistics.NormalDist(m, s + 1).zscore(0.5)", (0.3, 0.4)),
    ("statistics.stdev xbar", "lambda x: statistics.stdev(list(x), xbar=0.1)", (x6,)),
    ("statistics.median_grouped", "lambda x: statistics.median_grouped(list(x))", (x6,)),
    ("statistics.linear_regression prop", "lambda x, y: statistics.linear_regression(list(x), list(y), proportional=True).slope", (x6, p6)),
    ("collections.Counter update", "lambda x: sum(collections.Counter({'a': x[0], 'b': x[1]}).values())", (x6,)),
    ("namedtuple _replace _asdict", "lambda x: sum(Pt(x[0], x[1])._replace(b=x[2])._asdict().values())", (x6,)),
    ("deque rotate appendleft", "lambda x: (lambda d: (d.rotate(2), d.appendleft(x[0] * 2), d[1] * d[0])[2])(collections.deque(x))", (x6,)),
    ("ChainMap", "lambda x: collections.ChainMap({'a': x[0]}, {'a': x[1], 'b': x[2]})['a'] * collections.ChainMap({'b': x[3]})['b']", (x6,)),
    ("defaultdict list", "lambda x: (lambda d: (d['a'].append(x[0]), d['a'].append(x[1] * 3), sum(d['a']))[2])(collections.defaultdict(list))", (x6,)),
    ("OrderedDict move_to_end", "lambda x: (lambda d: (d.move_to_end('a'), list(d.values())[0] * 2.0)[1])(collections.OrderedDict(a=x[0], b=x[1]))", (x6,)),
    ("dict setdefault pop update", "lambda x: (lambda d: (d.setdefault('c', x[2]), d.update(b=x[3]), d.pop('a') * d['b'] + d['c'])[2])({'a': x[0], 'b': x[1]})", (x6,)),
    ("itertools.pairwise", "lambda x: sum(b - a * a for a, b in itertools.pairwise(x))", (x6,)),
    ("itertools.starmap", "lambda x, y: sum(itertools.starmap(operator.mul, zip(x, y)))", (x6, p6)),
    ("itertools.product", "lambda x: sum(a * b for a, b in itertools.product(x[:3], x[3:]))", (x6,)),
    ("itertools.combinations", "lambda x: sum(a * b for a, b in itertools.combinations(x, 2))", (x6,)),
    ("itertools.islice chain", "lambda x, y: sum(itertools.islice(itertools.chain(x, y), 2, 9, 2))", (x6, p6)),
    ("itertools.zip_longest", "lambda x, y: sum(a * b for a, b in itertools.zip_longest(x, y[:4], fillvalue=1.0))", (x6, p6)),
    ("itertools.accumulate initial", "lambda x: list(itertools.accumulate(x, operator.mul, initial=2.0))[-1]", (x6,)),
    ("itertools.chain.from_iterable", "lambda x: sum(itertools.chain.from_iterable([x[:2], x[3:]]))", (x6,)),
    ("itertools.compress takewhile", "lambda x: sum(itertools.compress(x, [1, 0, 1, 1, 0, 1])) + sum(itertools.takewhile(lambda v: v < 5.0, x))", (x6,)),
    ("itertools.groupby", "lambda x: sum(max(g) for k, g in itertools.groupby(x, key=lambda v: v > 0))", (x6,)),
    ("functools.partial kw", "lambda x: functools.partial(np.linalg.norm, ord=3)(x)", (x6,)),
    ("functools.partial np.sum", "lambda x: functools.partial(np.sum, axis=0)(x * x)", (x45,)),
    ("functools.reduce operator.mul", "lambda x: functools.reduce(operator.mul, x)", (x6,)),
    ("functools.reduce np.dot", "lambda a: functools.reduce(np.dot, [a, a.T, a])", (A3,)),
    ("operator.itemgetter many", "lambda x: sum(operator.itemgetter(0, 2, 4)(x))", (x6,)),
    ("operator.methodcaller dot", "lambda a, b: operator.methodcaller('dot', b)(a)", (A3, x6[:3])),
    ("operator.matmul pow neg", "lambda a: operator.neg(operator.pow(operator.matmul(a, a), 2))", (A3,)),
    ("operator.truediv map", "lambda x, y: sum(map(operator.truediv, x, y + 1))", (x6, p6)),
    ("map lambda two", "lambda x, y: np.array(list(map(lambda a, b: a * b + a, x, y)))", (x6, p6)),
]


def compile_case(src):
    fname = f"<everyday2 {next(_COUNTER)}>"
    linecache.cache[fname] = (len(src) + 1, None, [src + "\n"], fname)
    return eval(compile(src + "\n", fname, "eval"), globals())


def main(argv):
    verbose = "-v" in argv
    wanted = [a for a in argv if a != "-v"]
    counts = collections.Counter()
    for name, src, args in CASES:
        if wanted and not any(w in name for w in wanted):
            continue
        (fs, fm), (rs, rm) = check_both(compile_case(src), args, verbose)
        counts["forward", fs] += 1
        counts["reverse", rs] += 1
        line = f"{name:36s} fwd={fs:8s} rev={rs:8s}"
        if fm or rm:
            line += "  " + (fm or rm).splitlines()[0][:160]
        print(line, flush=True)
    for mode in ("forward", "reverse"):
        print(mode, {k[1]: v for k, v in counts.items() if k[0] == mode})


if __name__ == "__main__":
    main(sys.argv[1:])
