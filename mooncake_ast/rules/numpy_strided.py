"""NumPy's strided views, both modes: np.lib.stride_tricks.as_strided, sliding_window_view, np.broadcast_arrays.

Each element of such a view is an element of the array's memory, read once or many times (a sliding
window, a Toeplitz matrix), so the derivative is a gather: the tangent takes the tangent's elements at
the same positions and the adjoint adds g back into them (np.add.at, repeats included).

The positions of `as_strided(x, shape, strides)` are byte offsets from x's first element, and they may
lie outside x, in the memory of the array x is a view of (SciPy's toeplitz reads `vals[n-1:]` with a
negative stride).  They are found in the array that owns the memory (x's base, contiguous): the adjoint
of those outside x goes into that array's adjoint storage (a view's storage is the same view of its
base's, reverse/shadows.py), and forward mode takes them from the base of x's tangent when it is laid
out as x's base is (a view of the base's tangent); otherwise it is refused, never a read of memory
that holds something else.  The results are new arrays to the transforms (NumPy hands back a view
whose base is not an array), so their own adjoint storage never overlaps itself.
"""
from __future__ import annotations

import numpy as np

from .. import ops
from ..tangents import NoTangent
from .numpy_common import _inexact, _no_adjoint
from .numpy_shapes import broadcast_to_adjoint
from .registry import defjvp, defvjp

_st = np.lib.stride_tricks


# ------------------------------------------------------------------ as_strided
def _root(x):
    r = x
    while isinstance(r.base, np.ndarray):
        r = r.base
    return r


def _offsets(shape, strides, start=0):
    """The byte offset of each element of a view of this shape and strides (from a first element at `start`)."""
    out = np.full(tuple(shape), start, dtype=np.int64)
    for k, (n, s) in enumerate(zip(shape, strides)):
        out += (np.arange(n, dtype=np.int64) * s).reshape((n,) + (1,) * (len(shape) - k - 1))
    return out


def _layout(x, shape, strides):
    """(positions in x's own elements (C order) or None, positions in the root's memory or None, the root)."""
    shape = tuple(x.shape if shape is None else shape)
    strides = tuple(x.strides if strides is None else strides)
    offs = _offsets(shape, strides)
    own = dict(zip(_offsets(x.shape, x.strides).ravel().tolist(), range(x.size)))
    flat = offs.ravel().tolist()
    inside = np.array([own.get(o, -1) for o in flat], dtype=np.intp).reshape(shape)
    if inside.size == 0 or inside.min() >= 0:
        return inside, None, None
    root = _root(x)
    if root.itemsize != x.itemsize or not (root.flags.c_contiguous or root.flags.f_contiguous):
        return None, None, root
    start = x.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    pos = offs + start
    if (pos % x.itemsize).any() or pos.min() < 0 or pos.max() // x.itemsize >= root.size:
        return None, None, root
    return None, pos // x.itemsize, root


def _refuse(x):
    raise NotImplementedError(
        "derivative of np.lib.stride_tricks.as_strided reading memory outside its argument whose base array's "
        f"layout is not known (a view of a {type(_root(x).base).__name__}, or a non-contiguous base): make the "
        "base array contiguous first (np.ascontiguousarray) and take the strided view of it")


def _flat_of(a):
    """a's elements in memory order (a contiguous array: C or Fortran order)."""
    return a.ravel(order="F" if a.flags.f_contiguous and not a.flags.c_contiguous else "C")


def as_strided_tangent(x, dx, shape=None, strides=None, subok=False, writeable=True):
    if dx is NoTangent or dx is None:
        return NoTangent
    x = np.asarray(x)
    inside, pos, root = _layout(x, shape, strides)
    if inside is not None:
        return np.broadcast_to(_inexact(dx), x.shape).ravel()[inside]
    if pos is None or not isinstance(dx, np.ndarray):
        _refuse(x)
    droot = _root(dx)
    same = (droot.shape == root.shape and droot.dtype.itemsize == root.itemsize
            and droot.flags.c_contiguous == root.flags.c_contiguous and dx.strides == x.strides
            and dx.__array_interface__["data"][0] - droot.__array_interface__["data"][0]
            == x.__array_interface__["data"][0] - root.__array_interface__["data"][0])
    if not same:
        _refuse(x)
    return _flat_of(droot)[pos]


def as_strided_adjoint(x, g, shape=None, strides=None, subok=False, writeable=True):
    if _no_adjoint(g):
        return NoTangent
    x = np.asarray(x)
    g = np.asarray(g)
    inside, pos, root = _layout(x, shape, strides)
    if inside is not None:
        out = np.zeros(x.size, dtype=np.result_type(g.dtype, float))
        np.add.at(out, inside.ravel(), g.ravel())
        return out.reshape(x.shape)
    if pos is None:
        _refuse(x)
    from ..reverse import shadows

    flat = np.zeros(root.size, dtype=np.result_type(g.dtype, float))
    np.add.at(flat, pos.ravel(), g.ravel())
    order = "F" if root.flags.f_contiguous and not root.flags.c_contiguous else "C"
    shadows.add_into(root, flat.reshape(root.shape, order=order))  # (x's storage is a view of it: x's part too)
    return NoTangent


def _as_strided_jvp(t, y, x, shape=None, strides=None, subok=False, writeable=True):
    if t.d(x) is None:
        return None
    return t.call(as_strided_tangent, x, t.d(x), shape, strides)


def _as_strided_vjp(t, g, y, x, *rest, **kw):
    shape = rest[0] if rest else kw.get("shape")
    strides = rest[1] if len(rest) > 1 else kw.get("strides")
    return (t.call(as_strided_adjoint, x, g, shape, strides),) + (None,) * len(rest)


defjvp(_st.as_strided, _as_strided_jvp)
defvjp(_st.as_strided, _as_strided_vjp)


# ------------------------------------------------------------------ sliding_window_view
def sliding_window_tangent(x, dx, window_shape, axis=None):
    if dx is NoTangent or dx is None:
        return NoTangent
    return _st.sliding_window_view(np.broadcast_to(_inexact(dx), np.shape(x)), window_shape, axis)


def sliding_window_adjoint(x, g, window_shape, axis=None):
    if _no_adjoint(g):
        return NoTangent
    idx = _st.sliding_window_view(np.arange(np.size(x)).reshape(np.shape(x)), window_shape, axis)
    g = np.asarray(g)
    out = np.zeros(np.size(x), dtype=np.result_type(g.dtype, float))
    np.add.at(out, idx.ravel(), np.broadcast_to(g, idx.shape).ravel())
    return out.reshape(np.shape(x))


def _window_args(rest, kw):
    window = rest[0] if rest else kw.get("window_shape")
    axis = rest[1] if len(rest) > 1 else kw.get("axis")
    return window, axis


defjvp(_st.sliding_window_view, lambda t, y, x, *rest, **kw: None if t.d(x) is None else
       t.call(sliding_window_tangent, x, t.d(x), *_window_args(rest, kw)))
defvjp(_st.sliding_window_view, lambda t, g, y, x, *rest, **kw:
       (t.call(sliding_window_adjoint, x, g, *_window_args(rest, kw)),) + (None,) * len(rest))


# ------------------------------------------------------------------ broadcast_arrays
def broadcast_arrays_tangent(xs, dxs):
    """Each input's tangent broadcast to the common shape.  An input nothing is broadcast for comes back from NumPy as
    a writeable view of itself (`r = np.broadcast_arrays(a, a)[0]; r += v` writes into a): its tangent is then a view
    of the input's tangent, so the write reaches it (np.broadcast_to gave a read-only view: the write was lost, or
    `r[...] = v` raised)."""
    shape = np.broadcast_shapes(*[np.shape(x) for x in xs])

    def one(x, d):
        if d is NoTangent or d is None:
            return NoTangent
        d = _inexact(d)
        if type(d) is np.ndarray and np.shape(x) == shape and d.shape == shape:
            return d[...]
        return np.broadcast_to(d, shape)

    return tuple(one(x, d) for x, d in zip(xs, dxs))


def broadcast_arrays_adjoint(x, g, k):
    part = g[k] if isinstance(g, (tuple, list)) else NoTangent
    return broadcast_to_adjoint(x, part)


defjvp(np.broadcast_arrays, lambda t, y, *xs, **kw: None if all(t.d(x) is None for x in xs) else
       t.call(broadcast_arrays_tangent, t.call(ops.tuple_of, *xs), t.call(ops.tuple_of, *[t.dz(x) for x in xs])))
defvjp(np.broadcast_arrays, lambda t, g, y, *xs, **kw: tuple(t.call(broadcast_arrays_adjoint, x, g, k)
                                                             for k, x in enumerate(xs)))
