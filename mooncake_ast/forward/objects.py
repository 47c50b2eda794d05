"""User objects: Python's operator protocol, differentiated, in both modes.

`a * b`, `-a`, `a[i] = v`, `for v in a`, `a.k = v` (a property) on an instance of a
user class run the class's own Python methods (`__mul__`, `__rmul__`, `__neg__`,
`__setitem__`, `__iter__`, the property's setter).  Those methods are user code, so
they are differentiated like any other call: the operator is dispatched here, at run
time, exactly as Python dispatches it (the left operand's method; NotImplemented; the
right operand's reflected method; a subclass's reflected method first; `__iadd__`
falling back to `__add__`), and each method reached goes through `fcall` / `rcall`.

When the code is generated, `ObjectFlow` finds the operator statements whose operands
may be user objects; the resolver then leaves them to run-time dispatch instead of
inlining the numeric template (which would do tangent arithmetic on the object's
tangent).  Numbers and arrays (arguments specialised as such, NumPy results,
arithmetic of those) never are, so numeric code keeps its inline templates.
"""
from __future__ import annotations

import builtins
import math
import operator
import threading
import types
from typing import Any, Optional

import numpy as np

from .. import ops
from ..arrays import library_of_type
from ..attribute_checks import check_attribute_write
from ..errors import MooncakeError
from ..tangents import NoTangent, zero_tangent


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
        return False  # reverse.adjoints.ItemsIterator (map's and itertools' results): iterated like a list iterator
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
        return None
    if f is builtins.setattr and len(args) == 3 and _user(prop.fset):
        return prop.fset, (0, 2)
    if f is builtins.delattr and len(args) == 2 and _user(prop.fdel):
        return prop.fdel, (0,)
    if f is builtins.getattr and len(args) == 2 and _user(prop.fget):
        return prop.fget, (0,)
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


def forward_call(f: Any, args: tuple, dargs: tuple, kwargs: dict) -> Optional[tuple]:
    """(y, dy) for an operator on user objects, differentiating the methods it runs; None if none takes part."""
    from .runtime import fcall

    if kwargs:
        return None
    if f in ATTRIBUTES:
        found = _attribute_method(f, args)
        if found is None:
            if f is builtins.delattr and _plain_field(args):  # `del obj.name`: the field and its tangent go
                from ..tangents import MutableTangent

                delattr(*args)
                if isinstance(dargs[0], MutableTangent):
                    dargs[0].fields.pop(args[1], None)
                return None, NoTangent
            return None
        fn, order = found
        return fcall(fn, NoTangent, tuple(args[i] for i in order), tuple(dargs[i] for i in order))
    if f in ITERATION:
        how = _iteration_method(args[0]) if args and (f is not builtins.iter or len(args) == 1) else None
        if how is None:
            return None
        items, ditems = _forward_items(args[0], dargs[0], how)
        if f is ops.sequence:
            return items, ditems
        if f is builtins.iter and len(args) == 1:
            return iter(items), iter(ditems)
        if f is ops.unpack:
            return fcall(ops.unpack, NoTangent, (items, *args[1:]), (ditems, *dargs[1:]))
        return None
    tries = attempts(f, args)
    if tries is None:
        return None
    for t in tries:
        cargs = tuple(args[i] for i in t.order)
        if _user(t.method):
            y, dy = fcall(t.method, NoTangent, cargs, tuple(dargs[i] for i in t.order))
        else:
            y = _check_native(f, _native(f, t.method, cargs, args), args)
            dy = NoTangent
        if y is not NotImplemented:
            return y, dy
    y = _fallback(f, args)
    return y, zero_tangent(y)


def _forward_items(x: Any, dx: Any, how: tuple) -> tuple:
    """The items iterating user object x yields, and their tangents (as lists)."""
    from .runtime import fcall

    kind, method = how
    if kind == "iter":
        it, dit = fcall(method, NoTangent, (x,), (dx,))
        step = _next_method(it)
        if step is None:
            return fcall(ops.sequence, NoTangent, (it,), (dit,))
        items, ditems = [], []
        while True:  # an iterator of the user's (`__iter__` returns self): its `__next__` until StopIteration
            try:
                y, dy = fcall(step, NoTangent, (it,), (dit,))
            except StopIteration:
                return items, ditems
            items.append(y)
            ditems.append(dy)
    items, ditems, i = [], [], 0
    while True:  # the old sequence protocol: x[0], x[1], ... until IndexError
        try:
            y, dy = fcall(method, NoTangent, (x, i), (dx, NoTangent))
        except IndexError:
            return items, ditems
        items.append(y)
        ditems.append(dy)
        i += 1


def reverse_call(f: Any, args: tuple, kwargs: dict) -> Optional[tuple]:
    """(y, pullback) for an operator on user objects; the pullback maps y's adjoint to (f_bar, args_bar, kwargs_bar)."""
    from ..reverse.runtime import rcall

    if kwargs:
        return None
    if f in ATTRIBUTES:
        found = _attribute_method(f, args)
        if found is None:
            if f is builtins.delattr and _plain_field(args):
                return _reverse_delattr(*args)
            return None
        fn, order = found
        y, pb = rcall(fn, tuple(args[i] for i in order), {})
        return y, _mapped([(pb, order, True)], len(args))
    if f in ITERATION:
        how = _iteration_method(args[0]) if args and (f is not builtins.iter or len(args) == 1) else None
        if how is None:
            return None
        return _reverse_iteration(f, args, how)
    tries = attempts(f, args)
    if tries is None:
        return None
    done: list = []
    for t in tries:
        cargs = tuple(args[i] for i in t.order)
        if _user(t.method):
            y, pb = rcall(t.method, cargs, {})
            done.append((pb, t.order, False))
        else:
            y = _check_native(f, _native(f, t.method, cargs, args), args)
        if y is not NotImplemented:
            if done and _user(t.method):
                done[-1] = (done[-1][0], done[-1][1], True)
            return y, _mapped(done, len(args))
    return _fallback(f, args), _mapped(done, len(args))


def _plain_field(args: tuple) -> bool:
    """`del obj.name` of a field in a user object's __dict__."""
    return (len(args) == 2 and isinstance(args[1], str) and is_user_object(args[0])
            and args[1] in getattr(args[0], "__dict__", {}))


def _reverse_delattr(obj: Any, name: str) -> tuple:
    """`del obj.name`, undone by the pullback (nothing read the field after it was deleted: a zero slot)."""
    from ..reverse import shadows
    from ..reverse.adjoints import AdjDict, AdjTuple
    from ..tangents import MutableTangent, is_mutable

    old = obj.__dict__[name]
    delattr(obj, name)

    def pullback(g: Any) -> tuple:
        object.__setattr__(obj, name, old)
        sh = shadows.shadow(obj)
        if isinstance(sh, MutableTangent):
            sh.fields[name] = shadows.shadow(old) if is_mutable(old) else NoTangent
        return NoTangent, AdjTuple([NoTangent, NoTangent]), AdjDict()

    return None, pullback


def _mapped(calls: list, n: int) -> Any:
    """A pullback over the methods tried: the one that answered gets y's adjoint, those that said
    NotImplemented are only undone (their adjoints are zero)."""
    from ..reverse.adjoints import AdjDict, AdjTuple, accumulate

    def pullback(g: Any) -> tuple:
        bars: list = [NoTangent] * n
        for pb, order, answered in reversed(calls):
            _, a, _ = pb(g if answered else NoTangent)
            if answered:
                for j, i in enumerate(order):
                    if j < len(a):
                        bars[i] = accumulate(bars[i], a[j])
        return NoTangent, AdjTuple(bars), AdjDict()

    return pullback


def _reverse_iteration(f: Any, args: tuple, how: tuple) -> tuple:
    from ..reverse.adjoints import AdjDict, AdjTuple
    from ..reverse.runtime import rcall

    x = args[0]
    kind, method = how
    if kind == "iter":
        it, it_pb = rcall(method, (x,), {})
        step = _next_method(it)
        if step is None:
            items, seq_pb = rcall(ops.sequence, (it,), {})
        else:  # an iterator of the user's: its `__next__` until StopIteration, each call with its own pullback
            items, steps = [], []
            while True:
                try:
                    y, pb = rcall(step, (it,), {})
                except StopIteration:
                    break
                items.append(y)
                steps.append(pb)

            def seq_pb(g: Any) -> tuple:
                from ..reverse import shadows

                gs = list(g) if g is not NoTangent else []
                total: Any = NoTangent
                for k in reversed(range(len(steps))):
                    _, a, _ = steps[k](gs[k] if k < len(gs) else NoTangent)
                    total = shadows.acc(it, total, a[0])  # (the iterator collects in its storage)
                return NoTangent, AdjTuple([total]), AdjDict()

        def items_pullback(g: Any) -> Any:
            _, a, _ = seq_pb(g)
            _, b, _ = it_pb(a[0])
            return b[0]
    else:
        items, pbs, i = [], [], 0
        while True:
            try:
                y, pb = rcall(method, (x, i), {})
            except IndexError:
                break
            items.append(y)
            pbs.append(pb)
            i += 1

        def items_pullback(g: Any) -> Any:
            from ..reverse import shadows

            gs = list(g) if g is not NoTangent else [NoTangent] * len(pbs)
            total: Any = NoTangent
            for k in reversed(range(len(pbs))):
                _, a, _ = pbs[k](gs[k] if k < len(gs) else NoTangent)
                total = shadows.acc(x, total, a[0])  # a mutable x collects in its storage, once
            return total

    if f is ops.sequence:
        return items, lambda g: (NoTangent, AdjTuple([items_pullback(g)]), AdjDict())
    if f is builtins.iter and len(args) == 1:
        return iter(items), lambda g: (NoTangent, AdjTuple([items_pullback(g)]), AdjDict())
    y, un_pb = rcall(ops.unpack, (items, *args[1:]), {})

    def unpack_pullback(g: Any) -> tuple:
        _, a, _ = un_pb(g)
        return NoTangent, AdjTuple([items_pullback(a[0]), *([NoTangent] * (len(args) - 1))]), AdjDict()

    return y, unpack_pullback


def dispatches(f: Any) -> bool:
    try:
        return f in GATED or f is builtins.getattr
    except TypeError:
        return False


# ---------------------------------------------------------------- generation time: which values may be objects

class _Generating(threading.local):
    """Argument kinds of the rules being generated in this thread (innermost last): per thread,
    as threads generate concurrently and must not see each other's kinds."""

    def __init__(self) -> None:
        self.stack: list = []


_GENERATING = _Generating()


class generating:
    """`with generating(kinds):` lets the resolvers made inside know the argument kinds."""

    def __init__(self, kinds: Optional[dict]) -> None:
        self.kinds = dict(kinds or {})

    def __enter__(self) -> None:
        _GENERATING.stack.append(self.kinds)

    def __exit__(self, *exc: Any) -> None:
        _GENERATING.stack.pop()


def current_kinds() -> Optional[dict]:
    stack = _GENERATING.stack
    return stack[-1] if stack else None


def _plain_constant(value: Any) -> bool:
    return not is_user_object(value) and not isinstance(value, (list, dict, set))


def _plain_global(value: Any) -> bool:
    return isinstance(value, (int, float, complex, bool, str, bytes, type(None), np.ndarray, np.generic, np.ufunc,
                              types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type))


def _numeric_module(fn: Any) -> bool:
    if isinstance(fn, np.ufunc):
        return True
    mod = getattr(fn, "__module__", None) or ""
    return mod == "math" or mod == "numpy" or mod.startswith("numpy.")


_NUMBER_RESULT = {builtins.len, builtins.float, builtins.int, builtins.bool, builtins.round, builtins.isinstance,
                  builtins.hash, builtins.id, builtins.str, builtins.repr, operator.not_, operator.truth, operator.is_,
                  operator.is_not}


class ObjectFlow:
    """Which SSA values of one function may be (or hold) instances of user classes.

    Each value may be a user object (OBJ: an operator on it runs user code) and/or a
    container that may hold one (HOLD: its items and attributes may be objects).  From the
    start: arguments specialised as obj / objs (or of unknown kind), closure cells, the
    function itself, globals bound to anything but numbers, arrays, modules, functions and
    classes.  Unknown callees may return anything and store objects into their arguments;
    an operator with an OBJ operand may return anything; parts of OBJ/HOLD values may be
    objects; a container built from or written with OBJ/HOLD values holds them; aliases
    (phis, `y = x`, `a += b`) share one fate.  Numbers and arrays (numeric arguments,
    NumPy and math results, arithmetic of those) are never objects.
    """

    def __init__(self, stmts: list, phis: list, param_kinds: Optional[dict], user_globals: dict, raw_callee: Any,
                 plain_calls: frozenset = frozenset()) -> None:
        """`plain_calls`: calls of the user's functions known to return numbers or arrays (reverse/call_types.py)."""
        from ..ir.nodes import Call, Const, Global, Param, Phi

        self.kinds = param_kinds
        self.g = user_globals
        fns = {s: raw_callee(s) for s in stmts}

        def base_plain(v: Any) -> Optional[bool]:
            """True/False where known without the fixpoint; None for statements and phis."""
            if isinstance(v, Const):
                return _plain_constant(v.value)
            if isinstance(v, Global):
                return v.name in self.g and _plain_global(self.g[v.name]) or (
                    v.name not in self.g and hasattr(builtins, v.name))
            if isinstance(v, Param) and type(v) is Param:
                return self._param_kind(v) in ("num", "arr")
            if isinstance(v, (Call, Phi)):
                return None
            return False  # closure cells, the function itself

        def base_source(v: Any) -> bool:
            """A value that may be a user object from the start (not computed here)."""
            if isinstance(v, Param) and type(v) is Param:
                return self._param_kind(v) not in ("num", "arr", "any")
            return not isinstance(v, (Call, Phi)) and base_plain(v) is False

        # Plain (a number or an array, never an object or a container): greatest fixpoint.
        plain = {v for v in [*stmts, *phis]}

        def is_plain(v: Any) -> bool:
            b = base_plain(v)
            return b if b is not None else v in plain

        changed = True
        while changed:
            changed = False
            for s in stmts:
                if s not in plain or s in plain_calls:  # (typed by reverse mode: a number or an array)
                    continue
                fn = fns[s]
                if fn is None:  # a method of a number or an array (x.sum()) gives numbers and arrays
                    f = s.fn
                    ok = s in plain_calls or (isinstance(f, Call) and raw_callee(f) is builtins.getattr and len(f.args) == 2
                                              and is_plain(f.args[0]))
                elif _numeric_module(fn) or fn in _NUMBER_RESULT:
                    ok = True
                elif fn is operator.getitem and len(s.args) == 2 and _display_item(s, raw_callee) is not None:
                    ok = is_plain(_display_item(s, raw_callee))  # (`lo, hi = 0.0, x`: an item of a tuple display)
                elif fn in (operator.getitem, builtins.getattr):
                    ok = (is_plain(s.args[0]) or fn is builtins.getattr and self._field_read(s)) if s.args else False
                elif fn in _ARITHMETIC or fn is ops.identity:
                    ok = all(is_plain(a) for a in (*s.args, *s.kwargs.values()))
                else:
                    ok = False
                if not ok:
                    plain.discard(s)
                    changed = True
            for p in phis:
                if p in plain and not all(is_plain(v) for v in p.incoming.values()):
                    plain.discard(p)
                    changed = True

        # Aliases (the same object under two names) share one class; each class may be a user
        # object (OBJ) and/or a container that may hold one (HOLD).
        parent: dict = {}

        def find(v: Any) -> Any:
            parent.setdefault(v, v)
            while parent[v] is not v:
                parent[v] = parent[parent[v]]
                v = parent[v]
            return v

        def union(a: Any, b: Any) -> None:
            ra, rb = find(a), find(b)
            if ra is not rb:
                parent[ra] = rb
                flags[rb] = flags.get(rb, 0) | flags.pop(ra, 0)

        flags: dict = {}
        OBJ, HOLD = 1, 2

        def get(v: Any) -> int:
            return 0 if is_plain(v) else flags.get(find(v), 0)

        def add(v: Any, f: int) -> bool:
            if not f or is_plain(v):
                return False
            r = find(v)
            old = flags.get(r, 0)
            if old | f != old:
                flags[r] = old | f
                return True
            return False

        for st in stmts:
            if fns[st] is ops.identity or fns[st] in INPLACE:
                if st.args and not is_plain(st) and not is_plain(st.args[0]):
                    union(st, st.args[0])  # the same object (`a += b` on a list, `y = x`)
        for ph in phis:
            for v in ph.incoming.values():
                if not is_plain(ph) and not is_plain(v):
                    union(ph, v)
        for v in {v for st in stmts for v in (st, st.fn, *st.args, *st.kwargs.values())}:
            if not is_plain(v) and base_source(v):
                kind = self._param_kind(v) if isinstance(v, Param) and type(v) is Param else "unknown"
                add(v, HOLD if kind == "objs" else OBJ if kind == "obj" else OBJ | HOLD)

        parts = {operator.getitem, builtins.getattr, builtins.next, ops.cell_get}
        containers = {builtins.iter, ops.sequence, ops.unpack, ops.tuple_of, ops.list_of, ops.set_of, ops.dict_of,
                      getattr(ops, "concat_tuple", None), getattr(ops, "merge_dicts", None), ops.merge_kwargs}
        writes = {operator.setitem: 0, builtins.setattr: 0, ops.cell_set: 0}
        changed = True
        while changed:
            changed = False
            for st in stmts:
                if st in plain_calls:  # (its result holds no object; the callee may still store some in its operands)
                    for v in (*st.args, *st.kwargs.values()):
                        changed |= add(v, HOLD)
                    continue
                if is_plain(st):
                    continue
                fn = fns[st]
                operands = [v for v in (*st.args, *st.kwargs.values()) if not is_plain(v)]
                seen = 0
                for v in operands:
                    seen |= get(v)
                if fn is None or _makes_objects(fn):  # unknown code (or a class whose instances are objects, e.g.
                    # collections.UserList): it may return anything and store objects into what it is given
                    changed |= add(st, OBJ | HOLD)
                    f = st.fn
                    if isinstance(f, Call) and raw_callee(f) is builtins.getattr and f.args:
                        changed |= add(f.args[0], HOLD)  # obj.method(...) may change obj
                    for v in operands:
                        changed |= add(v, HOLD)
                elif fn in _ARITHMETIC or fn in INPLACE:
                    changed |= add(st, (OBJ | HOLD) if seen & OBJ else seen & HOLD)
                    if fn in INPLACE and st.args and seen:
                        changed |= add(st.args[0], HOLD)
                elif fn in parts:
                    base = get(st.args[0]) if st.args else 0
                    changed |= add(st, OBJ | HOLD if base else 0)
                elif fn in containers:
                    changed |= add(st, HOLD if seen else 0)
                elif fn in writes:
                    value = get(st.args[-1]) if st.args else 0
                    if value:
                        changed |= add(st.args[writes[fn]], HOLD)
                elif seen:  # other known callables (max, sorted, zip, ...): anything may come out or be stored
                    changed |= add(st, OBJ | HOLD)
                    for v in operands:
                        changed |= add(v, HOLD)
        self._get, self._plain, self._OBJ = get, is_plain, OBJ

    def _field_read(self, s: Any) -> bool:
        """`p.W` of a parameter whose kind names its fields (`obj:fields:W=f.nn;b=f.n`: instance attributes
        holding float arrays or floats, which no class attribute shadows; reverse/runtime.kinds_of)."""
        from ..ir.nodes import Const, Param

        p = s.args[0]
        if len(s.args) != 2 or not isinstance(s.args[1], Const) or not (isinstance(p, Param) and type(p) is Param):
            return False
        parts = (self.kinds or {}).get(p.name, "").split(":")
        return len(parts) >= 3 and parts[:2] == ["obj", "fields"] and \
            any(entry.partition("=")[0] == s.args[1].value for entry in parts[2].split(";"))

    def _param_kind(self, p: Any) -> str:
        """The kind the rule is specialised on; unknown (a generic rule) may be anything."""
        if self.kinds is None or p.name not in self.kinds:
            return "unknown"
        return self.kinds[p.name].split(":")[0]

    def may_be_object(self, v: Any) -> bool:
        """May v itself be an instance of a user class (so an operator on it runs user code)?"""
        return bool(self._get(v) & self._OBJ)


def _makes_objects(fn: Any) -> bool:
    """Is fn a class (not a builtin or NumPy type, not a Dask/CuPy array) whose instances are user objects, whose
    operators (`u[0]`, `u + v`) run the class's own methods?"""
    if not isinstance(fn, type) or fn in _PLAIN_TYPES or issubclass(fn, _PLAIN_BASES) or library_of_type(fn):
        return False
    module = fn.__module__ or ""
    return module not in ("builtins", "numpy") and not module.startswith("numpy.")


def function_values(block: Any) -> tuple[list, list]:
    """Every statement and phi of the function that `block` belongs to (found through the CFG)."""
    seen = {block}
    stack = [block]
    while stack:
        b = stack.pop()
        for n in (*b.preds, *b.successors()):
            if n not in seen:
                seen.add(n)
                stack.append(n)
    blocks = sorted(seen, key=lambda b: b.id)
    return [s for b in blocks for s in b.stmts], [p for b in blocks for p in b.phis]


# ---------------------------------------------------------------- dataclasses

def dataclass_init(cls: type, args: tuple, kwargs: dict) -> tuple[list, list, Any]:
    """What the `__init__` that @dataclass generates does, without running it.

    Returns (fields, initvars, bound): fields is [(name, value, from_argument)] in
    definition order, with defaults and `default_factory()` results filled in as the
    generated `__init__` fills them (a factory runs once per object); initvars is
    [(name, value, from_argument)] for `InitVar` pseudo-fields, which go to `__post_init__`.
    """
    import dataclasses
    import inspect

    bound = inspect.signature(cls).bind(*args, **kwargs)
    fields, initvars = [], []
    for name, spec in cls.__dataclass_fields__.items():  # type: ignore[attr-defined]
        kind = getattr(spec, "_field_type", None)
        if kind is getattr(dataclasses, "_FIELD_CLASSVAR", object()):
            continue
        if spec.init and name in bound.arguments:
            value, given = bound.arguments[name], True
        elif spec.default is not dataclasses.MISSING:
            value, given = spec.default, False
        elif spec.default_factory is not dataclasses.MISSING:
            value, given = spec.default_factory(), False
        else:
            continue  # init=False without a default: the generated __init__ leaves it unset
        if kind is getattr(dataclasses, "_FIELD_INITVAR", object()):
            initvars.append((name, value, given))
        else:
            fields.append((name, value, given))
    return fields, initvars, bound


# ---------------------------------------------------------------- numbers reaching dispatch

# Operators left to run time because an operand *might* have been a user object, whose
# operands turn out to be plain floats: the arithmetic the inline template would have done.
_FLOAT_FORWARD = {
    operator.add: lambda a, b, da, db: (a + b, da + db),
    operator.sub: lambda a, b, da, db: (a - b, da - db),
    operator.mul: lambda a, b, da, db: (a * b, da * b + a * db),
    operator.truediv: lambda a, b, da, db: (a / b, (da - (a / b) * db) / b),
}
_FLOAT_REVERSE = {
    operator.add: lambda a, b, g: (g, g),
    operator.sub: lambda a, b, g: (g, -g),
    operator.mul: lambda a, b, g: (g * b, g * a),
    operator.truediv: lambda a, b, g: (g / b, -g * a / (b * b)),
}


def float_forward(f: Any, args: tuple, dargs: tuple) -> Optional[tuple]:
    """(y, dy) when f is + - * / of two floats (their tangents floats or the symbolic zero)."""
    rule = _FLOAT_FORWARD.get(f)
    if rule is None or len(args) != 2 or type(args[0]) is not float or type(args[1]) is not float:
        return None
    da, db = dargs
    if not (da is NoTangent or type(da) is float) or not (db is NoTangent or type(db) is float):
        return None
    return rule(args[0], args[1], da, db)


def _display_item(s: Any, raw_callee: Any) -> Any:
    """The item `t[k]` reads when t is a tuple display made here and k a constant inside it (`lo = (0.0, x)[0]`,
    what `lo, hi = 0.0, x` lowers to); None otherwise."""
    from ..ir.nodes import Call, Const

    t, k = s.args
    if isinstance(t, Call) and raw_callee(t) is ops.tuple_of and not t.kwargs and isinstance(k, Const) and \
            type(k.value) is int and -len(t.args) <= k.value < len(t.args):
        return t.args[k.value]
    return None


def float_reverse(f: Any, args: tuple) -> Optional[tuple]:
    """(y, pullback) when f is + - * / of two floats."""
    rule = _FLOAT_REVERSE.get(f)
    if rule is None or len(args) != 2 or type(args[0]) is not float or type(args[1]) is not float:
        return None
    from ..reverse.adjoints import AdjDict, AdjTuple

    a, b = args
    y = f(a, b)

    def pullback(g: Any) -> tuple:
        if type(g) is not float:
            if g is NoTangent or g is None:
                return NoTangent, AdjTuple((NoTangent, NoTangent)), AdjDict()
            g = float(g)
        return NoTangent, AdjTuple(rule(a, b, g)), AdjDict()

    return y, pullback
