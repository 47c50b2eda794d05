"""Rules of `scipy.stats` distributions (issue 12), both modes; registered once the user's code has
imported scipy.stats.

`scipy.stats.norm.logpdf` is a bound method of an instance of `norm_gen` (SciPy builds the
distribution objects and their methods at import, generated with `exec`: there is no source to
trace).  `registry.lookup` resolves a bound method through the type of its object, so the rules are
keyed `(norm_gen, "logpdf")`; a template's first operand is the distribution object.  Like SciPy's
other rules this module never imports SciPy: `registry.lookup` calls `register()` once
`scipy.stats` is in `sys.modules`.

Continuous distributions work on z = (x - loc) / scale.  With s(z) = d log f(z) / dz (the score of
the standard density, 0 outside the support; Laplace's kink at 0 takes slope 0):
    d logpdf / dx = s / scale,  d / dloc = -s / scale,  d / dscale = -(s z + 1) / scale,
and the shape parameters have closed forms through digamma.  cdf, logcdf, sf and logsf have
derivatives in x, loc and scale through the density, and in every shape parameter through
scipy_stats_shapes.py (closed forms for weibull's c and lognorm's s; a quadrature per element for the df
of t and chi2, the a of gamma and invgamma, the a and b of beta).  Poisson's pmf, logpmf, cdf, sf, logcdf and logsf are
differentiated in mu (k and loc move between integers: zero).  multivariate_normal.logpdf/pdf are differentiated in x,
mean and cov (a 2-D cov: its lower triangle, which SciPy reads; a 1-D cov: the diagonal; a number),
entropy in cov; a singular cov (allow_singular=True) is refused; cdf and logcdf in x, mean and cov:
scipy_stats_mvn_cdf.py.
"""
from __future__ import annotations

import math

import numpy as np

from ..tangents import NoTangent
from .scipy_special_more import RefusedAdjoint

# distribution -> names of its shape parameters (between x and loc, positionally)
CONTINUOUS = {"norm": (), "t": ("df",), "chi2": ("df",), "beta": ("a", "b"), "gamma": ("a",), "expon": (),
              "laplace": (), "lognorm": ("s",), "uniform": (), "cauchy": (), "logistic": (), "invgamma": ("a",),
              "halfnorm": (), "weibull_min": ("c",), "weibull_max": ("c",)}
METHODS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
DISCRETE = {"poisson": ("mu",)}
DISCRETE_METHODS = ("logpmf", "pmf", "cdf", "sf", "logcdf", "logsf")
DISCRETE_QUANTILES = ("ppf", "isf")
MULTIVARIATE = {"multivariate_normal": ("logpdf", "pdf", "entropy")}
FUNCTIONS = sorted([f"{d}.{m}" for d in CONTINUOUS for m in METHODS] + [f"{d}.{m}" for d in DISCRETE for m in DISCRETE_METHODS + DISCRETE_QUANTILES]
                   + [f"{d}.{m}" for d, ms in MULTIVARIATE.items() for m in ms]
                   + ["multivariate_normal.cdf", "multivariate_normal.logcdf"])  # (scipy_stats_mvn_cdf.py)
REGISTERED: dict = {}  # rule key -> its name in FUNCTIONS (empty until scipy.stats is imported)


def _special():
    import scipy.special

    return scipy.special


def _dist(name):
    import scipy.stats

    return getattr(scipy.stats, name)


def _real_only(what, *values):
    """Distributions are functions of real numbers: complex input is refused, never cast."""
    if any(np.iscomplexobj(v) for v in values if v is not None):
        raise NotImplementedError(f"derivative of scipy.stats.{what} with complex input is not supported")


def _scalar(out):
    return out[()] if isinstance(out, np.ndarray) and out.ndim == 0 else out


# ------------------------------------------------------------------ standard densities' scores
def _score(dist, z, shapes):
    """d log f(z) / dz of the standard density, 0 outside the support."""
    z = np.asarray(z, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        if dist == "norm":
            return -z
        if dist == "t":
            (nu,) = shapes
            return -(np.add(nu, 1.0)) * z / (np.add(nu, z * z))
        if dist == "laplace":
            return -np.sign(z)
        if dist == "expon":
            return np.where(z >= 0, -1.0, 0.0)
        if dist in ("gamma", "chi2"):
            a = shapes[0] if dist == "gamma" else np.multiply(shapes[0], 0.5)
            rate = 1.0 if dist == "gamma" else 0.5
            return np.where(z > 0, np.subtract(a, 1.0) / np.where(z > 0, z, 1.0) - rate, 0.0)
        if dist == "beta":
            a, b = shapes
            inside = (z > 0) & (z < 1)
            zs = np.where(inside, z, 0.5)
            return np.where(inside, np.subtract(a, 1.0) / zs - np.subtract(b, 1.0) / (1.0 - zs), 0.0)
        if dist == "weibull_max":  # log f = log c + (c - 1) log u - u^c, u = -z > 0
            (c,) = shapes
            neg = z < 0
            u = np.where(neg, -z, 1.0)
            return np.where(neg, -np.subtract(c, 1.0) / u + c * u ** np.subtract(c, 1.0), 0.0)
        pos = z > 0
        zp = np.where(pos, z, 1.0)
        if dist == "lognorm":  # log f = -log s - log z - log(z)^2 / (2 s^2)
            (sh,) = shapes
            return np.where(pos, -1.0 / zp - np.log(zp) / (np.square(sh) * zp), 0.0)
        if dist == "uniform":
            return np.zeros_like(z)
        if dist == "cauchy":
            return -2.0 * z / (1.0 + z * z)
        if dist == "logistic":
            return -np.tanh(z / 2.0)
        if dist == "invgamma":  # log f = -(a + 1) log z - 1 / z - gammaln(a)
            (a,) = shapes
            return np.where(pos, -np.add(a, 1.0) / zp + 1.0 / (zp * zp), 0.0)
        if dist == "halfnorm":
            return np.where(z >= 0, -z, 0.0)
        if dist == "weibull_min":  # log f = log c + (c - 1) log z - z^c
            (c,) = shapes
            return np.where(pos, np.subtract(c, 1.0) / zp - c * zp ** np.subtract(c, 1.0), 0.0)
    raise NotImplementedError(f"scipy.stats.{dist}: no rule")  # pragma: no cover  (every CONTINUOUS entry is above)


def _shape_score(dist, j, z, shapes):
    """d log f(z) / d shapes[j] of the standard density (closed forms through digamma), 0 outside the support."""
    sp = _special()
    z = np.asarray(z, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        if dist == "t":
            (nu,) = shapes
            q = z * z / nu
            return 0.5 * (sp.digamma(np.add(nu, 1.0) / 2.0) - sp.digamma(np.divide(nu, 2.0)) - 1.0 / np.asarray(nu)
                          - np.log1p(q)) + np.add(nu, 1.0) * z * z / (2.0 * np.multiply(nu, np.add(nu, z * z)))
        if dist == "chi2":
            (k,) = shapes
            pos = z > 0
            return np.where(pos, 0.5 * (np.log(np.where(pos, z, 1.0)) - math.log(2.0) - sp.digamma(np.divide(k, 2.0))), 0.0)
        if dist == "gamma":
            (a,) = shapes
            pos = z > 0
            return np.where(pos, np.log(np.where(pos, z, 1.0)) - sp.digamma(a), 0.0)
        if dist == "beta":
            a, b = shapes
            inside = (z > 0) & (z < 1)
            zs = np.where(inside, z, 0.5)
            both = sp.digamma(np.add(a, b))
            part = np.log(zs) - sp.digamma(a) + both if j == 0 else np.log1p(-zs) - sp.digamma(b) + both
            return np.where(inside, part, 0.0)
        if dist == "weibull_max":
            (c,) = shapes
            neg = z < 0
            u = np.where(neg, -z, 1.0)
            return np.where(neg, 1.0 / np.asarray(c) + np.log(u) - u ** c * np.log(u), 0.0)
        pos = z > 0
        lz = np.log(np.where(pos, z, 1.0))
        if dist == "lognorm":
            (sh,) = shapes
            return np.where(pos, -1.0 / np.asarray(sh) + lz * lz / np.power(sh, 3.0), 0.0)
        if dist == "invgamma":
            (a,) = shapes
            return np.where(pos, -lz - sp.digamma(a), 0.0)
        if dist == "weibull_min":
            (c,) = shapes
            return np.where(pos, 1.0 / np.asarray(c) + lz - np.where(pos, z, 1.0) ** c * lz, 0.0)
    raise NotImplementedError(f"scipy.stats.{dist}: no shape parameter {j}")  # pragma: no cover


# ------------------------------------------------------------------ partial derivatives
def _shape_message(dist, method, j):
    return (f"derivative of scipy.stats.{dist}.{method} with respect to its shape parameter "
            f"{CONTINUOUS[dist][j]!r} is not supported (no closed form); x, loc and scale are")


def refuse_shape(d, dist, method, j):
    """What a shape parameter of a cdf-like method contributes: nothing when its tangent (or the
    result's adjoint) is zero, otherwise a refusal (no closed form; a zero would be wrong)."""
    if d is NoTangent or d is None or not np.any(d):
        return NoTangent
    raise NotImplementedError(_shape_message(dist, method, j))


def refused_adjoint(g, dist, method, j):
    """Reverse mode's share of refuse_shape: a RefusedAdjoint, unless the result's adjoint is zero."""
    if g is NoTangent or g is None or not np.any(g):
        return NoTangent
    return RefusedAdjoint(_shape_message(dist, method, j))


def continuous_partial(dist, method, i, y, x, loc, scale, *shapes):
    """d method(x, *shapes, loc, scale) / d operand i, operands in the order (x, *shapes, loc, scale)."""
    _real_only(f"{dist}.{method}", x, loc, scale, *shapes)
    k = len(shapes)
    z = (np.asarray(x, dtype=float) - loc) / scale
    if method in ("logpdf", "pdf"):
        s = _score(dist, z, shapes)
        if i == 0:
            part = s / scale
        elif i <= k:
            part = _shape_score(dist, i - 1, z, shapes)
        elif i == k + 1:
            part = -s / scale
        else:
            part = -(s * z + 1.0) / np.asarray(scale, dtype=float)
        with np.errstate(invalid="ignore"):
            if method == "pdf":
                part = np.where(np.equal(y, 0), 0.0, y * part)
            else:  # outside the support logpdf is -inf whatever the operands: slope 0
                part = np.where(np.isneginf(y), 0.0, part)
        return _scalar(np.asarray(part, dtype=float))
    if 1 <= i <= k:
        from . import scipy_stats_shapes as closed

        if not closed.closed(dist, i - 1):
            raise NotImplementedError(_shape_message(dist, method, i - 1))
        return _scalar(np.asarray(closed.method_shape(dist, method, i - 1, y, z, shapes), dtype=float))
    logf = _dist(dist).logpdf(x, *shapes, loc, scale)
    with np.errstate(over="ignore", invalid="ignore"):
        if method == "cdf":
            dens = np.exp(logf)
        elif method == "sf":
            dens = -np.exp(logf)
        elif method == "logcdf":
            dens = np.exp(logf - y)
        else:  # logsf
            dens = -np.exp(logf - y)
    part = dens if i == 0 else (-dens if i == k + 1 else -dens * z)
    return _scalar(np.asarray(part, dtype=float))


def poisson_partial(method, y, k, mu, loc):
    """d logpmf / d mu = (k - loc) / mu - 1 on the support (0 off it); pmf: times the pmf.
    cdf(k) = sum of pmf(j) for j <= k, and d pmf(j) / d mu = pmf(j - 1) - pmf(j) telescopes:
    d cdf / d mu = -pmf(floor(k - loc)); sf = 1 - cdf; logcdf and logsf divide by cdf and sf."""
    _real_only(f"poisson.{method}", k, mu, loc)
    if method in ("cdf", "sf", "logcdf", "logsf"):
        with np.errstate(divide="ignore", invalid="ignore"):
            p = _dist("poisson").pmf(np.floor(np.subtract(k, loc)), mu)  # the last whole count at or below k - loc
            part = {"cdf": -p, "sf": p, "logcdf": -p / np.exp(y) if method == "logcdf" else 0.0,
                    "logsf": p / np.exp(y) if method == "logsf" else 0.0}[method]
            part = np.where(np.asarray(p) == 0, 0.0, part)
        return _scalar(np.asarray(part, dtype=float))
    n = np.subtract(k, loc)
    with np.errstate(divide="ignore", invalid="ignore"):
        part = np.where(np.isfinite(_dist("poisson").logpmf(k, mu, loc)), n / np.asarray(mu, dtype=float) - 1.0, 0.0)
        if method == "pmf":
            part = np.where(np.equal(y, 0), 0.0, y * part)
    return _scalar(part)


def _mvn_parts(x, mean, cov):
    """(r = x - mean with shape (..., d), C^-1 r, C^-1) for cov a 2-D matrix, or a constant SciPy expands
    (a number: times the identity; a vector: the diagonal).  C is cov's lower triangle, mirrored: the
    matrix SciPy uses."""
    x = np.asarray(x, dtype=float)
    d = x.shape[-1] if x.ndim else 1
    mean = np.zeros(d) if mean is None else np.asarray(mean, dtype=float)
    d = mean.shape[-1] if mean.ndim else 1
    if x.ndim == 0 or (d == 1 and x.shape[-1] != 1):
        x = x[..., None]  # a number, or a batch of numbers for a 1-D distribution
    cov = np.asarray(cov, dtype=float)
    c = cov * np.eye(d) if cov.ndim == 0 else (np.diag(cov) if cov.ndim == 1 else cov)
    c = np.tril(c) + np.tril(c, -1).T
    if np.linalg.matrix_rank(c) < d:
        raise NotImplementedError("derivative of scipy.stats.multivariate_normal with a singular covariance "
                                  "(allow_singular=True): the density drops to 0 off its support, so it has no "
                                  "derivative in the directions that leave it")
    inv = np.linalg.inv(c)
    r = x - mean
    return r, r @ inv.T, inv


def _lower_effective(dc):
    """The perturbation of the symmetric matrix SciPy builds from a perturbation of cov's storage."""
    return np.tril(dc) + np.tril(dc, -1).T


def _cov_tangent(cov, dcov):
    """The perturbation of the matrix SciPy uses from one of cov as given: a 2-D cov's lower
    triangle (mirrored), a 1-D cov's diagonal, a number times the identity."""
    dcov = np.asarray(dcov, dtype=float)
    if np.ndim(cov) == 2:
        return _lower_effective(dcov)
    return np.diag(dcov) if np.ndim(cov) == 1 else dcov


def mvn_tangent(method, y, x, mean, cov, dx, dmean, dcov):
    _real_only(f"multivariate_normal.{method}", x, mean, cov)
    r, sol, inv = _mvn_parts(x, mean, cov)
    out = np.zeros(r.shape[:-1])
    if dx is not NoTangent:
        out = out - np.sum(sol * np.reshape(np.broadcast_to(dx, np.shape(x)), r.shape), axis=-1)
    if dmean is not NoTangent:
        out = out + np.sum(sol * dmean, axis=-1)
    if dcov is not NoTangent:
        de = _cov_tangent(cov, dcov)
        if de.ndim == 0:
            de = de * np.eye(sol.shape[-1])
        out = out + 0.5 * np.einsum("...i,ij,...j->...", sol, de, sol) - 0.5 * np.sum(inv * de.T)
    out = np.reshape(out, np.shape(y))
    if method == "pdf":
        out = y * out
    return _scalar(out)


def mvn_adjoint(method, which, y, x, mean, cov, g):
    """The adjoint of x (which 0), mean (1) or cov (2) from the result's adjoint g."""
    from ..reverse.adjoints import unbroadcast

    if g is NoTangent or g is None:
        return NoTangent
    _real_only(f"multivariate_normal.{method}", x, mean, cov)
    r, sol, inv = _mvn_parts(x, mean, cov)
    gb = np.broadcast_to(np.asarray(g, dtype=float) * (np.asarray(y) if method == "pdf" else 1.0), np.shape(y))
    gb = np.reshape(gb, r.shape[:-1])
    if which == 0:
        return np.reshape(-gb[..., None] * sol, np.shape(x))
    if which == 1:
        return unbroadcast(gb[..., None] * sol, np.asarray(mean, dtype=float))
    d = sol.shape[-1]
    gs = 0.5 * np.einsum("n,ni,nj->ij", gb.reshape(-1), sol.reshape(-1, d), sol.reshape(-1, d)) - 0.5 * np.sum(gb) * inv.T
    if np.ndim(cov) == 1:
        return np.diag(gs).copy()
    if np.ndim(cov) == 0:
        return _scalar(np.trace(gs))
    return np.tril(gs + gs.T - np.diag(np.diag(gs)))  # d/d storage: SciPy reads the lower triangle only


# ------------------------------------------------------------------ templates
_ABSENT = object()


def _operands(names, args, kwargs, what):
    """The operands in the order `names`, from positional and keyword arguments (_ABSENT: not given)."""
    unknown = set(kwargs) - set(names)
    if unknown or len(args) > len(names):
        raise NotImplementedError(f"derivative of scipy.stats.{what} called with {sorted(unknown) or 'extra arguments'}")
    return [args[i] if i < len(args) else kwargs.get(n, _ABSENT) for i, n in enumerate(names)]


def _wants(t, op):
    needs = getattr(t, "needs", None)
    if op is _ABSENT:
        return False
    if needs is not None:
        return needs(op)
    v = getattr(op, "value", op)  # a run-time operand (eager.H)
    return not (isinstance(v, (str, bool, int, type(None), np.integer)) or (isinstance(v, np.ndarray) and v.dtype.kind not in "fc"))


def _reverse_result(t, names, args, kwargs, adjoints):
    """(None for the distribution object, adjoints of positional arguments, KwAdj of keyword ones)."""
    from .call_binding import KwAdj

    pos = [None] + [adjoints[i] for i in range(len(args))]
    named = {n: adjoints[i] for i, n in enumerate(names) if n in kwargs and adjoints[i] is not None}
    return tuple(pos) + ((KwAdj(named),) if named else ())


def _continuous_rule(dist, method):
    shapes = CONTINUOUS[dist]
    names = ("x", *shapes, "loc", "scale")
    defaults = {"loc": 0.0, "scale": 1.0}

    def values(ops):
        vals = [defaults.get(n) if op is _ABSENT else op for n, op in zip(names, ops)]
        x, shp, loc, scale = vals[0], vals[1:-2], vals[-2], vals[-1]
        return (x, loc, scale, *shp)

    from .scipy_stats_shapes import closed

    refused = [i for i in range(1, len(shapes) + 1) if not closed(dist, i - 1)] if method not in ("logpdf", "pdf") else ()

    def jvp(t, y, self, *args, **kwargs):
        ops = _operands(names, args, kwargs, f"{dist}.{method}")
        out = None
        for i, op in enumerate(ops):
            d = None if op is _ABSENT else t.d(op)
            if d is not None and i in refused:
                out = t.add(out, t.call(refuse_shape, d, dist, method, i - 1))
            elif d is not None:
                out = t.add(out, t.mul(d, t.call(continuous_partial, dist, method, i, y, *values(ops))))
        return out

    def vjp(t, g, y, self, *args, **kwargs):
        ops = _operands(names, args, kwargs, f"{dist}.{method}")
        adj = [None if not _wants(t, op) else t.call(refused_adjoint, g, dist, method, i - 1) if i in refused
               else t.unb(t.mul(g, t.call(continuous_partial, dist, method, i, y, *values(ops))), op)
               for i, op in enumerate(ops)]
        return _reverse_result(t, names, args, kwargs, adj)

    return jvp, vjp


def _poisson_rule(method):
    names = ("k", "mu", "loc")

    def jvp(t, y, self, *args, **kwargs):
        ops = _operands(names, args, kwargs, f"poisson.{method}")
        mu = ops[1]
        d = None if mu is _ABSENT else t.d(mu)
        loc = 0 if ops[2] is _ABSENT else ops[2]
        return None if d is None else t.mul(d, t.call(poisson_partial, method, y, ops[0], mu, loc))

    def vjp(t, g, y, self, *args, **kwargs):
        ops = _operands(names, args, kwargs, f"poisson.{method}")
        loc = 0 if ops[2] is _ABSENT else ops[2]
        adj = [None, t.unb(t.mul(g, t.call(poisson_partial, method, y, ops[0], ops[1], loc)), ops[1])
               if _wants(t, ops[1]) else None, None]
        return _reverse_result(t, names, args, kwargs, adj)

    return jvp, vjp


def mvn_entropy_tangent(mean, cov, dcov):
    """entropy = (d (log 2 pi + 1) + log det C) / 2: d entropy = tr(C^-1 dC) / 2 (the mean plays no part)."""
    _real_only("multivariate_normal.entropy", mean, cov)
    _, _, inv = _mvn_parts(np.zeros(_mvn_dim(mean, cov)), mean, cov)
    de = _cov_tangent(cov, dcov)
    if de.ndim == 0:
        de = de * np.eye(inv.shape[0])
    return float(0.5 * np.sum(inv * de.T))


def mvn_entropy_adjoint(mean, cov, g):
    if g is NoTangent or g is None:
        return NoTangent
    _real_only("multivariate_normal.entropy", mean, cov)
    _, _, inv = _mvn_parts(np.zeros(_mvn_dim(mean, cov)), mean, cov)
    gs = 0.5 * float(g) * inv.T
    if np.ndim(cov) == 1:
        return np.diag(gs).copy()
    if np.ndim(cov) == 0:
        return _scalar(np.trace(gs))
    return np.tril(gs + gs.T - np.diag(np.diag(gs)))


def _mvn_dim(mean, cov):
    if mean is not None and np.ndim(mean):
        return np.shape(mean)[-1]
    return np.shape(cov)[-1] if np.ndim(cov) else 1


def _mvn_entropy_rule():
    names = ("mean", "cov")

    def jvp(t, y, self, *args, **kwargs):
        ops = _operands(names, args, kwargs, "multivariate_normal.entropy")
        mean, cov = (None if o is _ABSENT else o for o in ops)
        if ops[1] is _ABSENT or t.d(ops[1]) is None:
            return None
        return t.call(mvn_entropy_tangent, mean, cov, t.dz(ops[1]))

    def vjp(t, g, y, self, *args, **kwargs):
        ops = _operands(names, args, kwargs, "multivariate_normal.entropy")
        mean, cov = (None if o is _ABSENT else o for o in ops)
        adj = [None, t.call(mvn_entropy_adjoint, mean, cov, g) if _wants(t, ops[1]) else None]
        return _reverse_result(t, names, args, kwargs, adj)

    return jvp, vjp


def _mvn_rule(method):
    names = ("x", "mean", "cov", "allow_singular")  # allow_singular: a flag (a singular cov is refused)

    def jvp(t, y, self, *args, **kwargs):
        ops = _operands(names, args, kwargs, f"multivariate_normal.{method}")[:3]
        x, mean, cov = (None if o is _ABSENT else o for o in ops)
        cov = 1.0 if cov is None else cov
        ds = [None if o is _ABSENT else t.d(o) for o in ops]
        if all(d is None for d in ds):
            return None
        return t.call(mvn_tangent, method, y, x, mean, cov, *(t.dz(o) if o is not _ABSENT else NoTangent for o in ops))

    def vjp(t, g, y, self, *args, **kwargs):
        ops = _operands(names, args, kwargs, f"multivariate_normal.{method}")[:3]
        x, mean, cov = (None if o is _ABSENT else o for o in ops)
        cov = 1.0 if cov is None else cov
        adj = [t.call(mvn_adjoint, method, i, y, x, mean, cov, g) if _wants(t, op) else None for i, op in enumerate(ops)]
        return _reverse_result(t, names, args, kwargs, adj + [None])

    return jvp, vjp


def register() -> None:
    """Register the rules (registry.lookup calls this once scipy.stats is imported)."""
    import sys

    from .registry import defjvp, defvjp

    stats = sys.modules["scipy.stats"]

    def add(dist, method, rule):
        key = (type(getattr(stats, dist)), method)
        jvp, vjp = rule
        defjvp(key, jvp)
        defvjp(key, vjp)
        REGISTERED[key] = f"{dist}.{method}"

    for dist in CONTINUOUS:
        for method in METHODS:
            add(dist, method, _continuous_rule(dist, method))
    for method in DISCRETE_METHODS:
        add("poisson", method, _poisson_rule(method))
    from .registry import defzero

    for method in DISCRETE_QUANTILES:  # (whole counts: steps in q and in mu, slope 0 between them)
        key = (type(stats.poisson), method)
        defzero(key)
        REGISTERED[key] = f"poisson.{method}"
    for method in MULTIVARIATE["multivariate_normal"]:
        add("multivariate_normal", method, _mvn_entropy_rule() if method == "entropy" else _mvn_rule(method))
    from . import scipy_stats_mvn_cdf

    for method in scipy_stats_mvn_cdf.METHODS:
        add("multivariate_normal", method, scipy_stats_mvn_cdf.rule(method))
    from . import scipy_stats_discrete

    for dist in scipy_stats_discrete.DISTS:
        for method in scipy_stats_discrete.METHODS:
            add(dist, method, scipy_stats_discrete.rule(dist, method))
    from . import scipy_stats_linregress, scipy_stats_moments, scipy_stats_more, scipy_stats_wrapped  # (issue 12)

    scipy_stats_more.register(stats)  # quantiles and frozen distributions
    scipy_stats_wrapped.register(stats)  # entropy, skew, kurtosis, the means, ...
    scipy_stats_linregress.register(stats)
    scipy_stats_moments.register(stats, REGISTERED)  # mean, median, var, std, entropy in loc and scale
    from . import scipy_stats_kde

    scipy_stats_kde.register(REGISTERED)  # gaussian_kde: making it, evaluate/pdf/logpdf/__call__ (issue 12)
    from . import scipy_stats_rvs

    scipy_stats_rvs.register(stats, REGISTERED)  # rvs of the continuous distributions, in loc and scale
    from . import scipy_stats_generic

    scipy_stats_generic.register(stats, REGISTERED)  # every other distribution, through its private formulas


from .scipy_stats_more import FUNCTIONS as _MORE  # noqa: E402  (quantiles, frozen distributions: issue 12)
from .scipy_stats_wrapped import FUNCTIONS as _WRAPPED  # noqa: E402  (entropy, skew, kurtosis, means: issue 12)

from .scipy_stats_linregress import FUNCTIONS as _LINREGRESS  # noqa: E402
from .scipy_stats_moments import FUNCTIONS as _MOMENTS  # noqa: E402
from .scipy_stats_kde import FUNCTIONS as _KDE  # noqa: E402
from .scipy_stats_discrete import FUNCTIONS as _DISCRETE  # noqa: E402  (binom, bernoulli, geom, nbinom)
from .scipy_stats_rvs import FUNCTIONS as _RVS  # noqa: E402
from .scipy_stats_generic import FUNCTIONS as _GENERIC  # noqa: E402

FUNCTIONS = sorted(FUNCTIONS + _MORE + _WRAPPED + _LINREGRESS + _MOMENTS + _KDE + _DISCRETE + _RVS + _GENERIC)
