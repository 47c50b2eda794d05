"""`scipy.linalg.polar(a, side)`, both modes; registered by scipy_linalg_eig.register() (no SciPy import here).

SciPy computes the polar decomposition from the SVD, a = W diag(s) V^T, as u = W V^T and p = V diag(s) V^T
(side="right", a = u p) or p = W diag(s) W^T (side="left", a = p u).  Differentiated through the SVD, its
singular vectors' terms carry 1 / (s_j^2 - s_i^2), infinite where singular values repeat (a multiple of an
orthogonal matrix, a symmetric matrix with a double eigenvalue) and garbage where they are equal up to
rounding, while the polar factors themselves are smooth there.  From p^2 = a^T a and u = a p^-1 instead:

    p dp + dp p = da^T a + a^T da  (a Sylvester equation, dp = solve_sylvester(p, p, .)),
    du = (da - u dp) p^-1,

whose only denominators are sums s_i + s_j of singular values: finite wherever a has full rank, repeated
singular values included.  The adjoints are their transposes: with B = u_bar p^-1 and
Y = solve_sylvester(p, p, p_bar - u^T B), a_bar = B + a (Y + Y^T).  Both are written with solve and
solve_sylvester, whose own rules differentiate them again (a Hessian meets no SVD either).
side="left" is the right decomposition of a^T, transposed.
Refused: complex matrices, a rank-deficient a (p is a square root of a^T a there: no derivative), a wide a with
side="right" or a tall one with side="left" (p is then rank-deficient itself).
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

FUNCTIONS = ["linalg.polar"]


def check_polar(a, side, p):
    """Refuse what the formulas do not cover."""
    a = np.asarray(a)
    if a.ndim != 2:
        raise NotImplementedError("derivative of scipy.linalg.polar of anything but a 2-D matrix")
    if np.iscomplexobj(a):
        raise NotImplementedError("derivative of scipy.linalg.polar of a complex matrix")
    if side not in ("right", "left"):
        raise NotImplementedError(f"derivative of scipy.linalg.polar with side={side!r}")
    m, n = a.shape if side == "right" else a.shape[::-1]
    if m < n:
        raise NotImplementedError("derivative of scipy.linalg.polar of a wide matrix with side='right' (or a tall "
                                  "one with side='left'): its p is rank-deficient, a square root without a derivative")
    s = np.linalg.svd(np.asarray(p), compute_uv=False)
    if s.size and s[-1] <= 1e3 * np.finfo(float).eps * max(m, n) * s[0]:
        raise NotImplementedError("derivative of scipy.linalg.polar of a rank-deficient matrix (p is the square "
                                  "root of a^T a, which has no derivative at a singular one)")


def polar_tangent(a, side, y, da):
    """(du, dp) along da."""
    import scipy.linalg as sl

    u, p = y
    check_polar(a, side, p)
    right = side == "right"
    a_r, u_r = (a, u) if right else (a.T, u.T)
    d = np.broadcast_to(da, np.shape(a))
    d = d if right else d.T
    dp = sl.solve_sylvester(p, p, d.T @ a_r + a_r.T @ d)
    du = np.linalg.solve(p, (d - u_r @ dp).T).T
    return (du, dp) if right else (du.T, dp)


def polar_adjoint(a, side, y, g):
    """a's adjoint for the adjoints g = (u_bar, p_bar) of (u, p)."""
    import scipy.linalg as sl

    from .numpy_linalg import _parts as split

    ubar, pbar = split(g, 2)
    if ubar is NoTangent and pbar is NoTangent:
        return NoTangent
    u, p = y
    check_polar(a, side, p)
    right = side == "right"
    a_r, u_r = (a, u) if right else (a.T, u.T)
    q = np.zeros(np.shape(p)) if pbar is NoTangent else pbar
    out = 0.0
    if ubar is not NoTangent:
        B = np.linalg.solve(p, (ubar if right else ubar.T).T).T  # (p symmetric: u_bar p^-1)
        q = q - u_r.T @ B
        out = B
    Y = sl.solve_sylvester(p, p, q)
    out = out + a_r @ (Y + Y.T)
    return out if right else out.T


def register(registered) -> None:
    import scipy.linalg as sl

    from .registry import defjvp, defvjp

    registered[sl.polar] = "linalg.polar"

    def jvp(t, y, a, side="right"):
        if t.d(a) is None:
            return None
        return t.call(polar_tangent, a, side, y, t.d(a))

    def vjp(t, g, y, a, side="right"):
        return (t.call(polar_adjoint, a, side, y, g), None)

    defjvp(sl.polar, jvp)
    defvjp(sl.polar, vjp)
