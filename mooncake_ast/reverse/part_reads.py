"""Reverse of reads of parts: `a[i]`, `obj.name`, `getattr(obj, name, default)`, run when the pullback reaches them.

A read hands its adjoint back to what it read from: into the object's shadow (reverse/shadows.py) where the object is
mutable -- an array's item or view, a list's slot, an object's field, so every name of it sees the contribution --
or, for tuples, numbers and attributes that are values (`.real`, `.T`), as an adjoint value added to the
container's.  Split from reverse/shadows.py, which keeps the storage itself.
"""
from __future__ import annotations

import collections
import operator
import types
import functools
from typing import Any

import numpy as np

from ..arrays import is_other_array
from ..attribute_checks import check_attribute_read, item_attribute
from ..tangents import NoTangent, is_mutable
from .adjoints import AdjTuple, accumulate
from .part_adjoints import item_adjoint, item_of
from .shadows import _add_field, _add_slot, acc, route, shadow

def getitem_reverse(g: Any, y: Any, a: Any, i: Any, a_bar: Any = NoTangent) -> Any:
    """a[i] read with adjoint g."""
    if g is NoTangent:
        return a_bar
    if isinstance(a, np.void) and a.dtype.names is not None:
        from ..errors import UnsupportedDerivativeError

        # (a record is a NumPy scalar with no adjoint storage: what reached it was lost, a zero gradient)
        raise UnsupportedDerivativeError(f"reverse mode of reading the field {i!r} of one record of a structured array "
                                         f"(r = rec[k]; r[{i!r}]) is not supported: read the field first, "
                                         f"rec[{i!r}][k], or use forward mode (mc.jvp, mc.jacfwd)")
    if _python_getitem(a):
        return _user_getitem_reverse(g, y, a, i, a_bar)
    if isinstance(a, np.flatiter):
        # `A.flat[i]`: positions in C order of the array the iterator walks (its storage is A's).
        np.add.at(shadow(a.base), _flat_positions(a.base, i), g)
        return a_bar
    if is_mutable(a):
        if is_mutable(y) and _shares(a, i, y):
            return a_bar  # a view or a mutable item: its adjoint is already in a's storage
        sh = shadow(a)
        if isinstance(a, np.ndarray):
            if isinstance(i, (int, np.integer, slice)) or (isinstance(i, tuple) and all(isinstance(k, (int, np.integer, slice)) for k in i)):
                sh[i] += g
            else:
                np.add.at(sh, i, g)
        elif isinstance(a, (list, collections.deque)):
            if isinstance(i, slice):
                for j, gj in zip(range(*i.indices(len(a))), g):
                    _add_slot(sh, j, a[j], gj)
            else:
                _add_slot(sh, i, y, g)
        elif isinstance(a, dict):
            _add_slot(sh, i, y, g)
        return a_bar
    if isinstance(a, tuple):
        return accumulate(a_bar, route(a, item_adjoint(a, i, g)))
    return accumulate(a_bar, item_adjoint(a, i, g))


def _python_getitem(a: Any) -> bool:
    """Does a's class define `__getitem__` in Python (a user class, np.matrix is an ndarray and excluded)?"""
    if isinstance(a, (np.ndarray, list, dict, tuple, str, collections.deque)) or is_other_array(a):
        return False  # (a Dask or CuPy array has a Python __getitem__ too: it is an array, handled below)
    return isinstance(getattr(type(a), "__getitem__", None), types.FunctionType)


def _user_getitem_reverse(g: Any, y: Any, a: Any, i: Any, a_bar: Any) -> Any:
    """`a[i]` read plainly in the forward pass from an object whose type the emitter did not know (made by a
    classmethod, returned by code not inlined) and whose class has its own `__getitem__`: the read ran that
    method, so its adjoint goes through the method's pullback, derived now on the same object and key (the
    pullback has undone every later write it tracks, so the object holds what the read saw).  The generic
    routes below dropped it (a silent zero gradient, found by hunt11).  Where the method now gives another
    value the read cannot be replayed: refused."""
    from .runtime import rcall

    y2, pullback = rcall(operator.getitem, (a, i), {})
    if not _same_value(y2, y):
        from ..errors import UnsupportedDerivativeError

        raise UnsupportedDerivativeError(
            f"reverse mode of `obj[{i!r}]` on a {type(a).__name__} (its own __getitem__), whose type was not known "
            f"when the derivative was made: the object changed after the read in a way the pullback cannot undo.  "
            f"Make the object with its class's constructor inside the function, or use forward mode (mc.jvp)")
    return acc(a, a_bar, item_of(pullback(g)[1], 0))


def _same_value(u: Any, v: Any) -> bool:
    if u is v:
        return True
    try:
        return type(u) is type(v) and bool(np.array_equal(u, v))
    except Exception:  # (objects without a meaningful comparison)
        return False


def _flat_positions(arr: np.ndarray, i: Any) -> tuple:
    """The multi-indices of `arr.flat[i]`."""
    return np.unravel_index(np.arange(arr.size)[i], arr.shape)


def _shares(a: Any, i: Any, y: Any) -> bool:
    """Is y (= a[i]) part of a's storage, so that its adjoint already sits in a's shadow?"""
    if isinstance(a, np.ndarray):
        # ... and its storage part of a's storage: np.real(z)[i] shares z's memory, but the float view's storage
        # is its own (a complex array's storage has no float view to give), so its adjoint must be added here.
        return isinstance(y, np.ndarray) and np.shares_memory(a, y) and np.may_share_memory(shadow(a), shadow(y))
    # An item of a list/dict is shared (its slot is its own shadow); a list slice is a new list.
    return not isinstance(i, slice)


def getattr_reverse(g: Any, y: Any, obj: Any, name: str, *rest: Any) -> Any:
    # rest: (obj_bar,), or (default, obj_bar) for `getattr(obj, name, default)` (the default gets no adjoint: refused
    # below where it was returned with a nonzero one)
    obj_bar = rest[-1]
    if len(rest) == 2 and not hasattr(obj, name):
        if g is NoTangent or g is None or rest[0] is None or type(rest[0]) in (bool, int, str):
            return obj_bar  # (a default without a derivative)
        from ..errors import UnsupportedDerivativeError

        raise UnsupportedDerivativeError(f"reverse mode: `getattr(obj, {name!r}, default)` returned its default, "
                                         f"whose derivative is not supported; test with hasattr instead")
    if g is NoTangent:
        return obj_bar
    if isinstance(obj, types.CellType) and name == "cell_contents" and not is_mutable(y) \
            and not hasattr(shadow(obj), "fields"):  # (rules/nested_cells' storage of forward code's cells takes it)
        from ..errors import UnsupportedDerivativeError

        # (a number's adjoint lives in the cell's storage, and the read of `f.__closure__` hands the cell's value back
        # to it again: counted twice; before, an AttributeError.  A mutable value's adjoint is in its own storage.)
        raise UnsupportedDerivativeError("reverse mode of reading a closure's cell through `fn.__closure__[i]."
                                         "cell_contents` is not supported: read the captured variable by its name "
                                         "(or use forward mode: mc.jvp, mc.jacfwd)")
    if isinstance(obj, (float, np.floating)) and name == "real":
        return accumulate(obj_bar, g)  # a real number's .real is itself (the adjoint was dropped: a zero)
    if isinstance(obj, (complex, np.complexfloating)) and name in ("real", "imag"):
        return accumulate(obj_bar, complex(g) if name == "real" else 1j * complex(g))  # (cplx: Re(conj(a) b))
    if is_other_array(obj) and not callable(y):  # a Dask array's attributes, as an ndarray's (not Dask's getters)
        return _array_attribute_reverse(g, obj, name, obj_bar)
    if is_mutable(obj):
        if item_attribute(obj, name, y):  # (`res.x` of SciPy's OptimizeResult: the item res["x"])
            _add_slot(shadow(obj), name, y, g)
            return obj_bar
        check_attribute_read(obj, name, y)
    if isinstance(obj, tuple) and name in (getattr(type(obj), "_extra_fields", None) or ()):
        _add_field(shadow(obj), obj, name, g)  # a tuple bunch's extra field: kept for its constructor's pullback
        return obj_bar  # (rules/python_bunches.py)
    prop = getattr(type(obj), name, None) if not isinstance(obj, type) else None
    if isinstance(prop, property):
        # Computed by a getter: run it again here (obj is back in the state it read) and pull g through it.
        from .runtime import rcall

        _, pb = rcall(prop.fget, (obj,), {})
        _, a, _ = pb(g)
        return acc(obj, obj_bar, a[0])
    if callable(y) and getattr(y, "__self__", None) is obj:
        from .adjoints import MethodAdjoint  # a bound method: its adjoint is its self's

        inner = g.self_adjoint if isinstance(g, MethodAdjoint) else g
        return acc(obj, obj_bar, inner)
    if isinstance(obj, np.ndarray):
        if name in ("real", "imag") and obj.dtype.kind == "c" and isinstance(y, np.ndarray) and \
                not np.may_share_memory(shadow(obj), shadow(y)):
            # (cplx) a complex array's float view has storage of its own: its adjoint g reaches obj as g or 1j g
            return acc(obj, obj_bar, np.asarray(g) if name == "real" else 1j * np.asarray(g))
        if name in ("T", "mT", "real", "imag") and isinstance(y, np.ndarray) and np.shares_memory(obj, y):
            return obj_bar  # a view: its adjoint is already in obj's storage
        if name in ("T", "mT"):
            return acc(obj, obj_bar, np.swapaxes(np.asarray(g), -1, -2) if name == "mT" else np.asarray(g).T)
        return obj_bar
    if isinstance(obj, functools.partial) and name in ("func", "args", "keywords"):
        return accumulate(obj_bar, _partial_part_adjoint(obj, name, g))
    if isinstance(obj, tuple) and hasattr(type(obj), "_fields") and name in obj._fields:
        items = [NoTangent] * len(obj)
        items[obj._fields.index(name)] = g
        return accumulate(obj_bar, route(obj, AdjTuple(items)))
    if is_mutable(obj) or (_user_class(obj) and not callable(y)):
        # (a user class's attribute is state too: `Registry.total` read after a method set it from the inputs)
        if is_mutable(y):
            return obj_bar
        _add_field(shadow(obj), obj, name, g)
        return obj_bar
    return obj_bar


def _partial_part_adjoint(p: functools.partial, name: str, g: Any) -> Any:
    """The partial's adjoint from that of its `.func`, `.args` (a tuple) or `.keywords` (a dict), as calling it gives
    (rules/python_callables.BoundAdjoint: the bound arguments' parts that belong to mutable objects in their storage).
    Reading the parts was a dead end: `p.func(*p.args, **p.keywords)` gave the bound values no adjoint."""
    from ..rules.python_callables import BoundAdjoint, _routed

    if name == "func":
        return BoundAdjoint(g, [NoTangent] * len(p.args), {})
    if name == "args":
        items = list(g) if isinstance(g, (tuple, list)) else [NoTangent] * len(p.args)
        return BoundAdjoint(NoTangent, _routed(p.args, items), {})
    # `.keywords` is the partial's own dict, the same object at every read: its adjoint is that dict's storage (take
    # filled it), which the partial's construction reads once (python_callables.rrule_partial); summing it here at
    # each read counted it once per read
    return NoTangent


def getattr_default_reverse(g: Any, y: Any, obj: Any, name: str, default: Any, obj_bar: Any, default_bar: Any) -> tuple:
    """`getattr(obj, name, default)`: the adjoint goes to the attribute when obj has it, else to the default."""
    if hasattr(obj, name):
        return getattr_reverse(g, y, obj, name, obj_bar), default_bar
    return obj_bar, acc(default, default_bar, g)


def _user_class(obj: Any) -> bool:
    """A class made by a `class` statement, whose attributes are state shared by its instances."""
    return isinstance(obj, type) and bool(obj.__flags__ & _HEAPTYPE)


_HEAPTYPE = 1 << 9


def _array_attribute_reverse(g: Any, obj: Any, name: str, obj_bar: Any) -> Any:
    """`obj.name` of a Dask (CuPy) array, whose adjoint is a value: .T/.mT transpose g back, .real passes it (a
    real array; complex ones are refused in reverse mode), and the rest (.shape, .dtype, .imag of a real
    array) carry no derivative."""
    if name == "T":
        return accumulate(obj_bar, g.T)
    if name == "mT":
        return accumulate(obj_bar, np.swapaxes(g, -1, -2))
    if name == "real":
        return accumulate(obj_bar, g)
    if name in ("flat", "A", "H"):
        from ..errors import UnsupportedDerivativeError

        raise UnsupportedDerivativeError(f"reverse mode of the attribute .{name} of a {type(obj).__module__.split('.')[0]} "
                                         f"array is not supported")
    return obj_bar
