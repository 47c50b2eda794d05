"""Nested derivatives of gradients taken with has_aux=True (`jacfwd(grad(f, has_aux=True), has_aux=True)`,
`mc.hessian(f, has_aux=True)`, `jvp(grad(f, has_aux=True), ...)`).

`grad(f, has_aux=True)(x)` is `(grad(fv)(x), fa(x))` with fv, fa the two parts of f's pair (higher_traced.value_of,
aux_of): its tangent and adjoint are those of the gradient of fv (the rules of a gradient without aux) and of fa (an
ordinary function), as in JAX, whose outer transformations differentiate the aux too.  f runs once more for the aux;
each part is taken at the arguments' values on entry (f may write them), and the arguments are left as the plain call
leaves them.
"""
from __future__ import annotations

import weakref
from typing import Any

from ..api import _reapply, _snapshot
from .. import held_state
from ..reverse.adjoints import accumulate
from ..tangents import NoTangent
from .api_rules import NestingError, _TRACED, _expand, _Plan, _refuse_captures, _zero

_PARTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def parts(g: Any, n: int) -> tuple:
    """(the gradient object of f's value part with g's argnums, f's aux part) for a call with n arguments, the same
    objects for one g (their derivatives are cached by identity)."""
    from ..higher_traced import aux_of, value_of

    by_count = _PARTS.get(g)
    if by_count is None:
        by_count = _PARTS[g] = {}
    known = by_count.get(n)
    if known is None:
        known = by_count[n] = (type(g)(value_of(g.f, n), g.argnums), aux_of(g.f))
    return known


def _refuse_nonzero(g: Any, dg: Any) -> None:
    if not _zero(dg):
        raise NestingError(f"nested derivative of {g!r} with has_aux=True: the function given to grad has a nonzero "
                           f"tangent (it captures differentiated variables); pass them as arguments instead")


def _join(g: Any, grads_part: Any, aux: Any) -> Any:
    """The result of g (has_aux) from the result of its value part's gradient object and the aux."""
    if type(g).__name__ == "ValueAndGrad":
        value, grads = grads_part
        return (value, aux), grads
    return grads_part, aux


def _parts_of_cotangent(g: Any, w: Any) -> tuple:
    """(the cotangent of the value part's gradient object's result, the aux's) from g's result's cotangent w."""
    if w is NoTangent or w is None:
        return NoTangent, NoTangent
    if type(g).__name__ == "ValueAndGrad":
        (w_value_aux, w_grads) = _expand(w, 2)
        w_value, w_aux = _expand(w_value_aux, 2)
        return (w_value, w_grads), w_aux
    w_grads, w_aux = _expand(w, 2)
    return w_grads, w_aux


def aux_frule(g: Any, dg: Any, args: tuple, dargs: tuple) -> tuple:
    from ..forward.runtime import fcall
    from ..higher_traced import fresh_arrays
    from .nested_api_calls import _grad_frule

    _refuse_nonzero(g, dg)
    gv, fa = parts(g, len(args))
    pre = held_state.take(g, args)  # (the entry state, also what f keeps between calls: held_state.py)
    y = g(*args)  # (the user's call: its aux is the one f gave then)
    post = held_state.take(g, args)
    held_state.put_back(pre)
    try:
        # (the aux first, on copies of the arguments and their tangents: the gradient's forward code writes into the
        # tangents where f writes its arguments, so the aux's tangent of `x[0] = x[0] * x[2]; return ..., x[0]` after
        # value_and_grad's was from the written tangent)
        _, daux = fcall(fa, NoTangent, fresh_arrays(args), fresh_arrays(dargs))
        held_state.put_back(pre)
        _, dgrads = _grad_frule((gv, *args), (NoTangent, *dargs))
    finally:
        held_state.put_back(post)
    if type(g).__name__ == "ValueAndGrad":
        dvalue, dg_ = dgrads
        return y, ((dvalue, daux), dg_)
    return y, (dgrads, daux)


def aux_rrule(g: Any, args: tuple) -> tuple:
    from ..api import _vjp
    from .nested_api_calls import _grad_rrule

    if g in _TRACED:  # made inside differentiated code: what f captures would get no adjoint here (as _grad_rrule)
        _refuse_captures(g.f, repr(g))
    gv, fa = parts(g, len(args))
    pre = _snapshot(args)
    y = g(*args)
    n = len(args)

    def pullback(w: Any) -> tuple:
        w_grads, w_aux = _parts_of_cotangent(g, w)
        # (as a reverse pass leaves what it undid, the arguments end in their state on entry, as _grad_rrule's
        # pullback leaves them: a reusable pullback (jacrev) runs the forward pass again from there; left as they
        # were found, the next row of jacrev(grad(f, has_aux=True)) of an f writing its argument was at the
        # written values)
        _reapply(pre)
        try:
            _, pb = _grad_rrule(gv, *args)
            bars = list(_expand(pb(w_grads)[1:], n)) if w_grads is not NoTangent else [NoTangent] * n
            if not _zero(w_aux):
                _reapply(pre)
                _, apb = _vjp(fa, args, {}, api="grad")
                abars, _ = apb(w_aux)
                bars = [accumulate(b, a) for b, a in zip(bars, _expand(abars, n))]
        finally:
            _reapply(pre)
        return (NoTangent, *bars)

    return y, pullback


def aux_plan(g: Any, args: tuple, dargs: tuple) -> _Plan:
    """The plan of a call of g (has_aux) inside forward code differentiated again: higher_traced.grad_aux_call_jvp."""
    from .. import higher_traced
    from .api_rules import _dense

    gv, fa = parts(g, len(args))
    nums, _ = g._nums(len(args))
    single = not isinstance(g.argnums, (tuple, list))
    with_value = type(g).__name__ == "ValueAndGrad"
    n = len(args)
    return _Plan(higher_traced.grad_aux_call_jvp, (gv.f, fa, nums, single, with_value, tuple(args), _dense(dargs, args)),
                 lambda b: (NoTangent, tuple(_expand(b[5], n)), tuple(_expand(b[6], n))),
                 lambda tf, targs, tdargs: (NoTangent, NoTangent, NoTangent, NoTangent, NoTangent, targs, tdargs),
                 grad_of=g)
