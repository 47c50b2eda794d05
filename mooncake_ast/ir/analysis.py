"""CFG analyses shared by the transforms and the emitter: dominators, orders, liveness."""
from __future__ import annotations

from typing import Optional

from .nodes import Block, FreeVar, Function, Param, Stmt, Value


def reverse_postorder(fn: Function) -> list[Block]:
    seen: set[Block] = set()
    order: list[Block] = []

    def visit(b: Block) -> None:
        stack = [(b, iter(b.successors()))]
        seen.add(b)
        while stack:
            node, it = stack[-1]
            for s in it:
                if s not in seen:
                    seen.add(s)
                    stack.append((s, iter(s.successors())))
                    break
            else:
                stack.pop()
                order.append(node)

    visit(fn.entry)
    return order[::-1]


def dominators(fn: Function) -> dict[Block, set[Block]]:
    """Dominator sets by the iterative data-flow method (functions are small)."""
    order = reverse_postorder(fn)
    everything = set(order)
    dom = {b: set(everything) for b in order}
    dom[fn.entry] = {fn.entry}
    changed = True
    while changed:
        changed = False
        for b in order[1:]:
            preds = [p for p in b.preds if p in dom]
            new = set.intersection(*(dom[p] for p in preds)) if preds else set()
            new = new | {b}
            if new != dom[b]:
                dom[b] = new
                changed = True
    return dom


def uses(fn: Function) -> dict[Value, int]:
    """How many times each SSA value is used (statements, phis, terminators, loop info)."""
    count: dict[Value, int] = {}
    for b in fn.blocks:
        for phi in b.phis:
            for v in phi.incoming.values():
                count[v] = count.get(v, 0) + 1
        for s in b.stmts:
            for v in s.operands():
                count[v] = count.get(v, 0) + 1
        for v in b.term.operands():  # type: ignore[union-attr]
            count[v] = count.get(v, 0) + 1
    return count


def used_value(fn: Function, v: Value) -> Optional[Value]:
    """The named value an operand reads: itself (a statement or parameter), or for a closure
    variable the function object that holds the closure (printed `f.__closure__[i]`)."""
    if isinstance(v, (Stmt, Param)):
        return v
    if isinstance(v, FreeVar):
        return getattr(fn, "self_ref", None)
    return None


def liveness(fn: Function) -> tuple[dict[Block, set[Value]], dict[Block, set[Value]]]:
    """Live-in and live-out sets of SSA values (phi operands are live out of their predecessor)."""
    use_b: dict[Block, set[Value]] = {}
    def_b: dict[Block, set[Value]] = {}
    phi_uses: dict[Block, set[Value]] = {b: set() for b in fn.blocks}
    for b in fn.blocks:
        defs: set[Value] = set(b.phis)
        used: set[Value] = set()
        for s in b.stmts:
            for v in s.operands():
                u = used_value(fn, v)
                if u is not None and u not in defs:
                    used.add(u)
            defs.add(s)
        for v in b.term.operands():  # type: ignore[union-attr]
            u = used_value(fn, v)
            if u is not None and u not in defs:
                used.add(u)
        use_b[b], def_b[b] = used, defs
        for phi in b.phis:
            for p, v in phi.incoming.items():
                u = used_value(fn, v)
                if u is not None:
                    phi_uses[p].add(u)
    live_in = {b: set() for b in fn.blocks}
    live_out = {b: set() for b in fn.blocks}
    order = reverse_postorder(fn)[::-1]
    changed = True
    while changed:
        changed = False
        for b in order:
            out = set(phi_uses[b])
            for s in b.successors():
                out |= live_in[s] - set(s.phis)
            inn = use_b[b] | (out - def_b[b])
            if out != live_out[b] or inn != live_in[b]:
                live_out[b], live_in[b] = out, inn
                changed = True
    return live_in, live_out
