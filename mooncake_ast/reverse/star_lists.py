"""Star-unpacking a list of floats (or of float arrays): `first, *rest = xs`, `*init, last = xs`, read as reads of
the list.

`ops.unpack_star(xs, before, after)` gives `(xs[0], ..., xs[before:len - after], ..., xs[-1])`.  When xs is a
list of floats or float arrays reverse/typed_lists.py keeps (`xs_bar` a plain list of adjoints) and the tuple is
only taken apart by constant positions (what the frontend makes of a starred assignment), each single item is a read of
xs at a constant index (`xs_bar[0] += first_bar`, `xs_bar[-1] += last_bar`), and the starred part a new list
(reverse/local_lists.py, a slice of xs: `add_slice(xs_bar, slice(1, None), rest_bar)`).  The unpacking itself
still runs in the forward pass, so too short a list raises Python's error as before.
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from .. import ops
from ..ir.nodes import Call, Const, Function
from ..ir.types import _BOTTOM, FLOAT, UNKNOWN, Lst, is_float_array
from . import adjoints as adj

if TYPE_CHECKING:
    from .transform import ReverseTransform

LIST_OF_FLOATS = Lst(FLOAT)


def find(fn: Function) -> dict:
    """part statement -> (the unpack_star statement, its position), for unpackings taken apart by constant positions
    only (the unpack_star statement itself maps to None)."""
    users: dict = {}
    for b in fn.blocks:
        for p in b.phis:
            for v in p.incoming.values():
                users.setdefault(v, []).append(None)
        for s in b.stmts:
            for a in [s.fn, *s.args, *s.kwargs.values()]:
                users.setdefault(a, []).append(s)
        for v in b.term.operands():  # type: ignore[union-attr]
            users.setdefault(v, []).append(None)
    out: dict = {}
    for b in fn.blocks:
        for u in b.stmts:
            if not (isinstance(u, Call) and u.callee() is ops.unpack_star and len(u.args) == 3 and not u.kwargs and
                    all(isinstance(a, Const) and type(a.value) is int and a.value >= 0 for a in u.args[1:])):
                continue
            n = u.args[1].value + u.args[2].value + 1  # type: ignore[union-attr]
            parts = users.get(u, [])
            if parts and all(isinstance(p, Call) and p.callee() is operator.getitem and len(p.args) == 2 and
                             p.args[0] is u and isinstance(p.args[1], Const) and type(p.args[1].value) is int and
                             0 <= p.args[1].value < n and not p.kwargs for p in parts):
                out[u] = None
                out.update({p: (u, p.args[1].value) for p in parts})
    return out


def is_rest(rt: "ReverseTransform", s: Any) -> bool:
    """Is s the starred part of such an unpacking (a new list)?"""
    part = rt.star_parts.get(s)
    return part is not None and part[1] == part[0].args[1].value


def part_type(rt: "ReverseTransform", s: Call, of: Any) -> Any:
    """The type of a part: a float, or a list of floats for the starred one, when xs is a list of floats."""
    u, _ = rt.star_parts[s]
    t = of(u.args[0])
    if t is _BOTTOM:
        return t
    if not kept(t):
        return UNKNOWN
    return t if is_rest(rt, s) else t.item


def kept(t: Any) -> bool:
    """A list of floats or of float arrays (reverse/typed_lists.py keeps both)."""
    return isinstance(t, Lst) and (t.item == FLOAT or is_float_array(t.item))


def bad_rests(rt: "ReverseTransform") -> set:
    """The starred parts kept as lists of their own whose list turned out not to be a list of floats."""
    return {s for s in rt.local_lists if is_rest(rt, s) and not kept(rt.type_of(rt.star_parts[s][0].args[0]))}


def reads_only(rt: "ReverseTransform", u: Call, item_only_read: Any) -> bool:
    """Is u an unpacking (of a typed list) this module undoes: its starred part a list kept as the function's own, and
    (arrays) each single item only read (`item_only_read`: typed_lists._item_only_read)?"""
    if rt.star_parts.get(u, 1) is not None:
        return False
    for p, part in rt.star_parts.items():
        if part is None or part[0] is not u:
            continue
        if p not in rt.local_lists if is_rest(rt, p) else is_float_array(rt.type_of(p)) and not item_only_read(p):
            return False
    return True


def live(rt: "ReverseTransform", s: Any) -> bool:
    """Is s an unpacking of a typed list this module undoes, or one of its parts?"""
    if s not in rt.star_parts:
        return False
    u = s if rt.star_parts[s] is None else rt.star_parts[s][0]
    return u.args[0] in rt.typed_lists and (not is_rest(rt, s) or rt.typed_lists.get(s) is s)


def reverse(rt: "ReverseTransform", s: Call, add_slice: Any) -> None:
    """`first = parts[0]`: `xs_bar[0] += first_bar`; `rest = parts[1]`:
    `add_slice(xs_bar, slice(1, None), rest_bar)`."""
    part = rt.star_parts.get(s)
    if part is None:
        return  # (the unpacking itself: its parts carry the adjoints)
    u, j = part
    before, after = u.args[1].value, u.args[2].value  # type: ignore[union-attr]
    root = rt.typed_lists[u.args[0]]
    if is_rest(rt, s):
        if rt.active(s) and rt.active(root):
            index = rt.b.call(slice, [Const(before), Const(-after if after else None), Const(None)])
            st = rt.b.call(add_slice, [rt.read_adj(root), index, rt.read_adj(s)])
            st.keep = True  # type: ignore[attr-defined]
        if s in rt.run_lists:
            rt.b.write(rt._var(s), rt.zero(s))
        return
    g = rt.take_adj(s)
    if g is None or not rt.active(root):
        return
    add = ops.add_to_item if rt.is_num(s) or rt.is_dense(g) else adj.add_to_item_unless_zero
    st = rt.b.call(add, [rt.read_adj(root), g, Const(j if j < before else j - before - 1 - after)])
    st.keep = True  # type: ignore[attr-defined]
