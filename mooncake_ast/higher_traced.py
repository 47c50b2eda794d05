"""The ordinary Python that the rules of the API entry points differentiate (rules/api_rules.py, nested_plans.py).

Nested derivatives run these small functions as plain code, and differentiate them again at the next order: so
they must stay traceable (no relative imports, no `with`, no `try`; positional calls), and every callable they
call must have a rule or source.  `higher` re-exports them (api_rules reads `higher.grad_call_jvp` & co.).

* `directional`, `apply`, `grad_call_jvp`: the tangent of a gradient is the gradient of the directional derivative;
* `forward_of_forward`, `forward_of_jvp`, `forward_of_fcall`, `plain_jvp`, `fresh_arrays`: forward mode over
  generated forward code (a step of a third derivative);
* `hvp_plain` and `factory_fwd`: mc.hvp, and mc.grad & co., called inside differentiated code;
* `vjp_plain`, `vjp_apply`, `pairing`: mc.vjp called inside differentiated code (its vjp_fn a gradient).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .api import Grad, ValueAndGrad, grad, jvp
from .forward.runtime import fcall
from .rules.api_rules import NestingError, forward_code
from .rules.nested_writes import entry_state, guard_pullback, refuse_if_written
from .rules.nested_helpers import with_dense_tangent
from .rules.nested_plans import plan_args, plan_function, plan_tangents
from .tangents import NoTangent


def directional(f, args, dargs):
    """Df(args)[dargs]: the derivative of f at args in direction dargs."""
    return jvp(f, args, dargs)[1]


def directional_one(a, d, f):
    """Df(a)[d] for f of one argument: a function of the point and the direction, whose Jacobian with respect to a
    (higher.directional_jacobian) is the tangent of a Jacobian object's call (rules/nested_jacobians.py)."""
    return jvp(f, (a,), (d,))[1]


def jacobian_call_jvp(J, Jd, f, a, da):
    """(J(a), its tangent in direction da) for a Jacobian object J of f: the Jacobian of the directional derivative,
    Jd(a, da, f).  Plain Python: an outer derivative differentiates both calls by the Jacobian objects' own rules."""
    # (the directional derivative first, on a copy: f may write its argument, as grad_call_jvp says)
    dy = Jd(fresh_arrays((a,))[0], da, f)
    y = J(a)
    return y, dy


def with_dense_tangent_forward(y, dy, ty, tdy):
    """The plain forward of `with_dense_tangent(y, dy)` (forward_of_forward's result, dispatched by forward code at a
    fourth order): an identity on values, so its tangent is (ty, tdy), both made dense by the plan."""
    return with_dense_tangent(y, dy), (ty, tdy)


def apply(f, args):
    return f(*args)


def _pick(t, nums, single):
    if single:
        return t[nums[0]]
    out = []
    for i in nums:
        out.append(t[i])
    return tuple(out)


def grad_call_jvp(f, nums, single, with_value, args, dargs):
    """(grad f(args), its tangent in direction dargs) -- or (value, grad) and theirs with `with_value`.

    The tangent of the gradient is the gradient of the directional derivative (symmetry of second
    derivatives), so this is reverse mode over forward mode."""
    # (the directional derivative first, on copies of the arrays: f may write its arguments, and each derivative is
    # at their values on entry; then f's own call leaves them as f leaves them.  Both on the same arrays gave
    # jvp(hessian(f)) of `x[0] = x[0] * x[1]` at the updated x.)
    dvalue, dg_all = _VG_DIRECTIONAL(f, fresh_arrays(args), dargs)
    value, g_all = _VG_APPLY(f, args)
    g = _pick(g_all, nums, single)
    dg = _pick(dg_all, nums, single)
    if with_value:
        return (value, g), (dvalue, dg)
    return g, dg


def forward_of_forward(f, args, dargs, targs, tdargs):
    """(jvp(f, args, dargs), its tangent for tangents targs, tdargs): forward mode over f's forward code."""
    fn, takes_self, extra, zeros, nones = forward_code(f, args, dargs)
    if takes_self is None:  # (its plan arranges the arguments: rules/nested_plans.py)
        return forward_of_fcall(f, NoTangent, args, dargs, NoTangent, NoTangent, targs, tdargs, None)
    # (star displays, not `+`: the tangent of `t + c` for a constant tuple c, such as extra's, lost c's items when
    # this function was differentiated again: a fourth order then called code with too few arguments)
    # (an array default among extra is a read-only copy: a write into it raises, refused by name where the enclosing
    # rule runs, nested_calls.defaults_kept; this code is differentiated again, so it holds no `with` of its own)
    if takes_self:
        return plain_jvp(fn, (f, NoTangent, *args, *extra, *dargs, *zeros),
                         (NoTangent, NoTangent, *targs, *zeros, *tdargs, *zeros))
    return plain_jvp(fn, (*args, *extra, *dargs, *zeros), (*targs, *zeros, *tdargs, *zeros))


def forward_of_jvp(f, args, dargs, targs, tdargs):
    """forward_of_forward for a call of mc.jvp, which gives f fresh copies of its tangents (f's forward code writes into
    them where f writes into its arguments; the caller's tangents, and their tangents, stay as they were)."""
    return forward_of_forward(f, args, fresh_arrays(dargs), targs, fresh_arrays(tdargs))


def fresh_arrays(ts):
    """ts with each array a copy (differentiable: its tangent and adjoint are the original's)."""
    out = []
    for t in ts:
        if isinstance(t, np.ndarray):
            out.append(t.copy())
        else:
            out.append(t)
    return tuple(out)


def plain_jvp(fn, primals, tangents):
    """`jvp(fn, primals, tangents)` without the API's conversion of the tangents, whose fresh copies would cut
    them from the objects and arrays the forward code writes through (an object's field tangents, set by its
    `__init__` run as a call of its own)."""
    yy, dyy = fcall(fn, NoTangent, primals, tangents)
    return with_dense_tangent(yy, dyy)


def forward_of_fcall(f, df, args, dargs, tf, tdf, targs, tdargs, kwargs):
    """(fcall(f, df, args, dargs, kwargs), its tangent for tangents tf, tdf, targs, tdargs): forward mode over the
    function of the call's plan (rules/nested_plans.py), for callables whose tangent df is part of the call (methods,
    objects) and whose own tangent tf may be nonzero (an object with differentiated fields); kwargs (None or keywords
    never differentiated, an array method's axis) are the plan's."""
    fn = plan_function(f, df, args, dargs, kwargs)
    return plain_jvp(fn, plan_args(f, df, args, dargs, kwargs),
                     plan_tangents(f, df, args, dargs, kwargs, tf, tdf, targs, tdargs))


def hvp_plain(f, primals, tangents):
    """mc.hvp as ordinary Python, `jvp(grad(f, argnums=all), primals, tangents)[1]`: what mc.hvp called inside
    differentiated code is differentiated as (its rules, _defs), the API entry points in it having rules of their own."""
    n = len(primals)
    d = jvp(grad(f, tuple(range(n))), primals, tangents)[1]
    if n == 1:
        return d[0]
    return d


def pairing(f, g, xs):
    """<g, f(*xs)>: the scalar whose gradient in xs is the vector-Jacobian product of f at xs with g."""
    return tree_vdot(g, f(*xs))


def tree_vdot(g, y):
    """The real inner product of two pytrees of one structure (floats, arrays, tuples and lists of them)."""
    if isinstance(y, (tuple, list)):
        total = 0.0
        for k in range(len(y)):
            total = total + tree_vdot(g[k], y[k])
        return total
    if isinstance(y, np.ndarray):
        return np.sum(g * y)
    return g * y


def vjp_apply(f, xs, g):
    """vjp_fn(g) of `mc.vjp(f, *xs)`: a tuple, one adjoint per primal, as a gradient (so differentiable again).  The
    cotangent is a value here: a fresh copy, never the same object as a primal (`pb(x)`), whose one adjoint would
    join the primal's in the gradient."""
    return _GRAD_PAIRING(f, tree_fresh(g), xs)


def tree_fresh(g):
    """g with every array a new one (differentiable: its tangent and adjoint are g's)."""
    if isinstance(g, (tuple, list)):
        out = []
        for v in g:
            out.append(tree_fresh(v))
        return tuple(out) if isinstance(g, tuple) else out
    if isinstance(g, np.ndarray):
        return g * 1.0
    return g


def vjp_plain(f, xs):
    """mc.vjp(f, *xs) as ordinary Python: (f(*xs), vjp_fn) with vjp_fn a closure calling vjp_apply, whose calls the
    nested derivatives differentiate as they differentiate mc.grad's (rules/api_rules.py)."""
    y = f(*xs)

    def vjp_fn(g):
        return vjp_apply(f, xs, g)
    return y, vjp_fn


def _vjp_frule(p: tuple, t: Any, **kwargs: Any) -> tuple:
    from .forward.runtime import fcall as _fcall

    if kwargs:
        raise NestingError("nested derivative of mc.vjp: keyword arguments are not supported")
    t = (NoTangent,) * len(p) if t is NoTangent or t is None else tuple(t)
    entry = entry_state(tuple(p[1:]))
    out = _fcall(vjp_plain, NoTangent, (p[0], tuple(p[1:])), (t[0], tuple(t[1:])))
    refuse_if_written("vjp", p[0], entry)  # (nested_writes.py)
    return out


def _vjp_rrule(*args: Any, **kwargs: Any) -> tuple:
    """Reverse mode over a call of mc.vjp: refused by name (reverse mode over vjp_plain's closure counted the
    adjoints of the primals several times: a wrong gradient, never given)."""
    raise NestingError("nested derivative: reverse mode (mc.grad, mc.vjp, mc.jacrev, mc.hessian) over a function "
                       "that calls mc.vjp is not supported yet; call mc.grad of <cotangent, f(x)> inside instead, or "
                       "take the outer derivative with mc.jvp / mc.jacfwd")


def factory_fwd(factory, args, kwargs):
    """`(factory(*args, **kwargs), no tangent)` for mc.grad & co. in forward code differentiated again: the call goes
    through the factory's rules (rules/api_rules._factory_frule / _factory_rrule), whose result is a constant."""
    return factory(*args, **kwargs), NoTangent


def _hvp_frule(p: tuple, t: Any, **kwargs: Any) -> tuple:
    from .forward.runtime import fcall as _fcall

    if kwargs:
        raise NestingError("nested derivative of mc.hvp: keyword arguments are not supported")
    return _fcall(hvp_plain, NoTangent, tuple(p), t)


def _hvp_rrule(*args: Any, **kwargs: Any) -> tuple:
    from .reverse.runtime import rcall

    if kwargs:
        raise NestingError("nested derivative of mc.hvp: keyword arguments are not supported")
    entry = entry_state(tuple(args[1]) if len(args) > 1 and isinstance(args[1], tuple) else ())
    y, pb = rcall(hvp_plain, tuple(args), {})
    pb = guard_pullback("hvp", args[0], entry, pb)  # (f wrote an argument read after the call: nested_writes.py)

    def pullback(g: Any) -> tuple:
        _, bars, _ = pb(g)
        return tuple(bars) if bars is not NoTangent else (NoTangent,) * len(args)

    return y, pullback


_VG_APPLY = ValueAndGrad(apply, argnums=1)
_VG_DIRECTIONAL = ValueAndGrad(directional, argnums=1)
_GRAD_DIRECTIONAL = Grad(directional, argnums=1)
_GRAD_APPLY = Grad(apply, argnums=1)
_GRAD_PAIRING = Grad(pairing, argnums=2)


# ---------------------------------------------------------------- gradients with has_aux=True, nested


def value_of(f, n):
    """`x -> f(x)[0]` for n positional arguments (nested derivatives take no `*args`): the differentiated part of a
    function given to mc.grad(..., has_aux=True)."""
    if n == 1:
        def value_part(a):
            return f(a)[0]
    elif n == 2:
        def value_part(a, b):
            return f(a, b)[0]
    elif n == 3:
        def value_part(a, b, c):
            return f(a, b, c)[0]
    elif n == 4:
        def value_part(a, b, c, d):
            return f(a, b, c, d)[0]
    elif n == 5:
        def value_part(a, b, c, d, e):
            return f(a, b, c, d, e)[0]
    else:
        raise NestingError(f"nested derivative of a gradient with has_aux=True: {n} arguments (at most 5 nested)")
    return value_part


def aux_of(f):
    """`x -> f(x)[1]`: its aux, which the gradient passes on undifferentiated, and outer derivatives differentiate
    (as JAX's do: `jvp(grad(f, has_aux=True), ...)` gives the aux's tangent too).  (Called by mc.jvp and mc.vjp, which
    take `*args`.)"""
    def aux_part(*args):
        return f(*args)[1]
    return aux_part


def grad_aux_call_jvp(fv, fa, nums, single, with_value, args, dargs):
    """grad_call_jvp of a gradient with has_aux=True, whose function's parts are fv (value) and fa (aux): the
    gradient's result and its tangent, `(grads, aux)` (`((value, aux), grads)` with `with_value`)."""
    aux, daux = jvp(fa, fresh_arrays(args), dargs)
    r, dr = grad_call_jvp(fv, nums, single, with_value, args, dargs)
    if with_value:
        return ((r[0], aux), r[1]), ((dr[0], daux), dr[1])
    return (r, aux), (dr, daux)
