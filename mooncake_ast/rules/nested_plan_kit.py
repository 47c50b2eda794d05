"""The building blocks every plan of a nested dispatched call uses (nested_plans.py and the nested_* plan modules).

A plan is a `_Plan` (defined here, built by api_rules._plan and the nested_* modules); these make the simple
ones (a plain call, a zero-derivative call), make symbolic zeros dense without copying object tangents, refuse
honestly, and tell a user's objects and classes from library ones.  They live apart from nested_plans.special_plan, the dispatcher, so that the modules of particular plans
(objects, containers, iteration, ...) can build on them without reaching back into the dispatcher.
"""
from __future__ import annotations

import collections
import types
from typing import Any

import numpy as np

from ..forward import objects as _objects
from ..lazy_iteration import LazySequence, Zeros
from ..tangents import MethodTangent, MutableTangent, NoTangent, materialize


def _api() -> Any:
    from . import api_rules

    return api_rules



def _dense_one(d: Any, a: Any) -> Any:
    """d with a symbolic zero of a number or float array made dense; object tangents kept (identity matters)."""
    if d is NoTangent or d is None:
        if isinstance(a, np.ndarray) and a.dtype.kind in "fc":
            return np.zeros_like(a)
        if isinstance(a, (float, np.floating)):
            return 0.0
        return NoTangent
    if isinstance(d, (MutableTangent, MethodTangent)):
        return d
    return dense_same(d, a)



def dense_same(d: Any, a: Any) -> Any:
    """materialize(d, a), but a list, dict or object's tangent d (also inside tuples) kept, made dense in place, never
    copied: reverse mode keeps the adjoints of lists, dicts and objects in storage found by identity (so a copy's
    adjoint was lost: third derivatives through a helper returning a list, a dict or an object were 0), and forward
    code writes through them."""
    if isinstance(d, (MutableTangent, MethodTangent)):
        return d
    if isinstance(a, (LazySequence, Zeros)) or isinstance(d, (LazySequence, Zeros)):
        return _lazy_dense(d, a)
    if type(d) is tuple and type(a) is tuple and len(d) == len(a):
        items = tuple(dense_same(v, x) for v, x in zip(d, a))
        return d if all(i is v for i, v in zip(items, d)) else items
    if (type(d) is list and type(a) is list and len(d) == len(a)) or (type(d) is type(a) and type(a) in _DICTS):
        for k in (range(len(a)) if type(a) is list else list(a)):
            v = d.get(k, NoTangent) if type(d) is dict else d[k]
            dense = dense_same(v, a[k])
            if dense is not v:
                d[k] = dense
        return d
    return materialize(d, a)



def _lazy_dense(d: Any, a: Any) -> Any:
    """The tangent of a loop's sequence over an iterator (lazy_iteration.LazySequence), kept as it is, never read:
    its items are pulled as the loop asks for them, so reading it here would pull the iterator on before the loop
    does (a loop left by `break` then left nothing to the next reader).  Its items' symbolic zeros stay symbolic; the
    loop's reads of them make them dense one by one (forward code reads an item's zero as NoTangent at every order)."""
    if d is NoTangent or d is None:
        if isinstance(a, Zeros):  # (the zero tangents of an iterator's items: theirs are zeros too, as many)
            return Zeros(a._seq)
        return Zeros(a) if isinstance(a, LazySequence) else NoTangent
    return d


def _dense_keep(ds: tuple, args: tuple) -> tuple:
    return tuple(_dense_one(d, a) for d, a in zip(ds, args))



def _plain_plan(fn: Any, call_args: tuple, n: int) -> Any:
    """A plan calling fn(*args, *dargs) (n arguments): the layout of api_rules' _PLAIN functions."""
    api = _api()
    return api._Plan(fn, call_args, lambda b: (NoTangent, tuple(b[:n]), tuple(b[n:])), api._plain_outer,
                     layout=(False, ()))



def _refuse(what: str) -> Exception:
    return _api().NestingError(f"nested derivative: {what} is not supported at this order")



def _among(f: Any, known: Any) -> bool:
    """Is f one of `known` (a set or dict of our helpers)?  False for an unhashable callable: a user's object of a
    class defining `__eq__` without `__hash__` (a dataclass with `__call__`), whose membership test raised a
    TypeError at the second order (`h = layer(x)`)."""
    try:
        return f in known
    except TypeError:
        return False



def _zero_plan(f: Any, args: tuple) -> Any:
    """`(f(*args), zero tangent)`: a call whose result has no derivative with respect to its arguments."""
    api = _api()
    n = len(args)
    return api._Plan(api._zero_fwd, (f, tuple(args)), lambda b: (NoTangent, api._expand(b[1], n), (NoTangent,) * n),
                     lambda tf, targs, tdargs: (NoTangent, targs))



def _user_object(x: Any) -> bool:
    """An instance of a user's class (not of mooncake_ast's own: grad objects, tangents have plans of their own; nor
    a `collections.defaultdict`, a dict whose items are read and written as a dict's: its tangent is a defaultdict
    too, so `d[k]` reads both, a missing key's default made in both)."""
    mod = type(x).__module__ or ""
    if mod == __package__ + ".nested_stats_frozen":  # (a frozen distribution's stand-in: a plain object of ours)
        return True
    return _objects.is_user_object(x) and not mod.startswith("mooncake_ast.") and type(x) not in _LIBRARY_DICTS



_LIBRARY_DICTS = (collections.defaultdict,)  # (an OrderedDict stays refused: KeyError at the third order)
_DICTS = (dict, *_LIBRARY_DICTS)  # (a defaultdict's tangent is a defaultdict: dense_same keeps it)



def _user_class(cls: type) -> bool:
    """A class written in Python whose instances forward/runtime._construct makes (a new object, then __init__)."""
    from ..forward.runtime import _library_callable
    from .registry import lookup

    mod = cls.__module__ or ""
    if mod == __package__ + ".nested_stats_frozen":  # (a frozen distribution's stand-in: a plain class of ours)
        return True
    return (cls.__new__ is object.__new__ and isinstance(cls.__init__, types.FunctionType) and lookup(cls) is None
            and mod not in ("builtins", "numpy") and not mod.startswith(("numpy.", "mooncake_ast."))
            and _library_callable(cls) is None)


# ---------------------------------------------------------------- the plan


class _Plan:
    """How to run `fcall(f, df, args, dargs)` as one call of ordinary Python code `fn(*call_args)`.

    `split(bars)` maps the adjoints of call_args back to (f's, args', dargs'); `outer(tf, targs, tdargs)`
    gives the tangents of call_args from outer tangents of f, args and dargs."""

    def __init__(self, fn: Any, call_args: tuple, split: Any, outer: Any, grad_of: Any = None, layout: Any = None) -> None:
        self.fn, self.call_args, self.split, self.outer, self.grad_of = fn, call_args, split, outer, grad_of
        self.layout = layout  # (takes (f, df) first, constant extra primals) for forward code of a plain function
        self.inactive: frozenset = frozenset()  # positions of call_args that are constants (no adjoint)
        self.arg_pos: Any = None  # positions of the primal arguments in call_args (forward code plans)
        self.tan_pos: Any = None  # ... and of their tangents
        self.df_bar: Any = None  # bars -> the adjoint of the callable's tangent df (objects, methods), else none
        self.takes_df = False  # outer(tf, targs, tdargs, tdf) takes the tangent of df (else tdf must be zero)
        self.check_tangents: Any = None  # (tf, tdf) -> None, or a refusal (reverse mode over a closure's plan)
        self.defaults_passed: Any = None  # the closure whose defaults the call passes as arguments (nested_defaults)


def _dense(ts: tuple, ps: tuple) -> tuple:
    """The tangents ts with their symbolic zeros made dense; lists and dicts among them (also inside tuples) made dense
    in place, never copied: reverse mode keeps the adjoints of lists and dicts in storage found by identity, so the
    adjoint of a copy was lost (third derivatives through `a, b = h(x)` where h returns lists were 0)."""
    return tuple(dense_same(t, p) for t, p in zip(ts, ps))


def _plain_outer(tf: Any, targs: tuple, tdargs: tuple) -> tuple:
    return (*targs, *tdargs)
