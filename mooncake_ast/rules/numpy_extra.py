"""NumPy rules, both modes: the rest of the NumPy that real code calls (issue 12).

    copies       np.append, hsplit/vsplit/dsplit, column_stack/row_stack/dstack, meshgrid, partition,
                 select, nan_to_num
    statistics   average, ptp, median/percentile/quantile, nansum/nanmean/nanmax/nanmin/nanvar/nanstd,
                 cov, corrcoef
    calculus     gradient, trapezoid (trapz), interp, convolve, correlate
    linalg       np.linalg.pinv, np.linalg.matrix_power

Functions that only copy entries (with repeats) share one reverse rule: the same function is run on
arrays of entry numbers, and each output entry's adjoint is added to the entry it was copied from
(`_copied_from`), so the adjoint is right for every axis, shape and broadcast those functions take.
Options a rule does not support raise NotImplementedError naming the option; so does a
differentiated operand whose derivative is not written (interp's xp, gradient's spacing, ...).

Conventions at non-differentiable points: ptp/nanmax/nanmin take the first position attaining the
extremum; median/quantile interpolate between the two order statistics NumPy does (ties: the entry
first in the array); interp's slope in x is the right-hand one (0 from xp[-1] on); nan_to_num's
replaced entries have slope 0.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent
from .registry import KwAdj
from .numpy_common import _bind, _in_storage, _inexact, _keep, _refuse_keywords, _split, _unb
from .numpy_reductions import extremum_adjoint, extremum_tangent, sum_adjoint
from .numpy_shapes import split_adjoint, split_tangent
from .registry import defjvp, defvjp


# ================================================================== shared helpers
def _zero(d):
    return d is None or d is NoTangent


def _dz(x, d):
    """x's tangent as a float (or complex) array shaped like x: symbolic zeros (also inside a list, and
    the zero of an integer operand) become zeros of x's shape."""
    if _zero(d):
        return np.zeros(np.shape(x), dtype=complex if np.iscomplexobj(x) else float)
    if isinstance(x, (list, tuple)) and isinstance(d, (list, tuple)):
        return np.array([_dz(xi, di) for xi, di in zip(x, d)])
    return np.broadcast_to(_inexact(d), np.shape(x)) if np.shape(d) != np.shape(x) else _inexact(d)


def _live(t, *xs):
    return any(t.d(x) is not None for x in xs)


def _nonzero(d):
    if _zero(d):
        return False
    if isinstance(d, (list, tuple)):
        return any(_nonzero(v) for v in d)
    return bool(np.any(np.asarray(d) != 0))


def unsupported_tangent(name, what, *tangents):
    """Forward mode: a tangent reaching an operand whose derivative is not written is refused."""
    if any(_nonzero(d) for d in tangents):
        raise NotImplementedError(f"derivative of {name} with respect to {what} is not supported")


def _refuse_tangent(t, name, what, *xs):
    live = [t.dz(x) for x in xs if t.d(x) is not None]
    if live:
        _keep(t.call(unsupported_tangent, name, what, *live))


def unsupported_adjoint(name, what, *values):
    from ..reverse.runtime import _nondifferentiable

    if not all(_nondifferentiable(v) for v in values):
        raise NotImplementedError(f"reverse mode of {name}: the derivative with respect to {what} is not supported")


def _refuse_adjoint(t, name, what, *xs):
    needs = getattr(t, "needs", None)
    live = [x for x in xs if needs is None or needs(x)]
    if live:
        _keep(t.call(unsupported_adjoint, name, what, *live))


def refuse_option(name, option, bad):
    if bad:
        raise NotImplementedError(f"derivative of {name} with {option}")


def _number(x):
    return float(x) if isinstance(x, (float, int, np.floating, np.integer)) and not isinstance(x, bool) else x


# ------------------------------------------------------------------ functions that copy entries
def _numbered(values):
    """Arrays numbering the entries of each value consecutively (shapes kept), and how many there are."""
    out, start = [], 0
    for v in values:
        n = int(np.size(v))
        out.append(np.arange(start, start + n).reshape(np.shape(v)))
        start += n
    return out, start


def _copied_from(outputs, adjoints, total, owners=()):
    """Add each output entry's adjoint onto the entry (a number from `_numbered`) it is a copy of.
    An adjoint that is a view of an operand's own adjoint storage is already counted there."""
    acc = np.zeros(total)
    for idx, g in zip(outputs, adjoints):
        if _zero(g) or any(isinstance(o, np.ndarray) and _in_storage(o, g) for o in owners):
            continue
        idx = np.asarray(idx)
        g = np.broadcast_to(np.asarray(g), idx.shape)
        acc += np.bincount(idx.reshape(-1), weights=g.reshape(-1), minlength=total)[:total]
    return acc


def _like(flat, v):
    """The part of a flat adjoint that belongs to operand v, shaped like v (numbers stay numbers)."""
    from ..reverse.adjoints import AdjList, AdjTuple

    if isinstance(v, np.ndarray):
        return flat.reshape(v.shape)
    if isinstance(v, (list, tuple)):
        parts, s = [], 0
        for e in v:
            k = int(np.size(e))
            parts.append(_like(flat[s:s + k], e))
            s += k
        return AdjList(parts) if isinstance(v, list) else AdjTuple(parts)
    return float(flat[0]) if flat.size else 0.0


def _spread(acc, values):
    out, s = [], 0
    for v in values:
        k = int(np.size(v))
        out.append(_like(acc[s:s + k], v))
        s += k
    return out


def _parts(g, n):
    if _zero(g):
        return [NoTangent] * n
    items = [NoTangent if v is None else v for v in list(g)]
    return items + [NoTangent] * (n - len(items))


# ================================================================== np.append
def append_tangent(arr, values, darr, dvalues, axis=None):
    return np.append(_dz(arr, darr), _dz(values, dvalues), axis=axis)


def append_adjoint(g, arr, values, axis=None):
    if _zero(g):
        return NoTangent, NoTangent
    (ia, iv), n = _numbered([arr, values])
    acc = _copied_from([np.append(ia, iv, axis=axis)], [g], n)
    return tuple(_spread(acc, [arr, values]))


defjvp(np.append, lambda t, y, arr, values, axis=None:
       t.call(append_tangent, arr, values, t.dz(arr), t.dz(values), axis) if _live(t, arr, values) else None)
defvjp(np.append, lambda t, g, y, arr, values, axis=None: _split(t, t.call(append_adjoint, g, arr, values, axis), 2) + (None,))


# ================================================================== joins of a sequence, meshgrid
def _seq(xs):
    return list(xs)


def seq_copy_tangent(fn, xs, dxs, *a, **k):
    dxs = [NoTangent] * len(_seq(xs)) if _zero(dxs) else list(dxs)
    return fn([_dz(x, d) for x, d in zip(_seq(xs), dxs)], *a, **k)


def seq_copy_adjoint(fn, g, xs, *a, **k):
    """The adjoint of fn(xs) for a join that copies entries: back through the entry numbers."""
    if _zero(g):
        return NoTangent
    items = _seq(xs)
    idx, n = _numbered(items)
    acc = _copied_from([fn(idx, *a, **k)], [g], n)
    if isinstance(xs, np.ndarray):
        return acc.reshape(xs.shape)
    return _like(acc, list(items) if isinstance(xs, list) else tuple(items))


_JOINS = [np.column_stack, np.dstack] + ([np.row_stack] if hasattr(np, "row_stack") else [])
for _fn in _JOINS:
    defjvp(_fn, lambda t, y, xs, *a, _fn=_fn, **k: t.call(seq_copy_tangent, _fn, xs, t.dz(xs), *a, **k) if t.d(xs) is not None else None)
    defvjp(_fn, lambda t, g, y, xs, *a, _fn=_fn, **k: (t.call(seq_copy_adjoint, _fn, g, xs, *a, **k),) + (None,) * len(a))


def meshgrid_tangent(n, *xs_dxs, **k):
    xs, dxs = xs_dxs[:n], xs_dxs[n:]
    return np.meshgrid(*[_dz(x, d) for x, d in zip(xs, dxs)], **k)


def meshgrid_adjoint(g, *xs, **k):
    refuse_option("np.meshgrid (reverse mode)", "copy=False: the grids are views of the inputs; use copy=True", not k.get("copy", True))
    if _zero(g):
        return tuple(NoTangent for _ in xs)
    idx, n = _numbered(xs)
    outs = np.meshgrid(*idx, **k)
    acc = _copied_from(outs, _parts(g, len(outs)), n, owners=xs)
    return tuple(_spread(acc, xs))


defjvp(np.meshgrid, lambda t, y, *xs, **k: t.call(meshgrid_tangent, len(xs), *xs, *[t.dz(x) for x in xs], **k) if _live(t, *xs) else None)
defvjp(np.meshgrid, lambda t, g, y, *xs, **k: _split(t, t.call(meshgrid_adjoint, g, *xs, **k), len(xs)))


# ================================================================== hsplit, vsplit, dsplit (views of x)
def split_axis(which, x):
    nd = np.ndim(x)
    return {"h": 1 if nd > 1 else 0, "v": 0, "d": 2}[which]


def nsplit_adjoint(which, x, g, ind):
    return split_adjoint(x, g, ind, axis=split_axis(which, x))


for _fn, _w in ((np.hsplit, "h"), (np.vsplit, "v"), (np.dsplit, "d")):
    defjvp(_fn, lambda t, y, x, ind, _fn=_fn: t.call(split_tangent, _fn, t.d(x), ind) if t.d(x) is not None else None)
    defvjp(_fn, lambda t, g, y, x, ind, _w=_w: (t.call(nsplit_adjoint, _w, x, g, ind), None))


# ================================================================== np.partition (a permutation along axis)
def _partition_perm(a, y, axis):
    """perm with y == take_along_axis(a, perm, axis): y's entries matched to a's by value (stable
    sorts of both), so it is right whatever arrangement NumPy chose away from the kth positions."""
    a = np.asarray(a)
    y = np.asarray(y)
    if axis is None:
        a, axis = a.reshape(-1), -1
    oa = np.argsort(a, axis=axis, kind="stable")
    oy = np.argsort(y, axis=axis, kind="stable")
    perm = np.empty_like(oa)
    np.put_along_axis(perm, oy, oa, axis=axis)
    return perm, axis


def partition_tangent(a, y, da, kth, axis=-1, kind="introselect", order=None):
    refuse_option("np.partition", "order=", order is not None)
    perm, ax = _partition_perm(a, y, axis)
    da = np.broadcast_to(_dz(a, da), np.shape(a))
    return np.take_along_axis(da.reshape(-1) if axis is None else da, perm, axis=ax)


def partition_adjoint(a, y, g, kth, axis=-1, kind="introselect", order=None):
    refuse_option("np.partition", "order=", order is not None)
    if _zero(g):
        return NoTangent
    perm, ax = _partition_perm(a, y, axis)
    out = np.zeros(perm.shape)
    np.put_along_axis(out, perm, np.asarray(g), axis=ax)
    return out.reshape(np.shape(a))


defjvp(np.partition, lambda t, y, a, kth, *p, **k: t.call(partition_tangent, a, y, t.d(a), kth, *p, **k) if t.d(a) is not None else None)
defvjp(np.partition, lambda t, g, y, a, kth, *p, **k: (t.call(partition_adjoint, a, y, g, kth, *p, **k), None) + (None,) * len(p))


# ================================================================== np.select
def select_tangent(condlist, choicelist, default, dchoices, ddefault):
    dchoices = [NoTangent] * len(choicelist) if _zero(dchoices) else list(dchoices)
    return np.select(condlist, [_dz(c, d) for c, d in zip(choicelist, dchoices)], _dz(default, ddefault))


def select_adjoint(g, condlist, choicelist, default=0):
    """Each entry's adjoint goes to the first choice whose condition holds there, else to default."""
    from ..reverse.adjoints import AdjList, AdjTuple

    if _zero(g):
        return NoTangent, NoTangent
    g = np.asarray(g)
    taken = np.zeros(g.shape, dtype=bool)
    outs = []
    for c, ch in zip(condlist, choicelist):
        m = np.broadcast_to(np.asarray(c, dtype=bool), g.shape) & ~taken
        outs.append(_number(_unb(np.where(m, g, 0.0), ch)))
        taken = taken | m
    dflt = _number(_unb(np.where(taken, 0.0, g), default))
    return (AdjList(outs) if isinstance(choicelist, list) else AdjTuple(outs)), dflt


def _select_vjp(t, g, condlist, choicelist, a, k):
    default = a[0] if a else k.get("default", 0)
    cbar, dbar = _split(t, t.call(select_adjoint, g, condlist, choicelist, default), 2)
    return (None, cbar) + ((dbar,) if a else ()) + ((KwAdj(default=dbar),) if "default" in k else ())


defjvp(np.select, lambda t, y, condlist, choicelist, default=0:
       t.call(select_tangent, condlist, choicelist, default, t.dz(choicelist), t.dz(default)) if _live(t, choicelist, default) else None)
defvjp(np.select, lambda t, g, y, condlist, choicelist, *a, **k: _select_vjp(t, g, condlist, choicelist, a, k))


# ================================================================== np.nan_to_num
def _finite_part(x, d):
    """d where x is finite, 0 where NumPy replaced x (real and imaginary parts apart, as NumPy does)."""
    x = np.asarray(x)
    if np.iscomplexobj(x):
        d = np.asarray(d) + 0j
        return np.where(np.isfinite(x.real), d.real, 0.0) + 1j * np.where(np.isfinite(x.imag), d.imag, 0.0)
    return np.where(np.isfinite(x), d, 0.0)


def nan_to_num_tangent(x, dx, copy=True):
    refuse_option("np.nan_to_num", "copy=False (it writes into x): use the default copy=True", not copy)
    out = _finite_part(x, np.broadcast_to(_dz(x, dx), np.shape(x)))
    return out[()] if out.ndim == 0 else out


def nan_to_num_adjoint(x, g, copy=True):
    refuse_option("np.nan_to_num", "copy=False (it writes into x): use the default copy=True", not copy)
    if _zero(g):
        return NoTangent
    return _number(_unb(_finite_part(x, np.asarray(g)), x))


def _nan_to_num_k(t, a, k):
    b = _bind(("copy", "nan", "posinf", "neginf"), a, k)
    return b.get("copy", True), [b[n] for n in ("nan", "posinf", "neginf") if n in b]


def _nan_to_num_jvp(t, x, a, k):
    copy, fills = _nan_to_num_k(t, a, k)
    _refuse_tangent(t, "np.nan_to_num", "its replacement values (nan=, posinf=, neginf=)", *fills)
    return t.call(nan_to_num_tangent, x, t.d(x), copy) if t.d(x) is not None else None


def _nan_to_num_vjp(t, g, x, a, k):
    copy, fills = _nan_to_num_k(t, a, k)
    _refuse_adjoint(t, "np.nan_to_num", "its replacement values (nan=, posinf=, neginf=)", *fills)
    return (t.call(nan_to_num_adjoint, x, g, copy),) + (None,) * len(a)


defjvp(np.nan_to_num, lambda t, y, x, *a, **k: _nan_to_num_jvp(t, x, a, k))
defvjp(np.nan_to_num, lambda t, g, y, x, *a, **k: _nan_to_num_vjp(t, g, x, a, k))


# ================================================================== statistics
def _axes(nd, axis):
    if axis is None:
        return tuple(range(nd))
    return tuple(int(a) % nd for a in ((axis,) if np.ndim(axis) == 0 else axis))


def _keep_shape(x, axis):
    """The shape of a reduction of x over axis with keepdims=True."""
    ax = _axes(np.ndim(x), axis)
    return tuple(1 if i in ax else n for i, n in enumerate(np.shape(x)))


def _as_kept(g, x, axis):
    """An adjoint of a reduction of x over axis, reshaped as if keepdims=True (to broadcast against x)."""
    return np.asarray(g).reshape(_keep_shape(x, axis))


def _out(v, like):
    """v shaped like the primal result `like` (a number if it is one)."""
    v = np.asarray(v).reshape(np.shape(like))
    return v[()] if v.ndim == 0 else v


# ------------------------------------------------------------------ np.average
_AVERAGE = ("axis", "weights", "returned")


def _average_weights(a, w, axis):
    """The weights broadcast against a, as np.average does (1-D weights along an int axis)."""
    a = np.asarray(a)
    w = np.asarray(w)
    if w.shape == a.shape:
        return w
    if axis is None or np.ndim(axis) != 0:
        raise NotImplementedError("derivative of np.average with weights shaped unlike a and a tuple axis")
    shape = [1] * a.ndim
    shape[int(axis) % a.ndim] = w.shape[0]
    return w.reshape(shape)


def average_tangent(a, y, da, dw, axis=None, weights=None, returned=False, keepdims=False):
    refuse_option("np.average", "returned=True", returned)
    a = _inexact(a)
    if weights is None:
        return _out(np.mean(np.broadcast_to(_dz(a, da), a.shape), axis=axis, keepdims=True), y)
    w = _average_weights(a, weights, axis)
    sw = np.sum(np.broadcast_to(w, a.shape), axis=axis, keepdims=True)
    out = 0.0
    if not _zero(da):
        out = out + np.sum(w * _dz(a, da), axis=axis, keepdims=True) / sw
    if not _zero(dw):
        yk = np.sum(a * w, axis=axis, keepdims=True) / sw
        out = out + np.sum((a - yk) * _average_weights(a, _dz(weights, dw), axis), axis=axis, keepdims=True) / sw
    return _out(np.broadcast_to(out, _keep_shape(a, axis)), y)


def average_adjoint(g, a, axis=None, weights=None, returned=False, keepdims=False):
    """(a's adjoint, the weights' adjoint)."""
    refuse_option("np.average", "returned=True", returned)
    if _zero(g):
        return NoTangent, NoTangent
    a = _inexact(a)
    gk = _as_kept(g, a, axis)
    if weights is None:
        return _number(mean_like(a, gk, axis)), NoTangent
    w = _average_weights(a, weights, axis)
    sw = np.sum(np.broadcast_to(w, a.shape), axis=axis, keepdims=True)
    yk = np.sum(a * w, axis=axis, keepdims=True) / sw
    abar = np.broadcast_to(gk * w / sw, a.shape)
    wbar = _unb(np.broadcast_to(gk * (a - yk) / sw, a.shape), w).reshape(np.shape(weights))
    return _number(abar.copy() if a.ndim else abar[()]), _number(wbar)


def mean_like(a, gk, axis):
    n = np.prod([np.shape(a)[i] for i in _axes(np.ndim(a), axis)])
    out = np.broadcast_to(gk / n, np.shape(a)).copy()
    return out[()] if out.ndim == 0 else out


def _average_jvp(t, y, a, p, k):
    b = _bind(_AVERAGE, p, k)
    w = b.get("weights")
    if t.d(a) is None and t.d(w) is None:
        return None
    kw = {n: b[n] for n in ("axis", "weights", "returned", "keepdims") if n in b}
    return t.call(average_tangent, a, y, t.dz(a), t.dz(w), **kw)


def _average_vjp(t, g, a, p, k):
    b = _bind(_AVERAGE, p, k)
    kw = {n: b[n] for n in ("axis", "weights", "returned", "keepdims") if n in b}
    abar, wbar = _split(t, t.call(average_adjoint, g, a, **kw), 2)
    named = (KwAdj(weights=wbar),) if "weights" in k else ()  # np.average(a, weights=w): w's adjoint by name
    return ((abar, None, wbar) + (None,) * 3)[:1 + len(p)] + named


defjvp(np.average, lambda t, y, a, *p, **k: _average_jvp(t, y, a, p, k))
defvjp(np.average, lambda t, g, y, a, *p, **k: _average_vjp(t, g, a, p, k))


# ------------------------------------------------------------------ np.ptp
def ptp_tangent(a, da, axis=None, out=None, keepdims=False):
    refuse_option("np.ptp", "out=", out is not None)
    hi, lo = np.max(a, axis=axis, keepdims=keepdims), np.min(a, axis=axis, keepdims=keepdims)
    da = _dz(a, da)
    return extremum_tangent(a, hi, da, axis, keepdims) - extremum_tangent(a, lo, da, axis, keepdims)


def ptp_adjoint(a, g, axis=None, out=None, keepdims=False):
    refuse_option("np.ptp", "out=", out is not None)
    if _zero(g):
        return NoTangent
    hi, lo = np.max(a, axis=axis, keepdims=keepdims), np.min(a, axis=axis, keepdims=keepdims)
    return _number(extremum_adjoint(a, hi, g, axis, keepdims) - extremum_adjoint(a, lo, g, axis, keepdims))


defjvp(np.ptp, lambda t, y, a, *p, **k: t.call(ptp_tangent, a, t.d(a), *p, **k) if t.d(a) is not None else None)
defvjp(np.ptp, lambda t, g, y, a, *p, **k: (t.call(ptp_adjoint, a, g, *p, **k),) + (None,) * len(p))


# ------------------------------------------------------------------ median, percentile, quantile
_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint")


def _order_statistics(a, q, axis, method):
    """The weights W (one array per q, each shaped like the flattened slices `flat`) with which the
    quantile is sum(W * flat) over the last axis, and how to move a's axes to and from that layout."""
    if method not in _QUANTILE_METHODS:
        raise NotImplementedError(f"derivative of a quantile with method={method!r}: only {', '.join(_QUANTILE_METHODS)}")
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
        vi = qi * (n - 1)
        lo = int(np.floor(vi))
        hi = min(lo + 1, n - 1)
        frac = vi - lo
        if method == "lower":
            frac = 0.0
        elif method == "higher":
            lo, frac = (int(np.ceil(vi)), 0.0)
        elif method == "midpoint":
            frac = 0.5 if vi != lo else 0.0
        w = (1.0 - frac) * (positions == order[..., lo:lo + 1])
        if frac:
            w = w + frac * (positions == order[..., hi:hi + 1])
        weights.append(np.where(bad, np.nan, w))
    return weights, moved.shape, ax, last


def _quantile_args(name, out, overwrite_input, kw):
    refuse_option(name, "out=", out is not None)
    refuse_option(name, "overwrite_input=True (it reorders a)", overwrite_input)
    for key in kw:
        if key != "keepdims" and not (key == "weights" and kw[key] is None):
            raise NotImplementedError(f"derivative of {name} with {key}=")


def quantile_tangent(name, a, q, y, da, axis=None, out=None, overwrite_input=False, method="linear", **kw):
    _quantile_args(name, out, overwrite_input, kw)
    weights, mshape, ax, last = _order_statistics(a, q, axis, method)
    d = np.moveaxis(np.broadcast_to(_dz(a, da), np.shape(a)), ax, last).reshape(weights[0].shape if weights else (0,))
    parts = [np.sum(w * d, axis=-1) for w in weights]
    return _out(np.stack(parts) if parts else np.zeros(0), y)


def quantile_adjoint(name, a, q, y, g, axis=None, out=None, overwrite_input=False, method="linear", **kw):
    _quantile_args(name, out, overwrite_input, kw)
    if _zero(g):
        return NoTangent
    weights, mshape, ax, last = _order_statistics(a, q, axis, method)
    gq = np.asarray(g, dtype=float).reshape((len(weights),) + weights[0].shape[:-1])
    flat = sum(gq[i][..., None] * w for i, w in enumerate(weights))
    return _number(_out(np.moveaxis(np.asarray(flat).reshape(mshape), last, ax), a))


_MEDIAN = ("axis", "out", "overwrite_input", "keepdims")
_QUANTILE = ("axis", "out", "overwrite_input", "method", "keepdims")


def percent(q):
    return np.asarray(q, dtype=float) / 100.0


for _fn, _name in ((np.quantile, "np.quantile"), (np.percentile, "np.percentile")):
    defjvp(_fn, lambda t, y, a, q, *p, _fn=_fn, _name=_name, **k: _quantile_jvp(t, _fn, _name, y, a, q, p, k))
    defvjp(_fn, lambda t, g, y, a, q, *p, _fn=_fn, _name=_name, **k: _quantile_vjp(t, _fn, _name, g, y, a, q, p, k))


def _quantile_q(t, fn, q):
    return t.call(percent, q) if fn is np.percentile else q


def _quantile_jvp(t, fn, name, y, a, q, p, k):
    _refuse_tangent(t, name, "q", q)
    if t.d(a) is None:
        return None
    return t.call(quantile_tangent, name, a, _quantile_q(t, fn, q), y, t.d(a), **_bind(_QUANTILE, p, k))


def _quantile_vjp(t, fn, name, g, y, a, q, p, k):
    _refuse_adjoint(t, name, "q", q)
    return (t.call(quantile_adjoint, name, a, _quantile_q(t, fn, q), y, g, **_bind(_QUANTILE, p, k)), None) + (None,) * len(p)


defjvp(np.median, lambda t, y, a, *p, **k: t.call(quantile_tangent, "np.median", a, 0.5, y, t.d(a), **_bind(_MEDIAN, p, k)) if t.d(a) is not None else None)
defvjp(np.median, lambda t, g, y, a, *p, **k: (t.call(quantile_adjoint, "np.median", a, 0.5, y, g, **_bind(_MEDIAN, p, k)),) + (None,) * len(p))


# ------------------------------------------------------------------ nansum, nanmean, nanmax, nanmin, nanvar, nanstd
def _nan_args(name, out=None, where=None, **kw):
    refuse_option(name, "out=", out is not None)
    refuse_option(name, "where=", where is not None)
    for key in kw:
        if key == "mean":
            raise NotImplementedError(f"derivative of {name} with mean=")


def _valid(a):
    a = np.asarray(a)
    return ~np.isnan(a) if a.dtype.kind in "fc" else np.ones(a.shape, dtype=bool)


def nansum_tangent(a, da, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    _nan_args("np.nansum", out, where)
    return np.sum(np.where(_valid(a), _dz(a, da), 0.0), axis=axis, keepdims=keepdims)


def nansum_adjoint(a, g, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    _nan_args("np.nansum", out, where)
    if _zero(g):
        return NoTangent
    return _number(_out(np.where(_valid(a), sum_adjoint(np.asarray(a), g, axis, keepdims), 0.0), a))


def nanmean_tangent(a, da, axis=None, dtype=None, out=None, keepdims=False, where=None):
    _nan_args("np.nanmean", out, where)
    v = _valid(a)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.sum(np.where(v, _dz(a, da), 0.0), axis=axis, keepdims=keepdims) / np.sum(v, axis=axis, keepdims=keepdims)


def nanmean_adjoint(a, g, axis=None, dtype=None, out=None, keepdims=False, where=None):
    _nan_args("np.nanmean", out, where)
    if _zero(g):
        return NoTangent
    v = _valid(a)
    with np.errstate(invalid="ignore", divide="ignore"):
        gk = _as_kept(g, a, axis) / np.sum(v, axis=axis, keepdims=True)
    return _number(_out(np.where(v, gk, 0.0), a))


def nanext_tangent(name, a, y, da, axis=None, out=None, keepdims=False, initial=None, where=None):
    _nan_args(name, out, where)
    refuse_option(name, "initial=", initial is not None)
    return extremum_tangent(a, y, np.broadcast_to(_dz(a, da), np.shape(a)), axis, keepdims)


def nanext_adjoint(name, a, y, g, axis=None, out=None, keepdims=False, initial=None, where=None):
    _nan_args(name, out, where)
    refuse_option(name, "initial=", initial is not None)
    if _zero(g):
        return NoTangent
    return _number(_out(extremum_adjoint(a, y, g, axis, keepdims), a))


def _nanvar_parts(a, axis, ddof, correction):
    ddof = correction if correction is not None else ddof
    a = _inexact(a)
    v = _valid(a)
    n = np.sum(v, axis=axis, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.sum(np.where(v, a, 0.0), axis=axis, keepdims=True) / n
        scale = 2.0 / (n - ddof)
    return v, np.where(v, a - mean, 0.0), scale


def nanvar_tangent(name, a, y, da, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None, correction=None):
    _nan_args(name, out, where, **({"mean": mean} if mean is not None else {}))
    v, centred, scale = _nanvar_parts(a, axis, ddof, correction)
    change = np.real(np.conj(centred) * _dz(a, da))  # |x - mean|^2 changes by 2 Re(conj(x - mean) dx)
    dvar = np.sum(scale * change, axis=axis, keepdims=keepdims)
    if name == "np.nanstd":
        with np.errstate(invalid="ignore", divide="ignore"):
            dvar = dvar / (2.0 * np.asarray(y))
    return dvar[()] if np.ndim(dvar) == 0 else dvar


def nanvar_adjoint(name, a, y, g, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None, correction=None):
    _nan_args(name, out, where, **({"mean": mean} if mean is not None else {}))
    if _zero(g):
        return NoTangent
    v, centred, scale = _nanvar_parts(a, axis, ddof, correction)
    gk = _as_kept(g, a, axis)
    if name == "np.nanstd":
        with np.errstate(invalid="ignore", divide="ignore"):
            gk = gk / (2.0 * _as_kept(y, a, axis))
    return _number(_out(scale * centred * gk, a))


defjvp(np.nansum, lambda t, y, a, *p, **k: t.call(nansum_tangent, a, t.d(a), *p, **k) if t.d(a) is not None else None)
defvjp(np.nansum, lambda t, g, y, a, *p, **k: (t.call(nansum_adjoint, a, g, *p, **k),) + (None,) * len(p))
defjvp(np.nanmean, lambda t, y, a, *p, **k: t.call(nanmean_tangent, a, t.d(a), *p, **k) if t.d(a) is not None else None)
defvjp(np.nanmean, lambda t, g, y, a, *p, **k: (t.call(nanmean_adjoint, a, g, *p, **k),) + (None,) * len(p))
for _fn, _name in ((np.nanmax, "np.nanmax"), (np.nanmin, "np.nanmin")):
    defjvp(_fn, lambda t, y, a, *p, _name=_name, **k: t.call(nanext_tangent, _name, a, y, t.d(a), *p, **k) if t.d(a) is not None else None)
    defvjp(_fn, lambda t, g, y, a, *p, _name=_name, **k: (t.call(nanext_adjoint, _name, a, y, g, *p, **k),) + (None,) * len(p))
for _fn, _name in ((np.nanvar, "np.nanvar"), (np.nanstd, "np.nanstd")):
    defjvp(_fn, lambda t, y, a, *p, _name=_name, **k: t.call(nanvar_tangent, _name, a, y, t.d(a), *p, **k) if t.d(a) is not None else None)
    defvjp(_fn, lambda t, g, y, a, *p, _name=_name, **k: (t.call(nanvar_adjoint, _name, a, y, g, *p, **k),) + (None,) * len(p))


# ------------------------------------------------------------------ np.cov, np.corrcoef
_COV = ("y", "rowvar", "bias", "ddof", "fweights", "aweights")


def _cov_layout(m, y, rowvar):
    """The variables-by-observations matrix np.cov builds from m (and y), and how many rows are m's."""
    m = np.asarray(m)
    X = np.array(m, ndmin=2, dtype=np.result_type(m, float))
    if not rowvar and m.ndim != 1:
        X = X.T
    rows = X.shape[0]
    if y is not None:
        Y = np.array(y, ndmin=2, dtype=np.result_type(np.asarray(y), float))
        if not rowvar and Y.shape[0] != 1:
            Y = Y.T
        X = np.concatenate((X, Y), axis=0)
    return X, rows


def _cov_parts(m, y, rowvar, bias, ddof, fweights, aweights, dtype=None):
    refuse_option("np.cov", "fweights= or aweights=", fweights is not None or aweights is not None)
    X, rows = _cov_layout(m, y, rowvar)
    if ddof is None:
        ddof = 0 if bias else 1
    Xc = X - X.mean(axis=1, keepdims=True)
    return X, Xc, rows, X.shape[1] - ddof


def _cov_change(m, y, dm, dy, rowvar, Xc, fact):
    """dC = (dX Xc^H + Xc dX^H) / fact: the mean's change drops out, as Xc's rows sum to zero."""
    dX, _ = _cov_layout(_dz(m, dm), None if y is None else _dz(y, dy), rowvar)
    P = dX @ Xc.T.conj()
    return (P + P.T.conj()) / fact


def cov_tangent(m, dm, dy, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    X, Xc, rows, fact = _cov_parts(m, y, rowvar, bias, ddof, fweights, aweights)
    out = _cov_change(m, y, dm, dy, rowvar, Xc, fact).squeeze()
    return out[()] if out.ndim == 0 else out


def _cov_back(Cbar, m, y, rowvar, Xc, rows, fact):
    """(m's adjoint, y's adjoint) from the adjoint of the full covariance matrix."""
    Xbar = (Cbar + Cbar.T) @ Xc / fact
    out = []
    for v, part in ((m, Xbar[:rows]), (y, Xbar[rows:])):
        if v is None:
            out.append(NoTangent)
            continue
        v_arr = np.asarray(v)
        if not rowvar and (v_arr.ndim != 1 if v is m else np.array(v, ndmin=2).shape[0] != 1):
            part = part.T
        out.append(_number(_out(part, v_arr)) if np.ndim(v) == 0 else _like(part.reshape(-1), v))
    return tuple(out)


def cov_adjoint(g, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    if _zero(g):
        return NoTangent, NoTangent
    X, Xc, rows, fact = _cov_parts(m, y, rowvar, bias, ddof, fweights, aweights)
    p = X.shape[0]
    return _cov_back(np.asarray(g, dtype=float).reshape(p, p), m, y, rowvar, Xc, rows, fact)


def _cov_jvp(t, m, p, k):
    b = _bind(_COV, p, k)
    y = b.get("y")
    if t.d(m) is None and t.d(y) is None:
        return None
    _refuse_tangent(t, "np.cov", "fweights/aweights", b.get("fweights"), b.get("aweights"))
    return t.call(cov_tangent, m, t.dz(m), t.dz(y), **b)


def _cov_vjp(t, g, m, p, k):
    _refuse_keywords(t, "np.cov", **{n: v for n, v in k.items() if n == "y"})
    b = _bind(_COV, p, k)
    mbar, ybar = _split(t, t.call(cov_adjoint, g, m, **b), 2)
    return ((mbar, ybar) + (None,) * 5)[:1 + len(p)]


defjvp(np.cov, lambda t, _r, m, *p, **k: _cov_jvp(t, m, p, k))
defvjp(np.cov, lambda t, g, _r, m, *p, **k: _cov_vjp(t, g, m, p, k))

_CORRCOEF = ("y", "rowvar")


def _corr_parts(C):
    d = np.real(np.diagonal(C))
    s = np.sqrt(d)
    return d, s, np.outer(s, s)


def corrcoef_tangent(x, dx, dy, y=None, rowvar=True, dtype=None):
    X, Xc, rows, fact = _cov_parts(x, y, rowvar, False, None, None, None)
    C = Xc @ Xc.T.conj() / fact
    if C.shape == (1, 1):
        return 0.0  # np.corrcoef of one variable is the constant 1
    dC = _cov_change(x, y, dx, dy, rowvar, Xc, fact)
    d, s, S = _corr_parts(C)
    R = C / S
    dd = np.real(np.diagonal(dC)) / d
    dR = dC / S - R * 0.5 * (dd[:, None] + dd[None, :])
    np.fill_diagonal(dR, 0.0)  # the diagonal is the constant 1
    return dR


def corrcoef_adjoint(g, x, y=None, rowvar=True, dtype=None):
    if _zero(g):
        return NoTangent, NoTangent
    X, Xc, rows, fact = _cov_parts(x, y, rowvar, False, None, None, None)
    C = Xc @ Xc.T / fact
    if C.shape == (1, 1):
        return (_number(np.zeros(np.shape(x))) if np.ndim(x) else 0.0), NoTangent
    d, s, S = _corr_parts(C)
    R = C / S
    Rbar = np.array(g, dtype=float)
    np.fill_diagonal(Rbar, 0.0)
    Cbar = Rbar / S
    ddbar = -0.5 * (np.sum(Rbar * R, axis=1) + np.sum(Rbar * R, axis=0)) / d
    Cbar = Cbar + np.diag(ddbar)
    return _cov_back(Cbar, x, y, rowvar, Xc, rows, fact)


def _corrcoef_jvp(t, x, p, k):
    b = _bind(_CORRCOEF, p, k)
    y = b.get("y")
    if t.d(x) is None and t.d(y) is None:
        return None
    return t.call(corrcoef_tangent, x, t.dz(x), t.dz(y), **b)


def _corrcoef_vjp(t, g, x, p, k):
    _refuse_keywords(t, "np.corrcoef", **{n: v for n, v in k.items() if n == "y"})
    xbar, ybar = _split(t, t.call(corrcoef_adjoint, g, x, **_bind(_CORRCOEF, p, k)), 2)
    return ((xbar, ybar, None))[:1 + len(p)]


defjvp(np.corrcoef, lambda t, _r, x, *p, **k: _corrcoef_jvp(t, x, p, k))
defvjp(np.corrcoef, lambda t, g, _r, x, *p, **k: _corrcoef_vjp(t, g, x, p, k))


# ================================================================== calculus on samples
# ------------------------------------------------------------------ np.gradient
def _gradient_axes(f, axis):
    return _axes(np.ndim(f), axis)


def _gradient_spacing(varargs, i, naxes):
    if not varargs:
        return 1.0
    return varargs[0] if len(varargs) == 1 else varargs[i]  # one spacing for every axis, or one per axis


def gradient_tangent(f, df, *varargs, axis=None, edge_order=1):
    """np.gradient is linear in f for fixed spacing: the same differences of the tangent."""
    return np.gradient(np.broadcast_to(_dz(f, df), np.shape(f)), *varargs, axis=axis, edge_order=edge_order)


def gradient_adjoint(g, f, *varargs, axis=None, edge_order=1):
    """Along each axis the result is D @ f with D the matrix np.gradient applies (built by applying it to
    the identity, so every spacing and edge_order NumPy takes is right); f's adjoint sums D^T @ g."""
    axes = _gradient_axes(f, axis)
    gs = [g] if len(axes) == 1 else _parts(g, len(axes))
    if all(_zero(x) for x in gs):
        return NoTangent
    out = np.zeros(np.shape(f))
    for i, (ax, gi) in enumerate(zip(axes, gs)):
        if _zero(gi):
            continue
        n = np.shape(f)[ax]
        D = np.gradient(np.eye(n), _gradient_spacing(varargs, i, len(axes)), axis=0, edge_order=edge_order)
        back = np.tensordot(D.T, np.moveaxis(np.asarray(gi, dtype=float), ax, 0), axes=1)
        out += np.moveaxis(back, 0, ax)
    return out


def _gradient_jvp(t, f, varargs, k):
    _refuse_tangent(t, "np.gradient", "its spacing (varargs)", *varargs)
    if t.d(f) is None:
        return None
    return t.call(gradient_tangent, f, t.d(f), *varargs, **k)


def _gradient_vjp(t, g, f, varargs, k):
    _refuse_adjoint(t, "np.gradient", "its spacing (varargs)", *varargs)
    return (t.call(gradient_adjoint, g, f, *varargs, **k),) + (None,) * len(varargs)


defjvp(np.gradient, lambda t, y, f, *varargs, **k: _gradient_jvp(t, f, varargs, k))
defvjp(np.gradient, lambda t, g, y, f, *varargs, **k: _gradient_vjp(t, g, f, varargs, k))


# ------------------------------------------------------------------ np.trapezoid (np.trapz)
_TRAPZ = ("x", "dx", "axis")


def _trapz_parts(yv, x, dx, axis):
    """The spacings d (broadcasting against the n-1 intervals), the interval means of y, the axis."""
    yv = _inexact(yv)
    ax = int(axis) % yv.ndim
    lo = [slice(None)] * yv.ndim
    hi = [slice(None)] * yv.ndim
    lo[ax], hi[ax] = slice(None, -1), slice(1, None)
    mid = (yv[tuple(hi)] + yv[tuple(lo)]) / 2.0
    if x is None:
        d = dx
    else:
        d = _spacing(x, yv.ndim, ax)
    return d, mid, ax, tuple(lo), tuple(hi)


def _spacing(x, nd, ax):
    x = _inexact(x)
    if x.ndim == 1:
        shape = [1] * nd
        shape[ax] = x.shape[0] - 1
        return np.diff(x).reshape(shape)
    return np.diff(x, axis=ax)


def trapz_tangent(yv, x, dx, dyv, dxs, ddx, axis=-1):
    d, mid, ax, lo, hi = _trapz_parts(yv, x, dx, axis)
    out = 0.0
    if not _zero(dyv):
        dy = np.broadcast_to(_dz(yv, dyv), np.shape(yv))
        out = out + np.sum(d * (dy[hi] + dy[lo]) / 2.0, axis=ax)
    if x is not None and not _zero(dxs):
        out = out + np.sum(_spacing(_dz(x, dxs), np.ndim(yv), ax) * mid, axis=ax)
    if x is None and not _zero(ddx):
        out = out + np.sum(np.multiply(ddx, mid), axis=ax)
    out = np.broadcast_to(out, mid.shape[:ax] + mid.shape[ax + 1:]) if np.ndim(out) == 0 else out
    return out[()] if np.ndim(out) == 0 else out


def trapz_adjoint(g, yv, x=None, dx=1.0, axis=-1):
    """(y's, x's, dx's adjoints): y[i] gets g (d[i-1] + d[i]) / 2; a spacing d[i] gets g * mid[i]."""
    if _zero(g):
        return NoTangent, NoTangent, NoTangent
    d, mid, ax, lo, hi = _trapz_parts(yv, x, dx, axis)
    gk = np.expand_dims(np.asarray(g, dtype=float), ax)
    half = np.broadcast_to(gk * d / 2.0, mid.shape)
    pad_front = [(0, 0)] * mid.ndim
    pad_back = [(0, 0)] * mid.ndim
    pad_front[ax], pad_back[ax] = (1, 0), (0, 1)
    ybar = _out(np.pad(half, pad_back) + np.pad(half, pad_front), yv)
    dbar = gk * mid
    xbar = dxbar = NoTangent
    if x is not None:
        xa = _inexact(x)
        if xa.ndim == 1:
            other = tuple(i for i in range(dbar.ndim) if i != ax)
            c = np.sum(dbar, axis=other)
            xbar = _like(np.pad(c, (1, 0)) - np.pad(c, (0, 1)), x)
        else:
            c = _unb(dbar, np.diff(xa, axis=ax))
            xbar = np.pad(c, pad_front) - np.pad(c, pad_back)
    else:
        dxbar = _number(_unb(dbar, dx))
    return _number(ybar), xbar, dxbar


def _trapz_jvp(t, yv, p, k, name):
    b = _bind(_TRAPZ, p, k)
    x, dx = b.get("x"), b.get("dx", 1.0)
    if not _live(t, yv, x, dx):
        return None
    return t.call(trapz_tangent, yv, x, dx, t.dz(yv), t.dz(x), t.dz(dx), b.get("axis", -1))


def _trapz_vjp(t, g, yv, p, k, name):
    _refuse_keywords(t, name, **{n: v for n, v in k.items() if n in ("x", "dx")})
    b = _bind(_TRAPZ, p, k)
    ybar, xbar, dxbar = _split(t, t.call(trapz_adjoint, g, yv, b.get("x"), b.get("dx", 1.0), b.get("axis", -1)), 3)
    return (ybar, xbar, dxbar, None)[:1 + len(p)]


for _name in ("trapezoid", "trapz"):
    if hasattr(np, _name):
        _fn = getattr(np, _name)
        defjvp(_fn, lambda t, _r, yv, *p, _name=_name, **k: _trapz_jvp(t, yv, p, k, "np." + _name))
        defvjp(_fn, lambda t, g, _r, yv, *p, _name=_name, **k: _trapz_vjp(t, g, yv, p, k, "np." + _name))


# ------------------------------------------------------------------ np.interp
def _interp_check(xp, period):
    refuse_option("np.interp", "period=", period is not None)
    xp = np.asarray(xp)
    if xp.ndim != 1 or np.any(np.diff(xp) <= 0):
        raise NotImplementedError("derivative of np.interp with xp not strictly increasing")


def _interp_segments(x, xp):
    """For each x: the segment j (xp[j] <= x < xp[j+1], clipped to the ends), the fraction along it, and
    where x lies below xp[0] / above xp[-1] (NumPy's left and right regions)."""
    x = np.asarray(x, dtype=float)
    xp = np.asarray(xp, dtype=float)
    n = xp.shape[0]
    if n == 1:
        z = np.zeros(x.shape, dtype=int)
        return z, np.zeros(x.shape), x < xp[0], x > xp[0]
    j = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, n - 2)
    frac = (x - xp[j]) / (xp[j + 1] - xp[j])
    return j, frac, x < xp[0], x > xp[-1]


def _interp_slope(x, xp, fp):
    """The right-hand slope in x: the segment's slope for xp[0] <= x < xp[-1], 0 elsewhere."""
    fp = np.asarray(fp)
    xp = np.asarray(xp, dtype=float)
    if xp.shape[0] == 1:
        return np.zeros(np.shape(x))
    j, frac, below, above = _interp_segments(x, xp)
    inside = ~below & (np.asarray(x) < xp[-1])
    return np.where(inside, (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]), 0.0)


def interp_tangent(x, xp, fp, dx, dfp, dleft, dright, left=None, right=None, period=None):
    _interp_check(xp, period)
    out = 0.0
    if not (_zero(dfp) and _zero(dleft) and _zero(dright)):
        out = np.interp(x, xp, _dz(fp, dfp), left=None if left is None else _dz(left, dleft),
                        right=None if right is None else _dz(right, dright))
    if not _zero(dx):
        out = out + _interp_slope(x, xp, fp) * _dz(x, dx)
    out = np.broadcast_to(out, np.shape(x)) if np.ndim(out) < np.ndim(x) else out
    return out[()] if np.ndim(out) == 0 else out


def interp_adjoint(g, x, xp, fp, left=None, right=None, period=None):
    """(x's, fp's, left's, right's adjoints)."""
    _interp_check(xp, period)
    if _zero(g):
        return NoTangent, NoTangent, NoTangent, NoTangent
    g = np.broadcast_to(np.asarray(g, dtype=float), np.shape(x))
    xbar = _number(_out(g * _interp_slope(x, xp, fp), x))
    n = np.shape(xp)[0]
    j, frac, below, above = _interp_segments(x, xp)
    inside = ~below & ~above
    fpbar = np.bincount(j[inside], weights=(g * (1.0 - frac))[inside], minlength=n)[:n]
    if n > 1:
        fpbar += np.bincount(j[inside] + 1, weights=(g * frac)[inside], minlength=n)[:n]
    leftbar = rightbar = NoTangent
    if left is None:
        fpbar[0] += np.sum(g[below])
    else:
        leftbar = float(np.sum(g[below]))
    if right is None:
        fpbar[-1] += np.sum(g[above])
    else:
        rightbar = float(np.sum(g[above]))
    return xbar, _like(fpbar, fp) if not isinstance(fp, np.ndarray) else fpbar.reshape(np.shape(fp)), leftbar, rightbar


_INTERP = ("left", "right", "period")


def _interp_jvp(t, x, xp, fp, a, k):
    b = _bind(_INTERP, a, k)
    _refuse_tangent(t, "np.interp", "xp (the sample positions)", xp)
    left, right = b.get("left"), b.get("right")
    if not _live(t, x, fp, left, right):
        return None
    return t.call(interp_tangent, x, xp, fp, t.dz(x), t.dz(fp), t.dz(left), t.dz(right), **b)


def _interp_vjp(t, g, x, xp, fp, a, k):
    _refuse_adjoint(t, "np.interp", "xp (the sample positions)", xp)
    _refuse_keywords(t, "np.interp", **{n: v for n, v in k.items() if n in ("left", "right")})
    b = _bind(_INTERP, a, k)
    xbar, fpbar, lbar, rbar = _split(t, t.call(interp_adjoint, g, x, xp, fp, **b), 4)
    return (xbar, None, fpbar, lbar, rbar, None)[:3 + len(a)]


defjvp(np.interp, lambda t, y, x, xp, fp, *a, **k: _interp_jvp(t, x, xp, fp, a, k))
defvjp(np.interp, lambda t, g, y, x, xp, fp, *a, **k: _interp_vjp(t, g, x, xp, fp, a, k))


# ------------------------------------------------------------------ np.convolve, np.correlate
_MODES = {0: "valid", 1: "same", 2: "full"}


def _window(fn, n, m, mode):
    """Where the result of mode lies within the full result: (offset, length)."""
    mode = _MODES.get(mode, mode)
    if mode == "full":
        return 0, n + m - 1
    if mode == "valid":
        return min(n, m) - 1, max(n, m) - min(n, m) + 1
    if mode == "same":
        if fn is np.convolve:
            return (min(n, m) - 1) // 2, max(n, m)
        return ((m - 1) // 2 if n >= m else n // 2), max(n, m)
    raise NotImplementedError(f"derivative of np.{fn.__name__} with mode={mode!r}")


def conv_tangent(fn, a, v, da, dv, mode):
    _window(fn, np.size(a), np.size(v), mode)
    out = 0.0
    if not _zero(da):
        out = out + fn(_dz(a, da), v, mode)
    if not _zero(dv):
        out = out + fn(a, _dz(v, dv), mode)
    return out


def conv_adjoint(fn, g, a, v, mode):
    """Both are bilinear: with G the adjoint placed within the full result, a's adjoint is
    sum_j G[i + j] w[j] and w's is sum_i G[i + j] a[i], for w = v (convolve) or v reversed (correlate)."""
    if _zero(g):
        return NoTangent, NoTangent
    a1, v1 = _inexact(a).reshape(-1), _inexact(v).reshape(-1)
    n, m = a1.size, v1.size
    off, length = _window(fn, n, m, mode)
    G = np.zeros(n + m - 1)
    G[off:off + length] = np.asarray(g, dtype=float)
    w = v1 if fn is np.convolve else v1[::-1]
    abar = np.correlate(G, w, "valid")
    wbar = np.correlate(G, a1, "valid")
    vbar = wbar if fn is np.convolve else wbar[::-1]
    return _like(abar, a), _like(vbar, v)


for _fn, _mode in ((np.convolve, "full"), (np.correlate, "valid")):
    defjvp(_fn, lambda t, y, a, v, mode=_mode, _fn=_fn: t.call(conv_tangent, _fn, a, v, t.dz(a), t.dz(v), mode) if _live(t, a, v) else None)
    defvjp(_fn, lambda t, g, y, a, v, mode=_mode, _fn=_fn: _split(t, t.call(conv_adjoint, _fn, g, a, v, mode), 2) + (None,))


# ================================================================== np.linalg.pinv, np.linalg.matrix_power
def _mT(a):
    return np.swapaxes(a, -1, -2)


def _mH(a):
    return np.conj(np.swapaxes(a, -1, -2))


def _pinv_check(a, y, hermitian):
    refuse_option("np.linalg.pinv", "hermitian=True", hermitian)
    m, n = np.shape(a)[-2:]
    if np.any(np.linalg.matrix_rank(y) < min(m, n)):
        raise NotImplementedError("derivative of np.linalg.pinv of a rank-deficient matrix (the pseudo-inverse jumps there)")


def pinv_tangent(a, y, da, rcond=None, hermitian=False, **kw):
    """P = pinv(A), A of full rank: dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P."""
    _pinv_check(a, y, hermitian)
    A, P = _inexact(a), np.asarray(y)
    dA = _dz(A, _dz(a, da))
    m, n = A.shape[-2:]
    return (-P @ dA @ P + P @ _mH(P) @ _mH(dA) @ (np.eye(m) - A @ P)
            + (np.eye(n) - P @ A) @ _mH(dA) @ _mH(P) @ P)


def pinv_adjoint(a, y, g, rcond=None, hermitian=False, **kw):
    _pinv_check(a, y, hermitian)
    if _zero(g):
        return NoTangent
    A, P, G = np.asarray(a, dtype=float), np.asarray(y), np.asarray(g, dtype=float)
    m, n = A.shape[-2:]
    return (-_mT(P) @ G @ _mT(P) + (np.eye(m) - A @ P) @ _mT(G) @ P @ _mT(P)
            + _mT(P) @ P @ _mT(G) @ (np.eye(n) - P @ A))


defjvp(np.linalg.pinv, lambda t, y, a, *p, **k: t.call(pinv_tangent, a, y, t.d(a), *p, **k) if t.d(a) is not None else None)
defvjp(np.linalg.pinv, lambda t, g, y, a, *p, **k: (t.call(pinv_adjoint, a, y, g, *p, **k),) + (None,) * len(p))


def _power_base(a, n):
    """B and k with A^n = B^k, k >= 0 (B = A^-1 for negative n), and the powers I, B, ..., B^(k-1)."""
    if int(n) != n:
        raise NotImplementedError("derivative of np.linalg.matrix_power with a non-integer exponent")
    n = int(n)
    A = _inexact(a)
    B = A if n >= 0 else np.linalg.inv(A)
    k = abs(n)
    powers = [np.broadcast_to(np.eye(A.shape[-1]), A.shape)]
    for _ in range(k - 1):
        powers.append(powers[-1] @ B)
    return A, B, k, powers


def matrix_power_tangent(a, da, n):
    """d(B^k) = sum_i B^i dB B^(k-1-i), with dB = -B dA B when B = A^-1."""
    A, B, k, powers = _power_base(a, n)
    dA = _dz(A, _dz(a, da))
    if k == 0:
        return np.zeros(A.shape)
    dB = dA if n >= 0 else -B @ dA @ B
    return sum(powers[i] @ dB @ powers[k - 1 - i] for i in range(k))


def matrix_power_adjoint(a, g, n):
    if _zero(g):
        return NoTangent
    A, B, k, powers = _power_base(a, n)
    if k == 0:
        return np.zeros(A.shape)
    G = np.asarray(g, dtype=float)
    Bbar = sum(_mT(powers[i]) @ G @ _mT(powers[k - 1 - i]) for i in range(k))
    return Bbar if n >= 0 else -_mT(B) @ Bbar @ _mT(B)


defjvp(np.linalg.matrix_power, lambda t, y, a, n: t.call(matrix_power_tangent, a, t.d(a), n) if t.d(a) is not None else None)
defvjp(np.linalg.matrix_power, lambda t, g, y, a, n: (t.call(matrix_power_adjoint, a, g, n), None))
