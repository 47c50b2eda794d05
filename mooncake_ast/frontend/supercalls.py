"""`super().name(...)` in differentiated methods.

Python's zero-argument `super()` reads the method's hidden `__class__` cell and its first
argument; generated code has neither, so the frontend passes both explicitly.  And a
`super` object is a proxy the derivative code cannot see through (the instance's tangent
would be lost behind it), so `super(C, obj).name(args)` is lowered as

    super_function(C, obj, "name")(obj, args)

an ordinary call of the function `super` finds, with the instance passed as an argument,
so its tangent or adjoint flows like any other argument's.
"""
from __future__ import annotations

import types
from typing import Any, Callable

from ..rules import registry


def super_function(cls: type, obj: Any, name: str) -> Callable:
    """What `super(cls, obj).name` finds, as a callable that takes `obj` first."""
    attr = getattr(super(cls, obj), name)
    if isinstance(attr, types.MethodType) and attr.__self__ is obj and isinstance(attr.__func__, types.FunctionType):
        return attr.__func__  # the usual case: a method defined in Python
    return _without_instance(attr)  # a static or class method, a builtin slot (object.__init__), ...


def _without_instance(attr: Any) -> Callable:
    def call(_instance, *args, **kwargs):
        return attr(*args, **kwargs)

    return call


# Finding the function is not differentiable: only the call that follows it is.
registry.defzero(super_function)
