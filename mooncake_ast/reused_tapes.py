"""The invariant that makes a pullback reusable on one tape, checked where asked.

jacrev calls one generated pullback once per output element on a single tape (jacobian_rows.py), and mc.vjp keeps a
pullback whose tape can be kept whole (reverse/derived_rules._with_pullback, reverse/generate.reusable_tape).  The
rows share the tape's saved values -- the arrays, lists and numbers the forward pass recorded -- so each row is right
only if no pullback writes a saved value in place: a pullback that scaled a saved array, appended to a saved list or
scattered into a saved buffer would hand the next row a different tape, and every later row of the Jacobian would be
silently wrong.  The generator promises this (a function whose forward pass saves overwritten values, appends to or
writes into what its caller reaches, or hands on another call's pullback is never given a reusable pullback), and
stack slots are copied per call; this module checks the promise.

The check copies everything the tape holds, so it is off by default: `MOONCAKE_AST_CHECK_REUSED_TAPES=1` (or
`reused_tapes.CHECK = True`, as tests/test_regress_order14.py sets it) turns it on, and a pullback call that changed
its tape raises an AssertionError naming the function.  What it compares: each NumPy array reachable through the
tape's tuples, lists and dicts (its values, bit for bit, NaNs equal), each list's length and items (by identity)
and each dict's keys; values held inside other objects (closures of nested pullbacks, user objects) are checked by
those pullbacks' own tapes, where they are derived pullbacks too.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

CHECK = os.environ.get("MOONCAKE_AST_CHECK_REUSED_TAPES", "") not in ("", "0")

_DEPTH = 12  # (tapes nest per loop level and per call: deeper than any generated tape in the tests)


def snapshot(tape: Any) -> list:
    """What `unchanged` compares later: (object, its copy) for every array, list and dict the tape holds."""
    out: list = []
    _walk(tape, out, set(), 0)
    return out


def _walk(v: Any, out: list, seen: set, depth: int) -> None:
    if depth > _DEPTH or id(v) in seen:
        return
    t = type(v)
    if t is np.ndarray:
        seen.add(id(v))
        out.append((v, v.copy()))
    elif t is list:
        seen.add(id(v))
        out.append((v, list(v)))
        for item in v:
            _walk(item, out, seen, depth + 1)
    elif t is dict:
        seen.add(id(v))
        out.append((v, dict(v)))
        for item in v.values():
            _walk(item, out, seen, depth + 1)
    elif t is tuple:
        for item in v:
            _walk(item, out, seen, depth + 1)


def _same(now: Any, then: Any) -> bool:
    if type(now) is np.ndarray:
        if now.shape != then.shape or now.dtype != then.dtype:
            return False
        return bool(np.array_equal(now, then, equal_nan=now.dtype.kind in "fc"))
    if type(now) is list:
        return len(now) == len(then) and all(a is b for a, b in zip(now, then))
    return now.keys() == then.keys() and all(now[k] is then[k] for k in now)


def assert_unchanged(snap: list, where: str) -> None:
    """Raise an AssertionError where a pullback call wrote a value its tape saved (see the module's docstring)."""
    for obj, then in snap:
        if not _same(obj, then):
            raise AssertionError(f"internal error: the reused pullback of {where} changed a value its tape saved "
                                 f"({type(obj).__name__} {_describe(then)}), so the next call on the same tape "
                                 f"would be wrong; please report it (with the function)")


def _describe(v: Any) -> str:
    if type(v) is np.ndarray:
        return f"of shape {v.shape}"
    return f"of length {len(v)}"
