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
    derived = _derived(rt)
    reach = _reachable(rt.rev)
    dropped: set = set()
    for b, r in restores:
        a, write = r.restores  # type: ignore[attr-defined]
        if isinstance(a, (Param, FreeVar)) or id(a) in returned or a not in rt.buffers:
            continue
        related = derived.get(id(a), {id(a)})
        if not _read_after(rt, b, r, related, reach):
            dropped.add(id(r))
    if not dropped:
        return
    kept_saves = set()
    for blk in rt.rev.blocks:
        blk.stmts = [s for s in blk.stmts if id(s) not in dropped]
        for s in blk.stmts:
            if getattr(s, "restores", None) is not None:
                kept_saves.add(id(s.restores[1]))  # type: ignore[attr-defined]
    for b, r in restores:
        write = r.restores[1]  # type: ignore[attr-defined]
        if id(r) in dropped and id(write) not in kept_saves:
            rt.saves.pop(write, None)  # nothing restores that slot: the forward pass need not save it


def _derived(rt: "ReverseTransform") -> dict:
    """Per buffer (by id): the ids of the buffer and of every forward value computed from it (views included)."""
    out: dict = {}
    for a in rt.buffers:
        seen = {id(a)}
        grew = True
        while grew:
            grew = False
            for b in rt.ir.blocks:
                for s in [*b.phis, *b.stmts]:
                    if id(s) in seen:
                        continue
                    if isinstance(rt.type_of(s), Num):
                        continue  # a number read or computed from the array is a value, not a view of it
                    operands = s.incoming.values() if isinstance(s, Phi) else (s.fn, *s.args, *s.kwargs.values())
                    if any(id(o) in seen for o in operands):
                        seen.add(id(s))
                        grew = True
        out[id(a)] = seen
    return out


def _reachable(fn: Any) -> dict:
    """Per block: the blocks a path can go on to from its end (itself too, when a loop comes back)."""
    out: dict = {}
    for b in fn.blocks:
        seen: set = set()
        stack = list(b.term.successors()) if b.term is not None else []
        while stack:
            x = stack.pop()
            if x in seen:
                continue
            seen.add(x)
            stack.extend(x.term.successors() if x.term is not None else [])
        out[b] = seen
    return out


def _reads(s: Any, related: set) -> bool:
    """Does pullback statement s read one of the `related` forward values (through its placeholders)?"""
    if getattr(s, "restores", None) is not None:
        operands = s.args[1:]  # (the array written is not read)
    else:
        operands = [s.fn, *s.args, *s.kwargs.values()] if isinstance(s, Call) else list(s.incoming.values())
    return any(id(getattr(o, "primal", None)) in related for o in operands)


def _read_after(rt: "ReverseTransform", b: Block, r: Call, related: set, reach: dict) -> bool:
    later = b.stmts[b.stmts.index(r) + 1:]
    if any(_reads(s, related) for s in later) or _term_reads(b, related):
        return True
    for x in reach[b]:
        if any(_reads(s, related) for s in [*x.phis, *x.stmts]) or _term_reads(x, related):
            return True
    return False


def _term_reads(b: Block, related: set) -> bool:
    return b.term is not None and any(id(getattr(o, "primal", None)) in related for o in b.term.operands())
