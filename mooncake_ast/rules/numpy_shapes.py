"""NumPy rules, both modes: shapes, copies and indexing (reshape, transpose, concatenate, stack,
split, repeat, tile, diagonal, trace, take, take_along_axis, diff, pad, ...).

Together because all of them are linear and only move, copy or sum entries: the forward rule
applies the same function to the tangent, and the adjoint moves g back (summing over copies).
An adjoint that is a view into the operand's own adjoint storage is already counted there.
"""
from __future__ import annotations

import numpy as np

from ..arrays import as_array, is_other_array
from ..tangents import NoTangent
from . import helpers as h
from .numpy_common import _has_no, _bind, _dense, _float_dtype, _in_storage, _inexact, _linear, _no, _no_adjoint, _no_out, _refuse_keywords, _split, _unb
from .numpy_order import other_order, ravel_adjoint, ravel_view_tangent, reshape_adjoint, reshape_tangent
from .registry import defcomplex, defjvp, defvjp


# ------------------------------------------------------------------ shapes and copies (linear)
# (np.reshape and np.ravel with an order other than C: numpy_order.py; C order stays the plain linear rule, which
# typed pullbacks, lazy arrays and batched tangents take as it is)
defjvp(np.reshape, lambda t, y, x, *a, **k: (t.call(_reshape_tangent, x, t.d(x), *a, **k) if other_order(a, k, 1) else
                                              t.lin(np.reshape, t.d(x), *a, **k)) if t.d(x) is not None else None)
defjvp(np.ravel, lambda t, y, x, *a, **k: (t.call(ravel_view_tangent, x, t.d(x), *a, **k) if other_order(a, k, 0) else
                                            t.lin(np.ravel, t.d(x), *a, **k)) if t.d(x) is not None else None)
for _fn in (np.transpose, np.squeeze, np.expand_dims, np.swapaxes, np.moveaxis,
            np.broadcast_to, np.flip, np.roll, np.tile, np.repeat, np.diag, np.copy,
            np.triu, np.tril, np.fliplr, np.flipud, np.rot90):
    defjvp(_fn, lambda t, y, x, *a, _fn=_fn, **k: t.lin(_fn, t.d(x), *a, **k))
defjvp(np.diagonal, lambda t, y, x, *a, **k: _linear(t, np.diagonal, t.d(x), *a, **k))
# np.trace and np.take take `out=`: the tangent must not be written into the primal's buffer.
defjvp(np.trace, lambda t, y, x, *a, **k: _linear(t, np.trace, t.d(x), *a, **_no_out(t, "np.trace", k)))
defjvp(np.take, lambda t, y, x, *a, **k: t.lin(np.take, t.d(x), *a, **_no_out(t, "np.take", k)))
defjvp(np.concatenate, lambda t, y, xs, axis=0, **k: t.call(join_tangent, np.concatenate, xs, t.d(xs), axis) if t.d(xs) is not None else None)
defjvp(np.stack, lambda t, y, xs, axis=0, **k: t.call(join_tangent, np.stack, xs, t.d(xs), axis) if t.d(xs) is not None else None)
defjvp(np.vstack, lambda t, y, xs, **k: t.call(join_tangent, np.vstack, xs, t.d(xs), None) if t.d(xs) is not None else None)
defjvp(np.hstack, lambda t, y, xs, **k: t.call(join_tangent, np.hstack, xs, t.d(xs), None) if t.d(xs) is not None else None)


def join_tangent(join, xs, dxs, axis):
    # (an integer or constant part's zero tangent has the part's shape, so the join lines up)
    other = next((v for v in (*xs, *dxs) if is_other_array(v)), None)  # (a Dask or CuPy join: zeros there too)
    parts = [np.zeros(np.shape(x), like=other) if _has_no(d) else _inexact(_dense(x, d)) for x, d in zip(xs, dxs)]
    return join(parts) if join in (np.vstack, np.hstack) else join(parts, axis=axis)


defjvp(np.split, lambda t, y, x, *a, **k: t.call(split_tangent, np.split, t.d(x), *a, **k) if t.d(x) is not None else None)
defjvp(np.array_split, lambda t, y, x, *a, **k: t.call(split_tangent, np.array_split, t.d(x), *a, **k) if t.d(x) is not None else None)


def split_tangent(split, dx, *a, **k):
    from ..tangents import NoTangent

    return split(np.asarray(dx), *a, **k) if dx is not NoTangent else NoTangent


# ================================================================== reverse rules
def join_adjoint(kind, xs, g, axis):
    """Split the adjoint of np.concatenate/stack/vstack/hstack back into the pieces."""
    if _no_adjoint(g):
        return NoTangent
    from ..reverse.adjoints import AdjList, AdjTuple

    g = as_array(g)
    arrays = [as_array(x) for x in xs]
    if kind == "stack":
        pieces = [np.take(g, i, axis=axis) for i in range(len(arrays))]
    else:
        if kind == "vstack":
            normal = [np.atleast_2d(a) for a in arrays]
            ax = 0
        elif kind == "hstack":
            normal = [np.atleast_1d(a) for a in arrays]
            ax = 0 if normal[0].ndim == 1 else 1
        else:
            normal = [a.reshape(-1) for a in arrays] if axis is None else arrays
            ax = 0 if axis is None else axis
            g = g.reshape(-1) if axis is None else g
        bounds = np.cumsum([a.shape[ax] for a in normal])[:-1].tolist()
        pieces = [p.reshape(a.shape) for p, a in zip(np.split(g, bounds, axis=ax), arrays)]
    if g.dtype.kind == "c":  # (a real piece of a complex result: the real part of its adjoint)
        pieces = [p if a.dtype.kind == "c" else p.real for p, a in zip(pieces, arrays)]
    return AdjList(pieces) if isinstance(xs, list) else AdjTuple(pieces)


def transpose_adjoint(x, g, axes=None):
    if _no_adjoint(g):
        return NoTangent
    if axes is None:
        return np.transpose(g)
    n = np.ndim(x)
    return np.transpose(g, np.argsort([a % n for a in axes]))


defvjp(np.copy, lambda t, g, y, x, *a, **k: (g,))
defvjp(np.reshape, lambda t, g, y, x, *a, **k: ((t.call(np.reshape, g, t.call(np.shape, x)) if not other_order(a, k, 1)
                                                 else t.call(_reshape_adjoint, x, g, *a, **k)),) + (None,) * len(a))
defvjp(np.ravel, lambda t, g, y, x, *a, **k: ((t.call(np.reshape, g, t.call(np.shape, x)) if not other_order(a, k, 0)
                                               else t.call(ravel_adjoint, x, g, *a, **k)),) + (None,) * len(a))


def _reshape_tangent(x, dx, shape=None, order="C", *, newshape=None, copy=None):
    return reshape_tangent(x, dx, newshape if shape is None else shape, order)


def _reshape_adjoint(x, g, shape=None, order="C", *, newshape=None, copy=None):
    return reshape_adjoint(x, g, order)
defvjp(np.squeeze, lambda t, g, y, x, *a, **k: (t.call(np.reshape, g, t.call(np.shape, x)),) + (None,) * len(a))
defvjp(np.expand_dims, lambda t, g, y, x, *a, **k: (t.call(np.reshape, g, t.call(np.shape, x)),) + (None,) * len(a))
defvjp(np.transpose, lambda t, g, y, x, axes=None: (t.call(transpose_adjoint, x, g, axes), None))
defvjp(np.concatenate, lambda t, g, y, xs, axis=0, **k: (t.call(join_adjoint, "concatenate", xs, g, axis), None))
defvjp(np.stack, lambda t, g, y, xs, axis=0, **k: (t.call(join_adjoint, "stack", xs, g, axis), None))
defvjp(np.vstack, lambda t, g, y, xs, **k: (t.call(join_adjoint, "vstack", xs, g, 0),))
defvjp(np.hstack, lambda t, g, y, xs, **k: (t.call(join_adjoint, "hstack", xs, g, 0),))
defvjp(np.trace, lambda t, g, y, x, offset=0, axis1=0, axis2=1, **k: (t.call(trace_adjoint, x, g, offset, axis1, axis2),))


def trace_adjoint(x, g, offset=0, axis1=0, axis2=1):
    """np.trace sums the diagonal (offset, axis1, axis2): g goes back onto that diagonal."""
    if _no_adjoint(g):
        return NoTangent
    return _diagonal_scatter(np.shape(x), as_array(g)[..., None], offset, axis1, axis2, _float_dtype(x))


def atleast_tangent(fn, *xs_dxs):
    """np.atleast_1d/2d of several arrays (a tuple of them): each one's tangent made at least 1-D/2-D."""
    n = len(xs_dxs) // 2
    return fn(*[np.zeros(np.shape(x)) if d is NoTangent or d is None else d for x, d in zip(xs_dxs[:n], xs_dxs[n:])])


def atleast_adjoints(g, *xs):
    """The adjoints of np.atleast_1d/2d(*xs) with several arrays: each part of g reshaped back."""
    parts = [NoTangent] * len(xs) if _no_adjoint(g) else list(g)
    return tuple(NoTangent if _no_adjoint(p) else np.reshape(p, np.shape(x)) if np.ndim(x) else np.asarray(p).reshape(-1)[0]
                 for p, x in zip(parts, xs))


# (one array: the plain linear rule; several: a tuple, each part on its own -- never one's tangent beside the
# others' values)
for _fn in (np.atleast_1d, np.atleast_2d):
    defjvp(_fn, lambda t, y, x, *xs, _fn=_fn: t.lin(_fn, t.d(x)) if not xs else (
        t.call(atleast_tangent, _fn, x, *xs, t.dz(x), *[t.dz(v) for v in xs])
        if any(t.d(v) is not None for v in (x, *xs)) else None))
    defvjp(_fn, lambda t, g, y, x, *xs: (t.call(np.reshape, g, t.call(np.shape, x)),) if not xs else
           _split(t, t.call(atleast_adjoints, g, x, *xs), 1 + len(xs)))
defvjp(np.roll, lambda t, g, y, x, shift, axis=None: (t.call(roll_adjoint, g, shift, axis), None, None))


def roll_adjoint(g, shift, axis=None):
    return NoTangent if _no_adjoint(g) else np.roll(g, np.negative(shift), axis=axis)


defvjp(np.flip, lambda t, g, y, x, axis=None: (t.call(np.flip, g, axis=axis), None))
defvjp(np.split, lambda t, g, y, x, *a, **k: (t.call(split_adjoint, x, g, *a, **k),) + (None,) * len(a))
defvjp(np.array_split, lambda t, g, y, x, *a, **k: (t.call(split_adjoint, x, g, *a, **k),) + (None,) * len(a))


def split_adjoint(x, g, *a, **k):
    if g is _no():
        return _no()
    shapes = [np.shape(p) for p in np.array_split(np.asarray(x), *a, **k)]
    pieces = [np.zeros(sh) if p is _no() or _inside_storage_of(x, p) else np.asarray(p) for p, sh in zip(g, shapes)]
    axis = k.get("axis", a[1] if len(a) > 1 else 0)
    return np.concatenate(pieces, axis=axis).reshape(np.shape(x))


def _inside_storage_of(x, g):
    """Is g (a piece's adjoint) a view into x's adjoint storage?  Then it is already counted there."""
    from ..reverse import shadows
    from ..tangents import is_mutable

    return isinstance(g, np.ndarray) and is_mutable(x) and np.shares_memory(g, shadows.shadow(x))


def repeat_adjoint(x, g, repeats, axis=None):
    """Each element's adjoint is the sum over its copies."""
    if _no_adjoint(g):
        return NoTangent
    x = np.asarray(x)
    g = np.asarray(g)
    dtype = np.result_type(x.dtype, float)  # (complex for a complex x)
    if axis is None:
        flat = np.zeros(x.size, dtype=dtype)
        idx = np.repeat(np.arange(x.size), repeats)
        np.add.at(flat, idx, g.reshape(-1))
        return flat.reshape(x.shape)
    idx = np.repeat(np.arange(x.shape[axis]), repeats)
    out = np.zeros(x.shape, dtype=dtype)
    moved_out = np.moveaxis(out, axis, 0)
    np.add.at(moved_out, idx, np.moveaxis(g, axis, 0))
    return out


defvjp(np.repeat, lambda t, g, y, x, repeats, axis=None: (t.call(repeat_adjoint, x, g, repeats, axis), None, None))
defvjp(np.tile, lambda t, g, y, x, reps: (t.call(tile_adjoint, x, g, reps), None))


def tile_adjoint(x, g, reps):
    if _no_adjoint(g):
        return NoTangent
    x = np.asarray(x)
    g = np.asarray(g)
    reps = (reps,) if np.ndim(reps) == 0 else tuple(reps)
    shape = (1,) * (g.ndim - x.ndim) + x.shape
    split = []
    for n, r in zip(shape, (1,) * (g.ndim - len(reps)) + reps):
        split += [r, n]
    return g.reshape(split).sum(axis=tuple(range(0, len(split), 2))).reshape(x.shape)


# ================================================================== reverse rules of the shape functions
def swapaxes_adjoint(g, axis1, axis2):
    return NoTangent if _no_adjoint(g) else np.swapaxes(g, axis1, axis2)


def moveaxis_adjoint(g, source, destination):
    return NoTangent if _no_adjoint(g) else np.moveaxis(g, destination, source)


def broadcast_to_adjoint(x, g):
    """y = np.broadcast_to(x, shape) is a read-only view: sum g back over the broadcast axes."""
    if _no_adjoint(g) or _in_storage(x, g):
        return NoTangent
    return _unb(np.asarray(g), x)


def _diagonal_scatter(shape, g, offset, axis1, axis2, dtype):
    """Zeros of `shape` with g written onto the diagonal np.diagonal(., offset, axis1, axis2) reads."""
    like = g if is_other_array(g) else None  # (a CuPy adjoint: zeros and positions on its device)
    out = np.zeros(shape, dtype=dtype, like=like)
    moved = np.moveaxis(out, (axis1, axis2), (-2, -1))  # a writable view of out
    n1, n2 = moved.shape[-2:]
    k = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
    rows = np.arange(k, like=like) + max(-offset, 0)
    cols = np.arange(k, like=like) + max(offset, 0)
    moved[..., rows, cols] = g
    return out


def diagonal_adjoint(x, g, offset=0, axis1=0, axis2=1):
    if _no_adjoint(g) or _in_storage(x, g):
        return NoTangent
    return _diagonal_scatter(np.shape(x), np.asarray(g), offset, axis1, axis2, _float_dtype(x))


def diag_adjoint(v, g, k=0):
    """np.diag builds a matrix from a vector (adjoint: its diagonal) or reads a matrix's diagonal (a view)."""
    if _no_adjoint(g):
        return NoTangent
    if np.ndim(v) == 1:
        return np.diagonal(np.asarray(g), k).copy()
    return diagonal_adjoint(v, g, k)


def take_adjoint(a, g, indices, axis=None, mode="raise"):
    """np.take copies: each position's adjoint is the sum over the places it was copied to."""
    if _no_adjoint(g):
        return NoTangent
    a = np.asarray(a)
    out = np.zeros(a.shape, dtype=_float_dtype(a))
    idx = np.asarray(indices)
    n = a.size if axis is None else a.shape[axis]
    if mode == "wrap":
        idx = idx % n
    elif mode == "clip":
        idx = np.clip(idx, 0, n - 1)
    if axis is None:
        np.add.at(out.reshape(-1), idx, g)
    else:
        np.add.at(out, (slice(None),) * (axis % a.ndim) + (idx,), g)
    return out


def tri_adjoint(fn, g, k=0):
    return NoTangent if _no_adjoint(g) else fn(g, k)


def flip2_adjoint(fn, g):
    return NoTangent if _no_adjoint(g) else fn(g)


def rot90_adjoint(g, k=1, axes=(0, 1)):
    return NoTangent if _no_adjoint(g) else np.rot90(g, -k, axes)


_DIFF = ("n", "axis", "prepend", "append")


def _diff_parts(a, kw):
    b = _bind(_DIFF, a, kw)
    return (b.get("n", 1), b.get("axis", -1), b.get("prepend"), "prepend" in b, b.get("append"), "append" in b)


def diff_tangent(a, da, n, axis, prepend, has_prepend, dprepend, append, has_append, dappend):
    """np.diff is linear in everything it differences (a, and prepend/append when given)."""
    parts = _diff_pieces(a, n, axis, prepend, has_prepend, append, has_append)
    tangents = [d for d, given in ((dprepend, has_prepend), (da, True), (dappend, has_append)) if given]
    if all(d is NoTangent for d in tangents):
        return NoTangent
    dense = [np.broadcast_to(_inexact(0.0 if d is NoTangent else d), p.shape) for d, p in zip(tangents, parts)]
    return np.diff(np.concatenate(dense, axis=axis), n, axis=axis)


def _diff_pieces(a, n, axis, prepend, has_prepend, append, has_append):
    """The arrays np.diff concatenates (scalars spread along the axis as NumPy does)."""
    a = np.asarray(a)
    out = []
    for v, given in ((prepend, has_prepend), (a, True), (append, has_append)):
        if not given:
            continue
        v = np.asarray(v)
        if v.ndim == 0:
            shape = list(a.shape)
            shape[axis] = 1
            v = np.broadcast_to(v, shape)
        out.append(v)
    return out


def diff_vjp(g, a, n=1, axis=-1, prepend=None, has_prepend=False, append=None, has_append=False):
    """Adjoints of (a, prepend, append): each difference y[i] = c[i+1] - c[i] sends g[i] to c[i+1] and -g[i] to c[i]."""
    if _no_adjoint(g):
        return NoTangent, NoTangent, NoTangent
    pieces = _diff_pieces(a, n, axis, prepend, has_prepend, append, has_append)
    c = np.asarray(g, dtype=float)
    ax = axis % c.ndim
    for _ in range(n):
        front = [(0, 0)] * c.ndim
        back = [(0, 0)] * c.ndim
        front[ax], back[ax] = (1, 0), (0, 1)
        c = np.pad(c, front) - np.pad(c, back)
    bounds = np.cumsum([p.shape[ax] for p in pieces])[:-1]
    split = np.split(c, bounds, axis=ax)
    out = {}
    for name, v, given in (("prepend", prepend, has_prepend), ("a", a, True), ("append", append, has_append)):
        if given:
            out[name] = _unb(split.pop(0), v) if not isinstance(v, np.ndarray) or v.ndim == 0 else split.pop(0)
    return out["a"], out.get("prepend", NoTangent), out.get("append", NoTangent)


def _diff_jvp(t, x, a, k):
    n, axis, pre, has_pre, app, has_app = _diff_parts(a, k)
    if t.d(x) is None and t.d(pre) is None and t.d(app) is None:
        return None
    return t.call(diff_tangent, x, t.dz(x), n, axis, pre, has_pre, t.dz(pre), app, has_app, t.dz(app))


def _diff_vjp(t, g, x, a, k):
    named = [key for key in ("prepend", "append") if key in k]
    if not getattr(t, "keyword_adjoints", False):
        _refuse_keywords(t, "np.diff", **{key: k[key] for key in named})
        named = []
    n, axis, pre, has_pre, app, has_app = _diff_parts(a, k)
    abar, pbar, qbar = _split(t, t.call(diff_vjp, g, x, n, axis, pre, has_pre, app, has_app), 3)
    out = (abar, None, None, pbar, qbar)[:1 + len(a)]
    if named:  # (np.diff(x, append=x[0]): the reverse transform takes keyword operands' adjoints as a KwAdj)
        from .call_binding import KwAdj

        out += (KwAdj({key: {"prepend": pbar, "append": qbar}[key] for key in named}),)
    return out


defjvp(np.diff, lambda t, y, x, *a, **k: _diff_jvp(t, x, a, k))
defvjp(np.diff, lambda t, g, y, x, *a, **k: _diff_vjp(t, g, x, a, k))
defvjp(np.swapaxes, lambda t, g, y, x, axis1, axis2: (t.call(swapaxes_adjoint, g, axis1, axis2), None, None))
defvjp(np.moveaxis, lambda t, g, y, x, source, destination: (t.call(moveaxis_adjoint, g, source, destination), None, None))
defvjp(np.broadcast_to, lambda t, g, y, x, *a, **k: (t.call(broadcast_to_adjoint, x, g),))
defvjp(np.diagonal, lambda t, g, y, x, offset=0, axis1=0, axis2=1: (t.call(diagonal_adjoint, x, g, offset, axis1, axis2),))
defvjp(np.diag, lambda t, g, y, x, k=0: (t.call(diag_adjoint, x, g, k),))
defvjp(np.take, lambda t, g, y, x, indices, axis=None, out=None, mode="raise": (t.call(take_adjoint, x, g, indices, axis, mode),))
defvjp(np.triu, lambda t, g, y, x, k=0: (t.call(tri_adjoint, np.triu, g, k),))
defvjp(np.tril, lambda t, g, y, x, k=0: (t.call(tri_adjoint, np.tril, g, k),))
defvjp(np.fliplr, lambda t, g, y, x: (t.call(flip2_adjoint, np.fliplr, g),))
defvjp(np.flipud, lambda t, g, y, x: (t.call(flip2_adjoint, np.flipud, g),))
defvjp(np.rot90, lambda t, g, y, x, k=1, axes=(0, 1): (t.call(rot90_adjoint, g, k, axes),))


# np.pad: every mode that copies entries (constant, edge, reflect, symmetric, wrap) is linear in the array.
_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def _pad_mode(mode, kw):
    if mode not in _PAD_MODES or kw.get("reflect_type", "even") != "even":
        raise NotImplementedError(f"derivative of np.pad with mode={mode!r}: only {', '.join(_PAD_MODES)} (reflect_type='even')")


def _other_mode(mode, kw):
    """A mode numpy_pad_modes.py differentiates (linear_ramp, mean, maximum, minimum, median, odd reflections)."""
    return isinstance(mode, str) and (mode not in _PAD_MODES or kw.get("reflect_type", "even") != "even") and mode != "empty"


def pad_tangent(x, dx, pad_width, mode="constant", dvalues=NoTangent, **kw):
    if _other_mode(mode, kw):
        from . import numpy_pad_modes

        return numpy_pad_modes.pad_tangent(x, dx, pad_width, mode, **kw)
    _pad_mode(mode, kw)
    dx = np.broadcast_to(_inexact(0.0 if dx is NoTangent else dx), np.shape(x))
    if mode == "constant":
        return np.pad(dx, pad_width, mode="constant", constant_values=0.0 if dvalues is NoTangent else dvalues)
    return np.pad(dx, pad_width, mode=mode, **kw)


def pad_adjoint(x, g, pad_width, mode="constant", **kw):
    """Each entry of y is a copy of an entry of x (or a constant): x's adjoint sums g over its copies."""
    if _no_adjoint(g):
        return NoTangent
    if _other_mode(mode, kw):
        from . import numpy_pad_modes

        return numpy_pad_modes.pad_adjoint(x, g, pad_width, mode, **kw)
    _pad_mode(mode, kw)
    shape = np.shape(x)
    index = np.arange(int(np.prod(shape))).reshape(shape)
    if mode == "constant":
        index = np.pad(index, pad_width, mode="constant", constant_values=-1)
    else:
        index = np.pad(index, pad_width, mode=mode, **{k: v for k, v in kw.items() if k == "reflect_type"})
    keep = index >= 0
    g = np.asarray(g)
    return np.bincount(index[keep], weights=g[keep], minlength=index.size and int(np.prod(shape))).reshape(shape)


def _pad_jvp(t, x, pad_width, mode, k):
    cv = k.get("constant_values")
    if t.d(x) is None and t.d(cv) is None:
        return None
    rest = {key: v for key, v in k.items() if key != "constant_values"}
    return t.call(pad_tangent, x, t.dz(x), pad_width, mode, t.dz(cv), **rest)


def _pad_vjp(t, g, x, pad_width, mode, k):
    rest = {key: v for key, v in k.items() if key != "constant_values"}
    _refuse_keywords(t, "np.pad", **{key: v for key, v in k.items() if key == "constant_values"})
    return (t.call(pad_adjoint, x, g, pad_width, mode, **rest), None, None)


defjvp(np.pad, lambda t, y, x, pad_width, mode="constant", **k: _pad_jvp(t, x, pad_width, mode, k))
defvjp(np.pad, lambda t, g, y, x, pad_width, mode="constant", **k: _pad_vjp(t, g, x, pad_width, mode, k))


# ================================================================== gathering
def _along_axis_index(shape, indices, axis):
    """The fancy index np.take_along_axis uses: `indices` on axis, aranges (broadcasting) on the others."""
    idx = []
    for d, n in enumerate(shape):
        if d == axis:
            idx.append(indices)
        else:
            s = [1] * len(shape)
            s[d] = n
            idx.append(np.arange(n).reshape(s))
    return tuple(idx)


def take_along_axis_adjoint(arr, g, indices, axis=-1):
    if _no_adjoint(g):
        return NoTangent
    arr = np.asarray(arr)
    out = np.zeros(arr.shape, dtype=_float_dtype(arr))
    if axis is None:
        np.add.at(out.reshape(-1), np.asarray(indices), g)
    else:
        np.add.at(out, _along_axis_index(arr.shape, np.asarray(indices), axis % arr.ndim), g)
    return out


take_along_axis_adjoint.dense_in_dense = True  # type: ignore[attr-defined]  # (an array of arr's shape for a real g)
defjvp(np.take_along_axis, lambda t, y, arr, indices, axis=-1: t.lin(np.take_along_axis, t.d(arr), indices, axis))
defvjp(np.take_along_axis, lambda t, g, y, arr, indices, axis=-1: (t.call(take_along_axis_adjoint, arr, g, indices, axis), None, None))


# ================================================================== np.matrix_transpose (NumPy 2)
if hasattr(np, "matrix_transpose"):
    defjvp(np.matrix_transpose, lambda t, y, x: t.lin(np.matrix_transpose, t.d(x)))
    defvjp(np.matrix_transpose, lambda t, g, y, x: (t.call(h.linear, np.matrix_transpose, g),))


# Right for complex values in reverse mode (README "Complex numbers"; tests/test_complex_reverse.py): they move
# numbers without arithmetic, so adjoints move back unchanged (a real piece of a join keeps the real part).
defcomplex(np.copy, np.reshape, np.ravel, np.squeeze, np.expand_dims, np.transpose, np.concatenate, np.stack,
           np.vstack, np.hstack, np.atleast_1d, np.atleast_2d, np.roll, np.flip, np.swapaxes, np.moveaxis,
           np.broadcast_to, np.diagonal, np.diag, np.triu, np.tril, np.take, np.trace, np.tile, np.repeat, np.split)
