"""Audit of everyday functions a scientist calls that issue 12's lists forget (keyword arguments of np.linalg,
einsum forms, clip with array bounds, scipy.special's logit/expit/xlogy/erfcx family, ...): each in a small
function checked in both modes by mooncake_ast.testing.check_derivatives, printed as in
scripts/audit_issue12.py (ok / missing / refused / wrong / error).

    PYTHONPATH=. python scripts/audit_everyday.py [-v] [substring ...]

Not a test: a map of what is left.
"""
import collections
import functools
import itertools
import linecache
import math
import statistics
import sys

import numpy as np
import scipy.linalg as sl
import scipy.special as sp
import scipy.stats as st

from audit_issue12 import check_both  # (this script's folder is on sys.path)

RNG = np.random.default_rng(1)
_COUNTER = itertools.count()


def U(*shape, lo=-0.9, hi=0.9):
    return RNG.uniform(lo, hi, size=shape) if shape else float(RNG.uniform(lo, hi))


x5, p5, x34, x345 = U(5), U(5, lo=0.1, hi=0.9), U(3, 4), U(3, 4, 5)
A3 = RNG.normal(size=(3, 3)) + 3.0 * np.eye(3)
S3 = A3 @ A3.T
B23 = U(2, 3, 3) + 3.0 * np.eye(3)
lo5, hi5 = x5 - 0.3, x5 + 0.2

CASES = [
    # ---------------------------------------------------------------- np.linalg with keywords
    ("linalg.norm ord=1 axis", "lambda a: np.linalg.norm(a, ord=1, axis=0)", (x34,)),
    ("linalg.norm fro keepdims", "lambda a: np.linalg.norm(a, 'fro', keepdims=True)", (x34,)),
    ("linalg.norm ord=inf", "lambda a: np.linalg.norm(a, np.inf, axis=1)", (x34,)),
    ("linalg.norm ord=2 matrix", "lambda a: np.linalg.norm(a, 2)", (A3,)),
    ("linalg.norm nuc", "lambda a: np.linalg.norm(a, 'nuc')", (A3,)),
    ("linalg.norm axis tuple", "lambda a: np.linalg.norm(a, axis=(1, 2))", (x345,)),
    ("linalg.vector_norm", "lambda a: np.linalg.vector_norm(a, ord=3, axis=-1)", (x34,)),
    ("linalg.matrix_norm", "lambda a: np.linalg.matrix_norm(a)", (B23,)),
    ("linalg.solve batched", "lambda a, b: np.linalg.solve(a, b)", (B23, U(2, 3, 1))),
    ("linalg.slogdet", "lambda a: np.linalg.slogdet(a)[1]", (A3,)),
    ("linalg.slogdet attr", "lambda a: np.linalg.slogdet(a).logabsdet", (B23,)),
    ("linalg.det batched", "lambda a: np.linalg.det(a)", (B23,)),
    ("linalg.eigh UPLO=U", "lambda a: np.linalg.eigh(a, UPLO='U')[0]", (S3,)),
    ("linalg.eigvalsh", "lambda a: np.linalg.eigvalsh(a)", (S3,)),
    ("linalg.svd full=False", "lambda a: np.linalg.svd(a, full_matrices=False)[1]", (x34,)),
    ("linalg.svd compute_uv=False", "lambda a: np.linalg.svd(a, compute_uv=False)", (x34,)),
    ("linalg.svdvals", "lambda a: np.linalg.svdvals(a)", (x34,)),
    ("linalg.qr mode=r", "lambda a: np.linalg.qr(a, mode='r')", (A3,)),
    ("linalg.qr complete", "lambda a: np.linalg.qr(a.T, mode='complete')[1]", (x34,)),
    ("linalg.cholesky upper", "lambda a: np.linalg.cholesky(a, upper=True)", (S3,)),
    ("linalg.inv batched", "lambda a: np.linalg.inv(a)", (B23,)),
    ("linalg.tensorsolve", "lambda a, b: np.linalg.tensorsolve(a, b)", (A3, x5[:3])),
    ("linalg.tensorinv", "lambda a: np.linalg.tensorinv(a, ind=1)", (A3,)),
    ("linalg.vecdot", "lambda a, b: np.linalg.vecdot(a, b)", (x34, x34[::-1])),
    ("linalg.matmul", "lambda a, b: np.linalg.matmul(a, b)", (x34.T, x34)),
    ("linalg.outer", "lambda a, b: np.linalg.outer(a, b)", (x5, x5[:3])),
    ("linalg.trace", "lambda a: np.linalg.trace(a, offset=1)", (B23,)),
    ("linalg.diagonal", "lambda a: np.linalg.diagonal(a)", (B23,)),
    ("linalg.cross", "lambda a, b: np.linalg.cross(a, b)", (x34[:, :3], x34[:, 1:])),
    ("linalg.matrix_rank", "lambda a: a * np.linalg.matrix_rank(a)", (A3,)),
    ("linalg.lstsq rcond", "lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0]", (x34.T, x5[:4])),
    ("linalg.pinv hermitian", "lambda a: np.linalg.pinv(a, hermitian=True)", (S3,)),
    # ---------------------------------------------------------------- einsum forms
    ("einsum ii->i", "lambda a: np.einsum('ii->i', a)", (A3,)),
    ("einsum trace", "lambda a: np.einsum('ii', a)", (A3,)),
    ("einsum ij,ij->", "lambda a, b: np.einsum('ij,ij->', a, b)", (x34, x34 * 2)),
    ("einsum ellipsis", "lambda a, b: np.einsum('...ij,...jk->...ik', a, b)", (B23, B23)),
    ("einsum i,i", "lambda a, b: np.einsum('i,i', a, b)", (x5, p5)),
    ("einsum ijk->kji", "lambda a: np.einsum('ijk->kji', a)", (x345,)),
    ("einsum optimize", "lambda a, b, c: np.einsum('ij,jk,kl->il', a, b, c, optimize=True)", (x34, x34.T, A3)),
    ("einsum implicit", "lambda a, b: np.einsum('ij,jk', a, b)", (x34.T, x34)),
    ("einsum i...->...", "lambda a: np.einsum('i...->...', a)", (x345,)),
    ("einsum ij->", "lambda a: np.einsum('ij->', a)", (x34,)),
    ("einsum sublist", "lambda a, b: np.einsum(a, [0, 1], b, [1, 2], [0, 2])", (x34.T, x34)),
    ("einsum bij,bjk", "lambda a, b: np.einsum('bij,bjk->bik', a, b)", (B23, B23)),
    ("einsum outer i,j->ij", "lambda a, b: np.einsum('i,j->ij', a, b)", (x5, p5)),
    ("einsum ii->", "lambda a: np.einsum('ii->', a)", (A3,)),
    # ---------------------------------------------------------------- clip and friends
    ("clip array bounds", "lambda x, lo, hi: np.clip(x, lo, hi)", (x5, lo5, hi5)),
    ("clip None lo", "lambda x: np.clip(x, None, 0.3)", (x5,)),
    ("clip min= max=", "lambda x: np.clip(x, min=-0.2, max=0.4)", (x5,)),
    ("ndarray.clip", "lambda x, hi: x.clip(-0.5, hi)", (x5, hi5)),
    ("np.maximum array", "lambda x, y: np.maximum(x, y) + np.fmin(x, y)", (x5, lo5 + 0.1)),
    ("np.where", "lambda x, y: np.where(x > 0, x * y, y)", (x5, p5)),
    ("np.heaviside", "lambda x: np.heaviside(x, 0.5) * x", (x5,)),
    ("np.sinc", "lambda x: np.sinc(x)", (x5,)),
    ("np.i0", "lambda x: np.i0(x)", (x5,)),
    ("np.logaddexp2", "lambda x, y: np.logaddexp2(x, y)", (x5, p5)),
    ("np.float_power", "lambda x, y: np.float_power(x, y)", (p5, x5)),
    ("np.unwrap", "lambda x: np.unwrap(x * 5.0)", (x5,)),
    ("np.polyval", "lambda c, x: np.polyval(c, x)", (x5[:3], p5)),
    ("np.poly1d", "lambda c, x: np.poly1d(c)(x)", (x5[:3], p5)),
    ("np.polyder", "lambda c: np.polyder(c)", (x5,)),
    ("np.polyint", "lambda c: np.polyint(c)", (x5,)),
    ("np.polymul", "lambda a, b: np.polymul(a, b)", (x5[:3], p5[:2])),
    ("np.roots", "lambda c: np.roots(c)", (np.array([1.0, -3.0, 2.0]),)),
    ("np.kron", "lambda a, b: np.kron(a, b)", (A3[:2, :2], x34[:2, :2])),
    ("np.tensordot axes", "lambda a, b: np.tensordot(a, b, axes=([1, 2], [0, 1]))", (x345, x345[0])),
    ("np.inner", "lambda a, b: np.inner(a, b)", (x34, x34)),
    ("np.vdot", "lambda a, b: np.vdot(a, b)", (x34, x34 * 2)),
    ("np.cross", "lambda a, b: np.cross(a, b)", (x5[:3], p5[:3])),
    ("np.trace offset", "lambda a: np.trace(a, offset=1)", (x34,)),
    ("np.tril k", "lambda a: np.tril(a, k=-1) + np.triu(a, 1)", (x34,)),
    ("np.diff n prepend", "lambda x: np.diff(x, n=2, prepend=0.0)", (x5,)),
    ("np.ediff1d", "lambda x: np.ediff1d(x, to_begin=1.0)", (x5,)),
    ("np.cumulative_sum", "lambda x: np.cumulative_sum(x, include_initial=True)", (x5,)),
    ("np.cumulative_prod", "lambda x: np.cumulative_prod(x)", (x5,)),
    ("np.nancumsum", "lambda x: np.nancumsum(x) + np.nancumprod(x)", (x5,)),
    ("np.std ddof keepdims", "lambda x: np.std(x, axis=1, ddof=1, keepdims=True)", (x34,)),
    ("np.mean where", "lambda x: np.mean(x, where=x > 0)", (x34,)),
    ("np.sum initial", "lambda x: np.sum(x, axis=0, initial=1.0)", (x34,)),
    ("np.max initial where", "lambda x: np.max(x, initial=-5.0, where=x < 0.5)", (x5,)),
    ("np.sort", "lambda x: np.sort(x, axis=0)", (x34,)),
    ("take_along_axis", "lambda x: np.take_along_axis(x, np.argsort(x, axis=1), axis=1)", (x34,)),
    ("put_along_axis", "lambda x, v: (lambda y: (np.put_along_axis(y, np.array([[0], [2], [1]]), v, axis=1), y)[1])(x.copy())",
     (x34, x5[:3].reshape(3, 1))),
    ("np.linspace array", "lambda a, b: np.linspace(a, b, 4)", (x5[:2], p5[:2] + 1.0)),
    ("np.geomspace", "lambda a: np.geomspace(a, 10.0, 4)", (1.5,)),
    ("np.logspace", "lambda a: np.logspace(a, 1.0, 4)", (0.3,)),
    ("np.histogram weights", "lambda w: np.histogram(x5, bins=3, weights=w)[0]", (p5,)),
    ("np.histogram2d weights", "lambda w: np.histogram2d(x5, p5, bins=2, weights=w)[0]", (p5,)),
    ("np.digitize", "lambda x: x * np.digitize(x, [0.0, 0.5])", (x5,)),
    ("np.searchsorted", "lambda x: x * np.searchsorted(np.sort(x), 0.1)", (x5,)),
    ("np.cov aweights", "lambda x, w: np.cov(x, aweights=w)", (x34, p5[:4])),
    ("np.cov rowvar", "lambda x: np.cov(x, rowvar=False, ddof=0)", (x34,)),
    ("np.histogram_bin_edges", "lambda x: np.histogram_bin_edges(x, bins=3)", (x5,)),
    ("np.apply_along_axis", "lambda x: np.apply_along_axis(lambda r: r * r.sum(), 1, x)", (x34,)),
    ("np.vectorize", "lambda x: np.vectorize(lambda v: v * v if v > 0 else -v)(x)", (x5,)),
    ("np.frompyfunc", "lambda x: np.frompyfunc(lambda v: v * 2.0, 1, 1)(x).astype(float)", (x5,)),
    ("np.piecewise", "lambda x: np.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v * v])", (x5,)),
    ("np.linalg.multi_dot", "lambda a, b: np.linalg.multi_dot([a, b, a])", (A3, S3)),
    ("np.matvec", "lambda a, v: np.matvec(a, v)", (B23, x5[:3])),
    ("np.vecmat", "lambda v, a: np.vecmat(v, a)", (x5[:3], B23)),
    ("np.convolve same", "lambda a, b: np.convolve(a, b, mode='same')", (x5, p5[:3])),
    ("np.correlate full", "lambda a, b: np.correlate(a, b, 'full')", (x5, p5[:3])),
    ("np.interp left right", "lambda x, fp: np.interp(x, [0.0, 0.5, 1.0], fp, left=0.0, right=fp[-1])", (x5, p5[:3])),
    ("np.gradient spacing", "lambda f: np.gradient(f, 0.5, edge_order=2)", (x5,)),
    ("np.trapezoid x", "lambda y, x: np.trapezoid(y, x=x)", (x5, np.cumsum(p5))),
    ("np.nanpercentile", "lambda x: np.nanpercentile(x, [25, 75])", (x5,)),
    ("np.nanquantile", "lambda x: np.nanquantile(x, 0.3, axis=1)", (x34,)),
    ("np.round", "lambda x: np.round(x, 2) * x", (x5,)),
    ("np.isclose", "lambda x: np.where(np.isclose(x, 0.0, atol=0.01), 0.0, x)", (x5,)),
    ("np.errstate", "lambda x: (lambda: None)() or np.log(np.abs(x))", (x5,)),
    # ---------------------------------------------------------------- scipy.special everyday
    ("sp.logit", "lambda p: sp.logit(p)", (p5,)),
    ("sp.expit", "lambda x: sp.expit(x)", (x5,)),
    ("sp.log_expit", "lambda x: sp.log_expit(x)", (x5,)),
    ("sp.xlogy", "lambda x, y: sp.xlogy(x, y)", (x5, p5)),
    ("sp.xlog1py", "lambda x, y: sp.xlog1py(x, y)", (x5, p5)),
    ("sp.erfcx", "lambda x: sp.erfcx(x)", (x5,)),
    ("sp.erfinv", "lambda x: sp.erfinv(x)", (x5,)),
    ("sp.erfcinv", "lambda x: sp.erfcinv(p5)", (x5,)),
    ("sp.ndtr", "lambda x: sp.ndtr(x) + sp.log_ndtr(x)", (x5,)),
    ("sp.ndtri", "lambda p: sp.ndtri(p)", (p5,)),
    ("sp.ndtri_exp", "lambda y: sp.ndtri_exp(y)", (-p5,)),
    ("sp.softmax", "lambda x: sp.softmax(x, axis=1)", (x34,)),
    ("sp.log_softmax", "lambda x: sp.log_softmax(x, axis=0)", (x34,)),
    ("sp.logsumexp keepdims", "lambda x: sp.logsumexp(x, axis=1, keepdims=True)", (x34,)),
    ("sp.logsumexp return_sign", "lambda x: sp.logsumexp(x, b=np.array([1.0, -0.5, 1.0, 1.0]), return_sign=True)[0]", (x5[:4],)),
    ("sp.entr", "lambda p: sp.entr(p)", (p5,)),
    ("sp.rel_entr", "lambda p, q: sp.rel_entr(p, q)", (p5, p5[::-1])),
    ("sp.kl_div", "lambda p, q: sp.kl_div(p, q)", (p5, p5[::-1])),
    ("sp.huber", "lambda r: sp.huber(0.5, r)", (x5,)),
    ("sp.pseudo_huber", "lambda d, r: sp.pseudo_huber(d, r)", (p5, x5)),
    ("sp.gammaln", "lambda x: sp.gammaln(x) + sp.digamma(x) + sp.polygamma(1, x)", (p5 + 1.0,)),
    ("sp.beta betaln", "lambda a, b: sp.beta(a, b) + sp.betaln(a, b)", (p5 + 1.0, p5 + 0.5)),
    ("sp.i0e i1e k0 k1", "lambda x: sp.i0e(x) + sp.i1e(x) + sp.k0(x) + sp.k1(x) + sp.k0e(x) + sp.k1e(x)", (p5,)),
    ("sp.kv kve", "lambda x: sp.kv(1.5, x) + sp.kve(0.5, x)", (p5,)),
    ("sp.comb exact=False", "lambda n: sp.comb(n, 2.0)", (p5 + 3.0,)),
    ("sp.sinc? np.sinc", "lambda x: sp.spence(x)", (p5,)),
    ("sp.expn", "lambda x: sp.expn(2, x) + sp.exp1(x)", (p5,)),
    ("sp.boxcox", "lambda x, l: sp.boxcox(x, l) + sp.boxcox1p(x, l)", (p5, 0.3)),
    ("sp.ellipk ellipe", "lambda m: sp.ellipk(m) + sp.ellipe(m)", (p5,)),
    ("sp.chdtr", "lambda v, x: sp.chdtr(v, x)", (p5 + 1.0, p5 * 2.0)),
    ("sp.gdtr", "lambda a, b, x: sp.gdtr(a, b, x)", (p5 + 1.0, p5 + 0.5, p5 * 2.0)),
    ("sp.bdtr", "lambda p: sp.bdtr(3, 7, p)", (p5,)),
    ("sp.pdtr", "lambda m: sp.pdtr(3, m)", (p5 * 4.0,)),
    ("sp.stdtrit", "lambda p: sp.stdtrit(3.0, p)", (p5,)),
    ("sp.fdtr", "lambda x: sp.fdtr(2.0, 3.0, x)", (p5 * 3.0,)),
    ("sp.xlogy zero", "lambda y: sp.xlogy(0.0, y) + y", (p5,)),
    ("sp.sph_harm_y", "lambda t: np.real(sp.sph_harm_y(2, 1, t, 0.3))", (p5,)),
    ("sp.logsumexp axis None weights", "lambda x, b: sp.logsumexp(x, b=b)", (x34, p5[:4] + 0.5)),
    # ---------------------------------------------------------------- scipy.stats everyday
    ("st.norm.logpdf kw", "lambda x, m, s: st.norm.logpdf(x, loc=m, scale=s)", (x5, 0.1, 1.3)),
    ("st.t.logpdf df", "lambda x, df: st.t.logpdf(x, df)", (x5, 3.5)),
    ("st.t.cdf df", "lambda x, df: st.t.cdf(x, df)", (x5, 3.5)),
    ("st.chi2.sf df", "lambda x, df: st.chi2.sf(x, df)", (p5 * 3.0, 2.5)),
    ("st.gamma.logcdf a", "lambda x, a: st.gamma.logcdf(x, a)", (p5 * 3.0, 1.7)),
    ("st.beta.cdf a b", "lambda x, a, b: st.beta.cdf(x, a, b)", (p5, 2.0, 3.0)),
    ("st.beta.ppf a b", "lambda q, a, b: st.beta.ppf(q, a, b)", (p5, 2.0, 3.0)),
    ("st.mvn.cdf", "lambda x, m, c: st.multivariate_normal.cdf(x, m, c)", (x5[:2], p5[:2], np.array([[1.0, 0.3], [0.3, 2.0]]))),
    ("st.zscore", "lambda x: st.zscore(x)", (x5,)),
    ("st.pearsonr", "lambda x, y: st.pearsonr(x, y)[0]", (x5, p5)),
    ("st.spearmanr stat", "lambda x, y: x * st.spearmanr(x, y)[0]", (x5, p5)),
    ("st.entropy", "lambda p, q: st.entropy(p, q)", (p5, p5[::-1])),
    ("st.sem", "lambda x: st.sem(x)", (x5,)),
    ("st.skew kurtosis", "lambda x: st.skew(x) + st.kurtosis(x)", (x5,)),
    ("st.logistic.cdf", "lambda x: st.logistic.cdf(x, 0.1, 0.8)", (x5,)),
    ("st.lognorm.pdf", "lambda x, s: st.lognorm.pdf(x, s)", (p5, 0.7)),
    ("st.binom.logpmf p", "lambda p: st.binom.logpmf(3, 10, p)", (p5,)),
    ("st.nbinom.logpmf p", "lambda p: st.nbinom.logpmf(3, 5, p)", (p5,)),
    ("st.dirichlet.logpdf", "lambda a: st.dirichlet.logpdf(np.array([0.2, 0.3, 0.5]), a)", (p5[:3] + 1.0,)),  # (x on the simplex)
    ("st.norm.interval", "lambda s: st.norm.interval(0.9, 0.0, s)[1]", (1.3,)),
    ("st.expon.rvs seed", "lambda s: st.expon.rvs(scale=s, size=3, random_state=0)", (1.3,)),
    ("st.norm.fit", "lambda x: st.norm.fit(x)[1]", (x5,)),
    # ---------------------------------------------------------------- scipy.linalg everyday
    ("sl.solve assume_a", "lambda a, b: sl.solve(a, b, assume_a='pos')", (S3, x5[:3])),
    ("sl.cho_factor solve", "lambda a, b: sl.cho_solve(sl.cho_factor(a), b)", (S3, x5[:3])),
    ("sl.lu_factor solve", "lambda a, b: sl.lu_solve(sl.lu_factor(a), b)", (A3, x5[:3])),
    ("sl.expm", "lambda a: sl.expm(a * 0.3)", (A3,)),
    ("sl.sqrtm", "lambda a: sl.sqrtm(a)", (S3,)),
    ("sl.logm", "lambda a: sl.logm(a)", (S3,)),
    ("sl.det", "lambda a: sl.det(a)", (A3,)),
    ("sl.inv", "lambda a: sl.inv(a)", (A3,)),
    ("sl.eigh eigvals_only", "lambda a: sl.eigh(a, eigvals_only=True)", (S3,)),
    ("sl.eigh b", "lambda a, b: sl.eigh(a, b)[0]", (S3, S3 + 5.0 * np.eye(3))),
    ("sl.svd", "lambda a: sl.svd(a, compute_uv=False)", (x34,)),
    ("sl.qr economic", "lambda a: sl.qr(a, mode='economic')[1]", (x34.T,)),
    ("sl.solve_triangular", "lambda a, b: sl.solve_triangular(np.triu(a), b)", (A3, x5[:3])),
    ("sl.kron? block_diag", "lambda a, b: sl.block_diag(a, b)", (A3, x34)),
    ("sl.norm", "lambda a: sl.norm(a, 'fro')", (A3,)),
    ("sl.pinv", "lambda a: sl.pinv(a)", (x34,)),
    ("sl.lstsq", "lambda a, b: sl.lstsq(a, b)[0]", (x34.T, x5[:4])),
    ("sl.cosm sinm", "lambda a: sl.sinm(a * 0.3) + sl.coshm(a * 0.2) + sl.tanhm(a * 0.1)", (A3,)),
    ("sl.funm", "lambda a: sl.funm(a, np.exp)", (S3 * 0.1,)),
    ("sl.signm", "lambda a: sl.signm(a)", (S3,)),
    ("sl.solve_continuous_lyapunov", "lambda a, q: sl.solve_continuous_lyapunov(a, q)", (-S3, np.eye(3))),
    ("sl.solve_discrete_lyapunov", "lambda a, q: sl.solve_discrete_lyapunov(a, q)", (A3 * 0.1, np.eye(3))),
    ("sl.null_space", "lambda a: np.abs(sl.null_space(a)).sum()", (x34,)),
    ("sl.orth", "lambda a: np.abs(sl.orth(a)).sum()", (x34,)),
    ("sl.det batched", "lambda a: sl.det(a)", (B23,)),
    ("sl.toeplitz", "lambda c, r: sl.toeplitz(c, r)", (x5[:3], p5[:3])),
    # ---------------------------------------------------------------- Python
    ("math everyday", "lambda x: math.log1p(x) + math.expm1(x) + math.atan2(x, 2.0) + math.erf(x) + math.lgamma(x + 2)", (0.3,)),
    ("math.copysign fabs", "lambda x: math.copysign(x, -1.0) + math.fabs(x) + math.fmod(x, 0.2)", (0.37,)),
    ("math.isclose branch", "lambda x: x * 2.0 if math.isclose(x, 0.3) else x * 3.0", (0.37,)),
    ("sorted key", "lambda x: sorted(list(x), key=lambda v: -v)[0]", (x5,)),
    ("max key", "lambda x: max(list(x), key=abs)", (x5,)),
    ("min default", "lambda x: min(list(x), default=0.0)", (x5,)),
    ("sum generator", "lambda x: sum(v * v for v in x)", (x5,)),
    ("enumerate zip", "lambda x, y: sum(i * a * b for i, (a, b) in enumerate(zip(x, y)))", (x5, p5)),
    ("itertools.accumulate", "lambda x: list(itertools.accumulate(x, lambda a, b: a * b))[-1]", (x5,)),
    ("functools.reduce init", "lambda x: functools.reduce(lambda a, b: a + b * b, x, 1.0)", (x5,)),
    ("statistics.median", "lambda x: statistics.median(list(x))", (x5,)),
    ("statistics.variance", "lambda x: statistics.variance(list(x))", (x5,)),
    ("collections.Counter? OrderedDict", "lambda x: sum(collections.OrderedDict(a=x[0], b=x[1]).values())", (x5,)),
    ("dict comprehension", "lambda x: sum({i: v * v for i, v in enumerate(x)}.values())", (x5,)),
    ("complex abs", "lambda x: abs(complex(x, 2.0))", (0.3,)),
    ("divmod", "lambda x: divmod(x, 0.3)[1]", (0.77,)),
    ("round ndigits", "lambda x: round(x, 2) * x", (0.377,)),
    ("pow 3 args?", "lambda x: pow(x, 3)", (0.4,)),
]


def compile_case(src):
    fname = f"<everyday {next(_COUNTER)}>"
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
