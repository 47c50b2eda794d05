"""Which named SSA values are live at the same time, as bit masks (one bit per named value).

Two values clash when one is live just after the other is defined.  The naming pass asks this of
pairs of groups, and asks which names the groups clashing with one group hold.  Sets of values
per block and a list of clashing pairs grow with the square of a long function: in a 1000-branch
elif chain some 5000 values (the tape's stacks, made at the entry and read at the end) are live
everywhere, so every block holds them all and they clash pairwise (12 million pairs).  Python
integers used as bit sets keep the same answers at a cost of a few machine words per operation:
liveness is one mask per block, and each value keeps one mask, the values live just after its
definition; "a and b clash" is then `b in after[a] or a in after[b]`, never a list of pairs.
"""
from __future__ import annotations

from typing import Iterable

from ..ir.analysis import reverse_postorder, used_value
from ..ir.nodes import Block, Function, Value


class LiveAfter:
    """`bit[v]`: the bit of each named value; `after[v]`: the mask of the named values live just
    after v is defined (without v; for a phi, with all its block's phis, defined together at the
    block's entry; for a parameter, with the others and what is live into the entry).  Values
    that are not named are not tracked: a value's liveness does not depend on any other's."""

    def __init__(self, fn: Function, named: Iterable[Value]) -> None:
        self.bit: dict[Value, int] = {v: 1 << i for i, v in enumerate(named)}
        self.after: dict[Value, int] = {}
        bit = self.bit
        reads = {}  # operand -> the bit of the named value it reads (0: none), memoised

        def read(v: Value) -> int:
            b = reads.get(v)
            if b is None:
                u = used_value(fn, v)
                b = reads[v] = bit.get(u, 0) if u is not None else 0
            return b

        phis: dict[Block, int] = {}
        for b in fn.blocks:
            m = 0
            for phi in b.phis:
                m |= bit.get(phi, 0)
            phis[b] = m
        live_in, live_out = self._liveness(fn, read, phis)
        after = self.after
        for b in fn.blocks:
            live = live_out.get(b, 0)
            for v in b.term.operands():  # type: ignore[union-attr]
                live |= read(v)
            for s in reversed(b.stmts):
                own = bit.get(s, 0)
                if own:
                    live &= ~own
                    after[s] = after.get(s, 0) | live
                for v in s.operands():
                    live |= read(v)
            live &= ~phis[b]
            for phi in b.phis:
                own = bit.get(phi, 0)
                if own:
                    after[phi] = after.get(phi, 0) | ((live | phis[b]) & ~own)
        params = [p for p in fn.params if p in bit]
        if params:
            together = live_in.get(fn.entry, 0)
            for p in params:
                together |= bit[p]
            for p in params:
                after[p] = after.get(p, 0) | (together & ~bit[p])

    @staticmethod
    def _liveness(fn: Function, read, phis: dict[Block, int]) -> tuple[dict[Block, int], dict[Block, int]]:
        """Live-in and live-out masks of the reachable blocks (a phi's operand is live out of its
        predecessor, not into the phi's block): the usual backward fixed point."""
        use_b: dict[Block, int] = {}
        def_b: dict[Block, int] = {}
        phi_uses: dict[Block, int] = {}
        for b in fn.blocks:
            defs = phis[b]
            used = 0
            for s in b.stmts:
                for v in s.operands():
                    used |= read(v) & ~defs
                defs |= read(s)
            for v in b.term.operands():  # type: ignore[union-attr]
                used |= read(v) & ~defs
            use_b[b], def_b[b] = used, defs
            for phi in b.phis:
                for p, v in phi.incoming.items():
                    phi_uses[p] = phi_uses.get(p, 0) | read(v)
        order = reverse_postorder(fn)[::-1]
        live_in = dict.fromkeys(order, 0)
        live_out = dict.fromkeys(order, 0)
        changed = True
        while changed:
            changed = False
            for b in order:
                out = phi_uses.get(b, 0)
                for s in b.successors():
                    out |= live_in.get(s, 0) & ~phis[s]
                inn = use_b[b] | (out & ~def_b[b])
                if out != live_out[b] or inn != live_in[b]:
                    live_out[b], live_in[b] = out, inn
                    changed = True
        return live_in, live_out
