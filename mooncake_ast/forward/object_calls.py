"""Forward mode of an operator on user objects: the methods Python's protocol runs, with their tangents.

The generated code leaves an operator to run time (`fcall`) when an operand may be a
user object (forward/object_flow.py); `fcall` hands it here first.  `forward_call` runs
the methods forward/objects.py says Python would try, each through `fcall` so that the
user's method is differentiated like any call, and stops at the first that does not
answer NotImplemented.  `float_forward` is the cheap case of such an operator whose
operands turn out to be plain floats: the arithmetic the inline template would have done.
Kept apart from forward/objects.py because that part is shared with reverse mode.
"""
from __future__ import annotations

import builtins
import operator
from typing import Any, Optional

from .. import ops
from ..tangents import NoTangent, zero_tangent
from .objects import (ATTRIBUTES, ITERATION, _attribute_method, _check_native, _fallback, _iteration_method, _native,
                      _next_method, _plain_field, _user, attempts)


def forward_call(f: Any, args: tuple, dargs: tuple, kwargs: dict) -> Optional[tuple]:
    """(y, dy) for an operator on user objects, differentiating the methods it runs; None if none takes part."""
    from .runtime import fcall

    if kwargs:
        return None
    if f in ATTRIBUTES:
        found = _attribute_method(f, args)
        if found is None:
            if f is builtins.delattr and _plain_field(args):  # `del obj.name`: the field and its tangent go
                from ..tangents import MutableTangent

                delattr(*args)
                if isinstance(dargs[0], MutableTangent):
                    dargs[0].fields.pop(args[1], None)
                return None, NoTangent
            return None
        fn, order = found
        return fcall(fn, NoTangent, tuple(args[i] for i in order), tuple(dargs[i] for i in order))
    if f in ITERATION:
        how = _iteration_method(args[0]) if args and (f is not builtins.iter or len(args) == 1) else None
        if how is None:
            return None
        items, ditems = _forward_items(args[0], dargs[0], how, lazily=f is ops.sequence)
        if f is ops.sequence:
            return items, ditems
        if f is builtins.iter and len(args) == 1:
            return iter(items), iter(ditems)
        if f is ops.unpack:
            return fcall(ops.unpack, NoTangent, (items, *args[1:]), (ditems, *dargs[1:]))
        return None
    tries = attempts(f, args)
    if tries is None:
        return None
    for t in tries:
        cargs = tuple(args[i] for i in t.order)
        if _user(t.method):
            y, dy = fcall(t.method, NoTangent, cargs, tuple(dargs[i] for i in t.order))
        else:
            y = _check_native(f, _native(f, t.method, cargs, args), args)
            dy = NoTangent
        if y is not NotImplemented:
            return y, dy
    y = _fallback(f, args)
    return y, zero_tangent(y)


def _forward_items(x: Any, dx: Any, how: tuple, lazily: bool = False) -> tuple:
    """The items iterating user object x yields, and their tangents (as lists; `lazily`: for a loop, which reads
    the items of an iterator of the user's as it asks, lazy_iteration.py)."""
    from .runtime import fcall

    kind, method = how
    if kind == "iter":
        it, dit = fcall(method, NoTangent, (x,), (dx,))
        step = _next_method(it)
        if step is None:
            seq, dseq = fcall(ops.sequence, NoTangent, (it,), (dit,))
            if lazily:  # (a loop: its sequence pulls as it asks, so a loop left by `break` leaves the rest in place)
                return seq, dseq
            return fcall(ops.all_items, NoTangent, (seq,), (dseq,))  # (a consumer reading all of them)
        if lazily:
            return _lazy_user_items(it, dit, step)
        items, ditems = [], []
        while True:  # an iterator of the user's (`__iter__` returns self): its `__next__` until StopIteration
            try:
                y, dy = fcall(step, NoTangent, (it,), (dit,))
            except StopIteration:
                return items, ditems
            items.append(y)
            ditems.append(dy)
    items, ditems, i = [], [], 0
    while True:  # the old sequence protocol: x[0], x[1], ... until IndexError
        try:
            y, dy = fcall(method, NoTangent, (x, i), (dx, NoTangent))
        except IndexError:
            return items, ditems
        items.append(y)
        ditems.append(dy)
        i += 1


def _lazy_user_items(it: Any, dit: Any, step: Any) -> tuple:
    """A loop over an iterator of the user's (`__iter__` returning an object with its own `__next__`): its `__next__`
    called when the loop asks for the next item, as Python's loop does, so a loop left by `break` leaves the rest
    to the next reader (`sum(it)`, a second loop); each item's tangent is queued for the tangent sequence."""
    from ..lazy_iteration import _END, LazySequence
    from .runtime import fcall

    queue: list = []

    def pull() -> Any:
        try:
            y, dy = fcall(step, NoTangent, (it,), (dit,))
        except StopIteration:
            return _END
        queue.append(dy)
        return y

    return LazySequence(it, pull), LazySequence(queue)


# ---------------------------------------------------------------- numbers reaching dispatch

# Operators left to run time because an operand *might* have been a user object, whose
# operands turn out to be plain floats: the arithmetic the inline template would have done.
_FLOAT_FORWARD = {
    operator.add: lambda a, b, da, db: (a + b, da + db),
    operator.sub: lambda a, b, da, db: (a - b, da - db),
    operator.mul: lambda a, b, da, db: (a * b, da * b + a * db),
    operator.truediv: lambda a, b, da, db: (a / b, (da - (a / b) * db) / b),
}


def float_forward(f: Any, args: tuple, dargs: tuple) -> Optional[tuple]:
    """(y, dy) when f is + - * / of two floats (their tangents floats or the symbolic zero)."""
    rule = _FLOAT_FORWARD.get(f)
    if rule is None or len(args) != 2 or type(args[0]) is not float or type(args[1]) is not float:
        return None
    da, db = dargs
    if not (da is NoTangent or type(da) is float) or not (db is NoTangent or type(db) is float):
        return None
    return rule(args[0], args[1], da, db)
