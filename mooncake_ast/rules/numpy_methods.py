"""NumPy rules, both modes: methods of np.ndarray (sum, mean, max, reshape, transpose, astype,
item, tolist, clip, fill, var, std, diagonal, trace, take, cumprod, ...).

Methods are keyed by `(np.ndarray, name)` and take self as their first operand.  Most reuse the
helpers of the function they mirror (numpy_reductions, numpy_shapes, ...); the ones only methods
need (astype, item, tolist, fill, reshape/transpose with separate axes) live here.
"""
from __future__ import annotations

import numpy as np

from .. import ops
from ..tangents import NoTangent
from .numpy_common import _float_dtype, _linear, _no, _no_adjoint, _no_out
from .numpy_elementwise import _clip_bounds, _clip_jvp, _clip_vjp, conjugate_adjoint
from .numpy_order import other_order, ravel_adjoint, ravel_tangent, ravel_view_tangent
from .numpy_order import reshape_adjoint as order_reshape_adjoint, reshape_tangent as order_reshape_tangent
from .numpy_products import dot_adjoint_a, dot_adjoint_b
from .strong_zeros import vector_product_adjoints
from .numpy_shapes import diagonal_adjoint, repeat_adjoint, swapaxes_adjoint, take_adjoint, trace_adjoint, transpose_adjoint
from .reduction_dtypes import guard_integer_dtypes
from .registry import all_rules, defcomplex, defmethod, defvjp_method, defzero, lookup


# ------------------------------------------------------------------ array methods (self first)
nd = np.ndarray
defmethod(nd, "dot", lambda t, y, a, b: t.add(t.lin(np.dot, t.d(a), b), t.linr(np.dot, a, t.d(b))))
defmethod(nd, "reshape", lambda t, y, x, *shape, **k: (t.call(reshape_method_tangent, x, t.d(x), *shape, **k)
                                                         if other_order(shape, k, None) else
                                                         t.lin(reshape_tangent, t.d(x), *shape, **k))
          if t.d(x) is not None else None)
defmethod(nd, "transpose", lambda t, y, x, *axes: t.lin(transpose_tangent, t.d(x), *axes))
# (the method's order, "C" unless given: the tangent laid out as the copy is, so that views of both agree)
defmethod(nd, "copy", lambda t, y, x, *a, **k: t.lin(np.copy, t.d(x), order=k.get("order", a[0] if a else "C")))
defmethod(nd, "ravel", lambda t, y, x, *a, **k: (t.call(ravel_view_tangent, x, t.d(x), *a, **k) if other_order(a, k, 0) else
                                                 t.lin(np.ravel, t.d(x), *a, **k)) if t.d(x) is not None else None)
defmethod(nd, "flatten", lambda t, y, x, *a, **k: (t.call(ravel_tangent, x, t.d(x), *a, **k) if other_order(a, k, 0) else
                                                   t.lin(flatten_tangent, t.d(x), *a, **k)) if t.d(x) is not None else None)
defmethod(nd, "squeeze", lambda t, y, x, *a, **k: t.lin(np.squeeze, t.d(x), *a, **k))
defmethod(nd, "astype", lambda t, y, x, dtype, *a, **k: t.call(astype_tangent, y, t.d(x), x) if t.d(x) is not None else None)
defmethod(nd, "item", lambda t, y, x, *a: t.call(item_tangent, t.d(x), *a) if t.d(x) is not None else None)
defmethod(nd, "tolist", lambda t, y, x: t.call(tolist_tangent, t.d(x)) if t.d(x) is not None else None)
defmethod(nd, "clip", lambda t, y, x, *a, **k: _clip_jvp(t, x, *_clip_bounds(a, k)))
defmethod(nd, "fill", lambda t, y, x, v: t.call(fill_tangent, t.d(x), t.dz(v)) if t.d(x) is not None else None, mutates=(0,))
defzero(*[(nd, _name) for _name in ("argmax", "argmin", "argsort", "nonzero", "all", "any", "__len__", "round")])


def reshape_tangent(dx, *shape, **k):
    return np.reshape(dx, shape[0] if len(shape) == 1 else shape, **k)


def flatten_tangent(dx, *a, **k):
    return np.array(dx).flatten(*a, **k)


def reshape_method_tangent(x, dx, *shape, order="C", **k):
    return order_reshape_tangent(x, dx, shape[0] if len(shape) == 1 else shape, order)


def reshape_method_adjoint(x, g, *shape, order="C", **k):
    return order_reshape_adjoint(x, g, order)


def transpose_tangent(dx, *axes):
    return np.transpose(dx, axes[0] if len(axes) == 1 else (axes or None))


def astype_tangent(y, dx, x=None):
    if y is x:  # (`x.astype(x.dtype, copy=False)` is x itself: a write through either name shows in both tangents)
        return dx
    if y.dtype.kind not in "fc":
        return _no()
    return np.asarray(dx).astype(y.dtype)


def item_tangent(dx, *a):
    return np.asarray(dx).item(*a)


def tolist_tangent(dx):
    return np.asarray(dx).tolist()


def fill_tangent(dx, dv):
    dx.fill(dv)


# ------------------------------------------------------------------ statistics


# ================================================================== reverse rules
defvjp_method(nd, "dot", lambda t, g, y, a, b: vector_product_adjoints(t, g, a, b, "dot") or
              (t.call(dot_adjoint_a, g, a, b), t.call(dot_adjoint_b, g, a, b)))
defvjp_method(nd, "copy", lambda t, g, y, x, *a, **k: (g,))
defvjp_method(nd, "reshape", lambda t, g, y, x, *a, **k: ((t.call(reshape_method_adjoint, x, g, *a, **k)
                                                          if other_order(a, k, None) else
                                                          t.call(np.reshape, g, t.call(np.shape, x))),) + (None,) * len(a))
defvjp_method(nd, "ravel", lambda t, g, y, x, *a, **k: ((t.call(ravel_adjoint, x, g, *a, **k) if other_order(a, k, 0) else
                                                        t.call(np.reshape, g, t.call(np.shape, x))),) + (None,) * len(a))
defvjp_method(nd, "flatten", lambda t, g, y, x, *a, **k: ((t.call(ravel_adjoint, x, g, *a, **k) if other_order(a, k, 0)
                                                          else t.call(np.reshape, g, t.call(np.shape, x))),)
              + (None,) * len(a))
defvjp_method(nd, "clip", lambda t, g, y, x, *a, **k: _clip_vjp(t, g, x, a, k, "ndarray.clip"))
defvjp_method(nd, "transpose", lambda t, g, y, x, *axes: (t.call(transpose_adjoint, x, g, axes[0] if len(axes) == 1 else (t.call(ops.tuple_of, *axes) if axes else None)),) + (None,) * len(axes))
defvjp_method(nd, "astype", lambda t, g, y, x, *a, **k: (t.call(astype_adjoint, x, g, y),) + (None,) * len(a))
defvjp_method(nd, "item", lambda t, g, y, x, *a: (t.call(item_adjoint_array, x, g, *a),) + (None,) * len(a))
defvjp_method(nd, "squeeze", lambda t, g, y, x, *a, **k: (t.call(np.reshape, g, t.call(np.shape, x)),) + (None,) * len(a))


def _numbers_object_array(x):
    """An object array holding real or complex numbers (np.frompyfunc's result): its adjoint is a numeric array."""
    return isinstance(x, np.ndarray) and x.dtype == object and all(
        isinstance(v, (float, complex, np.floating, np.complexfloating)) for v in x.flat)


def astype_adjoint(x, g, y=None):
    if _numbers_object_array(x) and not _no_adjoint(g) and np.asarray(y).dtype.kind in "fc":
        return np.asarray(g)  # (the object array's maker takes its adjoint as numbers)
    if _no_adjoint(g) or np.asarray(x).dtype.kind not in "fc" or (y is not None and np.asarray(y).dtype.kind not in "fc"):
        return NoTangent  # an integer result carries no derivative
    if y is x:
        return g  # (`copy=False` of the same dtype: x itself, whose storage g is; a copy of it was counted twice)
    g = np.asarray(g)
    if g.dtype.kind == "c" and np.asarray(x).dtype.kind != "c":
        g = g.real  # (a real array cast to complex: the real part, the adjoint of R -> C)
    return g.astype(np.asarray(x).dtype)


def item_adjoint_array(x, g, *a):
    """x.item(*a): one int is an index into the flattened array, several (or a tuple) a multi-index."""
    if _no_adjoint(g):
        return NoTangent
    out = np.zeros(np.shape(x), dtype=np.result_type(np.asarray(x).dtype, float))
    if len(a) == 1 and isinstance(a[0], (int, np.integer)):
        out.reshape(-1)[a[0]] = g
    elif a:
        out[a if len(a) > 1 else a[0]] = g
    else:
        out.reshape(-1)[0] = g
    return out


# ================================================================== more array methods, both modes
defmethod(nd, "diagonal", lambda t, y, x, *a, **k: _linear(t, np.diagonal, t.d(x), *a, **k))
defvjp_method(nd, "diagonal", lambda t, g, y, x, offset=0, axis1=0, axis2=1: (t.call(diagonal_adjoint, x, g, offset, axis1, axis2),))
defmethod(nd, "trace", lambda t, y, x, *a, **k: _linear(t, np.trace, t.d(x), *a, **_no_out(t, "ndarray.trace", k)))
defvjp_method(nd, "trace", lambda t, g, y, x, offset=0, axis1=0, axis2=1, **k: (t.call(trace_adjoint, x, g, offset, axis1, axis2),))
defmethod(nd, "swapaxes", lambda t, y, x, axis1, axis2: t.lin(np.swapaxes, t.d(x), axis1, axis2))
defvjp_method(nd, "swapaxes", lambda t, g, y, x, axis1, axis2: (t.call(swapaxes_adjoint, g, axis1, axis2), None, None))
for _name in ("conj", "conjugate"):
    defmethod(nd, _name, lambda t, y, x: t.lin(np.conjugate, t.d(x)))
    defvjp_method(nd, _name, lambda t, g, y, x: (t.call(conjugate_adjoint, g, x),))
defmethod(nd, "take", lambda t, y, x, *a, **k: t.lin(np.take, t.d(x), *a, **_no_out(t, "ndarray.take", k)))
defvjp_method(nd, "take", lambda t, g, y, x, indices, axis=None, out=None, mode="raise": (t.call(take_adjoint, x, g, indices, axis, mode),))
defmethod(nd, "repeat", lambda t, y, x, *a, **k: t.lin(np.repeat, t.d(x), *a, **k))
defvjp_method(nd, "repeat", lambda t, g, y, x, repeats, axis=None: (t.call(repeat_adjoint, x, g, repeats, axis), None, None))
defvjp_method(nd, "tolist", lambda t, g, y, x: (t.call(tolist_adjoint, x, g),))


def tolist_adjoint(x, g):
    """x.tolist() (nested lists of Python numbers): their adjoints, back as an array (zeros where none)."""
    if _no_adjoint(g):
        return NoTangent

    def dense(v):
        if v is NoTangent or v is None:
            return 0.0
        if isinstance(v, (list, tuple)):
            return [dense(e) for e in v]
        return v

    return np.asarray(dense(g), dtype=_float_dtype(x)).reshape(np.shape(x))


# Right for complex values in reverse mode (README "Complex numbers"): reshapes and copies move adjoints unchanged,
# conj conjugates them, dot conjugates the other factor (numpy_products).  tests/test_complex_reverse.py.
defcomplex(*((nd, _name) for _name in ("copy", "reshape", "ravel", "flatten", "transpose", "squeeze", "conj", "conjugate",
                                        "dot", "swapaxes", "astype", "item", "diagonal", "trace", "take", "repeat")))


# ================================================================== methods that are the function with self first
def _as_method(name, fn):
    """ndarray.<name>(...) is fn(self, ...) with the same parameters: one rule for both (out=, initial=, where=,
    keyword operands and the conventions at kinks stay the same)."""
    r = lookup(fn)
    if r is not None and r.jvp is not None:
        defmethod(nd, name, r.jvp_template or r.jvp)
    if r is not None and r.vjp is not None:
        defvjp_method(nd, name, getattr(r.vjp, "__wrapped__", r.vjp))
        if r.complex_ok:
            defcomplex((nd, name))


# (an integer dtype makes a reduction a step function: zero derivative, not the truncated tangent; the methods below
# take the functions' rules, guarded first)
guard_integer_dtypes(np.sum, np.mean, np.prod, np.var, np.std, np.cumsum, np.cumprod, np.trace, (nd, "trace"))

for _name, _fn in (("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min), ("prod", np.prod),
                   ("var", np.var), ("std", np.std), ("cumsum", np.cumsum), ("cumprod", np.cumprod)):
    _as_method(_name, _fn)


# ================================================================== NumPy scalars
_SCALAR_METHODS = frozenset({  # the ndarray methods a NumPy scalar has and can run (no fill, diagonal, swapaxes, trace)
    "item", "tolist", "squeeze", "reshape", "ravel", "flatten", "copy", "astype", "transpose", "take", "repeat",
    "sum", "mean", "max", "min", "prod", "var", "std", "cumsum", "cumprod", "clip", "conj", "conjugate",
    "argmax", "argmin", "argsort", "all", "any", "round"})


def _scalar_methods():
    """NumPy scalars (np.float64(2.0).item(), .reshape(()), .squeeze(), .tolist(), .sum(), ...) have the
    methods of 0-d arrays: the same rules, keyed by np.generic (they would otherwise find no rule)."""
    for key, rule in all_rules().items():
        if isinstance(key, tuple) and key[0] is nd and key[1] in _SCALAR_METHODS and (np.generic, key[1]) not in all_rules():
            if rule.zero:
                defzero((np.generic, key[1]), mutates=rule.mutates)
                continue
            if rule.jvp is not None:
                defmethod(np.generic, key[1], rule.jvp_template or rule.jvp, mutates=rule.mutates)
            if rule.vjp is not None:
                defvjp_method(np.generic, key[1], rule.vjp)
                if rule.complex_ok:
                    defcomplex((np.generic, key[1]))


# ================================================================== more methods (issue 12)
defzero((nd, "searchsorted"), (nd, "argpartition"), (nd, "nonzero"))


def view_tangent(x, dx, *a, **k):
    """x.view(): the same entries; a view of the tangent, so writes through it reach x's tangent too."""
    _plain_view(x, a, k)
    return np.asarray(dx).view()


def view_adjoint(x, g, *a, **k):
    _plain_view(x, a, k)
    return g  # (a view of x's own storage when it is one: adding it there is a no-op)


def _plain_view(x, a, k):
    dtype = k.get("dtype", a[0] if a else None)
    if dtype is not None and (not isinstance(dtype, (type, np.dtype, str)) or np.dtype(dtype) != x.dtype) or k.get("type") \
            or len(a) > 1:
        raise NotImplementedError("derivative of ndarray.view with another dtype or type (it reinterprets the bytes)")


defmethod(nd, "view", lambda t, y, x, *a, **k: t.call(view_tangent, x, t.d(x), *a, **k) if t.d(x) is not None else None)
defvjp_method(nd, "view", lambda t, g, y, x, *a, **k: (t.call(view_adjoint, x, g, *a, **k),) + (None,) * len(a))
