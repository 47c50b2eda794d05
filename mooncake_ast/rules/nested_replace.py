"""`dataclasses.replace(obj, **changes)` (and a namedtuple's `obj._replace(**changes)`) inside forward code differentiated
again: its differentiated keywords made positional (nested calls take no `**kwargs`), as a call of
`replace_positional`, ordinary Python that builds the new object with the class's `__init__` as replace does (each
field from the changes, else from obj).  Was refused ("differentiated keyword arguments are not supported nested";
for `_replace`, "the tangent of attribute '_replace' ... is not supported at this order")."""
from __future__ import annotations

import dataclasses
import types
from typing import Any, Optional

from ..tangents import MethodTangent, NoTangent


def _pick(obj, fields, sources, values, k):
    if sources[k] >= 0:
        return values[sources[k]]
    return getattr(obj, fields[k])


def replace_positional(obj, fields, sources, values):
    """`dataclasses.replace(obj, **dict(zip(changed, values)))`: field k from `values[sources[k]]`, or from obj where
    sources[k] is -1 (traced: differentiated like user code; one call per arity, as a star call's tuple has no
    derivative at the third order)."""
    cls = type(obj)
    n = len(fields)
    if n == 1:
        return cls(_pick(obj, fields, sources, values, 0))
    if n == 2:
        return cls(_pick(obj, fields, sources, values, 0), _pick(obj, fields, sources, values, 1))
    if n == 3:
        return cls(_pick(obj, fields, sources, values, 0), _pick(obj, fields, sources, values, 1),
                   _pick(obj, fields, sources, values, 2))
    if n == 4:
        return cls(_pick(obj, fields, sources, values, 0), _pick(obj, fields, sources, values, 1),
                   _pick(obj, fields, sources, values, 2), _pick(obj, fields, sources, values, 3))
    if n == 5:
        return cls(_pick(obj, fields, sources, values, 0), _pick(obj, fields, sources, values, 1),
                   _pick(obj, fields, sources, values, 2), _pick(obj, fields, sources, values, 3),
                   _pick(obj, fields, sources, values, 4))
    return cls(_pick(obj, fields, sources, values, 0), _pick(obj, fields, sources, values, 1),
               _pick(obj, fields, sources, values, 2), _pick(obj, fields, sources, values, 3),
               _pick(obj, fields, sources, values, 4), _pick(obj, fields, sources, values, 5))


def is_replace(f: Any, args: Any, kwargs: Any) -> bool:
    """`dataclasses.replace(obj, **changes)`, or a namedtuple's `obj._replace(**changes)` (its object the method's)."""
    if not kwargs:
        return False
    return (f is dataclasses.replace and len(args) == 1) or (is_namedtuple_replace(f) and not args)


def is_namedtuple_replace(f: Any) -> bool:
    """`p._replace` of a namedtuple instance p (collections.namedtuple, typing.NamedTuple)."""
    return isinstance(f, types.MethodType) and f.__name__ == "_replace" and isinstance(f.__self__, tuple) and \
        hasattr(type(f.__self__), "_fields")


def _object_and_tangent(f: Any, df: Any, args: tuple, dargs: Any) -> tuple:
    """(the object replaced, its tangent): dataclasses.replace's first argument, or the namedtuple the method is of."""
    from .api_rules import _expand

    if is_namedtuple_replace(f):
        return f.__self__, (df.self_tangent if isinstance(df, MethodTangent) else NoTangent)
    return args[0], _expand(dargs, 1)[0]


def _self_t(t: Any) -> Any:
    return t.self_tangent if isinstance(t, MethodTangent) else NoTangent


def positional(obj: Any, kwargs: dict) -> Optional[tuple]:
    """(fields, sources, changed names) for replace_positional, or None where replace does more than it (init-only
    variables, fields without `__init__` parameters given, keyword-only fields)."""
    from .api_rules import NestingError

    cls = type(obj)
    if isinstance(obj, tuple) and hasattr(cls, "_fields"):  # (a namedtuple: its fields are its __new__'s parameters)
        init = list(cls._fields)
        if not 1 <= len(init) <= 6:
            raise NestingError(f"nested derivative: {cls.__name__}._replace, with {len(init)} fields, is not supported "
                               f"at this order (at most 6)")
        changed = tuple(kwargs)
        if any(k not in init for k in changed):
            return None
        return tuple(init), tuple(changed.index(name) if name in kwargs else -1 for name in init), changed
    if not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        return None
    fields = dataclasses.fields(cls)
    every = getattr(cls, "__dataclass_fields__", {}).values()  # (with init-only variables, which fields() leaves out)
    if any(getattr(f, "kw_only", False) for f in fields) or len(every) != len(fields):
        raise NestingError(f"nested derivative: dataclasses.replace of {cls.__name__}, which has keyword-only fields or "
                           f"init-only variables, is not supported at this order")
    init = [f.name for f in fields if f.init]
    if not 1 <= len(init) <= 6:
        raise NestingError(f"nested derivative: dataclasses.replace of {cls.__name__}, with {len(init)} fields, is not "
                           f"supported at this order (at most 6)")
    changed = tuple(kwargs)
    if any(k not in init for k in changed):
        return None  # (replace's own error, from the plain call)
    sources = tuple(changed.index(name) if name in kwargs else -1 for name in init)
    return tuple(init), sources, changed


def _by_name(t: Any, changed: tuple) -> tuple:
    return tuple(t.get(k, NoTangent) for k in changed) if isinstance(t, dict) else (NoTangent,) * len(changed)


def frule(f: Any, args: tuple, dargs: Any, kwargs: dict, dkwargs: Any, tf: Any, tdf: Any, targs: Any, tdargs: Any,
          tkwargs: Any, tdkwargs: Any, df: Any = NoTangent) -> Any:
    from .api_rules import _expand, _fwd_fcall

    obj, dobj = _object_and_tangent(f, df, args, dargs)
    planned = positional(obj, kwargs)
    if planned is None:
        return None
    fields, sources, changed = planned
    tobj, tdobj = (_self_t(tf), _self_t(tdf)) if is_namedtuple_replace(f) else \
        (_expand(targs, 1)[0], _expand(tdargs, 1)[0])
    p = (obj, fields, sources, tuple(kwargs[k] for k in changed))
    d = (dobj, NoTangent, NoTangent, _by_name(dkwargs, changed))
    tp = (tobj, NoTangent, NoTangent, _by_name(tkwargs, changed))
    td = (tdobj, NoTangent, NoTangent, _by_name(tdkwargs, changed))
    return _fwd_fcall(replace_positional, NoTangent, p, d, NoTangent, NoTangent, tp, td)


def rrule(f: Any, args: tuple, dargs: Any, kwargs: dict, dkwargs: Any, df: Any = NoTangent) -> Any:
    from ..reverse.adjoints import AdjDict, AdjTuple, MethodAdjoint
    from .api_rules import _expand, _rev_fcall

    obj, dobj = _object_and_tangent(f, df, args, dargs)
    planned = positional(obj, kwargs)
    if planned is None:
        return None
    fields, sources, changed = planned
    method = is_namedtuple_replace(f)
    p = (obj, fields, sources, tuple(kwargs[k] for k in changed))
    d = (dobj, NoTangent, NoTangent, _by_name(dkwargs, changed))
    out, pb = _rev_fcall(replace_positional, NoTangent, p, d)

    def pullback(g: Any) -> tuple:
        f_bar, a_bar, d_bar, df_bar = pb(g)
        a_bar, d_bar = _expand(a_bar, 4), _expand(d_bar, 4)
        v_bar, dv_bar = _expand(a_bar[3], len(changed)), _expand(d_bar[3], len(changed))
        k_bar = AdjDict({k: v_bar[i] for i, k in enumerate(changed)})
        dk_bar = AdjDict({k: dv_bar[i] for i, k in enumerate(changed)}) if isinstance(dkwargs, dict) else NoTangent
        if method:  # (the namedtuple's adjoints through the method's: `p._replace` read from p)
            return MethodAdjoint(a_bar[0]), MethodAdjoint(d_bar[0]), AdjTuple(()), AdjTuple(()), k_bar, dk_bar
        return NoTangent, NoTangent, AdjTuple((a_bar[0],)), AdjTuple((d_bar[0],)), k_bar, dk_bar

    return out, pullback


def fcall_plan(args: tuple, dargs: tuple) -> Any:
    """The plan of `fcall(dataclasses.replace, df, (obj,), (dobj,), kwargs, dkwargs)` (forward code of forward code,
    differentiated once more: a third order): that of the same fcall of replace_positional, its tangents and adjoints
    moved between the keywords and the positional values."""
    from ..reverse.adjoints import AdjDict, AdjTuple
    from .api_rules import _expand, _fcall_plan

    f, df, fargs, fdargs, *rest = args
    kwargs = rest[0]
    if is_namedtuple_replace(f):
        return None  # (a third order of `p._replace(...)`: refused by the caller)
    planned = positional(fargs[0], kwargs)
    if planned is None:
        return None
    fields, sources, changed = planned
    m = len(args)

    def moved(t: Any) -> tuple:
        """Tangents of fcall's (f, df, fargs, fdargs, kwargs, dkwargs) -> those of fcall(replace_positional, ...)."""
        t = _expand(t, m)
        kw, dkw = (t[4] if m > 4 else NoTangent), (t[5] if m > 5 else NoTangent)
        return (NoTangent, NoTangent, (_expand(t[2], 1)[0], NoTangent, NoTangent, _by_name(kw, changed)),
                (_expand(t[3], 1)[0], NoTangent, NoTangent, _by_name(dkw, changed)))

    def back(a: Any) -> tuple:
        """Adjoints of fcall(replace_positional, ...)'s arguments -> those of the fcall of replace."""
        a = _expand(a, 4)
        p_bar, d_bar = _expand(a[2], 4), _expand(a[3], 4)
        v_bar, dv_bar = _expand(p_bar[3], len(changed)), _expand(d_bar[3], len(changed))
        out = (NoTangent, NoTangent, AdjTuple((p_bar[0],)), AdjTuple((d_bar[0],)),
               AdjDict({k: v_bar[i] for i, k in enumerate(changed)}),
               AdjDict({k: dv_bar[i] for i, k in enumerate(changed)}))
        return out[:m]

    p = (fargs[0], fields, sources, tuple(kwargs[k] for k in changed))
    d = (_expand(fdargs, 1)[0], NoTangent, NoTangent, _by_name(rest[1] if len(rest) > 1 else NoTangent, changed))
    inner = _fcall_plan((replace_positional, NoTangent, p, d), moved(dargs))

    def split(b: Any) -> tuple:
        _, a_bar, d_bar = inner.split(b)
        return NoTangent, back(a_bar), back(d_bar)

    def outer(t_f: Any, targs: tuple, tdargs: tuple) -> tuple:
        return inner.outer(t_f, moved(targs), moved(tdargs))

    plan = type(inner)(inner.fn, inner.call_args, split, outer)
    plan.inactive = inner.inactive
    return plan
