"""May a user's helper function send back an infinite adjoint (or an infinite tangent)?

strong_zeros.partials_meet_infinities makes a function's products strong (a zero partial times an infinite
adjoint is 0) where the function calls an infinite slope itself: sqrt, a fractional power, the entr family.  A helper
that is not put in line (a callable object, a helper with an `if`, one called from a loop) hides its sqrt: the
adjoint it sends back is inf at 0 all the same, and the caller's `d * d` gave 0 * inf = nan where the function
written in one piece has the finite gradient (`np.sum(N(d * d))` with `N = lambda u: np.sqrt(u)`, the diagonal's
d == 0).  Here a helper is suspected when its source mentions such a function, or a fractional or unknown
exponent, or calls a function of its module that is suspected in turn (three levels deep); each answer is
remembered per code object.  Functions that call no such helper (the bench workloads) keep plain products.
"""
from __future__ import annotations

import inspect
import re
import types
from typing import Any

_SLOPE_WORDS = re.compile(r"\b(sqrt|cbrt|arcsin|arccos|asin|acos|power|float_power|pow|entr|rel_entr|kl_div|entropy|"
                          r"norm|std|nanstd|hypot|dist|xlogy|xlog1py)\b")
_FRACTIONAL_POWER = re.compile(r"\*\*\s*(?![0-9]+(?![0-9.eEjJ_]))")  # (`** 2` is plain; `** 0.5`, `** p` are not)
_CALLED_NAMES = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_KNOWN: dict = {}
_DEPTH = 3


def helper_may_send_infinities(fn: Any, depth: int = _DEPTH) -> bool:
    """Is fn a user's Python function (or an object whose __call__ is one) that may hide an infinite slope?"""
    code_fn = _python_function(fn)
    if code_fn is None:
        return False
    code = code_fn.__code__
    known = _KNOWN.get(code)
    if known is not None:
        return known
    _KNOWN[code] = False  # (recursion: a helper calling itself adds nothing)
    found = _suspected(code_fn, depth)
    _KNOWN[code] = found
    return found


def named_callee(resolver: Any, st: Any) -> Any:
    """The object a call's callee names in the user's module now (`helper(x)`, `N(x)`, `obj.method(x)` of a module
    global), for this guess only: the generated code still looks it up when it runs (late binding).  None if not
    found."""
    from ..ir.nodes import Call, Const, Global

    scope = getattr(resolver, "g", None) or {}
    v = getattr(st, "fn", None)
    if isinstance(v, Global):
        return scope.get(v.name)
    if isinstance(v, Call) and v.callee() is getattr and len(v.args) == 2 and isinstance(v.args[0], Global) and \
            isinstance(v.args[1], Const) and isinstance(v.args[1].value, str):
        base = scope.get(v.args[0].name)
        try:
            return inspect.getattr_static(base, v.args[1].value) if base is not None else None
        except AttributeError:
            return None
    return None


def handed_helpers(resolver: Any, st: Any) -> list:
    """User functions a call hands on to be called (forward code calls a helper's derivative as
    `_mc.rcall(_mc.fcall, (helper, ...))`): the module globals among its operands and a tuple display's items."""
    from ..ir.nodes import Call, Global

    scope = getattr(resolver, "g", None) or {}
    out = []
    for v in getattr(st, "args", ()):
        items = v.args if isinstance(v, Call) and getattr(v.callee(), "__name__", "") == "tuple_of" else (v,)
        out += [scope.get(i.name) for i in items if isinstance(i, Global) and i.name in scope]
    return out


def _python_function(fn: Any) -> Any:
    if isinstance(fn, types.MethodType):
        fn = fn.__func__
    if isinstance(fn, types.FunctionType):
        # (__module__ is None for a function made by exec() with globals lacking __name__)
        return fn if not (fn.__module__ or "").startswith(("mooncake_ast", "numpy", "scipy")) else None
    call = getattr(type(fn), "__call__", None)
    if isinstance(call, types.FunctionType) and not isinstance(fn, type):
        return _python_function(call)
    return None


def _suspected(fn: types.FunctionType, depth: int) -> bool:
    try:
        text = inspect.getsource(fn)
    except (OSError, TypeError):
        return True  # (no source to read: it could do anything)
    if _SLOPE_WORDS.search(text) or _FRACTIONAL_POWER.search(text):
        return True
    if depth <= 1:
        return False
    scope = getattr(fn, "__globals__", {})
    for name in set(_CALLED_NAMES.findall(text)):
        other = scope.get(name)
        if other is not None and other is not fn and helper_may_send_infinities(other, depth - 1):
            return True
    return False
