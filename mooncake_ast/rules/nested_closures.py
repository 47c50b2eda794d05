"""Nested derivatives of closures over differentiated values: `k = 3 * x; mc.grad(lambda s: sin(s * k))(x)` inside a
function differentiated again.  The derivative then runs through what the closure captures as well as through its
arguments.

* Reverse mode (the closure made by the reverse computation now running): the adjoint of `grad(f)(a)` for a
  cotangent w (and w0 of a value) is the adjoint of `w0 f(a) + Df(a)[w]`, one reverse pass over f's forward code in
  this computation's context; the captured values' adjoints go into their cells' storage, which the pullback of the
  code that made the closure reads (nested_cells.owned_cells says when that is so; elsewhere it stays refused).
* Forward mode: mc.grad / mc.value_and_grad of a closure whose tangent is nonzero give a gradient object whose tangent
  is `ClosureTangent(tf)`; the tangent of `grad(f)(a)` in direction da is then `grad_a Df(a)[da, tf]`, reverse mode
  over f's forward code called with the closure's tangent tf (the captured values' tangents, constants of that pass),
  and its gradient the adjoint of the tangent input, from the same pass.
"""
from __future__ import annotations

import types
from typing import Any

import numpy as np

from ..api import _reapply, _snapshot, _to_user
from ..reverse import shadows as _shadows
from ..reverse.adjoints import AdjTuple
from ..reverse.runtime import may_write, rcall
from ..tangents import FunctionTangent, NoTangent
from .forward_code_rules import NestingError, _expand, _name, _zero


def owns_differentiable(f: Any, _seen: Any = None) -> bool:
    """Does the plain function f capture a value that may be differentiated in a cell that the reverse computation now
    running made -- itself, or through a function it captures (`def f(s): return h(s) * s` where h captures k)?"""
    from ..api import _nondifferentiable

    seen = set() if _seen is None else _seen
    if id(f) in seen:
        return False
    seen.add(id(f))
    stack = getattr(_shadows._local, "stack", None)
    if not stack:
        return False
    shadows = stack[-1].shadows
    for cell in getattr(f, "__closure__", None) or ():
        try:
            v = cell.cell_contents
        except ValueError:
            continue
        if isinstance(v, types.FunctionType):
            if owns_differentiable(v, seen):
                return True
        elif not _nondifferentiable(v) and not isinstance(v, types.ModuleType) and not callable(v):
            found = shadows.get(id(cell))
            if found is not None and found[0] is cell:
                return True
    return False


class ClosureTangent:
    """The tangent of `mc.grad(f)` / `mc.value_and_grad(f)` made, in differentiated code, of a closure f whose
    captured values have tangents: f's own tangent `tf` (a FunctionTangent)."""

    __slots__ = ("tf",)

    def __init__(self, tf: Any) -> None:
        self.tf = tf

    def __repr__(self) -> str:
        return f"ClosureTangent({self.tf!r})"


def closure_factory_tangent(factory: Any, p: tuple, t: tuple, kwargs: dict) -> Any:
    """The tangent of `factory(*p, **kwargs)` (mc.grad, mc.value_and_grad) whose function p[0] has the nonzero
    tangent t[0], or None where it is not a plain closure whose captured values forward mode can carry."""
    from .. import api

    if factory not in (api.grad, api.value_and_grad) or not isinstance(p[0], types.FunctionType):
        return None
    if not isinstance(t[0], FunctionTangent) or kwargs.get("has_aux") or any(not _zero(x) for x in t[1:]):
        return None
    tf = t[0]
    if any(not _zero(d) for d in tf.defaults) or any(not _zero(d) for d in tf.kwdefaults.values()):
        return None
    return ClosureTangent(tf)


def grad_jvp_closure(g: Any, tg: ClosureTangent, args: tuple, dargs: tuple, nums: tuple, single: bool,
                     with_value: bool) -> tuple:
    """(grad f(args), its tangent) -- ((value, grad), their tangents) with `with_value` -- for `g = grad(f)` whose
    f captures values with tangents tg.tf, in direction dargs: one reverse pass over f's forward code called with
    (args, dargs, tf), seeded on the tangent output (see the module's docstring)."""
    from .api_rules import _plan, _prepare_all_cells, _real_scalar, constant_callable, refuse_hessian_result

    f = g.f
    n = len(args)
    dargs = tuple(d.copy() if type(d) is np.ndarray else d for d in dargs)  # (f's forward code may write them)
    pre = _snapshot(tuple(args))
    ctx = _shadows.Context()
    with ctx, constant_callable(f):  # (f's captured values are constants of this pass; their tangents are tf's)
        plan = _plan(f, NoTangent, tuple(args), dargs)
        if plan.layout is None or not plan.layout[0] or plan.arg_pos is None:
            raise NestingError(f"nested derivative of {g!r}: forward mode over the gradient of {_name(f)}, whose "
                               f"captured variables are differentiated, is not supported for this call; pass them "
                               f"as arguments")
        call_args = (plan.call_args[0], tg.tf, *plan.call_args[2:])
        wrt = frozenset(plan.arg_pos[i] for i in nums) | frozenset(plan.tan_pos[i] for i in nums)
        _prepare_all_cells(call_args)
        (y, dy), pb = rcall(plan.fn, call_args, {}, wrt=wrt)
        writes = may_write(pb)
        if not _real_scalar(y):
            refuse_hessian_result(f, y, dy)
        if dy is NoTangent or dy is None:
            dy = 0.0
        if not isinstance(dy, (float, np.floating, np.ndarray)) or np.ndim(dy) != 0:
            refuse_hessian_result(f, y, dy)
        post = _snapshot(tuple(args)) if writes else None
        _, bars, _ = pb(AdjTuple((NoTangent, 1.0)))
        tangents = tuple(_to_user(_shadows.full_adjoint(args[i], bars[plan.arg_pos[i]]), args[i]) for i in nums)
        grads = tuple(_to_user(_shadows.full_adjoint(call_args[plan.tan_pos[i]], bars[plan.tan_pos[i]]), args[i])
                      for i in nums)
    if post is not None:
        _shadows.put_back(post, ctx)
    else:
        _reapply(pre)
    grad = grads[0] if single else grads
    dgrad = tangents[0] if single else tangents
    if with_value:
        return (y, grad), (dy, dgrad)
    return grad, dgrad


def cotangent_directions(w: Any, with_value: bool, single: bool, nums: tuple, n: int) -> tuple:
    """(w0, dirs) of a cotangent w of `grad(f)(*args)` (`(w0, w)` for value_and_grad): the value's part, and the
    gradient's parts spread over the n arguments (NoTangent where argnums does not reach)."""
    w_grad = w[1] if with_value else w
    w_val = w[0] if with_value else NoTangent
    parts = (w_grad,) if single else tuple(_expand(w_grad, len(nums)))
    dirs = [NoTangent] * n
    for i, wi in zip(nums, parts):
        dirs[i] = wi
    return w_val, dirs


def grad_rrule_closure(g: Any, args: tuple) -> tuple:
    """Reverse rule of `grad(f)(*args)` / `value_and_grad(f)(*args)` for a closure f made by the reverse computation
    now running, over values it differentiates: the adjoint for a cotangent w of the gradient (and w0 of the value) is
    that of `w0 f(a) + Df(a)[w]`, with respect to the arguments and to what f captures alike, one reverse pass over
    f's forward code in this computation's context, seeded (w0, 1) (see the module's docstring)."""
    from .api_rules import _dense, _rev_fcall

    nums, _ = g._nums(len(args))
    single = not isinstance(g.argnums, (tuple, list))
    with_value = type(g).__name__ == "ValueAndGrad"
    n = len(args)
    pre = _snapshot(tuple(args))
    y = g(*args)

    def pullback(w: Any) -> tuple:
        if w is NoTangent:
            return (NoTangent, *([NoTangent] * n))
        w_val, dirs = cotangent_directions(w, with_value, single, nums, n)
        # (f runs again here, from the arguments' values on entry; they are left so, as a reverse pass leaves what
        # it undid)
        _reapply(pre)
        try:
            (_, dy), pb = _rev_fcall(g.f, NoTangent, tuple(args), _dense(tuple(dirs), tuple(args)))
            if not isinstance(dy, (float, np.floating, np.ndarray)) or np.ndim(dy) != 0:
                raise NestingError(f"nested derivative of {g!r}: the directional derivative of its function is not "
                                   f"a real scalar")
            _, a_bar, _, _ = pb(AdjTuple((NoTangent if w_val is None else w_val, 1.0)))
        finally:
            _reapply(pre)
        return (NoTangent, *_expand(a_bar, n))

    return y, pullback


def closure_forward_plan(f: Any, df: FunctionTangent, rule: Any, primals: tuple, tangents: tuple, n: int) -> Any:
    """Forward mode over the forward code of a closure whose tangent df is nonzero (what it captures depends on the
    inputs: `k = 3 * x; def inner(t): return t * k`, made and called by forward code differentiated again): the forward
    code takes (f, df) first, and their tangents (tf: the tangent cells of f's captured values, tdf: those of df's)
    come in through `outer` (takes_df), so the second-order tangents of the captured values reach the code that reads
    them (`_mc.cell_tangent(dinner, 0)`, forward_code_rules).

    Reverse mode over it (a third order through this call: `grad(grad(grad(f)))`) maps the adjoints of the call's
    arguments back by position; those of what f, df, tf and tdf capture go into their cells' adjoint storage, read by
    the pullback of the code that made the cells -- right only where that code is the reverse computation now running
    (nested_cells.owned_tangent, checked when the adjoints are asked for, and for tf and tdf by `check_tangents`);
    anywhere else it is refused, never given a dropped adjoint of what f captures."""
    from .api_rules import _Plan

    m = len(primals)
    pad = (NoTangent,) * (m - n)

    def refuse() -> None:
        raise NestingError(f"nested derivative of {_name(f)}: reverse mode over forward mode over a closure whose "
                           f"captured variables are differentiated is not supported here (the closure was made "
                           f"outside the reverse computation now running); pass them as arguments")

    def split(b: Any) -> tuple:
        if not owned_function(f, df):
            refuse()
        b = _expand(b, 2 + 2 * m)
        return NoTangent, tuple(b[2:2 + n]), tuple(b[2 + m:2 + m + n])

    def df_bar(b: Any) -> Any:
        if not owned_function(f, df):
            refuse()
        return NoTangent

    def check_tangents(tf: Any, tdf: Any) -> None:
        if not all(_zero(t) or owned_function(None, t) for t in (tf, tdf)):
            refuse()

    def outer(tf: Any, targs: tuple, tdargs: tuple, tdf: Any = NoTangent) -> tuple:
        return (tf, tdf, *targs, *pad, *tdargs, *pad)

    plan = _Plan(rule.fn, (f, df, *primals, *tangents), split, outer)
    plan.takes_df = True
    plan.df_bar = df_bar
    plan.check_tangents = check_tangents
    plan.arg_pos = list(range(2, 2 + n))
    plan.tan_pos = list(range(2 + m, 2 + m + n))
    return plan


def owned_function(f: Any, t: Any, defaults_too: bool = True) -> bool:
    """Are f's cells (f a closure, or None) and those of the closure's tangent t (a FunctionTangent, or the
    MutableTangent forward mode makes of one) all the reverse computation's now running (nested_cells.owned_tangent)?"""
    from .nested_cells import as_function_tangent, owned_cells

    t = as_function_tangent(t)
    if f is not None and not owned_cells(f, defaults_too):
        return False
    if _zero(t):
        return True
    if not isinstance(t, FunctionTangent) or type(t.cells) is not tuple:
        return False
    if any(not _zero(d) for d in t.defaults) or any(not _zero(d) for d in t.kwdefaults.values()):
        return False
    stack = getattr(_shadows._local, "stack", None)
    if not stack:
        return False
    shadows = stack[-1].shadows
    for cell in t.cells:
        if cell is None:
            continue
        try:
            cell.cell_contents
        except ValueError:
            continue
        found = shadows.get(id(cell))
        if found is None or found[0] is not cell:
            return False
    return True
