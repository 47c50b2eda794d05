"""Reads of dict displays by constant keys are the values put there: `d = {"a": x, "b": y}` then `d["a"]` is x.

A dict of settings or coefficients made in the function (`opts = {"lr": lr, "decay": 0.9}`, or the `**coeffs` a
helper put in line was called with) and read only by constant keys is, to a person, a few named numbers; kept as
a dict, every read is a call and the pullback accumulates a dict adjoint through run-time helpers.  Where the dict
is used for nothing but such reads (`d[k]`, `d.get(k)`, `d.get(k, default)`) nothing can have changed it or seen
it, so each read is the value the display holds for the key (the last one, if a key repeats; `get`'s default, or
None, for a key it lacks), and the display goes once nothing reads it.  A read of a missing key by `d[k]` keeps the
dict (Python's KeyError stays).
"""
from __future__ import annotations

import builtins
import operator
from typing import Any, Optional

from .. import ops
from .nodes import Call, Const, Function, Global, Value


def fold_dict_reads(fn: Function, user_globals: Optional[dict] = None) -> int:
    """Fold what qualifies (see the module docstring); the number of dicts folded."""
    readers: dict = {}
    for b in fn.blocks:
        for x in [*b.phis, *b.stmts, b.term]:
            for o in x.operands():
                readers.setdefault(o, []).append(x)
    replace: dict = {}
    gone: set = set()
    folded = 0
    for b in fn.blocks:
        for d in b.stmts:
            items = _display(d, user_globals)
            if items is None:
                continue
            plan = _reads(d, items, readers.get(d, []), readers)
            if plan is None:
                continue
            for read, value in plan:
                replace[read] = value
                gone.add(read)
                if read.fn is not d and isinstance(read.fn, Call):  # (`d.get`, read only by this call)
                    gone.add(read.fn)
            gone.add(d)
            folded += 1
    if not folded:
        return 0
    for b in fn.blocks:
        for x in [*b.phis, *b.stmts, b.term]:
            for o in list(x.operands()):
                v = o
                while v in replace:
                    v = replace[v]
                if v is not o:
                    x.replace_operand(o, v)
    for b in fn.blocks:
        b.stmts = [s for s in b.stmts if s not in gone]
    return folded


def _display(s: Any, g: Optional[dict]) -> Optional[dict]:
    """{key: value} of `{k: v, ...}` with constant keys, or of `dict(k=v, ...)`; else None."""
    if not isinstance(s, Call):
        return None
    if s.callee() is ops.dict_of and not s.kwargs and len(s.args) % 2 == 0:
        keys = s.args[0::2]
        if not all(isinstance(k, Const) and type(k.value) in (str, int, bool) for k in keys):
            return None
        return {k.value: v for k, v in zip(keys, s.args[1::2])}
    if isinstance(s.fn, Global) and s.fn.name == "dict" and g is not None and "dict" not in g and \
            builtins.dict is dict and not s.args:
        return dict(s.kwargs)
    return None


def _reads(d: Call, items: dict, uses: list, readers: dict) -> Optional[list]:
    """[(read, the value it gives)] if every use of d is a read by a constant key that folds, else None."""
    plan = []
    for r in uses:
        if not isinstance(r, Call) or r.kwargs:
            return None
        if r.callee() is operator.getitem and len(r.args) == 2 and r.args[0] is d and \
                isinstance(r.args[1], Const) and _key_in(r.args[1].value, items):
            plan.append((r, items[r.args[1].value]))
        elif r.callee() is getattr and len(r.args) == 2 and r.args[0] is d and isinstance(r.args[1], Const) and \
                r.args[1].value == "get":
            calls = readers.get(r, [])
            if len(calls) != 1 or not isinstance(calls[0], Call) or calls[0].fn is not r or calls[0].kwargs or \
                    not 1 <= len(calls[0].args) <= 2 or not isinstance(calls[0].args[0], Const):
                return None
            call = calls[0]
            key = call.args[0].value
            try:
                hash(key)
            except TypeError:
                return None
            value: Value = items[key] if _key_in(key, items) else call.args[1] if len(call.args) == 2 else Const(None)
            plan.append((call, value))
        else:
            return None
    return plan


def _key_in(key: Any, items: dict) -> bool:
    try:
        return key in items
    except TypeError:
        return False


def distinct_constant_keys(keys: list) -> bool:
    """Are these constant keys of a display all different keys to Python?  A dict tells keys apart by hash and
    equality (after identity), not by type or spelling: 1, 1.0 and True are one key, so are 0.0 and -0.0, and the
    display keeps the first key with the last value.  False also where a key is unhashable or NaN (whether two
    NaNs are one key depends on their identity, which the generated code need not keep): the caller then
    decides when the code runs."""
    try:
        if any(k != k for k in keys):
            return False
        return len(set(keys)) == len(keys)
    except Exception:  # (unhashable, or an __eq__ / __hash__ that raises: leave it to run time)
        return False
