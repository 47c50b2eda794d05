"""NumPy rules, both modes: calculus on samples (gradient, trapezoid, interp, convolve, correlate).

Split from numpy_extra.py, whose helpers they share."""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent
from .numpy_common import _bind, _inexact, _refuse_keywords, _split, _unb
from .registry import defjvp, defvjp
from .numpy_extra import _dz, _like, _live, _number, _parts, _zero, refuse_option
from .numpy_statistics import _axes, _out


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


def _spacing_parts(y, naxes):
    return [y] if naxes == 1 else list(y)


def gradient_spacing_tangent(f, y, dy, n, *vd, axis=None, edge_order=1):
    """dy plus the spacings' share: with a uniform (scalar) spacing h the result is (differences) / h, so
    its derivative in h is -result / h.  Coordinate arrays as spacing are refused."""
    varargs, dvarargs = vd[:n], vd[n:]
    axes = _gradient_axes(f, axis)
    ys = _spacing_parts(y, len(axes))
    dys = _spacing_parts(dy, len(axes)) if not _zero(dy) else [0.0] * len(axes)
    out = []
    for i, (yi, di) in enumerate(zip(ys, dys)):
        h, dh = _gradient_spacing(varargs, i, len(axes)), _gradient_spacing(dvarargs, i, len(axes))
        if not _zero(dh) and np.any(dh):
            if np.ndim(h) != 0:
                raise NotImplementedError("forward mode of np.gradient: the derivative with respect to coordinate "
                                          "arrays as spacing is not supported (a uniform spacing is)")
            di = di - yi * (dh / h)
        out.append(np.broadcast_to(di, np.shape(yi)) if np.ndim(di) == 0 else di)
    return out[0] if len(axes) == 1 else type(y)(out) if isinstance(y, tuple) else out


def gradient_spacing_adjoint(g, y, f, j, *varargs, axis=None, edge_order=1):
    """The adjoint of the j-th spacing: -sum(g * result) / h over the axes it spaces (uniform spacing)."""
    from .numpy_extra import refused_adjoint

    axes = _gradient_axes(f, axis)
    gs = [g] if len(axes) == 1 else _parts(g, len(axes))
    ys = _spacing_parts(y, len(axes))
    total = 0.0
    for i, (gi, yi) in enumerate(zip(gs, ys)):
        if _zero(gi) or (len(varargs) > 1 and i != j):
            continue
        h = varargs[j]
        if np.ndim(h) != 0:
            return refused_adjoint(gi, "np.gradient", "coordinate arrays as spacing", h)
        total += -float(np.sum(np.asarray(gi, dtype=float) * yi)) / h
    return total


def _gradient_jvp(t, y, f, varargs, k):
    if not _live(t, f, *varargs):
        return None
    if all(t.d(v) is None for v in varargs):
        return t.call(gradient_tangent, f, t.d(f), *varargs, **k)
    dy = t.call(gradient_tangent, f, t.d(f), *varargs, **k) if t.d(f) is not None else NoTangent
    return t.call(gradient_spacing_tangent, f, y, dy, len(varargs), *varargs, *[t.dz(v) for v in varargs], **k)


def _gradient_vjp(t, g, y, f, varargs, k):
    needs = getattr(t, "needs", None)
    return (t.call(gradient_adjoint, g, f, *varargs, **k),) + tuple(
        t.call(gradient_spacing_adjoint, g, y, f, j, *varargs, **k) if needs is None or needs(v) else None
        for j, v in enumerate(varargs))


defjvp(np.gradient, lambda t, y, f, *varargs, **k: _gradient_jvp(t, y, f, varargs, k))
defvjp(np.gradient, lambda t, g, y, f, *varargs, **k: _gradient_vjp(t, g, y, f, varargs, k))


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
    named = [n for n in ("x", "dx") if n in k]
    if not getattr(t, "keyword_adjoints", False):
        _refuse_keywords(t, name, **{n: k[n] for n in named})
        named = []
    b = _bind(_TRAPZ, p, k)
    ybar, xbar, dxbar = _split(t, t.call(trapz_adjoint, g, yv, b.get("x"), b.get("dx", 1.0), b.get("axis", -1)), 3)
    out = (ybar, xbar, dxbar, None)[:1 + len(p)]
    if named:  # (np.trapezoid(y, dx=h): the reverse transform takes keyword operands' adjoints as a KwAdj)
        from .call_binding import KwAdj

        out += (KwAdj({n: {"x": xbar, "dx": dxbar}[n] for n in named}),)
    return out


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


def _xp_partials(x, xp, fp):
    """(segment j, d y / d xp[j], d y / d xp[j+1], inside): y = fp[j] + s (x - xp[j]) with s the segment's slope, so
    moving xp[j] changes y by -s (1 - frac), moving xp[j+1] by -s frac; 0 outside [xp[0], xp[-1]) (as the slope in x)."""
    fp = np.asarray(fp)
    j, frac, below, above = _interp_segments(x, xp)
    inside = ~below & (np.asarray(x) < np.asarray(xp, dtype=float)[-1]) if np.shape(xp)[0] > 1 else np.zeros(np.shape(x), bool)
    s = _interp_slope(x, xp, fp)
    return j, np.where(inside, -s * (1.0 - frac), 0.0), np.where(inside, -s * frac, 0.0), inside


def interp_tangent(x, xp, fp, dx, dfp, dleft, dright, left=None, right=None, period=None, dxp=NoTangent):
    _interp_check(xp, period)
    out = 0.0
    if not _zero(dxp) and np.shape(xp)[0] > 1:
        j, pj, pj1, _ = _xp_partials(x, xp, fp)
        d = np.asarray(_dz(xp, dxp))
        out = pj * d[j] + pj1 * d[j + 1]
    if not (_zero(dfp) and _zero(dleft) and _zero(dright)):
        out = out + np.interp(x, xp, _dz(fp, dfp), left=None if left is None else _dz(left, dleft),
                              right=None if right is None else _dz(right, dright))
    if not _zero(dx):
        out = out + _interp_slope(x, xp, fp) * _dz(x, dx)
    out = np.broadcast_to(out, np.shape(x)) if np.ndim(out) < np.ndim(x) else out
    return out[()] if np.ndim(out) == 0 else out


def interp_xp_adjoint(g, x, xp, fp, left=None, right=None, period=None):
    """xp's adjoint (the sample positions)."""
    _interp_check(xp, period)
    n = np.shape(xp)[0]
    if _zero(g) or n < 2:
        return NoTangent
    g = np.broadcast_to(np.asarray(g), np.shape(x))
    j, pj, pj1, inside = _xp_partials(x, xp, fp)
    w = (g * np.conj(pj))[inside], (g * np.conj(pj1))[inside]  # (a real xp: Re(conj(J) g) for complex fp)
    bar = np.bincount(j[inside], weights=w[0].real, minlength=n)[:n] + np.bincount(j[inside] + 1, weights=w[1].real, minlength=n)[:n]
    return _like(bar, xp) if not isinstance(xp, np.ndarray) else bar.reshape(np.shape(xp))


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
    left, right = b.get("left"), b.get("right")
    if not _live(t, x, fp, left, right) and t.d(xp) is None:
        return None
    return t.call(interp_tangent, x, xp, fp, t.dz(x), t.dz(fp), t.dz(left), t.dz(right), dxp=t.dz(xp), **b)


def _interp_vjp(t, g, x, xp, fp, a, k):
    named = [n for n in ("left", "right") if n in k]
    if not getattr(t, "keyword_adjoints", False):
        _refuse_keywords(t, "np.interp", **{n: k[n] for n in named})
        named = []
    b = _bind(_INTERP, a, k)
    xbar, fpbar, lbar, rbar = _split(t, t.call(interp_adjoint, g, x, xp, fp, **b), 4)
    needs = getattr(t, "needs", None)
    xpbar = None if needs is not None and not needs(xp) else t.call(interp_xp_adjoint, g, x, xp, fp, **b)
    out = (xbar, xpbar, fpbar, lbar, rbar, None)[:3 + len(a)]
    if named:  # (np.interp(x, xp, fp, right=v): the reverse transform takes keyword operands' adjoints as a KwAdj)
        from .registry import KwAdj

        out += (KwAdj({n: {"left": lbar, "right": rbar}[n] for n in named}),)
    return out


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
