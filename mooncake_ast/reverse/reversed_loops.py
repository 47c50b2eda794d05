"""`for c in reversed(xs)` over a list or array parameter (or a list it makes) the function only reads, walked by index.

`reversed(xs)` reads xs by index as it goes, from the end; `for i in range(len(xs) - 1, -1, -1): c = xs[i]` makes
the same reads in the same order.  The second form is what the typed machinery differentiates plainly: reads of
a typed list or a buffer array by an int index (`coeffs_bar[i] += acc_bar`), inside a loop over a range that the
pullback walks backwards without recording its items (walked_loops.py).  Horner's rule comes out as a person
writes its gradient.  Only for a parameter nothing in the function can change (a changed list could make the two
forms part ways), and only in reverse mode, before types are inferred.
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING

from .. import ops
from ..ir.analysis import used_only_by
from ..ir.nodes import Call, Const, Function, Param, Value
from ..ir.types import Arr, Lst
from . import typed_lists
from .cleanup import substitute

if TYPE_CHECKING:
    from .transform import ReverseTransform


def walk_reversed(rt: "ReverseTransform", ir: Function) -> None:
    """`for c in reversed(xs)` over a list or array parameter becomes `for i in range(len(xs) - 1, -1, -1):
    c = xs[i]`: the same reads in the same order (reversed() reads xs by index as it goes), now reads of xs by an
    int index, which typed lists and buffers differentiate plainly, and a loop over a range, which the pullback
    walks without recording its items."""
    for b in ir.blocks:
        for seq in list(b.stmts):
            if not (seq.callee() is ops.sequence and len(seq.args) == 1 and isinstance(seq.args[0], Call)):
                continue
            rev = seq.args[0]
            if not (rt.resolver.resolve(rev.fn) is reversed and len(rev.args) == 1 and not rev.kwargs and (
                    isinstance(rev.args[0], Param) and isinstance(rt.param_types.get(rev.args[0].name), (Lst, Arr))
                    or _made_list(rt, rev.args[0]))):
                continue
            xs = rev.args[0]
            if not _only_read(rt, ir, xs):
                continue  # (a list the function changes: reversed() and indexing could part ways)
            users = [st for blk in ir.blocks for st in blk.stmts if rev in st.operands() or seq in st.operands()]
            items = [st for st in users if st.callee() is operator.getitem and st.args[0] is seq]
            if any(st is not seq and st not in items and not (st.callee() is len and st.args == [seq]) for st in users) \
                    or len(items) != 1 or any(rev in blk.term.operands() or seq in blk.term.operands() for blk in ir.blocks) \
                    or any(seq in phi.incoming.values() for blk in ir.blocks for phi in blk.phis):
                continue
            rb = rev.block if rev.block is not None else b
            n = Call(Const(len), [xs], loc=rev.loc)
            last = Call(Const(operator.sub), [n, Const(1)], loc=rev.loc)
            for st in (n, last):
                st.block = rb
            rb.stmts[rb.stmts.index(rev):rb.stmts.index(rev)] = [n, last]
            rev.fn, rev.args = Const(range), [last, Const(-1), Const(-1)]
            item = items[0]
            value = Call(Const(operator.getitem), [xs, item], hint=item.hint, loc=item.loc)
            item.hint = "i"
            substitute(ir, {item: value})
            value.args = [xs, item]
            value.block = item.block
            item.block.stmts.insert(item.block.stmts.index(item) + 1, value)


def _made_list(rt: "ReverseTransform", v: Value, depth: int = 0) -> bool:
    """Is v certainly a list (so reversed() walks it by index, not a class's own `__reversed__`): a display, or a
    slice of one, or of a list a comprehension builds (`[i * c for i, c in ...][1:]`)."""
    if not isinstance(v, Call) or v.kwargs or depth > 4:
        return False
    fn = rt.resolver.resolve(v.fn)
    if fn is ops.list_of:
        return True
    if fn is operator.getitem and len(v.args) == 2 and isinstance(v.args[1], Call) and not v.args[1].kwargs and \
            rt.resolver.resolve(v.args[1].fn) is slice:
        return _made_list(rt, v.args[0], depth + 1)
    return False


def _only_read(rt: "ReverseTransform", ir: Function, xs: Value) -> bool:
    """Is every use of xs in ir a read that changes nothing (an item, its length, a loop over it, reversed(), a
    reduction typed_lists knows)?"""
    def read(st: Call) -> bool:
        fn = rt.resolver.callee(st)[0] if st.fn is not xs else None
        return bool(st.args) and st.args[0] is xs and xs not in st.args[1:] and not st.kwargs and \
            (fn in (operator.getitem, len, ops.sequence, reversed) or fn in typed_lists.READERS)

    return used_only_by(ir, xs, read)
