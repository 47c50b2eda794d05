"""Reverse mode of an operator on user objects: the methods Python's protocol runs, with their pullbacks.

`rcall` hands an operator here first when an operand may be a user object.  `reverse_call`
runs the methods forward/objects.py says Python would try, each through `rcall`, and
returns one pullback over them: the method that answered gets the result's adjoint, those
that said NotImplemented are only undone.  Iterating an object (its `__iter__` and
`__next__`, or the old `__getitem__` protocol) and `del obj.field` are here too.
`float_reverse` is the cheap case of such an operator whose operands turn out to be plain
floats.  The forward-mode counterpart is forward/object_calls.py; the protocol both share
is forward/objects.py, which this module imports (downwards).
"""
from __future__ import annotations

import builtins
import operator
from typing import Any, Optional

from .. import ops
from ..forward.objects import (ATTRIBUTES, ITERATION, _attribute_method, _check_native, _fallback, _iteration_method,
                               _native, _next_method, _plain_field, _user, attempts)
from ..tangents import NoTangent


def reverse_call(f: Any, args: tuple, kwargs: dict) -> Optional[tuple]:
    """(y, pullback) for an operator on user objects; the pullback maps y's adjoint to (f_bar, args_bar, kwargs_bar)."""
    from .runtime import rcall

    if kwargs:
        return None
    if f in ATTRIBUTES:
        found = _attribute_method(f, args)
        if found is None:
            if f is builtins.delattr and _plain_field(args):
                return _reverse_delattr(*args)
            return None
        fn, order = found
        y, pb = rcall(fn, tuple(args[i] for i in order), {})
        return y, _mapped([(pb, order, True)], len(args))
    if f in ITERATION:
        how = _iteration_method(args[0]) if args and (f is not builtins.iter or len(args) == 1) else None
        if how is None:
            return None
        return _reverse_iteration(f, args, how)
    tries = attempts(f, args)
    if tries is None:
        return None
    done: list = []
    for t in tries:
        cargs = tuple(args[i] for i in t.order)
        if _user(t.method):
            y, pb = rcall(t.method, cargs, {})
            done.append((pb, t.order, False))
        else:
            y = _check_native(f, _native(f, t.method, cargs, args), args)
        if y is not NotImplemented:
            if done and _user(t.method):
                done[-1] = (done[-1][0], done[-1][1], True)
            return y, _mapped(done, len(args))
    return _fallback(f, args), _mapped(done, len(args))


def _reverse_delattr(obj: Any, name: str) -> tuple:
    """`del obj.name`, undone by the pullback (nothing read the field after it was deleted: a zero slot)."""
    from . import shadows
    from .adjoints import AdjDict, AdjTuple
    from ..tangents import MutableTangent, is_mutable

    old = obj.__dict__[name]
    delattr(obj, name)

    def pullback(g: Any) -> tuple:
        object.__setattr__(obj, name, old)
        sh = shadows.shadow(obj)
        if isinstance(sh, MutableTangent):
            sh.fields[name] = shadows.shadow(old) if is_mutable(old) else NoTangent
        return NoTangent, AdjTuple([NoTangent, NoTangent]), AdjDict()

    return None, pullback


def _mapped(calls: list, n: int) -> Any:
    """A pullback over the methods tried: the one that answered gets y's adjoint, those that said
    NotImplemented are only undone (their adjoints are zero)."""
    from .adjoints import AdjDict, AdjTuple, accumulate

    def pullback(g: Any) -> tuple:
        bars: list = [NoTangent] * n
        for pb, order, answered in reversed(calls):
            _, a, _ = pb(g if answered else NoTangent)
            if answered:
                for j, i in enumerate(order):
                    if j < len(a):
                        bars[i] = accumulate(bars[i], a[j])
        return NoTangent, AdjTuple(bars), AdjDict()

    return pullback


def _reverse_iteration(f: Any, args: tuple, how: tuple) -> tuple:
    from .adjoints import AdjDict, AdjTuple
    from .runtime import rcall

    x = args[0]
    kind, method = how
    if kind == "iter":
        it, it_pb = rcall(method, (x,), {})
        step = _next_method(it)
        if step is None:
            items, seq_pb = rcall(ops.sequence, (it,), {})
            if f is not ops.sequence:  # (a loop pulls as it asks: a loop left by `break` leaves the rest in place)
                items = ops.all_items(items)  # (the items a consumer takes at once: all of them)
        else:  # an iterator of the user's: its `__next__` until StopIteration, each call with its own pullback
            items, steps = [], []
            if f is ops.sequence:  # (a loop: the next item when it asks for it, as Python's loop, lazy_iteration.py)
                items = _lazy_user_items(it, step, steps)
            else:
                while True:
                    try:
                        y, pb = rcall(step, (it,), {})
                    except StopIteration:
                        break
                    items.append(y)
                    steps.append(pb)

            def seq_pb(g: Any) -> tuple:
                from . import shadows

                gs = list(g) if g is not NoTangent else []
                total: Any = NoTangent
                for k in reversed(range(len(steps))):
                    _, a, _ = steps[k](gs[k] if k < len(gs) else NoTangent)
                    total = shadows.acc(it, total, a[0])  # (the iterator collects in its storage)
                return NoTangent, AdjTuple([total]), AdjDict()

        def items_pullback(g: Any) -> Any:
            _, a, _ = seq_pb(g)
            _, b, _ = it_pb(a[0])
            return b[0]
    else:
        items, pbs, i = [], [], 0
        while True:
            try:
                y, pb = rcall(method, (x, i), {})
            except IndexError:
                break
            items.append(y)
            pbs.append(pb)
            i += 1

        def items_pullback(g: Any) -> Any:
            from . import shadows

            gs = list(g) if g is not NoTangent else [NoTangent] * len(pbs)
            total: Any = NoTangent
            for k in reversed(range(len(pbs))):
                _, a, _ = pbs[k](gs[k] if k < len(gs) else NoTangent)
                total = shadows.acc(x, total, a[0])  # a mutable x collects in its storage, once
            return total

    if f is ops.sequence:
        return items, lambda g: (NoTangent, AdjTuple([items_pullback(g)]), AdjDict())
    if f is builtins.iter and len(args) == 1:
        return iter(items), lambda g: (NoTangent, AdjTuple([items_pullback(g)]), AdjDict())
    y, un_pb = rcall(ops.unpack, (items, *args[1:]), {})

    def unpack_pullback(g: Any) -> tuple:
        _, a, _ = un_pb(g)
        return NoTangent, AdjTuple([items_pullback(a[0]), *([NoTangent] * (len(args) - 1))]), AdjDict()

    return y, unpack_pullback


def _lazy_user_items(it: Any, step: Any, steps: list) -> Any:
    """The items of the user's iterator `it` pulled as a loop asks for them (its `__next__` run then, so a loop left
    by `break` leaves the rest to the next reader), each call's pullback appended to `steps`."""
    from ..lazy_iteration import _END, LazySequence
    from .runtime import rcall

    def pull() -> Any:
        try:
            y, pb = rcall(step, (it,), {})
        except StopIteration:
            return _END
        steps.append(pb)
        return y

    return LazySequence(it, pull)


# ---------------------------------------------------------------- numbers reaching dispatch

# Operators left to run time because an operand *might* have been a user object, whose
# operands turn out to be plain floats: the arithmetic the inline template would have done.
_FLOAT_REVERSE = {
    operator.add: lambda a, b, g: (g, g),
    operator.sub: lambda a, b, g: (g, -g),
    operator.mul: lambda a, b, g: (g * b, g * a),
    operator.truediv: lambda a, b, g: (g / b, -g * a / (b * b)),
}


def float_reverse(f: Any, args: tuple) -> Optional[tuple]:
    """(y, pullback) when f is + - * / of two floats."""
    rule = _FLOAT_REVERSE.get(f)
    if rule is None or len(args) != 2 or type(args[0]) is not float or type(args[1]) is not float:
        return None
    from .adjoints import AdjDict, AdjTuple

    a, b = args
    y = f(a, b)

    def pullback(g: Any) -> tuple:
        if type(g) is not float:
            if g is NoTangent or g is None:
                return NoTangent, AdjTuple((NoTangent, NoTangent)), AdjDict()
            g = float(g)
        return NoTangent, AdjTuple(rule(a, b, g)), AdjDict()

    return y, pullback
