"""Helpers of the API's own rules for calls nested in differentiated code (api_rules, nested_api_calls,
nested_fcall_rules): does a callable's tangent travel on, the plan of fcall of fcall for a callable with tangents
of its own, the refusals of NotImplemented and of differentiated keywords, and value_and_grad's jvp.

They sit above nested_plan_kit and beside nested_plans (whose dispatcher never calls them), so that the rules
reach them without the dispatcher.
"""
from __future__ import annotations

from typing import Any

from ..reverse.caller_state import reapply, snapshot
from ..tangents import MethodTangent, MutableTangent, NoTangent
from .nested_plan_kit import _api, _dense_keep


def carries(t: Any) -> bool:
    """Is t a callable's tangent to pass on: nonzero, or an object's tangent storage (zero now, written later)?"""
    return not _api()._zero(t) or isinstance(t, (MethodTangent, MutableTangent))



def fcall_df_plan(f: Any, df: Any, fargs: Any, fdargs: Any, tf: Any, tdf: Any, tfargs: Any, tfdargs: Any,
                  n_rest: int, kwargs: Any = None) -> Any:
    """fcall of fcall for a callable with tangents of its own (a method of a differentiated object, a callable
    object): `higher.forward_of_fcall`, whose plan takes the callable's tangent df and its tangent tf (and the call's
    keywords, never differentiated: an array method's axis)."""
    from .. import higher

    api = _api()
    fargs = tuple(fargs)
    n = len(fargs)
    call = (f, df, fargs, _dense_keep(api._expand(fdargs, n), fargs), tf, tdf,
            _dense_keep(api._expand(tfargs, n), fargs), _dense_keep(api._expand(tfdargs, n), fargs), kwargs or None)
    rest = (NoTangent,) * n_rest
    plan = api._Plan(higher.forward_of_fcall, call,
                     lambda b: (NoTangent, (b[0], b[1], b[2], b[3]) + rest, (b[4], b[5], b[6], b[7]) + rest),
                     lambda t_f, targs, tdargs: (*targs[:4], *tdargs[:4], NoTangent))
    plan.inactive = frozenset({8})  # (the keywords: constants)
    return plan



def refuse_not_implemented(f: Any, out: Any) -> None:
    """An operator's user method that said NotImplemented (Python would try the other operand's): not followed."""
    if isinstance(out, tuple) and out and out[0] is NotImplemented:
        api = _api()
        raise api.NestingError(f"nested derivative of {api._name(f)}: an operator method returned NotImplemented; "
                               f"the reflected method Python tries next is not followed at this order")



def refuse_tangent_keywords(f: Any, kwargs: Any, dkwargs: Any) -> None:
    """Keyword arguments reach a nested call only undifferentiated (`x.sum(axis=0)`)."""
    api = _api()
    if kwargs and dkwargs not in (None, NoTangent) and not all(api._zero(d) for d in dict(dkwargs).values()):
        raise api.NestingError(f"nested derivative of {api._name(f)}: differentiated keyword arguments are not "
                               f"supported nested")



def value_and_grad_jvp(g: Any, args: tuple, dargs: tuple, nums: tuple, single: bool) -> tuple:
    """`((value, grad), (its tangent, grad's tangent))` of a value_and_grad object at args in direction dargs: the
    call itself, then the value's tangent (a jvp of f) and the gradient's (hvp_core), each from the arguments'
    state on entry (f may write its arguments; they are left as the plain call leaves them)."""
    from ..api import jvp

    api = _api()
    pre = snapshot(args)
    value, grad = g(*args)
    post = snapshot(args)
    try:
        reapply(pre)
        with api.constant_callable(g.f):  # its tangent is zero (checked): what it captures is constant here
            dvalue = jvp(g.f, args, tuple(None if d is NoTangent else d for d in dargs))[1]
        reapply(pre)
        dg = api.hvp_core(g.f, args, dargs, nums)
    finally:
        reapply(post)
    return (value, grad), (dvalue, dg[0] if single else dg)
