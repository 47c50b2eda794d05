"""Reverse mode of the methods that change lists, dicts and arrays in place.

Each method runs in the forward pass as Python runs it; its pullback puts the container
back as it was before the call and moves the adjoint slots with the items: a slot
follows its item to where the item was (`sort`, `reverse`, `remove`), goes to the
argument the item came from (`append`, `insert`, `update`, `setdefault`), or comes back
from the method's result (`pop`).  A mutable item's slot is its own storage, shared with
every other name of the item, so only slots of immutable items (numbers, tuples) move.

The list's (dict's) storage is only created in the pullback, where every undo keeps it in
step with the container.
"""
from __future__ import annotations

import collections

from typing import Any, Callable

import numpy as np

from ..tangents import NoTangent, is_mutable
from . import shadows
from .adjoints import AdjDict, AdjList, AdjTuple, MethodAdjoint, accumulate

# A new position's origin: ("old", i) an item that was at position i; ("arg", k) argument k;
# ("argitem", k, j) item j of argument k; ("kw", name) a keyword argument.


_NONE = object()  # "no key's slot receives the result's adjoint"


def _slot_value(item: Any, slot: Any) -> Any:
    return NoTangent if is_mutable(item) or slot is None else slot


def route_slots(seq: Any, before: list, after: list, origins: list, args: tuple) -> tuple:
    """Undo a sequence method's moves of adjoint slots: (seq's storage, the slots of its items before the call,
    the arguments' adjoints).  `origins[j]` says where position j after the call came from: ("old", i) position i
    before it, ("arg", k) argument k, ("argitem", k, j) item j of argument k (lists and deques alike)."""
    shadows.remember(seq)
    sh = shadows.shadow(seq)
    slots = list(sh)
    old_slots = [shadows.shadow(v) if is_mutable(v) else NoTangent for v in before]
    bars: list = [NoTangent] * len(args)
    item_bars: dict = {}
    for j, origin in enumerate(origins):
        slot = _slot_value(after[j], slots[j] if j < len(slots) else NoTangent)
        if slot is NoTangent:
            continue
        if origin[0] == "old":
            old_slots[origin[1]] = accumulate(old_slots[origin[1]], slot)
        elif origin[0] == "arg":
            bars[origin[1]] = accumulate(bars[origin[1]], slot)
        else:
            item_bars[origin[2]] = slot
    if item_bars:
        src = args[0]
        parts = [item_bars.get(j, NoTangent) for j in range(len(src))]
        bars[0] = AdjTuple(parts) if isinstance(src, tuple) else AdjList(parts)
    return sh, old_slots, bars


def _result(bars: list, kwbars: dict | None = None) -> tuple:
    return MethodAdjoint(NoTangent), AdjTuple(bars), AdjDict(kwbars or {})


# ---------------------------------------------------------------- lists


def _list_method(f: Any, args: tuple, kwargs: dict) -> tuple:
    lst, name = f.__self__, f.__name__
    before = list(lst)
    n = len(before)
    origins: list = []
    removed_to_result: int | None = None
    args = tuple(args)
    if name == "append":
        y = lst.append(*args)
        origins = [("old", i) for i in range(n)] + [("arg", 0)]
    elif name == "extend":
        items = list(args[0])  # an iterator is consumed once, here
        y = lst.extend(items)
        origins = [("old", i) for i in range(n)] + [("argitem", 0, j) for j in range(len(items))]
        args = (items,) if not isinstance(args[0], (list, tuple, np.ndarray)) else args
    elif name == "insert":
        raw = args[0]
        at = max(0, min(raw if raw >= 0 else raw + n, n))
        y = lst.insert(*args)
        origins = [("old", i) for i in range(at)] + [("arg", 1)] + [("old", i) for i in range(at, n)]
    elif name == "pop":
        raw = args[0] if args else -1
        at = raw if raw >= 0 else raw + n
        y = lst.pop(*args)  # raises IndexError as Python does
        origins = [("old", i) for i in range(n) if i != at]
        removed_to_result = at
    elif name == "remove":
        at = before.index(args[0])  # raises ValueError as Python does
        y = lst.remove(*args)
        origins = [("old", i) for i in range(n) if i != at]
    elif name == "sort":
        order = _sort_order(before, kwargs)
        lst[:] = [before[i] for i in order]
        y = None
        origins = [("old", i) for i in order]
    elif name == "reverse":
        y = lst.reverse()
        origins = [("old", i) for i in reversed(range(n))]
    elif name == "clear":
        y = lst.clear()
        origins = []
    else:  # pragma: no cover - dispatch only sends the names above
        raise AssertionError(name)
    after = list(lst)

    def pullback(g: Any) -> tuple:
        sh, old_slots, bars = route_slots(lst, before, after, origins, args)
        if removed_to_result is not None and not is_mutable(y):
            old_slots[removed_to_result] = accumulate(old_slots[removed_to_result], NoTangent if g is None else g)
        lst[:] = before
        sh[:] = old_slots
        return _result(bars)

    return y, pullback


def _sort_order(items: list, kwargs: dict) -> list:
    from ..rules.containers import sort_order

    return sort_order(items, kwargs.get("key"), kwargs.get("reverse", False))


# ---------------------------------------------------------------- dicts


def _dict_method(f: Any, args: tuple, kwargs: dict) -> tuple:
    d, name = f.__self__, f.__name__
    before = dict(d)
    args = tuple(args)
    writes: dict = {}  # key -> where its new value came from (the last write wins)
    to_result: Any = _NONE
    default_to: Any = None
    if name == "update":
        if args:
            other = args[0]
            if hasattr(other, "keys"):
                for k in other.keys():
                    writes[k] = ("argkey", k)
            else:
                pairs = [tuple(p) for p in other]
                args = (pairs,)
                for j, (k, _) in enumerate(pairs):
                    writes[k] = ("argpair", j)
        for k in kwargs:
            writes[k] = ("kw", k)
        y = d.update(*args, **kwargs)
    elif name == "setdefault":
        k = args[0]
        if k not in d:
            writes[k] = ("arg", 1) if len(args) > 1 else ("none",)
        y = d.setdefault(*args)
        to_result = k
    elif name == "pop":
        k = args[0]
        if k not in d and len(args) > 1:
            default_to = 1
        y = d.pop(*args)  # raises KeyError as Python does
        to_result = k if k in before else _NONE
    elif name == "popitem":
        y = d.popitem()
        to_result = ("item", y[0])
    elif name == "move_to_end":  # (OrderedDict: the order changes, no value does; undone by restoring `before`)
        y = d.move_to_end(*args, **kwargs)
    elif name == "clear":
        y = d.clear()
    else:  # pragma: no cover
        raise AssertionError(name)

    def pullback(g: Any) -> tuple:
        shadows.remember(d)
        sh = shadows.shadow(d)
        bars: list = [NoTangent] * len(args)
        kwbars: dict = {}
        src_parts: dict = {}
        for k, origin in writes.items():
            slot = _slot_value(d.get(k), sh.get(k, NoTangent)) if k in d else NoTangent
            if slot is NoTangent:
                continue
            if origin[0] == "argkey":
                src_parts[k] = slot
            elif origin[0] == "argpair":
                src_parts[origin[1]] = slot
            elif origin[0] == "kw":
                kwbars[k] = slot
            elif origin[0] == "arg":
                bars[origin[1]] = accumulate(bars[origin[1]], slot)
        if src_parts:
            if not hasattr(args[0], "keys"):
                pairs = args[0]
                bars[0] = AdjList(AdjTuple((NoTangent, src_parts.get(j, NoTangent))) for j in range(len(pairs)))
            else:
                bars[0] = AdjDict(src_parts)
        gk = NoTangent if g is None else g
        old_slots: dict = {}
        for k, v in before.items():
            if is_mutable(v):
                old_slots[k] = shadows.shadow(v)
            elif k in writes or k not in d:
                old_slots[k] = NoTangent
            else:
                old_slots[k] = sh.get(k, NoTangent)
        if to_result is not _NONE and gk is not NoTangent:
            if isinstance(to_result, tuple) and to_result and to_result[0] == "item":
                k = to_result[1]
                part = gk[1] if isinstance(gk, (tuple, list)) and len(gk) > 1 else NoTangent
                if not is_mutable(before.get(k)):
                    old_slots[k] = accumulate(old_slots[k], part)
            elif name == "setdefault" and to_result not in before:
                if not is_mutable(y):
                    bars[1] = accumulate(bars[1], gk) if len(args) > 1 else bars[1]
            elif to_result in before and not is_mutable(before[to_result]):
                old_slots[to_result] = accumulate(old_slots[to_result], gk)
        if default_to is not None and not is_mutable(y):
            bars[default_to] = accumulate(bars[default_to], gk)
        d.clear()
        d.update(before)
        sh.clear()
        sh.update(old_slots)
        return _result(bars, kwbars)

    return y, pullback



# ---------------------------------------------------------------- arrays


def _ndarray_method(f: Any, args: tuple, kwargs: dict) -> tuple:
    a, name = f.__self__, f.__name__
    old = a.copy()
    if name == "sort":
        axis = args[0] if args else kwargs.get("axis", -1)
        idx = np.argsort(a, axis=axis, kind="stable")
        a[...] = np.take_along_axis(old, idx, axis=axis)
        y = None
    elif name == "partition":  # (a permutation along axis, as sort's: rules/numpy_extra._partition_perm)
        from ..rules.numpy_extra import _partition_perm

        y = f(*args, **kwargs)
        axis = args[1] if len(args) > 1 else kwargs.get("axis", -1)
        idx, axis = _partition_perm(old, a, axis)
    else:  # fill
        y = a.fill(*args, **kwargs)
        idx = None

    def pullback(g: Any) -> tuple:
        shadows.remember(a)
        sh = shadows.shadow(a)
        bars: list = [NoTangent] * len(args)
        if name in ("sort", "partition"):
            back = np.zeros_like(sh)
            np.put_along_axis(back, idx, sh, axis=axis)
            sh[...] = back
        else:
            v = args[0] if args else kwargs.get("value")
            if isinstance(v, (float, np.floating)) and not isinstance(v, bool):
                bars[0] = float(np.sum(sh))
            sh[...] = 0
        a[...] = old
        return _result(bars)

    return y, pullback


_LIST_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "sort", "reverse", "clear"})
_DICT_METHODS = frozenset({"update", "setdefault", "pop", "popitem", "clear", "move_to_end"})
_DICTS = (dict, collections.OrderedDict, collections.defaultdict)  # (not Counter: its update adds counts)
_ARRAY_METHODS = frozenset({"sort", "partition", "fill"})


def container_method_reverse(f: Any) -> Callable | None:
    """The run-time reverse of a bound container method that changes its container, if it is one."""
    owner = getattr(f, "__self__", None)
    name = getattr(f, "__name__", None)
    if type(owner) is list and name in _LIST_METHODS:
        return _list_method
    if type(owner) in _DICTS and name in _DICT_METHODS:
        return _dict_method
    if isinstance(owner, np.ndarray) and name in _ARRAY_METHODS and owner.dtype.kind == "f":
        return _ndarray_method
    return None
