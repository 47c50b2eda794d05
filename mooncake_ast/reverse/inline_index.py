"""The index one round of reverse/inline.py's `inline_calls` keeps of the function it puts calls in line in.

Each call put in line asked questions of the whole function (which block holds this statement, what reads it, how
often, which global names the function reads) and answered them by a scan: for a long function calling helpers
all through, derivation grew with the square of its length (issue 11).  The index answers them from one pass per
round, kept up to date by each splice, so that a call costs about what its callee adds.
"""
from __future__ import annotations

import builtins
from typing import Any, Optional

from ..ir.analysis import uses
from ..ir.nodes import Block, Call, Function, Global


class InlineIndex:
    """What one round of inline_calls knows of the function, made in one pass and kept up to date as calls are
    put in line, so that each call costs about its callee's size, not the function's (issue 11: a long function
    calling helpers scanned itself whole for every call put in line).

    `block`: each statement's block.  `readers`: for each statement, the statements, phis and terminators that
    read it (some may read it no longer, or be gone: checked where asked).  `count`: uses(ir) as the round began
    (read only while the round looks for calls, before any changes).  `attribute_writes`: the `setattr` and
    `delattr` calls then.  `names`: None, or a superset of the global names the function reads now (exact when
    made; what each call put in line brings is added, nothing taken out), so that most calls need no look at
    the whole function to know their names do not clash."""

    def __init__(self, ir: Function) -> None:
        self.block: dict = {}
        self.readers: dict = {}
        for b in ir.blocks:
            self._add_block(b)
        self.count = uses(ir)
        self.attribute_writes = [st for b in ir.blocks for st in b.stmts
                                 if st.callee() in (builtins.setattr, builtins.delattr)]
        self.names: Optional[set] = None
        self.callee_names: set = set()  # (the global names of the callee _names_clash last passed)

    def _add_block(self, b: Block) -> None:
        for phi in b.phis:
            self._reads(phi)
        for st in b.stmts:
            self.block[st] = b
            self._reads(st)
        self._reads(b.term)

    def _reads(self, x: Any) -> None:
        for o in x.operands():
            if isinstance(o, Call):
                self.readers.setdefault(o, []).append(x)

    def add(self, st: Call, b: Block) -> None:
        self.block[st] = b
        self._reads(st)

    def remove(self, st: Call) -> None:
        self.block.pop(st, None)

    def spliced(self, s: Call, callee: Function, after: Block) -> None:
        """s's block was split at s (what followed it is `after`'s now), the callee's blocks put in between."""
        self.block.pop(s, None)
        for st in after.stmts:
            self.block[st] = after
        for b in callee.blocks:
            self._add_block(b)  # (after's terminator is the one s's block had: its reads are known already)

    def _live(self, x: Any) -> bool:
        return not isinstance(x, Call) or x in self.block

    def read(self, v: Call) -> int:
        """How many times the function reads v now (as _uses counts)."""
        return sum(1 for x in {id(x): x for x in self.readers.get(v, ())}.values() if self._live(x)
                   for o in x.operands() if o is v)

    def substitute(self, old: Call, new: Any) -> None:
        """cleanup.substitute(ir, {old: new}), on the readers of old only."""
        readers = {id(x): x for x in self.readers.get(old, ())}.values()
        for x in readers:
            if self._live(x) and any(o is old for o in x.operands()):
                x.replace_operand(old, new)
                if isinstance(new, Call):
                    self.readers.setdefault(new, []).append(x)

    def brought(self, callee_names: set, args: dict) -> None:
        if self.names is not None:
            self.names |= callee_names
            self.names.update(a.name for a in args.values() if isinstance(a, Global))
