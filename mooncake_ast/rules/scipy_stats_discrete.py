"""The binomial family of `scipy.stats` (issue 12): logpmf, pmf, cdf, sf, logcdf, logsf of binom, bernoulli, geom
and nbinom, differentiated in their probability p (and nbinom's n, which may be any positive number), both
modes; registered by scipy_stats.register() once scipy.stats is imported.  k, binom's n and loc move between
whole numbers: slope 0.  With j = k - loc (floored for the cdf-like methods) on the support:
    binom     d logpmf/dp = j/p - (n-j)/(1-p)      cdf = I_(1-p)(n - j, j + 1)   (scipy.special.bdtr)
    bernoulli binom with n = 1
    geom      d logpmf/dp = 1/p - (j-1)/(1-p)      cdf = 1 - (1-p)^j:  d/dp = j (1-p)^(j-1)
    nbinom    d logpmf/dp = n/p - j/(1-p),  d logpmf/dn = psi(j+n) - psi(n) + log p
              cdf = I_p(n, j + 1): d/dp in closed form, d/dn by quadrature (scipy_special_params.py)
pmf = e^logpmf, sf = 1 - cdf, logcdf = log cdf, logsf = log sf.  Off the support: slope 0.
"""
from __future__ import annotations

import numpy as np

DISTS = {"binom": ("k", "n", "p", "loc"), "bernoulli": ("k", "p", "loc"), "geom": ("k", "p", "loc"),
         "nbinom": ("k", "n", "p", "loc")}
METHODS = ("logpmf", "pmf", "cdf", "sf", "logcdf", "logsf")
DIFFERENTIABLE = {"binom": ("p",), "bernoulli": ("p",), "geom": ("p",), "nbinom": ("n", "p")}
FUNCTIONS = sorted(f"{d}.{m}" for d in DISTS for m in METHODS)


def _vals(dist, ops):
    """(j, n, p) as float arrays from the operands in DISTS order (loc default 0)."""
    names = DISTS[dist]
    v = dict(zip(names, ops))
    loc = 0.0 if v.get("loc") is None else v["loc"]
    j = np.asarray(v["k"], dtype=float) - np.asarray(loc, dtype=float)
    n = np.asarray(v.get("n", 1.0), dtype=float)
    return j, n, np.asarray(v["p"], dtype=float)


def _logpmf_partial(dist, name, j, n, p):
    sp = _special()
    with np.errstate(divide="ignore", invalid="ignore"):
        if dist in ("binom", "bernoulli"):
            ok = (j >= 0) & (j <= n) & (j == np.floor(j))
            part = j / p - (n - j) / (1.0 - p)
            part = np.where(j == 0, -(n - j) / (1.0 - p), np.where(j == n, j / p, part))
        elif dist == "geom":
            ok = (j >= 1) & (j == np.floor(j))
            part = np.where(j == 1, 1.0 / p, 1.0 / p - (j - 1.0) / (1.0 - p))
        elif name == "p":  # nbinom
            ok = (j >= 0) & (j == np.floor(j))
            part = np.where(j == 0, n / p, n / p - j / (1.0 - p))
        else:
            ok = (j >= 0) & (j == np.floor(j))
            part = sp.digamma(j + n) - sp.digamma(n) + np.log(p)
    return np.where(ok, part, 0.0)


def _cdf_partial(dist, name, j, n, p):
    """d cdf / d (p or n) at floor(j)."""
    from .scipy_special_more import betainc_dx
    from .scipy_special_params import betainc_da

    jj = np.floor(j)
    with np.errstate(divide="ignore", invalid="ignore"):
        if dist in ("binom", "bernoulli"):
            inside = (jj >= 0) & (jj < n)
            a, b = np.where(inside, n - jj, 1.0), np.where(inside, jj + 1.0, 1.0)
            return np.where(inside, -np.asarray(betainc_dx(a, b, 1.0 - p)), 0.0)
        if dist == "geom":
            inside = jj >= 1
            return np.where(inside, jj * (1.0 - p) ** np.where(inside, jj - 1.0, 0.0), 0.0)
        inside = jj >= 0  # nbinom: I_p(n, jj + 1)
        b = np.where(inside, jj + 1.0, 1.0)
        d = betainc_dx(n, b, p) if name == "p" else betainc_da(n, b, p)
        return np.where(inside, np.asarray(d), 0.0)


def _special():
    import scipy.special

    return scipy.special


def discrete_partial(dist, method, name, y, *ops):
    """d method / d the parameter `name` (p, or nbinom's n) at the operands (DISTS order)."""
    from .scipy_stats import _real_only, _scalar

    _real_only(f"{dist}.{method}", *[o for o in ops if o is not None])
    j, n, p = _vals(dist, ops)
    y = np.asarray(y, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if method in ("logpmf", "pmf"):
            part = _logpmf_partial(dist, name, j, n, p)
            part = np.where(np.isneginf(y), 0.0, part) if method == "logpmf" else np.where(y == 0, 0.0, y * part)
        else:
            d = _cdf_partial(dist, name, j, n, p)
            part = {"cdf": d, "sf": -d, "logcdf": np.where(d == 0, 0.0, d / np.exp(y)),
                    "logsf": np.where(d == 0, 0.0, -d / np.exp(y))}[method]
    return _scalar(np.asarray(part, dtype=float))


def rule(dist, method):
    from .scipy_stats import _ABSENT, _operands, _reverse_result, _wants

    names = DISTS[dist]
    wanted = DIFFERENTIABLE[dist]

    def values(ops):
        return [None if o is _ABSENT else o for o in ops]

    def jvp(t, y, self, *args, **kwargs):
        ops = _operands(names, args, kwargs, f"{dist}.{method}")
        out = None
        for nm, op in zip(names, ops):
            if nm in wanted and op is not _ABSENT and t.d(op) is not None:
                out = t.add(out, t.mul(t.d(op), t.call(discrete_partial, dist, method, nm, y, *values(ops))))
        return out

    def vjp(t, g, y, self, *args, **kwargs):
        ops = _operands(names, args, kwargs, f"{dist}.{method}")
        adj = [t.unb(t.mul(g, t.call(discrete_partial, dist, method, nm, y, *values(ops))), op)
               if nm in wanted and _wants(t, op) else None for nm, op in zip(names, ops)]
        return _reverse_result(t, names, args, kwargs, adj)

    return jvp, vjp

