"""Rules of `scipy.signal.convolve` and `scipy.signal.correlate` (their source runs compiled code
inside a `try`), both modes; registered by registry.lookup once the user's code has imported
scipy.signal.  This module never imports SciPy itself.

Both are bilinear: d conv(a, b) = conv(da, b) + conv(a, db), with the same mode.  Reverse mode
goes through the 'full' convolution, of which 'same' and 'valid' keep a centred block starting at
(full shape - output shape) // 2 along each axis: the adjoint g is put back into a zero array of
the full shape, and then a's adjoint is correlate(g_full, b, 'valid') and b's correlate(g_full,
a, 'valid').  correlate(a, b) is conv(a, b flipped along every axis).  Forward mode takes complex
arrays (both are linear over the reals in each argument, correlate's conjugate included); reverse
mode real ones.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

from .scipy_signal_lfilter import FUNCTIONS as _LFILTER
from .scipy_signal_savgol import FUNCTIONS as _SAVGOL
from .scipy_signal_filters import FUNCTIONS as _FILTERS
from .scipy_signal_spectral import FUNCTIONS as _SPECTRAL
from .scipy_signal_conv2d import FUNCTIONS as _CONV2D
from .scipy_signal_detrend import FUNCTIONS as _DETREND

FUNCTIONS = ["signal.convolve", "signal.correlate"] + _SAVGOL + _LFILTER + _FILTERS + _SPECTRAL + _CONV2D + _DETREND  # (savgol_filter, lfilter: their modules)
REGISTERED: dict = {}
_MODES = ("full", "valid", "same")


def _signal():
    import scipy.signal

    return scipy.signal


def _zero(v):
    return v is None or v is NoTangent


def _mode(what, a, b, p, k):
    """The mode of a call (mode, method), refusing unknown options."""
    names = ("mode", "method")
    opts = dict(zip(names, p))
    opts.update(k)
    if set(opts) - set(names) or len(p) > 2:
        raise NotImplementedError(f"derivative of scipy.signal.{what} with {sorted(set(opts) - set(names))}")
    mode = opts.get("mode", "full")
    if mode not in _MODES:
        raise NotImplementedError(f"derivative of scipy.signal.{what} with mode={mode!r}")
    return mode, opts.get("method", "auto")


def _flip(x):
    return np.flip(np.asarray(x)) if np.ndim(x) else x


def conv_tangent(what, a, b, da, db, *p, **k):
    mode, method = _mode(what, a, b, p, k)
    fn = getattr(_signal(), what)
    out = NoTangent
    if not _zero(da):
        out = fn(np.broadcast_to(da, np.shape(a)), b, mode=mode, method=method)
    if not _zero(db):
        part = fn(a, np.broadcast_to(db, np.shape(b)), mode=mode, method=method)
        out = part if out is NoTangent else out + part
    return out


def conv_adjoints(what, a, b, y, g, *p, **k):
    """(a's adjoint, b's adjoint) of convolve / correlate."""
    mode, _ = _mode(what, a, b, p, k)
    if _zero(g):
        return NoTangent, NoTangent
    if np.iscomplexobj(a) or np.iscomplexobj(b) or np.iscomplexobj(g):
        raise NotImplementedError(f"reverse-mode derivative of scipy.signal.{what} of complex arrays")
    sig = _signal()
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    bc = _flip(b) if what == "correlate" else b  # correlate(a, b) = convolve(a, flip(b))
    full = tuple(m + n - 1 for m, n in zip(np.shape(a), np.shape(bc)))
    gfull = np.zeros(full)
    start = tuple((f - o) // 2 for f, o in zip(full, np.shape(y)))
    gfull[tuple(slice(s, s + o) for s, o in zip(start, np.shape(y)))] = np.asarray(g)
    abar = sig.correlate(gfull, bc, mode="valid")
    bbar = sig.correlate(gfull, a, mode="valid")
    return abar, (_flip(bbar) if what == "correlate" else bbar)


def register() -> None:
    """Register the rules (registry.lookup calls this once scipy.signal is imported)."""
    from .numpy_common import _split
    from .registry import defjvp, defvjp

    sig = _signal()
    for what in ("convolve", "correlate"):
        fn = getattr(sig, what)
        REGISTERED[fn] = f"signal.{what}"

        def jvp(t, y, a, b, *p, what=what, **k):
            if t.d(a) is None and t.d(b) is None:
                return None
            return t.call(conv_tangent, what, a, b, t.dz(a), t.dz(b), *p, **k)

        def vjp(t, g, y, a, b, *p, what=what, **k):
            return tuple(_split(t, t.call(conv_adjoints, what, a, b, y, g, *p, **k), 2)) + (None,) * len(p)

        defjvp(fn, jvp)
        defvjp(fn, vjp)
    from . import scipy_signal_savgol

    scipy_signal_savgol.register(REGISTERED)
    from . import scipy_signal_lfilter

    scipy_signal_lfilter.register(REGISTERED)
    from . import scipy_signal_filters

    scipy_signal_filters.register(REGISTERED)  # (sosfilt; lfilter's zi=)
    from . import scipy_signal_spectral

    scipy_signal_spectral.register(REGISTERED)  # (periodogram, welch)
    from . import scipy_signal_conv2d

    scipy_signal_conv2d.register(REGISTERED)  # (convolve2d, correlate2d)
    from . import scipy_signal_detrend

    scipy_signal_detrend.register(REGISTERED)  # (detrend: a self-adjoint projection)
