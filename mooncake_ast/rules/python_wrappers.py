"""`functools.update_wrapper` and `functools.wraps` inside differentiated code (issue 12, realistic code:
a decorator defined in the function, `@functools.wraps(fn) def inner(*a): ...`).

update_wrapper(wrapper, wrapped, assigned, updated) copies names and the docstring (and `__dict__`, and
sets `__wrapped__`) from one function onto another and returns the wrapper itself: no number moves.  Run
plainly in both modes; the result is the wrapper, with the wrapper's tangent (forward mode) and its adjoint
going back to the wrapper (reverse mode).  Traced, its attribute writes onto a function were refused and
`wraps`' partial of it had no rule.  `wraps(fn)` is a partial of update_wrapper: its calls go through the
partial rules (python_callables.call_partial_forward / call_partial_reverse) to this one.
"""
from __future__ import annotations

import functools
from typing import Any

from ..tangents import NoTangent
from .registry import defrrule_at_run_time, defrule


def frule_update_wrapper(args: tuple, dargs: tuple, **kwargs: Any) -> tuple:
    y = functools.update_wrapper(*args, **kwargs)
    return y, (dargs[0] if y is args[0] else NoTangent)


def rrule_update_wrapper(*args: Any, **kwargs: Any) -> tuple:
    y = functools.update_wrapper(*args, **kwargs)

    def pullback(g: Any) -> tuple:
        return (g if y is args[0] else NoTangent,) + (NoTangent,) * (len(args) - 1)

    return y, pullback


defrule(functools.update_wrapper, frule_update_wrapper)
defrrule_at_run_time(functools.update_wrapper, rrule_update_wrapper)
