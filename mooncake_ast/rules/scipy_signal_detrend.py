"""`scipy.signal.detrend(data, axis=-1, type='linear', bp=0, overwrite_data=False)` (issue 12, second pass),
both modes; registered by scipy_signal_rules.register() (no SciPy import here).

Detrending removes from each piece (between the breakpoints bp) its least-squares fit by a constant or a line:
the residual of an orthogonal projection, a linear map that is its own transpose (and, for complex data, its own
conjugate transpose).  So the tangent is detrend(dx) and the pullback detrend(g), with the same arguments.  (It
was traced before: its breakpoints, integers, reached np.unique with an adjoint in reverse mode.)
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

FUNCTIONS = ["signal.detrend"]
_NAMES = ("axis", "type", "bp", "overwrite_data")


def detrend_linear(data, d, axis=-1, type="linear", bp=0, overwrite_data=False):
    """detrend applied to d (the tangent or the adjoint), never overwriting it."""
    import scipy.signal

    if d is NoTangent or d is None:
        return NoTangent
    d = np.array(np.broadcast_to(d, np.shape(data)), dtype=np.result_type(np.asarray(d).dtype, float))
    out = scipy.signal.detrend(d, axis=axis, type=type, bp=bp)
    if not isinstance(data, np.ndarray) and np.ndim(out) == 1:
        return [v.item() for v in out]
    return out


def register(registered) -> None:
    import scipy.signal

    from .numpy_common import _bind
    from .registry import defcomplex, defjvp, defvjp

    fn = scipy.signal.detrend
    registered[fn] = "signal.detrend"
    defjvp(fn, lambda t, y, data, *p, **k: t.call(detrend_linear, data, t.d(data), **_bind(_NAMES, p, k))
           if t.d(data) is not None else None)
    defvjp(fn, lambda t, g, y, data, *p, **k: (t.call(detrend_linear, data, g, **_bind(_NAMES, p, k)),) + (None,) * len(p))
    defcomplex(fn)
