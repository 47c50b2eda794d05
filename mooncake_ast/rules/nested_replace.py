"""`dataclasses.replace(obj, **changes)` inside forward code differentiated again: its differentiated keywords made
positional (nested calls take no `**kwargs`), as a call of `replace_positional`, ordinary Python that builds the new
object with the class's `__init__` as replace does (each field from the changes, else from obj).  Was refused
("differentiated keyword arguments are not supported nested")."""
from __future__ import annotations

import dataclasses
from typing import Any, Optional

from ..tangents import NoTangent


def replace_positional(obj, fields, sources, values):
    """`dataclasses.replace(obj, **dict(zip(changed, values)))`: field k from `values[sources[k]]`, or from obj where
    sources[k] is -1 (traced: differentiated like user code)."""
    args = []
    for k in range(len(fields)):
        if sources[k] >= 0:
            args.append(values[sources[k]])
        else:
            args.append(getattr(obj, fields[k]))
    return type(obj)(*args)


def is_replace(f: Any, args: Any, kwargs: Any) -> bool:
    return f is dataclasses.replace and bool(kwargs) and len(args) == 1


def positional(obj: Any, kwargs: dict) -> Optional[tuple]:
    """(fields, sources, changed names) for replace_positional, or None where replace does more than it (init-only
    variables, fields without `__init__` parameters given, keyword-only fields)."""
    from .api_rules import NestingError

    cls = type(obj)
    if not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        return None
    fields = dataclasses.fields(cls)
    if any(getattr(f, "kw_only", False) for f in fields) or \
            any(type(f.type) is dataclasses.InitVar or f.type is dataclasses.InitVar for f in fields):
        raise NestingError(f"nested derivative: dataclasses.replace of {cls.__name__}, which has keyword-only fields or "
                           f"init-only variables, is not supported at this order")
    init = [f.name for f in fields if f.init]
    changed = tuple(kwargs)
    if any(k not in init for k in changed):
        return None  # (replace's own error, from the plain call)
    sources = tuple(changed.index(name) if name in kwargs else -1 for name in init)
    return tuple(init), sources, changed


def _by_name(t: Any, changed: tuple) -> tuple:
    return tuple(t.get(k, NoTangent) for k in changed) if isinstance(t, dict) else (NoTangent,) * len(changed)


def frule(f: Any, args: tuple, dargs: Any, kwargs: dict, dkwargs: Any, tf: Any, tdf: Any, targs: Any, tdargs: Any,
          tkwargs: Any, tdkwargs: Any) -> Any:
    from .api_rules import _expand, _fwd_fcall

    planned = positional(args[0], kwargs)
    if planned is None:
        return None
    fields, sources, changed = planned
    p = (args[0], fields, sources, tuple(kwargs[k] for k in changed))
    d = (_expand(dargs, 1)[0], NoTangent, NoTangent, _by_name(dkwargs, changed))
    tp = (_expand(targs, 1)[0], NoTangent, NoTangent, _by_name(tkwargs, changed))
    td = (_expand(tdargs, 1)[0], NoTangent, NoTangent, _by_name(tdkwargs, changed))
    return _fwd_fcall(replace_positional, NoTangent, p, d, NoTangent, NoTangent, tp, td)


def rrule(f: Any, args: tuple, dargs: Any, kwargs: dict, dkwargs: Any) -> Any:
    from ..reverse.adjoints import AdjDict, AdjTuple
    from .api_rules import _expand, _rev_fcall

    planned = positional(args[0], kwargs)
    if planned is None:
        return None
    fields, sources, changed = planned
    p = (args[0], fields, sources, tuple(kwargs[k] for k in changed))
    d = (_expand(dargs, 1)[0], NoTangent, NoTangent, _by_name(dkwargs, changed))
    out, pb = _rev_fcall(replace_positional, NoTangent, p, d)

    def pullback(g: Any) -> tuple:
        f_bar, a_bar, d_bar, df_bar = pb(g)
        a_bar, d_bar = _expand(a_bar, 4), _expand(d_bar, 4)
        v_bar, dv_bar = _expand(a_bar[3], len(changed)), _expand(d_bar[3], len(changed))
        k_bar = AdjDict({k: v_bar[i] for i, k in enumerate(changed)})
        dk_bar = AdjDict({k: dv_bar[i] for i, k in enumerate(changed)}) if isinstance(dkwargs, dict) else NoTangent
        return NoTangent, NoTangent, AdjTuple((a_bar[0],)), AdjTuple((d_bar[0],)), k_bar, dk_bar

    return out, pullback
