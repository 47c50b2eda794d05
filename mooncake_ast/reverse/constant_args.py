"""Arguments that are data without a derivative: index lists, integer pairs, names, flags.

`f(x, ks)` with `ks = [1, 5, 2]`, or `pairs = [(0, 2), (2, 5)]`, is where a person writes a gradient
for `x` alone: nothing in `ks` can carry a derivative, so no pullback statement need mention it.
Kept as a plain `any` argument, it has an adjoint kept in identity-keyed storage, every value
computed from it (`k % 4`, a set of its items, `sorted` of that) is differentiated by run-time
helpers, and, worse, one untyped argument keeps every other argument untyped too
(reverse/argument_kinds.kinds_of types arguments only when nothing else can hold them).

Such an argument is marked `any:const:inactive` (`:inactive` as `wrt` marks the arguments not
differentiated), so activity analysis starts it without a derivative.  That is right because:

* it holds only immutable scalars without a derivative (ints, bools, strings, None, ranges, slices,
  NumPy integers) in lists, tuples, sets, frozensets and dicts, so no float, float array or user
  object of any other argument can be reached through it, and no container occurs in it twice or
  in two such arguments (argument_kinds.kinds_of: `distinct_containers`);
* the only way a derivative could get into it is a write of active data into an object that may be
  it without the IR showing so: one that comes from outside the function (a parameter, a global, a
  closure cell, what user code returns) or one user code writes.  When activity analysis finds such
  a write (`outside_writes`), the transform analyses again with the argument active: the generic
  path then keeps it right, as before.

The pullback still returns its adjoint through the generic `take`, so the caller gets the same
structure of zeros as before (a list of `NoTangent` for a list).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops

_SCALARS = frozenset({bool, int, str, bytes, type(None), range, slice})  # exact types: a subclass may hold more
_BUDGET = 1024  # items looked at, at most, on every call (a longer argument stays generic)


def constant_data(x: Any) -> bool:
    """Does x (a container) hold only scalars that carry no derivative?  Scalars themselves are other kinds
    (`num`), so a bare scalar is not asked about here."""
    if type(x) not in (list, tuple, set, frozenset, dict):
        return False
    budget = _BUDGET
    stack = [x]
    while stack:
        v = stack.pop()
        budget -= 1
        if budget < 0:
            return False
        tp = type(v)
        if tp is dict:
            stack.extend(v.keys())
            stack.extend(v.values())
        elif tp in (list, tuple, set, frozenset):
            stack.extend(v)
        elif tp not in _SCALARS and not (isinstance(v, (np.integer, np.bool_)) and type(v).__module__ == "numpy"):
            return False
    return True


def constant_layout(x: Any) -> str:
    """`ints` for a list of ints (`ks = [1, 5, 2]`), `int_tuplesN` for a list of tuples of N ints each (`pairs = [(0, 2),
    (2, 5)]`, N at most 8), else "": what ir/types.decode types the constant argument as (a list of ints, `Lst(INT)`),
    so that what the function computes from it (`k % 4`, `sorted(...)` of a set of its items) is typed too.  Exact
    ints only (a bool indexes as a mask).  The list keeps that type only while the function only reads it
    (reverse/typed_lists.py)."""
    if type(x) is not list or len(x) > _BUDGET:
        return ""
    if all(type(v) is int for v in x):
        return "ints"
    if x and type(x[0]) is tuple and 1 <= len(x[0]) <= 8 and \
            all(type(t) is tuple and len(t) == len(x[0]) and all(type(v) is int for v in t) for t in x):
        return f"int_tuples{len(x[0])}"
    return ""


def distinct_containers(args: list) -> bool:
    """Does no list, dict or set occur twice among these constant arguments (nested ones too)?  A write into one
    would be a write into the other, which the IR cannot see."""
    seen: set = set()
    stack = list(args)
    while stack:
        v = stack.pop()
        tp = type(v)
        if tp in (list, dict, set):
            if id(v) in seen:
                return False
            seen.add(id(v))
        if tp is dict:
            stack.extend(v.values())
        elif tp in (list, tuple, set, frozenset):
            stack.extend(v)
    return True


def is_constant_kind(kind: str) -> bool:
    return kind.startswith("any:const")


def outside_writes(act: Any, fn: Any, static_rule: Any, strict: bool = True) -> bool:
    """Does activity analysis `act` of IR function fn see active data written into an object that may come from
    outside the function (so may be a constant argument the IR cannot tell it is), or into state user code may
    reach?  Not `strict`: only a closure's object written here (a list parameter handed to user code or written is
    untyped anyway, and activity analysis refuses writes into module-level objects)."""
    from ..forward.activity import returns_fresh
    from ..ir.nodes import Call, FreeVar, Global, Param

    if strict and (act.opaque_writer or act.user_written):
        return True
    if not act.targets:
        return False
    written = {act.find(t) for t in act.targets}
    values = [*fn.params, *getattr(fn, "freevars", ()), *(v for b in fn.blocks for v in (*b.phis, *b.stmts))]
    values += [o for b in fn.blocks for s in b.stmts for o in s.operands() if isinstance(o, (Global, FreeVar))]
    for v in values:
        if act.find(v) not in written:
            continue
        if isinstance(v, FreeVar) or isinstance(v, Call) and v.callee() is ops.cell_get:
            return True  # (a captured variable's object)
        if not strict:
            continue
        if isinstance(v, (Global, Param)):
            return True
        if isinstance(v, Call):
            callee, rule = static_rule(v)
            if rule is None and not (callee is not None and returns_fresh(callee, rule)) and not _new_instance(callee):
                return True  # (what user code or an unknown callee returns may be anything)
    return False


def _new_instance(callee: Any) -> bool:
    """Does calling callee make a new object (a class of the user's with Python's own `__new__`)?"""
    return isinstance(callee, type) and getattr(callee, "__new__", None) is object.__new__


def unsafe(rt: Any, inactive: frozenset, kinds: dict) -> bool:
    """Is some parameter inactive only for being constant data (`any:const`), and might it be written after all?"""
    return any(is_constant_kind(kinds[p.name]) for p in inactive) and \
        outside_writes(rt.act, rt.ir, rt._activity_rule)


def lists_reached_outside(rt: Any, kinds: dict) -> set:
    """The list parameters typed from their items (`any:list:...`: reverse/typed_lists.py, row_lists.py) when activity
    analysis sees a write of active data into an object from outside the function (`outside_writes`): a closure's
    list, say, that may be one of them or one of their rows.  reverse/generate.py then derives again with those
    parameters untyped, and storage keyed by identity keeps them right."""
    names = {k for k, v in kinds.items() if v.startswith("any:list:")}
    typed_constants = {k for k, v in kinds.items() if is_constant_kind(v) and v.split(":")[2] != "inactive"}
    out: set = set()
    if names and outside_writes(rt.act, rt.ir, rt._activity_rule, strict=False):
        out |= names
    if typed_constants and outside_writes(rt.act, rt.ir, rt._activity_rule):
        out |= typed_constants  # (a list of ints that may be written after all: neither constant nor typed)
    return out


def without_layout(kind: str) -> str:
    """The kind derived again when a typed list may be written where the IR cannot see it (`lists_reached_outside`):
    `any` (with a `wrt` `:inactive`), and a constant argument's without its layout (`any:const:inactive`, which
    `unsafe` then makes active)."""
    if is_constant_kind(kind):
        parts = kind.split(":")
        return ":".join(parts[:2] + [p for p in parts[2:] if p == "inactive"])
    return "any" + (":inactive" if kind.endswith(":inactive") else "")
