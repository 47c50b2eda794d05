"""`sum(b)`, `max(b)`, `list(b)` of an instance of the user's class that defines `__iter__`: its items first.

A builtin that consumes an iterable runs the object's `__iter__` inside C code the transforms cannot see. The
rules of those builtins take lists, tuples and arrays: handed the object itself, forward mode failed on its
field tangents and reverse mode put a list of item adjoints where the object's field adjoints belong, so the
gradient came out zero (`sum(Buf2([x, x * x]))` gave 0 for 2.4). A `for` loop over the same object was right:
its sequence, `ops.sequence(b)`, is an operator dispatched to the object's own `__iter__` when the code runs
(forward/objects.py), which is differentiated like any user code.

This pass gives the builtins the same route: where the iterable a consumer reads may be a user object (by
object_flow.ObjectFlow), the call reads `ops.sequence(b)` in its place, a list of the items the object yields.
Only builtins that consume their iterable whole are rewritten (`sum`, `max`, `list`, ...), so reading the items
first changes nothing the code can see: a lazy one (`map`, `zip`, `enumerate`) might stop early and leave an
iterator object partly consumed. On lists, tuples and arrays `ops.sequence` is the value itself.
"""
from __future__ import annotations

import builtins
import functools
import math
import sys
from typing import Any

import numpy as np

from .. import ops
from ..ir.nodes import Call, Const, Function

# consumer -> the positions of the arguments it iterates whole
_CONSUMERS: dict = {
    builtins.sum: (0,), builtins.list: (0,), builtins.tuple: (0,), builtins.sorted: (0,),
    builtins.set: (0,), builtins.frozenset: (0,),
    math.fsum: (0,), math.prod: (0,), functools.reduce: (1,), np.fromiter: (0,),
}
# The consumers of `statistics`, added once the user's code has imported it (importing it here cost 2.5 ms; a
# function of a module not imported cannot be met)
_STATISTICS = ("mean", "fmean", "median", "stdev", "pstdev", "variance", "pvariance", "geometric_mean", "harmonic_mean")


def _consumers() -> dict:
    if "statistics" in sys.modules and "statistics" not in _CONSUMERS:
        st = sys.modules["statistics"]
        _CONSUMERS.update({getattr(st, name): (0,) for name in _STATISTICS if hasattr(st, name)})
        _CONSUMERS["statistics"] = ()  # (done)
    return _CONSUMERS


_EXTREMA = (builtins.max, builtins.min)  # max(b) iterates b; max(a, b) compares a and b


def _iterated(fn: Any, s: Call) -> tuple:
    try:
        if fn in _EXTREMA:
            return (0,) if len(s.args) == 1 else ()
        return _consumers().get(fn, ())
    except TypeError:  # (an unhashable callee)
        return ()


def read_items_first(ir: Function, resolver: Any) -> bool:
    """Rewrite the consumers of possible user objects in ir (see the module docstring); whether any was."""
    from .object_flow import ObjectFlow

    stmts = [s for b in ir.blocks for s in b.stmts]
    found = [(s, pos) for s in stmts if isinstance(s, Call)
             for pos in [_iterated(resolver.raw_callee(s), s)] if pos]
    if not found:
        return False
    flow = ObjectFlow(stmts, [p for b in ir.blocks for p in b.phis], resolver.param_kinds, resolver.g,
                      resolver.raw_callee, resolver.plain_calls)
    changed = False
    for s, positions in found:
        for i in positions:
            if i >= len(s.args) or isinstance(s.args[i], Const):
                continue
            if _one_shot_iterator(s.args[i], resolver.raw_callee, resolver.raw_callee(s)) and \
                    resolver.raw_callee(s) not in (builtins.list, builtins.tuple):
                items = Call(Const(builtins.list), [s.args[i]], loc=s.loc)  # (see `_one_shot_iterator`)
            elif not flow.may_be_object(s.args[i]) or _container_view(s.args[i], flow, resolver.raw_callee):
                continue
            else:
                # (what a loop reads, ops.sequence, pulls an iterator's items as the loop asks for them:
                # ops.all_items reads them all, as the consumer does)
                seq = Call(Const(ops.sequence), [s.args[i]], loc=s.loc)
                s.block.stmts.insert(s.block.stmts.index(s), seq)
                seq.block = s.block
                items = Call(Const(ops.all_items), [seq], loc=s.loc)
            home = s.block
            home.stmts.insert(home.stmts.index(s), items)
            items.block = home
            s.args[i] = items
            changed = True
    return changed


def _one_shot_iterator(v: Any, raw_callee: Any, consumer: Any = None) -> bool:
    """`reversed(xs)` or `iter(xs)`: an iterator the consumer exhausts.  The consumers' reverse rules read the
    items again in the pullback, from a list, tuple or array (an exhausted iterator has none left: `sum(reversed(
    xs))` came out zero), and forward mode's `sorted(iter(xs))` lost its tangents the same way.  `list(it)` first
    reads the items once, with its own rule, which follows the iterator back to xs; the consumer then reads the
    list, which is what it would have read.  So too `map`, `filter`, `zip` and `enumerate` handed to any consumer
    but `sum` (whose rules follow them; sorted(map(...)) lost its tangents, math.prod(map(...)) its products,
    statistics.stdev(map(...)) found the map exhausted, max(enumerate(x), key=...) was refused)."""
    if not isinstance(v, Call):
        return False
    callee = raw_callee(v)
    if not v.kwargs and len(v.args) == 1 and any(callee is b for b in (builtins.reversed, builtins.iter)):
        return True
    return consumer is not builtins.sum and any(callee is b for b in _LAZY_BUILTINS)


_LAZY_BUILTINS = (builtins.map, builtins.filter, builtins.zip, builtins.enumerate)


_VIEWS = frozenset({"values", "keys", "items", "copy"})


_BUILTIN_ITERABLES = (builtins.map, builtins.filter, builtins.zip, builtins.enumerate, builtins.reversed, builtins.range,
                      builtins.iter, builtins.sorted, builtins.list, builtins.tuple, builtins.dict, builtins.set)


def _container_view(v: Any, flow: Any, raw_callee: Any) -> bool:
    """A builtin's own iterable: `map(...)`, `zip(...)`, ... (their items may be objects; they are not one), or
    `d.values()` (`keys`, `items`, `copy`) of a value that is not itself a user object. ObjectFlow counts every
    call's result that it cannot see into as a possible object, which would route `sum(d.values())` through the
    dispatcher for nothing."""
    if isinstance(v, Call) and any(raw_callee(v) is b for b in _BUILTIN_ITERABLES):
        return True
    if not (isinstance(v, Call) and not v.args and not v.kwargs and isinstance(v.fn, Call)):
        return False
    bound = v.fn
    if bound.callee() is not builtins.getattr or len(bound.args) != 2 or not isinstance(bound.args[1], Const):
        return False
    return bound.args[1].value in _VIEWS and not flow.may_be_object(bound.args[0])

