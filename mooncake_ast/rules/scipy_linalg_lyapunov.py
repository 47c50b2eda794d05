"""`scipy.linalg.solve_continuous_lyapunov(A, Q)` (issue 12), both modes; registered by
scipy_linalg_rules.register() once scipy.linalg is imported (no SciPy import here).

X solves A X + X A^T = Q (real A, Q), a Sylvester equation with B = A^T:
    A dX + dX A^T = dQ - dA X - X dA^T.
The operator L(X) = A X + X A^T has the adjoint L*(Y) = A^T Y + Y A, so with Qbar = L*^-1(Xbar) (itself a
Lyapunov solve, with A^T): Abar = -(Qbar X^T + Qbar^T X).  Needs a unique solution (no two eigenvalues of A
summing to 0), as SciPy does.  Complex A or Q are refused (the equation conjugates A there).
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

FUNCTIONS = ["linalg.solve_continuous_lyapunov"]


def _la():
    import scipy.linalg

    return scipy.linalg


def _real(a, q):
    if np.iscomplexobj(a) or np.iscomplexobj(q):
        raise NotImplementedError("derivative of scipy.linalg.solve_continuous_lyapunov of complex matrices")


def lyap_tangent(a, q, x, da, dq):
    _real(a, q)
    a, x = np.asarray(a, dtype=float), np.asarray(x, dtype=float)
    rhs = np.zeros(x.shape) if dq is NoTangent else np.asarray(dq, dtype=float) + np.zeros(x.shape)
    if da is not NoTangent:
        da = np.asarray(da, dtype=float)
        rhs = rhs - da @ x - x @ da.T
    return _la().solve_continuous_lyapunov(a, rhs)


def lyap_adjoints(a, q, x, g):
    if g is NoTangent or g is None or not np.any(g):
        return NoTangent, NoTangent
    _real(a, q)
    a, x = np.asarray(a, dtype=float), np.asarray(x, dtype=float)
    qbar = _la().solve_continuous_lyapunov(a.T, np.asarray(g, dtype=float))
    abar = -(qbar @ x.T + qbar.T @ x)
    return abar, qbar


def register(registered) -> None:
    from .numpy_common import _split
    from .registry import defjvp, defvjp

    fn = _la().solve_continuous_lyapunov
    registered[fn] = FUNCTIONS[0]

    def jvp(t, y, a, q):
        if t.d(a) is None and t.d(q) is None:
            return None
        return t.call(lyap_tangent, a, q, y, t.dz(a), t.dz(q))

    def vjp(t, g, y, a, q):
        return tuple(_split(t, t.call(lyap_adjoints, a, q, y, g), 2))

    defjvp(fn, jvp)
    defvjp(fn, vjp)
