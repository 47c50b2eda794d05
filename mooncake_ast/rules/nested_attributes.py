"""`getattr(obj, name)` dispatched by forward code, for derivatives of derivatives.

Forward code reads a field of a user object with `obj.name` and `_mc.getattr_tangent(obj, dobj, name, value)`
directly, but dispatches `getattr` where the read runs inside a `try` body or a generator
(`guarded_call(getattr, (obj, name), {})`) or where the name is a variable (`getattr(obj, f.name)`):
`_mc.fcall(getattr, ...)`.  Differentiated again, a field's read is `getattr_fwd` below, the read and its
tangent as forward code writes them (getattr_tangent has rules of its own at every order: nested_helpers' twins),
and a property's is its getter's forward code.
"""
from __future__ import annotations

import types
from typing import Any, Optional

from ..forward import objects as _objects
from ..tangents import NoTangent
from .builtin_attributes import getattr_tangent


def getattr_fwd(o, name, do, dname):
    """`getattr(o, name)` of a field of a user object, and its tangent."""
    v = getattr(o, name)
    return v, getattr_tangent(o, do, name, v)


def getattr_plan(args: tuple, dargs: tuple) -> Optional[Any]:
    """The plan of `fcall(getattr, NoTangent, (o, name), (do, dname))` for a user object o and a string name whose
    class attribute is not a descriptor other than a Python property, or None."""
    from .nested_plans import _api, _picked, _plain_plan

    if len(args) != 2 or not isinstance(args[1], str):
        return None
    o, name = args
    do = _api()._expand(dargs, 2)[0]
    attr = _objects._special(type(o), name)
    if isinstance(attr, property):
        if not isinstance(attr.fget, types.FunctionType):
            return None
        return _picked(_api()._plan(attr.fget, NoTangent, (o,), (do,)), (0,), 2)
    if name not in getattr(o, "__dict__", {}) and hasattr(attr, "__get__") and not isinstance(attr, types.FunctionType):
        return None  # (a descriptor: a slot, a classmethod, a user's __get__; refused by the caller)
    plan = _plain_plan(getattr_fwd, (o, name, do, NoTangent), 2)
    plan.inactive = frozenset({1, 3})  # (the name)
    return plan
