"""Rules of `itertools` and `heapq` selections (issue 12, realistic code), both modes.

itertools' iterators are classes without Python source, so they need rules.  Most of them only move
items around: item k of the result (or its component j, for the tuples pairwise/product/combinations
yield) *is* item i of input m.  Such a call is described by that map (a "plan"), computed with the
same itertools call on positions in place of items, so itertools itself decides the order, and both
modes follow it: forward mode gives each result item the tangents of the items it holds; reverse mode
adds the result items' adjoints back onto the items they came from (an item used several times, as in
`product(a, a)`, collects all of its uses).

`accumulate(it, func)` and `starmap(func, it)` call a function: every call goes through fcall/rcall,
so it may be any differentiable callable (a lambda, a closure over differentiated values, a ufunc).

Lists and arrays are read when the call is made, and the result is an iterator over the list of results.
An iterator passed in is read as the result's consumer asks (itertools_lazy.py: `next(islice(it, 3))` pulls one
item, and the next reader of `it` finds the rest), in both modes.  Left out on purpose: the
infinite iterators (cycle, repeat without `times`; count has its own rules, itertools_count.py); tee reads its
input as its furthest iterator asks (itertools_lazy.py).
These rules have no derivative of their own: second orders follow plain-Python models (itertools_models.py),
which reverse mode of accumulate over arrays uses at the first order too.  Keyword arguments' tangents (accumulate's
`initial`, zip_longest's `fillvalue`) reach the forward rules through forward/runtime.fcall
(`sees_keyword_tangents`).

heapq.nlargest/nsmallest/merge are selections too (their plan: heapq on positions, keyed by the
items).  bisect's searches return positions: zero derivative.
"""
from __future__ import annotations

import bisect
import heapq
import itertools
import operator

import numpy as np

from ..tangents import NoTangent
from . import itertools_lazy, itertools_models
from .call_binding import KwAdj
from .itertools_models import holds_storage, model_rrule
from .registry import defrrule_at_run_time, defrule, defzero


def _tangents(items, d):
    from .builtin_iteration import iter_tangents

    if d is NoTangent or d is None:
        return [NoTangent] * len(items)
    return list(iter_tangents(items, d))[: len(items)]


def _gs(g, n):
    """The result items' adjoints (zero for items never consumed)."""
    gs = [] if g is NoTangent or g is None else list(g)
    return gs[:n] + [NoTangent] * (n - len(gs))


def _items_iterator(items):
    """The result in reverse mode: a plain iterator over the items (consumed by loops like any other)."""
    from ..reverse.builtin_adjoints import ItemsIterator

    return ItemsIterator(items)


def _component(g, j):
    from ..reverse.part_adjoints import item_of

    return item_of(g, j)


# ------------------------------------------------------------------ selections
def _selection(name, plan_of, fn=None):
    """Register a selection: plan_of(args, kwargs) -> (cols, plan, tuples, inputs), where cols[m] is
    the list of items of input m, plan[k] the (m, i) references of result item k (one, or one per
    component when `tuples`), and inputs[m] the argument position (an int) or keyword (a str) input
    m came from."""

    def build(cols, plan, tuples):
        if tuples:
            return [tuple(cols[m][i] for m, i in refs) for refs in plan]
        return [cols[refs[0][0]][refs[0][1]] for refs in plan]

    def frule(args, dargs, _mc_dkwargs=None, **kwargs):
        if itertools_lazy.wanted(fn, args, kwargs):  # (an iterator read as the consumer asks: itertools_lazy.py)
            return itertools_lazy.frule(fn, args, dargs, kwargs, _mc_dkwargs)
        cols, plan, tuples, inputs = plan_of(args, kwargs)
        dkwargs = _mc_dkwargs or {}
        dcols = []
        for items, where in zip(cols, inputs):
            d = dkwargs.get(where, NoTangent) if isinstance(where, str) else dargs[where]
            single = getattr(items, "_mc_single", False)
            if getattr(items, "_mc_part", False):
                dcols.append(_tangents_of_a_part(args[where], items, d))
            else:
                dcols.append([d] if single else _tangents(items, d))
        return iter(build(cols, plan, tuples)), iter(build(dcols, plan, tuples))

    frule.sees_keyword_tangents = True  # (forward/runtime.fcall hands it the keywords' tangents)

    def rrule(*args, **kwargs):
        from ..reverse.adjoints import accumulate
        from ..reverse.builtin_adjoints import ItemsIterator, _like
        from ..reverse.iterator_adjoints import positioned

        if itertools_lazy.wanted(fn, args, kwargs):
            return itertools_lazy.rrule(fn, args, kwargs)
        starts = {i: a._i for i, a in enumerate(args) if isinstance(a, ItemsIterator)}  # (before plan_of reads them)
        cols, plan, tuples, inputs = plan_of(args, kwargs)
        ys = build(cols, plan, tuples)

        def pullback(g):
            bars = [[NoTangent] * len(c) for c in cols]
            for k, gk in enumerate(_gs(g, len(plan))):
                if gk is NoTangent or gk is None:
                    continue
                for j, (m, i) in enumerate(plan[k]):
                    part = _component(gk, j) if tuples else gk
                    bars[m][i] = accumulate(bars[m][i], part)
            out, named = [NoTangent] * len(args), {}
            for m, where in enumerate(inputs):
                if all(b is NoTangent for b in bars[m]):
                    continue
                source = args[where] if isinstance(where, int) else kwargs[where]
                if getattr(cols[m], "_mc_single", False):
                    bar = bars[m][0]
                elif isinstance(where, int) and where in starts:  # (our iterator, read from where it stood: those slots)
                    bar = positioned(bars[m], list(range(starts[where], starts[where] + len(bars[m]))))
                else:
                    bar = _like(source, bars[m])
                if isinstance(where, int):
                    out[where] = accumulate(out[where], bar)
                else:
                    named[where] = bar
            return tuple(out) + ((KwAdj(named),) if named else ())

        return _items_iterator(ys), pullback

    return frule, rrule


def _pairwise(args, kwargs):
    (it,) = args
    items = list(it)
    return [items], [[(0, i), (0, i + 1)] for i in range(len(items) - 1)], True, [0]


def _product(args, kwargs):
    repeat = kwargs.get("repeat", 1)
    itertools.product(repeat=repeat)  # (itertools checks repeat: a negative one raises, as the plain call does)
    cols = [list(a) for a in args]
    n = len(cols)
    pools = [range(len(c)) for c in cols] * repeat
    plan = [[(j % n, i) for j, i in enumerate(idx)] for idx in itertools.product(*pools)] if n else [[]] * (repeat >= 0)
    return cols, plan, True, list(range(n))


def _choose(fn):
    def plan_of(args, kwargs):
        items = list(args[0])
        rest = args[1:] + tuple(kwargs.values())
        plan = [[(0, i) for i in idx] for idx in fn(range(len(items)), *rest)]
        return [items], plan, True, [0]

    return plan_of


def _chain(args, kwargs):
    cols = [list(a) for a in args]
    return cols, [[(m, i)] for m, c in enumerate(cols) for i in range(len(c))], False, list(range(len(cols)))


def _islice(args, kwargs):
    it, rest = args[0], args[1:]
    s = slice(*rest)
    if s.stop is None:
        items = list(it)
    else:
        items = _Part(itertools.islice(it, s.stop))
    return [items], [[(0, i)] for i in itertools.islice(range(len(items)), *rest)], False, [0]


class _Part(list):
    """The first items of an iterator that is read on afterwards (`islice(it, stop)`): only their tangents are taken
    from the iterator's tangent, the rest wait there for the next reader (`list(it)`, the next chunk)."""

    _mc_part = True


def _tangents_of_a_part(it, items, d):
    """The tangents of the len(items) items just read from `it`, taken from its tangent alone (an iterator, or a
    queue: a list popped from its front, as next() does); the tangents of a list or array read in part are its first."""
    from ..lazy_iteration import is_iterator

    if d is NoTangent or d is None:
        return [NoTangent] * len(items)
    if not is_iterator(it):
        return _tangents(items, d)
    if isinstance(d, list):
        out = [d.pop(0) if d else NoTangent for _ in items]
        return out
    if is_iterator(d):
        return list(itertools.islice(d, len(items)))
    return _tangents(items, d)


def _compress(args, kwargs):
    bound = dict(zip(("data", "selectors"), args), **kwargs)
    items = list(bound["data"])
    keep = list(itertools.compress(range(len(items)), bound["selectors"]))
    return [items], [[(0, i)] for i in keep], False, [0 if args else "data"]


def _while(fn):
    def plan_of(args, kwargs):
        pred, it = args
        items = list(it)
        keep = list(fn(lambda i: pred(items[i]), range(len(items))))
        return [items], [[(0, i)] for i in keep], False, [1]

    return plan_of


def _repeat(args, kwargs):
    x = args[0]
    times = args[1] if len(args) > 1 else kwargs.get("times")
    if times is None:
        raise NotImplementedError("derivative of itertools.repeat without `times` (an infinite iterator): pass times")
    return [_Single(x)], [[(0, 0)]] * max(int(times), 0), False, [0]


class _Single(list):
    """One item that is the argument itself (repeat's object): its adjoint is the item's, not a list."""

    _mc_single = True

    def __init__(self, x):
        super().__init__([x])


def _zip_longest(args, kwargs):
    """Each tuple takes item i of every input, or the fill value (one more input: the `fillvalue` argument
    itself, whose adjoint collects every use) where that input has run out."""
    cols = [list(a) for a in args]
    n = max((len(c) for c in cols), default=0)
    fill = len(cols)
    cols.append(_Single(kwargs.get("fillvalue")))
    plan = [[(m, i) if i < len(cols[m]) else (fill, 0) for m in range(fill)] for i in range(n)]
    return cols, plan, True, list(range(fill)) + ["fillvalue"]


def _heap_select(which):
    def plan_of(args, kwargs):
        n, it = args[0], args[1]
        key = kwargs.get("key", args[2] if len(args) > 2 else None)
        items = list(it)
        k = (lambda i: key(items[i])) if key is not None else (lambda i: items[i])
        return [items], [[(0, i)] for i in which(n, range(len(items)), key=k)], False, [1]

    return plan_of


def _merge(args, kwargs):
    cols = [list(a) for a in args]
    key, reverse = kwargs.get("key"), kwargs.get("reverse", False)
    k = (lambda mi: key(cols[mi[0]][mi[1]])) if key is not None else (lambda mi: cols[mi[0]][mi[1]])
    order = heapq.merge(*[[(m, i) for i in range(len(c))] for m, c in enumerate(cols)], key=k, reverse=reverse)
    return cols, [[mi] for mi in order], False, list(range(len(cols)))


def _as_list_rule(name, fn, plan_of):
    """heapq.nlargest/nsmallest return lists, not iterators."""
    frule, rrule = _selection(name, plan_of)

    def f(args, dargs, **kwargs):
        y, dy = frule(args, dargs, **kwargs)
        return list(y), list(dy)

    def r(*args, **kwargs):
        y, pb = rrule(*args, **kwargs)
        return list(y), pb

    defrule(fn, f)
    defrrule_at_run_time(fn, r)


SELECTIONS = {
    itertools.pairwise: _pairwise,
    itertools.product: _product,
    itertools.combinations: _choose(itertools.combinations),
    itertools.combinations_with_replacement: _choose(itertools.combinations_with_replacement),
    itertools.permutations: _choose(itertools.permutations),
    itertools.chain: _chain,
    itertools.chain.from_iterable: lambda args, kwargs: _chain(tuple(args[0]), {}),
    itertools.islice: _islice,
    itertools.compress: _compress,
    itertools.takewhile: _while(itertools.takewhile),
    itertools.dropwhile: _while(itertools.dropwhile),
    itertools.filterfalse: _while(itertools.filterfalse),
    itertools.repeat: _repeat,
    itertools.zip_longest: _zip_longest,
    heapq.merge: _merge,
}
for _fn, _plan in SELECTIONS.items():
    _f, _r = _selection(getattr(_fn, "__qualname__", str(_fn)), _plan, _fn)
    defrule(_fn, _f)
    defrrule_at_run_time(_fn, _r)
_as_list_rule("heapq.nlargest", heapq.nlargest, _heap_select(heapq.nlargest))
_as_list_rule("heapq.nsmallest", heapq.nsmallest, _heap_select(heapq.nsmallest))


# chain.from_iterable's adjoint goes to the outer iterable: one adjoint per inner iterable.
def _from_iterable_rrule(outer):
    from ..reverse.builtin_adjoints import _like

    inner = list(outer)
    _, rrule = _selection("itertools.chain.from_iterable", _chain, itertools.chain)
    y, pb = rrule(*inner)

    def pullback(g):
        bars = pb(g)
        return (_like(outer, list(bars)) if any(b is not NoTangent for b in bars) else NoTangent,)

    return y, pullback


def _from_iterable_frule(args, dargs, **kwargs):
    inner = list(args[0])
    dinner = _tangents(inner, dargs[0])
    f, _ = _selection("itertools.chain.from_iterable", _chain, itertools.chain)
    return f(tuple(inner), tuple(dinner))


defrule(itertools.chain.from_iterable, _from_iterable_frule)
defrrule_at_run_time(itertools.chain.from_iterable, _from_iterable_rrule)


# ------------------------------------------------------------------ calls of a function
def _accumulate_args(args, kwargs):
    it = args[0]
    func = args[1] if len(args) > 1 else kwargs.get("func")
    return list(it), (operator.add if func is None else func), kwargs.get("initial")


def frule_accumulate(args, dargs, _mc_dkwargs=None, **kwargs):
    from ..forward.runtime import fcall

    if itertools_lazy.wanted(itertools.accumulate, args, kwargs):  # (an iterator, read as asked: itertools_lazy.py)
        return itertools_lazy.frule_accumulate(args, dargs, _mc_dkwargs or {}, kwargs)
    items, func, initial = _accumulate_args(args, kwargs)
    ditems = _tangents(items, dargs[0])
    dkwargs = _mc_dkwargs or {}
    dfunc = dargs[1] if len(args) > 1 else dkwargs.get("func", NoTangent)
    if initial is not None:
        items, ditems = [initial] + items, [dkwargs.get("initial", NoTangent)] + ditems
    if not items:
        return iter([]), iter([])
    ys, dys = [items[0]], [ditems[0]]
    for x, dx in zip(items[1:], ditems[1:]):
        y, dy = fcall(func, dfunc, (ys[-1], x), (dys[-1], dx))
        ys.append(y)
        dys.append(dy)
    return iter(ys), iter(dys)


frule_accumulate.sees_keyword_tangents = True  # (forward/runtime.fcall hands it the keywords' tangents)


def rrule_accumulate(*args, **kwargs):
    from ..reverse.adjoints import accumulate
    from ..reverse.builtin_adjoints import _like
    from ..reverse.runtime import rcall

    if itertools_lazy.wanted(itertools.accumulate, args, kwargs) and not holds_storage([kwargs.get("initial")]):
        return itertools_lazy.rrule_accumulate(args, kwargs)
    items, func, initial = _accumulate_args(args, kwargs)
    if holds_storage(items) or holds_storage([initial]):  # (arrays: their adjoints by identity, itertools_models)
        return model_rrule(itertools_models.accumulate, (items, *args[1:]), kwargs)
    has_initial = initial is not None
    seq = ([initial] if has_initial else []) + items
    ys, calls = seq[:1], []
    for x in seq[1:]:
        y, pb = rcall(func, (ys[-1], x), {})
        ys.append(y)
        calls.append(pb)

    def pullback(g):
        gs = _gs(g, len(ys))
        bars = [NoTangent] * len(seq)
        carry = NoTangent
        fn_bar = NoTangent
        for k in reversed(range(1, len(ys))):
            total = accumulate(gs[k], carry)
            fb, ab, _ = calls[k - 1](total)
            fn_bar = accumulate(fn_bar, fb)
            bars[k] = accumulate(bars[k], ab[1])
            carry = ab[0]
        if seq:
            bars[0] = accumulate(bars[0], accumulate(gs[0], carry))
        item_bars = bars[1:] if has_initial else bars
        out = [_like(args[0], item_bars) if any(b is not NoTangent for b in item_bars) else NoTangent]
        named = {}
        if len(args) > 1:
            out.append(fn_bar)
        elif "func" in kwargs and fn_bar is not NoTangent:
            named["func"] = fn_bar
        if has_initial and bars[0] is not NoTangent:
            named["initial"] = bars[0]
        return tuple(out) + ((KwAdj(named),) if named else ())

    return _items_iterator(ys), pullback


def frule_starmap(args, dargs, **kwargs):
    from ..forward.runtime import fcall

    if itertools_lazy.wanted(itertools.starmap, args, kwargs):
        return itertools_lazy.frule_starmap(args, dargs)
    func, it = args
    items = list(it)
    ditems = _tangents(items, dargs[1])
    ys, dys = [], []
    for x, dx in zip(items, ditems):
        y, dy = fcall(func, dargs[0], tuple(x), _tangents(list(x), dx) if dx is not NoTangent else NoTangent)
        ys.append(y)
        dys.append(dy)
    return iter(ys), iter(dys)


def rrule_starmap(func, it):
    from ..reverse.adjoints import AdjTuple, accumulate
    from ..reverse.builtin_adjoints import _like
    from ..reverse.runtime import rcall

    if itertools_lazy.wanted(itertools.starmap, (func, it), {}):
        return itertools_lazy.rrule_starmap((func, it))
    items = [tuple(x) for x in it]
    calls = [rcall(func, x, {}) for x in items]

    def pullback(g):
        gs = _gs(g, len(calls))
        fn_bar, bars = NoTangent, []
        for k in reversed(range(len(calls))):
            fb, ab, _ = calls[k][1](gs[k])
            fn_bar = accumulate(fn_bar, fb)
            bars.append(AdjTuple(list(ab)))
        bars.reverse()
        return fn_bar, _like(it, bars)

    return _items_iterator([y for y, _ in calls]), pullback


defrule(itertools.tee, itertools_lazy.frule_tee)
defrrule_at_run_time(itertools.tee, itertools_lazy.rrule_tee)
defrule(itertools.accumulate, frule_accumulate)
defrrule_at_run_time(itertools.accumulate, rrule_accumulate)
defrule(itertools.starmap, frule_starmap)
defrrule_at_run_time(itertools.starmap, rrule_starmap)

# ------------------------------------------------------------------ positions: zero derivative
defzero(bisect.bisect_left, bisect.bisect_right, bisect.bisect)
