"""Nested derivatives of list and dict methods called on a differentiated list or dict inside generated forward code.

Forward code runs `xs.insert(i, v)` as `fcall(xs.insert, MethodTangent(dxs), (i, v), (0, dv))`: the method changes
the list and its tangent list in step (`d.setdefault(k, v)` the dict and its tangent dict).  Differentiated again, the call is planned as one of the plain functions
below, which do to the list and to its tangent what the method does to each; they are ordinary Python (list
methods on lists), which every order differentiates as it does user code.  The plan's maps (`split`, `outer`) are
shaped as those of `append` (nested_plans.py): the list's tangent is the callable's tangent (takes_df), its adjoint a
MethodAdjoint; an index is never differentiated.
"""
from __future__ import annotations

import collections

import types
from typing import Any

from ..reverse.adjoints import AdjTuple, MethodAdjoint
from ..tangents import MethodTangent, NoTangent
from . import nested_helpers as nh


# ---------------------------------------------------------------- plain forward functions (traced at higher orders)


def pop_at_fwd(xs, i, txs, ti):
    return xs.pop(i), txs.pop(i)


def insert_fwd(xs, i, v, txs, ti, tv):
    xs.insert(i, v)
    txs.insert(i, tv)
    return None, NoTangent


def extend_fwd(xs, ys, txs, tys):
    xs.extend(ys)
    txs.extend(tys)
    return None, NoTangent


def clear_fwd(xs, txs):
    """`xs.clear()` (a module-level log list emptied by the function) and its tangent list, emptied with it."""
    xs.clear()
    txs.clear()
    return None, NoTangent


def reverse_fwd(xs, txs):
    xs.reverse()
    txs.reverse()
    return None, NoTangent


def sort_fwd(xs, txs, order):
    """`xs.sort()` of numbers, by the permutation `order` the plan found (a stable sort's, as list.sort's): the
    items and their tangents moved alike."""
    items = []
    titems = []
    for i in order:
        items.append(xs[i])
        titems.append(txs[i])
    xs.clear()
    txs.clear()
    for k in range(len(items)):
        xs.append(items[k])
        txs.append(titems[k])
    return None, NoTangent


def zip_fwd(*ad):
    # `zip(*xs)` over lists and tuples (as builtin_rules.zip_tangent, traced, calls it) and its tangent: the items'
    # tangents zipped alike, a list of tuples as zip_tangent gives them
    k = len(ad) // 2
    return zip(*ad[:k]), list(zip(*ad[k:]))


def dict_get1_fwd(d, k, td, tk):
    if k in d:
        return d[k], td[k]
    return None, NoTangent


def dict_get_fwd(d, k, default, td, tk, tdefault):
    if k in d:
        return d[k], td[k]
    return default, tdefault


def dict_setdefault_fwd(d, k, default, td, tk, tdefault):
    if k not in d:
        d[k] = default
        td[k] = tdefault
    return d[k], td[k]


def dict_pop_fwd(d, k, td, tk):
    return d.pop(k), td.pop(k)


def dict_pop_default_fwd(d, k, default, td, tk, tdefault):
    if k in d:
        return d.pop(k), td.pop(k)
    return default, tdefault


def dict_items_fwd(d, td):
    return d.items(), [(NoTangent, td[k]) for k in d]


def dict_values_fwd(d, td):
    return d.values(), [td[k] for k in d]


def copy_fwd(c, tc):
    """`xs.copy()` / `d.copy()`: a new list or dict holding the same items, its tangent the tangent's copy (the items'
    tangents shared, as the items are)."""
    return c.copy(), tc.copy()


def dict_update_fwd(d, other, td, tother):
    for k in other:
        d[k] = other[k]
        td[k] = tother[k]
    return None, NoTangent


def dict_update_pairs_fwd(d, pairs, td, tpairs):
    # `d.update(zip(keys, values))`: the pairs with their tangents' pairs (a key's tangent is none)
    for (k, v), (tk, tv) in zip(pairs, tpairs):
        d[k] = v
        td[k] = tv
    return None, NoTangent


# ---------------------------------------------------------------- plans (special_plan's, nested_plans.py)


def list_method_plan(f: Any, df: Any, args: tuple, dargs: tuple) -> Any:
    """`xs.append(v)`, `xs.pop()` (nested_helpers' plain functions) and those of list_method_call, with the list's
    tangent in df (a MethodTangent of a list)."""
    from .nested_plans import _api, _dense_one, _refuse

    api = _api()
    xs, name = f.__self__, f.__name__
    dxs = df.self_tangent if isinstance(df, MethodTangent) else NoTangent
    if not isinstance(dxs, list):
        if api._zero(dxs) and all(api._zero(d) for d in dargs):
            return None
        raise _refuse(f"the list method .{name}() on a list whose tangent is a {type(dxs).__name__}")
    if name == "append" and len(args) == 1:
        fn, call = nh.append_fwd, (xs, args[0], dxs, _dense_one(dargs[0], args[0]))
        split = lambda b: (MethodAdjoint(b[0]), (b[1],), (b[3],))  # noqa: E731
        outer = lambda tf, targs, tdargs, tdf=NoTangent: (_self_t(tf), targs[0], _self_t(tdf), tdargs[0])  # noqa: E731
    elif name == "pop" and not args:
        fn, call = nh.pop_fwd, (xs, dxs)
        split = lambda b: (MethodAdjoint(b[0]), (), ())  # noqa: E731
        outer = lambda tf, targs, tdargs, tdf=NoTangent: (_self_t(tf), _self_t(tdf))  # noqa: E731
    else:
        planned = list_method_call(name, xs, tuple(args), dxs, tuple(dargs), _dense_one)
        if planned is None:
            raise _refuse(f"the list method .{name}() of a differentiated list inside generated code")
        fn, call, split, outer = planned
    plan = api._Plan(fn, call, split, outer)
    plan.df_bar = lambda b: MethodAdjoint(b[len(call) // 2])
    plan.takes_df = True
    return plan


def list_sort_plan(f: Any, df: Any, kwargs: dict) -> Any:
    """`xs.sort(key=..., reverse=...)`: the permutation a stable sort by those keys makes (the key function run on the
    items here: comparisons have no derivative), the items and their tangents moved alike (sort_fwd); None where the
    keywords are others or the list has no tangent list."""
    from .nested_plans import _api

    xs = f.__self__
    dxs = df.self_tangent if isinstance(df, MethodTangent) else NoTangent
    if set(kwargs) - {"key", "reverse"} or not isinstance(dxs, list) or len(dxs) != len(xs):
        return None
    key, reverse = kwargs.get("key"), bool(kwargs.get("reverse", False))
    by = (lambda i: xs[i]) if key is None else (lambda i: key(xs[i]))
    order = tuple(sorted(range(len(xs)), key=by, reverse=reverse))  # (stable, as list.sort, reverse=True too)
    plan = _api()._Plan(sort_fwd, (xs, dxs, order), lambda b: (MethodAdjoint(b[0]), (), ()),
                        lambda tf, targs, tdargs, tdf=NoTangent: (_self_t(tf), _self_t(tdf), NoTangent))
    plan.df_bar = lambda b: MethodAdjoint(b[1])
    plan.takes_df = True
    return plan


def is_dict_method(f: Any) -> bool:
    return isinstance(f, types.BuiltinMethodType) and type(getattr(f, "__self__", None)) in _DICTS


_DICTS = (dict, collections.defaultdict)  # (a defaultdict's tangent is a defaultdict)


def dict_method_plan(f: Any, df: Any, args: tuple, dargs: tuple) -> Any:
    """`d.items()`, `d.values()`, `d.get(k[, v])`, `d.setdefault(k, v)`, `d.pop(k[, v])`, `d.update(other)` with the dict's tangent in df (a
    MethodTangent of a dict): plain functions of nested_containers.py."""
    from .nested_plans import _api, _dense_one, _refuse

    api = _api()
    d, name = f.__self__, f.__name__
    dd = df.self_tangent if isinstance(df, MethodTangent) else NoTangent
    if not isinstance(dd, dict):
        if _symbolic_zero(dd) and all(_symbolic_zero(x) for x in api._expand(dargs, len(args))):
            # (nothing differentiated reaches the call at any order: `fields.values()` of a dataclass's class dict,
            # read by dataclasses.astuple; its tangent is zero, its value the plain call's)
            from .nested_plans import _zero_plan

            return _zero_plan(f, tuple(args))
        if api._zero(dd) and all(api._zero(x) for x in dargs):
            return None
        raise _refuse(f"the dict method .{name}() on a dict whose tangent is a {type(dd).__name__}")
    args, dargs = tuple(args), tuple(api._expand(dargs, len(args)))
    planned = dict_update_call(d, args, dd, dargs, _dense_one) if name == "update" else \
        dict_method_call(name, d, args, dd, dargs, _dense_one)
    if planned is None:
        raise _refuse(f"the dict method .{name}() of a differentiated dict inside generated code")
    fn, call, split, outer = planned
    plan = api._Plan(fn, call, split, outer)
    plan.df_bar = lambda b: MethodAdjoint(b[len(call) // 2])
    plan.takes_df = True
    return plan


def update_by_keywords(f: Any, args: Any, kwargs: Any) -> bool:
    """Is this `d.update(k=v, ...)` (keywords only), which nests as `d.update({"k": v, ...})`?"""
    return bool(kwargs) and not args and is_dict_method(f) and f.__name__ == "update"


def update_by_keywords_rrule(f: Any, df: Any, kwargs: dict, dkwargs: Any) -> tuple:
    """Reverse rule of `fcall(d.update, df, (), (), kwargs, dkwargs)`: that of the positional call, the adjoints of
    the keywords' dict given back as the keywords'."""
    from ..reverse.adjoints import AdjDict
    from .api_rules import _rev_fcall

    keys = tuple(kwargs)
    d = {k: dkwargs.get(k, NoTangent) for k in keys} if isinstance(dkwargs, dict) else NoTangent
    out, pb = _rev_fcall(f, df, (dict(kwargs),), (d,))

    def pullback(g: Any) -> tuple:
        f_bar, a_bar, d_bar, df_bar = pb(g)
        k_bar, dk_bar = tuple(a_bar)[0], tuple(d_bar)[0]
        k_bar = AdjDict({k: k_bar.get(k, NoTangent) for k in keys}) if isinstance(k_bar, dict) else NoTangent
        dk_bar = AdjDict({k: dk_bar.get(k, NoTangent) for k in keys}) if isinstance(dk_bar, dict) else NoTangent
        return f_bar, df_bar, AdjTuple(()), AdjTuple(()), k_bar, dk_bar

    return out, pullback


def _symbolic_zero(t: Any) -> bool:
    return t is NoTangent or t is None


def zip_plan(args: tuple, dargs: tuple) -> Any:
    """`zip(*xs)` of lists and tuples (in the forward code of builtin_rules.zip_tangent, differentiated at a third
    order): zip_fwd, with a symbolic zero tangent of a sequence made one zero per item; else None."""
    from .nested_plans import _dense_one, _plain_plan

    if not args or any(type(a) not in (list, tuple) for a in args):
        return None
    ds = []
    for a, d in zip(args, dargs):
        if d is NoTangent or d is None:
            d = [_dense_one(NoTangent, v) for v in a]
        if type(d) not in (list, tuple) or len(d) != len(a):
            return None
        ds.append(d)
    return _plain_plan(zip_fwd, (*args, *ds), len(args))


def _self_t(t: Any) -> Any:
    return t.self_tangent if isinstance(t, MethodTangent) else NoTangent


def _items_tangent(d: Any, ys: Any, dense: Any) -> Any:
    """The tangent of the items `ys` given to extend: one tangent per item (a list or tuple of ys's length)."""
    if d is NoTangent or d is None:
        return type(ys)(dense(NoTangent, y) for y in ys)
    return dense(d, ys)


def list_method_call(name: str, xs: Any, args: tuple, dxs: list, dargs: tuple, dense: Any) -> Any:
    """(plain function, its arguments, split, outer) for `xs.name(*args)` with tangent list dxs, or None where the
    method and its arguments are not planned here (append and pop() are nested_plans' own).  `dense(d, a)`: d made dense for a (nested_plans._dense_one)."""
    n = len(args)
    if name == "pop" and n == 1 and _index(args[0]):
        return (pop_at_fwd, (xs, args[0], dxs, NoTangent), lambda b: (MethodAdjoint(b[0]), (NoTangent,), (NoTangent,)),
                lambda tf, targs, tdargs, tdf=NoTangent: (_self_t(tf), NoTangent, _self_t(tdf), NoTangent))
    if name == "insert" and n == 2 and _index(args[0]):
        return (insert_fwd, (xs, args[0], args[1], dxs, NoTangent, dense(dargs[1], args[1])),
                lambda b: (MethodAdjoint(b[0]), (NoTangent, b[2]), (NoTangent, b[5])),
                lambda tf, targs, tdargs, tdf=NoTangent: (_self_t(tf), NoTangent, targs[1], _self_t(tdf), NoTangent,
                                                          tdargs[1]))
    if name == "extend" and n == 1 and type(args[0]) in (list, tuple):
        return (extend_fwd, (xs, args[0], dxs, _items_tangent(dargs[0], args[0], dense)),
                lambda b: (MethodAdjoint(b[0]), (b[1],), (b[3],)),
                lambda tf, targs, tdargs, tdf=NoTangent: (_self_t(tf), targs[0], _self_t(tdf), tdargs[0]))
    if name == "sort" and n == 0 and all(_number(v) for v in xs):
        # (the permutation is a constant of every order: comparisons have no derivative)
        order = tuple(sorted(range(len(xs)), key=xs.__getitem__))
        return (sort_fwd, (xs, dxs, order), lambda b: (MethodAdjoint(b[0]), (), ()),
                lambda tf, targs, tdargs, tdf=NoTangent: (_self_t(tf), _self_t(tdf), NoTangent))
    if name == "copy" and n == 0:
        return (copy_fwd, (xs, dxs), lambda b: (MethodAdjoint(b[0]), (), ()),
                lambda tf, targs, tdargs, tdf=NoTangent: (_self_t(tf), _self_t(tdf)))
    if name in ("reverse", "clear") and n == 0:
        return (reverse_fwd if name == "reverse" else clear_fwd, (xs, dxs), lambda b: (MethodAdjoint(b[0]), (), ()),
                lambda tf, targs, tdargs, tdf=NoTangent: (_self_t(tf), _self_t(tdf)))
    return None


def _keyed(fn: Any, d: Any, k: Any, dd: dict, dense: Any, rest: tuple = (), drest: tuple = ()) -> tuple:
    """The call of a plain dict function taking (d, k[, default], td, tk[, tdefault]) and its maps: the key has no
    tangent; a default's adjoint (and tangent) are its own."""
    if not rest:
        return (fn, (d, k, dd, NoTangent), lambda b: (MethodAdjoint(b[0]), (NoTangent,), (NoTangent,)),
                lambda tf, targs, tdargs, tdf=NoTangent: (_self_t(tf), NoTangent, _self_t(tdf), NoTangent))
    return (fn, (d, k, rest[0], dd, NoTangent, dense(drest[0], rest[0])),
            lambda b: (MethodAdjoint(b[0]), (NoTangent, b[2]), (NoTangent, b[5])),
            lambda tf, targs, tdargs, tdf=NoTangent: (_self_t(tf), NoTangent, targs[1], _self_t(tdf), NoTangent,
                                                      tdargs[1]))


def dict_method_call(name: str, d: dict, args: tuple, dd: dict, dargs: tuple, dense: Any) -> Any:
    """As list_method_call, for `d.name(*args)` of a dict d with tangent dict dd: items and values, get, setdefault,
    pop (a key and perhaps a default); else None (update: dict_update_call)."""
    n = len(args)
    if name == "copy" and n == 0 and type(d) is type(dd):
        return (copy_fwd, (d, dd), lambda b: (MethodAdjoint(b[0]), (), ()),
                lambda tf, targs, tdargs, tdf=NoTangent: (_self_t(tf), _self_t(tdf)))
    if name in ("items", "values") and n == 0:
        return (dict_items_fwd if name == "items" else dict_values_fwd, (d, dd), lambda b: (MethodAdjoint(b[0]), (), ()),
                lambda tf, targs, tdargs, tdf=NoTangent: (_self_t(tf), _self_t(tdf)))
    if n == 0 or not _key(args[0]):
        return None
    if name == "get" and n in (1, 2):
        return _keyed(dict_get1_fwd if n == 1 else dict_get_fwd, d, args[0], dd, dense, args[1:], dargs[1:])
    if name == "setdefault" and n == 2:
        return _keyed(dict_setdefault_fwd, d, args[0], dd, dense, args[1:], dargs[1:])
    if name == "pop" and n in (1, 2):
        return _keyed(dict_pop_fwd if n == 1 else dict_pop_default_fwd, d, args[0], dd, dense, args[1:], dargs[1:])
    return None


def dict_update_call(d: dict, args: tuple, dd: dict, dargs: tuple, dense: Any) -> Any:
    """`d.update(other)` for a dict other (its tangent a dict with other's keys), or for `zip(keys, values)` (its
    tangent the list of pairs' tangents builtin_iteration.zip_tangent made: the zip is consumed by the call only)."""
    if len(args) == 1 and type(args[0]) is zip and type(dargs[0]) is list:
        return (dict_update_pairs_fwd, (d, args[0], dd, dargs[0]), lambda b: (MethodAdjoint(b[0]), (b[1],), (b[3],)),
                lambda tf, targs, tdargs, tdf=NoTangent: (_self_t(tf), targs[0], _self_t(tdf), tdargs[0]))
    if len(args) != 1 or type(args[0]) is not dict:
        return None
    other, dother = args[0], dargs[0]
    if dother is NoTangent or dother is None:
        dother = {k: dense(NoTangent, v) for k, v in other.items()}
    elif type(dother) is not dict or set(dother) != set(other):
        return None
    return (dict_update_fwd, (d, other, dd, dother), lambda b: (MethodAdjoint(b[0]), (b[1],), (b[3],)),
            lambda tf, targs, tdargs, tdf=NoTangent: (_self_t(tf), targs[0], _self_t(tdf), tdargs[0]))


def _number(v: Any) -> bool:
    import numpy as np

    return (type(v) in (float, int) or isinstance(v, (np.floating, np.integer))) and not isinstance(v, bool)


def _key(k: Any) -> bool:
    """A key that is never differentiated: a string, an int, a bool or None."""
    return type(k) in (str, int, bool) or k is None


def _index(i: Any) -> bool:
    import numpy as np

    return (type(i) is int or isinstance(i, np.integer)) and not isinstance(i, bool)


# ---------------------------------------------------------------- namedtuple classes (typing.NamedTuple too)


def namedtuple_fwd(cls, args, dargs):
    """`cls(*args)` for a namedtuple class and its tangent, a tuple of the fields' (those left to their defaults
    constant), as python_collections.construct_forward makes it at first order."""
    y = cls(*args)
    return y, tuple(dargs) + (NoTangent,) * (len(y) - len(dargs))


def namedtuple_plan(cls: Any, args: tuple, dargs: tuple) -> Any:
    """`Params(x ** 2, x[1])` in forward code differentiated again (was refused: 'the forward derivative of Params
    comes from a hand-written rule'): namedtuple_fwd, plain Python."""
    from .nested_plans import _api, _dense_keep

    api = _api()
    n = len(args)
    return api._Plan(namedtuple_fwd, (cls, tuple(args), _dense_keep(api._expand(dargs, n), args)),
                     lambda b: (NoTangent, tuple(api._expand(b[1], n)), tuple(api._expand(b[2], n))),
                     lambda tf, targs, tdargs: (NoTangent, targs, tdargs))


def is_plain_namedtuple(f: Any) -> bool:
    """A namedtuple class (collections.namedtuple, typing.NamedTuple) with namedtuple's own __new__."""
    from .python_collections import is_namedtuple_class

    return is_namedtuple_class(f) and \
        getattr(getattr(f.__new__, "__code__", None), "co_filename", None) == "<string>"
