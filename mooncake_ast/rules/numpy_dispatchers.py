"""NumPy functions without a rule of their own, differentiated through their Python implementation.

NumPy 2 wraps its Python-level functions (np.amax, np.unstack, np.linalg.matrix_norm, np.cumulative_sum,
...) in `_ArrayFunctionDispatcher` objects, written in C: they have no source, so they stopped on a
missing rule although what they run is Python code calling functions that have rules.  For NumPy
arrays, numbers and lists the dispatcher only calls its `_implementation`, so that function is what
is differentiated, as any Python function is (both modes).  Where an argument is another array type
that overrides `__array_function__` (CuPy, Dask, ...), the dispatcher would hand it to that library:
then nothing is done here and the missing-rule error stands.  A rule registered for the function
itself always wins (this is only asked when there is none: python_callables.call_rule).
"""
from __future__ import annotations

import types
from typing import Any, Optional

import numpy as np

from ..tangents import NoTangent

_DISPATCHER = type(np.amax) if type(np.amax).__name__ == "_ArrayFunctionDispatcher" else None


def _implementation(f: Any) -> Optional[types.FunctionType]:
    if _DISPATCHER is None or type(f) is not _DISPATCHER:
        return None
    impl = getattr(f, "_implementation", None)
    return impl if isinstance(impl, types.FunctionType) else None


def _overridden(values) -> bool:
    """Would NumPy's dispatch hand the call to another library (an argument overriding __array_function__)?"""
    for v in values:
        if isinstance(v, (list, tuple)):
            if _overridden(v):
                return True
            continue
        if isinstance(v, (np.ndarray, np.generic, float, int, complex, bool, str, type(None))):
            continue
        method = getattr(type(v), "__array_function__", None)
        if method is not None and method is not np.ndarray.__array_function__:
            return True
    return False


def call_rule(f: Any) -> Optional[tuple]:
    """(forward, reverse) call rules of a NumPy dispatcher with a Python implementation, or None."""
    return (call_forward, call_reverse) if _implementation(f) is not None else None


def call_forward(f, df, args, dargs, kwargs, dkwargs):
    from ..errors import MissingRuleError
    from ..forward.runtime import _all_zero, fcall
    from ..tangents import zero_tangent

    tangents = (*dargs, *dkwargs.values())
    if all(_all_zero(d) for d in tangents) and not any(isinstance(d, np.ndarray) for d in tangents):
        # Nothing differentiable goes in: the plain call, as for any callable without a rule.  Not for an array
        # whose tangent is storage, zero for now: the result may be that array or a view of it (np.astype(b,
        # copy=False), np.trim_zeros, np.unstack), and a later write through it must reach that storage.
        y = f(*args, **kwargs)
        return y, zero_tangent(y)
    if _overridden((*args, *kwargs.values())):
        raise MissingRuleError(f, "forward")
    return fcall(_implementation(f), NoTangent, tuple(args), tuple(dargs), kwargs, dkwargs)


def call_reverse(f, args, kwargs):
    from ..errors import MissingRuleError
    from ..reverse.runtime import _nondifferentiable, _zero_pullback, rcall

    if all(_nondifferentiable(a) for a in (*args, *kwargs.values())):
        return f(*args, **kwargs), _zero_pullback(len(args), kwargs)  # (nothing differentiable goes in)
    if _overridden((*args, *kwargs.values())):
        raise MissingRuleError(f, "reverse")
    y, pb = rcall(_implementation(f), tuple(args), kwargs)

    def pullback(g):
        _, a, k = pb(g)
        return NoTangent, a, k

    return y, pullback
