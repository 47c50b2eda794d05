"""Checks that an IR function is well formed; run on every IR built in tests.

One terminator per block; predecessor lists match the edges; each phi has one
incoming value per predecessor; every use of an SSA value is dominated by its
definition (for a phi operand: the definition dominates the end of that
predecessor).
"""
from __future__ import annotations

from .analysis import dominators
from .nodes import Call, Function, Stmt, Value


class IRError(AssertionError):
    pass


def verify(fn: Function) -> None:
    blocks = set(fn.blocks)
    for b in fn.blocks:
        if b.term is None:
            raise IRError(f"{b} has no terminator")
        for s in b.successors():
            if s not in blocks:
                raise IRError(f"{b} jumps to a block outside the function")
            if b not in s.preds:
                raise IRError(f"{b} -> {s} is missing from the predecessors of {s}")
        for p in b.preds:
            if b not in p.successors():
                raise IRError(f"{p} is listed as a predecessor of {b} but does not jump there")
        for phi in b.phis:
            if set(phi.incoming) != set(b.preds):
                raise IRError(f"phi {phi.hint} in {b} has incoming {sorted(map(str, phi.incoming))}, preds {sorted(map(str, b.preds))}")
            if phi.block is not b:
                raise IRError(f"phi {phi.hint} in {b} records another block")
        for s in b.stmts:
            if not isinstance(s, Call):
                raise IRError(f"{b} holds a non-call statement {s!r}")
            if s.block is not b:
                raise IRError(f"statement {s!r} in {b} records block {s.block}")

    dom = dominators(fn)
    position: dict[Value, tuple] = {}
    for b in fn.blocks:
        for i, phi in enumerate(b.phis):
            position[phi] = (b, -1)
        for i, s in enumerate(b.stmts):
            position[s] = (b, i)

    def check(use_block, use_index, v: Value, what: str) -> None:
        if not isinstance(v, Stmt):
            return
        if v not in position:
            raise IRError(f"{what} uses {v!r}, which is not in the function")
        db, di = position[v]
        if db is use_block:
            if di >= use_index:
                raise IRError(f"{what} in {use_block} uses {v!r} before its definition")
        elif db not in dom[use_block]:
            raise IRError(f"{what} in {use_block} uses {v!r} from {db}, which does not dominate it")

    for b in fn.blocks:
        for phi in b.phis:
            for p, v in phi.incoming.items():
                check(p, len(p.stmts) + 1, v, f"phi {phi.hint}")
        for i, s in enumerate(b.stmts):
            for v in s.operands():
                if isinstance(v, Stmt):  # (what check looks at: constants, globals and parameters need no call)
                    check(b, i, v, f"statement {i}")
        for v in b.term.operands():  # type: ignore[union-attr]
            check(b, len(b.stmts), v, "terminator")
