"""Dead-code removal by mark and sweep, shared by both transforms.

Templates build derivative terms eagerly (a term multiplied by a zero tangent
is still built), and reverse mode builds adjoint code for values nobody reads;
this pass removes every statement and phi that no root needs.  Roots are the
terminators' operands and whatever statements the caller says must stay
(user code, writes, calls with effects).
"""
from __future__ import annotations

from typing import Callable

from .nodes import Function, Stmt


def sweep(fn: Function, is_root: Callable[[Stmt], bool]) -> None:
    live: set = set()
    work: list = []
    for b in fn.blocks:
        work.extend(p for p in b.phis if is_root(p))
        work.extend(s for s in b.stmts if is_root(s))
        work.extend(v for v in b.term.operands() if isinstance(v, Stmt))  # type: ignore[union-attr]
    while work:
        v = work.pop()
        if v in live:
            continue
        live.add(v)
        work.extend(o for o in v.operands() if isinstance(o, Stmt) and o not in live)
    for b in fn.blocks:
        b.phis = [p for p in b.phis if p in live]
        b.stmts = [s for s in b.stmts if s in live]
