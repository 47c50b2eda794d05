"""The columns of a forward-mode Jacobian: `column(dx) -> (y, dy)`, one forward pass per direction (or per batch
of directions), each from the arguments' and f's state on entry.  (Split from higher.py, which re-exports these.)

What a column calls is decided once per call: a plain function's derived forward rule directly (kept on the input
layout while it is current), a gradient's Hessian-vector products by hvp_fast (mc.hessian's columns), else the
nested plan or jvp's general path.  Arguments that share memory are moved together (argument_overlap.py); the state
f can reach is taken before the first pass and put back before each further one (held_state.py), unless f's
generated code writes nothing outside its frame (pure_forward.py)."""
from __future__ import annotations

import types
from typing import Any, Callable

import numpy as np

from . import argument_overlap, held_state, hvp_fast, pure_forward
from .api import Grad, _jvp
from .forward import runtime as forward_runtime
from .forward.runtime import fast_forward_rule
from .rules.api_rules import NestingError, _plan
from .tangents import NoTangent, materialize, zero_tangent


def _columns(f: Callable, args: tuple, kwargs: dict, nums: tuple, lay: Any = None) -> Callable:
    """`column(dx) -> (y, dy)`: one forward-mode pass with tangent dx for the arguments in nums (zero for the
    others), every call at the arguments' values on entry.

    Where f has generated forward code that can be called directly, the API's checks and dispatch are done once
    and each column is one call of that code (one jvp per direction, without the per-call overhead); that rule is
    kept on the input layout `lay` (when given) and reused while it is not stale."""
    same = argument_overlap.sharing(tuple(args), nums)
    groups = [g for g in argument_overlap.views_of_one_memory(tuple(args)) if any(i in nums for i in g)] \
        if len(args) > 1 else ()
    twins = argument_overlap.twins(tuple(args), nums) if len(nums) > 1 else ()
    rule = _plain_rule(f, args, kwargs, nums, same, lay)
    # (f may write to its arguments, and keep state between calls: each pass runs from the entry state, held_state.py;
    # generated code that writes nothing outside its frame starts there by itself, pure_forward.py)
    pre = None if rule is not None and pure_forward.writes_nothing(rule.fn) else \
        held_state.take(f, tuple(args) + tuple(kwargs.values()) if kwargs else tuple(args))
    calls = [0]
    plan = None

    def restore() -> None:
        """Put back the entry state after a column ran (a failed column: a caller computing otherwise)."""
        if calls[0]:
            held_state.put_back(pre)

    def placed(dx: tuple) -> list:
        """The arguments' tangents for one column: dx at the differentiated positions, None elsewhere."""
        if calls[0]:
            held_state.put_back(pre)  # the previous column ran f
        calls[0] += 1
        dargs: list = [None] * len(args)
        for j, i in enumerate(nums):
            dargs[i] = dx[j]
        for g in twins:  # (one array differentiated in several places: its tangent moves it in all of them)
            total = dargs[g[0]]
            for i in g[1:]:
                total = total + dargs[i]
            for i in g:
                dargs[i] = total
        for k in same:  # (one object passed in several places: moved in all of them, argument_overlap.py)
            dargs[k] = next((dargs[i] for i in nums if args[i] is args[k]), None)
        if groups:  # (arguments that are views of one memory: their tangents views of one buffer)
            dargs = argument_overlap.tie(tuple(args), dargs, groups, add=True)
        return dargs

    if rule is not None:  # (the common call, a plain function of numbers and float arrays: its rule called directly)
        fill = [NoTangent if type(a) is not np.ndarray else None for a in args]  # (None: zeros of the array)

        def plain_column(dx: tuple, raw: bool = False) -> tuple:
            dargs = placed(dx)
            tangents = tuple(d if d is not None else np.zeros_like(a) if z is None else z
                             for a, d, z in zip(args, dargs, fill))
            y, dy = rule.call_bound(f, NoTangent, args, tangents)
            return y, (dy if raw else materialize(dy, y))

        plain_column.restore = restore  # type: ignore[attr-defined]
        plain_column.fn = rule.fn  # type: ignore[attr-defined]  (the generated code each column runs)
        return plain_column
    if not kwargs and type(f) is Grad and not f.has_aux and not same and not groups and not twins:
        # (mc.hessian's columns: Hessian-vector products by hvp_fast, reverse mode over f's forward code called
        # directly -- the general path below goes through jvp's checks, fcall and hvp_core for every column, 19x the
        # time of a gradient per column at n = 8; hvp_fast gives None where it does not apply, before running f or
        # after a run the general path then repeats from the entry state)
        def hvp_column(dx: tuple, raw: bool = False) -> tuple:
            dargs = tuple(placed(dx))
            done = hvp_fast.jvp_of_grad(f, tuple(args), dargs)
            if done is None:
                held_state.put_back(pre)
                y, dy, _, _ = _jvp(f, tuple(args), dargs, kwargs, {}, api="jacfwd")
                return y, materialize(dy, y)
            y, dy = done
            return y, (dy if raw else materialize(dy, y))

        hvp_column.restore = restore  # type: ignore[attr-defined]
        hvp_column.fn = None  # type: ignore[attr-defined]  (no batched pass: reverse mode cannot carry one)
        return hvp_column
    if not kwargs:
        try:
            plan = _plan(f, NoTangent, tuple(args), tuple(zero_tangent(a) for a in args))
        except NestingError:
            plan = None
        if plan is not None and plan.tan_pos is None:
            plan = None

    def column(dx: tuple, raw: bool = False) -> tuple:
        dargs = placed(dx)
        if plan is None:
            y, dy, _, _ = _jvp(f, tuple(args), tuple(dargs), kwargs, {}, api="jacfwd")
            return y, materialize(dy, y)
        call = list(plan.call_args)
        for i, a in enumerate(args):
            d = dargs[i]
            if d is None:
                d = zero_tangent(a)
                d = materialize(d, a) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else d
            call[plan.tan_pos[i]] = d
        y, dy = plan.fn(*call)
        return y, (dy if raw else materialize(dy, y))

    column.fn = plan.fn if plan is not None else None  # type: ignore[attr-defined]
    column.restore = restore  # type: ignore[attr-defined]
    return column


def _plain_rule(f: Callable, args: tuple, kwargs: dict, nums: tuple, same: Any, lay: Any) -> Any:
    """The derived forward rule of the common call (a plain function of numbers and float arrays, no keywords), to
    call directly, or None; kept on the input layout `lay` (when given) and reused while it is current.  (The
    numbers not differentiated are inactive in the rule, as the general path makes them: given NoTangent, code typed
    for a number's tangent computed `db = ones * dx` as NoTangent and dropped writes through `b.flat[i]` or a view:
    jacfwd in `a` of such a function was zero.)"""
    if kwargs or type(f) is not types.FunctionType:
        return None
    kept = lay.rule if lay is not None and not same else None  # (zero below depends on `same`: kept without)
    if kept is not None and _still_current(f, kept):
        return kept
    zero = tuple(i not in nums and i not in same and type(a) is not np.ndarray for i, a in enumerate(args))
    rule = fast_forward_rule(f, tuple(args), zero if True in zero else None)
    if lay is not None and not same:
        lay.rule = rule
    return rule


def _still_current(f: types.FunctionType, rule: Any) -> bool:
    """Is `rule`, the derived forward rule a call of this argument kind ran, what fast_forward_rule would give f now
    (its look-up kept: the same code, nothing stale, no modules written ahead of time to decide instead)?"""
    if forward_runtime._WRITTEN_AHEAD or getattr(rule, "code", None) is not f.__code__ or rule.stale(f):
        return False
    forward_runtime.LATEST[rule.code] = rule  # (as fast_forward_rule records it: what mc.source shows)
    return True
