"""np.linalg.slogdet, cholesky, qr and lstsq for complex matrices (issue 12), both modes; real matrices keep the
rules of numpy_linalg.py.  Reverse mode follows the real inner product Re(sum(conj(a) b)) (README "Complex
numbers"): each adjoint below is the adjoint of the tangent above it in that inner product.

* slogdet(A) = (sign, log|det A|): with t = tr(A^-1 dA), d log|det| = Re t and d sign = sign i Im t;
  A_bar = (logdet_bar + i Re(i conj(sign_bar) sign)) A^-H.
* cholesky(A) = L with L L^H = S, the Hermitian matrix LAPACK reads (one strict triangle, mirrored
  conjugated, and the real part of the diagonal): dL = L Phi(L^-1 dS L^-H), Phi the lower triangle with
  half the (real) diagonal; S_bar = L^-H Phi(L^H L_bar) L^-1, then back to the triangle read:
  A_bar = tril(S_bar, -1) + tril(S_bar^H, -1) + Re diag(S_bar) (upper=True: the mirror image).
* qr(A) = QR, A tall or square of full rank.  LAPACK's R has a real diagonal, which fixes the phase of each
  column of Q; then Q^H dQ = C is anti-Hermitian with C's diagonal = i Im diag(X), X = Q^H dA R^-1, and
  its strict lower triangle X's: dR = (X - C) R, dQ = dA R^-1 - Q (X - C).  X - C is upper triangular with
  (X - C)_ij = X_ij + conj(X_ji) above the diagonal and Re X_ii on it, whose adjoint takes M to
  triu(M, 1) + tril(M^H, -1) + Re diag(M); M = R_bar R^H - Q^H Q_bar, A_bar = (Q_bar + Q X_bar) R^-H.
* lstsq(A, b), A of full rank: x = A+ b is not holomorphic (A+ holds A^H): dx = A+ (db - dA x)
  + A+ A+^H dA^H r + (I - A+ A) dA^H A+^H x with r = b - A x; the residual sums |r_j|^2 change by
  2 Re(r_j^H (db_j - dA x_j)); the singular values by Re(u_i^H dA v_i).  The real adjoints with ^T -> ^H.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent
from . import numpy_linalg as real
from .numpy_common import _inexact, _no_adjoint
from .registry import defcomplex, defjvp, defvjp


def _mH(a):
    return np.conj(np.swapaxes(a, -1, -2))


def _complex(*xs):
    return any(np.iscomplexobj(x) for x in xs if x is not NoTangent and x is not None)


# ------------------------------------------------------------------ slogdet
def slogdet_tangent(a, y, da):
    if not _complex(a, da):
        return real.slogdet_tangent(a, y, da)
    if da is NoTangent:
        return NoTangent
    t = np.trace(np.linalg.solve(a, np.broadcast_to(da, np.shape(a))), axis1=-2, axis2=-1)
    sign = np.asarray(y[0])
    dsign = sign * 1j * np.imag(t)
    return (dsign if np.iscomplexobj(sign) else NoTangent), np.real(t)


def slogdet_adjoint(a, y, g):
    if not _complex(a):
        return real.slogdet_adjoint(a, y, g)
    gs, gl = real._parts(g, 2)
    if gs is NoTangent and gl is NoTangent:
        return NoTangent
    sign = np.asarray(y[0])
    coef = np.zeros(np.shape(sign), complex)
    if gl is not NoTangent:
        coef = coef + np.real(np.asarray(gl))
    if gs is not NoTangent:
        coef = coef + 1j * np.real(1j * np.conj(np.asarray(gs)) * sign)
    return coef[..., None, None] * _mH(np.linalg.inv(a))


# ------------------------------------------------------------------ cholesky
def _seen(d, upper):
    tri = np.triu(d, 1) if upper else np.tril(d, -1)
    n = d.shape[-1]
    return tri + _mH(tri) + np.real(np.diagonal(d, axis1=-2, axis2=-1))[..., None, :] * np.eye(n)


def _seen_adjoint(p, upper):
    n = p.shape[-1]
    diag = np.real(np.diagonal(p, axis1=-2, axis2=-1))[..., None, :] * np.eye(n)
    if upper:
        return np.triu(p, 1) + np.triu(_mH(p), 1) + diag
    return np.tril(p, -1) + np.tril(_mH(p), -1) + diag


def cholesky_tangent(a, y, da, upper=False):
    if not _complex(a, da):
        return real.cholesky_tangent(a, y, da, upper)
    L = _mH(y) if upper else y
    S = _seen(np.broadcast_to(da, np.shape(a)), upper)
    X = np.linalg.solve(L, _mH(np.linalg.solve(L, S)))  # L^-1 S L^-H (S Hermitian)
    dL = L @ real._phi(X)
    return _mH(dL) if upper else dL


def cholesky_adjoint(a, y, g, upper=False):
    if not _complex(a):
        return real.cholesky_adjoint(a, y, g, upper)
    if _no_adjoint(g):
        return NoTangent
    L = _mH(y) if upper else y
    Lbar = _mH(np.asarray(g)) if upper else np.asarray(g)
    W = np.linalg.solve(_mH(L), real._phi(_mH(L) @ Lbar))  # L^-H Phi(L^H Lbar)
    P = _mH(np.linalg.solve(_mH(L), _mH(W)))  # W L^-1
    return _seen_adjoint(P, upper)


# ------------------------------------------------------------------ qr
def qr_tangent(a, y, da, mode="reduced"):
    if not _complex(a, da):
        return real.qr_tangent(a, y, da, mode)
    real._qr_check(a, mode)
    Q, R = real._qr_factors(a, y, mode)
    Y = _mH(np.linalg.solve(_mH(R), _mH(np.broadcast_to(da, np.shape(a)))))  # dA R^-1
    X = _mH(Q) @ Y
    low = np.tril(X, -1)
    n = X.shape[-1]
    C = low - _mH(low) + 1j * np.imag(np.diagonal(X, axis1=-2, axis2=-1))[..., None, :] * np.eye(n)
    U = X - C
    dR = U @ R
    return dR if mode == "r" else (Y - Q @ U, dR)


def qr_adjoint(a, y, g, mode="reduced"):
    if not _complex(a):
        return real.qr_adjoint(a, y, g, mode)
    real._qr_check(a, mode)
    Q, R = real._qr_factors(a, y, mode)
    Qbar, Rbar = (NoTangent, g) if mode == "r" else real._parts(g, 2)
    if Qbar is NoTangent and Rbar is NoTangent:
        return NoTangent
    Qbar = np.zeros(Q.shape, complex) if _no_adjoint(Qbar) else np.asarray(Qbar)
    Rbar = np.zeros(R.shape, complex) if _no_adjoint(Rbar) else np.asarray(Rbar)
    M = Rbar @ _mH(R) - _mH(Q) @ Qbar
    n = M.shape[-1]
    Xbar = np.triu(M, 1) + np.tril(_mH(M), -1) + np.real(np.diagonal(M, axis1=-2, axis2=-1))[..., None, :] * np.eye(n)
    Ybar = Qbar + Q @ Xbar
    return _mH(np.linalg.solve(R, _mH(Ybar)))  # Ybar R^-H


# ------------------------------------------------------------------ lstsq
def lstsq_tangent(a, b, y, da, db, rcond=None):
    if not _complex(a, b, da, db):
        return real.lstsq_tangent(a, b, y, da, db, rcond)
    if da is NoTangent and db is NoTangent:
        return NoTangent
    P, X, R = real._lstsq_parts(a, b, y, rcond, b_only=real._still(da))
    x, res, _, s = y
    n = np.shape(a)[1]
    dA = np.zeros(np.shape(a)) if da is NoTangent else np.broadcast_to(da, np.shape(a))
    dB = 0.0 if db is NoTangent else _inexact(db).reshape(R.shape)
    dX = P @ (dB - dA @ X) + P @ _mH(P) @ (_mH(dA) @ R) + (np.eye(n) - P @ np.asarray(a)) @ (_mH(dA) @ (_mH(P) @ X))
    dres = 2.0 * np.real(np.sum(np.conj(R) * (dB - dA @ X), axis=0)) if np.size(res) else np.zeros(np.shape(res))
    if da is NoTangent:
        ds = np.zeros(np.shape(s))
    else:
        U, _, Vh = np.linalg.svd(a, full_matrices=False)
        ds = np.real(np.diagonal(_mH(U) @ dA @ _mH(Vh))).copy()
    return dX.reshape(np.shape(x)), dres, NoTangent, ds


def lstsq_adjoint(a, b, y, g, which, rcond=None):
    if not _complex(a, b):
        return real.lstsq_adjoint(a, b, y, g, which, rcond)
    xbar, resbar, _, sbar = real._parts(g, 4)
    if xbar is NoTangent and resbar is NoTangent and (sbar is NoTangent or which == 1):
        return NoTangent
    if which == 0 and y[2] < min(np.shape(a)):
        return np.full(np.shape(a), np.nan)  # (no derivative with respect to a rank-deficient a: see real's)
    P, X, R = real._lstsq_parts(a, b, y, rcond, b_only=which == 1)
    A = np.asarray(a)
    n = A.shape[1]
    Xbar = np.zeros(X.shape, complex) if xbar is NoTangent else np.asarray(xbar).reshape(X.shape)
    if which == 1:
        out = _mH(P) @ Xbar
        if resbar is not NoTangent and np.size(y[1]):
            out = out + 2.0 * R * np.real(np.asarray(resbar))
        out = out.reshape(np.shape(b))
        return out if np.iscomplexobj(b) else np.real(out)
    W = P @ (_mH(P) @ Xbar)
    out = -_mH(P) @ Xbar @ _mH(X) + R @ _mH(W) + (_mH(P) @ X) @ _mH((np.eye(n) - P @ A) @ Xbar)
    if resbar is not NoTangent and np.size(y[1]):
        out = out - 2.0 * (R * np.real(np.asarray(resbar))) @ _mH(X)
    if sbar is not NoTangent:
        U, _, Vh = np.linalg.svd(A, full_matrices=False)
        out = out + (U * np.asarray(sbar)) @ Vh
    return out if np.iscomplexobj(a) else np.real(out)


# ------------------------------------------------------------------ registration (replaces the real-only rules)
defjvp(np.linalg.slogdet, lambda t, y, a: t.call(slogdet_tangent, a, y, t.d(a)) if t.d(a) is not None else None)
defvjp(np.linalg.slogdet, lambda t, g, y, a: (t.call(slogdet_adjoint, a, y, g),))
defjvp(np.linalg.cholesky, lambda t, y, a, upper=False: t.call(cholesky_tangent, a, y, t.d(a), upper) if t.d(a) is not None else None)
defvjp(np.linalg.cholesky, lambda t, g, y, a, upper=False: (t.call(cholesky_adjoint, a, y, g, upper),))
defjvp(np.linalg.qr, lambda t, y, a, mode="reduced": t.call(qr_tangent, a, y, t.d(a), mode) if t.d(a) is not None else None)
defvjp(np.linalg.qr, lambda t, g, y, a, mode="reduced": (t.call(qr_adjoint, a, y, g, mode),))
defjvp(np.linalg.lstsq, lambda t, y, a, b, rcond=None: t.call(lstsq_tangent, a, b, y, t.dz(a), t.dz(b), rcond)
       if (t.d(a) is not None or t.d(b) is not None) else None)
defvjp(np.linalg.lstsq, lambda t, g, y, a, b, rcond=None: (t.call(lstsq_adjoint, a, b, y, g, 0, rcond),
                                                          t.call(lstsq_adjoint, a, b, y, g, 1, rcond), None))
defcomplex(np.linalg.slogdet, np.linalg.cholesky, np.linalg.qr, np.linalg.lstsq)  # (tests/test_complex_reverse.py)
