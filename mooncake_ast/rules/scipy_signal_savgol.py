"""scipy.signal.savgol_filter, both modes (registered with scipy_signal_rules once scipy.signal is imported).

Its source reaches SciPy's array-API helpers (relative imports inside functions), so it is not traced.
savgol_filter(x, window_length, polyorder, deriv, delta, axis, mode, cval) is, for each 1-D slice along
`axis`, y = L x + cval s, with L linear (a convolution with the Savitzky-Golay coefficients over x padded
as `mode` says, or for mode='interp' polynomial fits over the first and last windows), s its response to
the padding value (mode='constant' only), and the whole scaled by delta^-deriv.  So:

* forward: dy = savgol_filter(dx, ..., cval=0) + dcval s - (deriv / delta) y ddelta;
* reverse: x_bar = L^T g along `axis`, cval_bar = sum(g s), delta_bar = -(deriv / delta) sum(g y).

L is read off the filter itself rather than re-derived: output i depends on inputs within one window of
i (the padding of every mode but 'wrap' reflects or repeats entries near the edge, and the edge fits of
'interp' read the first and last window), so probing with the p = 2 w + 1 combs (1 at the indices = r mod
p) separates every entry of L, at the cost of p filter calls of one 1-D slice.  'wrap' (and any slice no
longer than p) takes L whole from the identity, refused beyond 4096 samples.  Complex data: forward only.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

FUNCTIONS = ["signal.savgol_filter"]
_DENSE_MAX = 4096


def _signal():
    import scipy.signal

    return scipy.signal


def _zero(v):
    return v is None or v is NoTangent


def _filter(x, w, po, deriv, delta, axis, mode, cval):
    return _signal().savgol_filter(x, w, po, deriv=deriv, delta=delta, axis=axis, mode=mode, cval=cval)


def _response(n, w, po, deriv, delta, mode):
    """s: the output of a zero slice padded with 1 (mode='constant'; zero otherwise)."""
    if mode != "constant":
        return np.zeros(n)
    return _filter(np.zeros(n), w, po, deriv, delta, -1, mode, 1.0)


def savgol_tangent(x, y, dx, ddelta, dcval, w, po, deriv=0, delta=1.0, axis=-1, mode="interp", cval=0.0):
    dy = None if _zero(dx) else _filter(np.asarray(dx), w, po, deriv, delta, axis, mode, 0.0)
    if not _zero(dcval) and mode == "constant":
        n = np.shape(x)[axis]
        shape = [1] * np.ndim(y)
        shape[axis] = n
        part = _response(n, w, po, deriv, delta, mode).reshape(shape) * dcval
        dy = part if dy is None else dy + part
    if not _zero(ddelta) and deriv:
        part = -(deriv / delta) * np.asarray(y) * ddelta
        dy = part if dy is None else dy + part
    return np.zeros(np.shape(y)) if dy is None else dy


def _transpose_dense(n, w, po, deriv, delta, mode):
    """R = L^T for slices of length n (row j: the filter of the j-th unit vector)."""
    if n > _DENSE_MAX:
        raise NotImplementedError(f"reverse mode of scipy.signal.savgol_filter with mode={mode!r} along more than "
                                  f"{_DENSE_MAX} samples")
    return _filter(np.eye(n), w, po, deriv, delta, -1, mode, 0.0)


def _apply_transpose(g, n, w, po, deriv, delta, mode):
    """L^T g along the last axis of g."""
    p = 2 * w + 1
    if mode == "wrap" or n <= p:
        return g @ _transpose_dense(n, w, po, deriv, delta, mode).T
    combs = np.zeros((p, n))
    for r in range(p):
        combs[r, r::p] = 1.0
    Y = _filter(combs, w, po, deriv, delta, -1, mode, 0.0)  # Y[r, i] = L[i, j] for the j = r (mod p) near i
    out = np.zeros(g.shape)
    i = np.arange(n)
    for d in range(-w, w + 1):  # L[i, i + d]
        j = i + d
        ok = (j >= 0) & (j < n)
        entry = Y[j[ok] % p, i[ok]]
        out[..., j[ok]] += entry * g[..., i[ok]]
    return out


def savgol_adjoints(x, y, g, w, po, deriv=0, delta=1.0, axis=-1, mode="interp", cval=0.0):
    """(x_bar, delta_bar, cval_bar)."""
    if _zero(g):
        return NoTangent, NoTangent, NoTangent
    if np.iscomplexobj(x) or np.iscomplexobj(g):
        raise NotImplementedError("reverse mode of scipy.signal.savgol_filter of complex data")
    g = np.asarray(g, dtype=float)
    n = np.shape(x)[axis]
    gl = np.moveaxis(g, axis, -1)
    xbar = np.moveaxis(_apply_transpose(gl, n, w, po, deriv, delta, mode), -1, axis)
    cbar = float(np.sum(gl * _response(n, w, po, deriv, delta, mode))) if mode == "constant" else 0.0
    dbar = -(deriv / delta) * float(np.sum(g * np.asarray(y))) if deriv else 0.0
    return xbar, dbar, cbar


def register(REGISTERED) -> None:
    from .numpy_common import _split
    from .registry import defjvp, defvjp

    fn = _signal().savgol_filter
    REGISTERED[fn] = "signal.savgol_filter"

    def jvp(t, y, x, window_length, polyorder, deriv=0, delta=1.0, axis=-1, mode="interp", cval=0.0):
        if t.d(x) is None and t.d(delta) is None and t.d(cval) is None:
            return None
        return t.call(savgol_tangent, x, y, t.dz(x), t.dz(delta), t.dz(cval), window_length, polyorder, deriv, delta,
                      axis, mode, cval)

    def vjp(t, g, y, x, window_length, polyorder, deriv=0, delta=1.0, axis=-1, mode="interp", cval=0.0):
        xbar, dbar, cbar = _split(t, t.call(savgol_adjoints, x, y, g, window_length, polyorder, deriv, delta, axis,
                                            mode, cval), 3)
        return (xbar, None, None, None, dbar, None, None, cbar)

    defjvp(fn, jvp)
    defvjp(fn, vjp)
