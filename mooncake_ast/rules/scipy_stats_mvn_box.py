"""`scipy.stats.multivariate_normal.cdf(x, ..., lower_limit=l)` (and `.logcdf`), the probability of the box
l < X <= x, in x, l, mean and cov (issue 12), both modes; called by scipy_stats_mvn_cdf.py's helpers when
lower_limit= is given.

SciPy integrates the box as a signed integral (a coordinate with l_i > x_i counts negatively), which is
the inclusion-exclusion sum over the box's corners of the lower-orthant probability F:

    P = sum over corners c (c_i = x_i or l_i)  (-1)^(number of l_i taken) F(c - mean)

so its derivative is the same sum of F's derivatives (scipy_stats_mvn_cdf._parts: gradient and Hessian,
the Hessian carrying the covariance's part): a coordinate of the corner taken from x moves with dx, one
taken from l with dl, every one against dmean.  A corner with an infinite lower limit contributes 0 (F
vanishes there), so l_i = -inf is the orthant in that coordinate.  Refused: an infinite x.  2^d corners:
meant for the few dimensions SciPy's box integration is used for.
"""
from __future__ import annotations

import itertools

import numpy as np


def _corners(zn, ln):
    """(sign, corner point, which coordinates come from the lower limit) of one box, finite corners only."""
    if not np.all(np.isfinite(zn)):
        raise NotImplementedError("derivative of scipy.stats.multivariate_normal.cdf with lower_limit= and an "
                                  "infinite x")
    d = len(zn)
    for low in itertools.product((False, True), repeat=d):
        low = np.array(low)
        if np.any(low & ~np.isfinite(ln)):
            continue  # (F is 0 on a corner at -inf)
        yield (-1.0) ** int(low.sum()), np.where(low, ln, zn), low


def _lower(lower, x, mean_a, d, xshape):
    return (np.broadcast_to(np.asarray(lower, dtype=float), np.shape(x)).reshape(xshape) - mean_a).reshape(-1, d)


def box_tangent(z, S, lz, dz, dlz, dS):
    """The tangent of the box probability at each point (z: x - mean, lz: l - mean, one row a point)."""
    from .scipy_stats_mvn_cdf import _parts

    out = np.zeros(len(z))
    for n in range(len(z)):
        for sign, c, low in _corners(z[n], lz[n]):
            g, H = _parts(c, S)
            dc = np.where(low, dlz[n], dz[n])
            out[n] += sign * (g @ dc + (0.5 * np.sum(H * dS) if dS is not None else 0.0))
    return out


def box_adjoint_parts(z, S, lz, gb):
    """(adjoint of z per point, adjoint of lz per point, adjoint of S) for the result's adjoint gb per point."""
    from .scipy_stats_mvn_cdf import _parts

    d = S.shape[0]
    gz, gl, gS = np.zeros((len(z), d)), np.zeros((len(z), d)), np.zeros((d, d))
    for n in range(len(z)):
        for sign, c, low in _corners(z[n], lz[n]):
            g, H = _parts(c, S)
            w = sign * gb[n]
            gz[n] += np.where(low, 0.0, w * g)
            gl[n] += np.where(low, w * g, 0.0)
            gS += w * H
    return gz, gl, gS


def lower_adjoint(lower, gl, x, xshape):
    """The adjoint of lower_limit (summed back to its shape)."""
    from ..reverse.adjoints import unbroadcast

    full = gl.reshape(xshape).reshape(np.shape(x)) if np.shape(x) else np.sum(gl)
    return unbroadcast(np.asarray(full, dtype=float), np.asarray(lower, dtype=float)) if np.ndim(lower) \
        else float(np.sum(gl))
