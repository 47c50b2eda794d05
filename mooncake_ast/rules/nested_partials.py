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
    if not isinstance(f, functools.partial):
        return False
    inner = f.func
    while isinstance(inner, functools.partial):  # (a partial of a partial that Python did not flatten)
        inner = inner.func
    return not str(getattr(inner, "__module__", "")).startswith(("mooncake_ast.", "functools"))


def _where(fn: Any) -> str:
    """`file.py:line` of a Python function's definition, for messages ('' where it has none)."""
    code = getattr(fn, "__code__", None)
    return f" ({code.co_filename.rsplit('/', 1)[-1]}:{code.co_firstlineno})" if code is not None else ""


def _inner_tangents(f: functools.partial, df: Any) -> tuple:
    """(the wrapped function's tangent, the bound positional arguments' tangents, the bound keywords') of the partial's
    tangent df: symbolic zeros
    only (a partial made before the differentiation, or made inside from constants such as `w=0.3`); a bound value
    with a tangent of its own (made from the input) is refused, since the adjoint of that tangent would be needed."""
    from .python_callables import _parts

    api = _api()
    dfunc, dargs, dkw = _parts(df, len(f.args), f.keywords)
    nested = isinstance(f.func, functools.partial)  # (its own tangent: checked by its own plan)
    if (nested or api._zero(dfunc)) and all(d is NoTangent or d is None for d in (*dargs, *dkw.values())):
        return (dfunc if nested else NoTangent), (NoTangent,) * len(f.args), {k: NoTangent for k in f.keywords}
    raise api.NestingError(
        f"nested derivative of functools.partial({api._name(f.func)}{_where(f.func)}, ...): the partial binds values "
        f"computed from the differentiated input (it was made inside the function); at this order pass them as "
        f"arguments of the call (`{getattr(f.func, '__name__', 'f')}(a, b, w=w)` instead of a partial holding w), or "
        f"bind only constants")


def _bound_adjoint(f: functools.partial, func_bar: Any, a: tuple, k: int, n: int, names: Any) -> Any:
    """The adjoint of the partial object from the adjoints `a` of the positional call: its bound positional arguments
    first (k of them), its bound keywords among `names` after the call's n arguments.  It goes back, through the
    partial's construction, to the values bound (`partial(weighted, w=c)` with c differentiated by an outer
    derivative: dropped before, a wrong derivative)."""
    from .python_callables import BoundAdjoint

    kw = {name: a[k + n + i] for i, name in enumerate(names or ()) if name in f.keywords}
    bound = tuple(a[:k])
    if not isinstance(f.func, functools.partial):
        func_bar = NoTangent  # (a Python function's adjoint: none, as before)
    if all(v is NoTangent or v is None for v in (func_bar, *bound, *kw.values())):
        return NoTangent
    return BoundAdjoint(func_bar, bound, {key: v for key, v in kw.items() if v is not NoTangent and v is not None})


def _bound_tangents(f: functools.partial, tf: Any) -> tuple:
    """(the inner partial's tangent, bound positional tangents, bound keyword tangents) of the partial's outer tangent
    tf (zeros for none)."""
    from .python_callables import _parts

    tfunc, targs, tkw = _parts(tf, len(f.args), f.keywords)
    return (tfunc if isinstance(f.func, functools.partial) else NoTangent), tuple(targs), dict(tkw)


def partial_plan(f: functools.partial, df: Any, args: tuple, dargs: tuple) -> Optional[Any]:
    """The plan of `f(*args)` for a partial f, or None where its bound keywords cannot be passed positionally (the
    wrapped function then sees them as keywords: api_rules._plan decides).  The bound values are arguments of the
    planned call: their adjoints (and outer tangents) are the partial object's, so a partial made inside from values an
    outer derivative differentiates is differentiated through them; their inner tangents must be symbolic zeros."""
    from .nested_calls import _keywords_positional, _positional

    api = _api()
    n, k = len(args), len(f.args)
    dfunc, dbound, dkw = _inner_tangents(f, df)
    full = (*f.args, *args)
    dfull = (*dbound, *api._expand(dargs, n))
    kw = dict(f.keywords)
    names = None
    if kw:
        names = _keywords_positional(f.func, k + n, kw)
        if names is None:
            return None
        full = _positional(f.func, names, full, kw)
        dfull = _positional(f.func, names, dfull, dkw, True)
    rest = len(full) - k - n
    inner = api._plan(f.func, dfunc, full, dfull)

    def split(b: Any) -> tuple:
        func_bar, a, d = inner.split(b)
        a, d = tuple(api._expand(a, len(full))), tuple(api._expand(d, len(full)))
        return _bound_adjoint(f, func_bar, a, k, n, names), a[k:k + n], d[k:k + n]

    def outer(tf: Any, targs: tuple, tdargs: tuple) -> tuple:
        tfunc, tbound, tkw = _bound_tangents(f, tf)
        targs_full = (*tbound, *api._expand(targs, n))
        if names is not None:
            targs_full = _positional(f.func, names, targs_full, tkw, True)
        else:
            targs_full = (*targs_full, *(NoTangent,) * rest)
        return inner.outer(tfunc, targs_full, (*(NoTangent,) * k, *api._expand(tdargs, n), *(NoTangent,) * rest))

    plan = api._Plan(inner.fn, inner.call_args, split, outer)
    plan.inactive = inner.inactive
    return plan
