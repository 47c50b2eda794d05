"""More rules of `scipy.linalg` (real matrices, both modes): the factorisations and solves a Gaussian
process or a least-squares fit is written with, and the matrix exponential and logarithm.  Registered
by scipy_linalg_rules.register() once the user's code has imported scipy.linalg; SciPy's routines
call LAPACK wrappers, so they cannot be traced.

* cholesky(a, lower): numpy_linalg's Cholesky derivative (it reads the same triangle LAPACK reads).
* cho_factor(a, lower) -> (c, lower): c holds the factor in one triangle and a's own entries in the
  other (SciPy leaves them there), so dc is the factor's tangent there and da's entries elsewhere.
* cho_solve((c, lower), b): x = A^-1 b with A = L L^T (or U^T U) read from c's triangle:
  dx = A^-1 (db - dA x); b_bar = A^-1 x_bar, A_bar = -b_bar x^T, and back to the triangle:
  L_bar = (A_bar + A_bar^T) L (lower), U_bar = U (A_bar + A_bar^T) (upper).
* solve_triangular(a, b, trans, lower, unit_diagonal): T x = b (or T^T x = b), T the triangle read:
  dx = solve(op(T), db - op(dT) x); b_bar = solve(op(T)^T, x_bar), T_bar = tri(op^T(-b_bar x^T)).
* lu_factor(a) -> (lu, piv): A[perm] = L U (perm from LAPACK's row swaps).  With
  F = L^-1 dA[perm] U^-1: dL = L tril(F, -1), dU = triu(F) U, and dlu = dL + dU; reverse:
  F_bar = tril(L^T L_bar, -1) + triu(U_bar U^T), dA[perm]_bar = L^-T F_bar U^-T.
* lu_solve((lu, piv), b, trans): x = A^-1 b (or A^-T b) with A[perm] = L U: dx = A^-1 (db - dA x);
  A_bar = -b_bar x^T goes back to lu as L_bar = tril(M U^T, -1), U_bar = triu(L^T M), M = A_bar[perm].
* expm(a), logm(a): the Frechet derivative L(A, E) (expm: scipy.linalg.expm_frechet; logm: the
  top-right block of logm([[A, E], [0, A]])); for these primary matrix functions the adjoint is
  L(A^T, G).  logm with a complex result (a negative eigenvalue) or disp=False is refused.

Complex matrices are refused in reverse mode (their adjoint convention is not implemented).
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

FUNCTIONS = ["linalg.cho_factor", "linalg.cho_solve", "linalg.cholesky", "linalg.expm", "linalg.logm",
             "linalg.lu_factor", "linalg.lu_solve", "linalg.solve_triangular"]


def _linalg():
    import scipy.linalg

    return scipy.linalg


def _zero(v):
    return v is None or v is NoTangent


def _mT(a):
    return np.swapaxes(np.asarray(a), -1, -2)


def _real(what, *xs):
    if any(np.iscomplexobj(x) for x in xs):
        raise NotImplementedError(f"derivative of scipy.linalg.{what} of complex matrices")


def _matrix(what, a):
    if np.ndim(a) != 2 or np.shape(a)[0] != np.shape(a)[1]:
        raise NotImplementedError(f"derivative of scipy.linalg.{what} of anything but a square 2-D matrix")


def _dense(v, like):
    return np.zeros(np.shape(like)) if _zero(v) else np.broadcast_to(np.asarray(v, dtype=float), np.shape(like))


def _tri(x, lower, k=0):
    return np.tril(x, -k) if lower else np.triu(x, k)


def _outer(u, v):
    """u v^T for vectors, u @ v^T for matrices (the right-hand sides' columns)."""
    return np.multiply.outer(u, v) if np.ndim(u) == 1 else u @ _mT(v)


def _adj_tuple(*items):
    from ..reverse.adjoints import AdjTuple

    return NoTangent if all(_zero(i) for i in items) else AdjTuple(list(items))


def _first(pair_tangent):
    """The tangent of the first item of a (matrix, flag) pair (cho_solve's, lu_solve's first argument)."""
    if _zero(pair_tangent):
        return NoTangent
    if isinstance(pair_tangent, (tuple, list)):
        return pair_tangent[0]
    raise NotImplementedError("derivative of a scipy.linalg solve whose factorisation's tangent is not a pair")


# ------------------------------------------------------------------ cholesky, cho_factor
def cholesky_tangent(a, y, da, lower=False):
    from .numpy_linalg import cholesky_tangent as chol

    _real("cholesky", a)
    _matrix("cholesky", a)
    return chol(np.asarray(a), y, _dense(da, a), upper=not lower)


def cholesky_adjoint(a, y, g, lower=False):
    from .numpy_linalg import cholesky_adjoint as chol

    _real("cholesky", a, g)
    if _zero(g):
        return NoTangent
    return chol(np.asarray(a), y, _tri(np.asarray(g), lower), upper=not lower)


def cho_factor_tangent(a, y, da, lower=False):
    c = y[0]
    dL = cholesky_tangent(a, _tri(c, lower), da, lower)
    dc = dL + (np.triu(_dense(da, a), 1) if lower else np.tril(_dense(da, a), -1))
    return (dc, NoTangent)


def cho_factor_adjoint(a, y, g, lower=False):
    if _zero(g) or _zero(g[0]):
        return NoTangent
    gc = np.asarray(g[0], dtype=float)
    _real("cho_factor", a, gc)
    bar = cholesky_adjoint(a, _tri(y[0], lower), _tri(gc, lower), lower)
    return bar + (np.triu(gc, 1) if lower else np.tril(gc, -1))


# ------------------------------------------------------------------ cho_solve
def _cho_parts(c_and_lower):
    c, lower = c_and_lower
    return np.asarray(c), bool(lower)


def _cho_matrix_tangent(c, lower, dc):
    F = _tri(c, lower)
    dF = _tri(dc, lower)
    return dF @ _mT(F) + F @ _mT(dF) if lower else _mT(dF) @ F + _mT(F) @ dF


def cho_solve_tangent(c_and_lower, b, x, dcl, db):
    c, lower = _cho_parts(c_and_lower)
    _real("cho_solve", c, b, db)
    rhs = _dense(db, x) * 1.0
    dc = _first(dcl)
    if not _zero(dc):
        rhs = rhs - _cho_matrix_tangent(c, lower, np.asarray(dc)) @ x
    return _linalg().cho_solve((c, lower), rhs)


def cho_solve_adjoints(c_and_lower, b, x, g):
    """(adjoint of (c, lower), adjoint of b)."""
    if _zero(g):
        return NoTangent, NoTangent
    c, lower = _cho_parts(c_and_lower)
    _real("cho_solve", c, b, g)
    bbar = _linalg().cho_solve((c, lower), np.asarray(g, dtype=float))
    abar = -_outer(bbar, x)
    S = abar + _mT(abar)
    F = _tri(c, lower)
    cbar = np.tril(S @ F) if lower else np.triu(F @ S)
    return _adj_tuple(cbar, NoTangent), bbar


# ------------------------------------------------------------------ solve_triangular
def _trans(trans):
    return {0: 0, "N": 0, 1: 1, "T": 1, 2: 1, "C": 1}[trans]


def _triangle(a, lower, unit_diagonal):
    T = _tri(np.asarray(a), lower)
    if unit_diagonal:
        T = T - np.diag(np.diag(T)) + np.eye(T.shape[0])
    return T


def solve_triangular_tangent(a, b, x, da, db, trans=0, lower=False, unit_diagonal=False):
    _real("solve_triangular", a, b, da, db)
    rhs = _dense(db, x) * 1.0
    if not _zero(da):
        dT = _tri(np.asarray(da), lower, 1 if unit_diagonal else 0)
        rhs = rhs - (_mT(dT) if _trans(trans) else dT) @ x
    return _linalg().solve_triangular(a, rhs, trans=trans, lower=lower, unit_diagonal=unit_diagonal)


def solve_triangular_adjoints(a, b, x, g, trans=0, lower=False, unit_diagonal=False):
    if _zero(g):
        return NoTangent, NoTangent
    _real("solve_triangular", a, b, g)
    t = _trans(trans)
    bbar = _linalg().solve_triangular(a, np.asarray(g, dtype=float), trans=1 - t, lower=lower, unit_diagonal=unit_diagonal)
    opbar = -_outer(bbar, x)
    Tbar = _mT(opbar) if t else opbar
    return _tri(Tbar, lower, 1 if unit_diagonal else 0), bbar


# ------------------------------------------------------------------ lu_factor, lu_solve
def _perm(piv):
    """perm with A[perm] = L U, from LAPACK's row interchanges (row i swapped with row piv[i], in turn)."""
    perm = np.arange(len(piv))
    for i, p in enumerate(piv):
        perm[i], perm[p] = perm[p], perm[i]
    return perm


def _lu_parts(lu):
    lu = np.asarray(lu)
    return np.tril(lu, -1) + np.eye(lu.shape[0]), np.triu(lu)


def lu_factor_tangent(a, y, da):
    _matrix("lu_factor", a)
    _real("lu_factor", a)
    lu, piv = y
    L, U = _lu_parts(lu)
    perm = _perm(piv)
    sl = _linalg().solve_triangular
    F = sl(U, _mT(sl(L, _dense(da, a)[perm], lower=True, unit_diagonal=True)), trans=1, lower=False)
    F = _mT(F)  # L^-1 dA[perm] U^-1
    return (L @ np.tril(F, -1) + np.triu(F) @ U, NoTangent)


def lu_factor_adjoint(a, y, g):
    if _zero(g) or _zero(g[0]):
        return NoTangent
    _matrix("lu_factor", a)
    gl = np.asarray(g[0], dtype=float)
    _real("lu_factor", a, gl)
    lu, piv = y
    L, U = _lu_parts(lu)
    Fbar = np.tril(_mT(L) @ np.tril(gl, -1), -1) + np.triu(np.triu(gl) @ _mT(U))
    sl = _linalg().solve_triangular
    M = sl(L, Fbar, trans=1, lower=True, unit_diagonal=True)  # L^-T Fbar
    M = _mT(sl(U, _mT(M), lower=False))  # ... U^-T
    out = np.empty_like(M)
    out[_perm(piv)] = M
    return out


def _lu_matrix_tangent(lu, piv, dlu):
    L, U = _lu_parts(lu)
    dlu = np.asarray(dlu)
    P = L @ np.triu(dlu) + np.tril(dlu, -1) @ U  # d(L U) = A[perm]'s tangent
    out = np.empty_like(P)
    out[_perm(piv)] = P
    return out


def lu_solve_tangent(lu_and_piv, b, x, dlp, db, trans=0):
    lu, piv = lu_and_piv
    _real("lu_solve", lu, b, db)
    rhs = _dense(db, x) * 1.0
    dlu = _first(dlp)
    if not _zero(dlu):
        dA = _lu_matrix_tangent(np.asarray(lu), piv, dlu)
        rhs = rhs - (_mT(dA) if _trans(trans) else dA) @ x
    return _linalg().lu_solve((lu, piv), rhs, trans=trans)


def lu_solve_adjoints(lu_and_piv, b, x, g, trans=0):
    if _zero(g):
        return NoTangent, NoTangent
    lu, piv = lu_and_piv
    _real("lu_solve", lu, b, g)
    t = _trans(trans)
    bbar = _linalg().lu_solve((lu, piv), np.asarray(g, dtype=float), trans=1 - t)
    opbar = -_outer(bbar, x)
    Abar = _mT(opbar) if t else opbar
    L, U = _lu_parts(lu)
    M = Abar[_perm(piv)]
    lubar = np.tril(M @ _mT(U), -1) + np.triu(_mT(L) @ M)
    return _adj_tuple(lubar, NoTangent), bbar


# ------------------------------------------------------------------ expm, logm
def _frechet(what, a, e):
    la = _linalg()
    if what == "expm":
        return la.expm_frechet(a, e, compute_expm=False, check_finite=False)
    n = a.shape[0]
    big = np.zeros((2 * n, 2 * n), dtype=np.result_type(a, e, float))
    big[:n, :n] = a
    big[n:, n:] = a
    big[:n, n:] = e
    out = la.logm(big)
    return out[:n, n:]


def _over_stack(what, a, e):
    a, e = np.asarray(a), np.broadcast_to(np.asarray(e), np.shape(a))
    if a.ndim == 2:
        return _frechet(what, a, e)
    flat_a, flat_e = a.reshape((-1,) + a.shape[-2:]), e.reshape((-1,) + a.shape[-2:])
    return np.stack([_frechet(what, x, d) for x, d in zip(flat_a, flat_e)]).reshape(a.shape)


def matfun_tangent(what, a, y, da, disp=True):
    _refuse_disp(disp)
    if what == "logm" and np.iscomplexobj(y) and not np.iscomplexobj(a):
        raise NotImplementedError("derivative of scipy.linalg.logm of a matrix with a negative eigenvalue "
                                  "(a complex logarithm of a real matrix)")
    return _over_stack(what, a, da)


def matfun_adjoint(what, a, y, g, disp=True):
    _refuse_disp(disp)
    if _zero(g):
        return NoTangent
    _real(what, a, y, g)
    return _over_stack(what, _mT(a), np.asarray(g, dtype=float))


def _refuse_disp(disp):
    if disp is not True and disp != 1:
        raise NotImplementedError("derivative of scipy.linalg.logm with disp=False (pass disp=True)")


# ------------------------------------------------------------------ registration
def register(REGISTERED) -> None:
    """Register the rules (scipy_linalg_rules.register calls this once scipy.linalg is imported)."""
    from .numpy_common import _split
    from .registry import defjvp, defvjp

    la = _linalg()
    for name in FUNCTIONS:
        REGISTERED[getattr(la, name.split(".")[1])] = name

    # cholesky(a, lower=False, overwrite_a=False, check_finite=True)
    defjvp(la.cholesky, lambda t, y, a, lower=False, *p, **k: (
        t.call(cholesky_tangent, a, y, t.d(a), lower) if t.d(a) is not None else None))
    defvjp(la.cholesky, lambda t, g, y, a, lower=False, *p, **k: (t.call(cholesky_adjoint, a, y, g, lower),))
    defjvp(la.cho_factor, lambda t, y, a, lower=False, *p, **k: (
        t.call(cho_factor_tangent, a, y, t.d(a), lower) if t.d(a) is not None else None))
    defvjp(la.cho_factor, lambda t, g, y, a, lower=False, *p, **k: (t.call(cho_factor_adjoint, a, y, g, lower),))

    # cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True)
    defjvp(la.cho_solve, lambda t, y, cl, b, *p, **k: (
        t.call(cho_solve_tangent, cl, b, y, t.dz(cl), t.dz(b)) if (t.d(cl) is not None or t.d(b) is not None) else None))
    defvjp(la.cho_solve, lambda t, g, y, cl, b, *p, **k: _split(t, t.call(cho_solve_adjoints, cl, b, y, g), 2))

    # solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, check_finite=True)
    def st_jvp(t, y, a, b, trans=0, lower=False, unit_diagonal=False, *p, **k):
        if t.d(a) is None and t.d(b) is None:
            return None
        return t.call(solve_triangular_tangent, a, b, y, t.dz(a), t.dz(b), trans, lower, unit_diagonal)

    def st_vjp(t, g, y, a, b, trans=0, lower=False, unit_diagonal=False, *p, **k):
        return _split(t, t.call(solve_triangular_adjoints, a, b, y, g, trans, lower, unit_diagonal), 2)

    defjvp(la.solve_triangular, st_jvp)
    defvjp(la.solve_triangular, st_vjp)

    # lu_factor(a, overwrite_a=False, check_finite=True); lu_solve(lu_and_piv, b, trans=0, ...)
    defjvp(la.lu_factor, lambda t, y, a, *p, **k: t.call(lu_factor_tangent, a, y, t.d(a)) if t.d(a) is not None else None)
    defvjp(la.lu_factor, lambda t, g, y, a, *p, **k: (t.call(lu_factor_adjoint, a, y, g),))
    defjvp(la.lu_solve, lambda t, y, lp, b, trans=0, *p, **k: (
        t.call(lu_solve_tangent, lp, b, y, t.dz(lp), t.dz(b), trans) if (t.d(lp) is not None or t.d(b) is not None) else None))
    defvjp(la.lu_solve, lambda t, g, y, lp, b, trans=0, *p, **k: _split(t, t.call(lu_solve_adjoints, lp, b, y, g, trans), 2))

    # expm(A); logm(A, disp=True)
    defjvp(la.expm, lambda t, y, a: t.call(matfun_tangent, "expm", a, y, t.d(a)) if t.d(a) is not None else None)
    defvjp(la.expm, lambda t, g, y, a: (t.call(matfun_adjoint, "expm", a, y, g),))

    defjvp(la.logm, lambda t, y, a, disp=True: t.call(matfun_tangent, "logm", a, y, t.d(a), disp) if t.d(a) is not None else None)
    defvjp(la.logm, lambda t, g, y, a, disp=True: (t.call(matfun_adjoint, "logm", a, y, g, disp),))
