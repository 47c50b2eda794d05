"""`x[1].item()` in forward code, for derivatives of derivatives: the conversion of a NumPy float scalar (or a 0-d float
array) to a Python float, whose tangent is its tangent's conversion.

At first order forward code reads the method's tangent (`getattr_tangent(t, dt, 'item', t.item)`: the method tangent of
dt) and dispatches the call; nested, the read is the method tangent again (nested_helpers.getattr_twin) and the call is
planned as plain Python, scalar_item_forward(a, da) = (float(a), float(da)), whose adjoints go back to the scalar and
its tangent through their method adjoints (as an array method's: nested_array_methods.py)."""
from __future__ import annotations

import types
from typing import Any, Optional

import numpy as np

from ..reverse.adjoints import MethodAdjoint
from ..tangents import MethodTangent, NoTangent


def is_scalar_item(f: Any, args: tuple) -> bool:
    """`a.item()` of a real NumPy float scalar or 0-d float array, with no arguments."""
    if args or not isinstance(f, types.BuiltinMethodType) or f.__name__ != "item":
        return False
    a = getattr(f, "__self__", None)
    return isinstance(a, np.floating) or (type(a) is np.ndarray and a.ndim == 0 and a.dtype.kind == "f")


def scalar_item_forward(a, da):
    """(a.item(), its tangent): a Python float and its tangent's."""
    return float(a), float(da)


def _self_t(t: Any) -> Any:
    return t.self_tangent if isinstance(t, MethodTangent) else NoTangent


def item_plan(f: Any, df: Any) -> Optional[Any]:
    from .nested_plan_kit import _Plan, _dense_one

    a = f.__self__
    da = _dense_one(df.self_tangent if isinstance(df, MethodTangent) else NoTangent, a)
    if isinstance(da, np.ndarray) and da.shape != () or not isinstance(da, (float, np.floating, np.ndarray)):
        return None
    plan = _Plan(scalar_item_forward, (a, da), lambda b: (MethodAdjoint(b[0]), (), ()),
                 lambda tf, targs, tdargs, tdf=NoTangent: (_self_t(tf), _self_t(tdf)))
    plan.df_bar = lambda b: MethodAdjoint(b[1])
    plan.takes_df = True
    return plan
