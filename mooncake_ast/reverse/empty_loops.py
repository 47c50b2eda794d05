"""Loops of the pullback left with nothing to do, and the records only they read, removed.

`grad(f)` of `f(x, y)` differentiates x alone; a loop that only updates y is reversed (it is active: the values it
computes influence the result), and once the adjoint code nobody needs is swept, its reversed copy walks the
recorded trips doing nothing: `for i in i_range[::-1]: pass`, with the forward pass pushing the range onto the tape
for it.  Here such a loop goes: when nothing inside it has an effect but walking its trips (the counter, reading
the walked item, anchors of records nothing reads, pops of the control stacks of loops inside it) and no value it
carries changes, the code before it goes straight to the code after it.  A control stack popped nowhere else then
goes too, and with it the forward pass's pushes (record.finalize records only stacks the pullback reads).
"""
from __future__ import annotations

import operator
from typing import Any

from .. import ops
from ..ir.nodes import Block, Branch, Function, Goto, Phi

_WALKING = {operator.getitem, operator.add, operator.lt, len, ops.sequence, slice, reversed}


def drop_empty_loops(fn: Function, stacks: set, anchor: Any, anchored: set) -> bool:
    """Remove what qualifies (see the module docstring); stacks: the pullback's control stack references; anchor:
    the marker of where a forward block's records are read back, anchored: the blocks some record of which is
    still read (their markers must stay).  True if anything was removed."""
    changed = False
    while True:
        h = next((b for b in fn.blocks if _empty(fn, b, stacks, anchor, anchored)), None)
        if h is None:
            break
        _remove(fn, h)
        changed = True
    return changed


def _loop_blocks(h: Block) -> Any:
    if h.loop is None or not isinstance(h.term, Branch):
        return None
    seen: list = []
    todo = [h.term.then]
    while todo:
        b = todo.pop()
        if b is h or b in seen:
            continue
        seen.append(b)
        todo.extend(b.successors())
    if any(s is not h and s not in seen for b in seen for s in b.successors()) or h.term.orelse in seen:
        return None
    return seen


def _empty(fn: Function, h: Block, stacks: set, anchor: Any, anchored: set) -> bool:
    body = _loop_blocks(h)
    if body is None:
        return False
    inside = {h, *body}
    values = {x for b in inside for x in [*b.phis, *b.stmts]}
    for b in inside:
        for s in b.stmts:
            f = s.callee()
            if f is anchor and s.args[0].value in anchored:
                return False
            if not (f in _WALKING or f is anchor or f is list.pop and len(s.args) == 1 and s.args[0] in stacks):
                return False
        if not isinstance(b.term, (Goto, Branch)):
            return False
    pre = [p for p in h.preds if p not in inside]
    if len(pre) != 1 or not isinstance(pre[0].term, Goto):
        return False
    for phi in h.phis:  # (a carried value must come back as it went in)
        back = [v for p, v in phi.incoming.items() if p in inside]
        if phi is not h.loop.counter and any(v is not phi for v in back):
            return False
    for b in fn.blocks:
        if b in inside:
            continue
        for x in [*b.phis, *b.stmts, b.term]:
            for o in x.operands():
                if o in values and not (isinstance(o, Phi) and o.block is h and o is not h.loop.counter):
                    return False
    return True


def _remove(fn: Function, h: Block) -> None:
    body = _loop_blocks(h)
    inside = {h, *body}
    pre = next(p for p in h.preds if p not in inside)
    after = h.term.orelse  # type: ignore[union-attr]
    kept = {phi: phi.incoming[pre] for phi in h.phis}
    pre.term = Goto(after)
    for phi in after.phis:
        if h in phi.incoming:
            phi.incoming = {(pre if p is h else p): v for p, v in phi.incoming.items()}
    for b in fn.blocks:
        if b in inside:
            continue
        for x in [*b.phis, *b.stmts, b.term]:
            for o in list(x.operands()):
                if o in kept:
                    x.replace_operand(o, kept[o])
    fn.blocks = [b for b in fn.blocks if b not in inside]
    for i, b in enumerate(fn.blocks):
        b.id = i
    fn.recompute_preds()


def drop_unread_pops(fn: Function, stacks: set) -> None:
    """`i_range = ranges.pop()` whose range nothing walks now (once what only the loop read is swept), when no other
    statement pops that stack."""
    while True:
        read = {o for b in fn.blocks for x in [*b.phis, *b.stmts, b.term] for o in x.operands()}
        pops: dict = {}
        for b in fn.blocks:
            for s in b.stmts:
                if s.callee() is list.pop and len(s.args) == 1 and s.args[0] in stacks:
                    pops.setdefault(s.args[0], []).append(s)
        dead = {s for group in pops.values() if all(s not in read for s in group) for s in group}
        if not dead:
            return
        for b in fn.blocks:
            b.stmts = [s for s in b.stmts if s not in dead]
