"""Restores nobody reads: `y[i] = old` in the pullback of an array the function made and keeps to itself.

The pullback of `y[i] = v` puts back what the write overwrote, so that what the pullback reads of y
afterwards (in its own order: earlier in the forward pass) is what the forward pass read.  For an
array the function made (`y = np.zeros_like(x)`), does not return, and whose values the rest of the
pullback never reads -- the in-place recurrence `y[i] = 0.5 * y[i - 1] + np.tanh(x[i])` reads y only
at the return, before any restore runs -- the restores are dead: the forward pass then keeps neither
the old values nor the reads that saved them (a person writing the gradient by hand keeps neither).

A restore is dropped when no pullback statement that can run after it (later in its block, or in any
block reachable from it, loops included) reads the array or a value computed from it.  Arguments,
returned arrays and arrays anything else can reach keep their restores (buffers.py admits only arrays
whose every use is an index, a write, a NumPy operation making a new array, or a return).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ir.nodes import Block, Call, FreeVar, Param, Phi, Return
from ..ir.types import Num

if TYPE_CHECKING:
    from .transform import ReverseTransform


def drop_dead_restores(rt: "ReverseTransform") -> None:
    restores = [(b, s) for b in rt.rev.blocks for s in b.stmts if getattr(s, "restores", None) is not None]
    if not restores:
        return
    returned = {id(b.term.value) for b in rt.ir.blocks if isinstance(b.term, Return)}
    related: dict = {}  # id(array) -> ids of it and of the forward values computed from it
    read_beyond: dict = {}  # (block, id(array)) -> does a block reachable from the block's end read it?
    dropped: set = set()
    for b, r in restores:
        a = r.restores[0]  # type: ignore[attr-defined]
        if isinstance(a, (Param, FreeVar)) or id(a) in returned or a not in rt.buffers:
            continue
        if a in rt.buffer_webs and any(id(m) in returned for m in rt.buffer_webs[a]):
            continue  # (a loop-carried buffer: the array its phi returns was written under another name)
        if id(a) not in related:
            related[id(a)] = _derived(rt, a)
        rel = related[id(a)]
        if (b, id(a)) not in read_beyond:
            read_beyond[(b, id(a))] = any(_block_reads(x, rel, x.stmts) for x in _reachable(b))
        later = b.stmts[b.stmts.index(r) + 1:]
        if not (read_beyond[(b, id(a))] or _block_reads(b, rel, later)):
            dropped.add(id(r))
    if not dropped:
        return
    for blk in rt.rev.blocks:
        blk.stmts = [s for s in blk.stmts if id(s) not in dropped]
    kept = {id(r.restores[1]) for _, r in restores if id(r) not in dropped}  # type: ignore[attr-defined]
    for _, r in restores:
        write = r.restores[1]  # type: ignore[attr-defined]
        if id(r) in dropped and id(write) not in kept:
            rt.saves.pop(write, None)  # nothing restores that slot: the forward pass need not save it


def _derived(rt: "ReverseTransform", a: Any) -> set:
    """The ids of buffer a and of every forward value computed from it (views included)."""
    seen = {id(a)}
    grew = True
    while grew:
        grew = False
        for b in rt.ir.blocks:
            for s in [*b.phis, *b.stmts]:
                if id(s) in seen or isinstance(rt.type_of(s), Num):
                    continue  # (a number read or computed from the array is a value, not a view of it)
                operands = s.incoming.values() if isinstance(s, Phi) else (s.fn, *s.args, *s.kwargs.values())
                if any(id(o) in seen for o in operands):
                    seen.add(id(s))
                    grew = True
    return seen


def _reachable(b: Block) -> set:
    """The blocks a path can go on to from b's end (b too, when a loop comes back)."""
    seen: set = set()
    stack = list(b.term.successors()) if b.term is not None else []
    while stack:
        x = stack.pop()
        if x not in seen:
            seen.add(x)
            stack.extend(x.term.successors() if x.term is not None else [])
    return seen


def _block_reads(b: Block, related: set, stmts: list) -> bool:
    """Do these statements of b (with b's phis when they are all of them) or b's terminator read a related value?"""
    phis = b.phis if stmts is b.stmts else []
    return any(_reads(s, related) for s in [*phis, *stmts]) or _term_reads(b, related)


def _reads(s: Any, related: set) -> bool:
    """Does pullback statement s read one of the `related` forward values (through its placeholders)?"""
    if getattr(s, "reads_layout", False):
        return False  # (`np.zeros_like(a)`: a's shape and dtype, which no write changes)
    if getattr(s, "restores", None) is not None:
        operands = s.args[1:]  # (the array written is not read)
    else:
        operands = [s.fn, *s.args, *s.kwargs.values()] if isinstance(s, Call) else list(s.incoming.values())
    return any(id(getattr(o, "primal", None)) in related for o in operands)


def _term_reads(b: Block, related: set) -> bool:
    return b.term is not None and any(id(getattr(o, "primal", None)) in related for o in b.term.operands())
