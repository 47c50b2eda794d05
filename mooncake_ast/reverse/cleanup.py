"""Pullback clean-ups once it is built: additions of the zero it starts from, and second names.

Adjoint variables start at zero, and loops make `0 + g` visible only after SSA is built;
spread.py and reassociate.py give values second names (`ops.identity`, marked `alias`) for
their own bookkeeping, which the printed pullback does not need.
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .. import ops
from ..ir.nodes import Call, Const, Function, Phi, Value
from ..tangents import NoTangent
from . import adjoints as adj

ZERO = Const(NoTangent)
NUM_ZERO = Const(0.0)


def is_zero(v: Value) -> bool:
    return v is ZERO or v is NUM_ZERO


def fold_zero_additions(fn: Function, dense: Any = lambda v: True) -> None:
    """`0 + g` is `g`: adjoint variables start at zero, and loops make that visible only after SSA is built.
    (`0.0 + g` is a number even where g is the symbolic zero; unless `dense(g)`, it becomes
    `number_adjoint(g)`, which keeps that.)"""
    replace: dict[Value, Value] = {}
    for b in fn.blocks:
        keep = []
        for s in b.stmts:
            if s.callee() in (operator.add, adj.accumulate) and len(s.args) == 2 and not s.kwargs:
                a, c = (replace.get(x, x) for x in s.args)
                if is_zero(a) and is_zero(c):
                    replace[s] = a
                    continue
                if a is NUM_ZERO and not is_zero(c) and s.callee() is operator.add and not dense(c):
                    s.fn, s.args = Const(adj.number_adjoint), [c]
                    keep.append(s)
                    continue
                if is_zero(a) and not is_zero(c):
                    replace[s] = c
                    continue
                if is_zero(c) and not is_zero(a) and s.callee() is adj.accumulate:
                    replace[s] = a
                    continue
            keep.append(s)
        b.stmts = keep
    substitute(fn, replace)




def drop_aliases(fn: Function) -> None:
    """Uses of a second name (an `alias` identity) read the value itself."""
    replace = {s: s.args[0] for b in fn.blocks for s in b.stmts
               if getattr(s, "alias", False) and s.callee() is ops.identity and len(s.args) == 1}
    if replace:
        for b in fn.blocks:
            b.stmts = [s for s in b.stmts if s not in replace]
        substitute(fn, replace)


def remove_redundant_phis(fn: Function) -> None:
    """Phis that, together with other phis, only ever carry one value are that value.

    Building SSA removes a phi whose operands are one value (Braun et al.'s trivial phis), but not a cycle of
    phis that only pass one value around: nested loops whose adjoint variable is zero on entry and zeroed again
    before each back edge give `outer = phi(0.0, inner)`, `inner = phi(outer, 0.0)`, and every `r_bar + g`
    on them stays an addition.  Each strongly connected group of phis with exactly one operand from outside
    the group is replaced by that operand (repeated: a replacement can make an enclosing group redundant)."""
    while True:
        replace = _redundant_phi_groups([p for b in fn.blocks for p in b.phis])
        if not replace:
            return
        for b in fn.blocks:
            b.phis = [p for p in b.phis if p not in replace]
        substitute(fn, replace)
        for b in fn.blocks:
            if b.loop is not None:
                for attr in ("counter", "seq", "length", "item"):
                    v = getattr(b.loop, attr)
                    while v in replace:
                        v = replace[v]
                        setattr(b.loop, attr, v)


def _redundant_phi_groups(phis: list) -> dict:
    """{phi: the one value it stands for} for the strongly connected groups of phis that carry a single value."""
    live = set(phis)
    index: dict = {}
    low: dict = {}
    stack: list = []
    on_stack: set = set()
    groups: list = []

    def visit(root: Phi) -> None:  # Tarjan's algorithm, iteratively (long chains of loops)
        work = [(root, iter([v for v in root.incoming.values() if v in live]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            p, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter([v for v in nxt.incoming.values() if v in live])))
                elif nxt in on_stack:
                    low[p] = min(low[p], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[p])
            if low[p] == index[p]:
                group = set()
                while True:
                    q = stack.pop()
                    on_stack.discard(q)
                    group.add(q)
                    if q is p:
                        break
                groups.append(group)

    for p in phis:
        if p not in index:
            visit(p)
    replace: dict = {}
    for group in groups:  # (Tarjan gives operands' groups first: replacements are already known there)
        outside = set()
        for p in group:
            for v in p.incoming.values():
                while v in replace:
                    v = replace[v]
                if v not in group:
                    outside.add(v)
        if len(outside) == 1:
            value = outside.pop()
            for p in group:
                replace[p] = value
    return replace


def substitute(fn: Function, replace: dict) -> None:
    """Every use of a key of `replace` reads its value instead (following chains)."""
    if not replace:
        return

    def res(v: Value) -> Value:
        while v in replace:
            v = replace[v]
        return v

    for b in fn.blocks:
        for phi in b.phis:
            phi.incoming = {p: res(v) for p, v in phi.incoming.items()}
        for s in b.stmts:
            for o in list(s.operands()):
                if res(o) is not o:
                    s.replace_operand(o, res(o))
        for o in list(b.term.operands()):  # type: ignore[union-attr]
            if res(o) is not o:
                b.term.replace_operand(o, res(o))  # type: ignore[union-attr]


_PURE = (operator.add, operator.sub, operator.mul, operator.truediv, operator.neg, operator.pos)
# Calls that change no object: values read before and after one of them are the same.
_READS_ONLY = frozenset([*_PURE, operator.pow, operator.matmul, operator.getitem, getattr, ops.identity, ops.tuple_of,
                         np.full, np.zeros_like, np.sum, np.outer, np.expand_dims, np.copy, float])


def writes_nothing(s: Any) -> bool:
    """Does the pullback statement s certainly leave every object as it was?  (A pullback restores the
    arrays the forward pass changed, in place: a product read before the restore is not the same after.)"""
    fn = s.callee() if isinstance(s, Call) else None
    if getattr(s, "primal", None) is not None:
        return True  # a placeholder for a value of the tape
    if fn is None or getattr(s, "keep", False):
        return False
    try:
        if fn in _READS_ONLY:
            return True
    except TypeError:
        return False
    return isinstance(fn, np.ufunc) and "out" not in s.kwargs


def share_repeats(fn: Function) -> None:
    """The same arithmetic on the same values twice in a block is computed once: the pullback of `y * y`
    reads `t = g * y; y_bar = t + t`, not `g * y` twice.  Only operators, and only between statements that
    change no object (a restored array is not the one the first product read)."""
    replace: dict = {}
    for b in fn.blocks:
        seen: dict = {}
        keep = []
        for s in b.stmts:
            if s.callee() in _PURE and not s.kwargs and not getattr(s, "keep", False):
                key = (s.callee(), *(id(replace.get(a, a)) for a in s.args))
                if key in seen:
                    replace[s] = seen[key]
                    continue
                seen[key] = s
            elif not writes_nothing(s):
                seen.clear()
            keep.append(s)
        b.stmts = keep
    substitute(fn, replace)
