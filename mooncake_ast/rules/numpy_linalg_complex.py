"""np.linalg.eigh, eigvalsh, svd and svdvals for complex matrices (issue 12), both modes.

The real formulas (numpy_linalg.py) carry over with conjugate transposes, except for one freedom: a
complex eigenvector (or a pair of singular vectors) is fixed only up to a phase e^(i theta), and the
derivative of the vectors NumPy returns depends on how LAPACK picks that phase.  LAPACK's reductions
leave one row of the vectors real (zheevd: the first row of V with UPLO="L", the last with "U"; zgesdd:
the first row of V when the matrix is tall or square, the first row of U when it is wide), because
they start with Householder reflections that keep one coordinate fixed.  The tangent here is the
canonical one (V^H dV with a zero diagonal) plus the phase change that keeps that
row real, so it is the derivative of what NumPy returns.  The rules check at run time that the row is
real and has no zero entry; otherwise (another LAPACK, a degenerate vector: a block-diagonal matrix) the
vectors' tangent is a RefusedAdjoint, which raises when used (or is handed back as is), while the values'
tangent is still given.  Values
(eigenvalues, singular values) need no such choice: dw = Re diag(V^H dS V), ds = Re diag(U^H dA V).

What eigh reads: the lower (or upper) triangle and the real part of the diagonal; the tangent sees the
same Hermitian matrix.  Repeated eigenvalues or singular values (and a zero singular value with
vectors) have no derivative of the vectors, as in the real case.  Reverse mode is the adjoint of that tangent in
the inner product Re(conj(a) b) (README "Complex numbers"), worked backwards step by step.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent
from . import numpy_linalg as real
from .numpy_common import _no_adjoint
from .fingerprints import _fingerprint
from .registry import _entry, defcomplex, defjvp, defvjp


def _mH(a):
    return np.conj(np.swapaxes(a, -1, -2))


def _complex(*xs):
    return any(np.iscomplexobj(x) for x in xs)


def _gaps(w):
    return real._gaps(w)


def _hermitian_seen(d, upper):
    """The Hermitian matrix zheevd sees from a full one: one strict triangle, mirrored conjugated, and the
    real part of the diagonal."""
    tri = np.triu(d, 1) if upper else np.tril(d, -1)
    n = d.shape[-1]
    return tri + _mH(tri) + np.real(np.diagonal(d, axis1=-2, axis2=-1))[..., None, :] * np.eye(n)


def _phase_fixed(W, dW0, row, what):
    """dW0 (the canonical tangent of the vectors W) plus W i diag(phi), phi chosen so that W[..., row, :]
    stays real: the gauge LAPACK's vectors follow.  When that row is not real or has a zero, the vectors'
    tangent is a RefusedAdjoint: any use of it raises, while the values' tangent stays usable."""
    r = W[..., row, :]
    scale = max(float(np.max(np.abs(W))), 1e-300)
    if np.any(np.abs(np.imag(r)) > 1e-10 * scale) or np.any(np.abs(r) < 1e-12 * scale):
        from .scipy_special_more import RefusedAdjoint

        return RefusedAdjoint(
            f"forward mode of np.linalg.{what} of a complex matrix: the vectors NumPy returned do not follow the phase "
            f"convention this rule knows (row {row} real and nonzero), so their derivative is unknown; "
            f"the values' derivative is supported (take only the values, or a phase-invariant function of the vectors)")
    phi = -np.imag(dW0[..., row, :]) / np.real(r)
    return dW0 + W * (1j * phi)[..., None, :]


def eigh_complex_tangent(a, y, da, UPLO="L"):
    """A V = V diag(w), A Hermitian: M = V^H dS V, dw = Re diag(M), dV = V (F * M) + V i diag(phi)."""
    w, V = y
    S = _hermitian_seen(np.broadcast_to(da, np.shape(a)).astype(complex), UPLO == "U")
    M = _mH(V) @ S @ V
    dw = np.real(np.diagonal(M, axis1=-2, axis2=-1)).copy()
    dV0 = V @ (_gaps(w) * M)
    return dw, _phase_fixed(V, dV0, 0 if UPLO == "L" else -1, "eigh")


def eigh_tangent(a, y, da, UPLO="L"):
    if _complex(a, da):
        return eigh_complex_tangent(a, y, da, UPLO)
    return real.eigh_tangent(a, y, da, UPLO)


def eigvalsh_tangent(a, y, da, UPLO="L"):
    if _complex(a, da):
        _, V = np.linalg.eigh(a, UPLO=UPLO)
        S = _hermitian_seen(np.broadcast_to(da, np.shape(a)).astype(complex), UPLO == "U")
        return np.real(np.diagonal(_mH(V) @ S @ V, axis1=-2, axis2=-1)).copy()
    return real.eigvalsh_tangent(a, y, da, UPLO)


def svd_complex_tangent(a, y, da, full_matrices=True, compute_uv=True, hermitian=False):
    """A = U diag(s) V^H, dP = U^H dA V: ds = Re diag(dP); off the diagonal
    U^H dU = F * (dP S + S dP^H), V^H dV = F * (S dP + dP^H S) (F[i, j] = 1 / (s_j^2 - s_i^2)), the parts
    outside the span of U (V) as in the real case, and the phases: Im diag(U^H dU - V^H dV) = Im diag(dP) / s,
    their common part fixed by LAPACK's convention (_phase_fixed)."""
    if hermitian:
        raise NotImplementedError("derivative of np.linalg.svd with hermitian=True")
    da = np.broadcast_to(da, np.shape(a)).astype(complex)
    if not compute_uv:
        U, s, Vh = np.linalg.svd(a, full_matrices=False)
        return np.real(np.diagonal(_mH(U) @ da @ _mH(Vh), axis1=-2, axis2=-1)).copy()
    real._svd_check(a, full_matrices, hermitian)
    U, s, Vh = y
    V = _mH(Vh)
    m, n = np.shape(a)[-2:]
    dP = _mH(U) @ da @ V
    F = real._svd_gaps(s)
    row, col = s[..., :, None], s[..., None, :]
    off_u = F * (dP * col + row * _mH(dP))
    off_v = F * (row * dP + _mH(dP) * col)
    rel = np.imag(np.diagonal(dP, axis1=-2, axis2=-1)) / s  # Im diag(U^H dU) - Im diag(V^H dV)
    dU = U @ off_u + (da @ V - U @ (_mH(U) @ da @ V)) / col
    dV = V @ off_v + (_mH(da) @ U - V @ (_mH(V) @ _mH(da) @ U)) / col
    ds = np.real(np.diagonal(dP, axis1=-2, axis2=-1)).copy()
    if m >= n:  # V's first row stays real: fix V's phases, U's follow
        dV = _phase_fixed(V, dV, 0, "svd")
        if not isinstance(dV, np.ndarray):
            return dV, ds, dV
        phi_v = np.imag(np.diagonal(_mH(V) @ dV, axis1=-2, axis2=-1))
        dU = dU + U * (1j * (phi_v + rel))[..., None, :]
    else:  # U's first row stays real
        dU = _phase_fixed(U, dU, 0, "svd")
        if not isinstance(dU, np.ndarray):
            return dU, ds, dU
        phi_u = np.imag(np.diagonal(_mH(U) @ dU, axis1=-2, axis2=-1))
        dV = dV + V * (1j * (phi_u - rel))[..., None, :]
    return dU, ds, _mH(dV)


def svd_tangent(a, y, da, full_matrices=True, compute_uv=True, hermitian=False):
    if _complex(a, da):
        return svd_complex_tangent(a, y, da, full_matrices, compute_uv, hermitian)
    return real.svd_tangent(a, y, da, full_matrices, compute_uv, hermitian)


defjvp(np.linalg.eigh, lambda t, y, a, UPLO="L": t.call(eigh_tangent, a, y, t.d(a), UPLO) if t.d(a) is not None else None)
defjvp(np.linalg.eigvalsh, lambda t, y, a, UPLO="L": t.call(eigvalsh_tangent, a, y, t.d(a), UPLO) if t.d(a) is not None else None)
defjvp(np.linalg.svd, lambda t, y, a, full_matrices=True, compute_uv=True, hermitian=False:
       t.call(svd_tangent, a, y, t.d(a), full_matrices, compute_uv, hermitian) if t.d(a) is not None else None)
if hasattr(np.linalg, "svdvals"):
    defjvp(np.linalg.svdvals, lambda t, y, a: t.call(svd_tangent, a, y, t.d(a), False, False) if t.d(a) is not None else None)

for _fn in (np.linalg.eigh, np.linalg.eigvalsh, np.linalg.svd, getattr(np.linalg, "svdvals", None)):
    if _fn is not None:  # the fingerprint describes the reverse template too (defjvp keeps only the forward one's)
        _r = _entry(_fn)
        _r.fingerprint = _fingerprint(_r.jvp_template, _r.vjp, _r.mutates)


# ================================================================== reverse mode: eigh, eigvalsh
def _hermitian_seen_adjoint(d, upper):
    """The adjoint of _hermitian_seen: a strict-triangle entry gets d_ij + conj(d_ji), the diagonal Re(d_ii)."""
    tri = (np.triu(d, 1) + _mH(np.tril(d, -1))) if upper else (np.tril(d, -1) + _mH(np.triu(d, 1)))
    n = d.shape[-1]
    return tri + np.real(np.diagonal(d, axis1=-2, axis2=-1))[..., None, :] * np.eye(n)


def eigh_complex_adjoint(a, y, g, UPLO="L"):
    """The adjoint of eigh_complex_tangent, step by step backwards: the phase fix dV = dV0 + V i diag(phi),
    phi_j = -Im(dV0[r, j]) / V[r, j], gives dV0_bar = V_bar + e_r (i Im(c_j) / V[r, j]) with c_j = V_bar[:, j]^H V[:, j];
    dV0 = V (F * M) gives M_bar = F * (V^H dV0_bar), plus diag(w_bar); M = V^H dS V gives dS_bar = V M_bar V^H."""
    w, V = y
    wbar, Vbar = real._parts(g, 2)
    if wbar is NoTangent and Vbar is NoTangent:
        return NoTangent
    Mbar = np.zeros(V.shape, dtype=complex)
    if Vbar is not NoTangent:
        row = 0 if UPLO == "L" else -1
        r = V[..., row, :]
        scale = max(float(np.max(np.abs(V))), 1e-300)
        if np.any(np.abs(np.imag(r)) > 1e-10 * scale) or np.any(np.abs(r) < 1e-12 * scale):
            raise NotImplementedError(f"reverse mode of np.linalg.eigh of a complex matrix: the eigenvectors NumPy "
                                      f"returned do not follow the phase convention this rule knows (row {row} real and "
                                      f"nonzero); the eigenvalues' derivative is supported (np.linalg.eigvalsh)")
        Vbar = np.asarray(Vbar, dtype=complex)
        c = np.sum(np.conj(Vbar) * V, axis=-2)
        dV0bar = Vbar.copy()
        dV0bar[..., row, :] += 1j * np.imag(c) / np.real(r)
        Mbar = Mbar + _gaps(w) * (_mH(V) @ dV0bar)
    if wbar is not NoTangent:
        Mbar = Mbar + np.asarray(wbar)[..., None, :] * np.eye(w.shape[-1])
    return _hermitian_seen_adjoint(V @ Mbar @ _mH(V), UPLO == "U")


def eigh_adjoint(a, y, g, UPLO="L"):
    if _complex(a):
        return eigh_complex_adjoint(a, y, g, UPLO)
    return real.eigh_adjoint(a, y, g, UPLO)


def eigvalsh_adjoint(a, y, g, UPLO="L"):
    if not _complex(a):
        return real.eigvalsh_adjoint(a, y, g, UPLO)
    if _no_adjoint(g):
        return NoTangent
    _, V = np.linalg.eigh(a, UPLO=UPLO)
    return _hermitian_seen_adjoint((V * np.asarray(g)[..., None, :]) @ _mH(V), UPLO == "U")


defvjp(np.linalg.eigh, lambda t, g, y, a, UPLO="L": (t.call(eigh_adjoint, a, y, g, UPLO),))
defvjp(np.linalg.eigvalsh, lambda t, g, y, a, UPLO="L": (t.call(eigvalsh_adjoint, a, y, g, UPLO),))
defcomplex(np.linalg.eigh, np.linalg.eigvalsh)  # (tests/test_complex_reverse.py)


# ================================================================== reverse mode: svd, svdvals
def _phase_fix_adjoint(W, Wbar, row, what):
    """The adjoint of _phase_fixed: W_bar plus, in row `row`, i Im(c_j) / W[row, j], c_j = W_bar[:, j]^H W[:, j]."""
    r = W[..., row, :]
    scale = max(float(np.max(np.abs(W))), 1e-300)
    if np.any(np.abs(np.imag(r)) > 1e-10 * scale) or np.any(np.abs(r) < 1e-12 * scale):
        raise NotImplementedError(f"reverse mode of np.linalg.{what} of a complex matrix: the vectors NumPy returned do "
                                  f"not follow the phase convention this rule knows (row {row} real and nonzero)")
    c = np.sum(np.conj(Wbar) * W, axis=-2)
    out = Wbar.copy()
    out[..., row, :] += 1j * np.imag(c) / np.real(r)
    return out


def _phase_turn_adjoint(W, Wbar):
    """For dW_out = dW + W i diag(tau): tau's adjoint, -Im(W_bar[:, j]^H W[:, j])."""
    return -np.imag(np.sum(np.conj(Wbar) * W, axis=-2))


def svd_complex_adjoint(a, y, g, full_matrices=True, compute_uv=True, hermitian=False):
    """The adjoint of svd_complex_tangent, its steps backwards: the phase of V (U for a wide matrix) and the
    common phase turn, then dU = U off_u + (1 - U U^H) dA V / s, dV likewise, off_u = F * (dP S + S dP^H),
    off_v = F * (S dP + dP^H S), ds = Re diag(dP), rel = Im diag(dP) / s, and dP = U^H dA V."""
    if not compute_uv:
        return real.singular_values_adjoint(a, g, hermitian)  # (U diag(g) V^H: the same for complex a)
    real._svd_check(a, full_matrices, hermitian)
    U, s, Vh = y
    Ubar, sbar, Vhbar = real._parts(g, 3)
    if Ubar is NoTangent and sbar is NoTangent and Vhbar is NoTangent:
        return NoTangent
    V = _mH(Vh)
    m, n = np.shape(a)[-2:]
    Ubar = np.zeros(U.shape, complex) if Ubar is NoTangent else np.asarray(Ubar, dtype=complex)
    Vbar = np.zeros(V.shape, complex) if Vhbar is NoTangent else _mH(np.asarray(Vhbar, dtype=complex))
    row, col = s[..., :, None], s[..., None, :]
    k = s.shape[-1]
    Pbar = np.zeros(np.shape(a)[:-2] + (k, k), complex)
    if m >= n:  # dU = dU1 + U i diag(phi_v + rel), phi_v = Im diag(V^H dV), dV = phase_fixed(V, dV1)
        tau = _phase_turn_adjoint(U, Ubar)
        Vbar = _phase_fix_adjoint(V, Vbar + V * (1j * tau)[..., None, :], 0, "svd")
    else:  # dV = dV1 + V i diag(phi_u - rel), phi_u = Im diag(U^H dU), dU = phase_fixed(U, dU1)
        tau = -_phase_turn_adjoint(V, Vbar)  # (rel enters with a minus sign)
        Ubar = _phase_fix_adjoint(U, Ubar - U * (1j * tau)[..., None, :], 0, "svd")
    Pbar = Pbar + (1j * tau / s)[..., None, :] * np.eye(k)  # rel = Im diag(dP) / s
    F = real._svd_gaps(s)
    J = F * (_mH(U) @ Ubar)
    K = F * (_mH(V) @ Vbar)
    Pbar = Pbar + (J + _mH(J)) * col + row * (K + _mH(K))
    if sbar is not NoTangent:
        Pbar = Pbar + np.asarray(sbar)[..., None, :] * np.eye(k)
    Q, R = Ubar / col, Vbar / col
    out = (Q - U @ (_mH(U) @ Q)) @ Vh + U @ _mH(R - V @ (_mH(V) @ R))
    return out + U @ Pbar @ Vh


def svd_adjoint(a, y, g, full_matrices=True, compute_uv=True, hermitian=False):
    if _complex(a):
        return svd_complex_adjoint(a, y, g, full_matrices, compute_uv, hermitian)
    return real.svd_adjoint(a, y, g, full_matrices, compute_uv, hermitian)


defvjp(np.linalg.svd, lambda t, g, y, a, full_matrices=True, compute_uv=True, hermitian=False:
       (t.call(svd_adjoint, a, y, g, full_matrices, compute_uv, hermitian),))
defcomplex(np.linalg.svd)  # (tests/test_complex_reverse.py)
if hasattr(np.linalg, "svdvals"):
    defvjp(np.linalg.svdvals, lambda t, g, y, a: (t.call(svd_adjoint, a, y, g, False, False),))
    defcomplex(np.linalg.svdvals)
