"""The rules of `mc.jvp(f, ...)` and of `grad(f)(*args)` / `value_and_grad(f)(*args)` called inside differentiated
code (split from api_rules.py, which registers them): jvp is reverse or forward mode over f's forward code (api_rules'
_rev_fcall, _fwd_fcall), and a gradient's tangent and adjoint are gradients of directional derivatives (api_rules'
docstring), computed by hvp_core (looked up on api_rules when called, so a test's spy on it sees the call).
"""
from __future__ import annotations

import types
from typing import Any

import numpy as np

from ..api import TangentError, _Converter, _reapply, _snapshot
from .. import aliases, argument_overlap, held_state
from .nested_writes import entry_state, follow_update, guard_pullback, written
from ..forward.objects import is_user_object
from ..reverse.adjoints import AdjTuple, accumulate
from ..tangents import NoTangent, materialize
from . import api_rules as _api
from .api_rules import (NestingError, _TRACED, _dense, _expand, _fwd_fcall, _plain_floats, _refuse_traced_captures,
                        _rev_fcall, _zero, constant_callable)
from .nested_cells import owned_cells
from .nested_closures import cotangent_directions
from .nested_api_plans import value_and_grad_jvp as _value_and_grad_jvp


def _jvp_rrule(f: Any, primals: tuple, tangents: tuple) -> tuple:
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple) or len(primals) != len(tangents):
        raise TangentError("jvp(f, primals, tangents): primals and tangents must be tuples of one length")
    conv = _Converter("tangent", "jvp", symbolic_top=True)
    dargs = tuple(conv(t, p, f"argument {i}", top=True) for i, (p, t) in enumerate(zip(primals, tangents)))
    (y, dy), pb = _rev_fcall(f, NoTangent, primals, dargs)
    out = (y, materialize(dy, y))

    def pullback(g: Any) -> tuple:
        f_bar, a_bar, d_bar = pb(g)[:3]
        return f_bar, a_bar, AdjTuple(_copy_adjoints(tangents, dargs, d_bar))

    return out, pullback


def _copy_adjoints(tangents: tuple, dargs: tuple, d_bar: Any) -> tuple:
    """The adjoints of the user's tangents from those of dargs, the fresh copies mc.jvp gives f (api_checks._Converter):
    where f's pullback kept a copy's adjoint in its storage (by identity: an array f's forward code may write, as
    forward code of a function with nested functions may), that storage is the adjoint; it was dropped, so grad of
    `jvp(f, (x,), (v(x),))[1]` missed every term through the direction v for such f."""
    from ..reverse.shadows import full_adjoint
    from ..tangents import is_mutable

    bars = _expand(d_bar, len(dargs))
    return tuple(full_adjoint(d, b) if d is not t and is_mutable(d) else b for t, d, b in zip(tangents, dargs, bars))


def _jvp_frule(p: tuple, t: tuple) -> tuple:
    f, primals, tangents = p
    tf, tprimals, ttangents = t
    conv = _Converter("tangent", "jvp", symbolic_top=True)
    dargs = tuple(conv(d, x, f"argument {i}", top=True) for i, (x, d) in enumerate(zip(primals, tangents)))
    n = len(primals)
    # f's forward code writes into its arrays and their tangents in place (`da[2] = ...` where f writes a[2]), so
    # at this order every array it takes needs tangent storage: a symbolic zero there dropped the write (forward
    # over forward of an in-place update was wrong by the dropped term).  The jvp's tangents are fresh copies
    # (conv), so the outer tangents of those copies are fresh storage too, never the caller's.
    tprimals = tuple(_storage_of_array(t, x) for t, x in zip(_expand(tprimals, n), primals))
    dargs = tuple(_storage_of_array(d, x) for d, x in zip(dargs, primals))
    ttangents = tuple(_fresh_storage(t, x) for t, x in zip(_expand(ttangents, n), dargs))
    (y, dy), (ty, tdy) = _fwd_fcall(f, NoTangent, tuple(primals), dargs, tf, NoTangent, tprimals, ttangents)
    return (y, materialize(dy, y)), (materialize(ty, y), materialize(tdy, y))


def _storage_of_array(t: Any, x: Any) -> Any:
    """t, or zero storage where t is a symbolic zero of a float array x (forward code may write into it)."""
    if (t is NoTangent or t is None) and type(x) is np.ndarray and x.dtype.kind in "fc":
        return np.zeros_like(x)
    return t


def _fresh_storage(t: Any, x: Any) -> Any:
    """The tangent of x, a fresh copy of a value whose tangent is t: for float arrays (also inside lists and tuples),
    fresh storage holding t; other tangents as they are."""
    if type(x) is np.ndarray and x.dtype.kind in "fc":
        return np.zeros_like(x) if t is NoTangent or t is None else np.array(materialize(t, x), dtype=x.dtype)
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        parts = list(t) if isinstance(t, (list, tuple)) and len(t) == len(x) else [NoTangent] * len(x)
        out = [_fresh_storage(p, v) for p, v in zip(parts, x)]
        if all(o is NoTangent for o in out) and not isinstance(t, (list, tuple)):
            return t
        return out if isinstance(x, list) else tuple(out)
    return t


def _constant_keywords_bound(g: Any, kwargs: dict, dkwargs: Any, args: tuple) -> Any:
    """`mc.grad(f)(x, scale=s)` inside differentiated code: where no keyword is differentiated (each tangent a symbolic
    zero in forward mode; in reverse mode, where adjoints are not known to be unneeded, only values with no derivative:
    strings, ints, bools, None), g with the keywords bound to f as constants (keyword_binding.py), else a refusal."""
    from ..keyword_binding import bind_keywords

    if dkwargs is None:  # (reverse mode)
        moved = [k for k, v in kwargs.items() if not (v is None or isinstance(v, (str, bool, int, np.integer)))]
    else:
        moved = [k for k, v in kwargs.items() if not _zero(dkwargs.get(k, NoTangent) if isinstance(dkwargs, dict)
                                                           else dkwargs)]
    if moved:
        why = "reverse mode cannot tell it is a constant" if dkwargs is None else "it depends on the differentiated inputs"
        raise NestingError(f"nested derivative of {g!r}: keyword argument(s) {', '.join(moved)} given a number or an "
                           f"array ({why}); keywords given to a nested gradient are passed as constants only: pass the "
                           f"value positionally, or bind it first with functools.partial(f, name=value)")
    if g in _TRACED:  # (made inside differentiated code: in reverse mode, what f captures is refused as _rev_fcall does)
        if dkwargs is None:
            _refuse_traced_captures(g)
        bound = bind_keywords(g, kwargs, args)
        _TRACED.add(bound)
        return bound
    return bind_keywords(g, kwargs, args)


def _grad_frule(p: tuple, t: tuple, _mc_dkwargs: Any = None, **kwargs: Any) -> tuple:
    """Forward mode over `mc.grad(f)(*args)` (and value_and_grad's): where f writes its arguments, their tangents
    follow the update (nested_writes.py)."""
    if kwargs and _zero(t[0]):  # (keywords never differentiated: bound to f, see _constant_keywords_bound)
        dkwargs = _mc_dkwargs if _mc_dkwargs is not None else NoTangent
        p = (_constant_keywords_bound(p[0], kwargs, dkwargs, tuple(p[1:])), *p[1:])
        kwargs = {}
    g = p[0]
    entry = entry_state(tuple(p[1:])) if type(g).__name__ == "Grad" and not g.has_aux else None
    # (an argument that is an array f also holds -- `mc.grad(lambda y: sum(y**3) * x[0])(x)` -- as a copy, as
    # the plain call hands it (aliases.py): the captured x and the argument keep their own tangents; the reverse
    # pass over f's forward code mixed their adjoints by identity: jacfwd 6.18 for 5.91)
    args, copied = aliases.unaliased(g.f, tuple(p[1:]))
    if copied is not None:
        p = (g, *args)
    out = _grad_frule_body(p, t, **kwargs)
    aliases.check_unwritten(g._api_name, _api._name(g.f), copied)
    if entry is not None and written(entry):  # (value_and_grad's rule follows the update itself: nested_plans)
        follow_update(g.f, tuple(p[1:]), tuple(t[1:]), entry)
    return out


def _grad_frule_body(p: tuple, t: tuple, **kwargs: Any) -> tuple:
    g, *args = p
    dg, *dargs = t
    if kwargs:
        raise NestingError(f"nested derivative of {g!r}: keyword arguments are not supported nested")
    if type(dg).__name__ == "ClosureTangent" and not kwargs and not g.has_aux:
        from .nested_closures import grad_jvp_closure

        nums, _ = g._nums(len(args))
        return grad_jvp_closure(g, dg, tuple(args), _dense(tuple(dargs), tuple(args)), nums,
                                not isinstance(g.argnums, (tuple, list)), type(g).__name__ == "ValueAndGrad")
    if g.has_aux:  # (its value part's gradient and its aux: nested_aux.py)
        from .nested_aux import aux_frule

        return aux_frule(g, dg, tuple(args), tuple(dargs))
    if not _zero(dg):
        raise NestingError(f"nested derivative of {g!r}: the function given to grad has a nonzero tangent (it captures "
                           f"differentiated variables); pass them as arguments instead")
    nums, _ = g._nums(len(args))
    single = not isinstance(g.argnums, (tuple, list))
    with_value = type(g).__name__ == "ValueAndGrad"
    dargs_d = _dense(tuple(dargs), tuple(args))
    # An object that is neither differentiated here nor moved by the outer derivative keeps the symbolic
    # zero: its fields' tangents are then constants of the nested pass (a dense zero object would be a
    # differentiated object's tangent to generated code, which nesting does not take: `self.W` in a method).
    dargs_d = tuple(NoTangent if i not in nums and is_user_object(a) and _zero(d) else dd
                    for i, (a, d, dd) in enumerate(zip(args, dargs, dargs_d)))
    if with_value:
        return _value_and_grad_jvp(g, tuple(args), dargs_d, nums, single)
    if _plain_floats(tuple(args), nums):
        both = _api.hvp_core(g.f, tuple(args), dargs_d, nums, with_grad=True)
        if both is not None:  # gradient and its tangent from one pass (see hvp_core)
            _, grads, dg = both
            return (grads[0] if single else grads), (dg[0] if single else dg)
    # (f may write its arguments and keep state between calls: its derivative is at the entry state, held_state.py)
    pre = held_state.take(g, tuple(args))
    value = g(*args)
    post = held_state.take(g, tuple(args))
    held_state.put_back(pre)
    try:
        dg = _api.hvp_core(g.f, tuple(args), dargs_d, nums)
    finally:
        held_state.put_back(post)
    return value, (dg[0] if single else dg)


def _grad_rrule(g: Any, *args: Any, **kwargs: Any) -> tuple:
    """Reverse mode over `mc.grad(f)(*args)` (and value_and_grad's): refused where f writes an argument read after
    the call (nested_writes.py)."""
    if kwargs:  # (keywords with no derivative: bound to f, see _constant_keywords_bound)
        g, kwargs = _constant_keywords_bound(g, kwargs, None, args), {}
    entry = entry_state(tuple(args))
    y, pullback = _grad_rrule_body(g, *args, **kwargs)
    return y, guard_pullback(g._api_name, g.f, entry, pullback)


def _grad_rrule_body(g: Any, *args: Any, **kwargs: Any) -> tuple:
    from .. import higher

    if kwargs:
        raise NestingError(f"nested derivative of {g!r}: keyword arguments are not supported nested")
    if g.has_aux:  # (its value part's gradient and its aux: nested_aux.py)
        from .nested_aux import aux_rrule

        return aux_rrule(g, tuple(args))
    if g in _TRACED and isinstance(g.f, types.FunctionType) and owned_cells(g.f):
        from .nested_closures import grad_rrule_closure, owns_differentiable

        if owns_differentiable(g.f):  # (a closure over values this computation differentiates: nested_closures.py)
            return grad_rrule_closure(g, args)
    _refuse_traced_captures(g)
    nums, _ = g._nums(len(args))
    single = not isinstance(g.argnums, (tuple, list))
    with_value = type(g).__name__ == "ValueAndGrad"
    pre = _snapshot(tuple(args))  # (f may write its arguments: the pullback differentiates at their entry values)
    held_pre = held_state.take_held(g)  # (and keep state between calls: held_state.py)
    y = g(*args)
    held_post = held_state.take_held(g) if held_pre is not None else None
    n = len(args)

    def pullback(w: Any) -> tuple:
        if w is NoTangent:
            return (NoTangent, *([NoTangent] * n))
        # As a reverse pass leaves what it undid: the arguments in their state on entry (the API puts the
        # post-call state back), also after the differentiation here, which runs f again; the state f keeps
        # elsewhere as the one call left it (the API does not see it).
        held_state.put_back(held_pre)
        _reapply(pre)
        try:
            return _grad_pullback(w)
        finally:
            held_state.put_back(held_post)
            _reapply(pre)

    def _grad_pullback(w: Any) -> tuple:
        w_val, dirs = cotangent_directions(w, with_value, single, nums, n)
        dirs_d = _dense(tuple(dirs), tuple(args))
        same = argument_overlap.sharing(tuple(args), nums)
        if same:  # (one object passed in several places has one direction: argument_overlap.py)
            dirs_d = tuple(next((dirs_d[i] for i in nums if args[i] is args[k]), d) if k in same else d
                           for k, d in enumerate(dirs_d))
            groups = argument_overlap.views_of_one_memory(tuple(args))
            if groups:  # (views of one memory: their directions views of one buffer)
                dirs_d = tuple(argument_overlap.tie(tuple(args), list(dirs_d), groups, add=True))
        # adjoint of the gradient part: grad_a <grad f(a), w> = grad_a Df(a)[w], a separate differentiation
        # (its own adjoint storage: Grad.__call__ opens a fresh context)
        try:
            with constant_callable(g.f):  # made outside differentiated code, or refused above if it captures values
                bars = list(_expand(higher._GRAD_DIRECTIONAL(g.f, tuple(args), dirs_d), n))
        except TangentError as e:
            if "same object" not in str(e):
                raise
            # (an argument outside argnums that is the same object as, or inside, a differentiated one: the direction
            # given to that object in one place and not the other has no meaning; one object has one tangent)
            raise NestingError(f"nested derivative of {g!r}: reverse mode over this gradient, whose argument outside "
                               f"argnums is the same object as a differentiated one (`grad(g, argnums=2)(f, x, (x,))`), "
                               f"is not supported; pass a copy to one of the two places, or differentiate with "
                               f"respect to both") from e
        if with_value and w_val is not NoTangent and w_val is not None:
            grads = higher._GRAD_APPLY(g.f, tuple(args))
            bars = [accumulate(a, _scaled(w_val, b)) for a, b in zip(bars, grads)]
        return (NoTangent, *bars)

    return y, pullback


def _scaled(w: Any, t: Any) -> Any:
    """w * t for a tree t of numbers and arrays (tuples, lists, dicts)."""
    if isinstance(t, tuple):
        return tuple(_scaled(w, v) for v in t)
    if isinstance(t, list):
        return [_scaled(w, v) for v in t]
    if isinstance(t, dict):
        return {k: _scaled(w, v) for k, v in t.items()}
    if t is NoTangent or t is None:
        return NoTangent
    return w * t


_grad_frule.sees_keyword_tangents = True  # type: ignore[attr-defined]  (forward/runtime.fcall hands them)
