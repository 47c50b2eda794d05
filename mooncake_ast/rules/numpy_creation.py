"""NumPy rules, both modes: making arrays (np.array/asarray/asanyarray from data, full/full_like,
arange, linspace), and the table of NumPy callables declared to have no derivative.

Together because these rules start arrays rather than transform them: the derivative flows from
the data, the fill value or the range's start/step/stop (never from a shape or a dtype), and an
integer result carries none.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent, laid_out_like
from .numpy_common import _bind, _dense, _no, _no_adjoint, _refuse_keywords, _unb
from .registry import defjvp, defvjp, defzero


# ------------------------------------------------------------------ arrays from data
# (np.array(x, copy=False) or copy=None, as np.require passes, is x itself where no copy is needed: as asarray)
defjvp(np.array, lambda t, y, x, *a, **k: t.call(asarray_tangent, y, x, t.d(x)) if t.d(x) is not None else None)
defjvp(np.asarray, lambda t, y, x, *a, **k: t.call(asarray_tangent, y, x, t.d(x)) if t.d(x) is not None else None)
defjvp(np.asanyarray, lambda t, y, x, *a, **k: t.call(asarray_tangent, y, x, t.d(x)) if t.d(x) is not None else None)
# (the layout-only conversions: x itself where it is laid out so already, as asarray; SciPy's PPoly uses them)
defjvp(np.ascontiguousarray, lambda t, y, x, *a, **k: t.call(asarray_tangent, y, x, t.d(x)) if t.d(x) is not None else None)
defjvp(np.asfortranarray, lambda t, y, x, *a, **k: t.call(asarray_tangent, y, x, t.d(x)) if t.d(x) is not None else None)


def array_tangent(y, x, dx):
    if y.dtype.kind not in "fc":
        from .numpy_methods import _numbers_object_array

        if _numbers_object_array(y):  # numbers kept as objects: their tangents, as numbers (dropped before)
            return np.array(_dense(x, dx), dtype=complex if any(isinstance(v, complex) for v in y.flat) else float)
        if y.dtype == object:
            return _object_items_tangent(y, x, dx)
        return _no()
    out = np.array(_dense(x, dx), dtype=y.dtype)
    out = out.reshape(y.shape) if out.shape != y.shape and out.size == y.size else out  # (ndmin=: leading ones)
    if out.shape == y.shape and y.ndim > 1 and y.flags.f_contiguous != out.flags.f_contiguous:
        return laid_out_like(y, out)  # (`np.asfortranarray`, `.copy(order="F")`: y's ravel a copy, so its tangent's)
    return out


def _object_items_tangent(y, x, dx):
    """`np.array([obj, ...])` of objects (or of arrays of different lengths): an object array of the items' tangents,
    each the tangent of the item itself (their storage: a field written later shows in it).  Any other object array
    whose items carry derivatives is refused, never given a zero tangent."""
    from ..forward.runtime import _all_zero

    if y.ndim == 1 and isinstance(x, (list, tuple)) and isinstance(dx, (list, tuple)) and len(x) == len(y) == len(dx) \
            and all(a is b for a, b in zip(y, x)):
        out = np.empty(len(y), dtype=object)
        for i, d in enumerate(dx):
            out[i] = d
        return out
    if _all_zero(dx):
        return _no()
    from ..errors import UnsupportedDerivativeError

    raise UnsupportedDerivativeError("object arrays are not differentiated here (np.array of these items): use a list")


def _array_protocol_tangent(x, dx):
    """`np.asarray(obj)` of a user object whose class defines `__array__` in Python: the array and its tangent from
    that method, differentiated (NumPy calls it in C, where the object's tangent, its fields', cannot follow)."""
    import types

    method = getattr(type(x), "__array__", None)
    from ..tangents import MutableTangent, Tangent

    if not isinstance(method, types.FunctionType) or not isinstance(dx, (MutableTangent, Tangent)):
        return None
    from ..forward.runtime import fcall

    return fcall(method, NoTangent, (x,), (dx,))


def asarray_tangent(y, x, dx):
    if y is x:
        return dx
    through = _array_protocol_tangent(x, dx)
    if through is not None:
        return asarray_tangent(y, *through)
    if isinstance(y, np.ndarray) and isinstance(x, np.ndarray) and isinstance(dx, np.ndarray) and y.size == x.size \
            and dx.shape == x.shape and dx.strides == x.strides and dx.dtype == y.dtype and np.shares_memory(y, x):
        return dx.reshape(y.shape)  # (x itself with leading axes of one, `np.array(x, copy=False, ndmin=2)`: a view)
    return array_tangent(y, x, dx)


# ------------------------------------------------------------------ not differentiable
defzero(np.zeros, np.ones, np.empty, np.zeros_like, np.ones_like, np.empty_like, np.eye, np.identity,
        np.shape, np.ndim, np.size, np.argmax, np.argmin, np.argsort, np.floor, np.ceil,
        np.round, np.rint, np.trunc, np.isnan, np.isinf, np.isfinite, np.greater, np.less, np.equal,
        np.not_equal, np.greater_equal, np.less_equal, np.logical_and, np.logical_or, np.logical_not,
        np.all, np.any, np.nonzero, np.count_nonzero, np.allclose, np.isclose, np.array_equal, np.searchsorted)
# np.ndindex yields tuples of ints; its Python __init__ keeps a float array of zeros (an nditer over it), which
# made its object look differentiable and forward-mode loops over it were refused.
defzero(np.ndindex)


# np.full(shape, fill_value), np.full_like(a, fill_value): linear in the fill value.
defjvp(np.full, lambda t, y, *a, **k: _fill_jvp(t, y, _bind(("shape", "fill_value"), a, k).get("fill_value")))
defvjp(np.full, lambda t, g, y, *a, **k: _fill_vjp(t, g, y, a, k, "np.full"))
defjvp(np.full_like, lambda t, y, *a, **k: _fill_jvp(t, y, _bind(("a", "fill_value"), a, k).get("fill_value")))
defvjp(np.full_like, lambda t, g, y, *a, **k: _fill_vjp(t, g, y, a, k, "np.full_like"))


def _fill_jvp(t, y, v):
    return t.call(full_tangent, y, t.d(v)) if t.d(v) is not None else None


def _fill_vjp(t, g, y, a, k, name):
    if len(a) > 1:
        return (None, t.call(full_adjoint, y, g, a[1]))
    _refuse_keywords(t, name, **{key: v for key, v in k.items() if key == "fill_value"})
    return ()


def full_tangent(y, dv):
    if np.asarray(y).dtype.kind not in "fc":
        return NoTangent  # an integer array: the fill value was truncated
    return np.full_like(y, dv)


def full_adjoint(y, g, v):
    if _no_adjoint(g) or np.asarray(y).dtype.kind not in "fc":
        return NoTangent
    return _unb(g, v)


# np.arange(start, stop, step): y[i] = start + i * step (stop only decides the length).
defjvp(np.arange, lambda t, y, *a, **k: _arange_jvp(t, y, *_arange_args(a, k)))
defvjp(np.arange, lambda t, g, y, *a, **k: _arange_vjp(t, g, y, a, k))


def _arange_args(a, k):
    if len(a) == 1 and "stop" not in k:
        return k.get("start"), k.get("step")
    b = _bind(("start", "stop", "step"), a, k)
    return b.get("start"), b.get("step")


def _arange_jvp(t, y, start, step):
    if t.d(start) is None and t.d(step) is None:
        return None
    return t.call(arange_tangent, y, t.dz(start), t.dz(step))


def _arange_vjp(t, g, y, a, k):
    _refuse_keywords(t, "np.arange", **{key: v for key, v in k.items() if key in ("start", "step")})
    if len(a) < 2:
        return ()
    return (t.call(arange_adjoint, y, g, a[0], 0), None) + ((t.call(arange_adjoint, y, g, a[2], 2),) if len(a) > 2 else ())


def arange_tangent(y, dstart, dstep):
    y = np.asarray(y)
    if y.dtype.kind not in "fc":
        return NoTangent
    out = np.zeros(y.shape, dtype=y.dtype)
    if dstart is not NoTangent:
        out = out + dstart
    if dstep is not NoTangent:
        out = out + np.arange(y.size) * dstep
    return out


def arange_adjoint(y, g, x, which):
    if _no_adjoint(g) or np.asarray(y).dtype.kind not in "fc":
        return NoTangent
    g = np.asarray(g)
    return _unb(np.sum(g) if which == 0 else np.sum(g * np.arange(g.size)), x)


# np.linspace(start, stop, num, endpoint, retstep, dtype, axis): y = start + w * (stop - start).
_LINSPACE = ("start", "stop", "num", "endpoint", "retstep", "dtype", "axis")
defjvp(np.linspace, lambda t, y, *a, **k: _linspace_jvp(t, y, _bind(_LINSPACE, a, k)))
defvjp(np.linspace, lambda t, g, y, *a, **k: _linspace_vjp(t, g, y, a, k))


def _linspace_jvp(t, y, b):
    start, stop = b.get("start"), b.get("stop")
    if t.d(start) is None and t.d(stop) is None:
        return None
    return t.call(linspace_tangent, y, t.dz(start), t.dz(stop), b.get("num", 50), b.get("endpoint", True),
                  b.get("axis", 0), b.get("retstep", False))


def _linspace_vjp(t, g, y, a, k):
    _refuse_keywords(t, "np.linspace", **{key: v for key, v in k.items() if key in ("start", "stop")})
    b = _bind(_LINSPACE, a, k)
    args = (y, g, b.get("start"), b.get("stop"), b.get("num", 50), b.get("endpoint", True), b.get("axis", 0), b.get("retstep", False))
    return tuple(t.call(linspace_adjoint, *args, which) for which in range(min(len(a), 2)))


def _linspace_weights(num, endpoint, ndim):
    w = np.linspace(0.0, 1.0, num, endpoint=endpoint)
    return w.reshape((-1,) + (1,) * (ndim - 1))


def _linspace_div(num, endpoint):
    return (num - 1 if endpoint else num) or np.nan


def linspace_tangent(y, dstart, dstop, num=50, endpoint=True, axis=0, retstep=False):
    samples = np.asarray(y[0] if retstep else y)
    if samples.dtype.kind not in "fc":
        return (NoTangent, NoTangent) if retstep else NoTangent
    w = _linspace_weights(num, endpoint, samples.ndim)
    d0 = 0.0 if dstart is NoTangent else np.asarray(dstart)
    d1 = 0.0 if dstop is NoTangent else np.asarray(dstop)
    d = (1.0 - w) * d0 + w * d1
    d = np.broadcast_to(d, np.moveaxis(samples, axis, 0).shape)
    d = np.moveaxis(d, 0, axis).copy()
    if retstep:
        return d, (d1 - d0) / _linspace_div(num, endpoint)
    return d


def linspace_adjoint(y, g, start, stop, num=50, endpoint=True, axis=0, retstep=False, which=0):
    """The adjoint of start (which=0) or stop (which=1)."""
    if _no_adjoint(g):
        return NoTangent
    samples = np.asarray(y[0] if retstep else y)
    if samples.dtype.kind not in "fc":
        return NoTangent
    gs, gstep = (g[0], g[1]) if retstep else (g, NoTangent)
    total = 0.0
    if gs is not NoTangent:
        w = _linspace_weights(num, endpoint, samples.ndim)
        gm = np.moveaxis(np.asarray(gs), axis, 0)
        total = np.sum((w if which else 1.0 - w) * gm, axis=0)
    if gstep is not NoTangent:
        total = total + (1.0 if which else -1.0) * np.asarray(gstep) / _linspace_div(num, endpoint)
    return _unb(np.asarray(total, dtype=float), start if which == 0 else stop)


# ================================================================== reverse rules
def array_adjoint(x, g):
    """The adjoint of the argument of np.array(x): g, split back into x's nesting if x is a list/tuple."""
    if _no_adjoint(g):
        return NoTangent
    from ..reverse.adjoints import AdjList, AdjTuple

    if isinstance(x, (list, tuple)):
        items = [array_adjoint(v, g[i]) for i, v in enumerate(x)]
        return AdjList(items) if isinstance(x, list) else AdjTuple(items)
    if isinstance(x, np.ndarray):
        return np.asarray(g).reshape(x.shape)
    return float(g) if np.ndim(g) == 0 else g


defvjp(np.array, lambda t, g, y, x, *a, **k: (t.call(array_adjoint, x, g),) + (None,) * len(a))
defvjp(np.asarray, lambda t, g, y, x, *a, **k: (t.call(array_adjoint, x, g),) + (None,) * len(a))
defvjp(np.asanyarray, lambda t, g, y, x, *a, **k: (t.call(array_adjoint, x, g),) + (None,) * len(a))
defvjp(np.ascontiguousarray, lambda t, g, y, x, *a, **k: (t.call(array_adjoint, x, g),) + (None,) * len(a))
defvjp(np.asfortranarray, lambda t, g, y, x, *a, **k: (t.call(array_adjoint, x, g),) + (None,) * len(a))
