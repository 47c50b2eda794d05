"""`np.add(a, b, out=(c,))` is `np.add(a, b, out=c)`: a one-result ufunc takes its output either way.

The transforms' rules for `out=` read the output array from the keyword; a tuple holding it looked like no array
at all to them (forward mode gave the written array a zero tangent, silently; reverse mode failed).  Only where
the callee is known when the derivative is made to be a NumPy ufunc with one result: for anything else (a
function of the user's with an `out` parameter) the tuple is what it is.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import ops
from .nodes import Call, Function


def single_out_tuples(ir: Function, resolve: Callable[[Any], Any]) -> None:
    """Rewrite `out=(c,)` of one-result ufuncs as `out=c` (`resolve` gives the callable a callee value denotes)."""
    for b in ir.blocks:
        for s in b.stmts:
            out = s.kwargs.get("out") if s.kwargs else None
            if not (isinstance(out, Call) and out.callee() is ops.tuple_of and len(out.args) == 1 and not out.kwargs):
                continue
            fn = resolve(s.fn)
            if isinstance(fn, np.ufunc) and fn.nout == 1:
                s.kwargs = {**s.kwargs, "out": out.args[0]}
