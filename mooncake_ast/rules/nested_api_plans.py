"""Plans of calls of the API itself nested in differentiated code, and the helpers of the API's own rules
(api_rules, nested_api_calls, nested_fcall_rules): fcall of `jvp`, of `fcall` and of a gradient object, does a
callable's tangent travel on, the plan of fcall of fcall for a callable with tangents of its own, the refusals of
NotImplemented and of differentiated keywords, and value_and_grad's jvp.

They sit above nested_plan_kit and beside nested_plans (whose dispatcher never calls them), below api_rules, whose
planner `_plan` hands these calls here.
"""
from __future__ import annotations

from typing import Any

from ..reverse.caller_state import reapply, snapshot
from ..tangents import MethodTangent, MutableTangent, NoTangent
from . import nested_out as _nested_out, nested_replace as _nested_replace
from .forward_code_rules import NestingError, _expand, _name, _zero
from .nested_calls import _fcall_keywords_plan, _keywords_positional
from .nested_helpers import is_array_method as _is_array_method
from .nested_plan_kit import _Plan, _api, _dense, _dense_keep


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


# ---------------------------------------------------------------- plans of calls of jvp, fcall and gradient objects


def _jvp_plan(args: tuple, dargs: tuple, fresh: bool = True) -> _Plan:
    """fcall of `jvp` itself (forward code of a function that calls mc.jvp): `higher.forward_of_jvp`, which gives f
    fresh copies of the tangents as mc.jvp does (f's forward code writes into them where f writes into its arguments,
    and wrote into the caller's tangent array: `v` of `mc.jvp(f, (w,), (v,))` nested); `fresh=False` for fcall of
    fcall, whose callee writes through its tangents into the caller's (`higher.forward_of_forward`)."""
    from .. import higher

    f, fargs, fdargs = args
    tf, tfargs, tfdargs = dargs
    if not _zero(tf):
        raise NestingError(f"nested derivative of jvp({_name(f)}, ...): the function has a nonzero tangent (it captures "
                           f"differentiated variables); pass them as arguments instead")
    fargs = tuple(fargs)
    n = len(fargs)
    call = (f, fargs, _dense_keep(_expand(fdargs, n), fargs), _dense_keep(_expand(tfargs, n), fargs),
            _dense_keep(_expand(tfdargs, n), fargs))
    def outer(tf: Any, targs: Any, tdargs: Any) -> tuple:
        # per item, never a bare NoTangent for a whole tuple: forward_of_forward concatenates these tuples, and the
        # tangent of a concatenation with a constant tuple (jvp's `(1.0,)`) lost its items (a third forward
        # order of `math.sin(x * x)` called the generated code with too few arguments)
        targs, tdargs = _expand(targs, 3), _expand(tdargs, 3)
        return (NoTangent, _expand(targs[1], n), _expand(targs[2], n), _expand(tdargs[1], n), _expand(tdargs[2], n))

    return _Plan(higher.forward_of_jvp if fresh else higher.forward_of_forward, call,
                 lambda b: (NoTangent, (NoTangent, b[1], b[2]), (NoTangent, b[3], b[4])), outer)


def _fcall_plan(args: tuple, dargs: tuple) -> _Plan:
    """fcall of `fcall` itself (forward code that dispatches a call at run time, differentiated forward)."""
    f, df, fargs, fdargs, *rest = args
    if rest and rest[0] and _zero(df):
        # (a scipy.stats method or a draw called with keywords, `st.norm.logpdf(x, loc=m)`, at the third order: its
        # plain model, whose keywords name positional parameters, as nested_fcall_rules._stats_model gives it at the
        # second)
        from .nested_fcall_rules import _stats_model

        f = _stats_model(f, df, tuple(fargs), rest[0])
    if rest and _nested_replace.is_replace(f, fargs, rest[0]):  # (a third order through dataclasses.replace)
        plan = _nested_replace.fcall_plan(tuple(args), tuple(_expand(dargs, len(args))))
        if plan is not None:
            return plan
    out_call = _nested_out.out_call(f, fargs, rest[0], methods=False) if rest else None
    if out_call is not None:  # (a ufunc or reduction writing out=)
        return _nested_out.fcall_plan(out_call, f, fargs, fdargs, rest, _expand(dargs, len(args)))
    if rest and rest[0] and _keywords_positional(f, len(fargs), rest[0]) is not None and not carries(df):
        return _fcall_keywords_plan(f, df, fargs, fdargs, rest, _expand(dargs, len(args)))
    tf, tdf, tfargs, tfdargs, *t_rest = _expand(dargs, len(args))
    if rest and (rest[0] or (len(rest) > 1 and rest[1] not in (None, NoTangent, {}))):
        # (an array method's keywords, never differentiated, `x.sum(axis=0)`: its plan takes them)
        if not (_is_array_method(f) and carries(df) and _constant_keywords((*rest[1:], *t_rest))):
            raise NestingError(f"nested derivative of {_name(f)}: keyword arguments are not supported nested")
        return fcall_df_plan(f, df, fargs, fdargs, tf, tdf, tfargs, tfdargs, len(rest), rest[0])
    if carries(df) or carries(tdf) or carries(tf):
        return fcall_df_plan(f, df, fargs, fdargs, tf, tdf, tfargs, tfdargs, len(rest))
    inner = _jvp_plan((f, fargs, fdargs), (tf, tfargs, tfdargs), fresh=False)

    def split(b: Any) -> tuple:
        _, (_, a1, a2), (_, d1, d2) = inner.split(b)
        return NoTangent, (NoTangent, NoTangent, a1, a2) + (NoTangent,) * len(rest), \
            (NoTangent, NoTangent, d1, d2) + (NoTangent,) * len(rest)

    def outer(t_f: Any, targs: tuple, tdargs: tuple) -> tuple:
        return inner.outer(t_f, (targs[0], targs[2], targs[3]), (tdargs[0], tdargs[2], tdargs[3]))

    return _Plan(inner.fn, inner.call_args, split, outer)


def _constant_keywords(tangents: tuple) -> bool:
    """Are these tangents of a call's keywords (dicts of them, or symbolic zeros) all zero?"""
    return all(all(_zero(v) for v in t.values()) if isinstance(t, dict) else _zero(t) for t in tangents)


def _grad_plan(g: Any, args: tuple, dargs: tuple) -> _Plan:
    """fcall of a `grad(f)` / `value_and_grad(f)` object: `grad_call_jvp` below, plain Python."""
    from .. import higher

    if g.has_aux:  # (its value part's gradient and its aux: nested_aux.py)
        from .nested_aux import aux_plan

        return aux_plan(g, args, dargs)
    nums, _ = g._nums(len(args))
    single = not isinstance(g.argnums, (tuple, list))
    with_value = type(g).__name__ == "ValueAndGrad"
    n = len(args)
    return _Plan(higher.grad_call_jvp, (g.f, nums, single, with_value, tuple(args), _dense(dargs, args)),
                 lambda b: (NoTangent, tuple(_expand(b[4], n)), tuple(_expand(b[5], n))),
                 lambda tf, targs, tdargs: (NoTangent, NoTangent, NoTangent, NoTangent, targs, tdargs), grad_of=g)
