"""np.pad's other modes (issue 12, second pass): linear_ramp, mean, maximum, minimum, median, and
reflect/symmetric with reflect_type='odd'; numpy_shapes.pad_tangent/pad_adjoint hand these here (the
modes that copy entries stay there).

NumPy pads one axis after the other (axis 0 first), each axis's statistics read from the array already
padded along the earlier axes; the rules follow the same steps, so corners come out right.  Along one axis:
* linear_ramp (end_values constant), mean, and the odd reflections are linear in the array: the tangent is
  the same pad of the tangent (end_values 0), and the adjoint applies the transpose of that one-axis map,
  whose matrix is the pad of the identity (built in blocks of columns, so memory stays bounded);
* maximum and minimum copy the extreme entry of the first/last stat_length entries (the first of equal
  ones, as argmax), median averages the middle one or two: tangents and adjoints follow those entries.
mode='empty' (the padding is whatever memory held) and a callable mode are refused, as are complex
values for the order statistics.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

MODES = ("linear_ramp", "mean", "maximum", "minimum", "median", "reflect", "symmetric")
_SELECT = ("maximum", "minimum", "median")


def _refuse(mode, why=""):
    raise NotImplementedError(f"derivative of np.pad with mode={mode!r}{why}")


def _check(x, mode, kw):
    if callable(mode) or mode not in MODES:
        _refuse(mode, ": the padding is not a function of the array" if mode == "empty" else "")
    if mode in ("reflect", "symmetric") and kw.get("reflect_type", "even") != "odd":
        _refuse(mode)
    if mode in _SELECT and np.iscomplexobj(x):
        _refuse(mode, " of complex values")


def _pairs(v, ndim):
    return np.broadcast_to(np.asarray(v, dtype=object), (ndim, 2))


def _steps(x, pad_width, mode, kw):
    """[(axis, (before, after), one-axis keyword arguments)] of the axes actually padded, in NumPy's order."""
    nd = np.ndim(x)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.intp), (nd, 2))
    out = []
    for ax in range(nd):
        b, a = int(widths[ax, 0]), int(widths[ax, 1])
        if b == 0 and a == 0:
            continue
        one = {}
        if "stat_length" in kw and kw["stat_length"] is not None:
            one["stat_length"] = tuple(_pairs(kw["stat_length"], nd)[ax])
        if "end_values" in kw:
            one["end_values"] = tuple(_pairs(kw["end_values"], nd)[ax])
        if "reflect_type" in kw:
            one["reflect_type"] = kw["reflect_type"]
        out.append((ax, (b, a), one))
    return out


def _pad_axis(v, ax, ba, mode, one):
    w = [(0, 0)] * np.ndim(v)
    w[ax] = ba
    one = dict(one)
    if "stat_length" in one:  # (np.pad wants one pair per axis)
        sl = [(1, 1)] * np.ndim(v)
        sl[ax] = one["stat_length"]
        one["stat_length"] = tuple(sl)
    if "end_values" in one:
        ev = [(0, 0)] * np.ndim(v)
        ev[ax] = one["end_values"]
        one["end_values"] = tuple(ev)
    return np.pad(v, w, mode=mode, **one)


def _stat_len(one, n):
    s = one.get("stat_length", (None, None))
    return [n if v is None else max(1, min(int(v), n)) for v in s]


def _picks(z, ax, ba, mode, one):
    """For the before and the after padding: [(indices along ax, weight)], the entries (each fiber's own)
    the pad value is made from."""
    n = z.shape[ax]
    lb, la = _stat_len(one, n)
    out = []
    for side, L in (("before", lb), ("after", la)):
        start = 0 if side == "before" else n - L
        region = np.take(z, np.arange(start, start + L), axis=ax)
        if mode == "maximum":
            out.append([(np.argmax(region, axis=ax) + start, 1.0)])
        elif mode == "minimum":
            out.append([(np.argmin(region, axis=ax) + start, 1.0)])
        else:
            order = np.argsort(region, axis=ax, kind="stable")
            mid = np.take(order, [L // 2], axis=ax).squeeze(ax) + start
            if L % 2:
                out.append([(mid, 1.0)])
            else:
                low = np.take(order, [L // 2 - 1], axis=ax).squeeze(ax) + start
                out.append([(low, 0.5), (mid, 0.5)])
    return out


def _select_tangent(z, dz, ax, ba, mode, one):
    b, a = ba
    picks = _picks(z, ax, ba, mode, one)
    parts = []
    for (side, width), pk in zip((("before", b), ("after", a)), picks):
        val = sum(w * np.take_along_axis(dz, np.expand_dims(i, ax), axis=ax) for i, w in pk)
        parts.append(np.repeat(val, width, axis=ax))
    return np.concatenate([parts[0], dz, parts[1]], axis=ax)


def _select_adjoint(z, g, ax, ba, mode, one):
    b, a = ba
    n = z.shape[ax]
    picks = _picks(z, ax, ba, mode, one)
    out = np.array(np.take(g, np.arange(b, b + n), axis=ax), dtype=float)
    for (lo, hi), pk in zip(((0, b), (b + n, b + n + a)), picks):
        total = np.sum(np.take(g, np.arange(lo, hi), axis=ax), axis=ax, keepdims=True)
        for i, w in pk:
            idx = np.expand_dims(i, ax)
            cur = np.take_along_axis(out, idx, axis=ax)
            np.put_along_axis(out, idx, cur + w * total, axis=ax)
    return out


def _linear_one(mode, one):
    """The one-axis keyword arguments of the linear part (end_values 0: the ramp's constant end drops out)."""
    one = dict(one)
    if mode == "linear_ramp":
        one["end_values"] = (0, 0)
    return one


def _linear_adjoint(g, n, ax, ba, mode, one, block=256):
    """The transpose of v -> pad(v) along ax (for a linear mode), applied to g: its matrix (n + b + a) x n is
    the pad of the identity, made a block of columns at a time."""
    gm = np.moveaxis(np.asarray(g), ax, 0)
    out = np.empty((n,) + gm.shape[1:], dtype=np.result_type(gm.dtype, float))
    one = _linear_one(mode, one)
    for s in range(0, n, block):
        cols = np.eye(n)[:, s:s + block]
        m = _pad_axis(cols, 0, ba, mode, one)
        out[s:s + block] = np.tensordot(m, gm, axes=([0], [0]))
    return np.moveaxis(out, 0, ax)


def pad_tangent(x, dx, pad_width, mode, **kw):
    _check(x, mode, kw)
    z = np.asarray(x)
    dz = np.broadcast_to(np.asarray(0.0 if dx is NoTangent or dx is None else dx, dtype=np.result_type(z, float)),
                         z.shape)
    for ax, ba, one in _steps(x, pad_width, mode, kw):
        if mode in _SELECT:
            dz = _select_tangent(z, dz, ax, ba, mode, one)
        else:
            dz = _pad_axis(dz, ax, ba, mode, _linear_one(mode, one))
        z = _pad_axis(z, ax, ba, mode, one)
    return dz


def pad_adjoint(x, g, pad_width, mode, **kw):
    _check(x, mode, kw)
    steps = _steps(x, pad_width, mode, kw)
    zs = [np.asarray(x)]
    for ax, ba, one in steps[:-1]:
        zs.append(_pad_axis(zs[-1], ax, ba, mode, one))
    g = np.asarray(g)
    for (ax, ba, one), z in zip(reversed(steps), reversed(zs)):
        if mode in _SELECT:
            g = _select_adjoint(z, g, ax, ba, mode, one)
        else:
            g = _linear_adjoint(g, z.shape[ax], ax, ba, mode, one)
    return g if np.ndim(x) else g[()]
