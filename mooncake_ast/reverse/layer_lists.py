"""The tuples a function reads from a list of tuples of float arrays: `for W, b in params:`.

`params = [(W1, b1), (W2, b2)]` typed `any:list:tuple:f.nn;f.n` (reverse/argument_kinds.kinds_of) is a typed list
(reverse/typed_lists.py) whose items are tuples.  Each item read (`item = params[i]`, also through the loop)
is taken apart right away, by unpacking (`W, b = item`) or by constant index (`item[0]`), and its parts are
only read (operations that make new arrays).  Then each part's adjoint is a local variable (`W_bar`,
`b_bar`), and the reverse of the item read hands the tuple of them to the list's adjoint
(`add_layer_adjoint(params_bar, (W_bar, b_bar), i)`), after which the variables start again from zero for the
next item.  Any other use of an item, or a part written, viewed or handed on, and the list keeps no type.
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Optional

from .. import ops
from ..ir.nodes import Call, Const, Value
from ..ir.types import Arr, Tup, literal
from .buffers import reads_only
from .cleanup import ZERO, is_zero
from .typed_dicts import item_var

if TYPE_CHECKING:
    from .transform import ReverseTransform


def parts_only_read(rt: "ReverseTransform", item: Call, t: Tup, uses: dict, root: Value) -> Optional[dict]:
    """{part read: (item, position, root)} and {unpack: (item, None, root)} if every use of item takes it apart
    and every part is only read; else None."""
    found: dict = {}
    for s, pos in uses.get(item, []):
        if not isinstance(s, Call) or pos != 0 or s.kwargs:
            return None
        fn = rt.resolver.callee(s)[0]
        if fn is ops.unpack and literal(s.args[1]) == len(t.items):
            found[s] = (item, None, root)
            for u, upos in uses.get(s, []):
                if not _part(rt, u, upos, t, item, root, uses, found):
                    return None
            continue
        if not _part(rt, s, pos, t, item, root, uses, found):
            return None
    return found


def _part(rt: "ReverseTransform", s: object, pos: object, t: Tup, item: Call, root: Value, uses: dict,
          found: dict) -> bool:
    if not isinstance(s, Call) or pos != 0 or s.kwargs or rt.resolver.callee(s)[0] is not operator.getitem:
        return False
    k = literal(s.args[1])
    if type(k) is not int or not -len(t.items) <= k < len(t.items):
        return False
    if isinstance(t.items[k], Arr) and not reads_only(rt, s, uses, None):
        return False  # (a part written, viewed or handed on: storage keeps it right)
    found[s] = (item, k % len(t.items), root)
    return True


def live(rt: "ReverseTransform", s: Value) -> bool:
    """Is s a part read or unpack of an item of a list that is still typed?"""
    info = rt.layer_parts.get(s)
    return info is not None and rt.typed_lists.get(info[2]) is info[2]


def _var(rt: "ReverseTransform", item: Value, k: int) -> str:
    return item_var(rt, "part", item, k, ZERO)


def reverse_part(rt: "ReverseTransform", s: Call) -> None:
    """`W = item[0]` (or the unpack's): W_bar added to the item's variable for position 0 (an unpack: nothing)."""
    item, k, _ = rt.layer_parts[s]
    if k is None:
        return
    g = rt.take_adj(s)
    if g is None:
        return
    var = _var(rt, item, k)
    cur = rt.b.read(var)
    rt.b.write(var, g if is_zero(cur) else rt.b.call(operator.add, [cur, g]))


def item_adjoint(rt: "ReverseTransform", item: Call, width: int) -> Value:
    """The item's adjoint, the tuple of its parts' variables, which then start again from zero."""
    parts = []
    for k in range(width):
        var = f"%part{id(item)}.{k}"
        parts.append(rt.b.read(var) if var in rt.item_vars else ZERO)
        if var in rt.item_vars:
            rt.b.write(var, ZERO)
    if all(isinstance(p, Const) and is_zero(p) for p in parts):
        return ZERO
    return rt.b.call(ops.tuple_of, parts)
