"""Decisions made before a function is printed: which loops print as Python `for`, which values keep a name.

The frontend lowers `for x in xs` to an index loop (a counter, `k < len(seq)` in the
header, `seq[k]`, `k + 1` in the latch).  `plan_for_loops` finds those loops whose
statements can all go back into one `for` line (`for x in xs`, `for k, x in
enumerate(xs)`, `for x, y in zip(xs, ys)`, `for k in range(n)`), and which statements
that line then consumes.  `_user_named` and `_unpacked_item` say which values must be
printed under a name rather than folded into the expression that uses them.  Apart from
the emitter (structure.py) because these look at the IR only, before any text exists.
"""
from __future__ import annotations

import operator
from typing import Any, Optional

from .. import ops
from ..ir.nodes import Branch, Call, Const, Function, Phi


class ForLoops:
    """What `plan_for_loops` decided; the emitter keeps these sets (and adds to `skip` as it prints)."""

    __slots__ = ("skip", "no_copy", "deferred", "loop_items", "forms")

    def __init__(self) -> None:
        self.skip: set = set()  # statements a `for` line stands for
        self.no_copy: set = set()  # loop counters: Python's `for` updates them
        self.deferred: set = set()  # iterables printed in their `for` line
        self.loop_items: set = set()  # extra `for` targets (zip form): always named
        self.forms: dict = {}  # header block -> (simple, counter, seq, length, item or None, latch, extras)


def plan_for_loops(fn: Function, use_count: dict) -> ForLoops:
    """Which `for` loops print as Python `for` statements, and in which form.

    The frontend's index loop tests `k < len(seq)` in its header each iteration, as
    Python's iteration of a list does (a list that grows while it is iterated is seen
    growing); `for x in xs` and `for k, x in enumerate(xs)` have exactly that behaviour.
    Loops built with the length computed once before them (the pullback's
    `for _ in range(count)`) print as `for k in range(n)`.
    """
    plan = ForLoops()
    for b in fn.blocks:
        info = b.loop
        if info is None or info.kind != "for":
            continue
        k, seq, n, item = info.counter, info.seq, info.length, info.item
        if not (isinstance(k, Phi) and k.block is b and isinstance(seq, Call) and isinstance(n, Call) and isinstance(item, Call)):
            continue
        br = b.term
        if not isinstance(br, Branch) or not isinstance(br.cond, Call) or not b.stmts or b.stmts[-1] is not br.cond:
            continue
        if use_count.get(br.cond, 0) != 1 or br.cond.args[:2] != [k, n]:
            continue
        # The length, when computed in the header: `len(seq)`, or `min(len(a), len(b))` of a zip.
        live = n.block is b
        chain: list = []
        if live:
            lens = list(n.args) if n.callee() is min else [n]
            if not all(isinstance(x, Call) and x.callee() is len and x.block is b and use_count.get(x, 0) == 1
                       for x in lens if x is not n) or n.callee() not in (len, min):
                continue
            chain = ([n] + [x for x in lens if x is not n]) if n.callee() is min else [n]
            if use_count.get(n, 0) != 1 or set(b.stmts) != set(chain) | {br.cond}:
                continue
        elif b.stmts != [br.cond]:
            continue
        latch = info.latch
        if latch is None or len(latch.stmts) != 1 or latch.stmts[0] is not k.incoming.get(latch):
            continue
        inc = latch.stmts[0]
        if use_count.get(inc, 0) != 1:
            continue
        k_uses = use_count.get(k, 0)  # the test, the increment, the item
        body_stmts = br.then.stmts
        item_is_first = item.block is br.then and body_stmts and body_stmts[0] is item
        # Items of other sequences read at the same index (e.g. the tangents): `for x, dx in zip(xs, dxs)`.
        extras = []
        for st in body_stmts[1:] if item_is_first else []:
            if st.callee() is operator.getitem and st.args[1] is k and not st.kwargs and not isinstance(st.args[0], Const):
                extras.append(st)
            else:
                break
        items_named = bool(item_is_first) and _user_named(item)
        simple = k_uses == 3 + len(extras) and items_named
        if not live and not simple:
            items_named = False  # `for k in range(n)`, the items read in the body
        if live and n.callee() is min:
            # A zip's loop stops at its shortest sequence: the printed header must name every sequence whose
            # length the test reads (`for r, x in zip(A, xs)`), or it would run on past the shortest one.
            shown = {seq, *(x.args[0] for x in extras)} if items_named else {seq}
            if not {x.args[0] for x in n.args if isinstance(x, Call) and x.callee() is len} <= shown:
                continue
        n_used_elsewhere = not live and use_count.get(n, 0) > 1  # e.g. recorded as a trip count: keep it
        consumed = {br.cond, inc} | set(chain)
        if items_named:
            consumed |= {item} | set(extras)
            plan.loop_items |= set(extras)
        if simple:
            consumed |= set() if n_used_elsewhere else {n}
            # The sequences only their lengths and the items read go with them: `for x, y in zip(xs, ys)`.
            lens_of = {x.args[0]: x for x in ([n] if n.callee() is len else n.args) if isinstance(x, Call) and x.callee() is len}
            for x in extras:
                sq = x.args[0]
                if (sq is not seq and sq in lens_of and lens_of[sq] in consumed and isinstance(sq, Call)
                        and sq.callee() is ops.sequence and use_count.get(sq, 0) == 2):
                    consumed.add(sq)
            n_is_len_of_seq = seq in lens_of and (lens_of[seq] in consumed)
            if not n_used_elsewhere and n_is_len_of_seq and use_count.get(seq, 0) == 2 and seq.callee() is ops.sequence:
                consumed.add(seq)
                it = seq.args[0]
                pre = seq.block
                if (
                    isinstance(it, Call) and it.block is pre and use_count.get(it, 0) == 1
                    and not _user_named(it) and all(x in consumed for x in pre.stmts[pre.stmts.index(it) + 1:])
                ):
                    consumed.add(it)
                    plan.deferred.add(it)
        plan.skip |= consumed
        plan.no_copy.add(k)
        plan.forms[b] = (simple, k, seq, n, item if items_named else None, latch, extras if items_named else [])
    return plan


def _unpacked_item(s: Any) -> bool:
    """`t[k]` of a tuple that is printed as a tuple assignment (`a, b = ...`): keep it named."""
    if s.callee() is not operator.getitem or not isinstance(s.args[1], Const):
        return False
    src = s.args[0]
    return isinstance(src, Call) and _tuple_size(src) is not None


_UNPACK_TANGENT: list = []


def _tuple_size(src: Call) -> Optional[int]:
    """How many items a call returns, when known from the call itself."""
    if not _UNPACK_TANGENT:
        from ..rules.builtin_rules import unpack_tangent  # (a function-level import runs each call: once here)

        _UNPACK_TANGENT.append(unpack_tangent)
    fn = src.callee()
    if (fn is ops.unpack or fn is _UNPACK_TANGENT[0]) and isinstance(src.args[1], Const):
        return src.args[1].value
    if fn is ops.unpack_star and all(isinstance(a, Const) for a in src.args[1:]):
        return src.args[1].value + 1 + src.args[2].value  # type: ignore[union-attr]
    return getattr(src, "tuple_size", None)


def _user_named(s: Any) -> bool:
    """Bound to a source variable (or given a readable hint): always printed under its name."""
    return bool(getattr(s, "hint", None)) and not s.hint.startswith("%")
