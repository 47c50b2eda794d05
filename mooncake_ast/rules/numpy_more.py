"""NumPy rules, both modes: more of the NumPy that issue 12 lists and earlier tables lacked.

    copies        np.insert, delete, compress, extract, diagflat, block, atleast_3d, rollaxis (here)
    values        vander, bincount (weights), angle, real_if_close, unique (values), nanmedian,
                  polyfit (in y), NumPy's scalar constructors (here)
    linalg        multi_dot, cond, eig, eigvals (numpy_more_linalg.py)
    ufunc methods reduce, accumulate, outer of the binary arithmetic ufuncs (numpy_ufunc_methods.py)

Functions that only copy entries share one reverse rule: the function is run again on arrays that
number the entries of its differentiated operands from 1 (0 means "no operand's entry", e.g. the zeros
diagflat adds), and each output entry's adjoint is added to the entry it was copied from.  That is
right for every axis, index and broadcast those functions take, without re-deriving each one.
Options a rule does not support raise NotImplementedError naming the option; so does a differentiated
operand whose derivative is not written (polyfit's x and w, bincount's x, ...).
"""
from __future__ import annotations

import inspect

import numpy as np

from ..tangents import NoTangent
from .numpy_common import _bind, _inexact, _no_adjoint, _split
from .numpy_extra import _dz, _number, _refuse_adjoint, _refuse_tangent, _zero, refuse_option
from .call_binding import KwAdj
from .registry import defcomplex, defjvp, defvjp, defzero

_NAMES: dict = {}


def _names(fn):
    """fn's parameter names, in order (cached: templates run at every transform)."""
    if fn not in _NAMES:
        _NAMES[fn] = tuple(inspect.signature(fn).parameters)
    return _NAMES[fn]


# ================================================================== functions that copy entries
def _numbers(values):
    """Integer arrays numbering the entries of each value from 1 (shapes kept), and how many in all."""
    out, start = [], 1
    for v in values:
        n = int(np.size(v))
        out.append(np.arange(start, start + n).reshape(np.shape(v)))
        start += n
    return out, start - 1


def copy_tangent(fn, ops, *xs_dxs, **rest):
    """fn is linear in the operands named by ops (comma-separated): the same call on their tangents."""
    names = ops.split(",")
    xs, dxs = xs_dxs[:len(names)], xs_dxs[len(names):]
    return fn(**{n: _dz(x, d) for n, x, d in zip(names, xs, dxs)}, **rest)


def copy_adjoint(fn, ops, g, *xs, **rest):
    """Adjoints of the operands named by ops: each output entry's adjoint goes to the entry it copies."""
    if _no_adjoint(g):
        return tuple(NoTangent for _ in xs)
    names = ops.split(",")
    idx, total = _numbers(xs)
    src = np.asarray(fn(**dict(zip(names, idx)), **rest))
    g = np.broadcast_to(np.asarray(g), src.shape)
    acc = np.bincount(src.reshape(-1), weights=np.real(g).reshape(-1), minlength=total + 1)
    if np.iscomplexobj(g):
        acc = acc + 1j * np.bincount(src.reshape(-1), weights=np.imag(g).reshape(-1), minlength=total + 1)
    out = []
    for x, i in zip(xs, idx):
        a = acc[np.asarray(i)]
        if not np.iscomplexobj(x):
            a = np.real(a)
        out.append(_number(a[()]) if np.ndim(x) == 0 else a)
    return tuple(out)


def _copy_jvp(t, fn, ops, a, k):
    b = _bind(_names(fn), a, k)
    present = [n for n in ops if n in b]
    if not any(t.d(b[n]) is not None for n in present):
        return None
    rest = {n: v for n, v in b.items() if n not in present}
    return t.call(copy_tangent, fn, ",".join(present), *[b[n] for n in present], *[t.dz(b[n]) for n in present], **rest)


def _copy_vjp(t, g, fn, ops, a, k):
    names = _names(fn)
    b = _bind(names, a, k)
    present = [n for n in ops if n in b]
    rest = {n: v for n, v in b.items() if n not in present}
    bars = dict(zip(present, _split(t, t.call(copy_adjoint, fn, ",".join(present), g, *[b[n] for n in present], **rest),
                                    len(present))))
    pos = tuple(bars.get(names[i]) for i in range(len(a)))
    kw = {n: bars[n] for n in present if n in k}
    return pos + ((KwAdj(kw),) if kw else ())


def _copy_rule(fn, *ops):
    defjvp(fn, lambda t, y, *a, **k: _copy_jvp(t, fn, ops, a, k))
    defvjp(fn, lambda t, g, y, *a, **k: _copy_vjp(t, g, fn, ops, a, k))


_copy_rule(np.insert, "arr", "values")
_copy_rule(np.delete, "arr")
_copy_rule(np.compress, "a")
_copy_rule(np.extract, "arr")
_copy_rule(np.diagflat, "v")


# ------------------------------------------------------------------ np.block (nested lists of arrays)
def _leaves(nested):
    if isinstance(nested, (list, tuple)):
        out = []
        for e in nested:
            out.extend(_leaves(e))
        return out
    return [nested]


def _rebuild(nested, it):
    if isinstance(nested, list):
        return [_rebuild(e, it) for e in nested]
    if isinstance(nested, tuple):  # np.block refuses tuples; keep them so it still does
        return tuple(_rebuild(e, it) for e in nested)
    return next(it)


def _rebuild_adjoint(nested, it):
    from ..reverse.adjoints import AdjList, AdjTuple

    if isinstance(nested, list):
        return AdjList([_rebuild_adjoint(e, it) for e in nested])
    if isinstance(nested, tuple):
        return AdjTuple([_rebuild_adjoint(e, it) for e in nested])
    return next(it)


def _leaf_tangents(nested, d):
    if isinstance(nested, (list, tuple)):
        ds = [NoTangent] * len(nested) if _zero(d) else list(d)
        out = []
        for e, de in zip(nested, ds):
            out.extend(_leaf_tangents(e, de))
        return out
    return [_dz(nested, d)]


def block_tangent(arrays, darrays):
    return np.block(_rebuild(arrays, iter(_leaf_tangents(arrays, darrays))))


def block_adjoint(g, arrays):
    if _no_adjoint(g):
        return NoTangent
    leaves = _leaves(arrays)
    bars = copy_adjoint(lambda **k: np.block(_rebuild(arrays, iter(k[f"a{i}"] for i in range(len(leaves))))),
                        ",".join(f"a{i}" for i in range(len(leaves))), g, *leaves)
    return _rebuild_adjoint(arrays, iter(bars))


defjvp(np.block, lambda t, y, arrays: t.call(block_tangent, arrays, t.d(arrays)) if t.d(arrays) is not None else None)
defvjp(np.block, lambda t, g, y, arrays: (t.call(block_adjoint, g, arrays),))
# (both linear in their tangent / adjoint; `arrays` gives only the layout.  Their own rules keep second orders off
# their source, whose nested-list rebuilding from an iterator the transforms refuse to trace)
defjvp(block_tangent, lambda t, y, arrays, darrays: t.call(block_tangent, arrays, t.d(darrays))
       if t.d(darrays) is not None else None)
defvjp(block_tangent, lambda t, g, y, arrays, darrays: (None, t.call(block_adjoint, g, arrays)))
defjvp(block_adjoint, lambda t, y, g, arrays: t.call(block_adjoint, t.d(g), arrays) if t.d(g) is not None else None)
defvjp(block_adjoint, lambda t, gb, y, g, arrays: (t.call(block_tangent, arrays, gb), None))


# ------------------------------------------------------------------ atleast_3d, rollaxis (reshapes and transposes)
def atleast_3d_tangent(*xs_dxs):
    n = len(xs_dxs) // 2
    return np.atleast_3d(*[_dz(x, d) for x, d in zip(xs_dxs[:n], xs_dxs[n:])])


def atleast_3d_adjoint(g, *xs):
    if len(xs) == 1:
        return (NoTangent if _no_adjoint(g) else _number(np.reshape(g, np.shape(xs[0])) if np.ndim(xs[0]) else np.asarray(g).reshape(-1)[0]),)
    parts = [NoTangent] * len(xs) if _zero(g) else list(g)
    return tuple(NoTangent if _zero(p) else (np.reshape(p, np.shape(x)) if np.ndim(x) else _number(np.asarray(p).reshape(-1)[0]))
                 for p, x in zip(parts, xs))


defjvp(np.atleast_3d, lambda t, y, *xs: t.call(atleast_3d_tangent, *xs, *[t.dz(x) for x in xs]) if any(t.d(x) is not None for x in xs) else None)
defvjp(np.atleast_3d, lambda t, g, y, *xs: _split(t, t.call(atleast_3d_adjoint, g, *xs), len(xs)))


def rollaxis_order(nd, axis, start=0):
    """The transpose np.rollaxis(a, axis, start) is (its own normalisation of axis and start)."""
    axis = int(axis) % nd
    start = int(start) + nd if start < 0 else int(start)
    if axis < start:
        start -= 1
    order = [i for i in range(nd) if i != axis]
    order.insert(start, axis)
    return order


def rollaxis_adjoint(x, g, axis, start=0):
    if _no_adjoint(g):
        return NoTangent
    return np.transpose(g, np.argsort(rollaxis_order(np.ndim(x), axis, start)))


defjvp(np.rollaxis, lambda t, y, a, axis, start=0: t.lin(np.rollaxis, t.d(a), axis, start))
defvjp(np.rollaxis, lambda t, g, y, a, axis, start=0: (t.call(rollaxis_adjoint, a, g, axis, start), None, None))


# ================================================================== np.vander
def vander_parts(x, N=None, increasing=False):
    """(d y / d x as an array shaped like y): y[i, j] = x[i] ** p[j], so its slope is p x ** (p - 1)."""
    x = _inexact(x)
    n = len(x) if N is None else int(N)
    p = np.arange(n) if increasing else np.arange(n)[::-1]
    slope = np.where(p == 0, 0.0, p * np.power(x[:, None], np.maximum(p - 1, 0)))
    return slope


def vander_tangent(x, dx, N=None, increasing=False):
    return vander_parts(x, N, increasing) * np.asarray(_dz(x, dx))[:, None]


def vander_adjoint(x, g, N=None, increasing=False):
    if _no_adjoint(g):
        return NoTangent
    out = np.sum(np.conj(vander_parts(x, N, increasing)) * np.asarray(g), axis=1)
    return out if np.iscomplexobj(x) else np.real(out)


defjvp(np.vander, lambda t, y, x, *p, **k: t.call(vander_tangent, x, t.d(x), *p, **k) if t.d(x) is not None else None)
defvjp(np.vander, lambda t, g, y, x, *p, **k: (t.call(vander_adjoint, x, g, *p, **k),) + (None,) * len(p))


# ================================================================== np.bincount (differentiable in weights)
def bincount_tangent(x, y, dw):
    return np.bincount(x, weights=np.broadcast_to(dw, np.shape(x)), minlength=len(y))


def bincount_adjoint(x, g, weights):
    if _no_adjoint(g):
        return NoTangent
    return _number(np.asarray(g)[np.asarray(x)].reshape(np.shape(weights)) if np.ndim(weights) else np.asarray(g)[np.asarray(x)].sum())


def _bincount_jvp(t, y, x, a, k):
    b = _bind(("weights", "minlength"), a, k)
    w = b.get("weights")
    if w is None or t.d(w) is None:
        return None
    return t.call(bincount_tangent, x, y, t.dz(w))


def _bincount_vjp(t, g, x, a, k):
    b = _bind(("weights", "minlength"), a, k)
    w = b.get("weights")
    if w is None:
        return (None,) * (1 + len(a))
    wbar = t.call(bincount_adjoint, x, g, w)
    return (None,) + ((wbar,) + (None,) * (len(a) - 1) if a else ()) + ((KwAdj(weights=wbar),) if "weights" in k else ())


defjvp(np.bincount, lambda t, y, x, *a, **k: _bincount_jvp(t, y, x, a, k))
defvjp(np.bincount, lambda t, g, y, x, *a, **k: _bincount_vjp(t, g, x, a, k))


# ================================================================== angle, real_if_close
def angle_tangent(z, dz, deg=False):
    """arg(z) moves with Im(dz / z); it is constant (0 or pi) along the reals for real z."""
    if not np.iscomplexobj(z):
        return np.zeros(np.shape(z)) if np.ndim(z) else 0.0
    d = np.imag(np.asarray(dz) / np.asarray(z))
    d = d * (180.0 / np.pi) if deg else d
    return d[()] if np.ndim(d) == 0 else d


def angle_adjoint(z, g, deg=False):
    if _no_adjoint(g) or not np.iscomplexobj(z):
        return NoTangent
    g = np.asarray(g) * (180.0 / np.pi if deg else 1.0)
    out = g * 1j * np.asarray(z) / np.abs(np.asarray(z)) ** 2
    return complex(out) if np.ndim(out) == 0 else out


defjvp(np.angle, lambda t, y, z, deg=False: t.call(angle_tangent, z, t.d(z), deg) if t.d(z) is not None else None)
defvjp(np.angle, lambda t, g, y, z, deg=False: (t.call(angle_adjoint, z, g, deg), None))


def real_if_close_tangent(y, dx):
    return np.real(dx) if not np.iscomplexobj(y) else dx


def real_if_close_adjoint(x, g):
    if _no_adjoint(g):
        return NoTangent
    return np.asarray(g).astype(np.asarray(x).dtype) if np.iscomplexobj(x) else g


defjvp(np.real_if_close, lambda t, y, a, tol=100: t.call(real_if_close_tangent, y, t.d(a)) if t.d(a) is not None else None)
defvjp(np.real_if_close, lambda t, g, y, a, tol=100: (t.call(real_if_close_adjoint, a, g), None))


# ================================================================== np.unique (the values)
_UNIQUE_EXTRAS = ("return_index", "return_inverse", "return_counts")  # (integer results: no derivative)


def _extras(options):
    return sum(bool(options.get(n)) for n in _UNIQUE_EXTRAS)


def _unique_first(ar, options):
    for name, on in options.items():
        if name not in _UNIQUE_EXTRAS:
            refuse_option("np.unique", f"{name}=", bool(on) if name != "axis" else on is not None)
    flat = np.asarray(ar).reshape(-1)
    values, first, counts = np.unique(flat, return_index=True, return_counts=True)
    return flat, first, counts


def unique_tangent(ar, dar, **options):
    flat, first, counts = _unique_first(ar, options)
    d = np.broadcast_to(_dz(ar, dar), np.shape(ar)).reshape(-1)
    if np.any((counts > 1) & (np.add.reduceat(np.abs(d[np.argsort(flat, kind="stable")]), np.r_[0, np.cumsum(counts)[:-1]]) != 0)):
        raise NotImplementedError("derivative of np.unique where a differentiated value occurs more than once "
                                  "(moving one copy splits the group: no derivative)")
    n = _extras(options)
    return (d[first],) + (NoTangent,) * n if n else d[first]


def unique_adjoint(ar, g, **options):
    flat, first, counts = _unique_first(ar, options)
    if _extras(options):
        g = g[0] if isinstance(g, (tuple, list)) else NoTangent  # (the values' adjoint; the rest are integers)
    if _no_adjoint(g):
        return NoTangent
    g = np.asarray(g)
    if np.any((counts > 1) & (g != 0)):
        raise NotImplementedError("reverse mode of np.unique where a differentiated value occurs more than once "
                                  "(moving one copy splits the group: no derivative)")
    out = np.zeros(flat.shape, dtype=np.result_type(g.dtype, float))
    out[first] = g
    return out.reshape(np.shape(ar)) if np.ndim(ar) else _number(out[0])


_UNIQUE = ("return_index", "return_inverse", "return_counts", "axis")
defjvp(np.unique, lambda t, y, ar, *a, **k: t.call(unique_tangent, ar, t.d(ar), **_bind(_UNIQUE, a, k)) if t.d(ar) is not None else None)
defvjp(np.unique, lambda t, g, y, ar, *a, **k: (t.call(unique_adjoint, ar, g, **_bind(_UNIQUE, a, k)),) + (None,) * len(a))


# ================================================================== np.nanmedian
def _nanmedian_weights(a, axis):
    """W shaped like a with nanmedian(a, axis) == sum(W * a over axis), nan entries weighted 0 (all-nan slices: nan)."""
    a = _inexact(a)
    nd = a.ndim
    ax = tuple(range(nd)) if axis is None else tuple(int(i) % nd for i in ((axis,) if np.ndim(axis) == 0 else axis))
    last = tuple(range(nd - len(ax), nd))
    moved = np.moveaxis(a, ax, last)
    flat = moved.reshape(moved.shape[:nd - len(ax)] + (-1,))
    order = np.argsort(flat, axis=-1, kind="stable")  # nan sorts last
    m = np.sum(~np.isnan(flat), axis=-1, keepdims=True)
    lo, hi = (m - 1) // 2, m // 2
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(flat.shape[-1]) * np.ones_like(order), axis=-1)
    w = 0.5 * (rank == lo) + 0.5 * (rank == hi)
    w = np.where(m == 0, np.nan, w)
    return np.moveaxis(w.reshape(moved.shape), last, ax), ax


def nanmedian_tangent(a, y, da, axis=None, out=None, overwrite_input=False, keepdims=False):
    refuse_option("np.nanmedian", "out=", out is not None)
    refuse_option("np.nanmedian", "overwrite_input=True", overwrite_input)
    w, ax = _nanmedian_weights(a, axis)
    d = np.where(w == 0, 0.0, w * np.broadcast_to(_dz(a, da), np.shape(a)))
    r = np.sum(d, axis=ax).reshape(np.shape(y))
    return r[()] if r.ndim == 0 else r


def nanmedian_adjoint(a, y, g, axis=None, out=None, overwrite_input=False, keepdims=False):
    refuse_option("np.nanmedian", "out=", out is not None)
    if _no_adjoint(g):
        return NoTangent
    w, ax = _nanmedian_weights(a, axis)
    shape = [1 if i in ax else n for i, n in enumerate(np.shape(a))]
    return _number(np.where(w == 0, 0.0, w * np.asarray(g).reshape(shape)) if np.ndim(a) else float(g))


_NANMEDIAN = ("axis", "out", "overwrite_input", "keepdims")
defjvp(np.nanmedian, lambda t, y, a, *p, **k: t.call(nanmedian_tangent, a, y, t.d(a), **_bind(_NANMEDIAN, p, k)) if t.d(a) is not None else None)
defvjp(np.nanmedian, lambda t, g, y, a, *p, **k: (t.call(nanmedian_adjoint, a, y, g, **_bind(_NANMEDIAN, p, k)),) + (None,) * len(p))


# ================================================================== np.polyfit (in x, y and w)
def _polyfit_parts(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """The least-squares pieces, y and the residual as columns: V (Vandermonde of x), W = w ** 2, A = V^H W V,
    P and R = Y - V P.  polyfit minimises sum(|w (y - V p)| ** 2), so V^H W R = 0 and
    A dP = dV^H W R - V^H W dV P + V^H W dY + V^H dW R  (x's, y's and w's share).  Full rank assumed."""
    refuse_option("np.polyfit", "full=True", full)
    refuse_option("np.polyfit", "cov=", cov is not False)
    x = _inexact(x)
    V = np.vander(x, int(deg) + 1)
    W = np.ones(len(x)) if w is None else np.asarray(w, dtype=float) ** 2
    A = _H(V) @ (W[:, None] * V)
    p = np.polyfit(x, y, deg, rcond=rcond, w=w)
    Y = _inexact(y).reshape(len(x), -1)
    P = p.reshape(len(p), -1)
    return V, W, A, P, Y - V @ P


def _H(m):
    return np.conj(m).T


def polyfit_tangent(x, y, w, dx, dy, dw, deg, **k):
    V, W, A, P, R = _polyfit_parts(x, y, deg, w=w, **k)
    rhs = np.zeros(P.shape, dtype=np.result_type(V, R))
    if not _zero(dy):
        rhs = rhs + _H(V) @ (W[:, None] * np.asarray(dy).reshape(R.shape))
    if not _zero(dx):
        dV = vander_parts(x, int(deg) + 1) * np.asarray(dx)[:, None]
        rhs = rhs + _H(dV) @ (W[:, None] * R) - _H(V) @ (W[:, None] * (dV @ P))
    if not _zero(dw):
        rhs = rhs + _H(V) @ ((2.0 * np.asarray(w) * np.asarray(dw))[:, None] * R)
    return np.linalg.solve(A, rhs).reshape(np.shape(P) if np.ndim(y) == 2 else (-1,))


def polyfit_adjoint(x, y, w, g, deg, **k):
    """(x's, y's, w's adjoints): with Z = A^-1 g, y_bar = W V Z, V_bar = W (R Z^H - V Z P^H), w_bar = 2 w Re rowsum(conj(V Z) R)."""
    if _no_adjoint(g):
        return NoTangent, NoTangent, NoTangent
    V, W, A, P, R = _polyfit_parts(x, y, deg, w=w, **k)
    Z = np.linalg.solve(A, np.asarray(g).reshape(P.shape))
    VZ = V @ Z
    ybar = (W[:, None] * VZ).reshape(np.shape(y))
    Vbar = W[:, None] * (R @ _H(Z) - VZ @ _H(P))
    xbar = np.sum(np.conj(vander_parts(x, int(deg) + 1)) * Vbar, axis=1)
    wbar = NoTangent if w is None else 2.0 * np.asarray(w) * np.real(np.sum(np.conj(VZ) * R, axis=1))
    real = lambda v, like: np.real(v) if not np.iscomplexobj(like) else v  # noqa: E731
    return real(xbar, x), real(ybar, y), wbar


_POLYFIT = ("rcond", "full", "w", "cov")


def _polyfit_jvp(t, x, y, deg, a, k):
    b = _bind(_POLYFIT, a, k)
    w = b.pop("w", None)
    if t.d(x) is None and t.d(y) is None and t.d(w) is None:
        return None
    return t.call(polyfit_tangent, x, y, w, t.dz(x), t.dz(y), t.dz(w), deg, **b)


def _polyfit_vjp(t, g, x, y, deg, a, k):
    b = _bind(_POLYFIT, a, k)
    w = b.pop("w", None)
    xbar, ybar, wbar = _split(t, t.call(polyfit_adjoint, x, y, w, g, deg, **b), 3)
    pos = [xbar, ybar, None] + [None] * len(a)
    if len(a) >= 3:
        pos[5] = wbar  # polyfit(x, y, deg, rcond, full, w)
    return tuple(pos) + ((KwAdj(w=wbar),) if "w" in k else ())


defjvp(np.polyfit, lambda t, out, x, y, deg, *a, **k: _polyfit_jvp(t, x, y, deg, a, k))
defvjp(np.polyfit, lambda t, g, out, x, y, deg, *a, **k: _polyfit_vjp(t, g, x, y, deg, a, k))


# ================================================================== NumPy's scalar constructors
def float_scalar_tangent(dx):
    """np.float16(x), np.longdouble(x), ...: the value's identity (the rounding has slope 1 almost everywhere)."""
    d = np.real(np.asarray(dx, dtype=complex if np.iscomplexobj(dx) else float))
    return float(d) if d.ndim == 0 else d


def float_scalar_adjoint(x, g):
    if _no_adjoint(g):
        return NoTangent
    g = np.real(np.asarray(g, dtype=complex if np.iscomplexobj(g) else float))
    g = np.broadcast_to(g, np.shape(x)) if np.ndim(x) else g.reshape(-1).sum() if g.ndim else g
    return _number(g[()] if np.ndim(g) == 0 else np.array(g))


def complex_scalar_tangent(dx):
    d = np.asarray(dx, dtype=complex)
    return complex(d) if d.ndim == 0 else d


def complex_scalar_adjoint(x, g):
    """complex128(x) for real x: only the real part of g reaches x."""
    if _no_adjoint(g):
        return NoTangent
    g = np.asarray(g)
    if not np.iscomplexobj(x):
        g = np.real(g)
        return float(g) if g.ndim == 0 else g
    return complex(g) if g.ndim == 0 else g.astype(complex)


for _cls in (np.float16, np.longdouble):
    defjvp(_cls, lambda t, y, x=0.0: t.call(float_scalar_tangent, t.d(x)) if t.d(x) is not None else None)
    defvjp(_cls, lambda t, g, y, x=0.0: (t.call(float_scalar_adjoint, x, g),))
for _cls in (np.complex128, np.complex64, np.clongdouble):
    defjvp(_cls, lambda t, y, x=0.0, *rest: _refuse_tangent(t, "a NumPy complex constructor", "a second argument", *rest)
           or (t.call(complex_scalar_tangent, t.d(x)) if t.d(x) is not None else None))
    defvjp(_cls, lambda t, g, y, x=0.0, *rest: (t.call(complex_scalar_adjoint, x, g),) + (None,) * len(rest))
defzero(np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.bool_, np.intp)


from . import numpy_more_linalg, numpy_ufunc_methods  # noqa: E402,F401  (the rest of this table, split by topic)


# Right for complex values in reverse mode (README "Complex numbers"; tests/test_complex_reverse.py).
defcomplex(np.angle, np.real_if_close, np.complex128, np.complex64, np.clongdouble)
