"""Calls of a Jacobian object (`mc.jacfwd(g)`, `mc.jacrev(g)`, `mc.hessian(g)`) in forward code, for derivatives of
derivatives: `hessian(f)` of a function that calls `mc.hessian(quartic)(w)` inside, a third order.

At first order the call has rules of its own (jacobian_rules.py: its tangent in direction v is the Jacobian of the
directional derivative, `d/dt J_g(w + t v) = J_h(w)`, h(y) = Dg(y)[v]), which have no derivative of their own.  Nested,
the call is planned as plain Python, higher_traced.jacobian_call_jvp: `J(w)` and `Jd(w, v, g)`, where Jd is one
module-level Jacobian object (of higher_traced.directional_one, with respect to w) per kind; both are calls of Jacobian
objects, whose first-order rules the outer derivative uses, with respect to w and v alike.  (As grad objects have
nested_api_plans._grad_plan.)

Taken: one positional argument, argnums=0, no has_aux (the everyday `mc.hessian(f)(w)`, `mc.jacfwd(g)(w)`); a
Jacobian object made inside differentiated code of a function capturing values is refused, as at first order.
"""
from __future__ import annotations

from typing import Any, Optional

from ..tangents import NoTangent
from .forward_code_rules import NestingError, _expand, _zero


def jacobian_plan(J: Any, dJ: Any, args: tuple, dargs: tuple) -> Optional[Any]:
    """The plan of `fcall(J, dJ, args, dargs)` for a Jacobian object J, or None where J is none."""
    spec = getattr(J, "__mc_jacobian__", None)
    if spec is None:
        return None
    from .. import higher
    from ..api import Grad
    from ..higher_traced import jacobian_call_jvp
    from ..jacobian_rules import _jacobian_name
    from .nested_grad_objects import _TRACED, _refuse_captures
    from .nested_plan_kit import _Plan, _dense

    f, argnums, has_aux, kind = spec
    inner = f.f if isinstance(f, Grad) else f
    code = getattr(inner, "__code__", None)
    name = _jacobian_name(J) + (f" ({code.co_filename.rsplit('/', 1)[-1]}:{code.co_firstlineno})" if code else "")
    if not _zero(dJ):
        raise NestingError(f"nested derivative of {name}: a Jacobian object whose function captures differentiated "
                           f"values is not supported at this order; pass those values as arguments")
    if has_aux or len(args) != 1 or argnums != 0 or isinstance(argnums, bool):
        raise NestingError(f"nested derivative of {name}: at this order a Jacobian taken inside the differentiated "
                           f"function is supported for one positional argument (argnums=0, no has_aux); differentiate "
                           f"with respect to one argument (pack the others into it, or close over constants)")
    if J in _TRACED:  # (made inside differentiated code: what its function captures may be differentiated)
        _refuse_captures(inner, name)
    Jd = higher.directional_jacobian(kind)
    da = _dense(tuple(_expand(dargs, 1)), tuple(args))[0]
    plan = _Plan(jacobian_call_jvp, (J, Jd, f, args[0], da), lambda b: (NoTangent, (b[3],), (b[4],)),
                 lambda tf, targs, tdargs: (NoTangent, NoTangent, NoTangent, _expand(targs, 1)[0],
                                            _expand(tdargs, 1)[0]))
    plan.inactive = frozenset({0, 1, 2})
    return plan
