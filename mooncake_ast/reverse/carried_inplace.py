"""In-place updates of a loop-carried array, `u += alpha * lap` in a time-stepping loop, made `u = u + alpha * lap`.

`u = u0.copy()`, then `for _ in range(steps): ...; u += alpha * lap` is how people write explicit solvers.  An
in-place update needs the array's old contents kept for the pullback and its adjoint kept by identity (every
name of the object shares it), so the whole loop falls back to the generic helpers.  A person differentiating
the loop by hand reads the update as `u_next = u + alpha * lap`, which it is whenever nothing can tell the two
apart: nothing holds the array of one iteration (or a view of it) past the update that changes it.  This module
checks exactly that, on the SSA form, for `v` the loop header's phi of the array and `s` the update:

* the phi joins two values: the array entering the loop, made by this function (a copy, an arithmetic result)
  and read by nothing else but new-array operations before the loop, and `s` itself on the back edge;
* inside the loop, every other reader of `v` runs before `s` in the iteration (in a block that dominates s's,
  before `s` in its own block) and makes a new array of it, or takes a view (`u[2:]`, `u.T`) that only such
  readers read; `v` read after the loop is the last update's array either way;
* what reads the update's result inside the loop makes a new array of it (nothing keeps it, or a view, into the
  next iteration, where it would be updated in place), and the update's operand broadcasts into the array
  without changing its shape.

Then prepare.plain_inplace rewrites the update as the plain operation, and typed reverse mode treats the
array as the value it is.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Optional

from ..ir.analysis import dominators
from ..ir.nodes import Block, Call, Function, Phi
from ..ir.op_types import makes_new_array
from ..ir.types import AVal, is_float_array, literal


class LoopFacts:
    """What the check needs of the function, made once per plain_inplace pass: where each phi and statement
    lives, who reads what, dominators."""

    def __init__(self, ir: Function, readers: dict) -> None:
        self.ir = ir
        self.readers = readers
        self.phi_block: dict = {}
        self.phi_readers: dict = {}  # value -> [(phi, its block)]
        self.term_readers: dict = {}  # value -> [block whose terminator reads it]
        self.position: dict = {}
        self.block_of: dict = {}
        for b in ir.blocks:
            for phi in b.phis:
                self.phi_block[phi] = b
                for x in phi.incoming.values():
                    self.phi_readers.setdefault(x, []).append((phi, b))
            for k, s in enumerate(b.stmts):
                self.position[s] = k
                self.block_of[s] = b
            for x in b.term.operands():  # type: ignore[union-attr]
                self.term_readers.setdefault(x, []).append(b)
        self._dom: Any = None

    @property
    def dom(self) -> Any:
        if self._dom is None:
            self._dom = dominators(self.ir)
        return self._dom


def _loop_blocks(header: Block, latch: Block) -> set:
    """The natural loop of the back edge latch -> header: blocks that reach the latch without the header."""
    body = {header, latch}
    work = [latch]
    while work:
        b = work.pop()
        if b is header:
            continue
        for p in b.preds:
            if p not in body:
                body.add(p)
                work.append(p)
    return body


def carried_type(facts: LoopFacts, s: Call, v: Phi, types: dict, callee: Callable) -> Optional[AVal]:
    """The float array type of v if the in-place update s of v (a loop header's phi) can be the plain
    operation (see the module docstring), else None."""
    header = facts.phi_block.get(v)
    if header is None or len(v.incoming) != 2:
        return None
    latch = next((b for b, x in v.incoming.items() if x is s), None)
    if latch is None:
        return None
    init = next(x for b, x in v.incoming.items() if b is not latch)
    t = types.get(init)
    if not (isinstance(init, Call) and is_float_array(t) and
            (makes_new_array(callee(init)[0]) or getattr(init, "plain_inplace", False))):
        return None
    loop = _loop_blocks(header, latch)
    s_block = facts.block_of.get(s)
    if s_block not in loop:
        return None
    # The array entering the loop: nothing but new-array operations before the loop read it.
    init_block = facts.block_of.get(init)
    if facts.phi_readers.get(init, []) != [(v, header)] or facts.term_readers.get(init) or any(
            facts.block_of.get(r) is not init_block or not makes_new_array(callee(r)[0])
            for r in facts.readers.get(init, [])):
        return None
    if not _reads_before(facts, v, s, s_block, loop, callee, views=True):
        return None
    # The update's result: read in the loop only to make new arrays (and by the header's phi, and after the loop).
    if any(b in loop and phi is not v for phi, b in facts.phi_readers.get(s, [])) or \
            any(b in loop for b in facts.term_readers.get(s, [])):
        return None
    if any(facts.block_of.get(r) in loop and (r.fn is s or not makes_new_array(callee(r)[0]))
           for r in facts.readers.get(s, [])):
        return None
    return t


def _reads_before(facts: LoopFacts, v: Any, s: Call, s_block: Block, loop: set, callee: Callable,
                  views: bool) -> bool:
    """Does every reader of v inside the loop (but s) run before s in the iteration and make a new array of it
    (or, if views, take a view that only such readers read)?"""
    if any(b in loop for _, b in facts.phi_readers.get(v, [])) or any(b in loop for b in facts.term_readers.get(v, [])):
        return False
    for r in facts.readers.get(v, []):
        if r is s:
            continue
        b = facts.block_of.get(r)
        if b not in loop:
            continue  # (after the loop: the last update's array, in place or not)
        if b is s_block:
            if facts.position[r] >= facts.position[s]:
                return False
        elif b not in facts.dom.get(s_block, ()):
            return False
        if r.fn is v:
            return False
        if makes_new_array(callee(r)[0]):
            continue
        if not (views and _view(r, v, callee) and _reads_before(facts, r, s, s_block, loop, callee, views=False)):
            return False
    return True


def _view(r: Call, v: Any, callee: Callable) -> bool:
    """Is r a view of v that reads nothing else differentiable (`v[2:]`, `v[i]`, `v.T`)?"""
    fn = callee(r)[0]
    if fn is operator.getitem:
        return len(r.args) == 2 and r.args[0] is v and r.args[1] is not v and not r.kwargs
    return fn is getattr and len(r.args) == 2 and r.args[0] is v and literal(r.args[1]) == "T"
