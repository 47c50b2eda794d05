"""Iterating a user object (a class with `__iter__`), for derivatives of derivatives.

Forward code reads what a `for` loop (or `sum`, `max`, `list`, ...: forward/object_iteration.py) iterates with
`_mc.fcall(_mc.sequence, NoTangent, (b,), (db,))`; on a user object, forward/objects.py runs the object's
`__iter__` through the dispatcher and collects the items the iterator yields.  Differentiated again, that call is
one call of the plain functions below, which do the same with dispatched calls (`fcall`), whose own rules nest:
`__iter__`'s forward code, then the items of the iterator it returned -- a builtin iterator read whole
(`iter(self.vals)`), or the user's `__next__` called until it raises StopIteration (`__iter__` returning self).

StopIteration ends the loop in `stop_fcall` (nested_guarded.py), a primitive with rules of its own: forward and
reverse mode over one `fcall(step, ...)`, None once the step raised.  As at first order (objects._reverse_iteration),
a `__next__` that changes its object before it raises StopIteration has that change kept and not differentiated; it
is the pattern's last call, which yields nothing.
"""
from __future__ import annotations

import sys
import weakref
from typing import Any, Optional

from .. import ops
from ..forward import objects as _objects
from ..forward.runtime import fcall
from .nested_guarded import stop_fcall
from ..tangents import NoTangent


def next_method(it: Any) -> Any:
    """The user's `__next__` of the iterator `__iter__` returned, or None (a builtin iterator, read whole)."""
    return _objects._next_method(it)


def items_fwd(method, x, dx):
    """`ops.sequence(x)` for a user object x whose `__iter__` is `method`, and the items' tangents (lists)."""
    it, dit = fcall(method, NoTangent, (x,), (dx,))
    step = next_method(it)
    if step is None:
        seq, dseq = fcall(ops.sequence, NoTangent, (it,), (dit,))
        return fcall(ops.all_items, NoTangent, (seq,), (dseq,))  # (all of them: a loop's sequence pulls as asked)
    items = []
    ditems = []
    r = stop_fcall(step, NoTangent, (it,), (dit,))
    while r is not None:
        items.append(r[0])
        ditems.append(r[1])
        r = stop_fcall(step, NoTangent, (it,), (dit,))
    return items, ditems


def loop_items_fwd(method, x, dx):
    """`ops.sequence(x)` for a `for` loop over a user object x whose `__iter__` is `method`: a builtin iterator's items
    pulled as the loop asks (as the first order does, so a loop left by `break` leaves the rest to the next reader:
    an iterator the object keeps, `return self.it`); an iterator of the user's (`__next__`) read to its end now, and
    marked so that a later reader of it is refused (drained_by_a_loop) rather than finding nothing."""
    it, dit = fcall(method, NoTangent, (x,), (dx,))
    step = next_method(it)
    if step is None:
        return fcall(ops.sequence, NoTangent, (it,), (dit,))
    refuse_if_drained(it)
    items = []
    ditems = []
    r = stop_fcall(step, NoTangent, (it,), (dit,))
    while r is not None:
        items.append(r[0])
        ditems.append(r[1])
        r = stop_fcall(step, NoTangent, (it,), (dit,))
    mark_drained(it)
    return items, ditems


# The iterators of the user's (a class with `__next__`) that a loop at a nested order read to their end when it
# started (loop_items_fwd: calling `__next__` as the loop asks is not differentiated again), by identity: Python's
# loop calls `__next__` as it goes, so after a loop left early (`break`, `return`) a later reader finds the items it
# left -- here it would find none (a wrong second derivative, 4.81 for 5.23).  A later reader is refused instead.
_DRAINED: "weakref.WeakValueDictionary[int, Any]" = weakref.WeakValueDictionary()
_DRAINED_STRONG: dict = {}  # (objects that take no weak reference: kept while anything else holds them)


def mark_drained(it: Any) -> None:
    try:
        _DRAINED[id(it)] = it
    except TypeError:
        if len(_DRAINED_STRONG) >= 64:  # (those only this table holds have no later reader: let them go)
            for k in [k for k in list(_DRAINED_STRONG) if sys.getrefcount(_DRAINED_STRONG[k]) <= 2]:
                del _DRAINED_STRONG[k]  # (2: the table's reference and getrefcount's argument)
        _DRAINED_STRONG[id(it)] = it


def refuse_if_drained(it: Any) -> None:
    if _DRAINED.get(id(it)) is it or _DRAINED_STRONG.get(id(it)) is it:
        from ..errors import UnsupportedDerivativeError

        raise UnsupportedDerivativeError(
            f"a derivative of order two or more of code that reads a {type(it).__qualname__} iterator (a class with "
            f"`__next__`) after a for loop over it: at these orders the loop reads all its items when it starts (its "
            f"`__next__` calls are not differentiated one by one), so a loop left by `break` would leave nothing to "
            f"this reader; read the items once into a list (`items = list(it)`) and loop over or index the list")


def iter_fwd(xs, dxs):
    """`iter(xs)` of a list, tuple or array and its tangent, an iterator over the items' tangents in step with it
    (forward code takes an iterator's tangent as a queue of the items' tangents: builtin_iteration.next_tangent)."""
    return iter(xs), iter(dxs)


def unpack_fwd(method, x, n, dx):
    """`ops.unpack(x, n)` (`a, b = x`) of a user object x: its items, unpacked."""
    items, ditems = items_fwd(method, x, dx)
    return fcall(ops.unpack, NoTangent, (items, n), (ditems, NoTangent))


def iter_plan(args: tuple, dargs: tuple) -> Optional[Any]:
    """The plan of `fcall(iter, NoTangent, (xs,), (dxs,))` for a list, tuple or float array xs (a user's `__iter__`
    returning `iter(self.vals)`), or None."""
    from .nested_plan_kit import _api, _plain_plan, dense_same

    import numpy as np

    if len(args) != 1:
        return None
    xs, dxs = args[0], _api()._expand(dargs, 1)[0]
    if not (type(xs) in (list, tuple) or (type(xs) is np.ndarray and xs.dtype.kind == "f" and xs.ndim >= 1)):
        return None
    if dxs is NoTangent or dxs is None:
        dxs = [NoTangent] * len(xs)
    return _plain_plan(iter_fwd, (xs, dense_same(dxs, xs)), 1)


def iteration_plan(f: Any, args: tuple, dargs: tuple) -> Optional[Any]:
    """The plan of `fcall(f, NoTangent, args, dargs)` for f one of ops.sequence, ops.unpack on a user object whose
    class defines `__iter__` in Python; None for anything else (the caller refuses it by name)."""
    from .nested_plans import _api

    api = _api()
    if f is ops.sequence and len(args) == 1:
        fn, extra = loop_items_fwd, ()
    elif f is ops.unpack and len(args) == 2:
        fn, extra = unpack_fwd, (args[1],)
    else:
        return None
    how = _objects._iteration_method(args[0])
    if how is None or how[0] != "iter":
        return None
    x, dx = args[0], api._expand(dargs, len(args))[0]
    call = (how[1], x, *extra, dx)
    k = len(extra)

    def split(b: Any) -> tuple:
        b = api._expand(b, len(call))
        return NoTangent, (b[1], *(NoTangent,) * k), (b[2 + k], *(NoTangent,) * k)

    def outer(tf: Any, targs: tuple, tdargs: tuple) -> tuple:
        return (NoTangent, targs[0], *(NoTangent,) * k, tdargs[0])

    plan = api._Plan(fn, call, split, outer)
    plan.inactive = frozenset({0, *range(2, 2 + k)})  # (the method and the count: constants)
    return plan


def live_tangents_fwd(dxs, ddxs):
    """`LiveTangents(dxs)` (forward code's tangent of `iter(xs)` for a list or array xs, builtin_iteration.iter_tangent)
    and its tangent, made as forward mode makes an object's: its fields' tangents, dxs's (a loop over it then reads
    those in step, builtin_iteration._live_tangents_of).  A plain forward of its own, so that forward code of forward
    code (a third order of `for v in it` over `it = iter(xs)`) constructs it -- it was refused ("the forward
    derivative of LiveTangents comes from a hand-written rule")."""
    from .builtin_iteration import LiveTangents
    from ..tangents import MutableTangent

    return LiveTangents(dxs), MutableTangent({"dxs": ddxs, "pos": NoTangent})


def _defs() -> None:
    from .builtin_iteration import LiveTangents
    from .plain_forwards import _PLAIN
    from .registry import defzero

    defzero(next_method, mark_drained, refuse_if_drained)
    _PLAIN[LiveTangents] = live_tangents_fwd


_defs()
