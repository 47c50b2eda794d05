"""Array methods called by forward code (`x.copy()`, `x.sum(axis)`, `x.dot(y)`, ...), for derivatives of derivatives:
the plans of their dispatched calls, with the array's tangent in the method's tangent (a MethodTangent), as plain
functions of nested_helpers.py.  (Split from nested_plans.py.)
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import method_out
from ..reverse.adjoints import MethodAdjoint
from ..tangents import MethodTangent, NoTangent
from . import nested_helpers as nh


def array_method_plan(f: Any, df: Any, args: tuple, dargs: tuple, kwargs: dict) -> Any:
    """`x.copy()`, `x.sum(axis)`, `x.dot(y)`, ... with the array's tangent in df (a MethodTangent)."""
    from .nested_plans import _api, _dense_one, _refuse

    api = _api()
    a, name = f.__self__, f.__name__
    da = df.self_tangent if isinstance(df, MethodTangent) else NoTangent
    n = len(args)
    if (kwargs or {}).get("out") is not None or method_out.moved_out(f, args, kwargs) is not None:
        # (`x.sum(1, out=o)`, `x.max(0, o)`: the plans below neither write o's tangent nor replace its old one)
        raise _refuse(f"the array method .{name}() given an output array (out=) inside generated code")
    aliasing = name in _MAY_ALIAS and not (da is NoTangent or da is None)  # (the tangent storage must be shared)
    zero = api._zero(da) and all(api._zero(d) for d in dargs) and name != "copy" and name not in nh.LINEAR_METHODS
    if (zero and not aliasing) or name in nh.ZERO_DERIVATIVE_METHODS:
        # a zero tangent; the value still depends on the array and the arguments (reverse mode's method rules)
        plan = api._Plan(nh.zero_method_fwd, (a, name, tuple(args), kwargs),
                         lambda b: (MethodAdjoint(b[0]), tuple(api._expand(b[2], n)), (NoTangent,) * n),
                         lambda tf, targs, tdargs, tdf=NoTangent: (_self_t(tf), NoTangent, tuple(targs), NoTangent))
        plan.df_bar = lambda b: MethodAdjoint(NoTangent)
        plan.takes_df = True
        return plan
    da = _dense_one(da, a)
    if kwargs and name not in nh.LINEAR_METHODS and name != "astype":
        raise _refuse(f"the array method .{name}() with keyword arguments inside generated code")
    if name == "copy" and not args:
        fn, call, n_arg = nh.copy_fwd, (a, da), 0
    elif name == "dot" and len(args) == 1:
        fn, call, n_arg = nh.dot_method_fwd, (a, args[0], da, _dense_one(dargs[0], args[0])), 1
    elif name == "fill" and len(args) == 1 and a.dtype.kind == "f" and not isinstance(args[0], np.ndarray):
        fn, call, n_arg = fill_fwd, (a, args[0], da, _dense_one(dargs[0], float(args[0]))), 1
    elif name == "put" and len(args) == 2 and not kwargs and a.dtype.kind == "f" and _put_indices(args[0]):
        fn, call, n_arg = put_fwd, (a, args[0], args[1], da, _dense_one(dargs[1], args[1])), 3
    elif name == "sort" and not args and not kwargs and a.dtype.kind == "f" and a.ndim >= 1:
        fn, call, n_arg = sort_fwd, (a, da), 0
    elif name == "partition" and 1 <= len(args) <= 2 and not kwargs and a.dtype.kind == "f" and a.ndim >= 1:
        fn, call, n_arg = partition_fwd, (a, args[0], args[1] if len(args) > 1 else -1, da), 2  # (kth, axis: constants)
    elif name == "astype" and all(api._zero(d) for d in dargs):  # (a cast: linear, or a constant to an int dtype)
        fn, call, n_arg = nh.astype_fwd, (a, name, tuple(args), kwargs, da), -1
    elif name == "view" and not kwargs and _same_dtype_view(a, args):
        fn, call, n_arg = nh.linear_method_fwd, (a, name, tuple(args), kwargs, da), -1
    elif name in nh.LINEAR_METHODS and all(api._zero(d) for d in dargs):
        fn, call, n_arg = nh.linear_method_fwd, (a, name, tuple(args), kwargs, da), -1
    else:
        raise _refuse(f"the array method .{name}() of a differentiated array inside generated code")
    plan = api._Plan(fn, call, lambda b: _array_split(b, n_arg, len(args)), lambda tf, targs, tdargs, tdf=NoTangent:
                     _array_outer(n_arg, a, name, args, tf, tdf, targs, tdargs))
    plan.df_bar = lambda b: MethodAdjoint(b[-1] if n_arg == -1 else b[3] if n_arg == 3 else b[1 + n_arg])
    plan.takes_df = True
    return plan


# Methods whose result may share the array's memory (`a.view()`, `a.astype(a.dtype, copy=False)`): with the array's
# tangent as storage, even an all-zero one, the result's tangent must be a view of that storage, not a fresh zero, or a
# write through the result (`w = out.view(); w[0] = x`) would never reach the array's tangent (a silent zero at
# second order).  (reshape, ravel, transpose, ... are linear methods: never shortcut.)
_MAY_ALIAS = frozenset({"view", "astype"})


def _same_dtype_view(a: Any, args: tuple) -> bool:
    """`a.view()`, `a.view(np.ndarray)` or `a.view(a.dtype)` of a float array: the same numbers (linear in a); a view as
    another dtype reinterprets the bytes (no derivative)."""
    if not isinstance(a, np.ndarray) or a.dtype.kind not in "fc" or len(args) > 1:
        return False
    if not args or args[0] is np.ndarray:
        return True
    try:
        return np.dtype(args[0]) == a.dtype
    except TypeError:
        return False


def _array_split(b: Any, n_arg: int, n: int) -> tuple:
    if n_arg == 1:  # dot: (a, b, da, db)
        return MethodAdjoint(b[0]), (b[1],), (b[3],)
    if n_arg == 3:  # put: (a, ind, v, da, dv)
        return MethodAdjoint(b[0]), (NoTangent, b[2]), (NoTangent, b[4])
    return MethodAdjoint(b[0]), (NoTangent,) * n, (NoTangent,) * n


def _array_outer(n_arg: int, a: Any, name: str, args: tuple, tf: Any, tdf: Any, targs: tuple, tdargs: tuple) -> tuple:
    """The tangents of the call's arguments, from the outer tangents of the method (its array's), args and dargs."""
    tself = tf.self_tangent if isinstance(tf, MethodTangent) else NoTangent
    tdself = tdf.self_tangent if isinstance(tdf, MethodTangent) else NoTangent
    if n_arg == 0:
        return tself, tdself
    if n_arg == 1:
        return tself, targs[0], tdself, tdargs[0]
    if n_arg == 2:  # (partition: a, kth, axis, ta)
        return tself, NoTangent, NoTangent, tdself
    if n_arg == 3:  # (put: a, ind, v, ta, tv)
        return tself, NoTangent, targs[1], tdself, tdargs[1]
    return tself, NoTangent, NoTangent, NoTangent, tdself


def fill_fwd(a, v, ta, tv):
    """`a.fill(v)` (a buffer reset by the function) and its tangent, filled with v's."""
    a.fill(v)
    ta.fill(tv)
    return None, NoTangent


def _put_indices(ind: Any) -> bool:
    """Indices of a.put that select (ints, a list or integer array of them): never differentiated."""
    if isinstance(ind, (int, np.integer)) and not isinstance(ind, bool):
        return True
    if isinstance(ind, (list, tuple)):
        return all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in ind)
    return isinstance(ind, np.ndarray) and ind.dtype.kind in "iu"


def put_fwd(a, ind, v, ta, tv):
    """`a.put(ind, v)` (flat writes, the last of repeated indices winning) and its tangent, written alike: two
    in-place writes that every order differentiates (the overwritten entries' old tangents replaced)."""
    a.put(ind, v)
    ta.put(ind, tv)
    return None, NoTangent


def sort_fwd(a, ta):
    """`a.sort()` (along the last axis) and its tangent, permuted alike: a gather and an in-place write, which every
    order differentiates (ties, where the permutation is not unique, are where sorting has no derivative)."""
    idx = np.argsort(a, axis=-1)
    a[...] = np.take_along_axis(a, idx, -1)
    ta[...] = np.take_along_axis(ta, idx, -1)
    return None, NoTangent


def partition_fwd(a, kth, axis, ta):
    """`a.partition(kth, axis)` and its tangent, permuted alike (the permutation np.partition makes, found by value as
    at first order: rules/containers.ndarray_partition_tangent)."""
    from .numpy_extra import _partition_perm

    y = np.partition(a, kth, axis=axis)
    perm, ax = _partition_perm(a, y, axis)
    a[...] = y
    ta[...] = np.take_along_axis(ta, perm, axis=ax)
    return None, NoTangent


def _self_t(t: Any) -> Any:
    return t.self_tangent if isinstance(t, MethodTangent) else NoTangent
