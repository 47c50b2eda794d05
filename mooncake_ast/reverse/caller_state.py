"""The caller's view of mutable objects: what the caller can reach, and each object's state one level deep.

The pullback rolls every object it undoes a write to back to its value on entry; afterwards the API (and
nested gradients, held state, standalone modules) puts back the post-call state the plain call leaves.
Collecting what is reachable, taking an object's own state and putting it back is a concept of its own,
kept apart from the adjoint storage in shadows.py, which uses it (`remember`, `put_back`).
"""
from __future__ import annotations

import collections
import functools
import types
from typing import Any

import numpy as np

from ..tangents import declared_slots, fields_of, slot_names

_MISSING = object()


_OPAQUE = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.ModuleType, type, np.ufunc)


def reachable_mutables(roots: tuple) -> list:
    """Every mutable object the caller can reach from `roots` (through tuples, lists, dicts, fields)."""
    out: list = []
    seen: set = set()
    stack = list(reversed(roots))
    while stack:
        x = stack.pop()
        if isinstance(x, (float, int, str, bytes, type(None), complex, np.generic)) or isinstance(x, _OPAQUE):
            continue
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, np.ndarray):
            out.append(x)
        elif isinstance(x, tuple):
            stack.extend(reversed(x))
        elif isinstance(x, (list, collections.deque)):
            out.append(x)
            stack.extend(reversed(x))
        elif isinstance(x, dict):
            out.append(x)
            stack.extend(reversed(list(x.values())))
        elif isinstance(getattr(x, "__dict__", None), dict) and not isinstance(x, functools.partial):
            out.append(x)  # objects, callable ones too
            stack.extend(reversed(list(vars(x).values())))
    return out


def snapshot(roots: tuple) -> list:
    """The post-call state of everything the caller can reach, shallowly per object (so re-applying it
    restores both which objects a container holds and what each of them holds: a returned `(0.0, u)`
    gets `u` back as returned, and a list keeps holding the user's own arrays)."""
    return [(x, state_of(x)) for x in reachable_mutables(roots)]


def reapply(snaps: list) -> None:
    """Put back the post-call state (the pullback rolls objects back to their values on entry)."""
    for x, s in snaps:
        put_state(x, s)


def state_of(x: Any) -> Any:
    """x's own state, one level deep: an array's values, a container's items, an object's fields."""
    if isinstance(x, np.ndarray):
        return x.copy()
    if isinstance(x, (list, collections.deque)):
        return list(x)
    if isinstance(x, dict):
        return dict(x)
    if isinstance(x, set):
        return set(x)
    if isinstance(x, types.CellType):
        try:
            return x.cell_contents
        except ValueError:
            return _MISSING
    if isinstance(x, type):
        return dict(vars(x))
    if hasattr(x, "__dict__") or slot_names(x):
        return fields_of(x)
    return _NO_STATE  # (a bytearray, ...: left as the pullback leaves it)


_NO_STATE = object()


def put_state(x: Any, s: Any) -> None:
    if isinstance(x, np.ndarray):
        if x.shape != s.shape and x.size == s.size:
            x.shape = s.shape  # (`a.shape = ...` in the call, undone by the pullback)
        if x.flags.writeable:
            x[...] = s
    elif isinstance(x, list):
        x[:] = s
    elif isinstance(x, collections.deque):
        x.clear()
        x.extend(s)
    elif isinstance(x, (dict, set)):
        x.clear()
        x.update(s)
    elif isinstance(x, types.CellType):
        if s is _MISSING:
            try:
                del x.cell_contents
            except ValueError:
                pass
        else:
            x.cell_contents = s
    elif isinstance(x, type):
        now = vars(x)
        for k, v in s.items():
            if now.get(k, _MISSING) is not v:
                setattr(x, k, v)
        for k in [k for k in now if k not in s]:
            delattr(x, k)
    elif s is not _NO_STATE:
        declared = declared_slots(x)
        d = getattr(x, "__dict__", None)
        if isinstance(d, dict):
            d.clear()
            d.update({k: v for k, v in s.items() if k not in declared})
        for name in declared:
            if name in s:
                object.__setattr__(x, name, s[name])
            elif hasattr(x, name):
                object.__delattr__(x, name)
