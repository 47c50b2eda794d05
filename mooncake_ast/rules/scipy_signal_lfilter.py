"""`scipy.signal.lfilter(b, a, x, axis=-1)` (issue 12), both modes; registered by scipy_signal_rules.register().

The filter is a0 y[n] + a1 y[n-1] + ... = b0 x[n] + b1 x[n-1] + ..., linear in x, so
    dy = lfilter(b, a, dx) + lfilter(db, a, x) - lfilter(da, a, y)
(perturbing a moves y by the response of the same filter to -da * y).  Its transpose in x is the same filter
run backwards in time: x_bar = rev(lfilter(b, a, rev(g))); with w = rev(lfilter([1], a, rev(g))) (g pulled back
through 1/A), b_bar[k] = sum_n w[n] x[n-k] and a_bar[k] = -sum_n w[n] y[n-k].  Along `axis` for N-D x (b and a
1-D).  Initial conditions (zi=, which makes lfilter return (y, zf)): scipy_signal_filters.py.  Complex data refused.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

FUNCTIONS = ["signal.lfilter"]


def _signal():
    import scipy.signal

    return scipy.signal


def _check(b, a, x, zi):
    if zi is not None:
        raise NotImplementedError("derivative of scipy.signal.lfilter with zi= (initial conditions)")
    if any(np.iscomplexobj(v) for v in (b, a, x)):
        raise NotImplementedError("derivative of scipy.signal.lfilter of complex data")
    if np.ndim(b) != 1 or np.ndim(a) != 1:
        raise NotImplementedError("derivative of scipy.signal.lfilter with b or a not 1-D")


def _zero(d):
    return d is None or d is NoTangent or not np.any(d)


def _lagged(v, k, axis):
    """v delayed by k samples along axis (zeros first)."""
    v = np.moveaxis(np.asarray(v, dtype=float), axis, -1)
    out = np.zeros_like(v)
    if k < v.shape[-1]:
        out[..., k:] = v[..., :v.shape[-1] - k]
    return np.moveaxis(out, -1, axis)


def lfilter_tangent(b, a, x, y, db, da, dx, axis=-1, zi=None):
    _check(b, a, x, zi)
    lf = _signal().lfilter
    out = np.zeros(np.shape(y))
    if not _zero(dx):
        out = out + lf(b, a, np.broadcast_to(dx, np.shape(x)), axis=axis)
    if not _zero(db):
        out = out + lf(np.asarray(db, dtype=float), a, x, axis=axis)
    if not _zero(da):
        out = out - lf(np.asarray(da, dtype=float), a, y, axis=axis)
    return out


def lfilter_adjoints(b, a, x, y, g, axis=-1, zi=None):
    """(b's, a's, x's adjoints)."""
    _check(b, a, x, zi)
    if _zero(g):
        return NoTangent, NoTangent, NoTangent
    lf = _signal().lfilter
    g = np.asarray(g, dtype=float)
    rev = lambda v: np.flip(v, axis=axis)  # noqa: E731
    xbar = rev(lf(b, a, rev(g), axis=axis))
    w = rev(lf([1.0], a, rev(g), axis=axis))
    bbar = np.array([np.sum(w * _lagged(x, k, axis)) for k in range(len(b))])
    abar = np.array([-np.sum(w * _lagged(y, k, axis)) for k in range(len(a))])
    from .numpy_extra import _like

    return (bbar if isinstance(b, np.ndarray) else _like(bbar, b)), (abar if isinstance(a, np.ndarray) else _like(abar, a)), \
        (xbar if isinstance(x, np.ndarray) else _like(xbar, x))


def register(registered) -> None:
    from .numpy_common import _bind, _split
    from .registry import defjvp, defvjp

    fn = _signal().lfilter
    registered[fn] = "signal.lfilter"
    names = ("axis", "zi")

    from .scipy_signal_filters import keyed, lfilter_zi_adjoints, lfilter_zi_tangent  # (zi=: scipy_signal_filters.py)

    def jvp(t, y, b, a, x, *p, **k):
        kw = _bind(names, p, k)
        zi = kw.pop("zi", None)
        if t.d(b) is None and t.d(a) is None and t.d(x) is None and (zi is None or t.d(zi) is None):
            return None
        if zi is not None:
            return t.call(lfilter_zi_tangent, b, a, x, zi, y, t.dz(b), t.dz(a), t.dz(x), t.dz(zi), **kw)
        return t.call(lfilter_tangent, b, a, x, y, t.dz(b), t.dz(a), t.dz(x), **kw)

    def vjp(t, g, y, b, a, x, *p, **k):
        kw = _bind(names, p, k)
        zi = kw.pop("zi", None)
        if zi is not None:
            parts = _split(t, t.call(lfilter_zi_adjoints, b, a, x, zi, y, g, **kw), 4)
            return keyed(parts[:3], p, k, "zi", parts[3])
        return tuple(_split(t, t.call(lfilter_adjoints, b, a, x, y, g, **kw), 3)) + (None,) * len(p)

    defjvp(fn, jvp)
    defvjp(fn, vjp)
