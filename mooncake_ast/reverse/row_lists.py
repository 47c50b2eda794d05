"""Lists of lists of floats the function only reads: `rows_bar[i][j] += a_bar`.

`for row in rows: total += sum(a * b for a, b in zip(row, v))` with `rows` a list of lists of floats
(a matrix as nested lists) is where a person writes

    rows_bar = [[0.0] * len(row) for row in rows]   # once, at the start of the pullback
    ...
    rows_bar[i][j] += b * t_bar                     # each item read's adjoint into its slot

The call passes a list of distinct lists of Python floats that no other argument holds
(reverse/argument_kinds.kinds_of types it `any:list:list:f`, ir/types.Lst(Lst(FLOAT))).  The list itself
is read as reverse/typed_lists.py reads a list of floats (items by an int index, also through the
loop's `sequence`, and `len`), and each row it gives (`row = rows[i]`) is only read the same way:
items by an int index (`row[j]`, also through `zip` and the loop's `sequence`), `len(row)`, and the
reductions of typed_lists.READERS (`sum(row)`), which make new values.  Nothing can then change a
row or reach it but through these reads, so every item read is a float (plain arithmetic) and its
adjoint goes into the row's slot of the list's adjoint, a list of lists of our own.  Any other use
of a row (a write, a method, a phi, a return, handing it on) and the parameter loses its type
(typed_lists.keep_only_read): storage keeps it right.
"""
from __future__ import annotations

import builtins
import operator
from typing import TYPE_CHECKING, Any

from .. import ops
from ..ir.nodes import Call, Value
from ..ir.types import INT
from .special import hashable

if TYPE_CHECKING:
    from .transform import ReverseTransform

ITEM, LEN, SEQ, WHOLE = "item", "len", "seq", "whole"


def float_rows(x: Any) -> bool:
    """A list of lists of Python floats, each row a list of its own (reverse mode types it when the function only
    reads it).  Large ones stay generic: the test runs on every call."""
    if type(x) is not list or not 0 < len(x) <= 256:
        return False
    total = 0
    for row in x:
        if type(row) is not list or not row:
            return False
        total += len(row)
        if total > 4096 or not all(type(v) is float for v in row):
            return False
    return len({id(row) for row in x}) == len(x)


def only_read(rt: "ReverseTransform", row: Call, uses: dict, root: Value, found: dict, alias: Value = None) -> bool:
    """Is every use of `row` (an item of the list root, or a loop `sequence` of it) a read this module undoes?
    Fills `found`: statement -> (role, row, root)."""
    for s, pos in uses.get(alias if alias is not None else row, []):
        if not isinstance(s, Call) or pos != 0 or s.kwargs:
            return False
        fn = rt.resolver.callee(s)[0]
        if fn is operator.getitem and len(s.args) == 2 and rt.type_of(s.args[1]) == INT:
            found[s] = (ITEM, row, root)
        elif fn is builtins.len and len(s.args) == 1:
            found[s] = (LEN, row, root)
        elif fn is ops.sequence and len(s.args) == 1:
            found[s] = (SEQ, row, root)
            if not only_read(rt, row, uses, root, found, s):
                return False
        elif alias is None and len(s.args) == 1 and hashable(fn) and fn in _readers():
            found[s] = (WHOLE, row, root)
        else:
            return False
    return True


def _readers() -> set:
    from .typed_lists import READERS

    return READERS


def live(rt: "ReverseTransform", s: Value) -> bool:
    """Is s a read of a row of a list that is still typed?"""
    info = rt.row_parts.get(s)
    return info is not None and rt.typed_lists.get(info[2]) is info[2]


def row_of(rt: "ReverseTransform", v: Value) -> Any:
    """The row statement v is (a row read whole by a reader, `sum(row)`), if its list is still typed."""
    return v if rt.row_rows.get(v) is not None and rt.typed_lists.get(rt.row_rows[v]) is rt.row_rows[v] else None


def _row_adjoint(rt: "ReverseTransform", row: Call, root: Value) -> Value:
    """`rows_bar[i]`: the row's slots in the list's adjoint (a list of our own: added into in place)."""
    return rt.b.call(operator.getitem, [rt.read_adj(root), rt.primal(row.args[1])])


def reverse(rt: "ReverseTransform", s: Call) -> None:
    """`a = row[j]`: `rows_bar[i][j] += a_bar` (`len`, the loop's sequence and readers: nothing here)."""
    role, row, root = rt.row_parts[s]
    if role != ITEM or not rt.active(root):
        return
    from .cleanup import is_zero

    g = rt.take_adj(s)
    if g is None or is_zero(g):
        return
    st = rt.b.call(ops.add_to_item, [_row_adjoint(rt, row, root), g, rt.primal(s.args[1])])
    st.keep = True  # type: ignore[attr-defined]


def add_whole(rt: "ReverseTransform", row: Call, contribution: Value) -> None:
    """A reader's adjoint for a whole row (`sum(row)`) into the row's slots."""
    from .typed_lists import add_whole as add_list

    root = rt.row_rows[row]
    if rt.active(root):
        add_list(rt, root, contribution, row=_row_adjoint(rt, row, root))
