"""`collections.deque` made and changed inside differentiated code (issue 12): forward mode.

A deque's tangent is a deque of its items' tangents with the same `maxlen`, changed by the same method
call as the primal one (the templates run just before it), so appends that push items out of a
bounded deque, rotations and pops move tangents exactly as they move items.  Items are stored as
list items are (`builtin_rules.stored`: a mutable item's tangent is its own storage).

Reverse mode needs adjoint storage for deques, which the reverse pass (reverse/shadows.py) does not have
yet, and a read of an item (`d[0]`) does not route an adjoint back into a deque: so reverse mode refuses a
deque made of values with derivatives, and has no rule for the methods that put values in (append,
appendleft, extend, extendleft, insert, d[i] = v) -- the run-time dispatch of one stops with "no
reverse rule".  A queue of indices in the differentiated function itself still works (those calls carry
no derivative and are not dispatched); the methods that take nothing in check that no adjoint passes.
An iterator given to deque(), extend or extendleft is refused in forward mode when its length would
have to be known before the call consumes it (pass a list).
"""
from __future__ import annotations

import collections

from ..tangents import NoTangent
from .builtin_rules import iter_tangents, stored
from .registry import _entry, _fingerprint, defjvp, defmethod, defvjp, defzero

_SEQUENCES = (list, tuple, range, collections.deque, str)


def _items(it, dit, what):
    """The tangents of the items of `it` (NoTangent for each when `dit` is zero)."""
    try:
        import numpy as np

        sequence = isinstance(it, _SEQUENCES + (np.ndarray,))
    except ImportError:  # pragma: no cover
        sequence = isinstance(it, _SEQUENCES)
    if not sequence:
        raise NotImplementedError(f"forward mode of {what} of an iterator: pass a list (its length must be known first)")
    if dit is NoTangent or dit is None:
        return [NoTangent] * len(it)
    return list(iter_tangents(it, dit))


def deque_tangent(it, dit, maxlen):
    return collections.deque(_items(it, dit, "collections.deque") if it is not None else (), maxlen)


def _deque_jvp(t, y, iterable=None, maxlen=None):
    return t.call(deque_tangent, iterable, NoTangent if iterable is None else t.dz(iterable), maxlen)


def extend_tangent(dd, it, dit, left):
    items = _items(it, dit, "deque.extendleft" if left else "deque.extend")
    (dd.extendleft if left else dd.extend)(items)


def remove_tangent(d, dd, value):
    del dd[list(d).index(value)]  # (before the primal call: Python's first equal item)


def insert_tangent(dd, i, dx):
    dd.insert(i, dx)


def setitem_tangent(dd, i, dx):
    dd[i] = dx


def _live(t, d):
    return t.d(d) is not None


_M = collections.deque
defjvp(collections.deque, _deque_jvp)
defmethod(_M, "append", lambda t, y, d, x: t.call(_M.append, t.d(d), stored(t, x)) if _live(t, d) else None, mutates=(0,))
defmethod(_M, "appendleft", lambda t, y, d, x: t.call(_M.appendleft, t.d(d), stored(t, x)) if _live(t, d) else None, mutates=(0,))
defmethod(_M, "extend", lambda t, y, d, it: t.call(extend_tangent, t.d(d), it, t.dz(it), False) if _live(t, d) else None, mutates=(0,))
defmethod(_M, "extendleft", lambda t, y, d, it: t.call(extend_tangent, t.d(d), it, t.dz(it), True) if _live(t, d) else None, mutates=(0,))
defmethod(_M, "pop", lambda t, y, d: t.call(_M.pop, t.d(d)) if _live(t, d) else None, mutates=(0,))
defmethod(_M, "popleft", lambda t, y, d: t.call(_M.popleft, t.d(d)) if _live(t, d) else None, mutates=(0,))
defmethod(_M, "rotate", lambda t, y, d, n=1: t.call(_M.rotate, t.d(d), n) if _live(t, d) else None, mutates=(0,))
defmethod(_M, "reverse", lambda t, y, d: t.call(_M.reverse, t.d(d)) if _live(t, d) else None, mutates=(0,))
defmethod(_M, "clear", lambda t, y, d: t.call(_M.clear, t.d(d)) if _live(t, d) else None, mutates=(0,))
defmethod(_M, "insert", lambda t, y, d, i, x: t.call(insert_tangent, t.d(d), i, t.dz(x)) if _live(t, d) else None, mutates=(0,))
defmethod(_M, "remove", lambda t, y, d, v: t.call(remove_tangent, d, t.d(d), v) if _live(t, d) else None, mutates=(0,))
defmethod(_M, "copy", lambda t, y, d: t.call(_M.copy, t.d(d)) if _live(t, d) else None)
defmethod(_M, "__getitem__", lambda t, y, d, i: t.call(_M.__getitem__, t.d(d), i) if _live(t, d) else None)
defmethod(_M, "__setitem__", lambda t, y, d, i, x: t.call(setitem_tangent, t.d(d), i, t.dz(x)) if _live(t, d) else None, mutates=(0,))
defzero(*[(_M, name) for name in ("index", "count", "__len__", "__contains__")])


_REVERSE_MESSAGE = ("reverse mode of collections.deque holding differentiated values is not supported yet (its "
                    "adjoint storage is not written): use a list in code differentiated in reverse mode, or forward "
                    "mode (mc.jvp)")


def _nondiff(v) -> bool:
    from ..reverse.runtime import _nondifferentiable

    return _nondifferentiable(v)


def _zero(g) -> bool:
    if g is NoTangent or g is None:
        return True
    try:
        return not bool(g != 0) if isinstance(g, (int, float, complex)) else False
    except (TypeError, ValueError):  # pragma: no cover
        return False


def check_no_adjoint(g, *values):
    """The pullback of a deque method: nothing to do when no derivative passes through (a queue of indices),
    otherwise a refusal (never a dropped adjoint)."""
    if not _zero(g) or not all(_nondiff(v) for v in values):
        raise NotImplementedError(_REVERSE_MESSAGE)


def _method_vjp(t, g, y, d, *args):
    from .numpy_common import _keep

    needs = getattr(t, "needs", None)
    live = [a for a in args if needs is None or needs(a)]
    _keep(t.call(check_no_adjoint, g, *live))
    return (None,) * (1 + len(args))


def rrule_deque(*args, **kwargs):
    """deque(iterable, maxlen) of values without derivatives (checked now: reading an item back in reverse mode
    would not return its adjoint to the deque, so a differentiated item could not be followed)."""
    items = list(args[0]) if args and args[0] is not None else []
    if not all(_nondiff(v) for v in items):
        raise NotImplementedError(_REVERSE_MESSAGE)
    y = collections.deque(items, *args[1:], **kwargs)

    def pullback(g):
        # An adjoint reaching the deque itself (a read of an item, list(d), iteration) means a derivative
        # passed through values it held: refused, since appends did not keep a way back to their values.
        if not _all_zero(g):
            raise NotImplementedError(_REVERSE_MESSAGE)
        return (NoTangent,) * len(args)

    return y, pullback


def _all_zero(g) -> bool:
    if isinstance(g, (list, tuple, collections.deque)):
        return all(_all_zero(v) for v in g)
    if isinstance(g, dict):
        return all(_all_zero(v) for v in g.values())
    if g is NoTangent or g is None:
        return True
    try:
        import numpy as np

        return not np.any(g)
    except (TypeError, ValueError):
        return False


_r = _entry(collections.deque)
_r.user_rrule = rrule_deque
_r.fingerprint = _fingerprint(_r.jvp_template, rrule_deque)
# Methods that take no value in: a reverse template that checks that no derivative passes (a queue of indices
# works).  Methods that put values in (append, extend, insert, d[i] = v) have no reverse rule: when
# reverse mode dispatches one at run time it stops with "no reverse rule" -- they run before anything could
# check their values, and an item read back later would not return its adjoint.
for _name in ("pop", "popleft", "rotate", "reverse", "clear", "remove", "copy", "__getitem__"):
    defvjp((_M, _name), _method_vjp)
