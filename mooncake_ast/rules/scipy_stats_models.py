"""Plain-NumPy models of scipy.stats moment, variation, tmean, tvar, tstd, tsem and iqr, whose derivatives
stand for SciPy's (scipy_stats_wrapped.py differentiates them in place of the function SciPy's
`_axis_nan_policy` decorator wraps).

SciPy's own bodies go through the array-API layer (`array_namespace`, `xp_promote`, array-api-extra's
`apply_where`, `_xp_var` with its NaN masking), which changes from release to release and which tracing
would have to follow line by line; the statistics themselves are a few reductions.  Each model takes
SciPy's arguments (less the decorator's `keepdims` and `nan_policy`, which scipy_stats_wrapped handles)
and the rule compares its value with SciPy's on every call, refusing where they differ: a model that
does not follow an option is an error, never a wrong derivative.
"""
from __future__ import annotations

import numpy as np

# scipy.stats.iqr's named scales (SciPy's `_scale_conversions`): 2 sqrt(2) erfinv(1/2), the normal's IQR.
_NORMAL_IQR = 1.3489795003921634


def _floats(a):
    """a as an array of floats (SciPy promotes integers to float64; float32 stays float32)."""
    a = np.asarray(a)
    if not np.issubdtype(a.dtype, np.inexact):
        a = a.astype(np.float64)
    return a


def _flat(a, axis):
    """(a, axis) with axis=None meaning the flattened array."""
    if axis is None:
        return np.ravel(a), 0
    return a, axis


def _kept(a, limits, inclusive):
    """Where a lies within `limits` (None: everywhere; either limit may be None), as tmean & co. keep."""
    keep = np.ones(np.shape(a), dtype=bool)
    if limits is None:
        return keep
    lower, upper = limits
    lower_in, upper_in = inclusive
    if lower is not None:
        keep = keep & ((a >= lower) if lower_in else (a > lower))
    if upper is not None:
        keep = keep & ((a <= upper) if upper_in else (a < upper))
    return keep


def moment(a, order=1, axis=0, nan_policy="propagate", *, center=None, moment=None):
    if moment is not None:
        order = moment  # (the argument's old name, which SciPy still takes)
    a, axis = _flat(_floats(a), axis)
    orders = np.asarray(order)
    if orders.ndim:
        return np.stack([_moment(a, k, axis, center) for k in orders.tolist()])
    return _moment(a, order, axis, center)


def _moment(a, k, axis, center):
    """The k-th moment of a about center (None: the mean)."""
    if k == 0 or (k == 1 and center is None):
        return np.mean(np.zeros_like(a), axis=axis) + (1.0 if k == 0 else 0.0)
    c = np.mean(a, axis=axis, keepdims=True) if center is None else center
    return np.mean((a - c) ** k, axis=axis)


def variation(a, axis=0, nan_policy="propagate", ddof=0):
    a, axis = _flat(_floats(a), axis)
    return np.std(a, axis=axis, ddof=ddof) / np.mean(a, axis=axis)


def tmean(a, limits=None, inclusive=(True, True), axis=None):
    a = _floats(a)
    keep = _kept(a, limits, inclusive)
    return np.sum(np.where(keep, a, 0.0), axis=axis) / np.sum(keep, axis=axis)


def tvar(a, limits=None, inclusive=(True, True), axis=0, ddof=1):
    a, axis = _flat(_floats(a), axis)
    keep = _kept(a, limits, inclusive)
    n = np.sum(keep, axis=axis, keepdims=True)
    mean = np.sum(np.where(keep, a, 0.0), axis=axis, keepdims=True) / n
    dev = np.where(keep, a - mean, 0.0)
    return np.sum(dev * dev, axis=axis) / (np.sum(keep, axis=axis) - ddof)


def tstd(a, limits=None, inclusive=(True, True), axis=0, ddof=1):
    return np.sqrt(tvar(a, limits, inclusive, axis, ddof))


def tsem(a, limits=None, inclusive=(True, True), axis=0, ddof=1):
    a, axis = _flat(_floats(a), axis)
    n = np.sum(_kept(a, limits, inclusive), axis=axis)
    return np.sqrt(tvar(a, limits, inclusive, axis, ddof) / n)


def iqr(x, axis=None, rng=(25, 75), scale=1.0, nan_policy="propagate", interpolation="linear", keepdims=False):
    # (keepdims, given by position: the rule reshapes the derivative to the value's shape)
    x = _floats(x)
    if isinstance(scale, str):
        scale = {"normal": _NORMAL_IQR}[scale.lower()]
    lo, hi = min(rng), max(rng)
    q = np.percentile(x, [lo, hi], axis=axis, method=interpolation)
    out = q[1] - q[0]
    return out / scale if scale != 1.0 else out


MODELS = {f.__name__: f for f in (moment, variation, tmean, tvar, tstd, tsem, iqr)}
