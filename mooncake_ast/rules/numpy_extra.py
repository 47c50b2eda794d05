"""NumPy rules, both modes: the rest of the NumPy that real code calls (issue 12).

    copies       np.append, hsplit/vsplit/dsplit, column_stack/row_stack/dstack, meshgrid, partition,
                 select, nan_to_num (here)
    statistics   average, ptp, median/percentile/quantile, nansum/nanmean/nanmax/nanmin/nanvar/nanstd,
                 cov, corrcoef (numpy_statistics.py)
    calculus     gradient, trapezoid (trapz), interp, convolve, correlate (numpy_calculus.py)
    linalg       np.linalg.pinv, np.linalg.matrix_power (here)

Functions that only copy entries (with repeats) share one reverse rule: the same function is run on
arrays of entry numbers, and each output entry's adjoint is added to the entry it was copied from
(`_copied_from`), so the adjoint is right for every axis, shape and broadcast those functions take.
Options a rule does not support raise NotImplementedError naming the option; so does a
differentiated operand whose derivative is not written (interp's xp, gradient's spacing, ...).

Conventions at non-differentiable points: ptp/nanmax/nanmin take the first position attaining the
extremum; median/quantile interpolate between the two order statistics NumPy does (ties: the entry
first in the array); interp's slope in x is the right-hand one (0 from xp[-1] on); nan_to_num's
replaced entries have slope 0.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent
from .call_binding import KwAdj
from .numpy_common import _bind, _in_storage, _inexact, _keep, _split, _unb
from .numpy_shapes import split_adjoint, split_tangent
from .registry import defjvp, defvjp


# ================================================================== shared helpers
def _zero(d):
    return d is None or d is NoTangent


def _dz(x, d):
    """x's tangent as a float (or complex) array shaped like x: symbolic zeros (also inside a list, and
    the zero of an integer operand) become zeros of x's shape."""
    if _zero(d):
        return np.zeros(np.shape(x), dtype=complex if np.iscomplexobj(x) else float)
    if isinstance(x, (list, tuple)) and isinstance(d, (list, tuple)):
        return np.array([_dz(xi, di) for xi, di in zip(x, d)])
    return np.broadcast_to(_inexact(d), np.shape(x)) if np.shape(d) != np.shape(x) else _inexact(d)


def _live(t, *xs):
    return any(t.d(x) is not None for x in xs)


def _nonzero(d):
    if _zero(d):
        return False
    if isinstance(d, (list, tuple)):
        return any(_nonzero(v) for v in d)
    return bool(np.any(np.asarray(d) != 0))


def unsupported_tangent(name, what, *tangents):
    """Forward mode: a tangent reaching an operand whose derivative is not written is refused."""
    if any(_nonzero(d) for d in tangents):
        raise NotImplementedError(f"derivative of {name} with respect to {what} is not supported")


def _refuse_tangent(t, name, what, *xs):
    live = [t.dz(x) for x in xs if t.d(x) is not None]
    if live:
        _keep(t.call(unsupported_tangent, name, what, *live))


def unsupported_adjoint(name, what, *values):
    from ..reverse.runtime import _nondifferentiable

    if not all(_nondifferentiable(v) for v in values):
        raise NotImplementedError(f"reverse mode of {name}: the derivative with respect to {what} is not supported")


def _refuse_adjoint(t, name, what, *xs):
    needs = getattr(t, "needs", None)
    live = [x for x in xs if needs is None or needs(x)]
    if live:
        _keep(t.call(unsupported_adjoint, name, what, *live))


def refused_adjoint(g, name, what, *value):
    """The adjoint of an operand whose derivative is not supported, in reverse mode: zero when the result's
    adjoint is, otherwise a RefusedAdjoint -- discarded unread when the operand turns out to be a constant
    (a helper function called with a literal: `quantile(x, 0.3)` inside `def h(x, q)`), a refusal as soon as
    it is added to a real adjoint.  (Refusing at run time from the value alone would refuse constants.)"""
    from ..reverse.runtime import _nondifferentiable
    from .scipy_special_more import RefusedAdjoint, _all_zero

    if _all_zero(g) or (value and _nondifferentiable(value[0])):  # (an int, a bool array: nothing to refuse)
        return NoTangent
    return RefusedAdjoint(f"reverse mode of {name}: the derivative with respect to {what} is not supported")


def _refused(t, g, name, what, x):
    """A reverse template's adjoint for operand x (see refused_adjoint): None when x gets no adjoint."""
    needs = getattr(t, "needs", None)
    if needs is not None and not needs(x):
        return None
    return t.call(refused_adjoint, g, name, what, x)


def refuse_option(name, option, bad):
    if bad:
        raise NotImplementedError(f"derivative of {name} with {option}")


def _number(x):
    return float(x) if isinstance(x, (float, int, np.floating, np.integer)) and not isinstance(x, bool) else x


# ------------------------------------------------------------------ functions that copy entries
def _numbered(values):
    """Arrays numbering the entries of each value consecutively (shapes kept), and how many there are."""
    out, start = [], 0
    for v in values:
        n = int(np.size(v))
        out.append(np.arange(start, start + n).reshape(np.shape(v)))
        start += n
    return out, start


def _copied_from(outputs, adjoints, total, owners=()):
    """Add each output entry's adjoint onto the entry (a number from `_numbered`) it is a copy of.
    An adjoint that is a view of an operand's own adjoint storage is already counted there."""
    acc = np.zeros(total)
    for idx, g in zip(outputs, adjoints):
        if _zero(g) or any(isinstance(o, np.ndarray) and _in_storage(o, g) for o in owners):
            continue
        idx = np.asarray(idx)
        g = np.broadcast_to(np.asarray(g), idx.shape)
        acc += np.bincount(idx.reshape(-1), weights=g.reshape(-1), minlength=total)[:total]
    return acc


def _like(flat, v):
    """The part of a flat adjoint that belongs to operand v, shaped like v (numbers stay numbers)."""
    from ..reverse.adjoints import AdjList, AdjTuple

    if isinstance(v, np.ndarray):
        return flat.reshape(v.shape)
    if isinstance(v, (list, tuple)):
        parts, s = [], 0
        for e in v:
            k = int(np.size(e))
            parts.append(_like(flat[s:s + k], e))
            s += k
        return AdjList(parts) if isinstance(v, list) else AdjTuple(parts)
    return float(flat[0]) if flat.size else 0.0


def _spread(acc, values):
    out, s = [], 0
    for v in values:
        k = int(np.size(v))
        out.append(_like(acc[s:s + k], v))
        s += k
    return out


def _parts(g, n):
    if _zero(g):
        return [NoTangent] * n
    items = [NoTangent if v is None else v for v in list(g)]
    return items + [NoTangent] * (n - len(items))


# ================================================================== np.append
def append_tangent(arr, values, darr, dvalues, axis=None):
    return np.append(_dz(arr, darr), _dz(values, dvalues), axis=axis)


def append_adjoint(g, arr, values, axis=None):
    if _zero(g):
        return NoTangent, NoTangent
    (ia, iv), n = _numbered([arr, values])
    acc = _copied_from([np.append(ia, iv, axis=axis)], [g], n)
    return tuple(_spread(acc, [arr, values]))


defjvp(np.append, lambda t, y, arr, values, axis=None:
       t.call(append_tangent, arr, values, t.dz(arr), t.dz(values), axis) if _live(t, arr, values) else None)
defvjp(np.append, lambda t, g, y, arr, values, axis=None: _split(t, t.call(append_adjoint, g, arr, values, axis), 2) + (None,))


# ================================================================== joins of a sequence, meshgrid
def _seq(xs):
    return list(xs)


def seq_copy_tangent(fn, xs, dxs, *a, **k):
    dxs = [NoTangent] * len(_seq(xs)) if _zero(dxs) else list(dxs)
    return fn([_dz(x, d) for x, d in zip(_seq(xs), dxs)], *a, **k)


def seq_copy_adjoint(fn, g, xs, *a, **k):
    """The adjoint of fn(xs) for a join that copies entries: back through the entry numbers."""
    if _zero(g):
        return NoTangent
    items = _seq(xs)
    idx, n = _numbered(items)
    acc = _copied_from([fn(idx, *a, **k)], [g], n)
    if isinstance(xs, np.ndarray):
        return acc.reshape(xs.shape)
    return _like(acc, list(items) if isinstance(xs, list) else tuple(items))


_JOINS = [np.column_stack, np.dstack] + ([np.row_stack] if hasattr(np, "row_stack") else [])
for _fn in _JOINS:
    defjvp(_fn, lambda t, y, xs, *a, _fn=_fn, **k: t.call(seq_copy_tangent, _fn, xs, t.dz(xs), *a, **k) if t.d(xs) is not None else None)
    defvjp(_fn, lambda t, g, y, xs, *a, _fn=_fn, **k: (t.call(seq_copy_adjoint, _fn, g, xs, *a, **k),) + (None,) * len(a))


def meshgrid_tangent(n, *xs_dxs, **k):
    xs, dxs = xs_dxs[:n], xs_dxs[n:]
    return np.meshgrid(*[_dz(x, d) for x, d in zip(xs, dxs)], **k)


def meshgrid_adjoint(g, *xs, **k):
    refuse_option("np.meshgrid (reverse mode)", "copy=False: the grids are views of the inputs; use copy=True", not k.get("copy", True))
    if _zero(g):
        return tuple(NoTangent for _ in xs)
    idx, n = _numbered(xs)
    outs = np.meshgrid(*idx, **k)
    acc = _copied_from(outs, _parts(g, len(outs)), n, owners=xs)
    return tuple(_spread(acc, xs))


defjvp(np.meshgrid, lambda t, y, *xs, **k: t.call(meshgrid_tangent, len(xs), *xs, *[t.dz(x) for x in xs], **k) if _live(t, *xs) else None)
defvjp(np.meshgrid, lambda t, g, y, *xs, **k: _split(t, t.call(meshgrid_adjoint, g, *xs, **k), len(xs)))


# ================================================================== hsplit, vsplit, dsplit (views of x)
def split_axis(which, x):
    nd = np.ndim(x)
    return {"h": 1 if nd > 1 else 0, "v": 0, "d": 2}[which]


def nsplit_adjoint(which, x, g, ind):
    return split_adjoint(x, g, ind, axis=split_axis(which, x))


for _fn, _w in ((np.hsplit, "h"), (np.vsplit, "v"), (np.dsplit, "d")):
    defjvp(_fn, lambda t, y, x, ind, _fn=_fn: t.call(split_tangent, _fn, t.d(x), ind) if t.d(x) is not None else None)
    defvjp(_fn, lambda t, g, y, x, ind, _w=_w: (t.call(nsplit_adjoint, _w, x, g, ind), None))


# ================================================================== np.partition (a permutation along axis)
def _partition_perm(a, y, axis):
    """perm with y == take_along_axis(a, perm, axis): y's entries matched to a's by value (stable
    sorts of both), so it is right whatever arrangement NumPy chose away from the kth positions."""
    a = np.asarray(a)
    y = np.asarray(y)
    if axis is None:
        a, axis = a.reshape(-1), -1
    oa = np.argsort(a, axis=axis, kind="stable")
    oy = np.argsort(y, axis=axis, kind="stable")
    perm = np.empty_like(oa)
    np.put_along_axis(perm, oy, oa, axis=axis)
    return perm, axis


def partition_tangent(a, y, da, kth, axis=-1, kind="introselect", order=None):
    refuse_option("np.partition", "order=", order is not None)
    perm, ax = _partition_perm(a, y, axis)
    da = np.broadcast_to(_dz(a, da), np.shape(a))
    return np.take_along_axis(da.reshape(-1) if axis is None else da, perm, axis=ax)


def partition_adjoint(a, y, g, kth, axis=-1, kind="introselect", order=None):
    refuse_option("np.partition", "order=", order is not None)
    if _zero(g):
        return NoTangent
    perm, ax = _partition_perm(a, y, axis)
    out = np.zeros(perm.shape)
    np.put_along_axis(out, perm, np.asarray(g), axis=ax)
    return out.reshape(np.shape(a))


defjvp(np.partition, lambda t, y, a, kth, *p, **k: t.call(partition_tangent, a, y, t.d(a), kth, *p, **k) if t.d(a) is not None else None)
defvjp(np.partition, lambda t, g, y, a, kth, *p, **k: (t.call(partition_adjoint, a, y, g, kth, *p, **k), None) + (None,) * len(p))


# ================================================================== np.select
def select_tangent(condlist, choicelist, default, dchoices, ddefault):
    dchoices = [NoTangent] * len(choicelist) if _zero(dchoices) else list(dchoices)
    return np.select(condlist, [_dz(c, d) for c, d in zip(choicelist, dchoices)], _dz(default, ddefault))


def select_adjoint(g, condlist, choicelist, default=0):
    """Each entry's adjoint goes to the first choice whose condition holds there, else to default."""
    from ..reverse.adjoints import AdjList, AdjTuple

    if _zero(g):
        return NoTangent, NoTangent
    g = np.asarray(g)
    taken = np.zeros(g.shape, dtype=bool)
    outs = []
    for c, ch in zip(condlist, choicelist):
        m = np.broadcast_to(np.asarray(c, dtype=bool), g.shape) & ~taken
        outs.append(_number(_unb(np.where(m, g, 0.0), ch)))
        taken = taken | m
    dflt = _number(_unb(np.where(taken, 0.0, g), default))
    return (AdjList(outs) if isinstance(choicelist, list) else AdjTuple(outs)), dflt


def _select_vjp(t, g, condlist, choicelist, a, k):
    default = a[0] if a else k.get("default", 0)
    cbar, dbar = _split(t, t.call(select_adjoint, g, condlist, choicelist, default), 2)
    return (None, cbar) + ((dbar,) if a else ()) + ((KwAdj(default=dbar),) if "default" in k else ())


defjvp(np.select, lambda t, y, condlist, choicelist, default=0:
       t.call(select_tangent, condlist, choicelist, default, t.dz(choicelist), t.dz(default)) if _live(t, choicelist, default) else None)
defvjp(np.select, lambda t, g, y, condlist, choicelist, *a, **k: _select_vjp(t, g, condlist, choicelist, a, k))


# ================================================================== np.nan_to_num
def _finite_part(x, d):
    """d where x is finite, 0 where NumPy replaced x (real and imaginary parts apart, as NumPy does)."""
    x = np.asarray(x)
    if np.iscomplexobj(x):
        d = np.asarray(d) + 0j
        return np.where(np.isfinite(x.real), d.real, 0.0) + 1j * np.where(np.isfinite(x.imag), d.imag, 0.0)
    return np.where(np.isfinite(x), d, 0.0)


def nan_to_num_tangent(x, dx, copy=True):
    refuse_option("np.nan_to_num", "copy=False (it writes into x): use the default copy=True", not copy)
    out = _finite_part(x, np.broadcast_to(_dz(x, dx), np.shape(x)))
    return out[()] if out.ndim == 0 else out


def nan_to_num_adjoint(x, g, copy=True):
    refuse_option("np.nan_to_num", "copy=False (it writes into x): use the default copy=True", not copy)
    if _zero(g):
        return NoTangent
    return _number(_unb(_finite_part(x, np.asarray(g)), x))


def _nan_to_num_k(t, a, k):
    b = _bind(("copy", "nan", "posinf", "neginf"), a, k)
    return b.get("copy", True), [b[n] for n in ("nan", "posinf", "neginf") if n in b]


def _nan_to_num_jvp(t, x, a, k):
    copy, fills = _nan_to_num_k(t, a, k)
    _refuse_tangent(t, "np.nan_to_num", "its replacement values (nan=, posinf=, neginf=)", *fills)
    return t.call(nan_to_num_tangent, x, t.d(x), copy) if t.d(x) is not None else None


def _nan_to_num_vjp(t, g, x, a, k):
    from .call_binding import KwAdj

    copy, fills = _nan_to_num_k(t, a, k)
    what = "its replacement values (nan=, posinf=, neginf=)"
    if not getattr(t, "keyword_adjoints", False):
        _refuse_adjoint(t, "np.nan_to_num", what, *fills)
    out = (t.call(nan_to_num_adjoint, x, g, copy),) + tuple(
        _refused(t, g, "np.nan_to_num", what, v) if i >= 1 else None for i, v in enumerate(a))
    named = {n: _refused(t, g, "np.nan_to_num", what, k[n]) for n in ("nan", "posinf", "neginf") if n in k}
    named = {n: v for n, v in named.items() if v is not None}
    return out + ((KwAdj(named),) if named and getattr(t, "keyword_adjoints", False) else ())


defjvp(np.nan_to_num, lambda t, y, x, *a, **k: _nan_to_num_jvp(t, x, a, k))
defvjp(np.nan_to_num, lambda t, g, y, x, *a, **k: _nan_to_num_vjp(t, g, x, a, k))


# ================================================================== np.linalg.pinv, np.linalg.matrix_power
def _mT(a):
    return np.swapaxes(a, -1, -2)


def _mH(a):
    return np.conj(np.swapaxes(a, -1, -2))


def _pinv_check(a, y, hermitian):
    """True when some matrix is rank-deficient (see pinv_tangent)."""
    refuse_option("np.linalg.pinv", "hermitian=True of a complex matrix", hermitian and np.iscomplexobj(a))
    m, n = np.shape(a)[-2:]
    return bool(np.any(np.linalg.matrix_rank(y) < min(m, n)))


def _null_blocks(A):
    """Per matrix of A (a stack), bases of the left and right null spaces: (U0, V0), each (..., k, k - r)
    padded with zero columns to the widest, so U0^H dA V0 is the change of rank a perturbation dA makes."""
    A = np.asarray(A)
    lead, (m, n) = A.shape[:-2], A.shape[-2:]
    U0 = np.zeros(lead + (m, m), dtype=np.result_type(float, A.dtype))
    V0 = np.zeros(lead + (n, n), dtype=U0.dtype)
    for i in np.ndindex(*lead):
        u, s, vh = np.linalg.svd(A[i])
        r = int(np.linalg.matrix_rank(A[i]))
        U0[i][:, : m - r] = u[:, r:]
        V0[i][:, : n - r] = _mH(vh)[:, r:]
    return U0, V0


def pinv_tangent(a, y, da, rcond=None, hermitian=False, **kw):
    """P = pinv(A): dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P.  Exact when A has full
    rank, and, when A is rank-deficient, for a dA keeping the rank (U0^H dA V0 = 0 with U0, V0 the
    null spaces: pinv(X^T X) of a wide X, say); a dA changing the rank is refused (P jumps there)."""
    deficient = _pinv_check(a, y, hermitian)
    A, P = _inexact(a), np.asarray(y)
    dA = _dz(A, _dz(a, da))
    if hermitian:  # (NumPy's eigh reads the lower triangle: the matrix and its change are that triangle mirrored)
        A, dA = _lower_mirrored(A), _lower_mirrored(dA)
    if deficient:
        U0, V0 = _null_blocks(A)
        off = _mH(U0) @ dA @ V0
        if np.max(np.abs(off), initial=0.0) > 1e-8 * max(np.max(np.abs(dA), initial=0.0), 1e-300):
            raise NotImplementedError("derivative of np.linalg.pinv of a rank-deficient matrix in a direction "
                                      "changing its rank (the pseudo-inverse jumps there)")
    m, n = A.shape[-2:]
    return (-P @ dA @ P + P @ _mH(P) @ _mH(dA) @ (np.eye(m) - A @ P)
            + (np.eye(n) - P @ A) @ _mH(dA) @ _mH(P) @ P)


def pinv_adjoint(a, y, g, rcond=None, hermitian=False, **kw):
    """The transpose of pinv_tangent's map.  For a rank-deficient A it is the gradient along matrices of
    A's rank (the part that would change the rank, U0 U0^H G V0 V0^H, removed): exact for every A made
    from other inputs in a way that keeps the rank; reverse mode cannot see the direction to refuse the
    others, so that is the convention there (documented; forward mode refuses them)."""
    deficient = _pinv_check(a, y, hermitian)
    if _zero(g):
        return NoTangent
    A, P, G = np.asarray(a, dtype=float), np.asarray(y), np.asarray(g, dtype=float)
    if hermitian:
        A = _lower_mirrored(A)
    m, n = A.shape[-2:]
    out = (-_mT(P) @ G @ _mT(P) + (np.eye(m) - A @ P) @ _mT(G) @ P @ _mT(P)
           + _mT(P) @ P @ _mT(G) @ (np.eye(n) - P @ A))
    if deficient:
        U0, V0 = _null_blocks(A)
        out = out - U0 @ _mT(U0) @ out @ V0 @ _mT(V0)
    if hermitian:  # (to the lower triangle that was read: S = L + L^T - diag L)
        out = np.tril(out + _mT(out)) - out * np.eye(out.shape[-1])
    return out


def _lower_mirrored(a):
    a = np.asarray(a)
    return np.tril(a) + _mT(np.tril(a, -1))


defjvp(np.linalg.pinv, lambda t, y, a, *p, **k: t.call(pinv_tangent, a, y, t.d(a), *p, **k) if t.d(a) is not None else None)
defvjp(np.linalg.pinv, lambda t, g, y, a, *p, **k: (t.call(pinv_adjoint, a, y, g, *p, **k),) + (None,) * len(p))


def _power_base(a, n):
    """B and k with A^n = B^k, k >= 0 (B = A^-1 for negative n), and the powers I, B, ..., B^(k-1)."""
    if int(n) != n:
        raise NotImplementedError("derivative of np.linalg.matrix_power with a non-integer exponent")
    n = int(n)
    A = _inexact(a)
    B = A if n >= 0 else np.linalg.inv(A)
    k = abs(n)
    powers = [np.broadcast_to(np.eye(A.shape[-1]), A.shape)]
    for _ in range(k - 1):
        powers.append(powers[-1] @ B)
    return A, B, k, powers


def matrix_power_tangent(a, da, n):
    """d(B^k) = sum_i B^i dB B^(k-1-i), with dB = -B dA B when B = A^-1."""
    A, B, k, powers = _power_base(a, n)
    dA = _dz(A, _dz(a, da))
    if k == 0:
        return np.zeros(A.shape)
    dB = dA if n >= 0 else -B @ dA @ B
    return sum(powers[i] @ dB @ powers[k - 1 - i] for i in range(k))


def matrix_power_adjoint(a, g, n):
    if _zero(g):
        return NoTangent
    A, B, k, powers = _power_base(a, n)
    if k == 0:
        return np.zeros(A.shape)
    G = np.asarray(g, dtype=float)
    Bbar = sum(_mT(powers[i]) @ G @ _mT(powers[k - 1 - i]) for i in range(k))
    return Bbar if n >= 0 else -_mT(B) @ Bbar @ _mT(B)


defjvp(np.linalg.matrix_power, lambda t, y, a, n: t.call(matrix_power_tangent, a, t.d(a), n) if t.d(a) is not None else None)
defvjp(np.linalg.matrix_power, lambda t, g, y, a, n: (t.call(matrix_power_adjoint, a, g, n), None))
