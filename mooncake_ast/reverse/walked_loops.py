"""`for i in range(...)` loops the pullback walks backwards: `for i in i_range[::-1]:`, nothing recorded per trip.

A loop over a range that always runs to its end (no break, return or raise leaves it) visits the whole range, so
the pullback can visit it again backwards: the forward pass records the range once per run of the loop (where a
trip count would go), and the reverse of the body reads the pullback loop's own `i` wherever it read the primal
loop's (record.finalize substitutes it for the references, and recomputes `i - 1` from it as it would from a
popped `i`).  A person writes exactly this; before, every trip pushed `i` on a stack and the pullback popped it.
Only items without an adjoint (ints) and sequences without one: an item with an adjoint is read through the
loop's counter by run-time kinds, which the walk would not give.
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, Callable, Optional

from .. import ops
from ..ir.nodes import Call, Const, Value
from ..ir.regions import Loop
from ..ir.types import INT

if TYPE_CHECKING:
    from .transform import ReverseTransform


def walked_range(rt: "ReverseTransform", r: Loop) -> Optional[Value]:
    """The pullback's value of the range loop r walked (popped where the loop's reverse starts), when the pullback
    can walk it backwards; None otherwise (the loop is then repeated by its recorded trip count)."""
    info = r.header.loop
    if info is None or info.kind != "for" or info.item is None or not isinstance(info.seq, Call):
        return None
    seq = info.seq
    if not (seq.callee() is ops.sequence and len(seq.args) == 1 and isinstance(seq.args[0], Call)
            and rt.resolver.resolve(seq.args[0].fn) is range) or rt._leaves_early(r):
        return None
    if rt.active(seq) or rt.active(info.item) or rt.type_of(info.item) != INT:
        return None
    rt.walked_ranges[r.header] = seq.args[0]  # (record.finalize pushes it on the loop's normal exit)
    named = info.item.hint and not info.item.hint.startswith("%") and info.item.hint != "_"
    return rt.b.call(list.pop, [rt._stack_for(("range", r.header), "ranges")],
                     hint=f"{info.item.hint}_range" if named else "steps")


def repeat_over(rt: "ReverseTransform", rng: Value, primal_item: Any, body: Callable[[], None]) -> None:
    """`for i in rng[::-1]: body()`, the pullback's `i` standing for the primal loop's item in the body."""
    b = rt.b
    backwards = b.call(operator.getitem, [rng, b.call(slice, [Const(None), Const(None), Const(-1)])])
    item_hint = primal_item.hint if primal_item.hint and not primal_item.hint.startswith("%") else "_"
    rt._repeat(Const(None), body, over=b.call(ops.sequence, [backwards]), item_hint=item_hint, primal_item=primal_item)
