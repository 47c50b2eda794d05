"""`list(map(f, xs))` of a function the caller may put in line: the comprehension it is, `[f(v) for v in xs]`.

`scaled = list(map(lambda v: v / temp, xs))` hands the lambda to `map`, which calls it where the transform cannot
see: the lambda's cell, the map object, the list, and everything read from them went through the run-time
dispatcher and identity-keyed storage (53 helper references in a pullback a person writes in six lines).  With one
iterable, `list(map(f, xs))` calls `iter(xs)` once and then `f` on each item in order, as the comprehension does,
so the call is replaced by `map_list` below (and `sum(map(f, xs))`, `tuple(...)`, `sorted(...)`, `min(...)`,
`max(...)` read its list: builtins that consume every item before they return), lowered from its source and put in line by reverse/inline.py; `f(v)`
is then a call of a local function, put in line in the next round, and the list is one the function builds
(reverse/local_lists.py).  Only where `list` and `map` are the builtins (the module defines neither name and the
function writes no global), `map` makes an object nothing else reads, and f is a `def` or `lambda` of the function
or a plain function of its module whose call inline.py puts in line (a call that stays one is no plainer in a
loop).  The statements put in line carry the
call's own location, and no frame of their own (the builtin has none), so comments and tracebacks show the user's
`list(map(...))` and f's own frames as Python would.
"""
from __future__ import annotations

import dataclasses
import types
from typing import Any

from .. import ops
from ..ir.analysis import uses
from ..ir.nodes import Call, Const, Function, Global, Return


def map_list(f, xs):  # (lowered and put in line: the comprehension `list(map(f, xs))` is)
    out = []
    for v in xs:
        out.append(f(v))
    return out


# Builtins that consume the whole iterator they are given before they return, and call no code of the user's between
# its items: given the list of f's results in place of the map object, each gets the same items in the same order
# (f called on each item first, as the map would have called it before these saw the item).
_CONSUMERS = ("sum", "tuple", "sorted", "min", "max")


def rewrite_map_lists(ir: Function, user_globals: dict, rebound: set, goes_in_line: Any) -> int:
    """`list(map(f, xs))` with f a function whose call inline.py puts in line (`goes_in_line(f)`): `map_list(f, xs)`,
    the map call dropped; `sum(map(f, xs))` (and the other _CONSUMERS): `sum(map_list(f, xs))`.  How many."""
    taken = set(user_globals) | rebound
    if {"list", "map"} & taken:
        return 0
    count = None
    done = 0
    for b in ir.blocks:
        for s in list(b.stmts):
            if not (isinstance(s.fn, Global) and s.args and (
                    s.fn.name == "list" and len(s.args) == 1 and not s.kwargs or
                    s.fn.name in _CONSUMERS and s.fn.name not in taken and
                    (s.fn.name not in ("sum", "tuple") or not s.kwargs))):
                continue
            m = s.args[0]
            if not (isinstance(m, Call) and isinstance(m.fn, Global) and m.fn.name == "map" and len(m.args) == 2 and
                    not m.kwargs and (_local(m.args[0]) or _module_function(m.args[0], user_globals, rebound)) and
                    goes_in_line(m.args[0])):
                continue
            count = count if count is not None else uses(ir)
            home = next((blk for blk in ir.blocks if any(x is m for x in blk.stmts)), None)
            if count.get(m) != 1 or home is None:
                continue  # (the map object read elsewhere too: partly consumed, it is not the comprehension)
            if s.fn.name == "list":
                s.fn, s.args = Const(map_list), list(m.args)
                home.stmts = [x for x in home.stmts if x is not m]
            else:
                m.fn, m.args = Const(map_list), list(m.args)  # (the list in the map object's place)
            done += 1
            count = None
    return done


def _local(f: Any) -> bool:
    """A `def` or `lambda` of the function (the function object it makes)."""
    while isinstance(f, Call) and f.callee() is ops.identity and len(f.args) == 1:
        f = f.args[0]
    return isinstance(f, Call) and f.callee() is ops.make_function


def _module_function(f: Any, user_globals: dict, rebound: set) -> bool:
    """Is f a global name bound to a plain function of the module (inline.py decides whether its call goes in line),
    which the function does not rebind?"""
    if not isinstance(f, Global) or f.name in rebound:
        return False
    fn = user_globals.get(f.name)
    return type(fn) is types.FunctionType and fn.__globals__ is user_globals


def carry_call_line(callee: Function, call: Call) -> None:
    """Every statement (and the loop) of map_list put in line at `call` takes the call's location, the user's
    `list(map(...))` (and its place among the frames of functions put in line), as the builtin has no frame."""
    for blk in callee.blocks:
        if isinstance(blk.term, Return) and isinstance(blk.term.value, Call):
            blk.term.value.hint = None  # (the list takes the caller's name for it: `scaled`, not `out`)
    if call.loc is None:
        return
    for blk in callee.blocks:
        if blk.loop is not None and blk.loop.loc is not None:
            blk.loop.loc = dataclasses.replace(call.loc)
        for x in [*blk.phis, *blk.stmts, blk.term]:
            if getattr(x, "loc", None) is not None:
                x.loc = dataclasses.replace(call.loc)
