"""Attributes and closures: getattr, setattr and making a function (its defaults and cells), both modes.

The tangent of an object is a MutableTangent (its fields' tangents), of an array an array, of a
function a FunctionTangent (its cells' and defaults' tangents); `getattr_tangent` reads the one that
matches `obj.name`.  Shape-like attributes (NONDIFF_ATTRS) carry no derivative.
"""
from __future__ import annotations

import builtins
import types

import numpy as np

from ..arrays import is_other_array
from .. import ops
from ..attribute_checks import check_attribute_read
from ..batching import Batched
from ..tangents import FunctionTangent, MethodTangent, MutableTangent, NoTangent, Tangent, is_mutable, storage, zero_tangent
from .builtin_iteration import _A
from .registry import defcomplex, defjvp, defvjp


# ------------------------------------------------------------------ attributes, closures
NONDIFF_ATTRS = frozenset({"shape", "ndim", "dtype", "size", "__class__", "__name__", "itemsize", "nbytes"})
defjvp(builtins.getattr, lambda t, y, obj, name, *default: (
    t.call(getattr_default_tangent, obj, t.dz(obj), name, y, t.dz(default[0]))
    if default and (t.d(obj) is not None or t.d(default[0]) is not None) and t.value(name) not in NONDIFF_ATTRS else
    t.call(getattr_tangent, obj, t.d(obj), name, y) if not default and t.d(obj) is not None and t.value(name) not in NONDIFF_ATTRS
    else None))
defjvp(builtins.setattr, lambda t, y, obj, name, v: t.call(setattr_tangent, t.d(obj), v, name, t.dz(v)) if t.d(obj) is not None else None, mutates=(0,))
# `object.__setattr__(self, "b", v)`: how a frozen dataclass's `__post_init__` sets a field (past the class's own
# `__setattr__`, which refuses): the same field write.
defjvp(object.__setattr__, lambda t, y, obj, name, v: t.call(setattr_tangent, t.d(obj), v, name, t.dz(v)) if t.d(obj) is not None else None, mutates=(0,))
defjvp(ops.make_function, lambda t, y, code, outer, defaults, kwdefaults, closure: t.call(
    FunctionTangent, t.dz(closure), t.dz(defaults), t.dz(kwdefaults)))


_ARRAY_DATA_ATTRIBUTES = frozenset({"flat", "A", "H"})  # attributes of an array that carry its data in another form


def getattr_default_tangent(obj, dobj, name, value, ddefault):
    """The tangent of `getattr(obj, name, default)`: the attribute's when obj has it, else the default's (the
    default's tangent was dropped before: a silently wrong derivative)."""
    if hasattr(obj, name):
        return getattr_tangent(obj, dobj, name, value)
    return ddefault


def getattr_tangent(obj, dobj, name, value):
    """The tangent of `obj.name`, given the tangent of `obj`."""
    import numpy as np
    import types as _types

    if dobj is NoTangent:
        return NoTangent
    if isinstance(dobj, MethodTangent) and name == "__self__":
        return dobj.self_tangent  # (`m.lin.__self__.w`: the bound method's object, whose tangent it holds)
    if isinstance(obj, (int, float, complex)) and name in ("real", "imag"):
        return complex(dobj).real if name == "real" else complex(dobj).imag  # a number's parts
    if isinstance(obj, np.ndarray):
        if name in ("T", "real", "imag", "mT"):
            if type(dobj) is Batched:  # jacfwd's batch of tangents (batching.py) has its own `.T`
                return getattr(dobj, name)
            return getattr(np.asarray(dobj), name)
        if name == "flat" and isinstance(dobj, np.ndarray):
            return dobj.flat  # A.flat[i] reads (and A.flat[i] = v writes) the same entries of the tangent
        if callable(value):
            return MethodTangent(dobj)
        return NoTangent
    if is_other_array(obj):  # a Dask array: its attributes as an ndarray's (its properties are Dask's code)
        if name in ("T", "real", "imag", "mT"):
            return getattr(dobj, name)
        if name in _ARRAY_DATA_ATTRIBUTES:
            raise NotImplementedError(f"the tangent of the attribute .{name} of a {type(obj).__module__.split('.')[0]} "
                                      f"array is not supported")
        return MethodTangent(dobj) if callable(value) else NoTangent
    if isinstance(dobj, MutableTangent):
        cached = _cached_property_tangent(obj, dobj, name)
        if cached is not None:
            return cached
        check_attribute_read(obj, name, value)
        fields = dobj.fields
        if name in fields:
            d = fields[name]
            if d is NoTangent and is_mutable(value):
                d = fields[name] = zero_tangent(value)  # storage, so writes through it are kept
            return d
        prop = getattr(type(obj), name, None)
        if isinstance(prop, property):
            from ..forward.runtime import fcall

            return fcall(prop.fget, NoTangent, (obj,), (dobj,))[1]
        if isinstance(value, (_types.MethodType, _types.BuiltinMethodType)) and getattr(value, "__self__", None) is obj:
            return MethodTangent(dobj)
        if not is_mutable(value) and not callable(value) and name not in getattr(obj, "__dict__", {}):
            from ..forward.state import inherited_attribute_tangent  # (a class attribute its methods wrote)

            d = inherited_attribute_tangent(obj, name)
            if d is not None:
                return d
        if is_mutable(value) and (isinstance(obj, type) or name not in getattr(obj, "__dict__", {})):
            # a class's list (dict, array, ...), read through the class or an instance: state shared by all
            # instances, its tangent kept by identity for this forward computation (forward/runtime.py)
            from ..forward.state import module_tangent

            return module_tangent(value)
        if name in getattr(obj, "__dict__", {}):
            fields[name] = zero_tangent(value)  # keep it, so later writes through it are seen
            return fields[name]
        return NoTangent
    if isinstance(dobj, Tangent):
        if name not in dobj.fields and _is_property(obj, name):
            return _property_tangent(obj, dobj, name)
        return dobj.fields.get(name, NoTangent)
    if isinstance(dobj, FunctionTangent) or (type(dobj) is _types.CellType and type(obj) is _types.CellType):
        return _function_part_tangent(dobj, name)
    if isinstance(dobj, tuple) and hasattr(obj, "_fields") and name in obj._fields:
        return dobj[obj._fields.index(name)]
    if isinstance(dobj, tuple) and name in (getattr(type(obj), "_extra_fields", None) or ()):
        from .python_bunches import extra_field_tangent  # (SciPy's LinregressResult.intercept_stderr)

        return extra_field_tangent(obj, dobj, name)
    if isinstance(dobj, tuple) and _is_property(obj, name):
        return _property_tangent(obj, dobj, name)
    if callable(value) and getattr(value, "__self__", None) is obj:
        return MethodTangent(dobj)
    return NoTangent


def _cached_property_tangent(obj, dobj, name):
    """`obj.name` of a functools.cached_property whose function is the user's, or None for any other attribute.

    The plain read just ran the function and stored its value in the object (the first read), or read that stored
    value (a later one).  Its tangent is kept as the field's: the first read finds none and differentiates the
    function on the object as it is now, which is what the plain read saw; later reads find it, as they find the
    value.  (Reverse mode cannot tell the first read from later ones in its pullback: refused there,
    attribute_checks.py.)"""
    import functools
    import inspect

    if isinstance(obj, type):
        return None
    try:
        attr = inspect.getattr_static(type(obj), name)
    except AttributeError:
        return None
    if not isinstance(attr, functools.cached_property) or not isinstance(attr.func, types.FunctionType):
        return None
    fields = dobj.fields
    if name not in fields:
        from ..forward.runtime import fcall

        fields[name] = fcall(attr.func, NoTangent, (obj,), (dobj,))[1]
    return fields[name]


def _is_property(obj, name) -> bool:
    prop = getattr(type(obj), name, None)
    return isinstance(prop, property) and prop.fget is not None


def _property_tangent(obj, dobj, name):
    """The tangent of a @property of a NamedTuple or an immutable object (read after its fields, which SciPy's tuple
    bunches also make properties): its getter differentiated, as for a mutable object.  Before, the tuple branch
    knew only `_fields`, and a property's tangent was silently 0."""
    from ..forward.runtime import fcall

    return fcall(getattr(type(obj), name).fget, NoTangent, (obj,), (dobj,))[1]


def _function_part_tangent(dobj, name):
    """The tangent of `fn.__closure__` / `__defaults__` / `__kwdefaults__` for a function's tangent dobj (a
    FunctionTangent: its tangent cells, its defaults' tangents), or of `cell.cell_contents` for a tangent cell dobj.
    Forward code of a closure reads what it captures so (`fn.__closure__[0].cell_contents`); differentiated again
    with the closure's tangent nonzero (mc.jvp of a closure over differentiated values, inside differentiated code),
    the captured values' tangents come from here (they were dropped: a silently wrong jvp(jvp(f)))."""
    if name == "cell_contents":
        try:
            return dobj.cell_contents
        except ValueError:  # (an empty tangent cell: nothing differentiable stored yet)
            return NoTangent
    if name == "__closure__":
        return tuple(NoTangent if c is None else c for c in dobj.cells)
    if name == "__defaults__":
        return tuple(dobj.defaults) if dobj.defaults else NoTangent
    if name == "__kwdefaults__":
        return dict(dobj.kwdefaults) if dobj.kwdefaults else NoTangent
    return NoTangent


def setattr_tangent(dobj, value, name, dv):
    if isinstance(dobj, MutableTangent):
        if getattr(dobj, "__mc_class__", False) and is_mutable(value):
            from ..forward.state import set_shared_tangent  # a class attribute: by identity (getattr_tangent)

            set_shared_tangent(value, storage(value, dv))
            return
        dobj.fields[name] = storage(value, dv)
    elif type(dobj) is types.CellType and name == "cell_contents":  # (a tangent cell: forward code's closures)
        dobj.cell_contents = storage(value, dv)
    elif isinstance(dobj, np.ndarray) and name == "shape":  # `a.shape = (2, 3)`: the tangent is reshaped alike
        dobj.shape = value
    elif isinstance(dobj, np.ndarray) and name in ("real", "imag", "flat"):
        # `z.imag = v`, `a.flat = v`: the same part of the tangent takes v's tangent (zero for a constant; the write
        # was lost: the old tangent stayed)
        setattr(dobj, name, 0.0 if dv is NoTangent or dv is None else dv)
    elif isinstance(dobj, np.ndarray) and name in ("strides", "dtype"):
        from ..errors import UnsupportedDerivativeError

        raise UnsupportedDerivativeError(f"derivative of `a.{name} = ...` (the array's bytes reinterpreted in place)")


# ------------------------------------------------------------------ reverse rules
defvjp(builtins.getattr, lambda t, g, y, obj, name, *d: (t.call(_A().attr_adjoint, obj, name, g), None) + (None,) * len(d))


# Closures' adjoints live in their cells' storage; the defaults' adjoints come back in the function's.
defvjp(ops.make_function, lambda t, g, y, code, outer, defaults, kwdefaults, closure: (
    None, None, t.call(function_part_adjoint, g, "defaults", defaults),
    t.call(function_part_adjoint, g, "kwdefaults", kwdefaults), t.call(function_part_adjoint, g, "closure", closure)))


def function_part_adjoint(g, which, part):
    """The adjoint of the defaults, kw-defaults or cells a function was made with, from the function's.

    A rule that cannot differentiate with respect to a function (a SciPy solver given a closure over the
    inputs) hands it a RefusedAdjoint: it goes on to every value the function carries, where a use raises
    the refusal (a captured constant is never read back, so it is discarded there).  Kept on the function
    itself it was dropped: a silent zero.  Otherwise the cells' adjoints are in their storage already."""
    if getattr(type(g), "refuses_use", False):
        if which == "kwdefaults":
            return {k: g for k in part} if part else NoTangent
        return tuple(g for _ in part) if part else NoTangent
    if which == "closure":
        return NoTangent
    return _A().defaults_adjoint(g, which)


# Making a function moves values without arithmetic: the adjoints move back unchanged.
defcomplex(ops.make_function)
