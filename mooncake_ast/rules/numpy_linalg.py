"""NumPy rules, both modes: linear algebra (`np.linalg`: norm, inv, solve, det, slogdet, cholesky,
eigh, eigvalsh, qr, svd, svdvals, lstsq).

Apart from the other NumPy rules because these are matrix calculus with their own helpers and
assumptions: real matrices; `eigh`/`svd` need distinct eigen-/singular values (eigh: or an eigenvector
pair of eigenvectors between equal ones that both have a zero tangent or adjoint, `gap_coupled`,
docs/nan-derivatives.md), `cholesky` a
positive definite matrix, `qr` a tall (or square) full-rank matrix, `lstsq` a full-rank one.
Unsupported cases raise NotImplementedError when the rule runs.
"""
from __future__ import annotations

import operator

import numpy as np

from ..arrays import as_array
from ..tangents import NoTangent
from .numpy_common import _inexact, _no_adjoint, _split, _unb, cj
from .registry import defcomplex, defjvp, defvjp


# ------------------------------------------------------------------ linear algebra
defjvp(np.linalg.norm, lambda t, y, x, ord=None, axis=None, keepdims=False: t.call(norm_tangent, x, y, t.d(x), ord, axis, keepdims) if t.d(x) is not None else None)
defjvp(np.linalg.inv, lambda t, y, a: t.neg(t.linr(np.matmul, y, t.lin(np.matmul, t.d(a), y))))
defjvp(np.linalg.solve, lambda t, y, a, b: t.call(solve_tangent, a, b, y, t.dz(a), t.dz(b)) if (t.d(a) is not None or t.d(b) is not None) else None)


def solve_tangent(a, b, y, da, db):
    """x = solve(a, b): dx = solve(a, db - da x).  A 1-D b is one vector, also against a stack of a's."""
    rhs = 0.0 if db is NoTangent else np.asarray(db)
    if da is not NoTangent:
        rhs = rhs - (np.matmul(da, np.asarray(y)[..., None])[..., 0] if np.ndim(b) == 1 else np.matmul(da, y))
    rhs = np.broadcast_to(rhs, np.shape(y))
    if np.ndim(b) == 1:
        return np.linalg.solve(a, rhs[..., None])[..., 0]
    return np.linalg.solve(a, rhs)
defjvp(np.linalg.det, lambda t, y, a: t.mul(y, t.call(logdet_tangent, a, t.d(a))) if t.d(a) is not None else None)


def _norm_gradient(x, ord, axis):
    """G with the shape of x such that d norm(x) = sum(G * dx) over the reduced axes, and those axes.

    Vector norms (ord None/2, 1, any p, inf, -inf, 0) and matrix norms ('fro', 'nuc', 2, -2, 1, -1, inf,
    -inf).  At kinks the documented choices: 0 where the norm or an entry is 0 (no direction is
    preferred), the first position attaining a max/min; matrix 2-norms need a simple extreme singular value.
    """
    x = as_array(x)
    if axis is None:
        if ord is None:
            axes, kind = tuple(range(x.ndim)), "euclid"
        else:
            axes, kind = ((0,), "vec") if x.ndim == 1 else ((0, 1), "mat")
    else:
        axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
        axes = tuple(int(a) % x.ndim for a in axes)
        kind = "vec" if len(axes) == 1 else "mat"
    xf = _inexact(x)
    y = np.linalg.norm(xf, ord=ord, axis=axis, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        if kind == "euclid" or (kind == "vec" and ord in (None, 2)) or (kind == "mat" and ord in (None, "fro")):
            return np.where(y == 0, 0.0, xf / np.where(y == 0, 1.0, y)), axes
        if kind == "vec":
            if ord == 0:
                return np.zeros(x.shape), axes
            if ord in (np.inf, -np.inf):
                return _phase(xf) * _first_along(np.abs(xf) == y, axes[0]), axes
            p = float(ord)
            a = np.abs(xf)
            grad = _phase(xf) * (a / np.where(y == 0, 1.0, y)) ** (p - 1)
            return np.where((xf == 0) | (y == 0), 0.0, grad), axes
        xm = np.moveaxis(xf, axes, (-2, -1))
        if ord == "nuc":
            u, _, vh = np.linalg.svd(xm, full_matrices=False)
            gm = u @ vh
        elif ord in (2, -2):
            u, _, vh = np.linalg.svd(xm, full_matrices=False)
            k = 0 if ord == 2 else -1
            gm = u[..., :, [k]] @ vh[..., [k], :]
        elif ord in (1, -1, np.inf, -np.inf):
            along = -2 if ord in (1, -1) else -1  # 1: column sums (over rows); inf: row sums
            sums = np.sum(np.abs(xm), axis=along, keepdims=True)
            best = np.max(sums, axis=-1 if along == -2 else -2, keepdims=True) if ord in (1, np.inf) else \
                np.min(sums, axis=-1 if along == -2 else -2, keepdims=True)
            pick = _first_along(np.broadcast_to(sums == best, sums.shape), -1 if along == -2 else -2)
            gm = _phase(xm) * pick
        else:
            raise NotImplementedError(f"derivative of np.linalg.norm with ord={ord!r} for matrices")
        return np.moveaxis(gm, (-2, -1), axes), axes


def _phase(x):
    """sign(x), and x / |x| (0 at 0) for complex x, whatever NumPy's version takes np.sign of a complex to be."""
    if not np.iscomplexobj(x):
        return np.sign(x)
    m = np.abs(x)
    return np.where(m == 0, 0.0, x / np.where(m == 0, 1.0, m))


def _first_along(hit, axis):
    """A mask of the first True along axis (all False where there is none)."""
    first = np.argmax(hit, axis=axis)
    mask = np.zeros(hit.shape, dtype=bool)
    np.put_along_axis(mask, np.expand_dims(first, axis), True, axis=axis)
    return mask & hit


def norm_tangent(x, y, dx, ord, axis, keepdims):
    if dx is NoTangent:
        return NoTangent  # a constant known only when the code runs
    grad, axes = _norm_gradient(x, ord, axis)
    # a norm is real: for complex x its change is Re(sum(conj(grad) dx)), grad built from the phases x / |x|
    out = np.sum(grad * dx if not np.iscomplexobj(grad) else np.real(np.conj(grad) * dx), axis=axes, keepdims=keepdims)
    return out[()] if out.ndim == 0 else out


# ================================================================== reverse rules
def norm_adjoint(x, y, g, ord=None, axis=None, keepdims=False):
    if _no_adjoint(g):
        return NoTangent
    grad, axes = _norm_gradient(x, ord, axis)
    gk = np.asarray(g) if keepdims else np.expand_dims(g, axes)
    return grad * gk


norm_adjoint.dense_in_dense = True  # type: ignore[attr-defined]  # (an array of x's shape for a real g)
defvjp(np.linalg.norm, lambda t, g, y, x, ord=None, axis=None, keepdims=False: (
    _euclid_adjoint(t, g, y, x) if ord is None and axis is None and not keepdims and _plain_vector(t, g, x)
    else t.call(norm_adjoint, x, y, g, ord, axis, keepdims),))


def _plain_vector(t, g, x):
    """Is `np.linalg.norm(x)` a real scalar of a real float array x, with a real adjoint g (typed pullbacks)?"""
    from ..ir.types import Arr

    type_of = getattr(t, "type_of", None)
    return type_of is not None and getattr(t, "result_is_num", False) and t.dense(g) and \
        isinstance(type_of(x), Arr) and type_of(x).dtype == "f"


def _euclid_adjoint(t, g, y, x):
    """`x * (g / y)`, with 0 where the norm is 0 (the documented choice at that kink: x is all zeros there, and
    `y + (y == 0)` divides by 1 instead of 0)."""
    return t.mul(x, t.div(g, t.call(operator.add, y, t.call(operator.eq, y, 0.0))))
defvjp(np.linalg.inv, lambda t, g, y, a: (t.neg(t.call(np.matmul, cj(t, t.call(np.swapaxes, y, -1, -2), a),
                                                         t.call(np.matmul, g, cj(t, t.call(np.swapaxes, y, -1, -2), a)))),))


# ================================================================== linear algebra (real matrices)


def _mT(a):
    return np.swapaxes(a, -1, -2)


def _parts(g, n):
    """The n component adjoints of a tuple result's adjoint (NoTangent where it has none)."""
    if _no_adjoint(g) or g is None:
        return [NoTangent] * n
    items = [NoTangent if v is None else v for v in list(g)]
    return items + [NoTangent] * (n - len(items))


def _dense_or_zero(g, like):
    return np.zeros(np.shape(like)) if _no_adjoint(g) else np.asarray(g)


def solve_vjp(g, y, a, b):
    """x = solve(a, b): b's adjoint solve(a^T, g); a's -b_bar x^T.  A 1-D b is one vector (NumPy 2 rule).
    Complex: solve(a^H, g) and -b_bar x^H (README "Complex numbers"); real parts for a real a or b (_unb)."""
    if _no_adjoint(g):
        return NoTangent, NoTangent
    g = np.asarray(g)
    if np.iscomplexobj(a) or np.iscomplexobj(y):
        a, y = np.conj(a), np.conj(y)  # (a^H = conj(a)^T; x^H = conj(x)^T)
    if np.ndim(b) == 1:
        bb = np.linalg.solve(_mT(a), g[..., None])[..., 0]
        ab = -bb[..., :, None] * np.asarray(y)[..., None, :]
    else:
        bb = np.linalg.solve(_mT(a), g)
        ab = -(bb @ _mT(np.asarray(y)))
    return _unb(ab, a), _unb(bb, b)


def det_adjoint(a, y, g):
    """d det(A) = det(A) tr(A^-1 dA): A's adjoint g det(A) A^-T (a singular A raises LinAlgError)."""
    if _no_adjoint(g):
        return NoTangent
    if np.iscomplexobj(a):  # holomorphic in A: the conjugate of the derivative (README "Complex numbers")
        return (np.asarray(g) * np.conj(y))[..., None, None] * np.conj(_mT(np.linalg.inv(a)))
    return (np.asarray(g) * y)[..., None, None] * _mT(np.linalg.inv(a))


def _real_only(name, *arrays):
    """Refuse complex input: these formulas assume real (symmetric, orthogonal) factors, and their complex
    versions (Hermitian, unitary, with a phase freedom) are not written yet; a result would be silently wrong."""
    if any(np.iscomplexobj(x) for x in arrays):
        raise NotImplementedError(f"derivative of np.linalg.{name} of a complex matrix (real matrices only for now)")


def slogdet_tangent(a, y, da):
    """(sign, log|det|): the sign is locally constant; d log|det A| = tr(A^-1 dA)."""
    _real_only("slogdet", a)
    if da is NoTangent:
        return NoTangent
    return NoTangent, logdet_tangent(a, da)


def logdet_tangent(a, da):
    """d log|det A| = tr(A^-1 dA) (NoTangent for a zero dA)."""
    if da is NoTangent:
        return NoTangent
    return np.trace(np.linalg.solve(a, da), axis1=-2, axis2=-1)


def slogdet_adjoint(a, y, g):
    _real_only("slogdet", a)
    g_log = _parts(g, 2)[1]
    if g_log is NoTangent:
        return NoTangent
    return np.asarray(g_log)[..., None, None] * _mT(np.linalg.inv(a))


defvjp(np.linalg.solve, lambda t, g, y, a, b: _split(t, t.call(solve_vjp, g, y, a, b), 2))
defvjp(np.linalg.det, lambda t, g, y, a: (t.call(det_adjoint, a, y, g),))
defjvp(np.linalg.slogdet, lambda t, y, a: t.call(slogdet_tangent, a, y, t.d(a)) if t.d(a) is not None else None)
defvjp(np.linalg.slogdet, lambda t, g, y, a: (t.call(slogdet_adjoint, a, y, g),))


def _sym_seen(d, upper):
    """The symmetric matrix a routine that reads one triangle (cholesky, eigh) sees, from a full one."""
    if upper:
        return np.triu(d) + _mT(np.triu(d, 1))
    return np.tril(d) + _mT(np.tril(d, -1))


def _sym_seen_adjoint(p, upper):
    """The adjoint of _sym_seen: the triangle read gets p plus the mirrored p^T."""
    if upper:
        return np.triu(p) + np.triu(_mT(p), 1)
    return np.tril(p) + np.tril(_mT(p), -1)


def _phi(x):
    """The lower triangle of x with half its diagonal (cholesky's derivative)."""
    return np.tril(x) - 0.5 * (np.eye(x.shape[-1]) * x)


def cholesky_tangent(a, y, da, upper=False):
    """A = L L^T: dL = L Phi(L^-1 dS L^-T), dS the symmetric change numpy sees (the lower, or upper, triangle)."""
    _real_only("cholesky", a)
    L = _mT(y) if upper else y
    S = _sym_seen(np.broadcast_to(da, np.shape(a)), upper)
    X = np.linalg.solve(L, _mT(np.linalg.solve(L, S)))  # L^-1 S L^-T (S symmetric)
    dL = L @ _phi(X)
    return _mT(dL) if upper else dL


def cholesky_adjoint(a, y, g, upper=False):
    if _no_adjoint(g):
        return NoTangent
    L = _mT(y) if upper else y
    Lbar = _mT(np.asarray(g)) if upper else np.asarray(g)
    W = np.linalg.solve(_mT(L), _phi(_mT(L) @ Lbar))  # L^-T Phi(L^T Lbar)
    P = _mT(np.linalg.solve(_mT(L), _mT(W)))  # W L^-1
    return _sym_seen_adjoint(P, upper)


defjvp(np.linalg.cholesky, lambda t, y, a, upper=False: t.call(cholesky_tangent, a, y, t.d(a), upper) if t.d(a) is not None else None)
defvjp(np.linalg.cholesky, lambda t, g, y, a, upper=False: (t.call(cholesky_adjoint, a, y, g, upper),))


def _gaps(w):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it (distinct values assumed; equal ones give inf).

    Values equal up to rounding (`Q @ diag(2, 2, 5) @ Q.T`: the computed eigenvalues differ by ~1e-15) count as
    equal: 1 / their rounding error is no derivative (the eigenvectors are determined only up to a rotation of
    that size), and a product with it gave finite garbage (V diag(exp(w)) V^T: 0.3% off; the Hessian of
    sum(eigvalsh(A) ** 3): 45% off) where an exact tie gives an honest nan (docs/nan-derivatives.md)."""
    diff = w[..., None, :] - w[..., :, None]
    n = w.shape[-1]
    off = ~np.eye(n, dtype=bool)
    tie = np.abs(diff) <= rounding_ties(w)
    with np.errstate(divide="ignore"):
        return np.where(off, np.where(tie, np.inf, 1.0 / np.where(tie | ~off, 1.0, diff)), 0.0)


def rounding_ties(w):
    """How close two computed eigen- or singular values of one matrix are when they are equal in exact
    arithmetic: 64 n eps max|w| (a backward-stable solver's error is a small multiple of n eps ||A||; observed
    under 6 eps ||A|| for n <= 20), per matrix of a stack, shaped to compare with w[..., None, :] - w[..., :, None]."""
    w = np.asarray(w)
    n = w.shape[-1]
    big = np.max(np.abs(w), axis=-1, keepdims=True)[..., None] if n else 0.0
    return 64 * n * np.finfo(float).eps * big


def gap_coupled(w, coupling, quiet):
    """F * coupling, F = _gaps(w), where a pair of eigenvectors that are both quiet contributes exactly 0, even
    between equal eigenvalues (where F is infinite and the product 0 * inf = nan).

    quiet[..., k]: eigenvector k has an exactly zero tangent (forward: row k of V^T dS V is 0, a constant matrix) or
    adjoint (reverse: column k of V's adjoint is 0, an eigenvector nobody reads): then rotating it inside a
    degenerate eigenspace changes nothing, and that pair's term is a strong zero (strong_zeros.py).  One quiet
    eigenvector is not enough: when the other one moves, or is read, the rotation inside the degenerate
    eigenspace is not determined (eigenvectors jump there), and the inf or nan is kept, never a guessed 0."""
    coupling = np.asarray(coupling)
    both = quiet[..., :, None] & quiet[..., None, :]
    with np.errstate(invalid="ignore"):
        return np.where(both, 0.0, _gaps(w) * coupling)


def eigh_tangent(a, y, da, UPLO="L"):
    """A V = V diag(w): dw = diag(V^T dS V), dV = V (F * (V^T dS V)).  A symmetric with distinct eigenvalues."""
    _real_only("eigh", a)
    w, V = y
    S = _sym_seen(np.broadcast_to(da, np.shape(a)), UPLO == "U")
    M = _mT(V) @ S @ V
    return np.diagonal(M, axis1=-2, axis2=-1).copy(), V @ gap_coupled(w, M, np.all(M == 0, axis=-1))


def eigh_adjoint(a, y, g, UPLO="L"):
    w, V = y
    wbar, Vbar = _parts(g, 2)
    if wbar is NoTangent and Vbar is NoTangent:
        return NoTangent
    inner = np.zeros(V.shape)
    if Vbar is not NoTangent:
        Vbar = np.asarray(Vbar)
        inner = gap_coupled(w, _mT(V) @ Vbar, np.all(Vbar == 0, axis=-2))
    if wbar is not NoTangent:
        inner = inner + np.asarray(wbar)[..., None, :] * np.eye(w.shape[-1])
    return _sym_seen_adjoint(V @ inner @ _mT(V), UPLO == "U")


def eigvalsh_tangent(a, y, da, UPLO="L"):
    _real_only("eigvalsh", a)
    _, V = np.linalg.eigh(a, UPLO=UPLO)
    S = _sym_seen(np.broadcast_to(da, np.shape(a)), UPLO == "U")
    return np.diagonal(_mT(V) @ S @ V, axis1=-2, axis2=-1).copy()


def eigvalsh_adjoint(a, y, g, UPLO="L"):
    if _no_adjoint(g):
        return NoTangent
    _, V = np.linalg.eigh(a, UPLO=UPLO)
    return _sym_seen_adjoint((V * np.asarray(g)[..., None, :]) @ _mT(V), UPLO == "U")


defjvp(np.linalg.eigh, lambda t, y, a, UPLO="L": t.call(eigh_tangent, a, y, t.d(a), UPLO) if t.d(a) is not None else None)
defvjp(np.linalg.eigh, lambda t, g, y, a, UPLO="L": (t.call(eigh_adjoint, a, y, g, UPLO),))
defjvp(np.linalg.eigvalsh, lambda t, y, a, UPLO="L": t.call(eigvalsh_tangent, a, y, t.d(a), UPLO) if t.d(a) is not None else None)
defvjp(np.linalg.eigvalsh, lambda t, g, y, a, UPLO="L": (t.call(eigvalsh_adjoint, a, y, g, UPLO),))


def _qr_check(a, mode):
    m, n = np.shape(a)[-2:]
    if mode not in ("reduced", "complete", "r") or m < n or (mode == "complete" and m != n):
        raise NotImplementedError(f"derivative of np.linalg.qr with mode={mode!r} for a {m}x{n} matrix: "
                                  "tall or square matrices, mode 'reduced' or 'r' (or 'complete' when square)")


def _qr_factors(a, y, mode):
    return (np.linalg.qr(a)[0], y) if mode == "r" else (y[0], y[1])


def qr_tangent(a, y, da, mode="reduced"):
    """A = QR (R invertible): with X = Q^T dA R^-1, dR = (X - C) R and dQ = dA R^-1 - Q (X - C),
    C = tril(X, -1) - tril(X, -1)^T the antisymmetric part Q^T dQ."""
    _real_only("qr", a)
    _qr_check(a, mode)
    Q, R = _qr_factors(a, y, mode)
    Y = _mT(np.linalg.solve(_mT(R), _mT(np.broadcast_to(da, np.shape(a)))))  # dA R^-1
    X = _mT(Q) @ Y
    low = np.tril(X, -1)
    U = X - (low - _mT(low))
    dR = U @ R
    return dR if mode == "r" else (Y - Q @ U, dR)


def qr_adjoint(a, y, g, mode="reduced"):
    _qr_check(a, mode)
    Q, R = _qr_factors(a, y, mode)
    Qbar, Rbar = (NoTangent, g) if mode == "r" else _parts(g, 2)
    if Qbar is NoTangent and Rbar is NoTangent:
        return NoTangent
    Qbar, Rbar = _dense_or_zero(Qbar, Q), _dense_or_zero(Rbar, R)
    M = Rbar @ _mT(R) - _mT(Q) @ Qbar
    Xbar = M - np.tril(M - _mT(M), -1)
    Ybar = Qbar + Q @ Xbar
    return _mT(np.linalg.solve(R, _mT(Ybar)))  # Ybar R^-T


defjvp(np.linalg.qr, lambda t, y, a, mode="reduced": t.call(qr_tangent, a, y, t.d(a), mode) if t.d(a) is not None else None)
defvjp(np.linalg.qr, lambda t, g, y, a, mode="reduced": (t.call(qr_adjoint, a, y, g, mode),))


def _svd_check(a, full_matrices, hermitian):
    m, n = np.shape(a)[-2:]
    if hermitian:
        raise NotImplementedError("derivative of np.linalg.svd with hermitian=True")
    if full_matrices and m != n:
        raise NotImplementedError("derivative of np.linalg.svd of a non-square matrix needs full_matrices=False "
                                  "(the extra singular vectors are not unique)")


def _svd_gaps(s):
    """F[i, j] = 1 / (s[j]^2 - s[i]^2) off the diagonal (distinct singular values assumed)."""
    return _gaps(s * s)


def svd_tangent(a, y, da, full_matrices=True, compute_uv=True, hermitian=False):
    """A = U diag(s) V^T with dP = U^T dA V: ds = diag(dP);
    dU = U (F * (dP S + S dP^T)) + (I - U U^T) dA V S^-1, dV = V (F * (S dP + dP^T S)) + (I - V V^T) dA^T U S^-1."""
    _real_only("svd", a)
    da = np.broadcast_to(da, np.shape(a))
    if not compute_uv:
        if hermitian:  # NumPy then reads only the lower triangle: not the formula below
            raise NotImplementedError("derivative of np.linalg.svd with hermitian=True")
        U, s, Vh = np.linalg.svd(a, full_matrices=False)
        return np.diagonal(_mT(U) @ da @ _mT(Vh), axis1=-2, axis2=-1).copy()
    _svd_check(a, full_matrices, hermitian)
    U, s, Vh = y
    V = _mT(Vh)
    dP = _mT(U) @ da @ V
    F = _svd_gaps(s)
    row, col = s[..., :, None], s[..., None, :]
    dU = U @ (F * (dP * col + row * _mT(dP)))
    dU = dU + (da @ V - U @ (_mT(U) @ da @ V)) / col
    dV = V @ (F * (row * dP + _mT(dP) * col))
    dV = dV + (_mT(da) @ U - V @ (_mT(V) @ _mT(da) @ U)) / col
    return dU, np.diagonal(dP, axis1=-2, axis2=-1).copy(), _mT(dV)


def singular_values_adjoint(a, g, hermitian=False):
    """The adjoint of the singular values alone (`compute_uv=False`): U diag(g) V^H, real or complex a."""
    if _no_adjoint(g):
        return NoTangent
    if hermitian:
        raise NotImplementedError("derivative of np.linalg.svd with hermitian=True")
    U, s, Vh = np.linalg.svd(a, full_matrices=False)
    return (U * np.asarray(g)[..., None, :]) @ Vh


def svd_adjoint(a, y, g, full_matrices=True, compute_uv=True, hermitian=False):
    if not compute_uv:
        return singular_values_adjoint(a, g, hermitian)
    _svd_check(a, full_matrices, hermitian)
    U, s, Vh = y
    Ubar, sbar, Vhbar = _parts(g, 3)
    if Ubar is NoTangent and sbar is NoTangent and Vhbar is NoTangent:
        return NoTangent
    V = _mT(Vh)
    F = _svd_gaps(s)
    row, col = s[..., :, None], s[..., None, :]
    Pbar = np.zeros(np.shape(a)[:-2] + (s.shape[-1], s.shape[-1]))
    out = 0.0
    if Ubar is not NoTangent:
        Ubar = np.asarray(Ubar)
        J = F * (_mT(U) @ Ubar)
        Pbar = Pbar + (J + _mT(J)) * col
        out = out + ((Ubar - U @ (_mT(U) @ Ubar)) / col) @ Vh
    if Vhbar is not NoTangent:
        Vbar = _mT(np.asarray(Vhbar))
        K = F * (_mT(V) @ Vbar)
        Pbar = Pbar + row * (K + _mT(K))
        out = out + U @ _mT((Vbar - V @ (_mT(V) @ Vbar)) / col)
    if sbar is not NoTangent:
        Pbar = Pbar + np.asarray(sbar)[..., None, :] * np.eye(s.shape[-1])
    return out + U @ Pbar @ Vh


defjvp(np.linalg.svd, lambda t, y, a, full_matrices=True, compute_uv=True, hermitian=False:
       t.call(svd_tangent, a, y, t.d(a), full_matrices, compute_uv, hermitian) if t.d(a) is not None else None)
defvjp(np.linalg.svd, lambda t, g, y, a, full_matrices=True, compute_uv=True, hermitian=False:
       (t.call(svd_adjoint, a, y, g, full_matrices, compute_uv, hermitian),))


def _lstsq_parts(a, b, y, rcond=None, b_only=False):
    """pinv(a), x and the residual r = b - a x, as matrices (a 1-D b as one column).  a must have full rank,
    unless only b's derivative is asked (b_only: a constant a, or b's adjoint): x = a+ b is linear in b whatever
    a's rank, with a+ the map lstsq itself applies (the same singular-value cutoff: lstsq of the identity)."""
    x, _, rank, _ = y
    if rank < min(np.shape(a)):
        if not b_only:
            raise NotImplementedError("derivative of np.linalg.lstsq of a rank-deficient matrix with respect to "
                                      "the matrix (the solution jumps); a constant matrix is supported")
        P = _lstsq_map(a, rcond)
    else:
        P = np.linalg.pinv(a)
    X = np.asarray(x).reshape(np.shape(x)[0], -1)
    B = _inexact(b).reshape(np.shape(b)[0], -1)
    return P, X, B - np.asarray(a) @ X


def _still(da) -> bool:
    """Is the matrix's tangent exactly zero (a constant, or module state read with a zero tangent)?"""
    return da is NoTangent or (isinstance(da, np.ndarray) and not np.any(da))


def _lstsq_map(a, rcond):
    """The matrix lstsq applies to b: lstsq(a, I)[0] (rcond None is NumPy 2's default; NumPy 1's was -1)."""
    if rcond is None and int(np.__version__.split(".")[0]) < 2:
        rcond = -1
    return np.linalg.lstsq(a, np.eye(np.shape(a)[0], dtype=np.result_type(a, 1.0)), rcond=rcond)[0]


def lstsq_tangent(a, b, y, da, db, rcond=None):
    """x = pinv(A) b for a full-rank A: dx = -A+ dA x + A+ A+^T dA^T r + (I - A+ A) dA^T A+^T x + A+ db;
    the residual sums |r_j|^2 change by 2 r_j^T (db_j - dA x_j); the singular values by u_i^T dA v_i."""
    _real_only("lstsq", a, b)
    if da is NoTangent and db is NoTangent:
        return NoTangent
    P, X, R = _lstsq_parts(a, b, y, rcond, b_only=_still(da))
    x, res, _, s = y
    n = np.shape(a)[1]
    dA = np.zeros(np.shape(a)) if da is NoTangent else np.broadcast_to(da, np.shape(a))
    dB = 0.0 if db is NoTangent else _inexact(db).reshape(R.shape)
    dX = P @ (dB - dA @ X) + P @ _mT(P) @ (_mT(dA) @ R) + (np.eye(n) - P @ np.asarray(a)) @ (_mT(dA) @ (_mT(P) @ X))
    dres = 2.0 * np.sum(R * (dB - dA @ X), axis=0) if np.size(res) else np.zeros(np.shape(res))
    if da is NoTangent:
        ds = np.zeros(np.shape(s))
    else:
        U, _, Vh = np.linalg.svd(a, full_matrices=False)
        ds = np.diagonal(_mT(U) @ dA @ _mT(Vh)).copy()
    return dX.reshape(np.shape(x)), dres, NoTangent, ds


def lstsq_adjoint(a, b, y, g, which, rcond=None):
    """The adjoint of a (which=0) or b (which=1) of np.linalg.lstsq."""
    xbar, resbar, _, sbar = _parts(g, 4)
    if xbar is NoTangent and resbar is NoTangent and (sbar is NoTangent or which == 1):
        return NoTangent
    if which == 0 and y[2] < min(np.shape(a)):
        # (a's adjoint at a rank-deficient a: the solution jumps, no derivative exists; nan says so, as for
        # repeated eigenvalues (docs/nan-derivatives.md), and b's adjoint, which exists, stays usable)
        return np.full(np.shape(a), np.nan)
    P, X, R = _lstsq_parts(a, b, y, rcond, b_only=which == 1)
    A = np.asarray(a)
    n = A.shape[1]
    Xbar = np.zeros(X.shape) if xbar is NoTangent else np.asarray(xbar).reshape(X.shape)
    if which == 1:
        out = _mT(P) @ Xbar
        if resbar is not NoTangent and np.size(y[1]):
            out = out + 2.0 * R * np.asarray(resbar)
        return out.reshape(np.shape(b))
    W = P @ (_mT(P) @ Xbar)
    out = -_mT(P) @ Xbar @ _mT(X) + R @ _mT(W) + (_mT(P) @ X) @ _mT((np.eye(n) - P @ A) @ Xbar)
    if resbar is not NoTangent and np.size(y[1]):
        out = out - 2.0 * (R * np.asarray(resbar)) @ _mT(X)
    if sbar is not NoTangent:
        U, _, Vh = np.linalg.svd(A, full_matrices=False)
        out = out + (U * np.asarray(sbar)) @ Vh
    return out


defjvp(np.linalg.lstsq, lambda t, y, a, b, rcond=None: t.call(lstsq_tangent, a, b, y, t.dz(a), t.dz(b), rcond) if (t.d(a) is not None or t.d(b) is not None) else None)
defvjp(np.linalg.lstsq, lambda t, g, y, a, b, rcond=None: (t.call(lstsq_adjoint, a, b, y, g, 0, rcond), t.call(lstsq_adjoint, a, b, y, g, 1, rcond), None))

if hasattr(np.linalg, "svdvals"):
    defjvp(np.linalg.svdvals, lambda t, y, a: t.call(svd_tangent, a, y, t.d(a), False, False) if t.d(a) is not None else None)
    defvjp(np.linalg.svdvals, lambda t, g, y, a: (t.call(svd_adjoint, a, y, g, False, False),))

# Right for complex values in reverse mode (README "Complex numbers"; tests/test_complex_reverse.py): norm's
# gradient is built from the phases x/|x| (g real), inv takes -Y^H g Y^H, solve solve(a^H, g) and -b_bar x^H,
# det g conj(det) A^-H.  The others (slogdet, cholesky, eigh, qr, svd, lstsq) refuse complex values in reverse.
defcomplex(np.linalg.norm, np.linalg.inv, np.linalg.solve, np.linalg.det)
