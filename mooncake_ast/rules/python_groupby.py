"""`itertools.groupby(it, key=None)` in both modes (issue 12, realistic code).

groupby is a class without Python source.  It yields `(k, group)` pairs: `group` an iterator over a run of
consecutive items with equal keys, `k` the key of the run's first item (CPython keeps the key it computed
for the item that opened the run).  Without a key function the key *is* that item, so it carries the item's
tangent; with one, the key is `key(item)`, whose derivative comes from differentiating that call.

Both rules read the input once, as the plain call reads it over the whole iteration, call the key function
on every item in order (as groupby does: through fcall / rcall, so a lambda, a closure over differentiated
values or a ufunc all work), and split the items into runs by comparing consecutive keys with `==` as
groupby does.  The result is an iterator over `(k, iterator over the run's items)`; forward mode gives each
run's items the tangents of the items they are, and reverse mode sends the adjoints of a run's items back to
those items, and the key's adjoint to the first item (or into its key call's pullback).

A difference from the plain call, which does not matter for the values: groupby's groups share one
underlying iterator, so a group read after the next one was started is empty; here each group keeps its items.
"""
from __future__ import annotations

import itertools

from ..tangents import NoTangent
from .call_binding import KwAdj
from .registry import defrrule_at_run_time, defrule

_NO_KEY = object()


def _runs(keys: list) -> list:
    """The positions of each run of equal consecutive keys (groupby's own comparison: `!=` of the keys)."""
    runs: list = []
    current = _NO_KEY
    for i, k in enumerate(keys):
        if current is _NO_KEY or k != current:
            runs.append([i])
            current = k
        else:
            runs[-1].append(i)
    return runs


def _bind(args: tuple, kwargs: dict) -> tuple:
    if len(args) > 2 or set(kwargs) - {"key"} or (len(args) == 2 and "key" in kwargs):
        itertools.groupby(*args, **kwargs)  # raises Python's TypeError
    key = args[1] if len(args) > 1 else kwargs.get("key")
    return list(args[0]), key


def frule_groupby(args, dargs, _mc_dkwargs=None, **kwargs):
    from ..forward.runtime import fcall
    from .python_itertools import _tangents

    items, key = _bind(args, kwargs)
    ditems = _tangents(items, dargs[0])
    if key is None:
        keys, dkeys = items, ditems
    else:
        dkey = dargs[1] if len(args) > 1 else (_mc_dkwargs or {}).get("key", NoTangent)
        pairs = [fcall(key, dkey, (x,), (dx,)) for x, dx in zip(items, ditems)]
        keys, dkeys = [p[0] for p in pairs], [p[1] for p in pairs]
    runs = _runs(keys)
    ys = [(keys[r[0]], iter([items[i] for i in r])) for r in runs]
    dys = [(dkeys[r[0]], iter([ditems[i] for i in r])) for r in runs]
    return iter(ys), iter(dys)


frule_groupby.sees_keyword_tangents = True  # (forward/runtime.fcall hands it the keywords' tangents)


def rrule_groupby(*args, **kwargs):
    from ..reverse.adjoints import accumulate
    from ..reverse.builtin_adjoints import ItemsIterator, _like
    from ..reverse.runtime import rcall
    from .python_itertools import _component, _gs

    items, key = _bind(args, kwargs)
    if key is None:
        keys, calls = items, None
    else:
        calls = [rcall(key, (x,), {}) for x in items]
        keys = [y for y, _ in calls]
    runs = _runs(keys)
    ys = [(keys[r[0]], ItemsIterator([items[i] for i in r])) for r in runs]

    def pullback(g):
        bars = [NoTangent] * len(items)
        key_bars = [NoTangent] * len(items)
        for r, gk in zip(runs, _gs(g, len(runs))):
            if gk is NoTangent or gk is None:
                continue
            key_bars[r[0]] = accumulate(key_bars[r[0]], _component(gk, 0))
            group = _component(gk, 1)
            if group is NoTangent or group is None:
                continue
            for i, gi in zip(r, list(group)):
                bars[i] = accumulate(bars[i], gi)
        fn_bar = NoTangent
        for i in reversed(range(len(items))):
            if key_bars[i] is NoTangent:
                continue
            if calls is None:
                bars[i] = accumulate(bars[i], key_bars[i])
            else:
                fb, ab, _ = calls[i][1](key_bars[i])
                fn_bar = accumulate(fn_bar, fb)
                bars[i] = accumulate(bars[i], ab[0])
        out = [_like(args[0], bars) if any(b is not NoTangent for b in bars) else NoTangent]
        if len(args) > 1:
            out.append(fn_bar)
        elif "key" in kwargs and fn_bar is not NoTangent:
            return tuple(out) + (KwAdj({"key": fn_bar}),)
        return tuple(out)

    return ItemsIterator(ys), pullback


defrule(itertools.groupby, frule_groupby)
defrrule_at_run_time(itertools.groupby, rrule_groupby)
