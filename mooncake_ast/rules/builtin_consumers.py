"""map(), filter() and dict(): builtins that consume iterables, with rules that run when the call runs.

Their forward (map, filter) and reverse (dict, filter, map) rules run with the actual arguments,
like a user's mc.frule / mc.rrule, so they know which item went where and can call the function
map() applies through the differentiating dispatchers.  `_run_time_reverse` is also how the
frontend's helpers (frontend/try_ops.py, frontend/generator_ops.py) get reverse rules of that kind.
"""
from __future__ import annotations

import builtins

from ..tangents import NoTangent
from .builtin_iteration import iter_tangents
from .registry import defrrule_at_run_time, defrule


# ------------------------------------------------------------------ higher-order builtins (run-time rules)
def frule_map(args, dargs, **kwargs):
    """map(f, *iterables): each call through fcall, so f may be any differentiable callable."""
    from ..forward.runtime import fcall

    from ..lazy_iteration import is_iterator
    from .builtin_iteration import zip_tangent

    f, its = args[0], args[1:]
    df, dits = dargs[0], dargs[1:]
    columns, dcolumns = [], []
    if len(its) > 1 and any(is_iterator(it) for it in its):
        # (map pulls its iterables in turn, one item each per call, as zip does: `map(f, it, it)` pairs items 0
        # and 1 of it; reading each whole first gave the first all of them)
        dz = zip_tangent(its, dits)
        rows = list(zip(*its))
        drows = list(dz) if dz is not NoTangent else [(NoTangent,) * len(its)] * len(rows)
        columns = [list(c) for c in zip(*rows)] if rows else [[] for _ in its]
        dcolumns = [list(c) for c in zip(*drows)] if drows else [[] for _ in its]
    for it, d in zip(its, dits) if not columns else ():
        items, ditems = _items_and_tangents(it, d)
        columns.append(items)
        dcolumns.append(ditems)
    ys, dys = [], []
    for items, ditems in zip(zip(*columns), zip(*dcolumns)):
        y, dy = fcall(f, df, items, ditems)
        ys.append(y)
        dys.append(dy)
    return _recorded(ys), _recorded(dys)


def _recorded(items):
    """An iterator over items that still knows them once consumed (reverse/builtin_adjoints.ItemsIterator): forward
    code differentiated again in reverse mode hands map's and filter's results to `sum` and the like, whose pullbacks
    read the items again (a plain `iter(ys)` was exhausted by then: the second derivative lost them)."""
    from ..reverse.builtin_adjoints import ItemsIterator

    return ItemsIterator(items)


def frule_filter(args, dargs, **kwargs):
    from ..forward.runtime import fcall

    f, it = args
    items, ditems = _items_and_tangents(it, dargs[1])
    keep = [(x, d) for x, d in zip(items, ditems) if (f(x) if f is not None else x)]
    return _recorded([x for x, _ in keep]), _recorded([d for _, d in keep])


def _items_and_tangents(it, d):
    """The items `it` yields and their tangents.  An instance of a user class yields them from its `__iter__`,
    which is differentiated like any user code (the dispatched `ops.sequence`, as a `for` loop over it is)."""
    from .. import ops
    from ..forward import objects
    from ..forward.runtime import fcall

    if objects.is_user_object(it) and d is not NoTangent:
        items, ditems = fcall(ops.sequence, NoTangent, (it,), (d,))
        items = list(items)
        return items, list(ditems) if ditems is not NoTangent else [NoTangent] * len(items)
    items = list(it)
    return items, iter_tangents(items, d) if d is not NoTangent else [NoTangent] * len(items)


defrule(builtins.map, frule_map)
defrule(builtins.filter, frule_filter)


# ------------------------------------------------------------------ run-time reverse rules
# dict(), filter() and map() consume iterables: their reverse rules run when the call runs (like a
# user's mc.rrule), so the pullback knows which item went where.

def rrule_dict(*args, **kwargs):
    """dict(x, **kw): x a mapping or an iterable of pairs (materialised first, so positions are known)."""
    from ..reverse.adjoints import AdjDict, AdjList, AdjTuple
    from ..reverse.builtin_adjoints import _like

    x = args[0] if args else None
    items = None
    if args and not hasattr(x, "keys"):
        items = [tuple(p) for p in x] if not isinstance(x, (list, tuple)) else list(x)
        y = builtins.dict(items, **kwargs)
    else:
        y = builtins.dict(*args, **kwargs)

    def pullback(g):
        from .call_binding import KwAdj

        if g is NoTangent or g is None:
            return (NoTangent,) * len(args)
        named = {k: g.get(k, NoTangent) for k in kwargs}  # dict(r=x): the value under "r" is x's
        if not args:
            return (KwAdj(named),)
        if items is None:
            return AdjDict({k: g[k] for k in x.keys() if k not in kwargs and k in g}), KwAdj(named)
        last = {k: i for i, (k, _) in enumerate(items)}
        out = []
        for i, pair in enumerate(items):
            k = pair[0]
            if last[k] == i and k not in kwargs and k in g:
                out.append((AdjList if isinstance(pair, list) else AdjTuple)([NoTangent, g[k]]))
            else:
                out.append(NoTangent)
        return _like(x, out), KwAdj(named)

    return y, pullback


def rrule_filter(f, it):
    from .. import ops
    from ..forward import objects
    from ..reverse.adjoints import AdjList
    from ..reverse.builtin_adjoints import _like
    from ..reverse.runtime import rcall

    # (a user object's items come from its `__iter__`, differentiated as a loop over it is)
    items, items_pb = rcall(ops.sequence, (it,), {}) if objects.is_user_object(it) else (it, None)
    items = list(items)
    keep = [i for i, x in enumerate(items) if (f(x) if f is not None else x)]

    def pullback(g):
        out = [NoTangent] * len(items)
        gs = list(g) if g is not NoTangent and g is not None else []
        for pos, i in enumerate(keep):
            if pos < len(gs):
                out[i] = gs[pos]
        if not any(v is not NoTangent for v in out):
            return NoTangent, NoTangent
        return NoTangent, _like(it, out) if items_pb is None else items_pb(AdjList(out))[1][0]

    from ..reverse.builtin_adjoints import ItemsIterator

    return ItemsIterator([items[i] for i in keep]), pullback  # (sum(filter(...)) reads the items it gave)


def rrule_map(f, *its):
    """map's reverse is done by reverse/runtime.py (each call through rcall); this entry delegates to it."""
    from ..reverse.runtime import _map

    y, pb = _map(builtins.map, (f, *its), {})
    return y, lambda g: pb(g)[1]


defrrule_at_run_time(builtins.dict, rrule_dict)
defrrule_at_run_time(builtins.filter, rrule_filter)
defrrule_at_run_time(builtins.map, rrule_map)
