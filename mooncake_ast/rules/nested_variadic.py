"""Calls of a plain Python function taking `*args` / `**kwargs` in forward code, for derivatives of derivatives.

At first order forward/runtime.bind matches a call to the parameters: the forward code of `def combine(*vals,
scale=1.0, **extra)` takes `(vals, scale, extra, dvals, dscale, dextra)`, a tuple, a number and a dict.  Nested, the
call `combine(a, b, scale=s, shift=c)` is planned the same way: the arguments given (positional ones first, then the
keywords' values in the call's order: nested_fcall_rules flattens them) are bound to the parameters, the forward code
is called with the bound primals and tangents, and the adjoints (outer tangents) of the bound parameters are taken
apart again, one per argument given: an item of the `*vals` tuple, a keyword's value, a value of the `**extra` dict
(whose adjoint reverse mode keeps in the dict's storage: reverse/shadows.full_adjoint).

Refused by name: a function with a nonzero tangent (a closure over differentiated values), a default that is not a
constant (a local function's float default may be made from the input: pass it), a mutable value collected by
`**extra` (its adjoint would be both in its own storage and in the dict's).
"""
from __future__ import annotations

import inspect
import types
from typing import Any, Optional

import numpy as np

from ..tangents import NoTangent, is_mutable, materialize
from .forward_code_rules import NestingError, _expand, _name, _zero
from .registry import lookup


def is_variadic_function(f: Any) -> bool:
    """A plain Python function (no rule, not one of mooncake_ast's own: a Jacobian object) with *args or **kwargs."""
    return isinstance(f, types.FunctionType) and bool(f.__code__.co_flags & (0x04 | 0x08)) and lookup(f) is None \
        and not str(getattr(f, "__module__", "")).startswith("mooncake_ast")


def _where(f: Any) -> str:
    code = f.__code__
    return f"{code.co_filename.rsplit('/', 1)[-1]}:{code.co_firstlineno}"


def _refuse(f: Any, what: str) -> NestingError:
    return NestingError(f"nested derivative of {_name(f)} ({_where(f)}): {what}")


def _dense(a: Any, d: Any) -> Any:
    """A float array's or float's symbolic zero tangent made dense (the forward code is typed on argument kinds, as
    api_rules._plan does for a positional call)."""
    if d is NoTangent or d is None:
        if isinstance(a, np.ndarray) and a.dtype.kind == "f":
            return materialize(NoTangent, a)
        if type(a) is float:
            return 0.0
    return d


def _constant_default(f: Any, d: Any) -> bool:
    """A default a nested call may take as a constant: a bool, int, string, None or a function at any place; a
    number or tuple of numbers only for a module-level function (a local one's may be made from the input)."""
    from .api_rules import _inert

    if _inert(d) or callable(d):
        return True
    local = "<locals>" in getattr(f, "__qualname__", "<locals>")
    return not local and not is_mutable(d) and isinstance(d, (int, float, complex, tuple, np.generic))


def _sources(f: Any, n: int, keys: tuple, sig: inspect.Signature, bound: Any) -> list:
    """Per parameter of f: where its value comes from among the flattened arguments (positional ones, then the
    keywords' values): ("one", i), ("many", [i, ...]) for *args, ("keys", {name: i}) for **kwargs, ("default", None)."""
    out = []
    pos = 0
    for name, p in sig.parameters.items():
        if p.kind is p.VAR_POSITIONAL:
            count = len(bound.arguments.get(name, ()))
            out.append(("many", list(range(pos, pos + count))))
            pos += count
        elif p.kind is p.VAR_KEYWORD:
            out.append(("keys", {k: n + keys.index(k) for k in bound.arguments.get(name, {})}))
        elif name in keys:
            out.append(("one", n + keys.index(name)))
        elif name in bound.arguments:
            out.append(("one", pos))
            pos += 1
        else:
            out.append(("default", None))
    return out


def variadic_plan(f: Any, df: Any, args: tuple, dargs: tuple, keys: tuple = ()) -> Optional[Any]:
    """The plan of `f(*args[:n], **dict(zip(keys, args[n:])))` for a variadic plain function f (n = len(args) -
    len(keys)): f's forward code called with the bound parameters (see the module's docstring)."""
    from ..forward.runtime import bind, derived_forward
    from . import api_rules as api
    from .nested_calls import plan_kinds

    if not is_variadic_function(f):
        return None
    if not _zero(df):
        raise _refuse(f, "a function taking *args or **kwargs that captures differentiated values is not supported "
                         "at this order; pass those values as arguments")
    n = len(args) - len(keys)
    dargs = tuple(_dense(a, d) for a, d in zip(args, _expand(dargs, len(args))))
    kw, dkw = dict(zip(keys, args[n:])), dict(zip(keys, dargs[n:]))
    sig = inspect.signature(f, follow_wrapped=False)
    bound = sig.bind(*args[:n], **kw)
    primals, tangents = bind(f, NoTangent, tuple(args[:n]), tuple(dargs[:n]), kw, dkw)
    sources = _sources(f, n, tuple(keys), sig, bound)
    for (how, where), p in zip(sources, primals):
        if how == "default" and not _constant_default(f, p):
            raise _refuse(f, f"its default {p!r} (a parameter the call leaves out) may be made from the input here; "
                             f"give that parameter in the call")
        if how == "keys" and any(is_mutable(args[i]) for i in where.values()):
            raise _refuse(f, "an array, list or dict collected by its **kwargs is not supported at this order; pass "
                             "it by a named parameter")
    rule = derived_forward(f, plan_kinds(primals, tangents))
    m, total = len(primals), len(args)
    off = 2 if rule.takes_self else 0
    call_args = ((f, NoTangent) if rule.takes_self else ()) + (*primals, *tangents)

    def spread(values: tuple, owners: tuple) -> list:
        """Per flattened argument, its part of the parameters' values (adjoints or tangents)."""
        from ..reverse.shadows import full_adjoint

        out = [NoTangent] * total
        for (how, where), v, owner in zip(sources, values, owners):
            if how == "one":
                out[where] = v
            elif how == "many":
                for i, part in zip(where, _expand(v, len(where))):
                    out[i] = part
            elif how == "keys":
                whole = full_adjoint(owner, v)
                for k, i in where.items():
                    out[i] = whole.get(k, NoTangent) if isinstance(whole, dict) else NoTangent
        return out

    def split(b: Any) -> tuple:
        b = _expand(b, len(call_args))
        return (NoTangent, tuple(spread(tuple(b[off:off + m]), primals)),
                tuple(spread(tuple(b[off + m:off + 2 * m]), tangents)))

    def gather(flat: tuple) -> tuple:
        flat = _expand(flat, total)
        out = []
        for how, where in sources:
            if how == "one":
                out.append(flat[where])
            elif how == "many":
                out.append(tuple(flat[i] for i in where))
            elif how == "keys":
                out.append({k: flat[i] for k, i in where.items()})
            else:
                out.append(NoTangent)
        return tuple(out)

    def outer(tf: Any, targs: tuple, tdargs: tuple) -> tuple:
        return ((tf, NoTangent) if rule.takes_self else ()) + (*gather(targs), *gather(tdargs))

    plan = api._Plan(rule.fn, call_args, split, outer, layout=None)
    plan.inactive = frozenset(off + j + k for j, (how, _) in enumerate(sources) if how == "default" for k in (0, m))
    return plan


def flattened(args: tuple, dargs: Any, kwargs: Any, dkwargs: Any) -> tuple:
    """(keys, positional arguments then the keywords' values, their tangents likewise) of a call with keywords."""
    keys = tuple(kwargs or {})
    n = len(args)
    dk = dkwargs if isinstance(dkwargs, dict) else {}
    return keys, (*args, *(kwargs[k] for k in keys)), (*_expand(dargs, n), *(dk.get(k, NoTangent) for k in keys))


def variadic_rrule(f: Any, df: Any, args: tuple, dargs: Any, kwargs: dict, dkwargs: Any) -> tuple:
    """Reverse rule of `fcall(f, df, args, dargs, kwargs, dkwargs)` for a variadic f given keywords."""
    from ..reverse.adjoints import AdjDict, AdjTuple
    from .api_rules import _rev_fcall

    n = len(args)
    keys, pargs, pdargs = flattened(tuple(args), dargs, kwargs, dkwargs)
    out, pb = _rev_fcall(f, df, pargs, pdargs, None, keys)

    def pullback(g: Any) -> tuple:
        f_bar, a_bar, d_bar, df_bar = pb(g)
        a_bar, d_bar = _expand(a_bar, len(pargs)), _expand(d_bar, len(pargs))
        k_bar = AdjDict({k: a_bar[n + i] for i, k in enumerate(keys)})
        dk_bar = AdjDict({k: d_bar[n + i] for i, k in enumerate(keys)}) if isinstance(dkwargs, dict) else NoTangent
        return f_bar, df_bar, AdjTuple(a_bar[:n]), AdjTuple(d_bar[:n]), k_bar, dk_bar

    return out, pullback


def variadic_frule(f: Any, df: Any, args: tuple, dargs: Any, kwargs: dict, dkwargs: Any, tf: Any, tdf: Any,
                   targs: Any, tdargs: Any, tkwargs: Any, tdkwargs: Any) -> tuple:
    """Forward rule of the same call: forward mode over f's forward code with the bound parameters."""
    from .api_rules import _fwd_fcall

    keys, pargs, pdargs = flattened(tuple(args), dargs, kwargs, dkwargs)
    _, _, ptargs = flattened(tuple(args), targs, kwargs, tkwargs)
    _, _, ptdargs = flattened(tuple(args), tdargs, kwargs, tdkwargs)
    return _fwd_fcall(f, df, pargs, pdargs, tf, tdf, ptargs, ptdargs, None, keys)
