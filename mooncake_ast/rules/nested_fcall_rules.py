"""The rules of `fcall(f, df, args, dargs[, kwargs, dkwargs])`, the dispatched call of generated forward code,
differentiated again (split from api_rules.py, which registers them): keywords made positional where the callee
allows (`d.update(c=v)`, `dataclasses.replace(p, y=v)`, a plain function's keywords, a ufunc's out=), then reverse
or forward mode over the callee's forward code (api_rules._rev_fcall, _fwd_fcall)."""
from __future__ import annotations

from typing import Any

from ..reverse.adjoints import AdjTuple
from ..tangents import NoTangent
from . import nested_containers as _nested_containers, nested_out as _nested_out, nested_replace as _nested_replace
from .forward_code_rules import _expand
from .nested_calls import _keywords_positional, _positional
from .nested_api_plans import refuse_tangent_keywords as _refuse_tangent_keywords
from .nested_variadic import is_variadic_function, variadic_frule, variadic_rrule


def _api() -> Any:
    from . import api_rules

    return api_rules


def _fcall_rrule(f: Any, df: Any, args: tuple, dargs: Any, kwargs: Any = None, dkwargs: Any = None) -> tuple:
    f = _stats_model(f, df, args, kwargs)
    if _nested_containers.update_by_keywords(f, args, kwargs):  # (`d.update(c=v)`: `d.update({"c": v})`)
        return _nested_containers.update_by_keywords_rrule(f, df, kwargs, dkwargs)
    if _nested_replace.is_replace(f, args, kwargs):  # (`dataclasses.replace(p, y=v)`: positional, nested_replace.py)
        done = _nested_replace.rrule(f, tuple(args), dargs, kwargs, dkwargs, df)
        if done is not None:
            return done
    out_call = _nested_out.out_call(f, args, kwargs)
    if out_call is not None:  # (a ufunc or reduction writing out=: a call of plain Python that writes out)
        return _nested_out.rrule(out_call, f, df, args, dargs, kwargs, dkwargs)
    names = _keywords_positional(f, len(args), kwargs)
    if names is not None:  # (keywords of a plain function: a positional call, their adjoints a dict)
        n = len(args)
        pargs = _positional(f, names, args, kwargs)
        pdargs = _positional(f, names, _expand(dargs, n), dkwargs, tangents=True)
        out, pb = _api()._rev_fcall(f, df, pargs, pdargs)

        def kw_pullback(g: Any) -> tuple:
            from ..reverse.adjoints import AdjDict

            f_bar, a_bar, d_bar, df_bar = pb(g)
            a_bar, d_bar = _expand(a_bar, len(pargs)), _expand(d_bar, len(pargs))
            k_bar = AdjDict({k: a_bar[n + i] for i, k in enumerate(names) if k in kwargs})
            dk_bar = AdjDict({k: d_bar[n + i] for i, k in enumerate(names) if k in kwargs}) \
                if isinstance(dkwargs, dict) else NoTangent
            return f_bar, df_bar, AdjTuple(a_bar[:n]), AdjTuple(d_bar[:n]), k_bar, dk_bar

        return out, kw_pullback
    if kwargs and is_variadic_function(f):  # (`combine(a, b, scale=s, shift=c)` of `def combine(*vals, **extra)`)
        return variadic_rrule(f, df, tuple(args), dargs, kwargs, dkwargs)
    _refuse_tangent_keywords(f, kwargs, dkwargs)
    out, pb = _api()._rev_fcall(f, df, args, dargs, kwargs)

    def pullback(g: Any) -> tuple:
        f_bar, a_bar, d_bar, df_bar = pb(g)
        return f_bar, df_bar, a_bar, d_bar  # one adjoint per argument of fcall(f, df, args, dargs)

    return out, pullback


def _stats_model(f: Any, df: Any, args: tuple, kwargs: Any) -> Any:
    """f, or the plain model of a scipy.stats method or a Generator's draw standing for it (nested_stats.py,
    nested_draws.py): its keywords then name the model's positional parameters, planned below as a plain
    function's."""
    if not _api()._zero(df):
        return f
    from . import itertools_models, nested_draws, nested_stats

    from . import nested_stats_frozen

    return nested_stats.model_for(f, tuple(args), kwargs) or nested_draws.model_for(f, tuple(args), kwargs) or \
        nested_stats_frozen.maker_for(f, tuple(args), kwargs) or itertools_models.model_for(f, tuple(args), kwargs) or f


def _by_keys(t: Any, keys: tuple) -> Any:
    """The tangent of keywords (the first of t, a dict or a symbolic zero) as the tangent of a dict of them."""
    d = t[0] if t else None
    return {k: d.get(k, NoTangent) for k in keys} if isinstance(d, dict) else NoTangent


def _fcall_frule(p: tuple, t: tuple, **kw: Any) -> tuple:
    f, df, args, dargs, *rest = p
    tf, tdf, targs, tdargs, *trest = _expand(t, len(p))
    kwargs = rest[0] if rest else None
    f = _stats_model(f, df, args, kwargs)
    if _nested_containers.update_by_keywords(f, args, kwargs):  # (`d.update(c=v)`: `d.update({"c": v})`)
        keys = tuple(kwargs)
        return _api()._fwd_fcall(f, df, (dict(kwargs),), (_by_keys(rest[1:], keys),), tf, tdf, (_by_keys(trest[:1], keys),),
                          (_by_keys(trest[1:], keys),))
    if _nested_replace.is_replace(f, args, kwargs):  # (`dataclasses.replace(p, y=v)`: positional, nested_replace.py)
        done = _nested_replace.frule(f, tuple(args), dargs, kwargs, rest[1] if len(rest) > 1 else None, tf, tdf, targs,
                                     tdargs, *(list(trest) + [None, None])[:2], df=df)
        if done is not None:
            return done
    out_call = _nested_out.out_call(f, args, kwargs)
    if out_call is not None:  # (a ufunc or reduction writing out=: a call of plain Python that writes out)
        return _nested_out.frule(out_call, f, df, args, dargs, kwargs, rest[1] if len(rest) > 1 else None, tf, tdf,
                                 targs, tdargs, *(list(trest) + [None, None])[:2])
    names = _keywords_positional(f, len(args), kwargs)
    if names is not None:  # (keywords of a plain function: a positional call)
        n = len(args)
        dkwargs = rest[1] if len(rest) > 1 else None
        tkwargs, tdkwargs = (trest + [None, None])[:2]
        return _api()._fwd_fcall(f, df, _positional(f, names, args, kwargs),
                          _positional(f, names, _expand(dargs, n), dkwargs, True), tf, tdf,
                          _positional(f, names, _expand(targs, n), tkwargs, True),
                          _positional(f, names, _expand(tdargs, n), tdkwargs, True))
    if kwargs and is_variadic_function(f):  # (a variadic function's keywords: nested_variadic.py)
        return variadic_frule(f, df, tuple(args), dargs, kwargs, rest[1] if len(rest) > 1 else None, tf, tdf, targs,
                              tdargs, *(list(trest) + [None, None])[:2])
    _refuse_tangent_keywords(f, kwargs, rest[1] if len(rest) > 1 else None)
    _refuse_tangent_keywords(f, kwargs, trest[0] if trest else None)
    return _api()._fwd_fcall(f, df, tuple(args), dargs, tf, tdf, targs, tdargs, kwargs)
