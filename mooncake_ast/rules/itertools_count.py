"""`itertools.count(start, step)` in differentiated code (issue 12: `for k, v in zip(itertools.count(1), x)`).

count is infinite, so no rule can read it whole; its items are `start + k * step`.

* Forward mode sees the tangents: a count whose start and step are constants (integers, or floats with zero
  tangents) is a constant iterator there; a differentiated start or step is refused by name.
* Reverse mode is refused by name, with what to write instead: the derivative's record of a loop over
  `zip(count(), x)` reads the zipped iterators again to their end (lazy_iteration.py), which for count has none (it
  ran out of memory), and a count of floats may carry a derivative of its start or step that the call cannot see.
  `enumerate(x, start)` numbers items in both modes.
"""
from __future__ import annotations

import itertools
from typing import Any

from ..tangents import NoTangent
from .registry import defrrule_at_run_time, defrule

_HOW = "number the items with enumerate (`for k, v in enumerate(x, start)`), and compute a float count's value " \
       "from the number (`t = start + k * step`)"


def _bound(args: tuple, kwargs: dict) -> tuple:
    names = ("start", "step")
    bound = dict(zip(names, args), **kwargs)
    return bound.get("start", 0), bound.get("step", 1)


def _zero(d: Any) -> bool:
    if d is NoTangent or d is None:
        return True
    try:
        return not bool(d != 0)
    except (TypeError, ValueError):
        return False


def frule_count(args: tuple, dargs: tuple, _mc_dkwargs: Any = None, **kwargs: Any) -> tuple:
    tangents = list(dargs) + list((_mc_dkwargs or {}).values())
    if not all(_zero(d) for d in tangents):
        raise NotImplementedError(f"derivative of itertools.count with a differentiated start or step: {_HOW}")
    return itertools.count(*args, **kwargs), NoTangent


frule_count.sees_keyword_tangents = True  # (forward/runtime.fcall hands it the keywords' tangents)


def rrule_count(*args: Any, **kwargs: Any) -> tuple:
    start, step = _bound(args, kwargs)
    raise NotImplementedError(f"reverse mode of itertools.count({start!r}, {step!r}): an infinite iterator, which the "
                              f"derivative of the loop reading it cannot record; {_HOW}")


def register() -> None:
    """Registered on first need (registry._LAZY_TABLES)."""
    defrule(itertools.count, frule_count)
    defrrule_at_run_time(itertools.count, rrule_count)
