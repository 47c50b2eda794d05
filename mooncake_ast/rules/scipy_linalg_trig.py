"""`scipy.linalg`'s trigonometric and hyperbolic matrix functions cosm, sinm, tanm, coshm, sinhm, tanhm (issue 12),
both modes; registered by scipy_linalg_rules.register() once scipy.linalg is imported (no SciPy import here).
(Traced, they go through expm of a complex matrix, which reverse mode does not take.)

Each f is a primary matrix function with real Taylor coefficients, so its Frechet derivative L(A, E) is the
top-right block of f([[A, E], [0, A]]) (computed by the same SciPy function) and the adjoint of a real A
is L(A^T, G).  Complex A is refused in reverse mode (forward mode takes it: the block formula holds there too).
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

NAMES = ("cosm", "sinm", "tanm", "coshm", "sinhm", "tanhm")
FUNCTIONS = [f"linalg.{n}" for n in NAMES]


def _la():
    import scipy.linalg

    return scipy.linalg


def _frechet(name, a, e):
    a = np.asarray(a)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise NotImplementedError(f"derivative of scipy.linalg.{name} of anything but a square 2-D matrix")
    n = a.shape[0]
    big = np.zeros((2 * n, 2 * n), dtype=np.result_type(a, e, float))
    big[:n, :n] = a
    big[n:, n:] = a
    big[:n, n:] = e
    return getattr(_la(), name)(big)[:n, n:]


def trig_tangent(name, a, da):
    return _frechet(name, a, np.asarray(da))


def trig_adjoint(name, a, g):
    if g is NoTangent or g is None or not np.any(g):
        return NoTangent
    if np.iscomplexobj(a) or np.iscomplexobj(g):
        raise NotImplementedError(f"reverse mode of scipy.linalg.{name} with complex values: use forward mode")
    return _frechet(name, np.asarray(a, dtype=float).T, np.asarray(g, dtype=float))


def register(registered) -> None:
    from .registry import defjvp, defvjp

    la = _la()
    for name in NAMES:
        fn = getattr(la, name, None)
        if fn is None:
            continue
        registered[fn] = f"linalg.{name}"
        defjvp(fn, lambda t, y, a, name=name: t.call(trig_tangent, name, a, t.dz(a)) if t.d(a) is not None else None)
        defvjp(fn, lambda t, g, y, a, name=name: (t.call(trig_adjoint, name, a, g),))
