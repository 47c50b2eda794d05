"""Shape parameters of scipy.stats distributions in their cdf (issue 12), used by scipy_stats (cdf, sf,
logcdf, logsf) and scipy_stats_more (ppf, isf).  On the standard variable z = (x - loc) / scale, closed forms:
    weibull_min  F = 1 - exp(-z^c)        dF/dc = exp(-z^c) z^c log z        (z > 0)
    weibull_max  F = exp(-u^c), u = -z    dF/dc = -exp(-u^c) u^c log u       (z < 0)
    lognorm      F = Phi(log z / s)       dF/ds = -phi(log z / s) log z / s^2 (z > 0)
and through the incomplete gamma and beta functions' derivatives in their parameters, which have none
(one quadrature per element: scipy_special_params.py):
    t            F = stdtr(df, z)                     dF/ddf = stdtr_ddf(df, z)
    chi2         F = P(df / 2, z / 2)                 dF/ddf = dP/da (df / 2, z / 2) / 2    (z > 0)
    gamma        F = P(a, z)                          dF/da = dP/da (a, z)                  (z > 0)
    invgamma     F = Q(a, 1 / z)                      dF/da = -dP/da (a, 1 / z)             (z > 0)
    beta         F = I_z(a, b)                        dF/da, dF/db = dI/da, dI/db           (0 < z < 1)
and 0 off the support.  A quantile q -> z0 (ppf, isf) moves with a shape parameter by -dF/dtheta / f at z0.
"""
from __future__ import annotations

import math

import numpy as np

CLOSED = {("weibull_min", 0), ("weibull_max", 0), ("lognorm", 0), ("t", 0), ("chi2", 0), ("gamma", 0), ("invgamma", 0),
          ("beta", 0), ("beta", 1)}  # (distribution, shape index)


def closed(dist, j) -> bool:
    return (dist, j) in CLOSED


def cdf_shape(dist, j, z, shapes):
    """d F(z; shapes) / d shapes[j] of the standard distribution, for (dist, j) in CLOSED."""
    z = np.asarray(z, dtype=float)
    if dist in ("t", "chi2", "gamma", "invgamma", "beta"):
        return _by_quadrature(dist, j, z, shapes)
    (c,) = shapes
    c = np.asarray(c, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        if dist in ("weibull_min", "weibull_max"):
            u = z if dist == "weibull_min" else -z
            pos = u > 0
            us = np.where(pos, u, 1.0)
            p = us ** c
            part = np.exp(-p) * p * np.log(us)
            return np.where(pos, part if dist == "weibull_min" else -part, 0.0)
        if dist == "lognorm":
            pos = z > 0
            w = np.log(np.where(pos, z, 1.0)) / c
            return np.where(pos, -np.exp(-0.5 * w * w) / math.sqrt(2.0 * math.pi) * w / c, 0.0)
    raise NotImplementedError(f"scipy.stats.{dist}: no closed-form cdf derivative in shape {j}")  # pragma: no cover


def _by_quadrature(dist, j, z, shapes):
    from . import scipy_special_params as sq

    if dist == "t":
        return sq.stdtr_ddf(shapes[0], z)
    if dist == "beta":
        a, b = shapes
        inside = (z > 0) & (z < 1)
        d = (sq.betainc_da if j == 0 else sq.betainc_db)(a, b, np.where(inside, z, 0.5))
        return np.where(inside, d, 0.0)
    pos = z > 0
    zp = np.where(pos, z, 1.0)
    with np.errstate(divide="ignore"):
        if dist == "chi2":
            d = 0.5 * np.asarray(sq.gammainc_da(np.multiply(shapes[0], 0.5), zp * 0.5))
        elif dist == "gamma":
            d = sq.gammainc_da(shapes[0], zp)
        else:  # invgamma
            d = -np.asarray(sq.gammainc_da(shapes[0], 1.0 / zp))
    return np.where(pos, d, 0.0)


def method_shape(dist, method, j, y, z, shapes):
    """d method / d shapes[j] for method cdf, sf, logcdf or logsf with value y."""
    d = cdf_shape(dist, j, z, shapes)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if method == "cdf":
            return d
        if method == "sf":
            return -d
        if method == "logcdf":
            return np.where(d == 0, 0.0, d / np.exp(y))
        return np.where(d == 0, 0.0, -d / np.exp(y))  # logsf


def quantile_shape(dist, j, y, loc, scale, shapes):
    """d ppf / d shapes[j] (isf the same) at the quantile y: -scale dF/dtheta(z0) / f(z0)."""
    import scipy.stats

    z0 = (np.asarray(y, dtype=float) - loc) / np.asarray(scale, dtype=float)
    dens = getattr(scipy.stats, dist).pdf(z0, *shapes)
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.asarray(scale, dtype=float) * cdf_shape(dist, j, z0, shapes) / dens
