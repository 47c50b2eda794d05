"""NumPy 2's vector products, both modes: np.vecdot, np.matvec, np.vecmat (and np.linalg.vecdot, np.linalg.outer).

Bilinear, like the products of numpy_products.py: the tangent is the product with one factor replaced
by its tangent, each factor's adjoint contracts g with the other factor (broadcast dimensions summed
back).  vecdot and vecmat conjugate their first factor, so the tangents hold for complex values as
written; reverse mode of complex operands is refused (not worked out here).  Of the gufunc keywords,
`axis` of vecdot is followed; others (out, axes, keepdims, dtype, ...) are refused.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent
from .numpy_common import _no_adjoint, _unb
from .registry import defjvp, defvjp


def _dense(x, dx):
    return np.zeros(np.shape(x)) if dx is NoTangent or dx is None else dx


def _check(name, kw):
    extra = sorted(k for k in kw if k != "axis" or name != "vecdot")
    if extra:
        raise NotImplementedError(f"derivative of np.{name} with {', '.join(extra)}=: not implemented")


def _real(name, *xs):
    if any(np.iscomplexobj(x) for x in xs):
        raise NotImplementedError(f"reverse mode of np.{name} of complex arrays: not implemented (forward mode is)")


def vecdot_tangent(fn, a, b, da, db, **kw):
    _check("vecdot", kw)
    return fn(_dense(a, da), b, **kw) + fn(a, _dense(b, db), **kw)


def vecdot_adjoint(a, b, g, which, axis=-1):
    """y = sum(a * b, axis): a's adjoint is g * b, b's is g * a (g given back its summed axis)."""
    if _no_adjoint(g):
        return NoTangent
    _real("vecdot", a, b, g)
    a, b, g = np.asarray(a), np.asarray(b), np.asarray(g)
    nd = max(a.ndim, b.ndim)
    ax = axis % nd
    other, like = (b, a) if which == 0 else (a, b)
    full = np.expand_dims(g, ax) * (other if other.ndim == nd else other.reshape((1,) * (nd - other.ndim) + other.shape))
    return _unb(full, like)


def matvec_tangent(fn, a, b, da, db):
    return fn(_dense(a, da), b) + fn(a, _dense(b, db))


def matvec_adjoint(a, b, g, which):
    """y[..., i] = sum_j a[..., i, j] b[..., j]."""
    if _no_adjoint(g):
        return NoTangent
    _real("matvec", a, b, g)
    a, b, g = np.asarray(a), np.asarray(b), np.asarray(g)
    if which == 0:
        return _unb(g[..., :, None] * b[..., None, :], a)
    return _unb(np.sum(g[..., :, None] * a, axis=-2), b)


def vecmat_adjoint(a, b, g, which):
    """y[..., j] = sum_i a[..., i] b[..., i, j]."""
    if _no_adjoint(g):
        return NoTangent
    _real("vecmat", a, b, g)
    a, b, g = np.asarray(a), np.asarray(b), np.asarray(g)
    if which == 0:
        return _unb(np.sum(b * g[..., None, :], axis=-1), a)
    return _unb(a[..., :, None] * g[..., None, :], b)


def _jvp2(tangent, fn, keywords=False):
    def jvp(t, y, a, b, **kw):
        if t.d(a) is None and t.d(b) is None:
            return None
        if keywords:
            return t.call(tangent, fn, a, b, t.dz(a), t.dz(b), **kw)
        if kw:
            raise NotImplementedError(f"derivative of np.{fn.__name__} with {', '.join(sorted(kw))}=: not implemented")
        return t.call(tangent, fn, a, b, t.dz(a), t.dz(b))

    return jvp


_VECDOTS = [f for f in (getattr(np, "vecdot", None), getattr(np.linalg, "vecdot", None)) if f is not None]
for _f in _VECDOTS:
    defjvp(_f, _jvp2(vecdot_tangent, _f, keywords=True))
    defvjp(_f, lambda t, g, y, a, b, **kw: (t.call(vecdot_adjoint, a, b, g, 0, **kw), t.call(vecdot_adjoint, a, b, g, 1, **kw)))
if hasattr(np.linalg, "outer"):  # (1-D operands only: np.outer's rules; its implementation passes out=None to np.outer)
    from .numpy_products import outer_adjoint

    defjvp(np.linalg.outer, lambda t, y, a, b: t.add(t.lin(np.outer, t.d(a), b), t.linr(np.outer, a, t.d(b))))
    defvjp(np.linalg.outer, lambda t, g, y, a, b: (t.call(outer_adjoint, g, a, b, 0), t.call(outer_adjoint, g, a, b, 1)))
if hasattr(np, "matvec"):
    defjvp(np.matvec, _jvp2(matvec_tangent, np.matvec))
    defvjp(np.matvec, lambda t, g, y, a, b: (t.call(matvec_adjoint, a, b, g, 0), t.call(matvec_adjoint, a, b, g, 1)))
if hasattr(np, "vecmat"):
    defjvp(np.vecmat, _jvp2(matvec_tangent, np.vecmat))
    defvjp(np.vecmat, lambda t, g, y, a, b: (t.call(vecmat_adjoint, a, b, g, 0), t.call(vecmat_adjoint, a, b, g, 1)))
