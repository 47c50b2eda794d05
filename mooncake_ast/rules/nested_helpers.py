"""Derivatives of forward code's run-time helpers through plain-Python twins.

A nested derivative differentiates generated forward code, which calls run-time helpers
(`_mc.update`, `_mc.item_storage`, `_mc.getattr_tangent`) and dispatches calls at run time
(`_mc.fcall(setattr, ...)`, `_mc.fcall(Lin, ...)`, `_mc.fcall(x.copy, ...)`).  The helpers are
written for speed at first order (try statements, type tests, storage made on demand), which the
transforms do not trace.  So each case a helper handles gets a twin here: a few lines of ordinary
Python doing what the helper does in that case, which reverse and forward mode differentiate like
user code (array writes with their saved values and views, object fields as adjoint storage,
`MutableTangent` objects as user objects).  The rule of a helper picks the twin for the call's
case and hands the call to it: `fcall(twin, ...)` forward, `rcall(twin, ...)` reverse.  A case
without a twin keeps the helper's own behaviour where nothing differentiated reaches it and is
refused by name (a NestingError) otherwise: never a silently wrong derivative.

The twins take the helper's arguments in the helper's order, so their adjoints are the helper's.
"""
from __future__ import annotations

import collections

from typing import Any, Callable, Optional

import numpy as np

from ..forward.runtime import fcall
from . import numpy_creation
from .registry import update
from ..tangents import FunctionTangent, MethodTangent, MutableTangent, NoTangent


# ---------------------------------------------------------------- twins of `_mc.update(dx, new)`


def update_same(t, new):
    return t


def update_write(t, new):
    t[...] = new
    return t


def update_clear(t, new):
    t[...] = 0.0
    return t


def update_list(t, new):
    t[:] = new
    return t


def update_replace(t, new):
    return new


def update_fresh(t, new):
    return new.copy()


def update_twin(dx: Any, new: Any) -> Callable:
    """The twin of `registry.update(dx, new)` for these operands (its branches, in its order)."""
    if new is None or new is NoTangent:
        if isinstance(dx, np.ndarray):
            return update_clear
        return update_replace
    if dx is new:
        return update_same
    if isinstance(dx, np.ndarray):
        if _writable_into(dx, new):
            return update_write
        return update_fresh if isinstance(new, np.ndarray) else update_replace
    if isinstance(dx, list) and isinstance(new, list):
        return update_list
    if isinstance(dx, dict) and isinstance(new, dict):
        return None  # (a dict's tangent replaced in place: not supported nested)
    return update_replace


def _writable_into(dx: np.ndarray, new: Any) -> bool:
    """Does `dx[...] = new` succeed (new broadcasts to dx's shape, dx is writable)?"""
    if not dx.flags.writeable:
        return False
    try:
        return np.broadcast_shapes(np.shape(new), dx.shape) == dx.shape
    except ValueError:
        return False


# ---------------------------------------------------------------- twins of `_mc.item_storage(c, dc, i, item)`


def item_read(c, tc, index, item):
    return tc[index]


def item_read_view(c, tc, index, item):
    return view_read(tc, index)


def view_read(tc, index):
    """`tc[index]` whose index is never differentiated (its rules: forward_code_rules.py), so that the tangent of a
    view is a view of the tangent (item storage) at every order: read as `tc[index]` in item_read, a parameter
    index made forward code add an index tangent, a fresh array, and writes through a named view of a view
    (`w = b[1:]; w *= x`, third order) were lost."""
    return tc[index]


# ---------------------------------------------------------------- twins of `_mc.getattr_tangent(o, to, name, value)`


def attr_field(o, to, name, value):
    return to.fields[name]


def attr_method(o, to, name, value):
    return MethodTangent(to)


def attr_property(o, to, name, value):
    return fcall(getattr(type(o), name).fget, NoTangent, (o,), (to,))[1]


def attr_closure(o, to, name, value):
    return tuple(NoTangent if c is None else c for c in to.cells)


def attr_cell(o, to, name, value):
    try:
        return to.cell_contents
    except ValueError:  # (an empty tangent cell: nothing differentiable stored yet)
        return NoTangent


def attr_tuple_field(o, to, name, value):
    """A namedtuple's field (`p.w`): the item of its tangent tuple at the field's position."""
    return to[o._fields.index(name)]


def attr_constant(o, to, name, value):
    return NoTangent


def attr_transpose(o, to, name, value):
    return to.T


_DICTS = (dict, collections.defaultdict)  # (a defaultdict's tangent is a defaultdict)


def attr_flat(o, to, name, value):
    return to.flat


def attr_part(o, to, name, value):
    """`z.real` / `z.imag` of an array: the same part of its tangent (both R-linear)."""
    return to.real if name == "real" else to.imag


def attr_number_part(o, to, name, value):
    """`c.real` / `c.imag` of a Python number: the part of its tangent as a complex, as getattr_tangent reads it."""
    return complex(to).real if name == "real" else complex(to).imag


def getattr_twin(obj: Any, dobj: Any, name: str, value: Any) -> Optional[Callable]:
    """The twin of `builtin_rules.getattr_tangent` for a differentiated object or array, or None."""
    import types

    if isinstance(obj, types.FunctionType) and isinstance(dobj, FunctionTangent) and name == "__closure__" and \
            type(dobj.cells) is tuple:
        return attr_closure  # (forward code of a closure reading what it captures, `fn.__closure__[0]`, again)
    if type(obj) is types.CellType and type(dobj) is types.CellType and name == "cell_contents":
        return attr_cell  # (a closure's cell that forward code made, read again: its tangent cell's contents)
    if isinstance(obj, np.ndarray) and isinstance(dobj, np.ndarray):
        if name == "T":
            return attr_transpose
        if name == "flat":
            return attr_flat  # (`a.flat[i] = v`: the tangent's flat iterator, written alike)
        if name in ("real", "imag"):
            return attr_part
        if callable(value) and getattr(value, "__self__", None) is obj:
            return attr_method
        return None
    if isinstance(obj, (int, float, complex)) and name in ("real", "imag") and \
            isinstance(dobj, (int, float, complex, np.number)):
        return attr_number_part
    if isinstance(obj, np.floating) and isinstance(dobj, (float, np.floating)) and name == "item":
        return attr_method  # (`x[1].item()`: its call planned by nested_scalar_item.py)
    if (isinstance(obj, list) and isinstance(dobj, list)) or (type(obj) in _DICTS and isinstance(dobj, dict)):
        return attr_method if callable(value) and getattr(value, "__self__", None) is obj else None
    if isinstance(dobj, tuple) and isinstance(obj, tuple) and name in (getattr(obj, "_fields", None) or ()):
        return attr_tuple_field  # (a namedtuple's field, typing.NamedTuple's too)
    if isinstance(dobj, tuple) and isinstance(obj, tuple) and name == "_replace" and hasattr(type(obj), "_fields"):
        return attr_method  # (`p._replace(b=v)`: its call planned by nested_replace.py)
    if isinstance(dobj, MutableTangent):
        if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type, types.ModuleType)) and \
                dobj.fields.get(name, NoTangent) is NoTangent:
            return attr_constant  # (`C.combine`, a static method read through its class: no tangent at any order)
        bound = isinstance(value, (types.MethodType, types.BuiltinMethodType)) and getattr(value, "__self__", None) is obj
        # (a classmethod read through its class, `G.zero` of a dataclass G: the name is in the class's __dict__ but
        # it is no field; first order takes it as a method of the class (getattr_tangent), and so does this twin:
        # attr_field looked it up among the fields' tangents, a KeyError at jacfwd(jacfwd(f)))
        if name in dobj.fields or (name in getattr(obj, "__dict__", {}) and not (bound and isinstance(obj, type))):
            return attr_field
        prop = getattr(type(obj), name, None)
        if isinstance(prop, property):
            return attr_property if isinstance(prop.fget, types.FunctionType) else None
        if bound:
            return attr_method
        if isinstance(value, types.MethodType) and isinstance(value.__self__, type) and \
                isinstance(obj, value.__self__) and dobj.fields.get(name, NoTangent) is NoTangent:
            return attr_constant  # (`a.from_array`, a classmethod read through an instance: bound to the class, as at
            # first order no tangent; its call's tangent is its arguments')
        if hasattr(type(obj), name) and not hasattr(prop, "__get__"):
            return attr_constant  # a class attribute (a number, a string): a constant, as at first order
    return None


# ---------------------------------------------------------------- forward functions of dispatched calls
# `_mc.fcall(f, df, args, dargs)` nested is one call of a plain function computing `(y, dy)` (see api_rules._plan).


def setitem_fwd(a, i, v, ta, ti, tv):
    a[i] = v
    ta[i] = tv
    return None, NoTangent


def setitem_primal_fwd(a, i, v, ta, ti, tv):
    a[i] = v
    return None, NoTangent


def with_index_tangent_fwd(item, a, i, di, titem, ta, ti, tdi):
    """operator_rules.with_index_tangent where a is not np.r_ / np.c_ (an index without a tangent): the item itself."""
    return item, titem


def setattr_primal_fwd(o, name, v, to, tname, tv):
    setattr(o, name, v)
    return None, NoTangent


def setattr_fwd(o, name, v, to, tname, tv):
    setattr(o, name, v)
    to.fields[name] = tv
    return None, NoTangent


def object_setattr_primal_fwd(o, name, v, to, tname, tv):
    object.__setattr__(o, name, v)
    return None, NoTangent


def object_setattr_fwd(o, name, v, to, tname, tv):
    """`object.__setattr__(o, name, v)`: how a frozen dataclass's `__init__` and `__post_init__` set fields."""
    object.__setattr__(o, name, v)
    to.fields[name] = tv
    return None, NoTangent


def iadd_fwd(a, b, ta, tb):
    t = ta + tb
    a += b
    return a, update(ta, t)


def isub_fwd(a, b, ta, tb):
    t = ta - tb
    a -= b
    return a, update(ta, t)


def imul_fwd(a, b, ta, tb):
    t = ta * b + a * tb
    a *= b
    return a, update(ta, t)


def itruediv_fwd(a, b, ta, tb):
    t = (ta - (a / b) * tb) / b
    a /= b
    return a, update(ta, t)


def array_tangent_fwd(y, x, tx, ty, t_x, t_tx):
    """`array_tangent(y, x, tx)` (np.array's tangent, linear in tx) and its tangent."""
    return numpy_creation.array_tangent(y, x, tx), numpy_creation.array_tangent(y, x, t_tx)


def asarray_tangent_fwd(y, x, tx, ty, t_x, t_tx):
    return numpy_creation.asarray_tangent(y, x, tx), numpy_creation.asarray_tangent(y, x, t_tx)


def new_object(cls):
    return cls.__new__(cls)


def new_tangent():
    """An object's tangent before its `__init__` runs (no fields yet)."""
    return MutableTangent({})


def zero_storage(o):
    """The zero tangent of a new object, as storage (forward code writes its fields' tangents into it)."""
    from ..tangents import zero_tangent

    return zero_tangent(o)


def result_storage(y):
    """The zero tangent of a zero-derivative call's result, as fcall gives it: storage where y is mutable (forward
    code may write into it: `da = _mc.zero_tangent(a); da[0] = ...`), else the symbolic zero."""
    from ..forward.runtime import _materialize_mutable

    return _materialize_mutable(y, NoTangent)


def new_object_fwd(cls, tcls):
    o = new_object(cls)
    return o, zero_storage(o)


def new_tangent_fwd():
    o = new_tangent()
    return o, zero_storage(o)


def construct_fwd(cls, args, targs):
    """`cls(*args)` for a user class, as forward/runtime._construct does: a new object, then `__init__` on it."""
    o = new_object(cls)
    to = new_tangent()
    fcall(cls.__init__, NoTangent, (o, *args), (to, *targs))
    return o, to


def construct_fields_fwd(cls, names, values, tvalues):
    """`cls(*values)` for a dataclass whose generated `__init__` sets the fields `names` from its arguments."""
    o = new_object(cls)
    to = new_tangent()
    for k in range(len(names)):
        setattr(o, names[k], values[k])
        to.fields[names[k]] = tvalues[k]
    return o, to


def construct_frozen_fwd(cls, names, values, tvalues):
    """construct_fields_fwd for a frozen dataclass, whose `__init__` sets its fields past its own `__setattr__`."""
    o = new_object(cls)
    to = new_tangent()
    for k in range(len(names)):
        object.__setattr__(o, names[k], values[k])
        to.fields[names[k]] = tvalues[k]
    return o, to


def construct_post_init_fwd(cls, names, values, tvalues, frozen):
    """`cls(*values)` for a dataclass with `__post_init__`: the fields set, then `__post_init__`'s forward code."""
    if frozen:
        o, to = construct_frozen_fwd(cls, names, values, tvalues)
    else:
        o, to = construct_fields_fwd(cls, names, values, tvalues)
    fcall(cls.__post_init__, NoTangent, (o,), (to,))
    return o, to


def copy_fwd(a, ta):
    return a.copy(), ta.copy()


def linear_method_fwd(a, name, args, kwargs, ta):
    """`a.name(*args, **kwargs)` for a method linear in a (sum, reshape, transpose, ...), args not differentiated."""
    return getattr(a, name)(*args, **kwargs), getattr(ta, name)(*args, **kwargs)


def astype_fwd(a, name, args, kwargs, ta):
    """`a.astype(dtype, ...)`: linear in a to a float or complex dtype (its tangent cast alike, `copy=False` keeping
    the same array for both), a constant to an integer or bool dtype."""
    y = a.astype(*args, **kwargs)
    if y.dtype.kind not in "fc":
        return y, result_storage(y)
    return y, ta.astype(*args, **kwargs)


def zero_method_fwd(a, name, args, kwargs):
    """`a.name(*args, **kwargs)` where nothing it reads has a tangent: its value, and a zero tangent."""
    y = getattr(a, name)(*args, **kwargs)
    return y, result_storage(y)


def append_fwd(xs, v, txs, tv):
    xs.append(v)
    txs.append(tv)
    return None, NoTangent


def pop_fwd(xs, txs):
    return xs.pop(), txs.pop()


def itemgetter_fwd(getter, c, tc):
    """`operator.itemgetter(*keys)(c)` and its tangent: the same keys read from c's tangent."""
    return getter(c), getter(tc)


def vectorize_fwd(pyfunc, x, tx):
    """`np.vectorize(pyfunc)(x)` of one float array and its tangent, entry by entry as the first-order rule
    (numpy_vectorize.frule_call) runs it, written as plain code calling the forward runtime, which the next order
    differentiates as it differentiates forward code."""
    from ..forward.runtime import fcall

    xs = np.ravel(x)
    txs = np.ravel(tx)
    ys = []
    tys = []
    for i in range(xs.size):
        y, ty = fcall(pyfunc, NoTangent, (xs[i],), (txs[i],))
        ys.append(y)
        tys.append(0.0 if ty is NoTangent or ty is None else ty)
    return np.reshape(np.array(ys, dtype=float), np.shape(x)), np.reshape(np.array(tys, dtype=float), np.shape(x))


def dot_method_fwd(a, b, ta, tb):
    return a.dot(b), ta.dot(b) + a.dot(tb)


# Array methods linear in the array, whose other arguments are shapes, axes and flags (never differentiated).
LINEAR_METHODS = frozenset({"sum", "mean", "reshape", "ravel", "flatten", "transpose", "swapaxes", "squeeze",
                            "cumsum", "trace", "diagonal", "repeat", "take", "item", "tolist", "conj", "conjugate"})

# Array methods whose result is a constant (indices, counts, truth values): a zero tangent at every order, whatever
# the array's tangent (`A.argmax(axis=1)` used as an index at second order).
ZERO_DERIVATIVE_METHODS = frozenset({"argmax", "argmin", "argsort", "argpartition", "nonzero", "searchsorted", "any",
                                     "all", "__len__", "__bool__", "__contains__"})


def is_list_method(f: Any) -> bool:
    """A bound method of a list (xs.append, xs.pop)."""
    import types

    return isinstance(f, types.BuiltinMethodType) and type(getattr(f, "__self__", None)) is list


def is_array_method(f: Any) -> bool:
    """A bound method of a float ndarray (x.copy, x.sum, ...)."""
    import types

    return isinstance(f, types.BuiltinMethodType) and type(getattr(f, "__self__", None)) is np.ndarray


# ---------------------------------------------------------------- rules that hand a call to a twin


def twin_frule(twin: Callable, p: tuple, t: Any) -> tuple:
    """Forward mode over the twin: `(twin(*p), its tangent)` for tangents t of p."""
    t = (NoTangent,) * len(p) if t is NoTangent or t is None else tuple(t)
    return fcall(twin, NoTangent, tuple(p), t)


def twin_rrule(twin: Callable, args: tuple) -> tuple:
    """Reverse mode over the twin: `(twin(*args), pullback)`, the pullback giving one adjoint per argument."""
    from ..reverse.runtime import rcall

    y, pb = rcall(twin, tuple(args), {})

    def pullback(g: Any) -> tuple:
        _, bars, _ = pb(g)
        bars = tuple(bars)
        return bars + (NoTangent,) * (len(args) - len(bars))

    return y, pullback


# ---------------------------------------------------------------- the helpers as dispatched calls (third order)
# Forward mode over forward code dispatches the helpers (`_mc.fcall(_mc.item_storage, ...)`); nested once more,
# such a call is the forward code of the helper's twin for its operands.


def method_tangent_fwd(o, to, name, value, t_o, t_to, t_name, t_value):
    """`getattr_tangent` of a method and its tangent: MethodTangent(to), MethodTangent(t_to)."""
    return MethodTangent(to), (NoTangent if t_to is NoTangent or t_to is None else MethodTangent(t_to))


def helper_twin(f: Any, args: tuple) -> Optional[Callable]:
    """The twin of run-time helper f for these operands (a plain function of the same arguments), or None."""
    from ..forward.transform import item_storage
    from . import builtin_rules

    if f is update and len(args) == 2:
        return update_twin(*args)
    if f is item_storage and len(args) == 4:
        if isinstance(args[1], (np.ndarray, list, tuple, dict)):
            item_storage(*args)  # (a mutable item's zero tangent made storage, kept in the container's tangent)
            # (view_read for every container: read as `tc[index]`, a parameter index made forward code add an
            # index tangent, which `list + NoTangent` refused at the third order: polynomial_class of the corpus)
            return item_read_view
        return None
    if f is builtin_rules.getattr_tangent and len(args) == 4 and args[1] is not NoTangent:
        twin = getattr_twin(*args)
        if twin is attr_field:
            builtin_rules.getattr_tangent(*args)  # (a mutable field's zero tangent made storage)
        return twin
    return None


def with_dense_tangent(y: Any, dy: Any) -> tuple:
    """(y, dy with its symbolic zeros made dense): what `mc.jvp` returns (an identity on dy's values).  A list or dict
    dy is made dense in place, never copied: reverse mode keeps the adjoints of lists and dicts in storage found by
    identity, and forward mode writes through their tangents, so a copy lost them (third derivatives through a helper
    that returns a list or dict were 0)."""
    from .nested_plans import _dense_one

    return y, _dense_one(dy, y)


def _with_dense_tangent_frule(p: tuple, t: Any) -> tuple:
    from .nested_plans import _dense_one

    y, dy = p
    ty, tdy = (NoTangent, NoTangent) if t is NoTangent or t is None else tuple(t)
    out = with_dense_tangent(y, dy)
    return out, (ty, _dense_one(tdy, out[1]) if tdy is not NoTangent and tdy is not None else tdy)


def _with_dense_tangent_rrule(y: Any, dy: Any) -> tuple:
    def pullback(g: Any) -> tuple:
        if g is NoTangent or g is None:
            return NoTangent, NoTangent
        gy, gdy = tuple(g)
        return gy, gdy

    return with_dense_tangent(y, dy), pullback


def zero_storage_fwd(o, to):
    """`zero_storage(o)` and its tangent, fresh zero storage of its own (forward code writes into both)."""
    s = zero_storage(o)
    return s, zero_storage(s)


def result_storage_fwd(y, ty):
    """`result_storage(y)` and its tangent, as new_object_fwd's: storage where the result is mutable."""
    s = result_storage(y)
    return s, zero_storage(s)
