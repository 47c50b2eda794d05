"""User objects and Python's operator protocol: what a user object is, and which of its methods an operator runs.

`a * b`, `-a`, `a[i] = v`, `for v in a`, `a.k = v` (a property) on an instance of a
user class run the class's own Python methods (`__mul__`, `__rmul__`, `__neg__`,
`__setitem__`, `__iter__`, the property's setter).  Those methods are user code, so
they are differentiated like any other call: the operator is dispatched at run time,
exactly as Python dispatches it (the left operand's method; NotImplemented; the
right operand's reflected method; a subclass's reflected method first; `__iadd__`
falling back to `__add__`), and each method reached goes through `fcall` / `rcall`.

This module is the part both modes share: the protocol tables, `is_user_object` and
`kind_of` (the argument kinds derived rules are specialised on), and the methods Python
would try (`attempts`, and the property, iteration and fallback cases).  What each mode
does with those methods lives above it: forward/object_calls.py (tangents) and
reverse/object_calls.py (pullbacks).  Which values of a function may be user objects at
all, decided when the code is generated so that numeric code keeps its inline
templates, is forward/object_flow.py.
"""
from __future__ import annotations

import builtins
import operator
import types
from typing import Any, Optional

import numpy as np

from .. import ops
from ..arrays import library_of_type
from ..attribute_checks import check_attribute_write
from ..errors import MooncakeError

class ObjectOperatorError(MooncakeError):
    """An operator on a user object that cannot be differentiated as Python runs it."""


# ---------------------------------------------------------------- the protocol tables

BINARY = {
    operator.add: ("__add__", "__radd__"), operator.sub: ("__sub__", "__rsub__"),
    operator.mul: ("__mul__", "__rmul__"), operator.truediv: ("__truediv__", "__rtruediv__"),
    operator.floordiv: ("__floordiv__", "__rfloordiv__"), operator.mod: ("__mod__", "__rmod__"),
    operator.pow: ("__pow__", "__rpow__"), operator.matmul: ("__matmul__", "__rmatmul__"),
    operator.and_: ("__and__", "__rand__"), operator.or_: ("__or__", "__ror__"), operator.xor: ("__xor__", "__rxor__"),
    operator.lshift: ("__lshift__", "__rlshift__"), operator.rshift: ("__rshift__", "__rrshift__"),
}
COMPARE = {
    operator.lt: ("__lt__", "__gt__"), operator.le: ("__le__", "__ge__"), operator.gt: ("__gt__", "__lt__"),
    operator.ge: ("__ge__", "__le__"), operator.eq: ("__eq__", "__eq__"), operator.ne: ("__ne__", "__ne__"),
}
INPLACE = {
    operator.iadd: ("__iadd__", operator.add), operator.isub: ("__isub__", operator.sub),
    operator.imul: ("__imul__", operator.mul), operator.itruediv: ("__itruediv__", operator.truediv),
    operator.ifloordiv: ("__ifloordiv__", operator.floordiv), operator.imod: ("__imod__", operator.mod),
    operator.ipow: ("__ipow__", operator.pow), operator.imatmul: ("__imatmul__", operator.matmul),
    operator.iand: ("__iand__", operator.and_), operator.ior: ("__ior__", operator.or_),
    operator.ixor: ("__ixor__", operator.xor),
}
UNARY = {operator.neg: "__neg__", operator.pos: "__pos__", operator.abs: "__abs__", builtins.abs: "__abs__",
         operator.invert: "__invert__", builtins.float: "__float__", builtins.complex: "__complex__"}
ITEMS = {operator.getitem: ("__getitem__", 2), operator.setitem: ("__setitem__", 3), operator.delitem: ("__delitem__", 2),
         operator.contains: ("__contains__", 2)}
ITERATION = {builtins.iter, ops.sequence, ops.unpack}
ATTRIBUTES = {builtins.setattr, builtins.delattr, builtins.getattr}

GATED = frozenset([*BINARY, *COMPARE, *INPLACE, *UNARY, *ITEMS, *ITERATION, builtins.setattr, builtins.delattr])
_ARITHMETIC = frozenset([*BINARY, *COMPARE, *UNARY])  # pure on numbers and arrays: values flow, nothing is aliased


def _special(tp: type, name: str) -> Any:
    """`name` as Python's operator machinery finds it: on the type, through its MRO (not on the instance)."""
    for klass in tp.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return None


def _user(m: Any) -> bool:
    return isinstance(m, types.FunctionType)


def is_user_object(x: Any) -> bool:
    """An instance of a class written in Python (not a number, array, builtin container, function, class or module)."""
    tp = type(x)
    if tp in _PLAIN_TYPES or isinstance(x, _PLAIN_BASES) or library_of_type(tp) is not None:
        return False  # (a Dask or CuPy array: NumPy code, dispatched by NumPy's protocols; arrays.py)
    if getattr(tp, "__mc_items__", False):
        return False  # reverse.builtin_adjoints.ItemsIterator (map's and itertools' results): iterated like a list iterator
    return tp.__module__ not in ("builtins", "numpy") and not tp.__module__.startswith("numpy.")


_PLAIN_TYPES = {float, int, bool, complex, str, bytes, type(None), list, tuple, dict, set, frozenset, range, slice,
                np.ndarray}
_PLAIN_BASES = (np.ndarray, np.generic, types.FunctionType, types.BuiltinFunctionType, types.MethodType, type,
                types.ModuleType, np.ufunc)


def kind_of(x: Any) -> str:
    """The argument kind a derived rule is specialised on: num, arr, obj (a user object), objs (a container
    holding one), or any."""
    tp = type(x)
    if tp is float or tp is int or tp is bool:
        return "num"
    if isinstance(x, (np.ndarray, np.generic)):
        return "objs" if x.dtype.kind == "O" else "arr"
    if is_user_object(x):
        return "obj"
    if isinstance(x, (list, tuple, dict, set, frozenset)) and _holds_object(x, 10000):
        return "objs"
    return "any"


def _holds_object(x: Any, budget: int) -> bool:
    stack = [x]
    while stack:
        v = stack.pop()
        budget -= 1
        if budget < 0:
            return True  # too large to look through: assume it may
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, (list, tuple, set, frozenset)):
            stack.extend(v)
        elif is_user_object(v):
            return True
    return False


# ---------------------------------------------------------------- run-time dispatch

class _Attempt:
    """One method Python would try: `method(*(args[i] for i in order))`."""

    __slots__ = ("method", "order")

    def __init__(self, method: Any, order: tuple) -> None:
        self.method = method
        self.order = order


def _binary_attempts(a: Any, b: Any, name: str, rname: str) -> list:
    ta, tb = type(a), type(b)
    left = _special(ta, name)
    right = _special(tb, rname) if tb is not ta else None
    first, second = _Attempt(left, (0, 1)), _Attempt(right, (1, 0))
    if right is not None and issubclass(tb, ta) and right is not _special(ta, rname):
        first, second = second, first  # a subclass's reflected method comes first
    return [x for x in (first, second) if x.method is not None]


def attempts(f: Any, args: tuple) -> Optional[list]:
    """The methods Python would try for `f(*args)`, or None when no user method takes part."""
    if not any(is_user_object(a) for a in args):
        return None  # numbers, arrays, builtin containers, NumPy's own helper objects (np.r_)
    if f in BINARY and len(args) == 2:
        out = _binary_attempts(args[0], args[1], *BINARY[f])
    elif f in COMPARE and len(args) == 2:
        out = _binary_attempts(args[0], args[1], *COMPARE[f])
    elif f in INPLACE and len(args) == 2:
        own = _special(type(args[0]), INPLACE[f][0])
        out = ([_Attempt(own, (0, 1))] if own is not None else []) + _binary_attempts(args[0], args[1], *BINARY[INPLACE[f][1]])
    elif f in UNARY and len(args) == 1:
        m = _special(type(args[0]), UNARY[f])
        out = [_Attempt(m, (0,))] if m is not None else []
    elif f in ITEMS and len(args) == ITEMS[f][1]:
        m = _special(type(args[0]), ITEMS[f][0])
        out = [_Attempt(m, tuple(range(len(args))))] if m is not None else []
    else:
        return None
    return out if any(_user(x.method) for x in out) else None


def _no_method(f: Any, args: tuple) -> Exception:
    names = " and ".join(repr(type(a).__name__) for a in args)
    return TypeError(f"unsupported operand type(s) for {getattr(f, '__name__', f)}: {names}")


def _native(f: Any, m: Any, cargs: tuple, args: tuple) -> Any:
    """A builtin method Python tries before or after the user's (e.g. float.__mul__(2.0, v))."""
    y = m(*cargs)
    if y is not NotImplemented and isinstance(cargs[0], (np.ndarray, np.generic)) and f not in COMPARE:
        user = next(type(a) for a in args if is_user_object(a))
        raise ObjectOperatorError(
            f"{_where(user)}: NumPy computed {getattr(f, '__name__', f)} of a {type(cargs[0]).__name__} and a "
            f"{user.__name__} itself, calling {user.__name__}'s methods element by element, which cannot be "
            f"differentiated; set `__array_ufunc__ = None` in class {user.__name__} so that NumPy hands the "
            f"operation to its reflected method")
    return y


def _where(cls: type) -> str:
    import inspect

    try:
        return f"{inspect.getsourcefile(cls)}:{inspect.getsourcelines(cls)[1]}"
    except (OSError, TypeError):
        return cls.__qualname__


def _fallback(f: Any, args: tuple) -> Any:
    """Every method said NotImplemented: `==`/`!=` compare identity, anything else is Python's TypeError."""
    if f is operator.eq:
        return args[0] is args[1]
    if f is operator.ne:
        return args[0] is not args[1]
    raise _no_method(f, args)


def _check_native(f: Any, y: Any, args: tuple) -> Any:
    if y is NotImplemented or f in COMPARE:
        return y
    raise ObjectOperatorError(
        f"{getattr(f, '__name__', f)} of {', '.join(type(a).__name__ for a in args)} was computed by a builtin "
        "method although a user method takes part; it cannot be differentiated")


def _attribute_method(f: Any, args: tuple) -> Optional[tuple]:
    """(function, argument order) for a property's setter/deleter/getter reached by setattr/delattr/getattr."""
    if len(args) < 2 or not isinstance(args[1], str) or not is_user_object(args[0]):
        return None
    if f is builtins.setattr:
        check_attribute_write(args[0], args[1])  # a user descriptor's __set__ is refused
    prop = _special(type(args[0]), args[1])
    if not isinstance(prop, property):
        return _own_attribute_method(f, args)
    if f is builtins.setattr and len(args) == 3 and _user(prop.fset):
        return prop.fset, (0, 2)
    if f is builtins.delattr and len(args) == 2 and _user(prop.fdel):
        return prop.fdel, (0,)
    if f is builtins.getattr and len(args) == 2 and _user(prop.fget):
        return prop.fget, (0,)
    return None


def _own_attribute_method(f: Any, args: tuple) -> Optional[tuple]:
    """The class's own `__setattr__` (written in Python) for `obj.name = v`: it may store something else than v
    (`object.__setattr__(self, name, 2 * value)`, a registry of parameters), so it is differentiated as the call it
    is; taking the store as plain gave the derivative of v where 2v was stored.  Its own `__delattr__` is refused."""
    if f is builtins.setattr and len(args) == 3:
        own = _special(type(args[0]), "__setattr__")
        return (own, (0, 1, 2)) if _user(own) else None
    if f is builtins.delattr and len(args) == 2 and _user(_special(type(args[0]), "__delattr__")):
        from ..errors import UnsupportedDerivativeError

        raise UnsupportedDerivativeError(
            f"`del obj.{args[1]}` on a {type(args[0]).__name__}, whose class has its own __delattr__, is not supported: "
            "its derivative would have to follow what that method does; delete the field in a method of the class "
            "with `object.__delattr__`, or keep the field (set it to None)")
    return None


def _iteration_method(x: Any) -> Optional[tuple]:
    """("iter", __iter__) or ("items", __getitem__) when iterating x runs user code."""
    if not is_user_object(x):
        return None
    it = _special(type(x), "__iter__")
    if _user(it):
        return "iter", it
    if it is None and _user(_special(type(x), "__getitem__")):
        return "items", _special(type(x), "__getitem__")
    return None


def _next_method(it: Any) -> Any:
    """The user's `__next__` of the iterator `__iter__` gave, or None (a builtin iterator: ops.sequence reads it;
    for an iterator object that returns itself, ops.sequence would dispatch back here for ever)."""
    if not is_user_object(it):
        return None
    step = _special(type(it), "__next__")
    return step if _user(step) else None


def _plain_field(args: tuple) -> bool:
    """`del obj.name` of a field in a user object's __dict__."""
    return (len(args) == 2 and isinstance(args[1], str) and is_user_object(args[0])
            and args[1] in getattr(args[0], "__dict__", {}))


def dispatches(f: Any) -> bool:
    try:
        return f in GATED or f is builtins.getattr
    except TypeError:
        return False


def metaclass_call(cls: type) -> Any:
    """The Python `__call__` of cls's metaclass (`class Stamping(type): def __call__(cls, *a): ...`), which runs in
    place of the plain construction when `cls(...)` is called, or None (type's own)."""
    for meta in type(cls).__mro__:
        if meta is type:
            return None
        fn = meta.__dict__.get("__call__")
        if fn is not None:
            return fn if isinstance(fn, types.FunctionType) else None
    return None


def plain_construction(f: Any, args: tuple) -> Optional[tuple]:
    """(the class that `f(*args)` constructs the plain way, how many of args come before its own arguments), where f
    is `type.__call__`, bound to the class or not (what `super().__call__(*args)` in a metaclass's `__call__`
    calls), else None."""
    if getattr(f, "__name__", None) != "__call__" or getattr(f, "__objclass__", None) is not type:
        return None
    owner = getattr(f, "__self__", None)
    if isinstance(owner, type):
        return owner, 0
    if args and isinstance(args[0], type):  # (type.__call__(cls, *a): the slot wrapper itself)
        return args[0], 1
    return None
