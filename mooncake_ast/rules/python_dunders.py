"""Item access called by its special method's name: `dict.__setitem__(d, k, v)`, `d.__getitem__(k)`,
`collections.defaultdict.__setitem__`, `list.__delitem__`, `np.ndarray.__getitem__`, `d.__len__()`, ...;
and an array's arithmetic by name (`p.__truediv__(q)`, `a.__rmul__(2.0)`).

These are the builtin types' slot wrappers and method descriptors, so they have no source, and they do
exactly what the operator does (`operator.setitem(d, k, v)`, ...) as long as the object's class does
not override the method in Python.  So each call is differentiated as that operator call, both modes,
through the same run-time dispatch (the writes saved and undone in reverse mode as for `d[k] = v`).  A
class that overrides the method is refused by name: the explicit call skips the override, the operator
would not.  python_callables.call_rule hands these callables here.
"""
from __future__ import annotations

import operator
import types
from typing import Any, Optional

import numpy as np

from ..tangents import MethodTangent, NoTangent

_OPERATORS = {"__getitem__": operator.getitem, "__setitem__": operator.setitem, "__delitem__": operator.delitem,
              "__contains__": operator.contains, "__len__": len}
_OWNERS = (dict, list, tuple, np.ndarray)
# An array's arithmetic by name (`p.__truediv__(q)` in np.polyint): the operator, with the operands swapped for
# the reflected ones.  Only for arrays, whose methods do not answer NotImplemented (checked: an operand that
# opts out of NumPy's operators with __array_ufunc__ = None is refused).
_ARITHMETIC = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
               "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow, "matmul": operator.matmul}
for _n, _op in _ARITHMETIC.items():
    _OPERATORS[f"__{_n}__"] = _op
    _OPERATORS[f"__r{_n}__"] = _op
for _n, _op in {"neg": operator.neg, "pos": operator.pos, "abs": operator.abs}.items():
    _OPERATORS[f"__{_n}__"] = _op
_REFLECTED = frozenset(f"__r{n}__" for n in _ARITHMETIC)
_ARRAY_ONLY = frozenset(n for n in _OPERATORS if n not in ("__getitem__", "__setitem__", "__delitem__", "__contains__",
                                                          "__len__"))


def _split(f: Any) -> Optional[tuple]:
    """(the operator, whether f is bound to its object) for a builtin item-access method, else None."""
    op = _OPERATORS.get(getattr(f, "__name__", None))
    if op is None or isinstance(f, (types.FunctionType, types.MethodType)):
        return None
    owner = getattr(f, "__objclass__", None)
    self = getattr(f, "__self__", None)
    bound = self is not None and not isinstance(self, (type, types.ModuleType))
    if owner is None and bound:
        owner = type(self)
    if not (isinstance(owner, type) and issubclass(owner, _OWNERS)):
        return None
    if f.__name__ in _ARRAY_ONLY and not issubclass(owner, np.ndarray):
        return None
    return op, bound


def _operands(f: Any, full: tuple) -> tuple:
    """The operator's operands: the reflected methods swap them; an operand opting out of NumPy's operators refused."""
    if f.__name__ in _ARRAY_ONLY and any(getattr(type(v), "__array_ufunc__", 0) is None for v in full):
        raise NotImplementedError(f"derivative of ndarray.{f.__name__} with an operand that sets __array_ufunc__ = None "
                                  "(NumPy answers NotImplemented): write the operator instead")
    if f.__name__ in _REFLECTED and len(full) == 2:
        return (full[1], full[0]), True
    return full, False


def _check(f: Any, obj: Any) -> None:
    name = f.__name__
    own = getattr(type(obj), name, None)
    base = next((getattr(c, name) for c in type(obj).__mro__ if c in _OWNERS and name in vars(c)), None)
    if own is not base:
        raise NotImplementedError(f"derivative of {type(obj).__qualname__} item access through the base class's "
                                  f"{name} (the class overrides it): call the operator (`d[k]`, `d[k] = v`) instead")


def call_rule(f: Any) -> Optional[tuple]:
    """(forward, reverse) call rules of a builtin item-access method (or of an ndarray's __array_wrap__), or None."""
    if _is_array_wrap(f):
        return wrap_forward, wrap_reverse
    return (call_forward, call_reverse) if _split(f) is not None else None


# ------------------------------------------------------------------ ndarray.__array_wrap__
# `wrap(result)` in NumPy's own Python code (np.linalg.tensorsolve, ...): for a plain ndarray it hands back
# the array it is given (or, with return_scalar, its 0-d value), so its derivative is the identity.
def _is_array_wrap(f: Any) -> bool:
    return getattr(f, "__name__", None) == "__array_wrap__" and type(getattr(f, "__self__", None)) is np.ndarray


def wrap_forward(f, df, args, dargs, kwargs, dkwargs):
    y = f(*args, **kwargs)
    d = dargs[0] if dargs else NoTangent
    if isinstance(d, np.ndarray) and not isinstance(y, np.ndarray):
        d = d[()]  # (return_scalar: the 0-d result as a scalar)
    return y, d


def wrap_reverse(f, args, kwargs):
    from ..reverse.adjoints import AdjDict, AdjTuple, MethodAdjoint

    y = f(*args, **kwargs)

    def pullback(g):
        return MethodAdjoint(NoTangent), AdjTuple([g] + [NoTangent] * (len(args) - 1)), AdjDict()

    return y, pullback


def call_forward(f, df, args, dargs, kwargs, dkwargs):
    from ..forward.runtime import fcall

    op, bound = _split(f)
    if kwargs:
        raise TypeError(f"{f.__name__}() takes no keyword arguments")
    if bound:
        dself = df.self_tangent if isinstance(df, MethodTangent) else NoTangent
        args, dargs = (f.__self__, *args), (dself, *dargs)
    if not args:
        raise TypeError(f"descriptor '{f.__name__}' needs an argument")
    _check(f, args[0])
    (args, swapped), dargs = _operands(f, tuple(args)), tuple(dargs)
    return fcall(op, NoTangent, args, dargs[::-1] if swapped else dargs)


def call_reverse(f, args, kwargs):
    from ..reverse.adjoints import AdjDict, AdjTuple, MethodAdjoint
    from ..reverse.runtime import rcall

    op, bound = _split(f)
    if kwargs:
        raise TypeError(f"{f.__name__}() takes no keyword arguments")
    full = (f.__self__, *args) if bound else tuple(args)
    if not full:
        raise TypeError(f"descriptor '{f.__name__}' needs an argument")
    _check(f, full[0])
    ordered, swapped = _operands(f, full)
    y, pb = rcall(op, ordered, {})

    def pullback(g):
        _, a, _k = pb(g)
        a = list(a) + [NoTangent] * (len(full) - len(a))
        if swapped:
            a = a[::-1]
        if bound:
            return MethodAdjoint(a[0]), AdjTuple(a[1:]), AdjDict()
        return NoTangent, AdjTuple(a), AdjDict()

    return y, pullback
