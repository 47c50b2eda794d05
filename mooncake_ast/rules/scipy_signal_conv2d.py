"""`scipy.signal.convolve2d` and `correlate2d` (issue 12, second pass), both modes; registered by
scipy_signal_rules.register() (no SciPy import here).  With boundary='fill' and fillvalue=0 (the defaults) they
are scipy.signal.convolve / correlate of two 2-D arrays, whose rules (scipy_signal_rules.conv_tangent,
conv_adjoints) they use: bilinear, d(a * b) = da * b + a * db, the pullback a correlation with the other
operand.  Each call checks that the two agree; other boundaries ('wrap', 'symm') and a nonzero fillvalue are
refused by name.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

FUNCTIONS = ["signal.convolve2d", "signal.correlate2d"]
_NAMES = ("mode", "boundary", "fillvalue")


def _plain(what, a, b, y, mode="full", boundary="fill", fillvalue=0):
    """The 1-D-style function (convolve or correlate) and the mode, after checking the call matches it."""
    import scipy.signal

    if boundary not in ("fill", "pad") or np.any(np.asarray(fillvalue) != 0):
        raise NotImplementedError(f"derivative of scipy.signal.{what}2d with boundary={boundary!r}, "
                                  f"fillvalue={fillvalue!r}: only boundary='fill' with fillvalue=0")
    if np.ndim(a) != 2 or np.ndim(b) != 2:
        raise NotImplementedError(f"derivative of scipy.signal.{what}2d of arrays that are not 2-D")
    ref = getattr(scipy.signal, what)(a, b, mode=mode, method="direct")
    if np.shape(ref) != np.shape(y) or not np.allclose(ref, y, rtol=1e-9, atol=1e-12):
        raise NotImplementedError(f"derivative of scipy.signal.{what}2d with these arguments (mode={mode!r})")
    return mode


def conv2d_tangent(what, a, b, y, da, db, **opts):
    from .scipy_signal_rules import conv_tangent

    mode = _plain(what, a, b, y, **opts)
    return conv_tangent(what, a, b, da, db, mode=mode)


def conv2d_adjoints(what, a, b, y, g, **opts):
    from .scipy_signal_rules import conv_adjoints

    if g is NoTangent or g is None:
        return NoTangent, NoTangent
    mode = _plain(what, a, b, y, **opts)
    return conv_adjoints(what, a, b, y, g, mode=mode)


def register(registered) -> None:
    import scipy.signal

    from .numpy_common import _bind, _split
    from .registry import defjvp, defvjp

    for what in ("convolve", "correlate"):
        fn = getattr(scipy.signal, what + "2d")
        registered[fn] = f"signal.{what}2d"

        def jvp(t, y, a, b, *p, what=what, **k):
            if t.d(a) is None and t.d(b) is None:
                return None
            return t.call(conv2d_tangent, what, a, b, y, t.dz(a), t.dz(b), **_bind(_NAMES, p, k))

        def vjp(t, g, y, a, b, *p, what=what, **k):
            return tuple(_split(t, t.call(conv2d_adjoints, what, a, b, y, g, **_bind(_NAMES, p, k)), 2)) + (None,) * len(p)

        defjvp(fn, jvp)
        defvjp(fn, vjp)
