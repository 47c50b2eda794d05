"""NumPy rules, both modes: median, percentile and quantile (nan-skipping ones too), every `method=` NumPy has.

A quantile of a slice is a weighted sum of two of its order statistics, with weights fixed by n, q and the method
(_position_weights): the derivative takes the same weights of the tangent (forward) and puts the adjoint on those
two entries (reverse).  Ties and the jumps of the discontinuous methods (lower, nearest, inverted_cdf, ...) take
the order np.argsort gives, as NumPy's own sort does.  Split from numpy_statistics.py."""
from __future__ import annotations

import functools

import numpy as np

from ..tangents import NoTangent
from .numpy_common import _bind, _inexact
from .numpy_extra import _dz, _number, _refuse_tangent, _refused, _zero, refuse_option
from .numpy_statistics import _axes, _out
from .registry import defjvp, defvjp

# ------------------------------------------------------------------ median, percentile, quantile
def _position_weights(n, qi, method):
    """[(rank, weight)] of the order statistics the quantile qi of n sorted values takes.

    Every method of np.quantile is a convex combination of two neighbouring order statistics whose weights depend
    on n, q and the method only (Hyndman and Fan's nine, lower/higher/nearest/midpoint): so the quantile of
    0, 1, ..., n-1 is the virtual position v itself, and its ranks and weights are floor(v) and v - floor(v).  Asked
    of NumPy's own np.quantile, this follows each method as the NumPy at hand defines it."""
    return _weights_at(int(n), float(qi), method)


@functools.lru_cache(maxsize=1024)
def _weights_at(n, qi, method):
    try:
        v = float(np.quantile(np.arange(n, dtype=float), qi, method=method))
    except (TypeError, ValueError) as e:
        raise NotImplementedError(f"derivative of a quantile with method={method!r}: {e}") from None
    lo = int(np.floor(v))
    frac = v - lo
    if frac < 1e-9:
        return ((lo, 1.0),)
    if frac > 1.0 - 1e-9:
        return ((min(lo + 1, n - 1), 1.0),)
    return ((lo, 1.0 - frac), (min(lo + 1, n - 1), frac))


def _order_statistics(a, q, axis, method, skip_nan=False):
    """The weights W (one array per q, each shaped like the flattened slices `flat`) with which the
    quantile is sum(W * flat) over the last axis, and how to move a's axes to and from that layout.
    skip_nan (np.nanquantile): each slice's quantile is of its entries that are not NaN (sorted first)."""
    if skip_nan:
        return _nan_order_statistics(a, q, axis, method)
    a = _inexact(a)
    ax = _axes(a.ndim, axis)
    last = tuple(range(a.ndim - len(ax), a.ndim))
    moved = np.moveaxis(a, ax, last)
    flat = moved.reshape(moved.shape[: moved.ndim - len(ax)] + (-1,))
    n = flat.shape[-1]
    order = np.argsort(flat, axis=-1, kind="stable")
    bad = np.any(np.isnan(flat), axis=-1)[..., None]  # NumPy returns nan there: so does the derivative
    positions = np.arange(n)
    weights = []
    for qi in np.asarray(q, dtype=float).reshape(-1):
        w = np.zeros(flat.shape)
        for rank, weight in _position_weights(n, qi, method):
            w = w + weight * (positions == order[..., rank:rank + 1])
        weights.append(np.where(bad, np.nan, w))
    return weights, moved.shape, ax, last


def _nan_order_statistics(a, q, axis, method):
    a = _inexact(a)
    ax = _axes(a.ndim, axis)
    last = tuple(range(a.ndim - len(ax), a.ndim))
    moved = np.moveaxis(a, ax, last)
    flat = moved.reshape(moved.shape[: moved.ndim - len(ax)] + (-1,))
    order = np.argsort(flat, axis=-1, kind="stable")  # (NaN sorts last)
    counts = np.sum(~np.isnan(flat), axis=-1)
    weights = []
    for qi in np.asarray(q, dtype=float).reshape(-1):
        w = np.zeros(flat.shape)
        for row in np.ndindex(*flat.shape[:-1]):
            if counts[row] == 0:
                w[row] = np.nan  # (an all-NaN slice: NumPy's result is NaN, and so is its derivative)
                continue
            for rank, weight in _position_weights(int(counts[row]), qi, method):
                w[row + (order[row + (rank,)],)] += weight
        weights.append(w)
    return weights, moved.shape, ax, last


def _quantile_args(name, out, overwrite_input, kw):
    refuse_option(name, "out=", out is not None)
    refuse_option(name, "overwrite_input=True (it reorders a)", overwrite_input)
    for key in kw:
        if key != "keepdims" and not (key == "weights" and kw[key] is None):
            raise NotImplementedError(f"derivative of {name} with {key}=")


def quantile_tangent(name, a, q, y, da, axis=None, out=None, overwrite_input=False, method="linear", **kw):
    _quantile_args(name, out, overwrite_input, kw)
    weights, mshape, ax, last = _order_statistics(a, q, axis, method, name.startswith("np.nan"))
    d = np.moveaxis(np.broadcast_to(_dz(a, da), np.shape(a)), ax, last).reshape(weights[0].shape if weights else (0,))
    parts = [np.sum(w * d, axis=-1) for w in weights]
    return _out(np.stack(parts) if parts else np.zeros(0), y)


def quantile_adjoint(name, a, q, y, g, axis=None, out=None, overwrite_input=False, method="linear", **kw):
    _quantile_args(name, out, overwrite_input, kw)
    if _zero(g):
        return NoTangent
    weights, mshape, ax, last = _order_statistics(a, q, axis, method, name.startswith("np.nan"))
    gq = np.asarray(g, dtype=float).reshape((len(weights),) + weights[0].shape[:-1])
    flat = sum(gq[i][..., None] * w for i, w in enumerate(weights))
    return _number(_out(np.moveaxis(np.asarray(flat).reshape(mshape), last, ax), a))


_MEDIAN = ("axis", "out", "overwrite_input", "keepdims")
_QUANTILE = ("axis", "out", "overwrite_input", "method", "keepdims")


def percent(q):
    return np.asarray(q, dtype=float) / 100.0


for _fn, _name in ((np.quantile, "np.quantile"), (np.percentile, "np.percentile"), (np.nanquantile, "np.nanquantile"),
                   (np.nanpercentile, "np.nanpercentile")):
    defjvp(_fn, lambda t, y, a, q, *p, _fn=_fn, _name=_name, **k: _quantile_jvp(t, _fn, _name, y, a, q, p, k))
    defvjp(_fn, lambda t, g, y, a, q, *p, _fn=_fn, _name=_name, **k: _quantile_vjp(t, _fn, _name, g, y, a, q, p, k))


def _quantile_q(t, fn, q):
    return t.call(percent, q) if fn in (np.percentile, np.nanpercentile) else q


def _quantile_jvp(t, fn, name, y, a, q, p, k):
    _refuse_tangent(t, name, "q", q)
    if t.d(a) is None:
        return None
    return t.call(quantile_tangent, name, a, _quantile_q(t, fn, q), y, t.d(a), **_bind(_QUANTILE, p, k))


def _quantile_vjp(t, fn, name, g, y, a, q, p, k):
    return (t.call(quantile_adjoint, name, a, _quantile_q(t, fn, q), y, g, **_bind(_QUANTILE, p, k)),
            _refused(t, g, name, "q", q)) + (None,) * len(p)


defjvp(np.median, lambda t, y, a, *p, **k: t.call(quantile_tangent, "np.median", a, 0.5, y, t.d(a), **_bind(_MEDIAN, p, k)) if t.d(a) is not None else None)
defvjp(np.median, lambda t, g, y, a, *p, **k: (t.call(quantile_adjoint, "np.median", a, 0.5, y, g, **_bind(_MEDIAN, p, k)),) + (None,) * len(p))


# ------------------------------------------------------------------ at second order
# quantile_tangent is `W(a, q) . da` and quantile_adjoint its transpose `W(a, q)^T g`: linear in da (g), and W moves
# with a only where the sort order changes (piecewise constant: no derivative).  Their own rules say so; traced,
# reverse mode reached the weights' np.quantile(arange(n), q) and refused "the derivative with respect to q" although q
# was a constant (`np.percentile(A, 30, axis=1)` at second order).  A q differentiated by an outer derivative is
# refused as at first order.
def _nested_q(t, q, name):
    return _refuse_tangent(t, name, "q", q)


defjvp(quantile_tangent, lambda t, y, name, a, q, yq, da, **k: (
    _nested_q(t, q, name), t.call(quantile_tangent, name, a, q, yq, t.d(da), **k))[1] if t.d(da) is not None else
    _nested_q(t, q, name))
defvjp(quantile_tangent, lambda t, g, y, name, a, q, yq, da, **k: (
    None, None, _refused(t, g, name, "q", q), None, t.call(quantile_adjoint, name, a, q, yq, g, **k)))
defjvp(quantile_adjoint, lambda t, y, name, a, q, yq, g, **k: (
    _nested_q(t, q, name), t.call(quantile_adjoint, name, a, q, yq, t.d(g), **k))[1] if t.d(g) is not None else
    _nested_q(t, q, name))
defvjp(quantile_adjoint, lambda t, gbar, y, name, a, q, yq, g, **k: (
    None, None, _refused(t, gbar, name, "q", q), None, t.call(quantile_tangent, name, a, q, yq, gbar, **k)))
