"""The short path of a plain reverse-mode call: which rule `grad(f)(*args)` needs, in a few dict look-ups.

A repeated call of `mc.grad(f)` with numbers and float arrays needs no binding, no search of the
arguments for foreign or complex values, and no new derivation; what it still needs is the argument
kinds (rank, size-one axes, memory sharing: what kinds_of says) and the staleness test of the rule
(globals the derivative read, the registry's version).  This module finds the rule with exactly that,
and nothing else (api_fast.grad_fast runs it); every other call goes through derived_rule.
"""
from __future__ import annotations

import types
from typing import Any, Callable

import numpy as np

from ..rules import registry
from .argument_kinds import _axes_code
from .derived_rules import _SIGNATURES, LATEST, DerivedReverse, _with_pullback, derived_rule

_CALLS: dict[tuple, DerivedReverse] = {}  # (code, id(globals), kinds, wrt) -> rule, for fast_rule's calls
_AXES: dict[tuple, str] = {}  # shape -> kind of a float array of that shape (kinds_of's "arr:f:..")
# A new object each time clear_fast empties _CALLS: a decision api_fast kept from an earlier rule (api_fast._Decision)
# holds the object current when it was made, and is not reused once another one is.
CLEARED: list = [object()]


def fast_kinds(args: tuple) -> Any:
    """kinds_of(args) for the common call, found with a few type tests; None for any other call.

    The common call: every argument a Python number or a float array of type exactly np.ndarray, no
    two arrays sharing memory (sharing makes kinds_of fall back to "arr", which this leaves to it).
    Two distinct arrays that own their data (`.base is None`) cannot overlap: np.may_share_memory is
    asked only about views."""
    out = []
    arrays = []
    views = False
    for a in args:
        t = type(a)
        if t is float or t is int or t is bool:
            out.append("num")
        elif t is np.ndarray and a.dtype.kind == "f":
            kind = _AXES.get(a.shape)
            if kind is None:
                if len(_AXES) > 4096:
                    _AXES.clear()
                kind = _AXES[a.shape] = "arr:" + _axes_code(a)
            out.append(kind)
            arrays.append(a)
            if a.base is not None:
                views = True
        else:
            return None
    if len(arrays) > 1 and not _apart(arrays, views):
        return None
    return tuple(out)


def _apart(arrays: list, views: bool) -> bool:
    """No two of these float arrays are one object or share memory (`views`: some of them are views)."""
    if len({id(a) for a in arrays}) < len(arrays):
        return False  # (one array twice)
    if views:
        for k, a in enumerate(arrays):
            for b in arrays[:k]:
                if not (a.base is None and b.base is None) and np.may_share_memory(a, b):
                    return False
    return True


def kinds_witness(args: tuple) -> tuple:
    """For arguments fast_kinds knows: per argument, a number's type or a float array's (dtype, shape), which
    kinds_unchanged compares a later call's arguments with."""
    return tuple((a.dtype, a.shape) if type(a) is np.ndarray else type(a) for a in args)


def kinds_unchanged(args: tuple, witness: tuple) -> bool:
    """Would fast_kinds give these arguments the kinds of those kinds_witness saw?  True only when each
    number has the same type, each array is a np.ndarray of the same dtype object and shape (so the same
    kind), and no two arrays share memory; False may be said of equal kinds (a dtype that is another object,
    a shape of the same kind): the caller then asks fast_kinds.  A few identity tests instead of building
    the kinds, for a repeated call (api_fast._Decision)."""
    arrays = None
    views = False
    for a, w in zip(args, witness):
        if type(a) is w:
            continue  # (a number: w is its type)
        if type(a) is not np.ndarray or type(w) is not tuple or a.dtype is not w[0] or a.shape != w[1]:
            return False
        if arrays is None:
            arrays = [a]
        else:
            arrays.append(a)
        if a.base is not None:
            views = True
    return arrays is None or len(arrays) == 1 or _apart(arrays, views)


def fast_rule(fn: types.FunctionType, args: tuple, wrt: Any) -> Any:
    """The derived rule of `fn(*args)` when the call needs no binding or storage work, else None.

    Such a call: fast_kinds knows the arguments, and fn is a plain function with no registered rule
    whose positional parameters take exactly these arguments (no defaults used, no *args or
    keyword-only ones).  Then the primals are the arguments, their adjoints are the pullback's results
    in order, and the defaults have none.  (Whether the derivative may write is the caller's to read:
    `rule.gen.may_write`.)  A hit costs a dict look-up and the staleness test (globals the derivative
    read, the registry's version)."""
    kinds = fast_kinds(args)
    if kinds is None:
        return None
    if len(args) < fn.__code__.co_argcount:
        return None  # (with_number_defaults first: the caller passes the primals)
    key = (fn.__code__, id(fn.__globals__), kinds, wrt)
    rule = _CALLS.get(key)
    if rule is not None and not rule.stale(fn):
        LATEST[fn.__code__] = rule  # (what `mc.source` shows: the rule the last call ran)
        return rule
    _CALLS.pop(key, None)
    if registry.lookup(fn) is not None:
        return None
    rule, _, params = derived_rule(fn, args, {}, wrt)
    simple = _SIGNATURES[fn.__code__][1]
    if simple and len(params) == len(args):
        if len(_CALLS) > 4096:
            _CALLS.clear()
        _CALLS[key] = rule
        return rule
    return None


def with_number_defaults(fn: types.FunctionType, args: tuple) -> tuple:
    """The primals of `fn(*args)` when args leave out trailing positional parameters whose defaults are numbers
    (`def f(x, tol=1e-12)`), so that the common call stays common; args itself otherwise.  (The defaults are
    read on every call: a function whose defaults were reassigned gets the new values, and fast_kinds sees
    their kinds.)"""
    code = fn.__code__
    missing = code.co_argcount - len(args)
    if missing <= 0 or code.co_kwonlyargcount or code.co_flags & 0x0C:
        return args
    defaults = fn.__defaults__
    if defaults is None or len(defaults) < missing:
        return args
    tail = defaults[len(defaults) - missing:]
    for d in tail:
        if type(d) is not float and type(d) is not int and type(d) is not bool:
            return args
    return args + tail


def fast_pullback(fn: types.FunctionType, gen: Any, out: tuple, args: tuple) -> Callable:
    """The pullback of a call fast_rule took, as derived_reverse makes it (for results it does not finish)."""
    return _with_pullback(fn, gen, out, _SIGNATURES[fn.__code__][0], args, {})[1]


def clear_fast() -> None:
    _CALLS.clear()
    CLEARED[0] = object()
