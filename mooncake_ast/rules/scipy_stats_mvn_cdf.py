"""`scipy.stats.multivariate_normal.cdf` and `.logcdf` (issue 12), both modes, in x, mean and cov; registered
by scipy_stats.register() once scipy.stats is imported (no SciPy import here).

With z = x - mean and S the covariance SciPy integrates with, F(z) = P(Z <= z), Z ~ N(0, S):
    dF/dz_i  = phi(z_i; S_ii) F_(d-1)(z_-i - S_-i,i z_i / S_ii; S_-i,-i - S_-i,i S_i,-i / S_ii)   (the rest, given Z_i = z_i)
    H_ij     = d2F/dz_i dz_j = phi_2((z_i, z_j); S_ij,ij) F_(d-2)(the rest given Z_i = z_i, Z_j = z_j)  (i != j)
    H_ii     = -z_i / S_ii dF/dz_i - sum_(k != i) S_ki / S_ii H_ik
and, as for every Gaussian (the heat equation), dF = sum_i dF/dz_i dz_i + 1/2 sum_ij H_ij dS_ij.
The conditional probabilities are SciPy's own cdf of the smaller normal (exact up to 2 dimensions; in 3 and
more SciPy integrates by randomized quasi-Monte Carlo, to its abseps 1e-5, so from 4 dimensions on the
derivative carries that error too).  S is what SciPy reads of cov: in 2 dimensions its upper triangle
(SciPy's bivariate formula reads cov[0, 1]), in 3 and more its lower triangle (its pivoted Cholesky
factorization), a 1-D cov as the diagonal, a number times the identity; the adjoint of cov goes to the
entries read.  With lower_limit= (a box), the sum over its corners (scipy_stats_mvn_box.py), in lower_limit
too.  Refused: a singular cov, complex values.
"""
from __future__ import annotations

import math

import numpy as np

from ..tangents import NoTangent

METHODS = ("cdf", "logcdf")
NAMES = ("x", "mean", "cov", "allow_singular", "maxpts", "abseps", "releps")


def _stats():
    import scipy.stats

    return scipy.stats


def _effective(cov, d):
    """The matrix SciPy integrates with, from cov as given."""
    c = np.asarray(cov, dtype=float)
    if c.ndim == 0:
        return c * np.eye(d)
    if c.ndim == 1:
        return np.diag(c)
    if d == 2:
        return np.triu(c) + np.triu(c, 1).T
    return np.tril(c) + np.tril(c, -1).T


def _effective_tangent(cov, dcov, d):
    dcov = np.asarray(dcov, dtype=float)
    if np.ndim(cov) == 0:
        return dcov * np.eye(d)
    if np.ndim(cov) == 1:
        return np.diag(np.broadcast_to(dcov, (d,)))
    return _effective(dcov, d)


def _storage_adjoint(cov, H, d):
    """d F / d cov's storage, from dF = 1/2 sum_ij H_ij dS_ij."""
    if np.ndim(cov) == 0:
        return 0.5 * float(np.trace(H))
    if np.ndim(cov) == 1:
        return 0.5 * np.diag(H).copy()
    half = 0.5 * np.diag(np.diag(H))
    return half + (np.triu(H, 1) if d == 2 else np.tril(H, -1))


def _cdf(z, S):
    """P(Z <= z), Z ~ N(0, S), exact in 0 to 2 dimensions (SciPy's)."""
    k = len(z)
    if k == 0:
        return 1.0
    if k == 1:
        return float(_stats().norm.cdf(z[0] / math.sqrt(S[0, 0])))
    return float(_stats().multivariate_normal.cdf(z, np.zeros(k), S))


def _conditional(z, S, idx):
    """(the other coordinates' point and covariance given Z_idx = z_idx)."""
    rest = [k for k in range(len(z)) if k not in idx]
    Sii = S[np.ix_(idx, idx)]
    Sri = S[np.ix_(rest, idx)]
    w = np.linalg.solve(Sii, Sri.T).T  # S_ri S_ii^-1
    return z[rest] - w @ z[idx], S[np.ix_(rest, rest)] - w @ Sri.T


def _parts(z, S):
    """(gradient g, Hessian H) of F at one point z."""
    d = len(z)
    g = np.zeros(d)
    H = np.zeros((d, d))
    for i in range(d):
        zc, Sc = _conditional(z, S, [i])
        g[i] = math.exp(-0.5 * z[i] ** 2 / S[i, i]) / math.sqrt(2.0 * math.pi * S[i, i]) * _cdf(zc, Sc)
    for i in range(d):
        for j in range(i + 1, d):
            B = S[np.ix_([i, j], [i, j])]
            v = z[[i, j]]
            dens = math.exp(-0.5 * v @ np.linalg.solve(B, v)) / (2.0 * math.pi * math.sqrt(np.linalg.det(B)))
            zc, Sc = _conditional(z, S, [i, j])
            H[i, j] = H[j, i] = dens * _cdf(zc, Sc)
    for i in range(d):
        H[i, i] = -z[i] / S[i, i] * g[i] - sum(S[k, i] / S[i, i] * H[i, k] for k in range(d) if k != i)
    return g, H


def _setup(x, mean, cov, opts):
    from .scipy_stats import _real_only

    _real_only("multivariate_normal.cdf", x, mean, cov)
    mean_a = None if mean is None else np.asarray(mean, dtype=float)
    d = mean_a.shape[-1] if mean_a is not None and mean_a.ndim else (np.shape(cov)[-1] if np.ndim(cov) else 1)
    if mean_a is None or mean_a.ndim == 0:
        mean_a = np.zeros(d) + (0.0 if mean_a is None else mean_a)
    x = np.asarray(x, dtype=float)
    if x.ndim == 0 or (d == 1 and x.shape[-1] != 1):
        x = x[..., None]
    S = _effective(cov, d)
    if np.linalg.matrix_rank(S) < d:
        raise NotImplementedError("derivative of scipy.stats.multivariate_normal.cdf with a singular covariance")
    z = (x - mean_a).reshape(-1, d)
    return z, S, d, x.shape


def mvn_cdf_tangent(method, y, x, mean, cov, dx, dmean, dcov, opts, lower=None, dlower=NoTangent):
    z, S, d, xshape = _setup(x, mean, cov, opts)
    dS = None if dcov is NoTangent else _effective_tangent(cov, dcov, d)
    dz = np.zeros(xshape)
    if dx is not NoTangent:
        dz = dz + np.reshape(np.broadcast_to(dx, np.shape(x)), xshape) if np.shape(x) else dz + dx
    if dmean is not NoTangent:
        dz = dz - np.asarray(dmean, dtype=float)
    if lower is not None:
        from .scipy_stats_mvn_box import _lower, box_tangent

        dl = np.zeros(xshape) - (0.0 if dmean is NoTangent else np.asarray(dmean, dtype=float))
        if dlower is not NoTangent:
            dl = dl + np.reshape(np.broadcast_to(dlower, np.shape(x)), xshape) if np.shape(x) else dl + dlower
        out = box_tangent(z, S, _lower(lower, x, _mean(mean, d), d, xshape), np.broadcast_to(dz, xshape).reshape(-1, d),
                          np.broadcast_to(dl, xshape).reshape(-1, d), dS)
    else:
        dz = np.broadcast_to(dz, xshape).reshape(-1, d)
        out = np.zeros(len(z))
        for n, p in enumerate(z):
            g, H = _parts(p, S)
            out[n] = g @ dz[n] + (0.5 * np.sum(H * dS) if dS is not None else 0.0)
    out = out.reshape(np.shape(y))
    if method == "logcdf":
        out = out / np.exp(y)
    return out[()] if out.ndim == 0 else out


def _mean(mean, d):
    m = np.zeros(d) if mean is None else np.asarray(mean, dtype=float)
    return np.zeros(d) + m if m.ndim == 0 else m


def mvn_cdf_adjoint(method, which, y, x, mean, cov, g, opts, lower=None):
    """The adjoint of x (which 0), mean (1), cov (2) or lower_limit (3)."""
    from ..reverse.adjoints import unbroadcast

    if g is NoTangent or g is None:
        return NoTangent
    z, S, d, xshape = _setup(x, mean, cov, opts)
    gb = np.broadcast_to(np.asarray(g, dtype=float), np.shape(y)).reshape(-1)
    if method == "logcdf":
        gb = gb / np.exp(np.reshape(y, -1))
    gl = None
    if lower is not None:
        from .scipy_stats_mvn_box import _lower, box_adjoint_parts, lower_adjoint

        gz, gl, gS = box_adjoint_parts(z, S, _lower(lower, x, _mean(mean, d), d, xshape), gb)
        if which == 3:
            return lower_adjoint(lower, gl, x, xshape)
    else:
        gz = np.zeros((len(z), d))
        gS = np.zeros((d, d))
        for n, p in enumerate(z):
            gr, H = _parts(p, S)
            gz[n] = gb[n] * gr
            gS += gb[n] * H
    if which == 0:
        return np.reshape(gz, np.shape(x)) if np.ndim(x) else float(np.sum(gz))
    if which == 1:
        gm = gz if gl is None else gz + gl
        return unbroadcast(-gm.reshape(xshape), np.asarray(mean, dtype=float)) if np.ndim(mean) else float(-np.sum(gm))
    return _storage_adjoint(cov, gS, d)


def rule(method):
    from .scipy_stats import _ABSENT, _operands, _reverse_result, _wants

    def split(args, kwargs):
        kw = {k: v for k, v in kwargs.items() if k == "rng"}
        rest = {k: v for k, v in kwargs.items() if k not in kw and k != "lower_limit"}
        ops = _operands(NAMES, args, rest, f"multivariate_normal.{method}")
        return ops, kw

    def values(ops):
        x, mean, cov = (None if o is _ABSENT else o for o in ops[:3])
        return x, mean, 1.0 if cov is None else cov

    def jvp(t, y, self, *args, **kwargs):
        ops, kw = split(args, kwargs)
        lower = kwargs.get("lower_limit")
        dlower = None if lower is None else t.d(lower)
        if all(o is _ABSENT or t.d(o) is None for o in ops[:3]) and dlower is None:
            return None
        return t.call(mvn_cdf_tangent, method, y, *values(ops), *(t.dz(o) if o is not _ABSENT else NoTangent for o in ops[:3]),
                      kw, lower, NoTangent if dlower is None else t.dz(lower))

    def vjp(t, g, y, self, *args, **kwargs):
        from .registry import KwAdj

        ops, kw = split(args, kwargs)
        lower = kwargs.get("lower_limit")
        adj = [t.call(mvn_cdf_adjoint, method, i, y, *values(ops), g, kw, lower) if _wants(t, op) else None
               for i, op in enumerate(ops[:3])]
        out = _reverse_result(t, NAMES, args, {k: v for k, v in kwargs.items() if k in NAMES}, adj + [None] * 4)
        if lower is None or not _wants(t, lower):
            return out
        lbar = t.call(mvn_cdf_adjoint, method, 3, y, *values(ops), g, kw, lower)
        if out and isinstance(out[-1], KwAdj):
            return out[:-1] + (KwAdj({**out[-1], "lower_limit": lbar}),)
        return out + (KwAdj({"lower_limit": lbar}),)

    return jvp, vjp
