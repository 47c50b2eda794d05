"""What a call of one of the user's functions returns, from that function's own code: calls resolved by type.

`k1 = _rhs(y)` with `y` a float vector: without knowing `k1`, everything computed from it (`y + 0.5 * dt * k1`)
is dispatched when the code runs and its adjoints go through identity-keyed storage.  Mooncake.jl gets the
callee's return type from Julia's inference; here the callee is lowered to the IR and ir/inference.py runs
over it from the argument types, and the join of its returned values' types is the call's type.  Only what
the emitter writes plain code on is kept (floats, ints, bools, float arrays of known rank, tuples of those);
anything else is UNKNOWN, as before.

The call itself is still made by the run-time dispatcher (the callee's derived rule), so its arguments keep
identity-keyed storage as for any dispatched call.  Its result does not when the callee writes nothing and
returns a number or an array it made (`returns_fresh`): activity analysis then keeps the result apart from
the arguments, and its adjoint is a local variable handed to the callee's pullback.  A function with a rule
of the user's own is not looked into.  The derived module depends on the callee's code:
forward/generate.environment puts each global function's digest (`function_digest`, with the functions it
calls in turn, to the same depth) in the cache key, and the binding is recorded, so rebinding the name
makes the derivative stale.
"""
from __future__ import annotations

import builtins
import operator
import types
from typing import Any, Callable, Optional

import numpy as np

from .. import ops
from ..ir.analysis import uses
from ..ir.nodes import Call, Const, FreeVar, Global, Param, Phi, Return
from ..ir.op_types import makes_new_array
from ..ir.types import _BOTTOM as _BOTTOM_TYPE, FLOAT, UNKNOWN, Lst, AVal, Arr, Num, Obj, Tup, is_float_array, join, type_of_argument
from ..rules import registry
from .handed_lists import only_reads, slice_type
from .special import INPLACE, hashable

# Reads of parts (and the lowering's own containers): they write nothing.
_READS = {operator.getitem, builtins.getattr, builtins.len, ops.sequence, ops.unpack, ops.tuple_of, ops.list_of, ops.cell_get,
          ops.dict_of, ops.identity, builtins.range, builtins.slice}

_DEPTH = 3  # callee of a callee of a callee: deeper calls stay unknown
_SUMMARIES: dict = {}  # (code, globals id, argument types) -> (result type, returns a fresh value and writes nothing)
_ACTIVE: set = set()  # (code, argument types) being summarised (recursion gives UNKNOWN)


class _FreshCall:
    """What activity analysis (forward/activity.py) is told about a call `returns_fresh` approves: its result shares
    no storage with its arguments (`fresh`); it is still run by the dispatcher, so every argument may be written
    as far as activity goes (no `jvp`, no `mutates`: all positions are targets, none a module-level write)."""

    zero = False
    jvp = None
    vjp = None
    mutates: tuple = ()
    user_frule = None
    user_rrule = None
    fresh = True


FRESH_CALL = _FreshCall()


def user_function(resolver: Any, s: Call) -> Optional[types.FunctionType]:
    """The plain Python function a call statement names through a module global, or None."""
    f = s.fn
    if not isinstance(f, Global) or f.name not in resolver.g:
        return None
    fn = resolver.g[f.name]
    if type(fn) is not types.FunctionType or fn.__code__.co_flags & 0x2A0:  # (generators, coroutines)
        return None
    return fn if registry.lookup(fn) is None else None  # (a rule of the user's: its result is what the rule says)


def local_function(s: Call, user_globals: dict, cell_type: Optional[Callable[[Any], Optional[AVal]]] = None,
                   cells: Optional[dict] = None) -> Optional[types.FunctionType]:
    """A stand-in for the function a call statement calls when that is a `def` or `lambda` of the function being
    differentiated with no defaults (`N = lambda z: 0.5 * (1 + math.erf(z))`): its code and globals are known when
    the derivative is made, which is all its summary reads.  Variables it captures need `cell_type` to know what
    their cells hold (reverse/settle_types.cell_type); their types go into `cells` by name.  None otherwise."""
    f = s.fn
    while isinstance(f, Call) and f.callee() is ops.identity and len(f.args) == 1:
        f = f.args[0]  # (`N = lam`)
    if not (isinstance(f, Call) and f.callee() is ops.make_function and len(f.args) == 5):
        return None
    code = getattr(f, "code_object", None)
    _, _, defaults, kwdefaults, closure = f.args
    if code is None or code.co_flags & 0x2A0 or code.co_flags & 0x0C or code.co_kwonlyargcount:
        return None  # (generators and coroutines, *args / **kwargs, keyword-only parameters)
    if not all(isinstance(v, Call) and v.callee() in (ops.tuple_of, ops.dict_of) and not v.args
               for v in (defaults, kwdefaults)) or not (isinstance(closure, Call) and closure.callee() is ops.tuple_of):
        return None
    if code.co_freevars:
        if cell_type is None or cells is None or len(closure.args) != len(code.co_freevars):
            return None
        for name, cell in zip(code.co_freevars, closure.args):
            t = cell_type(cell)
            if t is None or t is _BOTTOM_TYPE:
                return None
            cells[name] = t
        return types.FunctionType(code, user_globals, code.co_name, None,
                                  tuple(types.CellType(None) for _ in code.co_freevars))
    return types.FunctionType(code, user_globals, code.co_name)


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


def result_of_call(fn: types.FunctionType, s: Call, args: list, depth: int = 0, owner: Optional[type] = None,
                   cells: Optional[dict] = None) -> AVal:
    """The type of `fn(*args)` (argument types `args`), from fn's code; UNKNOWN where not known.  `owner`: fn is a
    method of that class that only reads the fields of its `self` (reverse/local_objects.py), args[0] its type."""
    return _summary(fn, s, args, depth, owner, cells)[0]


def number_items(fn: types.FunctionType, s: Call, args: list) -> tuple:
    """The positions of the tuple `fn(*args)` returns that hold a number on every path (whatever the other items
    are), from fn's code; () when its result is not known to be a tuple."""
    return _summary(fn, s, args, 0)[2]


def returns_fresh(fn: types.FunctionType, s: Call, args: list) -> bool:
    """Does `fn(*args)` write nothing its caller can reach and return a number, a tuple of numbers or an array made
    inside it (never an argument, a view of one, or anything else its caller can reach)?  Then the result is an object of its
    own: reverse mode keeps its adjoint in a local variable (forward/activity.returns_fresh)."""
    return _summary(fn, s, args, 0)[1]


def _summary(fn: types.FunctionType, s: Call, args: list, depth: int, owner: Optional[type] = None,
             cells: Optional[dict] = None) -> tuple:
    if depth >= _DEPTH:
        return UNKNOWN, False, ()
    # (a list, dict or object is typed only as a parameter its function only reads: the callee may write it)
    params = _parameter_types(fn, s, [a if owner is not None and k == 0 or a == Lst(FLOAT) and only_reads(fn, k)
                                      else _kept(a) for k, a in enumerate(args)])  # (handed_lists.py)
    if params is None:
        return UNKNOWN, False, ()
    key = (fn.__code__, id(fn.__globals__), tuple(sorted(params.items(), key=lambda kv: kv[0])),
           tuple(sorted((cells or {}).items(), key=lambda kv: kv[0])))
    try:
        hash(key)
    except TypeError:
        return UNKNOWN, False, ()
    if key in _SUMMARIES:
        return _SUMMARIES[key]
    if key in _ACTIVE:
        # (recursion: what this call returns is assumed, and checked once the function's summary is known)
        _RECURSED.add(key)
        return _ASSUMED.get(key, (UNKNOWN, False, ()))
    _ACTIVE.add(key)
    try:
        out = _recursive_fixpoint(key, lambda: _summarise(fn, params, depth, owner, cells or {}))
    except Exception:  # noqa: BLE001 - a callee we cannot lower or type is simply not typed
        out = UNKNOWN, False, (), ()
    finally:
        _ACTIVE.discard(key)
        _ASSUMED.pop(key, None)
        _RECURSED.discard(key)
    out = out[:3]
    if len(_SUMMARIES) > 4096:
        _SUMMARIES.clear()
    _SUMMARIES[key] = out
    return out


_ASSUMED: dict = {}  # key being summarised -> the summary its recursive calls are assumed to have
_RECURSED: set = set()  # keys whose summary a recursive call read (from _ASSUMED)
_ROUNDS = 4


def _recursive_fixpoint(key: Any, summarise: Callable[[], tuple]) -> tuple:
    """The summary of a function that may call itself (directly or through others: `_ping` calls `_pong` calls
    `_ping`).  A recursive call's result is first unknown; if the function's returns are all known but for
    those that read it (`return 1.0` / `return x * power(x, n - 1)`), their join is assumed for the recursive
    call and the function summarised again, until the assumption is what comes out.  Then it holds for every
    call by induction on the depth of the recursion (the deepest call returns through a path that makes no
    recursive call).  Summaries of other functions worked out under an assumption that did not hold are
    forgotten (they depend on it)."""
    before = set(_SUMMARIES)
    out = summarise()
    if key not in _RECURSED:
        return out
    guess = _join_known(out[3])
    fresh = guess is not None and (isinstance(guess, (Num, Arr)) or _numbers(guess))
    for _ in range(_ROUNDS):
        if guess is None:
            break
        for k in set(_SUMMARIES) - before:
            del _SUMMARIES[k]
        numbers = tuple(k for k, t in enumerate(guess.items) if isinstance(t, Num)) if isinstance(guess, Tup) else ()
        assumed = (guess, fresh, numbers)
        _ASSUMED[key] = assumed
        out = summarise()
        if out[:3] == assumed:
            return out
        if out[0] is UNKNOWN:
            break
        # (the assumption only ever widens -- a larger type, fresh no longer -- so the rounds end)
        guess, fresh = _kept(join(guess, out[0])), fresh and out[1]
        if guess is UNKNOWN or (guess, fresh) == assumed[:2]:
            break
    for k in set(_SUMMARIES) - before:
        del _SUMMARIES[k]
    return UNKNOWN, False, (), ()


def _join_known(parts: tuple) -> Optional[AVal]:
    """The join of the returned values' types that are known (what the base cases give), or None."""
    known = [t for t in parts if t is not UNKNOWN]
    if not known:
        return None
    out = known[0]
    for t in known[1:]:
        out = join(out, t)
    out = _kept(out)
    return None if out is UNKNOWN else out


def _summarise(fn: types.FunctionType, params: dict, depth: int, owner: Optional[type] = None,
               cells: Optional[dict] = None) -> AVal:
    from ..forward.resolver import StaticResolver
    from ..frontend.source import function_source
    from ..frontend.statements import lower_function
    from ..ir.inference import infer_types
    from ..ir.typed_methods import resolve_methods

    ir = lower_function(fn, function_source(fn))
    kinds = {name: _kind(t) for name, t in params.items()}
    resolver = StaticResolver(fn.__globals__, kinds)

    def constant(v: Any) -> Any:
        out = resolver.resolve(v)
        if out is resolver._NOTHING:
            raise LookupError(v)
        return out

    nested: dict = {}  # typed calls in fn -> (their summary)
    count = uses(ir)

    def call_type(st: Call, arg_types: list, of: Any = None) -> Optional[AVal]:
        if slice_type(st, arg_types, count) is not None:
            return arg_types[0]  # (`xs[1:]` handed on: handed_lists.py)
        if st.callee() is ops.cell_get and st.args and isinstance(st.args[0], FreeVar) and cells and \
                st.args[0].name in cells:
            nested[st] = (cells[st.args[0].name], True, ())  # (a captured variable: what the caller's cell holds;
            return nested[st][0]                             # operators on it are plain)
        method = _own_method(st, owner, ir.params[0] if ir.params else None)
        if method is not None:  # `self.kinetic()` in a method that only reads self: typed as the caller's call was
            nested[st] = _summary(method, st, [params[ir.params[0].name], *arg_types], depth + 1, owner)
            return nested[st][0]
        callee = user_function(resolver, st)
        if callee is None:
            return None
        nested[st] = _summary(callee, st, arg_types, depth + 1)
        return nested[st][0]

    def param_type(v: Any) -> AVal:
        return params.get(v.name, UNKNOWN) if isinstance(v, Param) else UNKNOWN

    types_ = infer_types(ir, params, resolver.callee, constant, call_type)
    for _ in range(4):
        if not resolve_methods(ir, types_, param_type):
            break
        types_ = infer_types(ir, params, resolver.callee, constant, call_type)
    for _ in range(4):  # (operators on what typed calls give are plain: as reverse/settle_types.py does)
        plain = frozenset(st for st, found in nested.items() if found[0] is not UNKNOWN)
        if plain == resolver.plain_calls:
            break
        resolver = StaticResolver(fn.__globals__, kinds)
        resolver.plain_calls = plain
        nested.clear()
        types_ = infer_types(ir, params, resolver.callee, constant, call_type)

    def type_of(v: Any) -> AVal:
        if isinstance(v, Param):
            return param_type(v)
        return type_of_argument(v.value) if isinstance(v, Const) else types_.get(v, UNKNOWN)

    returned = [b.term.value for b in ir.blocks if isinstance(b.term, Return)]
    if not returned:
        return UNKNOWN, False, (), ()
    out = type_of(returned[0])
    for v in returned[1:]:
        out = join(out, type_of(v))
    kept = _kept(out)
    fresh = (isinstance(kept, (Num, Arr)) or _numbers(kept)) and _writes_nothing(ir, resolver, nested, type_of) and \
        all(_made_here(v, type_of, resolver, nested, set()) for v in returned)
    numbers = tuple(k for k, t in enumerate(out.items) if isinstance(t, Num)) if isinstance(out, Tup) else ()
    return kept, fresh, numbers, tuple(_kept(type_of(v)) for v in returned)


def _kind(t: AVal) -> str:
    """The kind string forward/objects.py reads for a parameter of type t (a typed `self`'s fields are named)."""
    if isinstance(t, Num):
        return "num"
    if isinstance(t, Arr):
        return "arr"
    if isinstance(t, Obj):
        fields = [f"{k}=num" if isinstance(v, Num) else f"{k}=f." + "".join("1" if a == "1" else "n" for a in v.axes)
                  for k, v in t.items if isinstance(v, Num) or is_float_array(v)]
        return "obj:fields:" + ";".join(fields) if fields else "any"
    return "any"


def _own_method(st: Call, owner: Optional[type], me: Any) -> Optional[types.FunctionType]:
    """The read-only method of `owner` that `st` calls on the method's own `self` (`me`), or None."""
    from .local_objects import class_shape, read_only_method

    f = st.fn
    if owner is None or me is None or not (isinstance(f, Call) and f.callee() is builtins.getattr and
                                           len(f.args) == 2 and f.args[0] is me and isinstance(f.args[1], Const)):
        return None
    shape = class_shape(owner)
    return read_only_method(shape, f.args[1].value) if shape is not None and isinstance(f.args[1].value, str) else None


def _writes_nothing(ir: Any, resolver: Any, nested: dict, type_of: Callable[[Any], AVal]) -> bool:
    """Does the function write no object (no item, attribute or cell stores, no in-place updates of anything but
    numbers, no mutating rule, no code we do not see)?  Calls of typed user functions count by their summary."""
    for b in ir.blocks:
        for st in b.stmts:
            if st in nested:
                if not nested[st][1]:
                    return False
                continue
            fn, rule = resolver.callee(st)
            if fn is None or "out" in st.kwargs:
                return False
            if hashable(fn) and fn in _READS:
                continue
            if rule is None or rule.mutates or rule.user_frule is not None or rule.user_rrule is not None:
                return False
            if hashable(fn) and fn in INPLACE and not all(isinstance(type_of(a), Num) for a in st.args):
                return False  # (`s += x` of numbers makes a new number)
    return True


def _numbers(t: AVal) -> bool:
    """Is t a tuple of numbers (immutable all the way down: it shares nothing its caller could change)?"""
    return isinstance(t, Tup) and bool(t.items) and all(isinstance(i, Num) for i in t.items)


def _made_here(v: Any, type_of: Callable[[Any], AVal], resolver: Any, nested: dict, seen: set) -> bool:
    """Is the returned value v a number (or a tuple of numbers), or an array the function made (never a parameter, a
    view or a global)?"""
    if isinstance(type_of(v), Num) or _numbers(type_of(v)):
        return True  # (numbers are immutable: sharing one is harmless)
    if isinstance(v, Phi):
        if v in seen:
            return True
        seen.add(v)
        return all(_made_here(x, type_of, resolver, nested, seen) for x in v.incoming.values())
    if not isinstance(v, Call):
        return False
    if v in nested:
        return nested[v][1]
    fn = resolver.callee(v)[0]
    if fn in (np.array, np.asarray) and len(v.args) == 1 and isinstance(v.args[0], Call) and \
            v.args[0].callee() in (ops.list_of, ops.tuple_of):
        return True  # (an array of a display: a new one)
    return makes_new_array(fn) and not {"out", "copy"} & set(v.kwargs)
