"""Reads of tuples built in the same function go straight to the items.

`a, b = b, a + b` lowers to a tuple display, `unpack(t, 2)` and two reads `u[0]`, `u[1]`.
A tuple is immutable and its items are SSA values, so `u[0]` is `b` itself: both
transforms then see `a` as what it is (a float, an array, a list) instead of "an item of
some tuple", and reverse mode writes `b_bar += a_bar` instead of routing the adjoint
through a tuple's adjoint and back.  Only reads that cannot fail are folded: a constant
index inside the tuple, an unpack of exactly its length.  Items that are literals stay
behind their names (`g, l, m = 9.81, 1.3, 0.7` keeps `m` readable in the output; types
see through the read anyway).
"""
from __future__ import annotations

import operator

from .. import ops
from .nodes import Call, Const, Function, Value


def _tuple_display(v: Value) -> "Call | None":
    if isinstance(v, Call) and v.callee() is ops.tuple_of and not v.kwargs:
        return v
    return None


def fold_tuple_reads(fn: Function, literals: bool = False) -> None:
    """Fold what qualifies (see the module docstring); `literals`: literal items too (a loop over displays written
    out, `M, k = (W1, 1.5)`: the tuple would stay for its 1.5 alone, and its adjoint with it)."""
    memo: dict = {}

    def folded(v: Value) -> Value:
        """What v is once reads of tuple displays are looked through."""
        if not isinstance(v, Call) or v.kwargs:
            return v
        if v in memo:
            return memo[v]
        memo[v] = v  # (a cycle through phis never reaches here: phis are not Calls)
        out = v
        f = v.callee()
        if f is operator.getitem and len(v.args) == 2 and isinstance(v.args[1], Const) and type(v.args[1].value) is int:
            src = _tuple_display(folded(v.args[0]))
            k = v.args[1].value
            if src is not None and -len(src.args) <= k < len(src.args):
                item = src.args[k]
                if literals or not isinstance(item, Const):
                    out = folded(item)
        elif f is ops.unpack and len(v.args) == 2 and isinstance(v.args[1], Const):
            src = _tuple_display(folded(v.args[0]))
            if src is not None and len(src.args) == v.args[1].value:
                out = src
        memo[v] = out
        return out

    replace = {}
    for b in fn.blocks:
        for s in b.stmts:
            new = folded(s)
            if new is not s:
                replace[s] = new
    if not replace:
        return
    for b in fn.blocks:
        for s in [*b.phis, *b.stmts]:
            for o in s.operands():
                if o in replace:
                    s.replace_operand(o, replace[o])
        for o in b.term.operands():
            if o in replace:
                b.term.replace_operand(o, replace[o])
    for b in fn.blocks:
        b.stmts = [s for s in b.stmts if s not in replace]
    _drop_unused_displays(fn)


def _drop_unused_displays(fn: Function) -> None:
    """Tuple displays nothing reads any more (they have no effect)."""
    while True:
        used = {o for b in fn.blocks for s in [*b.phis, *b.stmts] for o in s.operands()}
        used |= {o for b in fn.blocks for o in b.term.operands()}
        dead = {s for b in fn.blocks for s in b.stmts if _tuple_display(s) is not None and s not in used}
        if not dead:
            return
        for b in fn.blocks:
            b.stmts = [s for s in b.stmts if s not in dead]
