"""Copies (issue 12): `list.copy` / `dict.copy` called unbound (as `copy.copy` does), `copy.copy` and
`copy.deepcopy`, for the values a differentiated function holds: numbers, arrays, lists, dicts and
tuples of those, and instances of the user's plain classes (copied field by field, as `copy` does for them).

A copy is the identity on values, so its derivative is the identity too; what needs care is storage.
A shallow copy shares its items with the original: their tangents (forward) and adjoint storage
(reverse) are the originals', so only the container's own slots are copied.  A deep copy makes new
arrays and containers: new tangent storage in forward mode, and in reverse mode the adjoint each new
object collected goes to the object it was copied from -- once per object, however many times it
appears (deepcopy keeps shared items shared).  A user's object is copied by `copy` through its `__dict__`; its
fields are followed the same way (a shallow copy shares the mutable ones, so only the number fields' adjoints go
back to the original's fields).  A class that changes how it is copied (`__copy__`, `__deepcopy__`, `__reduce__`,
`__getstate__`, `__setstate__`, `__slots__`) is refused with a message rather than copied on a guess.
"""
from __future__ import annotations

import collections
import copy

import numpy as np

from ..tangents import MutableTangent, NoTangent, is_mutable
from .registry import defjvp, defrrule_at_run_time, defrule, defvjp

_LEAVES = (bool, int, float, complex, str, bytes, type(None), np.number, np.bool_)


_COPY_HOOKS = ("__copy__", "__deepcopy__", "__reduce__", "__reduce_ex__", "__getstate__", "__setstate__")


def _plain_instance(x):
    """An instance of a user's class that `copy` copies through its `__dict__`, with no hook of the class's own."""
    from ..forward.objects import is_user_object

    tp = type(x)
    if not is_user_object(x) or not isinstance(getattr(x, "__dict__", None), dict) or "__slots__" in vars(tp):
        return False
    return not any(name in vars(klass) for klass in tp.__mro__ if klass is not object for name in _COPY_HOOKS)


def _refuse(name, x):
    raise NotImplementedError(f"derivative of {name} of a {type(x).__name__}: only numbers, arrays, lists, dicts "
                              f"and tuples are copied with their derivatives (copy the fields yourself)")


def _check(name, x, seen=None):
    """Refuse, before anything runs, a value holding something this module does not copy."""
    seen = set() if seen is None else seen
    if id(x) in seen or isinstance(x, (_LEAVES, np.ndarray)):
        return
    seen.add(id(x))
    if isinstance(x, (list, tuple)):
        for v in x:
            _check(name, v, seen)
    elif isinstance(x, dict):
        for v in x.values():
            _check(name, v, seen)
    elif _plain_instance(x):
        for v in vars(x).values():
            _check(name, v, seen)
    else:
        _refuse(name, x)


def _item_tangents(x, dx):
    if dx is NoTangent or dx is None:
        return [NoTangent] * len(x)
    return list(dx)


# ------------------------------------------------------------------ list.copy, dict.copy (unbound)
def _shallow_tangent(x, dx):
    """The tangent of copy.copy(x): the container's slots copied, the items' tangents shared."""
    if isinstance(x, np.ndarray):
        if x.dtype.kind not in "fc":
            return NoTangent
        return np.zeros_like(x) if dx is NoTangent or dx is None else np.array(dx, dtype=x.dtype, copy=True)
    if isinstance(x, list):
        return list(_item_tangents(x, dx))
    if isinstance(x, collections.deque):
        return collections.deque(_item_tangents(x, dx), x.maxlen)
    if isinstance(x, dict):
        return {k: (NoTangent if dx is NoTangent or dx is None else dx.get(k, NoTangent)) for k in x}
    if _plain_instance(x):  # (the fields' tangents: a mutable field is the original's own object)
        return MutableTangent(dict(dx.fields) if isinstance(dx, MutableTangent) else {})
    return dx  # numbers, tuples, strings: copy.copy returns x itself


defjvp(list.copy, lambda t, y, l: t.call(list, t.d(l)) if t.d(l) is not None else None)
defvjp(list.copy, lambda t, g, y, l: (g,))
defjvp(dict.copy, lambda t, y, d: t.call(dict, t.d(d)) if t.d(d) is not None else None)
defvjp(dict.copy, lambda t, g, y, d: (g,))


# ------------------------------------------------------------------ copy.copy
_SHALLOW = (_LEAVES, np.ndarray, list, dict, tuple, collections.deque)


def frule_copy(args, dargs, **kwargs):
    (x,), (dx,) = args, dargs
    if not isinstance(x, _SHALLOW) and not _plain_instance(x):
        _refuse("copy.copy", x)
    return copy.copy(x), _shallow_tangent(x, dx)


def rrule_copy(x):
    """A shallow copy's adjoint is the copy's: its items are the original's (their storage is shared);
    an array's copy is new storage, whose adjoint goes to the original."""
    plain = _plain_instance(x)
    if not isinstance(x, _SHALLOW) and not plain:
        _refuse("copy.copy", x)
    y = copy.copy(x)

    def pullback(g):
        if isinstance(x, np.ndarray) and x.dtype.kind not in "fc":
            return (NoTangent,)
        return (_fields_back(x, y, g),) if plain else (g,)

    return y, pullback


def _fields_back(x, y, g):
    """x's adjoint from that of its shallow copy y: the number fields' adjoints go to x's fields (a mutable field
    is x's own object, whose storage has its adjoint already)."""
    from ..reverse import shadows

    if g is not NoTangent and g is not None:
        shadows.add_into(y, g)  # (a no-op when g is y's storage itself)
    sh = shadows.shadow(y)
    parts = {k: v for k, v in sh.fields.items() if not is_mutable(getattr(y, k, None))}
    shadows.add_into(x, MutableTangent(parts))
    return NoTangent  # (in x's storage)


# ------------------------------------------------------------------ copy.deepcopy
def _deep_tangent(x, y, dx, memo):
    """The tangent of y = deepcopy(x): new storage for every new array and container (shared once)."""
    if isinstance(x, _LEAVES):
        return dx
    if id(x) in memo:
        return memo[id(x)]
    if isinstance(x, np.ndarray):
        out = _shallow_tangent(x, dx)
    elif isinstance(x, list):
        out = []
        memo[id(x)] = out  # (a list holding itself)
        out.extend(_deep_tangent(xi, yi, di, memo) for xi, yi, di in zip(x, y, _item_tangents(x, dx)))
    elif isinstance(x, dict):
        out = {}
        memo[id(x)] = out
        for k in x:
            out[k] = _deep_tangent(x[k], y[k], NoTangent if dx is NoTangent or dx is None else dx.get(k, NoTangent), memo)
    elif isinstance(x, tuple):
        parts = [_deep_tangent(xi, yi, di, memo) for xi, yi, di in zip(x, y, _item_tangents(x, dx))]
        out = NoTangent if all(p is NoTangent for p in parts) else tuple(parts)
    elif _plain_instance(x):
        out = MutableTangent({})
        memo[id(x)] = out
        fields = dx.fields if isinstance(dx, MutableTangent) else {}
        for k, xv in vars(x).items():
            out.fields[k] = _deep_tangent(xv, vars(y)[k], fields.get(k, NoTangent), memo)
    else:
        _refuse("copy.deepcopy", x)
    memo[id(x)] = out
    return out


def frule_deepcopy(args, dargs, **kwargs):
    if len(args) != 1 or kwargs:
        raise NotImplementedError("derivative of copy.deepcopy with a memo argument")
    x, dx = args[0], dargs[0]
    _check("copy.deepcopy", x)
    y = copy.deepcopy(x)
    return y, _deep_tangent(x, y, dx, {})


def _route_back(x, y, g, seen):
    """The adjoint of x from that of its deep copy y: each new mutable object's storage is added into
    the storage of the object it copies (once: `seen`); what remains is x's value adjoint."""
    from ..reverse import shadows

    if isinstance(x, _LEAVES):
        return g
    if is_mutable(x):
        if id(x) not in seen:
            seen.add(id(x))
            if isinstance(x, np.ndarray):
                shadows.add_into(x, shadows.shadow(y))
            elif isinstance(x, list):
                sh = shadows.shadow(y)
                parts = [_route_back(xi, yi, sh[i] if not is_mutable(yi) else NoTangent, seen)
                         for i, (xi, yi) in enumerate(zip(x, y))]
                from ..reverse.adjoints import AdjList

                shadows.add_into(x, AdjList(parts))
            elif isinstance(x, dict):
                sh = shadows.shadow(y)
                parts = {k: _route_back(x[k], y[k], sh.get(k, NoTangent) if not is_mutable(y[k]) else NoTangent, seen)
                         for k in x}
                from ..reverse.adjoints import AdjDict

                shadows.add_into(x, AdjDict(parts))
            elif _plain_instance(x):
                sh = shadows.shadow(y)
                parts = {k: _route_back(xv, vars(y)[k], sh.fields.get(k, NoTangent) if not is_mutable(vars(y)[k])
                                        else NoTangent, seen) for k, xv in vars(x).items()}
                shadows.add_into(x, MutableTangent(parts))
        return NoTangent  # in x's storage now
    if isinstance(x, tuple):
        from ..reverse.adjoints import AdjTuple

        parts = g if isinstance(g, (tuple, list)) else [NoTangent] * len(x)
        out = [_route_back(xi, yi, gi, seen) for xi, yi, gi in zip(x, y, parts)]
        return NoTangent if all(o is NoTangent for o in out) else AdjTuple(out)
    return g


def rrule_deepcopy(*args, **kwargs):
    if len(args) != 1 or kwargs:
        raise NotImplementedError("reverse mode of copy.deepcopy with a memo argument")
    x = args[0]
    _check("copy.deepcopy", x)
    y = copy.deepcopy(x)

    def pullback(g):
        from ..reverse import shadows

        if is_mutable(y) and g is not NoTangent and g is not None:
            shadows.add_into(y, g)  # (a no-op when g is y's storage itself)
        return (_route_back(x, y, g, set()),)

    return y, pullback


defrule(copy.copy, frule_copy)
defrrule_at_run_time(copy.copy, rrule_copy)
defrule(copy.deepcopy, frule_deepcopy)
defrrule_at_run_time(copy.deepcopy, rrule_deepcopy)
