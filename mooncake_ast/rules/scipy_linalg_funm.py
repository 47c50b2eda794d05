"""`scipy.linalg.funm(A, func)` and `scipy.linalg.signm(A)` (issue 12), both modes; registered by
scipy_linalg_rules.register() once scipy.linalg is imported (no SciPy import here).

Both are primary matrix functions, F = f(A).  SciPy computes them by a Schur-Parlett recurrence that
loses accuracy where eigenvalues repeat, so the block formula f([[A, E], [0, A]]) the other matrix
functions use (scipy_linalg_trig.py) is not available here.  The derivative is the Daleckii-Krein
formula on the eigendecomposition A = V diag(l) V^-1:

    L(A, E) = V (D o (V^-1 E V)) V^-1,  D[i, j] = (f(l_i) - f(l_j)) / (l_i - l_j), D[i, i] = f'(l_i)

(f' at the mean where two eigenvalues are within rounding of each other), and its adjoint for the real
inner product, L*(G) = V^-H (conj(D) o (V^H G V^-H)) V^H; the real part for a real A whose F is real.
f' of the user's `func` is its own forward-mode derivative (mc.jvp at the eigenvalues, a complex
direction 1: right for the holomorphic functions funm is meant for).  signm's f is the sign of the real
part, f' = 0.
Refused: a matrix whose eigenvectors are (nearly) dependent (a defective matrix: the formula needs a
basis of eigenvectors, cond(V) > 1e8), signm with an eigenvalue on the imaginary axis (no derivative),
funm's `disp=False` (a tuple with an error estimate), and in reverse mode a `func` that holds floats or
arrays in its closure or defaults (what the adjoint of those would need is not computed).
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

FUNCTIONS = ["linalg.funm", "linalg.signm"]
_COND = 1e8


def _la():
    import scipy.linalg

    return scipy.linalg


def _eig(name, a):
    a = np.asarray(a)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise NotImplementedError(f"derivative of scipy.linalg.{name} of anything but a square 2-D matrix")
    lam, v = np.linalg.eig(a)
    if np.linalg.cond(v) > _COND:
        raise NotImplementedError(f"derivative of scipy.linalg.{name} of a matrix without a well-conditioned basis of "
                                  "eigenvectors (defective or nearly so): the derivative formula needs one")
    return lam, v


def _func_derivative(func, lam):
    """f(l) and f'(l) of the user's func at the eigenvalues (complex)."""
    from ..api import jvp

    lam = np.asarray(lam, dtype=complex)
    f, df = jvp(func, (lam,), (np.ones_like(lam),))
    return np.asarray(f, dtype=complex), np.asarray(df, dtype=complex)


def _differences(lam, f, df):
    dl = lam[:, None] - lam[None, :]
    scale = np.maximum(np.abs(lam[:, None]), np.abs(lam[None, :])) + 1.0
    close = np.abs(dl) <= 1e-9 * scale
    with np.errstate(divide="ignore", invalid="ignore"):
        d = (f[:, None] - f[None, :]) / np.where(close, 1.0, dl)
    mean = 0.5 * (df[:, None] + df[None, :])
    return np.where(close, mean, d)


def _sign_parts(lam):
    if np.any(np.abs(lam.real) <= 1e-12 * (np.abs(lam) + 1.0)):
        raise NotImplementedError("derivative of scipy.linalg.signm of a matrix with an eigenvalue on the imaginary "
                                  "axis (the sign function jumps there)")
    s = np.sign(lam.real).astype(complex)
    return s, np.zeros_like(s)


def _parts(name, a, func):
    lam, v = _eig(name, a)
    f, df = _sign_parts(lam) if name == "signm" else _func_derivative(func, lam)
    return v, _differences(lam, f, df)


def _real_if(a, y, out):
    return np.real(out) if not np.iscomplexobj(a) and not np.iscomplexobj(y) else out


def _check_disp(name, disp):
    if not disp:
        raise NotImplementedError(f"derivative of scipy.linalg.{name} with disp=False (the result is a tuple with an "
                                  "error estimate)")


def funm_tangent(name, a, func, disp, y, da):
    _check_disp(name, disp)
    v, d = _parts(name, a, func)
    vinv = np.linalg.inv(v)
    out = v @ (d * (vinv @ np.asarray(da) @ v)) @ vinv
    return _real_if(np.asarray(a), y, out)


def funm_adjoint(name, a, func, disp, y, g):
    if g is NoTangent or g is None or not np.any(g):
        return NoTangent
    _check_disp(name, disp)
    if name == "funm":
        from ..frontend.stmt_ops import carries_tangent

        held = [c.cell_contents for c in (getattr(func, "__closure__", None) or ()) if _filled(c)]
        held += list(getattr(func, "__defaults__", None) or ())
        if carries_tangent(held):
            raise NotImplementedError("reverse mode of scipy.linalg.funm with a func that holds floats or arrays (in "
                                      "its closure or defaults): their adjoints are not computed; use forward mode, "
                                      "or a func of the matrix entries alone")
    v, d = _parts(name, a, func)
    vh = np.conj(v.T)
    vinvh = np.linalg.inv(vh)
    out = vinvh @ (np.conj(d) * (vh @ np.asarray(g) @ vinvh)) @ vh
    return _real_if(np.asarray(a), y, out)


def _filled(cell):
    try:
        cell.cell_contents
        return True
    except ValueError:
        return False


def register(registered) -> None:
    from .registry import defcomplex, defjvp, defvjp

    la = _la()
    registered[la.funm] = "linalg.funm"
    registered[la.signm] = "linalg.signm"

    def funm_jvp(t, y, a, func, disp=True):
        if t.d(a) is None:
            return None
        return t.call(funm_tangent, "funm", a, func, disp, y, t.dz(a))

    def funm_vjp(t, g, y, a, func, disp=True):
        return (t.call(funm_adjoint, "funm", a, func, disp, y, g), None)

    def signm_jvp(t, y, a, disp=True):
        if t.d(a) is None:
            return None
        return t.call(funm_tangent, "signm", a, None, disp, y, t.dz(a))

    def signm_vjp(t, g, y, a, disp=True):
        return (t.call(funm_adjoint, "signm", a, None, disp, y, g),)

    defjvp(la.funm, funm_jvp)
    defvjp(la.funm, funm_vjp)
    defjvp(la.signm, signm_jvp)
    defvjp(la.signm, signm_vjp)
    defcomplex(la.funm, la.signm)  # (the adjoint is the real-inner-product adjoint of the complex formula)
