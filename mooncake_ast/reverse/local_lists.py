"""Lists of floats the function builds itself by appending: `terms = []`, `terms.append(x ** k / k!)`, `sum(terms)`.

A person's pullback for that keeps `terms_bar = [0.0] * len(terms)` (the list as it ends), adds each read's
adjoint into its slot, undoes each append by taking the last slot: `v_bar = terms_bar.pop()`, and a display's
items take the slots left at the end: `x_bar += terms_bar[0]`.  Nothing
else needs identity-keyed storage, because nothing else can reach the list.  Which lists:

* made empty (`[]`) or by a display of floats (`[x, 2.0 * x]`) where the code runs once per call (not in a loop, on every path to a return: the function's
  first block, or after a loop, as a comprehension or generator there makes its list), so its adjoint is made
  once, at the start of the pullback;
* only appended to (`terms.append(v)`, rewritten here to `list.append(terms, v)`: a list made by `[]` has
  the builtin method), every value appended (and every item of the display) a float;
* otherwise only read as reverse/typed_lists.py reads a list parameter (items by an int index, `len`, a loop
  over it, the reductions that make new values), never returned, stored, aliased by a phi or handed on.

The list is then typed `Lst(FLOAT)` (its items read as floats: plain arithmetic), and reverse/typed_lists.py
treats it as a read-only list parameter whose appends it also undoes.  `settle_types` drops the type where an
appended value turns out not to be a float.
"""
from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

from .. import ops
from ..ir.analysis import dominators, uses
from ..ir.nodes import Call, Const, Function, Return
from ..ir.types import FLOAT, Lst

if TYPE_CHECKING:
    from .transform import ReverseTransform

LIST_OF_FLOATS = Lst(FLOAT)


def rewrite_appends(fn: Function) -> None:
    """`getattr(xs, "append")(v)` is `list.append(xs, v)` where xs is a list made by `[]` here."""
    count = uses(fn)
    for b in fn.blocks:
        for s in b.stmts:
            m = s.fn
            if not (isinstance(m, Call) and m.callee() is builtins.getattr and len(m.args) == 2 and
                    isinstance(m.args[1], Const) and m.args[1].value == "append" and count.get(m) == 1 and
                    len(s.args) == 1 and not s.kwargs):
                continue
            xs = m.args[0]
            if isinstance(xs, Call) and xs.callee() is ops.list_of and not xs.kwargs:
                s.fn, s.args = Const(list.append), [xs, s.args[0]]
                m.block.stmts.remove(m)  # type: ignore[union-attr]


def candidates(fn: Function) -> set:
    """The lists (`[]`, or a display of items: `[x, y]`) made where the code runs once that the function only appends to (other uses: typed_lists
    checks)."""
    return {s for b in once_blocks(fn) for s in b.stmts
            if isinstance(s, Call) and s.callee() is ops.list_of and not s.kwargs and s not in s.args}


def once_blocks(fn: Function) -> set:
    """The blocks that run exactly once whenever the function returns: in no loop, dominating every return."""
    dom = dominators(fn)
    preds: dict = {}
    for b in fn.blocks:
        for t in b.successors():
            preds.setdefault(t, []).append(b)
    in_loop: set = set()
    for b in fn.blocks:
        for h in b.successors():
            if h in dom[b]:  # a back edge b -> h: its loop is h and what reaches b without passing h
                body, todo = {h}, [b]
                while todo:
                    x = todo.pop()
                    if x not in body:
                        body.add(x)
                        todo.extend(preds.get(x, []))
                in_loop |= body
    returns = [b for b in fn.blocks if isinstance(b.term, Return)]
    return {b for b in fn.blocks if b not in in_loop and b in dom and all(b in dom[r] for r in returns)}


def appends_keep_type(rt: "ReverseTransform", ir: Function) -> set:
    """The candidate lists something not a float is appended to."""
    bad = {s for s in rt.local_lists if any(rt.type_of(a) != FLOAT for a in s.args)}  # (a display's items)
    for b in ir.blocks:
        for s in b.stmts:
            if isinstance(s, Call) and s.callee() is list.append and s.args[0] in rt.local_lists and \
                    rt.type_of(s.args[1]) != FLOAT:
                bad.add(s.args[0])
    return bad
