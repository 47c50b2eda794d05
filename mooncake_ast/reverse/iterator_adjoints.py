"""The adjoint of an iterator, slot by slot in the order it handed its items out (see lazy_iteration.py).

A loop over an iterator records the position of each item it pulled; a loop left by `break` and the reader
after it (`list(it)`, a second loop, the other half of `zip(it, it)`) each give the adjoints of their own
items, put at those positions, and the sums of such lists pad the shorter one (AdjList's `+` adds the common
slots only: right for two adjoints of one list, wrong for two readers of one iterator).
"""
from __future__ import annotations

from typing import Any

from ..tangents import NoTangent
from .adjoint_values import AdjList, accumulate


class IteratorAdjoint(AdjList):
    """Slot i: the adjoint of the i-th item the iterator handed out."""

    def __add__(self, other: Any) -> Any:
        if other is NoTangent or other is None:
            return self
        a, b = list(self), list(other)
        n = max(len(a), len(b))
        a += [NoTangent] * (n - len(a))
        b += [NoTangent] * (n - len(b))
        return IteratorAdjoint(accumulate(x, y) for x, y in zip(a, b))

    __radd__ = __add__


def positioned(gs: Any, positions: list) -> Any:
    """The adjoints `gs` of the items a loop read, at the positions those items had in their iterator (where the
    iterator does not count them, from its first: a loop over an iterator of Python's own, read by it alone)."""
    if gs is NoTangent or gs is None:
        return gs
    gs = list(gs)
    if not positions or any(p is None for p in positions) or positions == list(range(len(positions))):
        return gs  # (read from the first item on, by this reader alone: as a list's adjoint)
    out = [NoTangent] * (max(positions) + 1)
    for p, g in zip(positions, gs):
        out[p] = accumulate(out[p], g)
    return IteratorAdjoint(out)
