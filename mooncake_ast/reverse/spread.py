"""Adjoints kept as the scalar they are: what `np.sum(x)` and `np.mean(x)` hand back to x.

The adjoint of `s = np.sum(x)` is `s_bar` at every element of x.  Spreading it into an array
(`np.full(x.shape, s_bar)`) costs a pass over memory, and the next product another; a person
keeps the scalar and lets NumPy broadcast it: `x_bar = s_bar * 2.0 * x`.

A *spread* value is a pullback value v that stands for `np.broadcast_to(v, P.shape)` for a
primal value P (its target): v itself is a scalar, or an array that broadcasts into P's shape.
It stays a spread through elementwise arithmetic with operands that broadcast into that shape
(templates.py decides), and through the adjoint variable of a value that is defined and used
in one block (so no phi ever sees it).  Anything else reads a real array: a reduction, a
matrix product, a run-time helper, a call's pullback, a phi, the adjoints handed back; there
the spread becomes `np.full(P.shape, v)`, which is what the pullback computed before.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from .. import ops
from ..ir.nodes import Const, Phi, Stmt, Value
from ..ir.types import is_float_array

if TYPE_CHECKING:
    from .transform import ReverseTransform


class Spreads:
    """The spread values of one pullback under construction, and where they may live."""

    def __init__(self, rt: "ReverseTransform") -> None:
        self.rt = rt
        self.target: dict[Value, Value] = {}  # spread pullback value -> the primal whose shape it stands for
        self._local: Optional[set] = None
        self.made: dict[Value, Value] = {}  # spread -> the array made of it (materialize)

    def of(self, v: Any) -> Optional[Value]:
        """The target of v if v is a spread, else None."""
        if isinstance(v, Value) and not isinstance(v, Const):
            return self.target.get(v)
        return None

    def mark(self, v: Value, primal: Value) -> Value:
        self.target[v] = primal
        self.rt.dense_values.add(v)  # (a spread is a real value, never the symbolic zero)
        return v

    def new(self, g: Value, primal: Value) -> Value:
        """A new spread of g over primal's shape (a second name, so g itself keeps its meaning)."""
        alias = self.rt.b.call(ops.identity, [g])
        alias.alias = True  # type: ignore[attr-defined]  # (cleanup.drop_aliases prints g itself)
        return self.mark(alias, primal)

    def materialize(self, v: Any) -> Any:
        """v as a real array if it is a spread (`np.full(P.shape, v)`), else v unchanged."""
        p = self.of(v)
        if p is None:
            return v
        b = self.rt.b
        made = self.made.get(v)
        if made is not None and made.block is b.block:
            return made  # (made before, in this block: it is still there)
        shape = self.rt.primal_attr(p, "shape")
        out = self.made[v] = b.call(np.full, [shape, v])
        self.rt.dense_values.add(out)
        return out

    def keeps(self, v: Value) -> bool:
        """May the adjoint variable of v hold a spread?  Only if v is a float array defined and used in
        one block, not by a phi or a terminator: then every contribution and the read happen in that block's
        reverse, which starts it at zero (transform.rev_block)."""
        if self._local is None:
            rt = self.rt
            # (their adjoints live elsewhere; a state of a parameter updated in place shares its variable)
            owned = rt.buffers | rt.accumulators | rt.typed_dicts | rt.stored | set(rt.chain_of)
            self._local = {s for s in _block_local(rt.ir) if s not in owned and is_float_array(rt.type_of(s))}
        return v in self._local


def _block_local(fn: Any) -> set:
    used_in: dict[Value, set] = {}
    by_phi: set = set()  # read by a phi or a terminator: an adjoint comes in from outside the block's statements
    for b in fn.blocks:
        for phi in b.phis:
            by_phi.update(phi.incoming.values())
        for s in b.stmts:
            for o in s.operands():
                used_in.setdefault(o, set()).add(b)
        # (a returned value gets its adjoint on the return edge, before its block's statements are undone)
        by_phi.update(b.term.operands())  # type: ignore[union-attr]
    return {s for b in fn.blocks for s in b.stmts
            if isinstance(s, Stmt) and not isinstance(s, Phi) and s not in by_phi and used_in.get(s, {b}) <= {b}}
