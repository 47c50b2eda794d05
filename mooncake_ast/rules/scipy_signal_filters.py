"""Linear recursive filters with initial conditions (issue 12, second pass): `scipy.signal.lfilter(b, a, x,
axis, zi)` with zi= (what filtfilt calls) and `scipy.signal.sosfilt(sos, x, axis, zi)` (a cascade of
second-order sections; sosfiltfilt calls it), both modes, with respect to the coefficients, the data and the
initial state.  Registered by scipy_signal_rules.register() (no SciPy import here).

With A(b) = a0 + a1 q + ... (q the one-sample delay) and K = max(len a, len b) - 1, lfilter with zi solves
    A y = B x + a0 zi_pad          (zi_pad: zi in the first min(K, N) samples, zero after)
and returns the final state of its transposed direct form II, with b' = b / a0, a' = a / a0,
    zf[k] = sum_(j > k) (b'_j x[N+k-j] - a'_j y[N+k-j]) + zi[k+N]  (samples before 0 and zi beyond K are 0).
So dy = A^-1 (B dx + dB x - dA y + (da0 zi + a0 dzi)_pad) and dzf follows from zf's formula by the product
rule; the pullback runs the same equations backwards (A^-T is the filter run backwards in time).
sosfilt is lfilter section after section, each with its own state zi[s]; its rules chain the above.
Complex data and b, a that are not 1-D are refused.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

FUNCTIONS = ["signal.sosfilt"]  # (and lfilter's zi=, registered by scipy_signal_lfilter)


def _signal():
    import scipy.signal

    return scipy.signal


def _zero(d):
    return d is None or d is NoTangent or not np.any(d)


def _f(v):
    return np.asarray(v, dtype=float)


def check(b, a, x, zi=None, name="lfilter"):
    if any(np.iscomplexobj(v) for v in (b, a, x, zi) if v is not None):
        raise NotImplementedError(f"derivative of scipy.signal.{name} of complex data")
    if np.ndim(b) != 1 or np.ndim(a) != 1:
        raise NotImplementedError(f"derivative of scipy.signal.{name} with b or a not 1-D")


def _padded(c, n):
    out = np.zeros(n)
    out[:len(c)] = c
    return out


def _delayed(v, k):
    """v (time on the last axis) delayed by k samples, zeros first."""
    out = np.zeros_like(v)
    if k < v.shape[-1]:
        out[..., k:] = v[..., :v.shape[-1] - k]
    return out


def _zi_pad(zi, n):
    """zi (state on the last axis) placed in the first samples of an n-sample signal."""
    out = np.zeros(zi.shape[:-1] + (n,))
    m = min(zi.shape[-1], n)
    out[..., :m] = zi[..., :m]
    return out


def _final_state(bp, ap, x, y, zi):
    """zf of the transposed direct form II from normalised coefficients bp, ap (length K + 1), time last."""
    K, N = len(bp) - 1, x.shape[-1]
    zf = np.zeros(x.shape[:-1] + (K,))
    for k in range(K):
        for j in range(k + 1, K + 1):
            m = N + k - j
            if m >= 0:
                zf[..., k] += bp[j] * x[..., m] - ap[j] * y[..., m]
        if zi is not None and k + N < K:
            zf[..., k] += zi[..., k + N]
    return zf


# ------------------------------------------------------------------ one filter, time on the last axis
def lf_tangent(b, a, x, zi, y, db, da, dx, dzi):
    """(dy, dzf) of y, zf = lfilter(b, a, x, zi=zi) (zf and dzf None without zi)."""
    lf = _signal().lfilter
    b, a, x, y = _f(b), _f(a), _f(x), _f(y)
    K = max(len(a), len(b)) - 1
    N = x.shape[-1]
    rhs = np.zeros(y.shape)
    if not _zero(dx):
        rhs = rhs + lf(b, [1.0], np.broadcast_to(_f(dx), x.shape))
    if not _zero(db):
        rhs = rhs + lf(_f(db), [1.0], x)
    if not _zero(da):
        rhs = rhs - lf(_f(da), [1.0], y)
    if zi is not None:
        src = 0.0
        if not _zero(da):
            src = src + _f(da)[0] * _f(zi)
        if not _zero(dzi):
            src = src + a[0] * np.broadcast_to(_f(dzi), np.shape(zi))
        if not np.isscalar(src):
            rhs = rhs + _zi_pad(np.broadcast_to(src, x.shape[:-1] + (K,)), N)
    dy = lf([1.0], a, rhs)
    if zi is None:
        return dy, None
    a0 = a[0]
    bp, ap = _padded(b, K + 1) / a0, _padded(a, K + 1) / a0
    da0 = 0.0 if _zero(da) else _f(da)[0]
    dbp = (_padded(_f(db), K + 1) if not _zero(db) else np.zeros(K + 1)) / a0 - bp * (da0 / a0)
    dap = (_padded(_f(da), K + 1) if not _zero(da) else np.zeros(K + 1)) / a0 - ap * (da0 / a0)
    ddx = np.zeros(x.shape) if _zero(dx) else np.broadcast_to(_f(dx), x.shape)
    dzf = _final_state(bp, ap, ddx, dy, None) + _final_state(dbp, dap, x, y, None)
    if not _zero(dzi):
        dzf = dzf + _final_state(np.zeros(K + 1), np.zeros(K + 1), x * 0.0, y * 0.0, np.broadcast_to(_f(dzi), np.shape(zi)))
    return dy, dzf


def lf_adjoint(b, a, x, zi, y, gy, gzf):
    """(b_bar, a_bar, x_bar, zi_bar) of y, zf = lfilter(b, a, x, zi=zi), given the adjoints of y and zf
    (zi_bar None without zi)."""
    lf = _signal().lfilter
    b, a, x, y = _f(b), _f(a), _f(x), _f(y)
    K = max(len(a), len(b)) - 1
    N = x.shape[-1]
    a0 = a[0]
    gy = np.zeros(y.shape) if _zero(gy) else np.broadcast_to(_f(gy), y.shape).copy()
    xbar = np.zeros(x.shape)
    bbar, abar = np.zeros(K + 1), np.zeros(K + 1)
    zibar = None if zi is None else np.zeros(np.shape(zi))
    if zi is not None and not _zero(gzf):
        gzf = np.broadcast_to(_f(gzf), np.shape(zi))
        bp, ap = _padded(b, K + 1) / a0, _padded(a, K + 1) / a0
        bpbar, apbar = np.zeros(K + 1), np.zeros(K + 1)
        for k in range(K):
            for j in range(k + 1, K + 1):
                m = N + k - j
                if m >= 0:
                    xbar[..., m] += bp[j] * gzf[..., k]
                    gy[..., m] -= ap[j] * gzf[..., k]
                    bpbar[j] += np.sum(gzf[..., k] * x[..., m])
                    apbar[j] -= np.sum(gzf[..., k] * y[..., m])
            if k + N < K:
                zibar[..., k + N] += gzf[..., k]
        bbar += bpbar / a0
        abar += apbar / a0
        abar[0] -= (np.dot(bpbar, bp) + np.dot(apbar, ap)) / a0
    w = np.flip(lf([1.0], a, np.flip(gy, -1)), -1)  # A^-T gy
    xbar += np.flip(lf(b, [1.0], np.flip(w, -1)), -1)  # B^T w
    for k in range(K + 1):
        if k < len(b):
            bbar[k] += np.sum(w * _delayed(x, k))
        if k < len(a):
            abar[k] -= np.sum(w * _delayed(y, k))
    if zi is not None:
        m = min(K, N)
        zibar[..., :m] += a0 * w[..., :m]
        abar[0] += np.sum(w[..., :m] * _f(zi)[..., :m])
    return bbar[:len(b)], abar[:len(a)], xbar, zibar


# ------------------------------------------------------------------ lfilter with zi= (any axis)
def _last(v, axis):
    return None if v is None else np.moveaxis(_f(v), axis, -1)


def lfilter_zi_tangent(b, a, x, zi, y, db, da, dx, dzi, axis=-1):
    """lfilter's tangent (dy, dzf) with zi given; y is lfilter's (y, zf)."""
    if zi is None:
        from .scipy_signal_lfilter import lfilter_tangent

        return lfilter_tangent(b, a, x, y, db, da, dx, axis=axis)
    check(b, a, x, zi)
    d = lambda v: None if _zero(v) else _last(np.broadcast_to(v, np.shape(x)), axis)  # noqa: E731
    dzi_l = None if _zero(dzi) else _last(np.broadcast_to(dzi, np.shape(zi)), axis)
    dy, dzf = lf_tangent(b, a, _last(x, axis), _last(zi, axis), _last(y[0], axis), db, da, d(dx), dzi_l)
    return np.moveaxis(dy, -1, axis), np.moveaxis(dzf, -1, axis)


def lfilter_zi_adjoints(b, a, x, zi, y, g, axis=-1):
    """(b_bar, a_bar, x_bar, zi_bar); y is lfilter's (y, zf)."""
    if zi is None:
        from .scipy_signal_lfilter import lfilter_adjoints

        return (*lfilter_adjoints(b, a, x, y, g, axis=axis), NoTangent)
    check(b, a, x, zi)
    gy, gzf = (NoTangent, NoTangent) if _zero_pair(g) else (g[0], g[1])
    gy = None if _zero(gy) else _last(np.broadcast_to(gy, np.shape(y[0])), axis)
    gzf = None if _zero(gzf) else _last(np.broadcast_to(gzf, np.shape(zi)), axis)
    bbar, abar, xbar, zibar = lf_adjoint(b, a, _last(x, axis), _last(zi, axis), _last(y[0], axis), gy, gzf)
    from .numpy_extra import _like

    return (bbar if isinstance(b, np.ndarray) else _like(bbar, b)), (abar if isinstance(a, np.ndarray) else _like(abar, a)), \
        np.moveaxis(xbar, -1, axis), np.moveaxis(zibar, -1, axis)


def _zero_pair(g):
    return g is None or g is NoTangent or (not isinstance(g, (tuple, list)) and _zero(g))


# ------------------------------------------------------------------ sosfilt
def _sos_check(sos, x, zi):
    if any(np.iscomplexobj(v) for v in (sos, x, zi) if v is not None):
        raise NotImplementedError("derivative of scipy.signal.sosfilt of complex data")
    if np.ndim(sos) != 2 or np.shape(sos)[1] != 6:
        raise NotImplementedError("derivative of scipy.signal.sosfilt with sos not of shape (n_sections, 6)")


def _sections(sos, x, zi, axis):
    """[(x_s, zi_s, y_s)] of each section (time last); x_(s+1) = y_s."""
    lf = _signal().lfilter
    sos = _f(sos)
    xs, out = _last(x, axis), []
    zis = None if zi is None else np.moveaxis(_f(zi), axis + 1 if axis >= 0 else axis, -1)
    for s in range(sos.shape[0]):
        z = None if zis is None else zis[s]
        ys = lf(sos[s, :3], sos[s, 3:], xs) if z is None else lf(sos[s, :3], sos[s, 3:], xs, zi=z)[0]
        out.append((xs, z, ys))
        xs = ys
    return out


def _zi_axis(axis):
    return axis + 1 if axis >= 0 else axis


def sosfilt_tangent(sos, x, y, dsos, dx, axis=-1, zi=None, dzi=NoTangent):
    _sos_check(sos, x, zi)
    sos = _f(sos)
    axis = axis if axis >= 0 else np.ndim(x) + axis
    dsos = None if _zero(dsos) else _f(dsos)
    d = None if _zero(dx) else _last(np.broadcast_to(dx, np.shape(x)), axis)
    dzis = None if zi is None or _zero(dzi) else np.moveaxis(np.broadcast_to(_f(dzi), np.shape(zi)), axis + 1, -1)
    dzf = []
    for s, (xs, z, ys) in enumerate(_sections(sos, x, zi, axis)):
        db = None if dsos is None else dsos[s, :3]
        da = None if dsos is None else dsos[s, 3:]
        dz = None if dzis is None else dzis[s]
        d, dzf_s = lf_tangent(sos[s, :3], sos[s, 3:], xs, z, ys, db, da, d, dz)
        dzf.append(dzf_s)
    dy = np.moveaxis(d, -1, axis)
    if zi is None:
        return dy
    return dy, np.moveaxis(np.stack(dzf), -1, axis + 1)


def sosfilt_adjoints(sos, x, y, g, axis=-1, zi=None):
    """(sos_bar, x_bar, zi_bar)."""
    _sos_check(sos, x, zi)
    sos = _f(sos)
    axis = axis if axis >= 0 else np.ndim(x) + axis
    if zi is None:
        gy, gzf = g, None
    else:
        gy, gzf = (None, None) if _zero_pair(g) else (g[0], g[1])
    if _zero(gy) and _zero(gzf):
        return NoTangent, NoTangent, NoTangent
    secs = _sections(sos, x, zi, axis)
    yshape = secs[-1][2].shape
    gcur = np.zeros(yshape) if _zero(gy) else _last(np.broadcast_to(gy, np.moveaxis(secs[-1][2], -1, axis).shape), axis)
    gzfs = None if _zero(gzf) else np.moveaxis(np.broadcast_to(_f(gzf), np.shape(zi)), axis + 1, -1)
    sosbar = np.zeros(sos.shape)
    zibar = []
    for s in range(len(secs) - 1, -1, -1):
        xs, z, ys = secs[s]
        bbar, abar, gcur, zb = lf_adjoint(sos[s, :3], sos[s, 3:], xs, z, ys, gcur, None if gzfs is None else gzfs[s])
        sosbar[s, :3], sosbar[s, 3:] = bbar, abar
        zibar.append(zb)
    xbar = np.moveaxis(gcur, -1, axis)
    zb = NoTangent if zi is None else np.moveaxis(np.stack(zibar[::-1]), -1, axis + 1)
    return sosbar, xbar, zb


def keyed(adjoints, p, k, name, adjoint):
    """The pullback's result: adjoints of the leading operands, then of the optional positional ones (the
    last being `name`'s when it was passed by position), then, for `name` passed by keyword, a KwAdj."""
    from .call_binding import KwAdj

    if name in k:
        return tuple(adjoints) + (None,) * len(p) + (KwAdj({name: adjoint}),)
    if len(p) == 2:
        return tuple(adjoints) + (None, adjoint)
    return tuple(adjoints) + (None,) * len(p)


def register(registered) -> None:
    from .numpy_common import _bind, _split
    from .registry import defjvp, defvjp

    fn = _signal().sosfilt
    registered[fn] = "signal.sosfilt"
    names = ("axis", "zi")

    def jvp(t, y, sos, x, *p, **k):
        kw = _bind(names, p, k)
        zi = kw.get("zi")
        if t.d(sos) is None and t.d(x) is None and (zi is None or t.d(zi) is None):
            return None
        extra = {} if zi is None else {"dzi": t.dz(zi)}
        return t.call(sosfilt_tangent, sos, x, y, t.dz(sos), t.dz(x), **kw, **extra)

    def vjp(t, g, y, sos, x, *p, **k):
        parts = _split(t, t.call(sosfilt_adjoints, sos, x, y, g, **_bind(names, p, k)), 3)
        return keyed((parts[0], parts[1]), p, k, "zi", parts[2])

    defjvp(fn, jvp)
    defvjp(fn, vjp)
    _array_api_solve(registered)


def _array_api_solve(registered) -> None:
    """scipy.signal.lfilter_zi (which filtfilt and sosfiltfilt call) solves with SciPy's bundled array-API
    `linalg.solve`: NumPy 2's np.linalg.solve under another name (a 1-D right-hand side is a vector, a
    stack otherwise), so np.linalg.solve's rules."""
    try:
        from scipy._lib.array_api_compat.numpy import linalg as xl
    except ImportError:  # (a SciPy without it: nothing to do)
        return
    from .numpy_common import _split
    from .numpy_linalg import solve_tangent, solve_vjp
    from .registry import defcomplex, defjvp, defvjp

    fn = getattr(xl, "solve", None)
    if fn is None or fn is np.linalg.solve:
        return
    registered[fn] = "signal.lfilter_zi's linalg.solve"
    defjvp(fn, lambda t, y, a, b: t.call(solve_tangent, a, b, y, t.dz(a), t.dz(b))
           if (t.d(a) is not None or t.d(b) is not None) else None)
    defvjp(fn, lambda t, g, y, a, b: _split(t, t.call(solve_vjp, g, y, a, b), 2))
    defcomplex(fn)
