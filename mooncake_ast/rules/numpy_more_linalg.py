"""NumPy rules, both modes: np.linalg.multi_dot, cond, eig and eigvals (split from numpy_more.py).

Where the derivative does not exist the rules refuse instead of returning a number: repeated
eigenvalues (eig, eigvals), equal largest or smallest singular values (cond), and a tie for the largest
entry of an eigenvector, which decides the phase NumPy (LAPACK) gives it (eig: each eigenvector has
unit norm and its largest entry real, and the derivative keeps it so).  cond supports p=None, 2, -2
and 'fro'.  Complex values follow the convention of the other rules, <a, b> = Re(conj(a) b).
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent
from .numpy_common import _no_adjoint, _split
from .numpy_extra import _dz, _number, _zero
from .registry import defcomplex, defjvp, defvjp


def _mT(a):
    return np.swapaxes(a, -1, -2)


def _H(a):
    return np.conj(_mT(a))


# ================================================================== multi_dot
def _as_matrices(arrays):
    """The operands as 2-D matrices (a 1-D first one a row, a 1-D last one a column), as multi_dot reads them."""
    ms = [np.asarray(a) for a in arrays]
    if ms[0].ndim == 1:
        ms[0] = ms[0][None, :]
    if ms[-1].ndim == 1:
        ms[-1] = ms[-1][:, None]
    return ms


def _chain(ms, n_rows):
    out = np.eye(n_rows)
    for m in ms:
        out = out @ m
    return out


def multi_dot_tangent(arrays, darrays):
    ds = [NoTangent] * len(arrays) if _zero(darrays) else list(darrays)
    out = 0.0
    for i, d in enumerate(ds):
        if _zero(d):
            continue
        parts = list(arrays)
        parts[i] = _dz(arrays[i], d)
        out = out + np.linalg.multi_dot(parts)
    return out


def multi_dot_adjoint(g, arrays):
    from ..reverse.adjoints import AdjList, AdjTuple

    if _no_adjoint(g):
        return NoTangent
    ms = _as_matrices(arrays)
    G = np.asarray(g).reshape(ms[0].shape[0], ms[-1].shape[1])
    bars = []
    for i in range(len(ms)):
        left = _chain(ms[:i], ms[0].shape[0])
        right = _chain(ms[i + 1:], ms[i].shape[1])
        bar = _mT(left) @ G @ _mT(right)
        bars.append(bar.reshape(np.shape(arrays[i])))
    return AdjList(bars) if isinstance(arrays, list) else AdjTuple(bars)


defjvp(np.linalg.multi_dot, lambda t, y, arrays, **k: t.call(multi_dot_tangent, arrays, t.d(arrays)) if t.d(arrays) is not None else None)
defvjp(np.linalg.multi_dot, lambda t, g, y, arrays, **k: (t.call(multi_dot_adjoint, g, arrays),))


# ================================================================== cond
def _cond_parts(x, p):
    """(value, gradient G) of cond(x, p) for one of the supported p: d cond = Re(sum(conj(G) * dx))."""
    x = np.asarray(x)
    if p in (None, 2, -2):
        u, s, vt = np.linalg.svd(x, full_matrices=False)
        top, bottom = s[..., 0], s[..., -1]
        if s.shape[-1] > 1 and (np.any(np.isclose(s[..., 0], s[..., 1], rtol=1e-10, atol=0))
                                or np.any(np.isclose(s[..., -1], s[..., -2], rtol=1e-10, atol=0))):
            raise NotImplementedError("derivative of np.linalg.cond where the largest or the smallest singular "
                                      "value is repeated (not differentiable there)")
        d_top = u[..., :, :1] @ vt[..., :1, :]  # d s_max / d x
        d_bot = u[..., :, -1:] @ vt[..., -1:, :]
        c = top / bottom
        grad = d_top / bottom[..., None, None] - (top / bottom ** 2)[..., None, None] * d_bot
        if p == -2:
            c = 1.0 / c
            grad = -grad * (c ** 2)[..., None, None]
        return c, grad
    if p == "fro":
        b = np.linalg.inv(x)
        na = np.linalg.norm(x, "fro", axis=(-2, -1))[..., None, None]
        nb = np.linalg.norm(b, "fro", axis=(-2, -1))[..., None, None]
        grad = nb * x / na - na * (_H(b) @ (b / nb) @ _H(b))
        return (na * nb)[..., 0, 0], grad
    raise NotImplementedError(f"derivative of np.linalg.cond with p={p!r}: only None, 2, -2 and 'fro'")


def cond_tangent(x, dx, p=None):
    _, grad = _cond_parts(x, p)
    r = np.real(np.sum(np.conj(grad) * np.broadcast_to(dx, np.shape(x)), axis=(-2, -1)))
    return _number(r[()] if np.ndim(r) == 0 else r)


def cond_adjoint(x, g, p=None):
    if _no_adjoint(g):
        return NoTangent
    _, grad = _cond_parts(x, p)
    return grad * np.real(np.asarray(g))[..., None, None]


defjvp(np.linalg.cond, lambda t, y, x, p=None: t.call(cond_tangent, x, t.d(x), p) if t.d(x) is not None else None)
defvjp(np.linalg.cond, lambda t, g, y, x, p=None: (t.call(cond_adjoint, x, g, p), None))


# ================================================================== eig, eigvals
def _eig_checked(a):
    a = np.asarray(a)
    w, V = np.linalg.eig(a)
    n = len(w)
    if n > 1:
        gap = np.where(np.eye(n, dtype=bool), np.inf, np.abs(w[:, None] - w[None, :]))
        if np.min(gap) <= 1e-9 * max(1.0, np.max(np.abs(w))):
            raise NotImplementedError("derivative of np.linalg.eig/eigvals with repeated eigenvalues (not differentiable there)")
    return w, V


def _gaps(w):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it (equal ones, up to rounding, inf)."""
    from .numpy_linalg import rounding_ties

    n = len(w)
    d = w[None, :] - w[:, None]
    off = ~np.eye(n, dtype=bool)
    tie = np.abs(d) <= rounding_ties(w)  # (equal up to rounding: as equal, numpy_linalg._gaps)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(off, np.where(tie, np.inf, 1.0 / np.where(tie | ~off, 1.0, d)), 0.0)


def _like_output(y, v):
    """A tangent shaped and typed like the output y (NumPy returns real arrays when every eigenvalue is real)."""
    return np.real(v) if not np.iscomplexobj(y) else v


def _like_input(a, v):
    return np.real(v) if not np.iscomplexobj(a) else v


def _item(v, i):
    """Matrix i of a stack's tangent or adjoint (a symbolic zero stays one)."""
    return v if _zero(v) else np.asarray(v)[i]


def _stacked(fn, a, y, v, pair, vpair=False):
    """fn applied to each matrix of a stack (a.ndim > 2), its results stacked back: eig and eigvals
    differentiate matrix by matrix.  pair: y is a (values, vectors) pair; vpair: v is one too."""
    a = np.asarray(a)
    lead = a.shape[:-2]
    outs = []
    for i in np.ndindex(*lead):
        yi = (y[0][i], y[1][i]) if pair else y[i]
        vi = ((_item(v[0], i), _item(v[1], i)) if vpair and not _zero(v) else _item(v, i))
        outs.append(fn(a[i], yi, vi))
    if pair and isinstance(outs[0], tuple):
        return tuple(np.stack([o[j] for o in outs]).reshape(lead + np.shape(outs[0][j])) for j in range(2))
    if all(_zero(o) for o in outs):
        return NoTangent
    return np.stack([np.zeros(a.shape[-2:], a.dtype) if _zero(o) else o for o in outs]).reshape(lead + np.shape(outs[0]))


def eigvals_tangent(a, y, da):
    if np.ndim(a) > 2:
        return _stacked(eigvals_tangent, a, y, np.broadcast_to(_dz(a, da), np.shape(a)), False)
    w, V = _eig_checked(a)
    M = np.linalg.solve(V, np.asarray(_dz(a, da)) @ V)
    return _like_output(y, np.diagonal(M).copy())


def eigvals_adjoint(a, y, g):
    if _no_adjoint(g):
        return NoTangent
    if np.ndim(a) > 2:
        return _stacked(eigvals_adjoint, a, y, g, False)
    w, V = _eig_checked(a)
    return _like_input(a, np.linalg.solve(_H(V), np.diag(np.asarray(g, dtype=complex)) @ _H(V)))


def _largest(V):
    """The row of each eigenvector's largest entry (LAPACK makes it real); refused when two are as large."""
    mag = np.abs(V)
    k = np.argmax(mag, axis=0)
    srt = np.sort(mag, axis=0)
    if V.shape[0] > 1 and np.any(np.isclose(srt[-1], srt[-2], rtol=1e-9, atol=0)):
        raise NotImplementedError("derivative of np.linalg.eig's eigenvectors where two entries of an eigenvector "
                                  "are equally large (NumPy's choice of its phase is not differentiable there)")
    return k


def eig_tangent(a, y, da):
    if np.ndim(a) > 2:
        return _stacked(eig_tangent, a, y, np.broadcast_to(_dz(a, da), np.shape(a)), True)
    w, V = _eig_checked(a)
    k = _largest(V)
    cols = np.arange(len(w))
    M = np.linalg.solve(V, np.asarray(_dz(a, da)) @ V)
    dw = np.diagonal(M).copy()
    dV = V @ (_gaps(w) * M)
    vk = V[k, cols]
    c = -np.real(np.sum(np.conj(V) * dV, axis=0)) - 1j * np.imag(dV[k, cols]) / np.real(vk)
    dV = dV + V * c
    return _like_output(y[0], dw), _like_output(y[1], dV)


def eig_adjoint(a, y, g):
    if _zero(g):
        return NoTangent
    wbar, Vbar = (list(g) + [NoTangent, NoTangent])[:2]
    if _zero(wbar) and _zero(Vbar):
        return NoTangent
    if np.ndim(a) > 2:
        return _stacked(eig_adjoint, a, y, (wbar, Vbar), True, True)
    w, V = _eig_checked(a)
    n = len(w)
    Mbar = np.zeros((n, n), dtype=complex)
    if not _zero(Vbar):
        k = _largest(V)
        cols = np.arange(n)
        Vbar = np.asarray(Vbar, dtype=complex)
        cbar = np.sum(np.conj(V) * Vbar, axis=0)
        dV0bar = Vbar - V * np.real(cbar)
        dV0bar[k, cols] += -1j * np.imag(cbar) / np.real(V[k, cols])
        Mbar = Mbar + np.conj(_gaps(w)) * (_H(V) @ dV0bar)
    if not _zero(wbar):
        Mbar = Mbar + np.diag(np.asarray(wbar, dtype=complex))
    return _like_input(a, np.linalg.solve(_H(V), Mbar @ _H(V)))


defjvp(np.linalg.eigvals, lambda t, y, a: t.call(eigvals_tangent, a, y, t.d(a)) if t.d(a) is not None else None)
defvjp(np.linalg.eigvals, lambda t, g, y, a: (t.call(eigvals_adjoint, a, y, g),))
defjvp(np.linalg.eig, lambda t, y, a: t.call(eig_tangent, a, y, t.d(a)) if t.d(a) is not None else None)
defvjp(np.linalg.eig, lambda t, g, y, a: (t.call(eig_adjoint, a, y, g),))


# Written with conjugate transposes (module docstring); checked with complex matrices in tests/test_complex_reverse.py.
defcomplex(np.linalg.eig, np.linalg.eigvals)
