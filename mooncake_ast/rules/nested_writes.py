"""An inner derivative call (mc.grad, mc.value_and_grad, mc.jacfwd, mc.jacrev, mc.hessian, mc.hvp, mc.vjp) inside a
function differentiated again, whose own function writes to its arguments (`y *= 2.0`): refused by name.

The plain call leaves the argument updated (the inner API applies f's effect once, as DESIGN §2 says), so the outer
derivative must see the updated value's dependence on the input (`w = z * 1.0; mc.grad(g)(w); return sum(w * z)`
with g doubling w: d/dz = 4z).  The rules of these calls give the tangent or adjoint of their result only: the
argument's tangent stayed that of the value on entry (3z), or, over mc.vjp whose pullback puts the post-call state
back, was updated twice (8z).  Forward mode follows the update (`follow_update`: the tangents updated by a jvp of f,
as value_and_grad's forward rule did already); reverse mode over such a call, and forward mode over mc.vjp, are
refused once the written value is read after the call (guard_pullback); mc.jvp and plain calls inside are
differentiated right and stay supported."""
from __future__ import annotations

import collections
from typing import Any

import numpy as np

from ..reverse import shadows
from ..tangents import NoTangent


def entry_state(args: tuple) -> list:
    """What the arguments hold now (shadows.snapshot: per object, one level deep), to compare after the call."""
    return shadows.snapshot(tuple(args))


def _same(x: Any, s: Any) -> bool:
    if s is _CHANGED:
        return False
    if isinstance(x, np.ndarray):
        return x.shape == s.shape and np.array_equal(x, s, equal_nan=x.dtype.kind in "fc")
    if isinstance(x, (list, collections.deque)):
        return len(x) == len(s) and all(a is b for a, b in zip(x, s))
    if isinstance(x, dict):
        return x.keys() == s.keys() and all(x[k] is s[k] for k in x)
    now = shadows.state_of(x)
    if isinstance(now, dict) and isinstance(s, dict):
        return now.keys() == s.keys() and all(now[k] is s[k] for k in now)
    return True


def written(entry: list) -> bool:
    return not all(_same(x, s) for x, s in entry)


def guard_pullback(api: str, fn: Any, entry: list, pullback: Any) -> Any:
    """Reverse mode over the call: where it wrote an argument, a pullback that refuses once the written value was
    read after the call (its adjoint storage holds an adjoint from those reads: the update's own derivative would
    have to carry it back, which these rules do not do).  An argument written and never read again (`mc.grad(f)
    (y.copy())`) is right as it is."""
    objs = [x for x, s in entry if not _same(x, s)]
    if not objs:
        return pullback

    def guarded(w: Any) -> Any:
        for x in objs:
            if not shadows._has_shadow(x):
                continue
            sh = shadows.shadow(x)
            if not isinstance(sh, np.ndarray) or np.any(sh != 0):
                refuse_if_written(api, fn, [(x, _CHANGED)])
        return pullback(w)

    return guarded


_CHANGED = object()  # (a state no object has: refuse_if_written then refuses)


def follow_update(fn: Any, args: tuple, dargs: tuple, entry: list) -> None:
    """Forward mode over an inner derivative call whose function wrote its arguments: the arguments' tangents
    updated in place as the plain call updated the arguments (a jvp of fn from the entry state with those very
    tangents, as forward code updates a written argument's tangent), the arguments left as the call left them."""
    from ..api import _jvp
    from .api_rules import constant_callable

    post = shadows.snapshot(tuple(args))
    shadows.reapply(entry)
    try:
        with constant_callable(fn):
            _, _, after, _ = _jvp(fn, tuple(args), tuple(None if d is NoTangent else d for d in dargs), {}, {})
    finally:
        shadows.reapply(post)
    for d, new in zip(dargs, after):
        if type(d) is np.ndarray and d is not new:
            if not (isinstance(new, np.ndarray) and new.shape == d.shape):
                from .api_rules import NestingError

                raise NestingError("nested derivative of an inner derivative call whose function writes to its "
                                   "argument: the argument's tangent after the update could not be given back")
            d[...] = new


def refuse_if_written(api: str, fn: Any, entry: list) -> None:
    """NestingError where the call just made changed what its arguments hold (see the module's doc)."""
    for x, s in entry:
        if not _same(x, s):
            from .api_rules import NestingError, _name

            if getattr(fn, "__module__", "").startswith("mooncake_ast"):
                fn = "the function it is given"  # (a derivative's own helper: the user's function is inside it)
            else:
                fn = _name(fn)
            raise NestingError(
                f"nested derivative of mc.{api}({fn}): {fn} writes to its argument (an in-place update such as "
                f"`y *= 2.0`), and this derivative of a function calling mc.{api} does not follow that update yet; let "
                f"the function work on a copy (`y = y * 2.0`, or `y = y.copy()` first) and apply the update outside "
                f"the inner call, or take the outer derivative with mc.jvp / mc.jacfwd")
