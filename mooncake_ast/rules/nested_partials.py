"""Calls of a `functools.partial` object in forward code, for derivatives of derivatives.

At first order a partial's call has hand-written rules (python_callables.py), which have no derivative of their own;
nested, the call is the call of the function it wraps with the bound arguments put in place: the bound values are
constants (a partial made before the differentiation began: `mc.hessian(functools.partial(f, w=W))`), keywords
naming positional parameters are passed positionally (nested_calls._keywords_positional), and the plan of that call
is the partial's, its adjoints and tangents cut to the arguments the call gave.  A partial holding differentiated
values (made inside the function, with a nonzero tangent) is refused by name.
"""
from __future__ import annotations

import functools
from typing import Any, Optional

from ..tangents import NoTangent


def _api() -> Any:
    from . import api_rules

    return api_rules


def is_partial(f: Any) -> bool:
    """A functools.partial of the user's (not one of mooncake_ast's own: supercalls.py)."""
    return isinstance(f, functools.partial) and \
        not str(getattr(f.func, "__module__", "")).startswith(("mooncake_ast.", "functools"))


def partial_plan(f: functools.partial, df: Any, args: tuple, dargs: tuple) -> Optional[Any]:
    """The plan of `f(*args)` for a partial f, or None where its bound keywords cannot be passed positionally (the
    wrapped function then sees them as keywords: api_rules._plan decides)."""
    from .nested_calls import _keywords_positional, _positional

    api = _api()
    if not api._zero(df):
        raise api.NestingError(f"nested derivative of functools.partial({api._name(f.func)}, ...): the partial holds "
                               f"differentiated values (it was made inside the function); call {api._name(f.func)} "
                               f"with them directly")
    n, k = len(args), len(f.args)
    full = (*f.args, *args)
    dfull = ((NoTangent,) * k) + tuple(api._expand(dargs, n))
    kw = dict(f.keywords)
    if kw:
        names = _keywords_positional(f.func, k + n, kw)
        if names is None:
            return None
        full = _positional(f.func, names, full, kw)
        dfull = _positional(f.func, names, dfull, NoTangent, True)
    rest = len(full) - k - n
    inner = api._plan(f.func, NoTangent, full, dfull)
    zeros_k, zeros_rest = (NoTangent,) * k, (NoTangent,) * rest

    def split(b: Any) -> tuple:
        _, a, d = inner.split(b)
        a, d = tuple(api._expand(a, len(full))), tuple(api._expand(d, len(full)))
        return NoTangent, a[k:k + n], d[k:k + n]

    def outer(tf: Any, targs: tuple, tdargs: tuple) -> tuple:
        return inner.outer(NoTangent, (*zeros_k, *api._expand(targs, n), *zeros_rest),
                           (*zeros_k, *api._expand(tdargs, n), *zeros_rest))

    plan = api._Plan(inner.fn, inner.call_args, split, outer)
    plan.inactive = inner.inactive
    return plan
