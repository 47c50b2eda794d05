"""`bisect.insort` (insort_right, insort_left) into a list of differentiable numbers, both modes (found by
scripts/audit_issue12b.py: "no forward rule for _bisect.insort_right").

An insertion only moves items, like heapq's operations (python_heapq.py, whose tags this reuses): the same insort
runs on tags that compare as their values do, so it makes every comparison on the plain values, and the list after
the call is described by where each item came from -- ("old", i) or ("arg", 1), the inserted item.  Forward mode
moves the list's tangents the same way; reverse mode routes the adjoint slots back (reverse/containers.route_slots,
as heapq and list.sort do) and restores the list in the pullback.  `key=` is applied to the tags' values.
"""
from __future__ import annotations

import bisect
from typing import Any

from ..tangents import NoTangent
from .python_heapq import _pick, _Tag
from .registry import defrrule_at_run_time, defrule


def _insert(fn: Any, a: list, x: Any, lo: int, hi: Any, key: Any) -> tuple:
    """(origins after the call, the list before it); `a` changed as `fn` changes it."""
    if not isinstance(a, list):
        raise TypeError(f"{fn.__name__}() of a {type(a).__name__}: mooncake_ast differentiates it for lists")
    before = list(a)
    tags = [_Tag(v, ("old", i)) for i, v in enumerate(before)]
    kw = {} if key is None else {"key": lambda tag: key(tag.value)}
    fn(tags, _Tag(x, ("arg", 1)), lo, len(tags) if hi is None else hi, **kw)
    origins = [t.origin for t in tags]
    a[:] = [before[o[1]] if o[0] == "old" else x for o in origins]
    return origins, before


def _split(args: tuple, kwargs: dict) -> tuple:
    a, x = args[0], args[1]
    lo = args[2] if len(args) > 2 else kwargs.get("lo", 0)
    hi = args[3] if len(args) > 3 else kwargs.get("hi", None)
    return a, x, lo, hi, kwargs.get("key", None)


def _forward_rule(fn: Any):
    def frule(args: tuple, dargs: tuple, **kwargs: Any) -> tuple:
        a, x, lo, hi, key = _split(args, kwargs)
        da, dx = dargs[0], dargs[1] if len(dargs) > 1 else NoTangent
        dbefore = list(da) if isinstance(da, list) else [NoTangent] * len(a)
        origins, _ = _insert(fn, a, x, lo, hi, key)
        if isinstance(da, list):
            da[:] = [_pick(o, dbefore, dx) for o in origins]
        elif dx is not NoTangent and dx is not None:
            raise NotImplementedError(f"forward mode of bisect.{fn.__name__}: this list has no tangent storage (make "
                                      "the list inside the differentiated function)")
        return None, NoTangent

    return frule


def _reverse_rule(fn: Any):
    def rrule(*args: Any, **kwargs: Any) -> tuple:
        from ..reverse.containers import route_slots

        a, x, lo, hi, key = _split(args, kwargs)
        origins, before = _insert(fn, a, x, lo, hi, key)
        after = list(a)

        def pullback(g: Any) -> tuple:
            sh, old_slots, bars = route_slots(a, before, after, origins, args)
            a[:] = before
            sh[:] = old_slots
            return (NoTangent, *bars[1:])

        return None, pullback

    return rrule


for _fn in {bisect.insort, bisect.insort_right, bisect.insort_left}:
    defrule(_fn, _forward_rule(_fn), mutates=(0,))
    defrrule_at_run_time(_fn, _reverse_rule(_fn))
