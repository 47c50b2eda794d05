"""`try` statements and generators in forward code, for derivatives of derivatives.

Inside a `try` body (and in the body of a generator function, whose exceptions wait for its consumer) every call
is lowered to `r = guarded_call(f, args, kwargs)`: f's value, or a `Raised` holding what f raised
(frontend/try_ops.py).  Forward code dispatches it, `_mc.fcall(try_ops.guarded_call, ...)`, whose first-order rule
runs `fcall(f, ...)` and catches the exception.  Differentiated again, that call is one call of `guarded_fwd`
below: `guarded_fcall`, a primitive whose rules are those of `fcall` (forward and reverse mode over f's forward
code) with the exception caught, as guarded_call's rules catch it at first order -- a raise has no derivative, the
branch it takes is followed, and reverse mode refuses a Python function that raised part-way after code that may
have written what the caller can reach (try_ops._refuse_partial_writes: the pullback of that partial run is not
known).  Reverse mode over a guarded call whose arguments are arrays, lists or dicts was refused once (their adjoints
were counted more than once: a Hessian 3x too large, randprog exceptions seed 65100000017); the adjoints of mutable
arguments are routed once now (reverse/shadows.route), and every second order of such calls agrees with differences
(tests/test_regress_everyday_second_order.py), so it is not refused any more.  A generator's end, `finish(items,
state, value)`, is `finish_fwd`: the iterator and an iterator over the items' tangents, as its first-order rule gives
them.
"""
from __future__ import annotations

from typing import Any, Optional

from ..errors import MooncakeError
from ..forward.runtime import fcall
from ..frontend import generator_ops, try_ops
from ..tangents import NoTangent


def guarded_fcall(f, df, a, da, k, dk):
    """`fcall(f, df, a, da, k, dk)`, the value and its tangent, or a Raised holding what the call raised."""
    try:
        return fcall(f, df, a, da, k, dk)
    except MooncakeError:
        raise
    except BaseException as e:  # noqa: BLE001  (the user's handlers decide what they catch)
        return try_ops.Raised(e)


def guarded_fwd(f, a, k, df, da, dk):
    """`guarded_call(f, a, k)` and its tangent, as its first-order rule gives them (frontend/try_ops.frule_guarded)."""
    r = guarded_fcall(f, df, a, da, k, dk)
    if try_ops.raised(r):
        return r, NoTangent
    return r


def finish_fwd(items, state, value, ditems, dstate, dvalue):
    """`generator_ops.finish(items, state, value)` (a generator's iterator) and its tangent, an iterator over the
    items' tangents (generator_ops.frule_finish)."""
    return generator_ops.finish(items, state, value), iter(ditems)


def finish_error_fwd(items, state, value, error, ditems, dstate, dvalue, derror):
    return generator_ops.finish(items, state, value, error), iter(ditems)


def guarded_plan(f: Any, args: tuple, dargs: tuple) -> Optional[Any]:
    """The plan of `fcall(f, NoTangent, args, dargs)` for f guarded_call or generator_ops.finish, or None."""
    from .nested_plans import _api, _plain_plan

    api = _api()
    n = len(args)
    dargs = api._expand(dargs, n)
    if f is try_ops.guarded_call and n == 3:
        fn, a, k = args
        dfn, da, dk = dargs
        a = tuple(a)
        da = tuple(api._expand(da, len(a)))
        k = dict(k or {})
        dk = dict(dk) if isinstance(dk, dict) else {key: NoTangent for key in k}
        plan = _plain_plan(guarded_fwd, (fn, a, k, dfn, da, dk), 3)
        return plan
    if f is guarded_fcall or f is stop_fcall:
        return catching_plan(f, args, dargs)
    if f is generator_ops.finish and n in (3, 4):
        items = list(args[0])
        ditems = api._expand(dargs[0], len(items))
        if ditems is dargs[0] and not isinstance(ditems, list):
            ditems = list(ditems)
        from .nested_consumers import dense_items

        ditems = dense_items(items, list(ditems))
        call = (*args, ditems, *(NoTangent,) * (n - 1))
        plan = _plain_plan(finish_fwd if n == 3 else finish_error_fwd, call, n)
        plan.inactive = frozenset(range(1, n)) | frozenset(range(n + 1, 2 * n))  # (the state, value, error)
        return plan
    return None


# ---------------------------------------------------------------- their rules, and their forward code (third order)


def _frule(p: tuple, t: Any) -> tuple:
    from .api_rules import _expand, _fcall_frule

    f, df, a, da, k, dk = p
    try:
        return _fcall_frule((f, df, a, da, k, dk), tuple(_expand(t, 6)))
    except MooncakeError:
        raise
    except BaseException as e:  # noqa: BLE001
        try_ops._confirm(f, tuple(a), dict(k or {}), e)
        return try_ops.Raised(e), NoTangent


def _rrule(f: Any, df: Any, a: tuple, da: tuple, k: Any, dk: Any) -> tuple:
    from .api_rules import _fcall_rrule

    try:
        out, pb = _fcall_rrule(f, df, a, da, k, dk)
    except MooncakeError:
        raise
    except BaseException as e:  # noqa: BLE001
        try_ops._confirm(f, tuple(a), dict(k or {}), e)
        try_ops._refuse_partial_writes(f, tuple(a), dict(k or {}), e)
        return try_ops.Raised(e), lambda g: (NoTangent,) * 6

    def pullback(g: Any) -> tuple:
        bars = tuple(pb(g))
        return bars + (NoTangent,) * (6 - len(bars))

    return out, pullback


def stop_fcall(f, df, a, da):
    """`fcall(f, df, a, da)`, or None once the call raised StopIteration (a user's `__next__`:
    nested_iteration.py)."""
    try:
        return fcall(f, df, a, da)
    except StopIteration:
        return None


def _stop_frule(p: tuple, t: Any) -> tuple:
    from .api_rules import _expand, _fcall_frule

    try:
        return _fcall_frule(tuple(p), tuple(_expand(t, 4)))
    except StopIteration:
        return None, NoTangent


def _stop_rrule(f: Any, df: Any, a: tuple, da: tuple) -> tuple:
    from .api_rules import _fcall_rrule

    try:
        return _fcall_rrule(f, df, a, da)
    except StopIteration:
        return None, lambda g: (NoTangent,) * 4


def guarded_fcall_fwd(f, df, a, da, k, dk, tf, tdf, ta, tda, tk, tdk):
    """`guarded_fcall(f, df, a, da, k, dk)` and its tangent: the same guard around fcall's forward code (a third
    order through a `try` body or a generator)."""
    r = guarded_fcall(fcall, NoTangent, (f, df, a, da, k, dk), (tf, tdf, ta, tda, tk, tdk), {}, {})
    if try_ops.raised(r):
        return r, NoTangent
    return r


def stop_fcall_fwd(f, df, a, da, tf, tdf, ta, tda):
    """`stop_fcall(f, df, a, da)` and its tangent (a third order through a user's `__next__`)."""
    r = stop_fcall(fcall, NoTangent, (f, df, a, da), (tf, tdf, ta, tda))
    if r is None:
        return None, NoTangent
    return r


def catching_plan(f: Any, args: tuple, dargs: tuple) -> Optional[Any]:
    """The plan of `fcall(g, NoTangent, args, dargs)` for g guarded_fcall or stop_fcall (forward code of forward
    code, differentiated once more), or None."""
    from .nested_plans import _api, _dense_keep, _plain_plan

    n = len(args)
    fn = {(guarded_fcall, 6): guarded_fcall_fwd, (stop_fcall, 4): stop_fcall_fwd}.get((f, n))
    if fn is None:
        return None
    dargs = _api()._expand(dargs, n)
    dargs = tuple(_api()._expand(d, len(a)) if isinstance(a, tuple) else d for a, d in zip(args, dargs))
    return _plain_plan(fn, (*args, *_dense_keep(dargs, args)), n)


def _defs() -> None:
    from .forward_code_rules import user_rule

    user_rule(guarded_fcall, _frule, _rrule)
    user_rule(stop_fcall, _stop_frule, _stop_rrule)


_defs()
