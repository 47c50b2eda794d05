"""`np.add.reduce(A, axis)` & co. in forward code, for derivatives of derivatives: the NumPy function that means the
same (`np.sum(A, axis=axis)`), whose nested plan is plain NumPy every order differentiates.

At first order ufunc.reduce and ufunc.accumulate have hand-written rules (numpy_ufunc_methods.py), which have no
derivative of their own, so a second order through them was refused.  For the ufuncs whose reduction is a NumPy
function -- add (np.sum, np.cumsum), multiply (np.prod, np.cumprod), maximum and minimum (np.max, np.min) -- the call
is that function's, with the ufunc method's default axis (0, where the functions default to all axes) given
explicitly.  Only float arrays (an integer array's reduction keeps its dtype where np.sum widens it) and the array
with an axis (positional or by keyword); dtype=, keepdims=, initial=, where= keep the refusal (out= goes to
nested_out.py, which asks here too).
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

_REDUCE = {np.add: np.sum, np.multiply: np.prod, np.maximum: np.max, np.minimum: np.min}
_ACCUMULATE = {np.add: np.cumsum, np.multiply: np.cumprod}


def equivalent(f: Any) -> Optional[Any]:
    """The NumPy function of a ufunc's reduce / accumulate bound method (np.add.reduce -> np.sum), else None."""
    owner = getattr(f, "__self__", None)
    if not isinstance(owner, np.ufunc):
        return None
    table = {"reduce": _REDUCE, "accumulate": _ACCUMULATE}.get(getattr(f, "__name__", None))
    return table.get(owner) if table is not None else None


def as_function(f: Any, args: Any, kwargs: Any) -> Optional[tuple]:
    """(the function, the axis) of the call `f(*args, **kwargs)` of a ufunc method with an equivalent (the axis
    made explicit), or None where there is none or the call gives more than the array and its axis."""
    fn = equivalent(f)
    if fn is None:
        return None
    kwargs = dict(kwargs or {})
    args = tuple(args)
    if not set(kwargs) <= {"axis"} or not 1 <= len(args) <= 2 or (len(args) == 2 and kwargs):
        return None
    a = args[0]
    if type(a) is not np.ndarray or a.dtype.kind != "f":
        return None
    axis = args[1] if len(args) == 2 else kwargs.get("axis", 0)  # (0: the ufunc method's default; np.sum's is all)
    if not _constant_axis(axis):
        return None
    return fn, axis


def _constant_axis(axis: Any) -> bool:
    if axis is None or (isinstance(axis, (int, np.integer)) and not isinstance(axis, bool)):
        return True
    return isinstance(axis, tuple) and all(isinstance(a, (int, np.integer)) for a in axis)


def function_plan(same: tuple, df: Any, args: tuple, dargs: tuple, reverse: bool) -> Any:
    """The plan of the ufunc method's call (args: the array[, the axis]) as the plan of `fn(array, axis)`, its
    adjoints and tangents cut to the call's arguments."""
    from .api_rules import _expand, _plan
    from .nested_plan_kit import _Plan
    from ..tangents import NoTangent

    fn, axis = same
    n = len(args)
    inner = _plan(fn, df, (args[0], axis), (_expand(dargs, n)[0], NoTangent), None, reverse)

    def split(b: Any) -> tuple:
        f_bar, a_bar, d_bar = inner.split(b)
        return f_bar, tuple(_expand(a_bar, 2))[:n], tuple(_expand(d_bar, 2))[:n]

    def outer(tf: Any, targs: Any, tdargs: Any) -> tuple:
        return inner.outer(tf, (_expand(targs, n)[0], NoTangent), (_expand(tdargs, n)[0], NoTangent))

    plan = _Plan(inner.fn, inner.call_args, split, outer, grad_of=inner.grad_of)  # (layout None: its own arguments)
    plan.inactive = inner.inactive
    return plan
