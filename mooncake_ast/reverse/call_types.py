"""What a call of one of the user's functions returns, from that function's own code: calls resolved by type.

`k1 = _rhs(y)` with `y` a float vector: without knowing `k1`, everything computed from it (`y + 0.5 * dt * k1`)
is dispatched when the code runs and its adjoints go through identity-keyed storage.  Mooncake.jl gets the
callee's return type from Julia's inference; here the callee is lowered to the IR and ir/inference.py runs
over it from the argument types, and the join of its returned values' types is the call's type.  Only what
the emitter writes plain code on is kept (floats, ints, bools, float arrays of known rank, tuples of those);
anything else is UNKNOWN, as before.

The call itself is still made by the run-time dispatcher (the callee's derived rule, or a user rule), so a
callee's writes and aliasing are handled as for any dispatched call; only its result's type is used.  The
derived module depends on the callee's code: forward/generate.environment puts each global function's
digest (`function_digest`, with the functions it calls in turn, to the same depth) in the cache key, and
the binding is recorded, so rebinding the name makes the derivative stale.
"""
from __future__ import annotations

import types
from typing import Any, Optional

from ..ir.nodes import Call, Const, Global, Param, Return
from ..ir.types import UNKNOWN, AVal, Arr, Num, Tup, join, type_of_argument

_DEPTH = 3  # callee of a callee of a callee: deeper calls stay unknown
_SUMMARIES: dict = {}  # (code, globals id, argument types) -> result type
_ACTIVE: set = set()  # (code, argument types) being summarised (recursion gives UNKNOWN)


def user_function(resolver: Any, s: Call) -> Optional[types.FunctionType]:
    """The plain Python function a call statement names through a module global, or None."""
    f = s.fn
    if not isinstance(f, Global) or f.name not in resolver.g:
        return None
    fn = resolver.g[f.name]
    if type(fn) is not types.FunctionType or fn.__code__.co_flags & 0x2A0:  # (generators, coroutines)
        return None
    return fn


def _kept(t: AVal) -> AVal:
    """t if the emitter may write plain code on it, else UNKNOWN."""
    if isinstance(t, Num):
        return t
    if isinstance(t, Arr) and t.axes is not None and t.dtype in "fiub":
        return t
    if isinstance(t, Tup):
        items = tuple(_kept(i) for i in t.items)
        return UNKNOWN if UNKNOWN in items else Tup(items)
    return UNKNOWN


def _parameter_types(fn: types.FunctionType, s: Call, args: list) -> Optional[dict]:
    """The callee's parameter types for this call: positional arguments, then defaults; None if the call
    passes keywords or more than the positional parameters, or the function takes *args or **kwargs."""
    code = fn.__code__
    if s.kwargs or code.co_flags & 0x0C or len(args) > code.co_argcount:
        return None
    names = code.co_varnames[:code.co_argcount]
    defaults = fn.__defaults__ or ()
    first_default = code.co_argcount - len(defaults)
    out: dict = {}
    for k, name in enumerate(names):
        if k < len(args):
            out[name] = args[k]
        elif k >= first_default:
            out[name] = type_of_argument(defaults[k - first_default])
        else:
            return None
    for name in code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]:
        if name not in (fn.__kwdefaults__ or {}):
            return None
        out[name] = type_of_argument(fn.__kwdefaults__[name])
    return out


def result_of_call(fn: types.FunctionType, s: Call, args: list, depth: int = 0) -> AVal:
    """The type of `fn(*args)` (argument types `args`), from fn's code; UNKNOWN where not known."""
    if depth >= _DEPTH:
        return UNKNOWN
    # (a list, dict or object is typed only as a parameter its function only reads: the callee may write it)
    params = _parameter_types(fn, s, [_kept(a) for a in args])
    if params is None:
        return UNKNOWN
    key = (fn.__code__, id(fn.__globals__), tuple(sorted(params.items(), key=lambda kv: kv[0])))
    try:
        hash(key)
    except TypeError:
        return UNKNOWN
    if key in _SUMMARIES:
        return _SUMMARIES[key]
    if key in _ACTIVE:
        return UNKNOWN  # (recursion: the result is what the base case gives, unknown here)
    _ACTIVE.add(key)
    try:
        out = _summarise(fn, params, depth)
    except Exception:  # noqa: BLE001 - a callee we cannot lower or type is simply not typed
        out = UNKNOWN
    finally:
        _ACTIVE.discard(key)
    if len(_SUMMARIES) > 4096:
        _SUMMARIES.clear()
    _SUMMARIES[key] = out
    return out


def _summarise(fn: types.FunctionType, params: dict, depth: int) -> AVal:
    from ..forward.transform import StaticResolver
    from ..frontend.source import function_source
    from ..frontend.statements import lower_function
    from ..ir.inference import infer_types
    from ..ir.typed_methods import resolve_methods

    ir = lower_function(fn, function_source(fn))
    kinds = {name: ("num" if isinstance(t, Num) else "arr" if isinstance(t, Arr) else "any") for name, t in params.items()}
    resolver = StaticResolver(fn.__globals__, kinds)

    def constant(v: Any) -> Any:
        out = resolver.resolve(v)
        if out is resolver._NOTHING:
            raise LookupError(v)
        return out

    def call_type(st: Call, arg_types: list) -> Optional[AVal]:
        callee = user_function(resolver, st)
        return None if callee is None else result_of_call(callee, st, arg_types, depth + 1)

    param_of = {p.name: p for p in ir.params}
    types_ = infer_types(ir, params, resolver.callee, constant, call_type)
    for _ in range(4):
        if not resolve_methods(ir, types_, lambda v: params.get(v.name, UNKNOWN) if isinstance(v, Param) else UNKNOWN):
            break
        types_ = infer_types(ir, params, resolver.callee, constant, call_type)
    out: Any = None
    for b in ir.blocks:
        if isinstance(b.term, Return):
            v = b.term.value
            t = (params.get(v.name, UNKNOWN) if isinstance(v, Param) and v.name in param_of else
                 type_of_argument(v.value) if isinstance(v, Const) and v.value is not None else
                 types_.get(v, UNKNOWN))
            out = t if out is None else join(out, t)
    return UNKNOWN if out is None else _kept(out)
