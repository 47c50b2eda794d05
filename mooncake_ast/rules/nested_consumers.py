"""Builtins that call a function or read an iterable whole, for derivatives of derivatives.

`map(f, xs)`, `functools.reduce(f, xs[, init])`, `np.fromiter(xs, float)` and `statistics.fmean(xs)` /
`statistics.mean(xs)` (and `copy.deepcopy` of a number or a float array: dataclasses.astuple's leaves) have
first-order rules that run when the call runs (builtin_consumers.py, python_lib.py,
numpy_realistic.py); those rules are not themselves differentiable.  Forward code dispatches them
(`_mc.fcall(map, ...)`); differentiated again, such a call is one call of a plain function below, which reads the
items with `fcall(ops.sequence, ...)` (a user object's `__iter__` too: nested_iteration.py) and calls f through
`fcall`, whose rules nest, so f may be any differentiable callable (a lambda, a bound method, a callable object).

Each returns what the first-order rule returns (map: iterators over the results and their tangents) and is
linear in the tangents it is given, which is what makes it the forward code of the call.
"""
from __future__ import annotations

import builtins
import copy
import functools
import sys
from typing import Any, Optional

import numpy as np

from .. import ops
from ..forward.runtime import fcall
from ..tangents import NoTangent


def items_of(it, dit):
    """The items `it` yields and their tangents, as lists, zeros dense (a list or tuple's tangent holds a symbolic
    zero for a constant item)."""
    items, ditems = fcall(ops.sequence, NoTangent, (it,), (dit,))
    return list(items), dense_items(list(items), list(ditems))


def dense_items(items: list, ditems: list) -> list:
    """ditems with a symbolic zero of a float item made 0.0 (an identity on the values of the tangents)."""
    return [0.0 if (d is NoTangent or d is None) and isinstance(x, (float, np.floating)) else d
            for x, d in zip(items, ditems)]


def map_fwd(f, it, df, dit):
    items, ditems = items_of(it, dit)
    ys = []
    dys = []
    for k in range(len(items)):
        y, dy = fcall(f, df, (items[k],), (ditems[k],))
        ys.append(y)
        dys.append(dy)
    return iter(ys), iter(dys)


def map2_fwd(f, it, it2, df, dit, dit2):
    items, ditems = items_of(it, dit)
    items2, ditems2 = items_of(it2, dit2)
    ys = []
    dys = []
    for k in range(min(len(items), len(items2))):
        y, dy = fcall(f, df, (items[k], items2[k]), (ditems[k], ditems2[k]))
        ys.append(y)
        dys.append(dy)
    return iter(ys), iter(dys)


def reduce_fwd(f, it, df, dit):
    items, ditems = items_of(it, dit)
    if len(items) == 0:
        raise TypeError("reduce() of empty iterable with no initial value")
    acc = items[0]
    dacc = ditems[0]
    for k in range(1, len(items)):
        acc, dacc = fcall(f, df, (acc, items[k]), (dacc, ditems[k]))
    return acc, dacc


def reduce_init_fwd(f, it, init, df, dit, dinit):
    items, ditems = items_of(it, dit)
    acc = init
    dacc = dinit
    for k in range(len(items)):
        acc, dacc = fcall(f, df, (acc, items[k]), (dacc, ditems[k]))
    return acc, dacc


def fmean_fwd(data, ddata):
    items, ditems = items_of(data, ddata)
    import statistics

    return statistics.fmean(items), statistics.fmean(ditems)


def mean_fwd(data, ddata):
    items, ditems = items_of(data, ddata)
    import statistics

    return statistics.mean(items), statistics.fmean(ditems)


def fromiter_fwd(it, dtype, dit, ddtype):
    items, ditems = items_of(it, dit)
    return np.array(items, dtype=dtype), np.array(ditems, dtype=dtype)


def tuple_fwd(xs, dxs):
    """`tuple(xs)` of a list or tuple (a `tuple_factory` dispatched at run time) and its tangent."""
    return tuple(xs), tuple(dxs)


def list_fwd(xs, dxs):
    return list(xs), list(dxs)


def dict_pairs_fwd(pairs, dpairs):
    """`dict(pairs)` of a list of (key, value) pairs (dataclasses.asdict's `dict_factory`) and its tangent, the
    values' tangents by key (builtin_methods.dict_tangent)."""
    y = dict(pairs)
    dy = {}
    for k in range(len(pairs)):
        dy[pairs[k][0]] = dpairs[k][1]
    return y, dy


def same_fwd(x, dx):
    """`copy.deepcopy(x)` of an immutable value (a number, a string, None): x itself, and its tangent."""
    return x, dx


def array_copy_fwd(x, dx):
    """`copy.deepcopy(x)` of a float array: a copy, and a copy of its tangent."""
    return x.copy(), dx.copy()


def _refuse_callable_object(f: Any) -> tuple:
    from .api_rules import NestingError

    raise NestingError(f"nested derivative: reverse mode over map() or functools.reduce() of a callable object "
                       f"({type(f).__name__}) is not supported at this order; pass a lambda that calls it "
                       f"(`map(lambda t: obj(t), xs)`), or take the outer derivative in forward mode (mc.jvp, mc.jacfwd)")


def _user_object(x: Any) -> bool:
    from .nested_plans import _user_object as user

    return user(x)


def _float64(dtype: Any) -> bool:
    try:
        return np.dtype(dtype) == np.float64
    except TypeError:
        return False


def _statistics_plans() -> dict:
    st = sys.modules.get("statistics")  # (not imported here: 2.5 ms, and its functions are met only once it is)
    return {} if st is None else {(st.fmean, 1): fmean_fwd, (st.mean, 1): mean_fwd}


def consumer_plan(f: Any, args: tuple, dargs: tuple) -> Optional[Any]:
    """The plan of `fcall(f, df, args, dargs)` for the builtins above (positional arguments as the twins take
    them), or None."""
    from .nested_plans import _api, _dense_keep, _plain_plan

    n = len(args)
    try:
        fn = {(builtins.map, 2): map_fwd, (builtins.map, 3): map2_fwd, (functools.reduce, 2): reduce_fwd,
              (functools.reduce, 3): reduce_init_fwd, **_statistics_plans()}.get((f, n))
    except TypeError:  # (an unhashable callee)
        return None
    if f is np.fromiter and n == 2 and _float64(args[1]):
        fn = fromiter_fwd
    if (f is builtins.tuple or f is builtins.list) and n == 1 and type(args[0]) in (list, tuple):
        fn = tuple_fwd if f is builtins.tuple else list_fwd
    if f is builtins.dict and n == 1 and type(args[0]) is list and \
            all(type(p) is tuple and len(p) == 2 and isinstance(p[0], str) for p in args[0]) and \
            len({p[0] for p in args[0]}) == len(args[0]):
        fn = dict_pairs_fwd  # (string keys, each once: the tangent by key is the pairs' own)
    if f is copy.deepcopy and n == 1:
        x = args[0]
        if type(x) in (float, int, bool, complex, str, type(None), np.float64):
            fn = same_fwd
        elif type(x) is np.ndarray and x.dtype.kind == "f":
            fn = array_copy_fwd
    if fn is None:
        return None
    dargs = _api()._expand(dargs, n)
    if all(d is NoTangent or d is None for d in dargs):
        from .nested_plans import _zero_plan

        return _zero_plan(f, tuple(args))  # (nothing differentiated reaches the call: its value, a zero tangent)
    plan = _plain_plan(fn, (*args, *_dense_keep(dargs, args)), n)
    if fn in (map_fwd, map2_fwd, reduce_fwd, reduce_init_fwd) and _user_object(args[0]):
        # (reverse mode over map/reduce of a callable object gave a wrong Hessian of `C * sum(map(poly, xs))`, 1.72
        # for 0.975, randprog protocols seed 65001000011; forward over it is right: refused when the adjoints are
        # asked for.  `map(lambda t: poly(t), xs)` is right in both modes.)
        obj = args[0]
        plan.split = lambda b: _refuse_callable_object(obj)
    if fn is fromiter_fwd:
        plan.inactive = frozenset({1, 3})  # (the dtype)
    return plan
