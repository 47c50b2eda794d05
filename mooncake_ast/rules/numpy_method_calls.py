"""ndarray methods that are a NumPy function with the array at another place, or that write into the array
(issue 12): `a.put(ind, v)` is np.put(a, ind, v), `a.compress(cond, axis)` is np.compress(cond, a, axis).

A bound method of an array reaches python_callables.call_rule (no registered rule); its derivative is the
function's, run through fcall / rcall with the array placed where the function takes it, and the adjoints
handed back to the method's self and arguments.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..tangents import MethodTangent, NoTangent

# name -> (function, position of self among the function's arguments)
METHODS = {"put": (np.put, 0), "compress": (np.compress, 1)}


def _place(pos: int, self: Any, args: tuple) -> tuple:
    return (*args[:pos], self, *args[pos:])


def call_forward(f, df, args, dargs, kwargs, dkwargs):
    from ..forward.runtime import fcall

    fn, pos = METHODS[f.__name__]
    dself = df.self_tangent if isinstance(df, MethodTangent) else NoTangent
    return fcall(fn, NoTangent, _place(pos, f.__self__, tuple(args)), _place(pos, dself, tuple(dargs)), kwargs, dkwargs)


def call_reverse(f, args, kwargs):
    from ..reverse.adjoints import AdjTuple, MethodAdjoint
    from ..reverse.runtime import rcall

    fn, pos = METHODS[f.__name__]
    y, pb = rcall(fn, _place(pos, f.__self__, tuple(args)), kwargs)

    def pullback(g):
        _, bars, named = pb(g)
        bars = list(bars) + [NoTangent] * (len(args) + 1 - len(bars))
        return MethodAdjoint(bars[pos]), AdjTuple(bars[:pos] + bars[pos + 1:]), named

    return y, pullback


def call_rule(f: Any) -> Any:
    if isinstance(getattr(f, "__self__", None), np.ndarray) and getattr(f, "__name__", None) in METHODS:
        return call_forward, call_reverse
    return None
