"""Iteration, unpacking and sequence conversion (`for`, `a, *b = x`, list(), zip(), next(), ...), both modes.

The tangent of an iterable is indexable like its items (`iter_tangents`); iterating a dict, a set,
a string or a range yields items without a derivative.  These helpers are the base of the other
builtin tables (rules/builtin_*.py) and of many rule modules that consume iterables.
"""
from __future__ import annotations

import builtins
import itertools

import numpy as np

from ..errors import UnsupportedDerivativeError
from .. import ops
from ..lazy_iteration import LazySequence, Zeros, is_iterator
from ..tangents import MutableTangent, NoTangent, is_zero_derivative
from .registry import defcomplex, defjvp, defvjp


def _tangents(t, xs):
    return [t.dz(x) for x in xs]


def _A():
    """reverse/adjoints, imported when a reverse template first runs (it imports rules)."""
    from ..reverse import adjoints

    return adjoints


# ------------------------------------------------------------------ forward rules
defjvp(ops.sequence, lambda t, y, x: t.call(sequence_tangent, x, y, t.d(x)) if t.d(x) is not None else None)
defjvp(ops.whole_sequence, lambda t, y, x: t.call(sequence_tangent, x, y, t.d(x)) if t.d(x) is not None else None)
defjvp(ops.all_items, lambda t, y, seq: t.call(all_items_tangent, y, t.d(seq)) if t.d(seq) is not None else None)
defjvp(ops.unpack, lambda t, y, x, n: t.call(unpack_tangent, t.d(x), n) if t.d(x) is not None else None)
defjvp(ops.unpack_star, lambda t, y, x, i, j: t.call(unpack_star_tangent, t.d(x), x, i, j) if t.d(x) is not None else None)
defjvp(ops.concat_tuple, lambda t, y, *parts: t.call(concat_tangent, *[t.call(ops.tuple_of, p, t.dz(p)) for p in parts]))
defjvp(ops.merge_dicts, lambda t, y, *parts: t.call(merge_tangent, *[t.call(ops.tuple_of, p, t.dz(p)) for p in parts]))
defjvp(ops.merge_kwargs, lambda t, y, *parts: t.call(merge_tangent, *[t.call(ops.tuple_of, p, t.dz(p)) for p in parts]))
defjvp(builtins.list, lambda t, y, xs=(): t.call(list_tangent, xs, t.d(xs)) if t.d(xs) is not None else None)
defjvp(builtins.tuple, lambda t, y, xs=(): t.call(tuple_tangent, xs, t.d(xs)) if t.d(xs) is not None else None)
defjvp(builtins.zip, lambda t, y, *xs: t.call(zip_tangent, t.call(ops.tuple_of, *xs), t.call(ops.tuple_of, *_tangents(t, xs))))
defjvp(builtins.enumerate, lambda t, y, xs, start=0: t.call(enumerate_tangent, xs, t.d(xs)) if t.d(xs) is not None else None)
defjvp(builtins.reversed, lambda t, y, xs: t.call(reversed_tangent, xs, t.d(xs)) if t.d(xs) is not None else None)
defjvp(builtins.sorted, lambda t, y, xs, **kw: t.call(sorted_tangent, xs, t.d(xs), t.call(ops.dict_of, *[z for k, v in kw.items() for z in (k, v)])) if t.d(xs) is not None else None)
defjvp(builtins.iter, lambda t, y, xs, *sentinel: t.call(iter_tangent, xs, y, t.d(xs)) if t.d(xs) is not None and not sentinel else None)
defjvp(builtins.next, lambda t, y, it, *default: t.call(next_tangent, t.d(it), *[t.dz(d) for d in default])
       if t.d(it) is not None or any(t.d(d) is not None for d in default) else None, mutates=(0,))


def iter_tangents(xs, dxs):
    """The tangents of the items `iter(xs)` yields (iterating a dict yields its keys: no tangent)."""
    if dxs is NoTangent or isinstance(xs, (dict, set, frozenset, str, range)):
        return [NoTangent] * len(xs) if hasattr(xs, "__len__") else NoTangent
    if isinstance(dxs, MutableTangent):  # (an object's fields: its items come from its `__iter__`, run in C)
        if is_zero_derivative(dxs):
            return [NoTangent] * len(xs) if hasattr(xs, "__len__") else NoTangent
        raise UnsupportedDerivativeError(
            f"forward mode: a {type(xs).__module__}.{type(xs).__qualname__} object was read as its items by code that "
            f"is not differentiated (its `__iter__` run inside a builtin such as map(), zip() or itertools), so "
            f"their tangents are not known; read the items first with `list(obj)` or a loop (`for v in obj`)")
    if isinstance(dxs, (zip, map, type(reversed([])))):
        return list(dxs)
    return list(dxs)


def sequence_tangent(x, seq, dx):
    """Tangent of `ops.sequence(x)`: indexable and iterable like the sequence itself."""
    if isinstance(seq, LazySequence):  # an iterator, read as the loop asks: its tangents are read in step
        return _lazy_tangents(x, seq, dx)
    if isinstance(seq, Zeros):  # (symbolic zeros differentiated again: zeros, as many as the loop pulls -- not [])
        return Zeros(seq._seq)
    return listed_tangents(x, seq, dx)


def listed_tangents(x, seq, dx):
    """Tangent of `ops.sequence(x)` for a list, tuple, array or a materialised iterable (plain Python: reverse mode over
    forward code traces it, rrule_sequence_tangent)."""
    if dx is NoTangent:
        return [NoTangent] * len(seq)
    if seq is x:
        return dx
    if isinstance(x, (dict, set, frozenset)):
        return [NoTangent] * len(seq)
    if isinstance(dx, MutableTangent):  # an object's fields: its items come from code not differentiated
        if is_zero_derivative(dx):
            return [NoTangent] * len(seq)
        raise UnsupportedDerivativeError(
            f"forward mode of a for loop over a {type(x).__module__}.{type(x).__qualname__}: its items come from code "
            f"that is not differentiated, so their tangents are not known; loop over the array or list itself (e.g. "
            f"`for i in range(len(x))` in place of np.ndenumerate)")
    return list(dx) if not isinstance(dx, list) else dx


def _lazy_tangents(x, seq, dx):
    """The tangents of the items a loop pulls from the iterator x, pulled from x's tangent (an iterator over its
    items' tangents, or a queue) one at a time as the loop pulls x's items."""
    if dx is NoTangent or dx is None:
        return Zeros(seq)
    if isinstance(dx, MutableTangent):  # (an object's fields: its items come from code not differentiated)
        if is_zero_derivative(dx):
            return Zeros(seq)
        live = _live_source(x, seq)
        if live is not None:
            return pulled_tangents(_live_tangents_of(live, dx))
        raise UnsupportedDerivativeError(
            f"forward mode of a for loop over a {type(x).__module__}.{type(x).__qualname__}: its items come from code "
            f"that is not differentiated, so their tangents are not known; loop over the array or list itself")
    return seq.followed_by(pulled_tangents(dx))  # (pulled with the items: lazy_iteration.LazySequence.followed_by)


def pulled_tangents(source):
    """The tangents a loop over an iterator reads, pulled from `source` (its tangent: a queue, a list taken from its
    front as next() takes from it, or an iterator over the items' tangents) one at a time as the loop pulls the
    iterator's items.  Its own function, so that reverse mode over forward code (a second derivative) has a rule for
    it (rrule_pulled_tangents, below): the LazySequence's pulls run outside the traced code."""
    return LazySequence(source)


def all_items_tangent(seq, dseq):
    """The tangent of `ops.all_items(seq)`: the tangents of all of seq's items (read in step with them)."""
    if isinstance(dseq, Zeros):
        return [NoTangent] * len(seq)
    if isinstance(dseq, LazySequence):
        dseq._fill(len(seq))
    return dseq


def unpack_tangent(dx, n):
    if dx is NoTangent:
        return (NoTangent,) * n
    return tuple(dx)


def unpack_star_tangent(dx, x, i, j):
    items = iter_tangents(x, dx) if dx is not NoTangent else [NoTangent] * len(list(x))
    stop = len(items) - j
    return (*items[:i], items[i:stop], *items[stop:])


def concat_tangent(*pairs):
    out: tuple = ()
    for p, dp in pairs:
        out = out + (tuple(iter_tangents(p, dp)) if dp is not NoTangent else (NoTangent,) * len(tuple(p)))
    return out


def merge_tangent(*pairs):
    out: dict = {}
    for p, dp in pairs:
        for k in p:
            out[k] = dp[k] if dp is not NoTangent else NoTangent
    return out


def list_tangent(xs, dxs):
    return iter_tangents(xs, dxs) if dxs is not NoTangent else [NoTangent] * len(list(xs))


def tuple_tangent(xs, dxs):
    return tuple(list_tangent(xs, dxs))


def zip_tangent(xs, dxs):
    if any(is_iterator(x) for x in xs):
        if all(d is NoTangent or d is None for d in dxs):
            return NoTangent  # (no tangent to pull: the zeros would never end)
        # (zip pulls its inputs in turn, one item each per tuple: so do the tangents, from each input's tangent
        # iterator in step -- `zip(it, it)` pairs items 0 and 1, then 2 and 3, as their tangents)
        return zip(*[_tangent_source(x, d, sources) for sources in [{}] for x, d in zip(xs, dxs)])
    cols = [iter_tangents(x, d) if d is not NoTangent else [NoTangent] * len(list(x)) for x, d in zip(xs, dxs)]
    return list(zip(*cols))


def _tangent_source(x, d, sources):
    """An iterator over the tangents of the items zip pulls from x: a sequence's, as many as its items; an
    iterator's, from its tangent iterator (a queue: taken from its front), one per input object (`zip(it, it)`:
    the same one twice)."""
    if not is_iterator(x):
        return iter(iter_tangents(x, d) if d is not NoTangent and d is not None else [NoTangent] * len(x))
    if d is NoTangent or d is None:
        return itertools.repeat(NoTangent)  # (zip stops at its shortest input: another is finite)
    if id(d) not in sources:
        sources[id(d)] = iter(pulled_tangents(d))  # (a queue is taken from its front)
    return sources[id(d)]


def enumerate_tangent(xs, dxs):
    items = iter_tangents(xs, dxs)
    return list(zip([NoTangent] * len(items), items))


def reversed_tangent(xs, dxs):
    return iter_tangents(xs, dxs)[::-1]


_SEQUENCE_ITERATORS = (type(iter([])), type(iter(np.zeros(1))))


class LiveTangents:
    """The tangent of `iter(xs)` for a list or an array xs: the items' tangents read from xs's tangent storage as the
    iterator reaches them, as Python's iterator reads xs's items.  (A queue taken when the iterator was made missed
    what was written, or appended, between: `it = iter(xs); a = next(it); xs[1] = y; b = next(it)` had the old
    item's tangent.)"""

    def __init__(self, dxs):
        self.dxs, self.pos = dxs, 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.pos >= len(self.dxs):
            raise StopIteration
        self.pos += 1
        return self.dxs[self.pos - 1]


def _live_source(x, seq):
    """The LiveTangents a loop's sequence `seq` over x pulls from, before its first pull, when x is it (forward code
    differentiated again loops over `iter(xs)`'s tangents); else None.  (Not when x is that LiveTangents' own tangent,
    a MutableTangent, one order further: taking its dxs from the same position gave 34.33 for 32.79, refused.)"""
    if not isinstance(seq, LazySequence) or list.__len__(seq) != 0:
        return None
    live = seq._source
    if type(live) is not LiveTangents:
        return None
    return live if x is live else None


def _live_tangents_of(live, dlive):
    """The tangent of the items a loop pulls from `live` (a LiveTangents: forward code differentiated again loops over
    the tangents of `iter(xs)`'s items), given live's own tangent (its fields: dxs's tangent, the tangents of those
    tangents): a LiveTangents over them, from where `live` stands now -- the loop pulls both in step."""
    ddxs = dlive.fields.get("dxs", NoTangent)
    out = LiveTangents(ddxs if ddxs is not NoTangent and ddxs is not None else [NoTangent] * len(live.dxs))
    out.pos = live.pos
    return out


def iter_tangent(xs, y, dxs):
    """The tangent of iter(xs): the items' tangents, consumed by `next` as the iterator is."""
    if y is xs:
        return dxs  # iter() of an iterator is that iterator
    if isinstance(xs, (list, np.ndarray)) and not (dxs is NoTangent or isinstance(dxs, MutableTangent)) and \
            type(y) in _SEQUENCE_ITERATORS and len(dxs) == len(xs):
        return LiveTangents(dxs)
    return list_tangent(xs, dxs)


_END = object()


def next_tangent(dit, *ddefault):
    """The tangent of next(it[, default]), taken before the call: the next queued tangent."""
    if dit is NoTangent:
        return NoTangent
    if isinstance(dit, list):
        d = dit.pop(0) if len(dit) > 0 else _END  # (len: reverse mode records a branch's test, `if dit` the list itself)
    elif isinstance(dit, MutableTangent):  # (an iterator object of the user's: its `__next__` runs in the call)
        if is_zero_derivative(dit):
            return NoTangent
        raise UnsupportedDerivativeError(
            "forward mode of next() on an iterator object of your class is not supported (its `__next__` runs "
            "inside next(), not differentiated): take the items with a `for` loop over it, or call "
            "`it.__next__()` yourself (in a derivative of order two or more, next() of an iterator over a list or "
            "an array is refused too: index the list instead)")
    else:
        d = next(dit, _END)
    if d is _END:
        return ddefault[0] if ddefault else NoTangent
    return d


def sorted_tangent(xs, dxs, kw):
    if dxs is NoTangent:
        return NoTangent
    from ..reverse.builtin_adjoints import last_read

    items = last_read(xs)  # (our iterator, exhausted by sorted(): the items it read)
    if items is None:
        items = list(xs)
        if not items and iter(xs) is xs:
            raise UnsupportedDerivativeError(
                f"forward mode of sorted() over an iterator ({type(xs).__name__}): its items are consumed by the call, "
                "so their tangents cannot be matched to the order afterwards; pass a list (`sorted(list(it))`)")
    key = kw.get("key")
    order = builtins.sorted(range(len(items)), key=(lambda i: key(items[i])) if key else (lambda i: items[i]), reverse=kw.get("reverse", False))
    d = iter_tangents(xs, dxs)
    return [d[i] for i in order]


# ------------------------------------------------------------------ reverse rules
defvjp(ops.sequence, lambda t, g, y, x: (t.call(loop_sequence_adjoint, x, g, y),))
defvjp(ops.whole_sequence, lambda t, g, y, x: (t.call(_A().sequence_adjoint, x, g),))
defvjp(ops.all_items, lambda t, g, y, seq: (g,))
defvjp(ops.unpack, lambda t, g, y, x, n: (t.call(_A().unpack_adjoint, x, g), None))
defvjp(ops.unpack_star, lambda t, g, y, x, i, j: (t.call(_A().unpack_star_adjoint, x, g, i, j), None, None))
defvjp(ops.concat_tuple, lambda t, g, y, *parts: tuple(t.call(_A().concat_part_adjoint, g, y, *parts, k) for k in range(len(parts))))
defvjp(ops.merge_dicts, lambda t, g, y, *parts: tuple(t.call(_A().merge_part_adjoint, g, p, *parts[i + 1:])
                                                       for i, p in enumerate(parts)))
defvjp(ops.merge_kwargs, lambda t, g, y, *parts: tuple(t.call(_A().merge_part_adjoint, g, p) for p in parts))


defvjp(builtins.list, lambda t, g, y, xs=(): (t.call(items_of_adjoint, xs, g),))
defvjp(builtins.tuple, lambda t, g, y, xs=(): (t.call(items_of_adjoint, xs, g),))


def loop_sequence_adjoint(x, g, seq):
    """The adjoint of x from that of `ops.sequence(x)`.  The sequence of a sequence is that sequence itself (forward
    code differentiated again loops over `zip(t1, dt1)` of sequences it made): its adjoint is the same storage, not
    to be placed again by the iterator's positions (a copy of it, added to it, counted every item twice: Hessians of
    loops over iterators came out doubled)."""
    if seq is x:
        return g
    return _A().sequence_adjoint(x, g, seq)


def items_of_adjoint(xs, g):
    """The adjoint of xs from that of list(xs)/tuple(xs).  The rows of an array are views: their
    adjoints may already sit in the array's storage (counted once, as for unpacking)."""
    from ..reverse.builtin_adjoints import sequence_adjoint
    from ..reverse.part_adjoints import unpack_adjoint
    import numpy as np

    if isinstance(xs, np.ndarray) and g is not NoTangent:
        return unpack_adjoint(xs, g)
    return sequence_adjoint(xs, g)


def xs_tuple(t, xs):
    return t.call(ops.tuple_of, *xs)


defvjp(builtins.zip, lambda t, g, y, *xs: tuple(t.call(_A().zip_adjoint, xs_tuple(t, xs), g, k) for k in range(len(xs))))
defvjp(builtins.enumerate, lambda t, g, y, xs, start=0: (t.call(_A().zip_adjoint, t.call(ops.tuple_of, range, xs), g, 1), None))
defvjp(builtins.reversed, lambda t, g, y, xs: (t.call(_A().reversed_adjoint, xs, g),))
defvjp(builtins.sorted, lambda t, g, y, xs, **kw: (t.call(_A().sorted_adjoint, xs, g, t.call(ops.dict_of, *[z for k, v in kw.items() for z in (k, v)])),))


# Iteration moves values without arithmetic: the adjoints move back unchanged.
defcomplex(ops.sequence, ops.whole_sequence, ops.all_items, ops.unpack, ops.unpack_star, ops.concat_tuple, ops.merge_dicts, ops.merge_kwargs,
           builtins.list, builtins.tuple, builtins.zip, builtins.enumerate, builtins.reversed)


# ------------------------------------------------------------------ next(), reverse mode
def rrule_next(it, *default):
    """next(it[, default]) in reverse mode: the iterators reverse mode makes count the items they hand out
    (lazy_iteration.py), so the item's adjoint goes to its own slot of the iterator's adjoint (a list, one slot per
    item handed out: a loop or `sum(it)` reading the rest fills the slots after it).  An iterator that does not
    count (Python's own, made by code not differentiated) is refused: which item it gave is not known."""
    from ..lazy_iteration import _END
    from ..reverse.iterator_adjoints import IteratorAdjoint

    position = getattr(it, "_mc_position", None)
    if position is None and not is_zero_derivative_iterator(it):
        raise UnsupportedDerivativeError(
            f"reverse mode of next() on a {type(it).__name__} iterator: which of its items it gave is not known to "
            "the derivative; make the iterator with iter() of a list or an array in the differentiated code, or take "
            "a list of its items (`items = list(it)`) and index it")
    take_one = getattr(it, "take_one", None)
    if take_one is not None and getattr(type(it), "__mc_value__", False):  # (a generator's: past its refusal of next())
        y = take_one()
        if y is _END:
            if default:
                return default[0], lambda g: (NoTangent, g)
            it._end()
    else:
        try:
            y = builtins.next(it)
        except StopIteration:
            if default:
                return default[0], lambda g: (NoTangent, g)
            raise

    def pullback(g):
        if g is NoTangent or g is None or position is None:
            return (NoTangent,) * (1 + len(default))
        return (IteratorAdjoint([NoTangent] * position + [g]),) + (NoTangent,) * len(default)

    return y, pullback


def is_zero_derivative_iterator(it):
    """An iterator over items without derivatives (a range's, a string's, a dict's keys): no adjoint to place."""
    return type(it).__name__ in ("range_iterator", "str_ascii_iterator", "str_iterator", "dict_keyiterator",
                                 "set_iterator", "bytes_iterator")


from .registry import defrrule_at_run_time as _defrrule_at_run_time  # noqa: E402

_defrrule_at_run_time(builtins.next, rrule_next)


def _rrule_reversed(xs):
    from ..reverse.builtin_adjoints import rrule_reversed

    return rrule_reversed(xs)


_defrrule_at_run_time(builtins.reversed, _rrule_reversed)


# ------------------------------------------------------------------ pulled tangents, reverse mode (second orders)
def take_tangent(source):
    """The next tangent of `source` (a queue: taken from its front; an iterator), or _END: one pull of
    `pulled_tangents`, as next_tangent takes one.  Plain Python, traced by reverse mode, so a pull's adjoint reaches
    the queue (its list.pop's rule) or the iterator (next()'s) as a next() in the forward code does."""
    if isinstance(source, list) and not isinstance(source, LazySequence):
        return source.pop(0) if len(source) > 0 else _END  # (len: see next_tangent)
    return builtins.next(source, _END)


def _reads(source):
    """How far `source` has been read (a number that changes with every item taken from it), or None where it is not
    known: a pull that finds it changed since the loop's previous pull tells that another reader took items meanwhile."""
    if isinstance(source, list) and not isinstance(source, LazySequence):
        return -len(source)
    if isinstance(source, LiveTangents):
        return source.pos
    return getattr(source, "_mc_position", None)


def rrule_pulled_tangents(source):
    """Reverse mode of `pulled_tangents(source)` (reverse mode over forward code: hessian, jacfwd/jacrev/jvp of grad):
    the tangents a loop over an iterator reads, each pull a recorded call of `take_tangent` (its pullback gives the
    item's adjoint to the queue or the iterator, restoring a queue's items as list.pop's rule does).  The pullback runs
    them last pull first, so it must run right after the pulls of readers that came later: a loop whose pulls
    interleave with another reader of the same iterator (`for v in it: w = next(it)`, nested loops over one iterator)
    is refused, as the restores would be out of order.  (Before this rule the LazySequence's pulls ran outside the
    traced code: 'no reverse rule for LazySequence', or Python's own iterator read with no adjoint to give.)"""
    from ..lazy_iteration import _END as _PULLED_ALL
    from ..reverse.runtime import rcall

    if isinstance(source, LazySequence):
        return _indexed_tangents(source)
    pullbacks: list = []
    state = {"reads": _reads(source)}
    if state["reads"] is None and not isinstance(source, (list, LiveTangents)) and is_iterator(source):
        raise UnsupportedDerivativeError(
            f"a derivative of order two or more of a for loop over an iterator whose items' tangents come from a "
            f"{type(source).__name__} (code not differentiated): which of its items each iteration read is not known; "
            f"loop over a list or an array (`for v in list(it)`), or index it")

    def pull():
        if _reads(source) != state["reads"]:
            raise UnsupportedDerivativeError(
                "a derivative of order two or more (reverse mode over forward code) of a for loop over an iterator "
                "that another reader advances while the loop runs (next(it) inside `for v in it`, nested loops over "
                "one iterator) is not supported: read the items first (`items = list(it)`) and index them")
        d, pb = rcall(take_tangent, (source,), {})
        if d is _END:
            return _PULLED_ALL
        pullbacks.append(pb)
        state["reads"] = _reads(source)
        return d

    def pullback(g):
        from ..reverse import shadows

        gs = list(g) if g is not NoTangent and g is not None else []
        total = NoTangent
        for k in reversed(range(len(pullbacks))):
            _, a, _ = pullbacks[k](gs[k] if k < len(gs) else NoTangent)
            total = shadows.acc(source, total, a[0])
        return (total,)

    return LazySequence(source, pull), pullback


def _indexed_tangents(source):
    """rrule_pulled_tangents of a source that is itself a loop's tangent sequence (a third order: the tangent of a
    tangent sequence, forward code differentiated twice): forward mode reads it from its first item on, as iter()
    does, so the k-th pull is its item k, read by index when the loop asks (LazySequence.__getitem__ pulls no
    further) -- next() on it had no rule ('reverse mode of next() on a LazySequence').  Its adjoint is a list of the
    items' adjoints by position, as a tangent sequence's adjoint is (rrule_pulled_tangents' pullback reads one so)."""
    from ..lazy_iteration import _END as _PULLED_ALL

    taken = [0]

    def pull():
        k = taken[0]
        try:
            d = source[k]
        except IndexError:
            return _PULLED_ALL
        taken[0] = k + 1
        return d

    def pullback(g):
        gs = list(g) if g is not NoTangent and g is not None else []
        n = taken[0]
        return ([gs[k] if k < len(gs) else NoTangent for k in range(n)],)

    return LazySequence(source, pull), pullback


def rrule_sequence_tangent(x, seq, dx):
    """Reverse mode of `sequence_tangent(x, seq, dx)` (forward code's tangent of a loop's sequence, differentiated
    again).  A rule of its own, not the traced function: tracing reads its arguments to specialise the derived rule
    (reverse/argument_kinds.py walks a list's items), and iterating the loop's LazySequence pulls its iterator to the
    end before the loop starts -- a loop left by `break` then left nothing to the next reader (`for v in it: ...
    break` then `for v in it`: the second loop's derivatives were lost).  The sequence and the iterator x take no
    adjoint (their types only choose the path); dx takes its items' adjoints."""
    from ..reverse.runtime import rcall

    if isinstance(seq, Zeros):
        return Zeros(seq._seq), lambda g: (NoTangent, NoTangent, NoTangent)
    if not isinstance(seq, LazySequence):
        y, pb = rcall(listed_tangents, (x, seq, dx), {})
        return y, lambda g: tuple(pb(g)[1])
    if dx is NoTangent or dx is None or isinstance(dx, MutableTangent):
        y = _lazy_tangents(x, seq, dx)  # (no tangents to pull: zeros, or the refusal of an object's fields)
        return y, lambda g: (NoTangent, NoTangent, NoTangent)
    y, pb = rrule_pulled_tangents(dx)
    seq.followed_by(y)  # (pulled with the items, as _lazy_tangents' are)
    return y, lambda g: (NoTangent, NoTangent, pb(g)[0])


_defrrule_at_run_time(pulled_tangents, rrule_pulled_tangents, take_tangent, _reads)
_defrrule_at_run_time(sequence_tangent, rrule_sequence_tangent, listed_tangents, _lazy_tangents)
defjvp(pulled_tangents, lambda t, y, source: t.call(sequence_tangent, source, y, t.d(source))
       if t.d(source) is not None else None)
# (linear in dx: its tangent is read as dx's items are, in step with what it gave -- the tangent sequence of dx)
defjvp(sequence_tangent, lambda t, y, x, seq, dx: t.call(sequence_tangent, dx, y, t.d(dx)) if t.d(dx) is not None else None)


def rrule_all_items_tangent(seq, dseq):
    """Reverse mode of `all_items_tangent(seq, dseq)` (a consumer reading a loop's sequence whole, in forward code
    differentiated again): it pulls the rest of the tangents (through rrule_pulled_tangents' recorded pulls) and gives
    dseq itself back, so dseq's adjoint is its result's; tracing it traced LazySequence._fill (refused)."""
    y = all_items_tangent(seq, dseq)
    return y, lambda g: (NoTangent, g if y is dseq else NoTangent)


_defrrule_at_run_time(all_items_tangent, rrule_all_items_tangent)
defjvp(all_items_tangent, lambda t, y, seq, dseq: t.call(all_items_tangent, y, t.d(dseq)) if t.d(dseq) is not None else None)
