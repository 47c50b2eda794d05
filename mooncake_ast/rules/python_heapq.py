"""`heapq`'s in-place heap operations (heappush, heappop, heapify, heapreplace, heappushpop), both modes (issue 12,
realistic code: a priority queue of differentiable costs, k-smallest by pushing and popping).

They are C functions that only move items: each call is described by where every item of the list after the
call came from -- ("old", i), position i before it, or ("arg", 1), the pushed item -- and by which item it
returns.  That map is found by running the same heapq function on tags that compare as their items do (`<`
only, as heapq compares), so heapq itself makes every comparison it makes on the plain values and the list
ends exactly as the plain call leaves it.  Forward mode moves the list's tangents the same way and returns the
popped item's tangent; reverse mode routes the adjoint slots back (reverse/containers.route_slots, as list.sort
and list.pop do) and restores the list in the pullback.
"""
from __future__ import annotations

import heapq
from typing import Any

from ..tangents import NoTangent, is_mutable
from .registry import defrrule_at_run_time, defrule


class _Tag:
    __slots__ = ("value", "origin")

    def __init__(self, value: Any, origin: tuple) -> None:
        self.value, self.origin = value, origin

    def __lt__(self, other: "_Tag") -> bool:
        return self.value < other.value


def _run(fn: Any, heap: list, pushed: tuple) -> tuple:
    """(origins after the call, the origin of the returned item or None); `heap` changed as `fn` changes it."""
    before = list(heap)
    tags = [_Tag(v, ("old", i)) for i, v in enumerate(before)]
    out = fn(tags, *[_Tag(v, ("arg", 1)) for v in pushed])
    origins = [t.origin for t in tags]
    heap[:] = [before[o[1]] if o[0] == "old" else pushed[0] for o in origins]
    return origins, (out.origin if isinstance(out, _Tag) else None), before


def _pick(origin: tuple, olds: list, new: Any) -> Any:
    return olds[origin[1]] if origin[0] == "old" else new


def _forward_rule(fn: Any):
    """The forward rule: the list's tangents moved as its items move, the returned item's tangent from before."""

    def frule(args: tuple, dargs: tuple, **kwargs: Any) -> tuple:
        if kwargs:
            fn(*args, **kwargs)  # (raises Python's TypeError)
        heap, pushed = args[0], tuple(args[1:])
        if not isinstance(heap, list):
            raise TypeError(f"{fn.__name__}() argument 1 must be list, not {type(heap).__name__}")
        dheap = dargs[0]
        dpushed = dargs[1] if len(dargs) > 1 else NoTangent
        dbefore = list(dheap) if isinstance(dheap, list) else [NoTangent] * len(heap)
        origins, out, before = _run(fn, heap, pushed)
        if isinstance(dheap, list):
            dheap[:] = [_pick(o, dbefore, dpushed) for o in origins]
        elif dpushed is not NoTangent and dpushed is not None and any(o[0] == "arg" for o in origins):
            raise NotImplementedError(f"forward mode of heapq.{fn.__name__}: this list has no tangent storage (make "
                                      "the heap inside the differentiated function)")
        if out is None:
            return None, NoTangent
        return _pick(out, before, pushed[0] if pushed else None), _pick(out, dbefore, dpushed)

    return frule


def _reverse_rule(fn: Any):
    def rrule(*args: Any, **kwargs: Any) -> tuple:
        from ..reverse.adjoints import accumulate
        from ..reverse.containers import route_slots

        if kwargs:
            fn(*args, **kwargs)  # (raises Python's TypeError)
        heap, pushed = args[0], tuple(args[1:])
        if not isinstance(heap, list):
            raise TypeError(f"{fn.__name__}() argument 1 must be list, not {type(heap).__name__}")
        origins, out, before = _run(fn, heap, pushed)
        after = list(heap)
        y = None if out is None else _pick(out, before, pushed[0] if pushed else None)

        def pullback(g: Any) -> tuple:
            sh, old_slots, bars = route_slots(heap, before, after, origins, args)
            if out is not None and not is_mutable(y) and g is not None and g is not NoTangent:
                if out[0] == "old":
                    old_slots[out[1]] = accumulate(old_slots[out[1]], g)
                else:
                    bars[1] = accumulate(bars[1], g)
            heap[:] = before
            sh[:] = old_slots
            return (NoTangent, *bars[1:])

        return y, pullback

    return rrule


for _fn in (heapq.heappush, heapq.heappop, heapq.heapify, heapq.heapreplace, heapq.heappushpop):
    defrule(_fn, _forward_rule(_fn), mutates=(0,))
    defrrule_at_run_time(_fn, _reverse_rule(_fn))
