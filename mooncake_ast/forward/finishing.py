"""The passes that finish forward code once every tangent statement is in place: tangent code nothing needs is
dropped, each source line prints its primal statements before its tangent ones, the `math` functions tangent code
calls inside loops are looked up once at the entry, and the IR is verified where MOONCAKE_AST_VERIFY asks.

They change where statements sit, never what they compute; transform.py (ForwardTransform.run) calls them.
"""
from __future__ import annotations

import math as math_module
import types

from .. import ops
from ..ir.dce import sweep
from ..ir.nodes import Call, Const, Function, Stmt
from .resolver import StaticResolver


def _hoist_math_functions(ir: Function) -> None:
    """`cos = math.cos` once at the entry for the `math` functions the tangent code calls inside loops, so that each
    iteration reads a local (`dx * i * cos(t)`) instead of a global and its attribute: some 3% of a scalar loop's
    forward pass.  Only the derivative's own calls: the user's `math.sin(x)` is looked up as the user wrote it."""
    in_loop = _blocks_in_loops(ir)
    hoisted: dict = {}
    for b in ir.blocks:
        if b not in in_loop:
            continue
        for s in b.stmts:
            f = s.fn.value if isinstance(s.fn, Const) else None
            if not getattr(s, "derived", False) or not isinstance(f, types.BuiltinFunctionType) or \
                    getattr(f, "__module__", None) != "math" or getattr(f, "__self__", None) is not math_module:
                continue
            h = hoisted.get(f)
            if h is None:
                h = hoisted[f] = Call(Const(ops.identity), [Const(f)], loc=ir.loc)
                h.derived = True  # type: ignore[attr-defined]
                h.hint = f.__name__  # type: ignore[attr-defined]
                h.block = ir.entry
            s.fn = h
    if hoisted:
        ir.entry.stmts[:0] = list(hoisted.values())



def _blocks_in_loops(ir: Function) -> set:
    """The blocks on a cycle of the control-flow graph: those of a strongly connected component of more than
    one block, or with an edge to themselves.  Tarjan's algorithm with an explicit stack, linear in the graph's
    size (a search from every block cost the square of a long function's: 7 s of a 2400-line one's profile)."""
    index: dict = {}
    low: dict = {}
    on_stack: set = set()
    stack: list = []
    out: set = set()
    for root in ir.blocks:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(root.successors()))]
        while work:
            v, succ = work[-1]
            for w in succ:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(w.successors())))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    u = work[-1][0]
                    low[u] = min(low[u], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w is v:
                            break
                    if len(component) > 1 or any(c is v for c in v.successors()):
                        out.update(component)
    return out



def _verify_if_asked(ir: Function) -> None:
    import os

    if os.environ.get("MOONCAKE_AST_VERIFY"):
        from ..ir.verifier import verify

        verify(ir)



def remove_dead_derived(ir: Function) -> None:
    """Drop tangent code whose result nothing needs (templates build terms eagerly)."""
    sweep(ir, lambda st: not getattr(st, "derived", False) or getattr(st, "effect", False))



def primal_first(stmts: list, resolver: "StaticResolver") -> list:
    """Within one source line, print the primal statements before the tangent ones.

    Readers see the user's line intact (`s = s + math.sin(t)`), then its
    tangent.  Only done when no statement of the line writes memory or
    dispatches at run time, so moving tangent code later cannot change what it reads.
    """
    out: list = []
    i = 0
    while i < len(stmts):
        line = getattr(stmts[i].loc, "line", None)
        j = i
        while j < len(stmts) and getattr(stmts[j].loc, "line", None) == line:
            j += 1
        group = stmts[i:j]
        if line is not None and all(_movable(st, resolver) for st in group):
            out += [st for st in group if not getattr(st, "derived", False)]
            out += [st for st in group if getattr(st, "derived", False)]
        else:
            out += group
        i = j
    return out



def _movable(st: Call, resolver: "StaticResolver") -> bool:
    if getattr(st, "effect", False) or getattr(st, "tuple_size", None):
        return False
    if getattr(st, "derived", False):
        return True
    fn, rule = resolver.callee(st)
    if fn is None:
        return isinstance(st.fn, Stmt) is False and False
    return rule is not None and not rule.mutates and (rule.jvp is not None or rule.zero)
