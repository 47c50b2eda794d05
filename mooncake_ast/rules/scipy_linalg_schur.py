"""`scipy.linalg.schur` and `scipy.linalg.rq` (issue 12, second pass), both modes; registered by
scipy_linalg_rules.register() once scipy.linalg is imported (no SciPy import here).

schur(A) = (T, Z), A = Z T Z^T, Z orthogonal, T upper triangular (real A with real, distinct eigenvalues).
With C = Z^T dA Z and dZ = Z K (K skew, K = X - X^T, X strictly lower), dT = C + T K - K T must stay upper:
for i > j,  X_ij (T_ii - T_jj) + sum_(k>i) T_ik X_kj - sum_(k<j) X_ik T_kj = -C_ij,
solved column by column (j up), row by row (i down).  The pullback solves the transposed equations in the
opposite order: with K_bar = Z^T Z_bar + T^T T_bar - T_bar T^T (T_bar upper), X_bar = lower(K_bar - K_bar^T),
Y from  Y_pq (T_pp - T_qq) + sum_(q<i<p) T_ip Y_iq - sum_(q<j<p) Y_pj T_qj = X_bar_pq, and
A_bar = Z (T_bar - lower(Y)) Z^T.
Complex A or output='complex': A = Z T Z^H, reverse mode only, for functions that do not depend on the
phase LAPACK gives each Schur vector (checked from the adjoints: schur_complex_adjoint); forward mode refuses,
as it cannot check that.  Refused: 2x2 blocks of the real Schur form (complex eigenvalues), repeated
eigenvalues (Z is then not a function of A), and sort= (the count it returns and the reordering).

rq(A) = (R, Q), A = R Q, R upper, Q orthogonal (square A; mode 'full', 'economic' or 'r').
M = R^-1 dA Q^T, Omega = lower(M) - lower(M)^T, dR = dA Q^T - R Omega, dQ = Omega Q;
A_bar = R_bar Q + R^-T lower(Omega_bar - Omega_bar^T) Q with Omega_bar = Q_bar Q^T - R^T R_bar.

lu(A) = (P, L, U), A = P L U (square A; the permutation does not move): F = L^-1 P^T dA U^-1,
dL = L lower(F), dU = upper(F) U; A_bar = P L^-T (lower(L^T L_bar) + upper(U_bar U^T)) U^-T.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent
from .numpy_common import _no_adjoint

FUNCTIONS = ["linalg.lu", "linalg.rq", "linalg.schur"]


def _zero(d):
    return d is None or d is NoTangent or not np.any(d)


def _lower(m):
    return np.tril(m, -1)


# ------------------------------------------------------------------ schur
def _complex_form(a, output):
    return np.iscomplexobj(a) or output in ("complex", "c")


def _schur_check(a, output, sort, T):
    if sort is not None:
        raise NotImplementedError("derivative of scipy.linalg.schur with sort=")
    if _complex_form(a, output):
        T = np.asarray(T, dtype=complex)
        _distinct(np.diag(T))
        return T
    T = np.asarray(T, dtype=float)
    if np.any(np.diag(T, -1) != 0):
        raise NotImplementedError("derivative of scipy.linalg.schur where the real Schur form has 2x2 blocks "
                                  "(complex eigenvalues): not supported")
    _distinct(np.diag(T))
    return T


def _distinct(d):
    gap = np.abs(d[:, None] - d[None, :])[~np.eye(len(d), dtype=bool)]
    if gap.size and np.min(gap) <= 1e-12 * max(1.0, np.max(np.abs(d))):
        raise NotImplementedError("derivative of scipy.linalg.schur with repeated eigenvalues (the Schur vectors "
                                  "are not a function of the matrix there)")


def _schur_solve(T, C):
    """X (strictly lower, batched over C's leading axes) with lower(T K - K T) = -lower(C), K = X - X^T."""
    n = T.shape[0]
    X = np.zeros(C.shape, dtype=np.result_type(T, C))
    for j in range(n):
        for i in range(n - 1, j, -1):
            rhs = -C[..., i, j] - X[..., i + 1:, j] @ T[i, i + 1:] + X[..., i, :j] @ T[:j, j]
            X[..., i, j] = rhs / (T[i, i] - T[j, j])
    return X


def _schur_solve_transposed(T, Xbar):
    """Y (strictly lower) with Y_pq (T_pp - T_qq) + sum_(q<i<p) T_ip Y_iq - sum_(q<j<p) Y_pj T_qj = Xbar_pq."""
    n = T.shape[0]
    Y = np.zeros(Xbar.shape, dtype=np.result_type(T, Xbar))
    for q in range(n - 1, -1, -1):
        for p in range(q + 1, n):
            rhs = Xbar[p, q] - T[q + 1:p, p] @ Y[q + 1:p, q] + Y[p, q + 1:p] @ T[q, q + 1:p]
            Y[p, q] = rhs / (T[p, p] - T[q, q])
    return Y


def schur_tangent(a, y, da, output="real", lwork=None, overwrite_a=False, sort=None, check_finite=True):
    if _complex_form(a, output):
        raise NotImplementedError(
            "forward mode of scipy.linalg.schur of complex matrices or with output='complex': LAPACK fixes each Schur "
            "vector's phase arbitrarily, so only functions that do not depend on those phases have a derivative, "
            "and forward mode cannot check that; use reverse mode (mc.grad, mc.vjp), which does")
    T = _schur_check(a, output, sort, y[0])
    Z = np.asarray(y[1], dtype=float)
    C = Z.T @ np.asarray(da, dtype=float) @ Z
    X = _schur_solve(T, C)
    K = X - X.T
    return np.triu(C + T @ K - K @ T), Z @ K


def schur_complex_adjoint(a, T, Z, gT, gZ):
    """The complex Schur form A = Z T Z^H, in the gauge Im diag(Z^H dZ) = 0 (the real formulas with conjugate
    transposes: K = X - X^H, the transposed solve over conj(T)), after checking that the function does not
    depend on the columns' phases: turning column k of Z by e^(i t) (and T to e^(-i t) T e^(i t) on row and
    column k) must not change it, i.e. Im(c_k) = 0 with c_k = Z_bar[:, k]^H Z[:, k] + T_bar[:, k]^H T[:, k]
    - T_bar[k, :]^H T[k, :] (inner product Re(conj(a) b), README "Complex numbers")."""
    Tbar = np.zeros(T.shape, dtype=complex) if _no_adjoint(gT) else np.triu(np.asarray(gT, dtype=complex))
    Zbar = np.zeros(Z.shape, dtype=complex) if _no_adjoint(gZ) else np.asarray(gZ, dtype=complex)
    c = (np.sum(np.conj(Zbar) * Z, axis=0) + np.sum(np.conj(Tbar) * T, axis=0) - np.sum(np.conj(Tbar) * T, axis=1))
    scale = max(float(np.sqrt(np.sum(np.abs(Tbar) ** 2) + np.sum(np.abs(Zbar) ** 2))) * max(1.0, float(np.max(np.abs(T)))),
                1e-300)
    if np.any(np.abs(np.imag(c)) > 1e-8 * scale):
        raise NotImplementedError(
            "reverse mode of scipy.linalg.schur of a complex matrix (or output='complex'): the function depends on the "
            "phases of the Schur vectors, which LAPACK fixes arbitrarily, so it has no derivative; use functions that "
            "do not (the eigenvalues np.diag(T), |T|, |Z|, Z @ f(T) @ Z^H, ...)")
    Kbar = np.conj(T).T @ Tbar - Tbar @ np.conj(T).T + np.conj(Z).T @ Zbar
    Y = _schur_solve_transposed(np.conj(T), _lower(Kbar - np.conj(Kbar).T))
    Abar = Z @ (Tbar - _lower(Y)) @ np.conj(Z).T
    return Abar if np.iscomplexobj(a) else np.real(Abar)


def schur_adjoint(a, y, g, output="real", lwork=None, overwrite_a=False, sort=None, check_finite=True):
    if _no_adjoint(g):
        return NoTangent
    T = _schur_check(a, output, sort, y[0])
    if _complex_form(a, output):
        return schur_complex_adjoint(a, T, np.asarray(y[1], dtype=complex), g[0], g[1])
    Z = np.asarray(y[1], dtype=float)
    gT, gZ = g[0], g[1]
    Tbar = np.zeros(T.shape) if _no_adjoint(gT) else np.triu(np.asarray(gT, dtype=float))
    Kbar = T.T @ Tbar - Tbar @ T.T
    if not _no_adjoint(gZ):
        Kbar = Kbar + Z.T @ np.asarray(gZ, dtype=float)
    Y = _schur_solve_transposed(T, _lower(Kbar - Kbar.T))
    return Z @ (Tbar - _lower(Y)) @ Z.T


# ------------------------------------------------------------------ rq
def _rq_check(a, mode):
    if np.iscomplexobj(a):
        raise NotImplementedError("derivative of scipy.linalg.rq of complex matrices")
    if np.ndim(a) != 2 or np.shape(a)[0] != np.shape(a)[1]:
        raise NotImplementedError("derivative of scipy.linalg.rq of a matrix that is not square")
    if mode not in ("full", "economic", "r"):
        raise NotImplementedError(f"derivative of scipy.linalg.rq with mode={mode!r}")


def _rq_parts(a, y, mode):
    if mode == "r":
        import scipy.linalg

        return np.asarray(y, dtype=float), scipy.linalg.rq(a)[1]
    return np.asarray(y[0], dtype=float), np.asarray(y[1], dtype=float)


def rq_tangent(a, y, da, overwrite_a=False, lwork=None, mode="full", check_finite=True):
    _rq_check(a, mode)
    R, Q = _rq_parts(a, y, mode)
    da = np.asarray(da, dtype=float)
    M = np.linalg.solve(R, da @ Q.T)
    S = _lower(M)
    om = S - S.T
    dR = np.triu(da @ Q.T - R @ om)
    return dR if mode == "r" else (dR, om @ Q)


def rq_adjoint(a, y, g, overwrite_a=False, lwork=None, mode="full", check_finite=True):
    _rq_check(a, mode)
    if _no_adjoint(g):
        return NoTangent
    R, Q = _rq_parts(a, y, mode)
    gR, gQ = (g, NoTangent) if mode == "r" else (g[0], g[1])
    Rbar = np.zeros(R.shape) if _no_adjoint(gR) else np.triu(np.asarray(gR, dtype=float))
    ombar = -R.T @ Rbar
    if not _no_adjoint(gQ):
        ombar = ombar + np.asarray(gQ, dtype=float) @ Q.T
    Mbar = _lower(ombar - ombar.T)
    return Rbar @ Q + np.linalg.solve(R.T, Mbar) @ Q


def register(registered) -> None:
    import scipy.linalg as sl

    from .registry import defjvp, defvjp

    names = ("output", "lwork", "overwrite_a", "sort", "check_finite")
    for fn, name, tangent, adjoint, names in (
            (sl.schur, "linalg.schur", schur_tangent, schur_adjoint, names),
            (sl.rq, "linalg.rq", rq_tangent, rq_adjoint, ("overwrite_a", "lwork", "mode", "check_finite"))):
        registered[fn] = name

        def jvp(t, y, a, *p, tangent=tangent, names=names, **k):
            if t.d(a) is None:
                return None
            return t.call(tangent, a, y, t.d(a), **dict(zip(names, p)), **k)

        def vjp(t, g, y, a, *p, adjoint=adjoint, names=names, **k):
            return (t.call(adjoint, a, y, g, **dict(zip(names, p)), **k),) + (None,) * len(p)

        defjvp(fn, jvp)
        defvjp(fn, vjp)
    from .registry import defcomplex

    defcomplex(sl.schur)  # (reverse mode of the complex Schur form: schur_complex_adjoint)
    register_lu(registered)


# ------------------------------------------------------------------ lu (in the same family: triangular factors)
def _lu_check(a, permute_l, p_indices):
    if np.iscomplexobj(a):
        raise NotImplementedError("derivative of scipy.linalg.lu of complex matrices")
    if np.ndim(a) != 2 or np.shape(a)[0] != np.shape(a)[1]:
        raise NotImplementedError("derivative of scipy.linalg.lu of a matrix that is not square")


def _lu_parts(a, y, permute_l, p_indices):
    """(P, L, U) with a = P L U, from lu's result (p as a matrix or as indices, or P L when permute_l=True)."""
    import scipy.linalg

    if permute_l:
        P, L, U = scipy.linalg.lu(a)
        return P, L, np.asarray(y[1], dtype=float)
    p, L, U = y
    if p_indices:
        P = np.eye(len(p))[np.asarray(p)].T  # (a = P L U with P[p[i], i] = 1)
    else:
        P = np.asarray(p, dtype=float)
    return P, np.asarray(L, dtype=float), np.asarray(U, dtype=float)


def lu_tangent(a, y, da, permute_l=False, overwrite_a=False, check_finite=True, p_indices=False):
    """F = L^-1 P^T dA U^-1: dL = L lower(F), dU = upper(F) U (P does not move)."""
    _lu_check(a, permute_l, p_indices)
    P, L, U = _lu_parts(a, y, permute_l, p_indices)
    F = np.linalg.solve(L, P.T @ np.asarray(da, dtype=float)) @ np.linalg.inv(U)
    dL, dU = L @ _lower(F), np.triu(F) @ U
    zero_p = NoTangent if p_indices else np.zeros(np.shape(y[0]))  # (the permutation does not move)
    return (P @ dL, dU) if permute_l else (zero_p, dL, dU)


def lu_adjoint(a, y, g, permute_l=False, overwrite_a=False, check_finite=True, p_indices=False):
    _lu_check(a, permute_l, p_indices)
    if _no_adjoint(g):
        return NoTangent
    P, L, U = _lu_parts(a, y, permute_l, p_indices)
    if permute_l:
        gL, gU = g[0], g[1]
        gL = NoTangent if _no_adjoint(gL) else P.T @ np.asarray(gL, dtype=float)
    else:
        gL, gU = g[1], g[2]
    Lbar = np.zeros(L.shape) if _no_adjoint(gL) else np.asarray(gL, dtype=float)
    Ubar = np.zeros(U.shape) if _no_adjoint(gU) else np.asarray(gU, dtype=float)
    Fbar = _lower(L.T @ Lbar) + np.triu(Ubar @ U.T)
    return P @ np.linalg.solve(L.T, Fbar) @ np.linalg.inv(U).T


def register_lu(registered) -> None:
    import scipy.linalg as sl

    from .registry import defjvp, defvjp

    registered[sl.lu] = "linalg.lu"
    names = ("permute_l", "overwrite_a", "check_finite", "p_indices")
    defjvp(sl.lu, lambda t, y, a, *p, **k: t.call(lu_tangent, a, y, t.d(a), **dict(zip(names, p)), **k)
           if t.d(a) is not None else None)
    defvjp(sl.lu, lambda t, g, y, a, *p, **k: (t.call(lu_adjoint, a, y, g, **dict(zip(names, p)), **k),) + (None,) * len(p))
