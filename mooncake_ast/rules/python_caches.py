"""Functions memoised with `functools.lru_cache` / `functools.cache`: differentiated as the function they wrap.

A memoised helper (`@functools.cache def basis(k, t): ...`) is a C object that looks its arguments up in a
table and calls the function it wraps on a miss.  The table is keyed by the arguments' values, so a hit returns
what the wrapped function returns for those arguments: the derivative is the wrapped function's, found by
dispatching the call to `__wrapped__` (the table is neither read nor filled by the derivative; the plain call
still uses it).  This assumes what memoising already assumes, that the wrapped function is pure.
"""
from __future__ import annotations

import functools
import types
from typing import Any

from ..tangents import NoTangent
from .python_callables import CALLS
from .registry import defrrule_at_run_time, defrule

_CACHE_WRAPPER = type(functools.lru_cache(maxsize=None)(lambda: None))


def call_cached_forward(f: Any, df: Any, args: tuple, dargs: tuple, kwargs: dict, dkwargs: dict) -> tuple:
    from ..forward.runtime import fcall

    return fcall(f.__wrapped__, df, args, dargs, kwargs, dkwargs)


def call_cached_reverse(f: Any, args: tuple, kwargs: dict) -> tuple:
    from ..reverse.runtime import rcall

    return rcall(f.__wrapped__, tuple(args), kwargs)


CALLS[_CACHE_WRAPPER] = (call_cached_forward, call_cached_reverse)


def frule_make_cache(args: tuple, dargs: tuple, **kwargs: Any) -> tuple:
    """`functools._lru_cache_wrapper(fn, maxsize, typed, info)` (what `functools.cache` / `lru_cache` call): the
    wrapper's tangent is fn's (a closure's cells' tangents), which `call_cached_forward` hands to fn's calls."""
    return _CACHE_WRAPPER(*args, **kwargs), dargs[0] if dargs else None


defrule(_CACHE_WRAPPER, frule_make_cache)


def rrule_make_cache(*args: Any, **kwargs: Any) -> tuple:
    """Reverse of the same: the wrapper's adjoint (from `call_cached_reverse`: fn's) goes back to fn."""
    y = _CACHE_WRAPPER(*args, **kwargs)

    def pullback(g: Any) -> tuple:
        return (g,) + (NoTangent,) * (len(args) - 1)

    return y, pullback


defrrule_at_run_time(_CACHE_WRAPPER, rrule_make_cache)


def unmemoised(f: Any) -> Any:
    """The function a memoised callable wraps (a bound method of a memoised method bound to the same object), or f:
    nested derivatives plan calls of it as the first-order rules dispatch them (CALLS above), so that a Hessian through
    `@functools.cache def basis(k, t)` or a memoised method is the wrapped function's (was refused at every second
    order: "the forward derivative of basis comes from a hand-written rule")."""
    t = type(f)
    if t is _CACHE_WRAPPER:
        return f.__wrapped__
    if t is types.MethodType and type(f.__func__) is _CACHE_WRAPPER:
        return types.MethodType(f.__func__.__wrapped__, f.__self__)
    return f
