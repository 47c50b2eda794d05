"""`collections.deque` made and changed inside differentiated code (issue 12).

Forward mode: a deque's tangent is a deque of its items' tangents with the same `maxlen`, changed by the
same method call as the primal one (just before it), so appends that push items out of a bounded deque,
rotations and pops move tangents exactly as they move items.  Items are kept as list items are (a
mutable item's tangent is its own storage).

Reverse mode (python_deque_reverse.py): a deque's adjoint is storage with a slot per position, as a list's,
and each method's pullback moves the slots back with the items.

The methods are bound methods of a builtin type, so they reach these rules through
python_callables.call_rule (which hands over the bound method, hence the deque itself) rather than the
registry; the constructor and the methods with no derivative (count, index, len, in) are registered.
An iterator given to deque(), extend or extendleft is refused in forward mode when its length would
have to be known before the call consumes it (pass a list).
"""
from __future__ import annotations

import collections

import numpy as np

from ..tangents import MethodTangent, NoTangent
from .python_deque_reverse import call_method_reverse, rrule_deque
from .fingerprints import _fingerprint
from .registry import _entry, defjvp, defzero

_SEQUENCES = (list, tuple, range, collections.deque, str, np.ndarray)


def _items(it, dit, what):
    """The tangents of the items of `it` (NoTangent for each when `dit` is zero)."""
    from .builtin_iteration import iter_tangents

    if not isinstance(it, _SEQUENCES):
        raise NotImplementedError(f"forward mode of {what} of an iterator: pass a list (its length must be known first)")
    if dit is NoTangent or dit is None:
        return [NoTangent] * len(it)
    return list(iter_tangents(it, dit))


# ------------------------------------------------------------------ construction
def deque_tangent(it, dit, maxlen):
    return collections.deque(_items(it, dit, "collections.deque") if it is not None else (), maxlen)


def _deque_jvp(t, y, iterable=None, maxlen=None):
    return t.call(deque_tangent, iterable, NoTangent if iterable is None else t.dz(iterable), maxlen)


def _zero(g) -> bool:
    if isinstance(g, (list, tuple, collections.deque)):
        return all(_zero(v) for v in g)
    if g is NoTangent or g is None:
        return True
    try:
        return not np.any(g)
    except (TypeError, ValueError):  # pragma: no cover
        return False


# ------------------------------------------------------------------ methods (bound: through call_rule)
def _tangent_step(name, d, dd, args, dargs):
    """Apply the method to the tangent deque dd, before the primal call; the result's tangent (or NoTangent)."""
    da = list(dargs) + [NoTangent] * (len(args) - len(dargs))
    if name in ("append", "appendleft"):
        getattr(dd, name)(_stored(args[0], da[0]))
    elif name in ("extend", "extendleft"):
        getattr(dd, name)(_items(args[0], da[0], f"deque.{name}"))
    elif name == "insert":
        dd.insert(args[0], _stored(args[1], da[1]))
    elif name == "remove":
        del dd[list(d).index(args[0])]  # (Python's first equal item, found before the primal call)
    elif name == "__setitem__":
        dd[args[0]] = _stored(args[1], da[1])
    elif name in ("pop", "popleft", "__getitem__"):
        return getattr(dd, name)(*args)
    elif name == "copy":
        return dd.copy()
    elif name in ("rotate", "reverse", "clear"):
        getattr(dd, name)(*args)
    elif name in ("index", "count", "__len__", "__contains__", "__iter__", "__reversed__"):
        return NoTangent
    else:
        raise NotImplementedError(f"forward mode of collections.deque.{name}: no rule")
    return NoTangent


def _stored(x, dx):
    from ..tangents import storage

    return dx if isinstance(x, (float, int, complex, np.number)) or dx is NoTangent else storage(x, dx)


def call_method_forward(f, df, args, dargs, kwargs, dkwargs):
    """A bound deque method: the same call on the tangent deque, then the primal call."""
    if kwargs:
        raise NotImplementedError(f"forward mode of collections.deque.{f.__name__} with keyword arguments")
    d, name = f.__self__, f.__name__
    dd = df.self_tangent if isinstance(df, MethodTangent) else NoTangent
    if not isinstance(dd, collections.deque):
        if not all(_zero(x) for x in dargs):
            raise NotImplementedError(f"forward mode of collections.deque.{name}: this deque has no tangent storage "
                                      f"(make it inside the differentiated function)")
        return f(*args), NoTangent
    dy = _tangent_step(name, d, dd, args, dargs)
    return f(*args), dy


def call_rule(f):
    """(forward, reverse) rules of a bound method of a deque, or None (python_callables.call_rule asks)."""
    if isinstance(getattr(f, "__self__", None), collections.deque) and callable(f):
        return call_method_forward, call_method_reverse
    return None


# ------------------------------------------------------------------ registration
_M = collections.deque
defjvp(collections.deque, _deque_jvp)
_r = _entry(collections.deque)
_r.user_rrule = rrule_deque
_r.fingerprint = _fingerprint(_r.jvp_template, rrule_deque)
defzero(*[(_M, name) for name in ("index", "count", "__len__", "__contains__")])
