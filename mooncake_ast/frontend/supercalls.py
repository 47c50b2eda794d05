"""`super().name(...)` in differentiated methods.

Python's zero-argument `super()` reads the method's hidden `__class__` cell and its first
argument; generated code has neither, so the frontend passes both explicitly.  And a
`super` object is a proxy the derivative code cannot see through (the instance's tangent
would be lost behind it), so `super(C, obj).name(args)` is lowered as

    super_function(C, type(obj), "name")(obj, args)

(in a classmethod, zero-argument `super()` is `super(C, cls)`: `super_class_function(C, cls, "name")(cls, args)`,
which binds a parent's classmethod to cls),

an ordinary call of the function `super` would find, with the instance passed as an
argument, so its tangent or adjoint flows like any other argument's.  Finding the function
reads only classes and a name: nothing differentiable flows in, so both modes call it
plainly (it is a builtin-style callable with no Python source, on purpose: no rule needed).
"""
from __future__ import annotations

import functools
import types
from typing import Any, Callable

_AS_IS = (types.FunctionType, types.WrapperDescriptorType, types.MethodDescriptorType)


def _find(cls: type, typ: type, name: str) -> Callable:
    """What `super(cls, obj).name` finds (obj of type `typ`), as a callable taking obj first."""
    mro = typ.__mro__
    if cls not in mro:
        from ..errors import MooncakeError

        raise MooncakeError(
            f"super() with {cls.__qualname__}: the instance is not a {cls.__qualname__} (two-argument super(C, cls) "
            "inside a classmethod is not supported by mooncake_ast: write super() with no arguments, or call the "
            "parent class's method by name, e.g. Base.method.__func__(cls, ...))")
    for klass in mro[mro.index(cls) + 1:]:
        if name in vars(klass):
            raw = vars(klass)[name]
            break
    else:
        raise AttributeError(f"'super' object has no attribute {name!r}")
    if isinstance(raw, _AS_IS):
        return raw  # raw(obj, *args) is exactly super(cls, obj).name(*args)
    if isinstance(raw, staticmethod):
        return _without_instance(raw.__func__)
    if isinstance(raw, classmethod):
        return _without_instance(raw.__get__(None, typ))
    return _looked_up_when_called(cls, name)


def _find_for_class(cls: type, klass: type, name: str) -> Callable:
    """What `super(cls, klass).name` finds inside a classmethod (klass a subclass of cls: the classmethod's own
    `cls`), as a callable taking klass first: a parent's classmethod bound to klass (`super().make(v)` in a
    subclass's alternative constructor), a staticmethod, or a plain function (unbound: called with the arguments
    only, as Python does)."""
    if not (isinstance(klass, type) and issubclass(klass, cls)):
        return _find(cls, type(klass), name)  # (the first parameter is no class: as an instance's super())
    for parent in klass.__mro__[klass.__mro__.index(cls) + 1:]:
        if name in vars(parent):
            raw = vars(parent)[name]
            break
    else:
        raise AttributeError(f"'super' object has no attribute {name!r}")
    if isinstance(raw, classmethod):
        return _without_instance(raw.__get__(None, klass))
    if isinstance(raw, staticmethod):
        return _without_instance(raw.__func__)
    if isinstance(raw, types.FunctionType):
        return _without_instance(raw)
    return _looked_up_when_called(cls, name)


def _find_class_getter(cls: type, klass: type, name: str) -> Callable:
    """What reads `super(cls, klass).name` (not called) inside a classmethod: Python's own lookup, when called with
    klass (a class: nothing differentiable is read, so it is a partial of ours, called plainly, not a closure whose
    source the transforms would follow)."""
    return functools.partial(_super_attribute, cls, name)


def _super_attribute(cls: type, name: str, klass: type) -> Any:
    return getattr(super(cls, klass), name)


def _find_getter(cls: type, typ: type, name: str) -> Callable:
    """What reads `super(cls, obj).name` (not called), as a callable taking obj: a parent's property getter (user
    code, differentiated); anything else is looked up by Python when called."""
    mro = typ.__mro__
    for klass in mro[mro.index(cls) + 1:] if cls in mro else ():
        if name in vars(klass):
            raw = vars(klass)[name]
            if isinstance(raw, property) and isinstance(raw.fget, types.FunctionType):
                return raw.fget
            if not hasattr(type(raw), "__get__"):  # a plain class attribute (a constant): itself
                return _constant(raw)
            break
    return _read_when_called(cls, name)


def _constant(value: Any) -> Callable:
    def read(instance):
        return value

    return read


def _read_when_called(cls: type, name: str) -> Callable:
    def read(instance):
        return getattr(super(cls, instance), name)

    return read


def _without_instance(fn: Callable) -> Callable:
    def call(_instance, *args, **kwargs):
        return fn(*args, **kwargs)

    return call


def _looked_up_when_called(cls: type, name: str) -> Callable:
    def call(instance, *args, **kwargs):
        return getattr(super(cls, instance), name)(*args, **kwargs)

    return call


# A callable object without Python source or `__call__` code: the runtimes call it plainly
# when no tangent flows into it (classes and a string never carry one).
super_function = functools.partial(_find)
super_function.__module__ = __name__  # type: ignore[attr-defined]
super_function.__qualname__ = "super_function"  # type: ignore[attr-defined]
super_class_function = functools.partial(_find_for_class)
super_class_function.__module__ = __name__  # type: ignore[attr-defined]
super_class_function.__qualname__ = "super_class_function"  # type: ignore[attr-defined]
super_class_getter = functools.partial(_find_class_getter)
super_class_getter.__module__ = __name__  # type: ignore[attr-defined]
super_class_getter.__qualname__ = "super_class_getter"  # type: ignore[attr-defined]
super_getter = functools.partial(_find_getter)
super_getter.__module__ = __name__  # type: ignore[attr-defined]
super_getter.__qualname__ = "super_getter"  # type: ignore[attr-defined]
