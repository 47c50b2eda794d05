"""Tangent types (Mooncake's `tangent_type`): one tangent type per primal type.

float -> float, complex -> complex, float ndarray -> float ndarray of the same
shape, int/bool/str/None/int ndarray -> NoTangent, tuple -> tuple, list ->
list, dict -> dict, objects -> `Tangent` (immutable: namedtuple-like values) or
`MutableTangent` (instances with a `__dict__`), functions -> `FunctionTangent`
over their closure cells and defaults.

`NoTangent` doubles as a *strong zero* inside generated code: arithmetic with
it gives the other operand (or NoTangent), so a value that turns out to be an
int at run time needs no type checks in the hot path.  Converted to an array
or a float it is 0, which is what it stands for.
"""
from __future__ import annotations

import collections
import dataclasses
import math
import numbers
import types
from typing import Any

import numpy as np

from .arrays import is_other_array, mutable_in_place
from .lazy_iteration import LazySequence, Zeros


class NoTangentType:
    """`mc.NoTangent()`: the tangent (and adjoint) of a value that is not differentiable (an int, a bool,
    a str, None, an int array), and a symbolic zero in tangent arithmetic.

    A singleton: `mc.NoTangent() is mc.NoTangent()`.  Gradients with respect to such arguments are it;
    as a tangent given to mc.jvp (or a cotangent given to a vjp function) it means zero, as None does.

    Example:
        >>> mc.grad(lambda x, n: x * n, argnums=(0, 1))(2.0, 3)
        (3.0, NoTangent())
    """

    _instance = None
    __array_ufunc__ = None  # make NumPy defer to our reflected operators
    __slots__ = ()

    def __new__(cls) -> "NoTangentType":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NoTangent()"

    def __reduce__(self):
        return (NoTangentType, ())

    def __bool__(self) -> bool:
        return False

    def __eq__(self, other: Any) -> bool:
        return other is self

    def __hash__(self) -> int:
        return 0x5EED

    # Strong-zero arithmetic: 0 + t = t, 0 * t = 0, t - 0 = t, 0 - t = -t.  A sum
    # is a new object, so mutable operands are copied: the result may later
    # be updated in place and must not share storage with `other`.
    def __add__(self, other: Any) -> Any:
        return fresh(other)

    __radd__ = __add__

    def __sub__(self, other: Any) -> Any:
        return self if other is self else -other

    def __rsub__(self, other: Any) -> Any:
        return fresh(other)

    def __mul__(self, other: Any) -> "NoTangentType":
        return self

    __rmul__ = __truediv__ = __rtruediv__ = __matmul__ = __rmatmul__ = __mul__
    __floordiv__ = __rfloordiv__ = __mod__ = __pow__ = __mul__

    def __neg__(self) -> "NoTangentType":
        return self

    __pos__ = __neg__

    def __getitem__(self, key: Any) -> "NoTangentType":
        return self

    def __setitem__(self, key: Any, value: Any) -> None:
        pass

    def __iter__(self):
        # Without this, Python would iterate through __getitem__ forever.
        raise TypeError("NoTangent is not iterable (a rule must handle the zero tangent explicitly)")

    def __getattr__(self, name: str) -> Any:
        # NumPy functions such as np.sum/np.reshape call these methods on
        # non-arrays; each is linear, so of zero it is zero.
        if name in _LINEAR_METHODS:
            return _NoTangentMethod()
        if name in ("real", "imag", "T", "mT"):
            return self
        raise AttributeError(f"NoTangent has no attribute {name!r}")

    # Converted to a number or array it is what it stands for: zero.
    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        return np.zeros(())

    def __float__(self) -> float:
        return 0.0

    def __complex__(self) -> complex:
        return 0j



_LINEAR_METHODS = frozenset({
    "sum", "mean", "reshape", "transpose", "swapaxes", "squeeze", "ravel", "flatten", "cumsum",
    "copy", "conj", "conjugate", "diagonal", "trace", "take", "repeat", "astype", "item", "tolist", "compress",
})


class _NoTangentMethod:
    """`NoTangent().sum(axis=0)` and friends: a linear method of zero is zero."""

    def __call__(self, *args: Any, **kwargs: Any) -> NoTangentType:
        return NoTangent


NoTangent = NoTangentType()


@dataclasses.dataclass(frozen=True)
class Tangent:
    """The tangent (or gradient) of an object: its fields' tangents by name, read as attributes.

    `mc.grad` returns one for an object argument (a dataclass, a class instance); give one (or a dict of
    field -> tangent) to mc.jvp as the tangent of an object.  Fields not listed have a zero tangent.

    Args:
        fields: a dict, field name -> tangent.

    Example:
        >>> import dataclasses
        >>> @dataclasses.dataclass
        ... class Params:
        ...     w: float
        >>> g = mc.grad(lambda p: p.w * p.w)(Params(w=3.0))
        >>> g.w
        6.0
    """

    fields: dict

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["fields"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.fields.items())
        return f"Tangent({inner})"


class MutableTangent:
    """The tangent of a mutable object inside a derivative: its fields' tangents by name, updated in place
    as the object's fields are written (generated code makes and reads them; results given to you are
    `mc.Tangent`s, and an mc.MutableTangent may be given as a tangent where a Tangent may).

    Args:
        fields: a dict, field name -> tangent.

    Example:
        >>> t = mc.MutableTangent({"w": 1.0, "b": 0.0})
        >>> t.w, t.b
        (1.0, 0.0)
    """

    def __init__(self, fields: dict) -> None:
        object.__setattr__(self, "fields", dict(fields))

    def __getattr__(self, name: str) -> Any:
        fields = object.__getattribute__(self, "fields")
        if name in fields:
            return fields[name]
        raise AttributeError(name)

    def __setattr__(self, name: str, value: Any) -> None:
        self.fields[name] = value

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.fields.items())
        return f"MutableTangent({inner})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, MutableTangent) and self.fields == other.fields

    # An object handed to NumPy is read through its `__array__`, `__float__` or `__iter__`, in C: its tangent
    # reaches the function's rule as this, where an array's would be. Its fields' tangents cannot follow what
    # NumPy read, so the rule's answer would be garbage (the tangent of `np.sum(obj)` came out as this object).
    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        return _read_by_numpy(self, getattr(ufunc, "__name__", ufunc))

    def __array_function__(self, func: Any, types_: Any, args: Any, kwargs: Any) -> Any:
        asked = _WHAT_IT_IS.get(getattr(func, "__name__", None))
        if asked is not None and getattr(func, "__module__", "").startswith("numpy"):
            return asked  # (the runtime's generic helpers ask what a tangent is: a scalar of object type)
        return _read_by_numpy(self, getattr(func, "__name__", func))


_WHAT_IT_IS = {"shape": (), "ndim": 0, "size": 1, "iscomplexobj": False, "isrealobj": True}


def _read_by_numpy(t: MutableTangent, name: Any) -> Any:
    """NoTangent where the object carries no tangent (nothing to lose), else an honest error."""
    if is_zero_derivative(t):
        return NoTangent
    from .errors import UnsupportedDerivativeError

    raise UnsupportedDerivativeError(
        f"the derivative of an object with fields {sorted(t.fields)} is handed to numpy.{name}: NumPy reads "
        f"objects through their `__array__`, `__float__` or `__iter__` (not differentiated); hand NumPy the array or "
        f"number the object holds (`obj.values`) instead")


def is_zero_derivative(v: Any) -> bool:
    """Is v (a tangent or an adjoint of any structure) zero everywhere? NoTangent, None, numbers and arrays of
    zeros, and containers and objects' fields of those."""
    if v is NoTangent or v is None:
        return True
    if isinstance(v, (MutableTangent, Tangent)):
        return all(is_zero_derivative(x) for x in v.fields.values())
    if isinstance(v, (list, tuple)):
        return all(is_zero_derivative(x) for x in v)
    if isinstance(v, dict):
        return all(is_zero_derivative(x) for x in v.values())
    if isinstance(v, (int, float, complex, np.number, np.ndarray)):
        return not np.any(v)
    return False


class FunctionTangent:
    """The tangent of a function object (a closure passed as an argument, a callable that captures floats):
    tangent cells parallel to its closure, and the tangents of its defaults.

    It is what generated code passes for a closure's captured values; a user rarely makes one (None, or
    mc.NoTangent(), is the tangent of a function that captures nothing differentiable).

    Args:
        cells: one tangent cell per cell of the function's closure (None where it captures nothing
            differentiable).
        defaults: the tangents of its positional defaults; kwdefaults: of its keyword-only defaults."""

    __slots__ = ("cells", "defaults", "kwdefaults")

    def __init__(self, cells: tuple, defaults: tuple = (), kwdefaults: Any = None) -> None:
        self.cells = cells
        self.defaults = defaults
        self.kwdefaults = kwdefaults or {}

    def __repr__(self) -> str:
        return f"FunctionTangent(cells={[c.cell_contents if c is not None else None for c in self.cells]})"


class MethodTangent:
    """The tangent of a bound method: the tangent of `self` (the function is constant)."""

    __slots__ = ("self_tangent",)
    # Never changed after it is made: a value to reverse mode over forward code, whose adjoint is a
    # MethodAdjoint (rules/forward_code_rules.py), not identity-keyed storage.
    __mc_value__ = True

    def __init__(self, self_tangent: Any) -> None:
        self.self_tangent = self_tangent


def is_differentiable_scalar(x: Any) -> bool:
    return isinstance(x, (float, complex, np.floating, np.complexfloating)) and not isinstance(x, bool)


def zero_tangent(x: Any) -> Any:
    """A zero tangent with the structure of `x`: storage where x can be written in place
    (arrays, lists, dicts, objects), the symbolic zero NoTangent for immutable leaves.

    The symbolic zero is a strong zero (0 * nan = 0), which a constant's tangent must be.
    `zeros_like_tangent` gives the dense form users see.
    """
    if isinstance(x, (bool, int, str, bytes, type(None), range, slice, np.integer, np.bool_)):
        return NoTangent
    if isinstance(x, (float, np.floating, complex, np.complexfloating)):
        return NoTangent
    if isinstance(x, np.ndarray):
        if x.dtype == object and x.size:
            return _object_array_zero(x)
        return np.zeros_like(x) if x.dtype.kind in "fc" or _float_record(x.dtype) else NoTangent
    if is_other_array(x):
        # Dense (and lazy, for Dask: a graph of zeros, nothing allocated): forward mode writes into a tangent
        # where the code writes into its array (`y[0] = v` is Dask's item assignment), which a symbolic zero
        # would drop.  Reverse mode keeps these arrays' adjoints as values (is_mutable is False).
        return np.zeros_like(x) if x.dtype.kind in "fc" else NoTangent
    if isinstance(x, (LazySequence, Zeros)):  # (a loop's sequence over an iterator, or its items' zero tangents:
        return Zeros(x if isinstance(x, LazySequence) else x._seq)  # read as the loop pulls them, never ahead)
    if isinstance(x, list):
        return [zero_tangent(v) for v in x]
    if isinstance(x, collections.deque):  # (rules/python_deque.py: a deque of tangents, the same maxlen)
        return collections.deque([zero_tangent(v) for v in x], x.maxlen)
    if isinstance(x, tuple):
        t = tuple(zero_tangent(v) for v in x)
        return t
    if isinstance(x, dict):
        return {k: zero_tangent(v) for k, v in x.items()}
    if isinstance(x, types.CellType):
        return types.CellType()  # a tangent cell: empty means zero
    if isinstance(x, (types.FunctionType, types.BuiltinFunctionType, type, types.ModuleType, types.MethodType, np.ufunc)):
        return NoTangent
    if isinstance(x, numbers.Number):
        return NoTangent
    if hasattr(x, "__dict__") and not isinstance(x, type):
        if holds_no_data(x):
            return NoTangent
        return MutableTangent({k: zero_tangent(v) for k, v in vars(x).items()})
    if hasattr(x, "_fields"):
        return Tangent({k: zero_tangent(getattr(x, k)) for k in x._fields})
    if _slotted_user_object(x):
        # (an object of the user's with `__slots__` and no `__dict__`: its fields' tangents, as for one with a
        # `__dict__` -- NoTangent made forward code of forward code drop what its `__init__` set: jvp of jvp 2.74 for
        # 6.86)
        return MutableTangent({k: zero_tangent(v) for k, v in fields_of(x).items()})
    return NoTangent


def _slotted_user_object(x: Any) -> bool:
    """An instance of a class written in Python (not ours, nor a library's) whose fields are `__slots__`."""
    cls = type(x)
    mod = cls.__module__ or ""
    return bool(cls.__flags__ & _HEAPTYPE) and not mod.startswith(("mooncake_ast", "numpy", "scipy", "builtins")) \
        and bool(declared_slots(x)) and is_data_object(x)


def zero_tangent_sharing(y: Any, args: tuple, dargs: tuple) -> Any:
    """The zero tangent of y (a plain call's result), in which an object y holds twice, or one it was given, has
    one tangent: `dict.fromkeys(keys, [])` holds one list under every key, and a write through one key must show
    under the others (zero_tangent gave each its own zero list, and the writes were lost to the other keys)."""
    memo = {id(a): d for a, d in zip(args, dargs) if is_mutable(a) and d is not NoTangent and d is not None}

    def walk(v: Any) -> Any:
        if (not is_mutable(v) and not isinstance(v, tuple)) or isinstance(v, (LazySequence, Zeros)):
            return zero_tangent(v)
        if id(v) in memo:
            return memo[id(v)]
        if isinstance(v, tuple):
            return tuple(walk(e) for e in v) if type(v) is tuple else zero_tangent(v)
        if isinstance(v, list):
            d: Any = []
            memo[id(v)] = d  # (before its items: a list holding itself)
            d.extend(walk(e) for e in v)
        elif type(v) is dict:
            d = memo[id(v)] = {}
            d.update((k, walk(e)) for k, e in v.items())
        else:
            d = memo[id(v)] = zero_tangent(v)
        return d
    return walk(y)


def _object_array_zero(x: np.ndarray) -> np.ndarray:
    """An object array's zero tangent: an object array of its items' zero tangents (storage for the mutable ones),
    which forward code writes an item's tangent into (`da[i] = dv`) as it writes the item."""
    out = np.empty(x.shape, dtype=object)
    for i, v in np.ndenumerate(x):
        out[i] = zero_tangent(v)
    return out


def holds_no_data(obj: Any) -> bool:
    """A logger, handler or adapter of the standard library's logging (`log = logging.getLogger(...)`): messages go
    out of it, no derivative; its fields reach every logger of the process through the manager, a cycle that made a
    zero tangent of it (and the test for one) recurse without end."""
    mod = type(obj).__module__ or ""
    return mod == "logging" or mod.startswith("logging.")


def zeros_like_tangent(x: Any) -> Any:
    """The dense zero tangent of `x`: 0.0 for floats, zeros for arrays, containers of those."""
    if isinstance(x, (float, np.floating)) and not isinstance(x, bool):
        return 0.0
    if isinstance(x, (complex, np.complexfloating)):
        return 0j
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(zeros_like_tangent(v) for v in x)
    if isinstance(x, dict):
        return {k: zeros_like_tangent(v) for k, v in x.items()}
    if is_data_object(x) and hasattr(x, "__dict__"):
        return MutableTangent({k: zeros_like_tangent(v) for k, v in vars(x).items()})
    return zero_tangent(x)


def materialize(t: Any, primal: Any) -> Any:
    """Replace symbolic zeros (NoTangent) inside `t` by dense zeros shaped like `primal`."""
    if t is NoTangent:
        return zeros_like_tangent(primal)
    if isinstance(primal, (list, tuple)) and isinstance(t, (list, tuple)):
        out = [materialize(a, p) for a, p in zip(t, primal)]
        return type(primal)(out) if isinstance(primal, tuple) and not hasattr(primal, "_fields") else out if isinstance(primal, list) else tuple(out)
    if isinstance(primal, dict) and isinstance(t, dict):
        return {k: materialize(t.get(k, NoTangent), v) for k, v in primal.items()}
    if (isinstance(primal, np.ndarray) or is_other_array(primal)) and primal.dtype.kind in "fc" and \
            isinstance(t, (int, float, complex, np.number)):
        return np.full_like(primal, t)
    if isinstance(t, MutableTangent) and hasattr(primal, "__dict__"):
        return MutableTangent({k: materialize(t.fields.get(k, NoTangent), v) for k, v in vars(primal).items()})
    return t


def adjoint_in_library(g: Any, primal: Any) -> Any:
    """The adjoint a user gets for a Dask (CuPy) array `primal`, or the Dask adjoint of a NumPy array or float
    (a NumPy argument of a function of Dask data, e.g. weights): an array of the primal's shape and dtype, made
    without computing anything (a Dask adjoint stays a lazy graph, a float's a 0-d one); NoTangent for an int
    or bool array."""
    if not is_other_array(primal):
        if isinstance(primal, (float, np.floating)):
            if g.shape != ():
                g = g.reshape(())  # (one item: as float(np.asarray(g).reshape(())) gives for NumPy)
            return g if g.dtype.kind == "f" else g.astype(float)
        if not isinstance(primal, np.ndarray):
            return g
    if primal.dtype.kind not in "fc":
        return NoTangent
    if is_other_array(g):
        out = g
    elif isinstance(g, np.ndarray) and g.ndim:
        out = np.asarray(g, like=primal)  # (a NumPy adjoint of a Dask argument: into Dask, as its argument)
    else:
        return np.full_like(primal, g, dtype=primal.dtype)  # a number (the adjoint of every item alike)
    if out.shape != primal.shape:
        out = out.reshape(primal.shape)  # (as for NumPy: an adjoint of the same size; an error otherwise)
    return out if out.dtype == primal.dtype else out.astype(primal.dtype)


def fresh(t: Any) -> Any:
    """A tangent that shares no storage with `t` (for values that are later mutated in place)."""
    if mutable_in_place(t):
        return t.copy()
    if isinstance(t, (LazySequence, Zeros)):
        return t  # (a loop's tangent sequence over an iterator: read as the loop pulls, never copied ahead of it)
    if isinstance(t, list):
        return [fresh(v) for v in t]
    if isinstance(t, dict):
        return {k: fresh(v) for k, v in t.items()}
    if isinstance(t, MutableTangent):
        return MutableTangent({k: fresh(v) for k, v in t.fields.items()})
    return t


def float_like(t: Any) -> bool:
    return isinstance(t, (float, complex)) or (isinstance(t, np.ndarray) and t.dtype.kind in "fc")


def isfinite_tangent(t: Any) -> bool:
    if isinstance(t, (float, complex)):
        return math.isfinite(abs(t))
    if isinstance(t, np.ndarray):
        return bool(np.all(np.isfinite(t)))
    return True


_PLAIN_VALUES = frozenset({float, int, bool, complex, str, bytes, tuple, frozenset, type(None), np.float64, np.int64})


def _float_record(dtype: Any) -> bool:
    """A structured dtype of float (complex) fields only (`[("a", float), ("b", float)]`): its tangent is an array of
    the same dtype, written and read by field name as the array is (a symbolic zero dropped those writes)."""
    return dtype.kind == "V" and dtype.names is not None and all(
        dtype.fields[n][0].base.kind in "fc" or _float_record(dtype.fields[n][0].base) for n in dtype.names)


def is_mutable(x: Any) -> bool:
    """Can x be changed in place (so its tangent must be storage, not the symbolic zero)?"""
    if type(x) in _PLAIN_VALUES:
        return False  # (the common case first: the pullbacks of generic code ask this of every number)
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "fc" or _float_record(x.dtype)
    if is_other_array(x):
        return False  # Dask/CuPy arrays are values to the transforms (writes into them are refused)
    if isinstance(x, (list, dict, types.CellType, collections.deque)):
        return True
    if getattr(type(x), "__mc_value__", False):
        return False  # our own run-time objects that behave as values (e.g. map's recorded results)
    if isinstance(x, (tuple, str, bytes, int, float, complex, frozenset)):
        return False
    return is_data_object(x) and (hasattr(x, "__dict__") or bool(slot_names(x)))


_CODE_TYPES = (type, types.FunctionType, types.ModuleType, types.MethodType, types.BuiltinFunctionType,
               types.BuiltinMethodType, types.MethodWrapperType, types.WrapperDescriptorType, types.MethodDescriptorType,
               types.ClassMethodDescriptorType, types.GetSetDescriptorType, types.MemberDescriptorType,
               staticmethod, classmethod, property, np.ufunc)


def is_data_object(x: Any) -> bool:
    """Is x an object whose fields are data (an instance of a class), not code?

    An instance of a user class is data whether or not it is callable: a layer
    with `__call__` has differentiable fields.  Functions, methods, classes,
    modules, builtins and descriptors are code (closures have their own
    FunctionTangent).
    """
    if isinstance(x, _CODE_TYPES) or is_other_array(x):
        return False  # (an array of another library is data, but not an object whose fields are tangents)
    if callable(x):
        # Callable instances of classes written in Python (heap types) are data; those of
        # builtin or extension types (NumPy's function dispatchers) and partials are code.
        import functools

        return bool(type(x).__flags__ & _HEAPTYPE) and not isinstance(x, functools.partial) and \
            type(x).__module__ not in ("builtins", "functools")
    return True


_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: the class was made by a `class` statement (or type())


def declared_slots(x: Any) -> list:
    """The attribute names the classes of x declare in __slots__ (a string is one name)."""
    names: list = []
    for cls in type(x).__mro__:
        slots = getattr(cls, "__slots__", ())
        for n in (slots,) if isinstance(slots, str) else slots:
            if isinstance(n, str) and n not in ("__dict__", "__weakref__"):
                names.append(n)
    return names


def slot_names(x: Any) -> list:
    """The attribute names an instance of a class with __slots__ holds."""
    return [n for n in declared_slots(x) if hasattr(x, n)]


def fields_of(x: Any) -> dict:
    """Attribute name -> value, for __dict__ and __slots__ objects."""
    out = dict(getattr(x, "__dict__", {}))
    for n in slot_names(x):
        out[n] = getattr(x, n)
    return out


def storage(x: Any, dx: Any) -> Any:
    """dx, with every symbolic zero that stands for a mutable value replaced by zero storage."""
    if dx is NoTangent:
        return zero_tangent(x) if is_mutable(x) or is_other_array(x) else dx
    if isinstance(x, LazySequence) or isinstance(dx, LazySequence):
        return dx  # (a loop's sequence over an iterator: its lengths would pull it on before the loop asks)
    if isinstance(x, list) and isinstance(dx, list) and len(x) == len(dx):
        for i, (v, d) in enumerate(zip(x, dx)):
            if d is NoTangent and is_mutable(v):
                dx[i] = zero_tangent(v)
    elif isinstance(x, dict) and isinstance(dx, dict):
        for k, v in x.items():
            if dx.get(k, NoTangent) is NoTangent and is_mutable(v):
                dx[k] = zero_tangent(v)
    return dx


def laid_out_like(p: np.ndarray, t: Any) -> np.ndarray:
    """A copy of tangent t in p's dtype and memory order (C or Fortran, as np.empty_like keeps it): views made of
    the primal (`A.ravel()`, `A.reshape(-1)`) are then views of the tangent too, or copies of both.  A tangent
    laid out otherwise was copied by the view that shared the primal's memory, and writes through it were lost
    (jvp 6.94 for 10.54)."""
    out = _strided_like(p) if not (p.flags.c_contiguous or p.flags.f_contiguous) else None
    if out is None:
        out = np.empty_like(p, dtype=p.dtype)
    out[...] = t
    return out


def _strided_like(p: np.ndarray) -> Any:
    """New storage with p's very strides, for p neither C- nor Fortran-contiguous (`big[::2]`): `p.ravel()` is a
    copy, and the tangent's must be one too (np.empty_like would lay it out contiguously, its ravel a view).  None
    for strides it cannot copy safely (negative, not whole items, or overlapping entries)."""
    size = p.dtype.itemsize
    if p.size == 0 or any(s <= 0 or s % size for s in p.strides):
        return None
    reach = size
    for n, s in sorted(zip(p.shape, p.strides), key=lambda a: a[1]):
        if n > 1 and s < reach:
            return None  # (entries overlap)
        reach = s * n if n > 1 else reach
    buf = np.empty(sum((n - 1) * s for n, s in zip(p.shape, p.strides)) // size + 1, dtype=p.dtype)
    return np.lib.stride_tricks.as_strided(buf, p.shape, p.strides)
