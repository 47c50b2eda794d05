"""`scipy.linalg.fractional_matrix_power(A, t)` (issue 12), both modes; registered by
scipy_linalg_rules.register() once scipy.linalg is imported (no SciPy import here).

Y = A^t is a primary matrix function, so its Frechet derivative L(A, E) is the top-right block of
f([[A, E], [0, A]]) (the block matrix's power, computed by SciPy itself), and for a real A the adjoint is
L(A^T, G) (f has real Taylor coefficients).  In the exponent, A^t = expm(t logm(A)) and logm(A) commutes
with A^t: dY/dt = logm(A) Y.
Refused: a real A whose power is complex (an eigenvalue on the negative real axis with t not a whole
number: the derivative of a real-to-complex map), and complex A (not checked against finite differences here).
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

FUNCTIONS = ["linalg.fractional_matrix_power"]


def _linalg():
    import scipy.linalg

    return scipy.linalg


def _check(a, y):
    if np.ndim(a) != 2 or np.shape(a)[0] != np.shape(a)[1]:
        raise NotImplementedError("derivative of scipy.linalg.fractional_matrix_power of anything but a square 2-D matrix")
    if np.iscomplexobj(a):
        raise NotImplementedError("derivative of scipy.linalg.fractional_matrix_power of a complex matrix: not supported")
    if np.iscomplexobj(y) and np.max(np.abs(np.imag(y)), initial=0.0) > 1e-10 * np.max(np.abs(y), initial=1.0):
        # (complex eigenvalue pairs give a real power up to rounding in SciPy's complex arithmetic)
        raise NotImplementedError("derivative of scipy.linalg.fractional_matrix_power of a real matrix whose power is "
                                  "complex (an eigenvalue on the negative real axis)")


def _frechet(a, e, t):
    n = a.shape[0]
    big = np.zeros((2 * n, 2 * n))
    big[:n, :n] = a
    big[n:, n:] = a
    big[:n, n:] = e
    out = _linalg().fractional_matrix_power(big, t)
    return np.real(out[:n, n:]) if np.iscomplexobj(out) else out[:n, n:]


def _dt(a, y):
    log = _linalg().logm(np.asarray(a, dtype=float))
    return np.real(log @ np.asarray(y)) if np.iscomplexobj(log) else log @ np.asarray(y, dtype=float)


def fmp_tangent(a, t, y, da, dt):
    _check(a, y)
    a = np.asarray(a, dtype=float)
    out = np.zeros(a.shape)
    if da is not NoTangent:
        out = out + _frechet(a, np.asarray(da, dtype=float), t)
    if dt is not NoTangent:
        out = out + np.asarray(dt, dtype=float) * _dt(a, y)
    return out


def fmp_adjoints(a, t, y, g, want_t):
    if g is NoTangent or g is None or not np.any(g):
        return NoTangent, NoTangent
    _check(a, y)
    a = np.asarray(a, dtype=float)
    g = np.real(np.asarray(g, dtype=complex if np.iscomplexobj(g) else float))
    abar = _frechet(a.T, g, t)
    tbar = float(np.sum(g * _dt(a, y))) if want_t else NoTangent
    return abar, tbar


def register(registered) -> None:
    from .numpy_common import _split
    from .registry import defjvp, defvjp

    fn = _linalg().fractional_matrix_power
    registered[fn] = FUNCTIONS[0]

    def jvp(t, y, a, p):
        if t.d(a) is None and t.d(p) is None:
            return None
        return t.call(fmp_tangent, a, p, y, t.dz(a), t.dz(p))

    def vjp(t, g, y, a, p):
        needs = getattr(t, "needs", None)
        want = needs is None or needs(p)
        return tuple(_split(t, t.call(fmp_adjoints, a, p, y, g, want), 2))

    defjvp(fn, jvp)
    defvjp(fn, vjp)
