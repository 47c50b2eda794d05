"""Adjoints of Python's builtins and operators on containers, for their reverse rules.

Iterating a value (`sequence_adjoint`: a for loop's items), `sum`, `max`/`min`, `zip`,
`reversed`, `sorted`, `dict.get`/`items`/`values`, and `+`/`*` on numbers, arrays and
sequences (`add_vjp`, `mul_vjp`: concatenation and repetition give each piece its slice)
hand their result's adjoint back to their operands here.  `ItemsIterator` is the iterator
those rules hand out so that a consumer still knows its items.  Apart from adjoint_values.py
(the containers and `accumulate`) and part_adjoints.py (items and attributes), which
these build on.
"""
from __future__ import annotations

import collections
import enum
from typing import Any

import numpy as np

from ..arrays import is_array
from ..errors import UnsupportedDerivativeError
from ..lazy_iteration import LazySequence, pulled_before
from ..tangents import MutableTangent, NoTangent, is_mutable
from .adjoint_values import AdjDict, AdjList, AdjTuple, StorageList, accumulate, unbroadcast
from .complex_values import conj
from .part_adjoints import item_of


def sequence_adjoint(x: Any, g: Any, seq: Any = None) -> Any:
    """The adjoint of `x` from the adjoint of `ops.sequence(x)` (a list if x was materialised; for an iterator, a
    LazySequence knowing where in x each item it read was: the adjoints go to those positions)."""
    if g is NoTangent:
        return g
    if isinstance(seq, LazySequence):
        from .iterator_adjoints import positioned

        g = positioned(g, seq.positions)
    elif isinstance(x, ItemsIterator):
        g = to_the_end(x, list(g))  # (list(it), tuple(it): they read to its end)
    elif seq is None and (skipped := pulled_before(x)):  # (Python's iterator read to its end after loops read its
        from .iterator_adjoints import IteratorAdjoint  # first items: its items start after theirs)

        g = IteratorAdjoint([NoTangent] * skipped + list(g))
    if isinstance(x, (list, tuple, np.ndarray)) or is_array(x):
        return g
    if isinstance(x, np.flatiter):
        return _flat_iter_adjoint(x, g)
    return NoTangent if isinstance(x, (dict, set, range, str)) else _iter_adjoint(x, g)


def _flat_iter_adjoint(x: np.flatiter, g: Any) -> Any:
    """`for v in A.flat`: the items' adjoints go, in C order, into the shadow of the array the iterator walks
    (as `A.flat[i]` reads do); the iterator itself holds nothing (before, they were dropped: a zero gradient)."""
    from .shadows import shadow

    arr = x.base
    items = [0.0 if v is NoTangent or v is None else v for v in g]
    if items:
        np.add.at(shadow(arr), np.unravel_index(np.arange(len(items)), arr.shape), np.asarray(items))
    return NoTangent


def _iter_adjoint(x: Any, g: Any) -> Any:
    """The adjoint of what a loop materialised from x: handed back as it is to our own recorded iterables (map's
    results, ...), which take a list of their items' adjoints. An object of another class whose iteration was
    not differentiated (np.ndenumerate: its items come from fields its own code reads) has no place to put
    them: refused where an item has an adjoint, rather than dropped (a zero gradient)."""
    if getattr(type(x), "__mc_value__", False) or not _has_fields(x) or _all_symbolic_zero(g):
        return g
    if isinstance(x, enum.EnumMeta):
        return NoTangent  # (an Enum class's members: constants made with the class, whose adjoints go nowhere)
    name = f"{type(x).__module__}.{type(x).__qualname__}"
    raise UnsupportedDerivativeError(
        f"reverse mode of a for loop over a {name}: its items come from code that is not differentiated, so their "
        f"adjoints cannot reach what it iterates; loop over the array or list itself (e.g. `for i in range(len(x))` "
        f"or `for i, v in enumerate(x.ravel())` in place of np.ndenumerate), or use forward mode (mc.jvp)")


def _has_fields(x: Any) -> bool:
    return hasattr(x, "__dict__") or bool(getattr(type(x), "__slots__", ()))


def _all_symbolic_zero(g: Any) -> bool:
    if g is NoTangent or g is None:
        return True
    if isinstance(g, (list, tuple)):
        return all(_all_symbolic_zero(v) for v in g)
    return False


class ItemsIterator:
    """An iterator over a known list of items (e.g. map's results): reverse rules that consume
    it (`sum(map(f, xs))`) still know, once it is exhausted, how many items it gave.

    It counts the items it hands out (`_mc_position`: a loop over it records each item's position, so
    the adjoints of several consumers each reading a part land on their own items, lazy_iteration.py),
    and where each reader that called `iter()` on it (sum, sorted, a loop...) started (`_starts`)."""

    __slots__ = ("items", "_i", "_starts")
    __mc_value__ = True  # its adjoint is a value (a list, one per item), not storage
    __mc_items__ = True  # its `items` are what it yields (rules/builtin_rules._iterable_items reads them)

    def __init__(self, items: list) -> None:
        self.items = items
        self._i = 0
        self._starts: list = []

    @property
    def _mc_position(self) -> int:
        return self._i

    def __iter__(self) -> "ItemsIterator":
        self._starts.append(self._i)
        return self

    def __next__(self) -> Any:
        i = self._i
        if i >= len(self.items):
            raise StopIteration
        self._i = i + 1
        return self.items[i]

    def __length_hint__(self) -> int:
        return max(len(self.items) - self._i, 0)


class LiveItemsIterator(ItemsIterator):
    """`iter(xs)` of a list, tuple or array in reverse mode: reads xs[i] when item i is asked for (as Python's
    iterator does: a write to xs meanwhile is seen), keeping in `items` what it handed out, and counting them."""

    __slots__ = ("_source", "_entry")

    def __init__(self, xs: Any) -> None:
        super().__init__([])
        self._source = xs
        # What xs held when iter() was called (a list's items, a 1-d array's values): an item written between then
        # and its read is refused (below).
        self._entry = list(xs) if type(xs) is list else xs.copy() if type(xs) is np.ndarray and xs.ndim == 1 else None

    def __next__(self) -> Any:
        i, xs = self._i, self._source
        if xs is None or i >= len(xs):
            self._source = None  # (exhausted for good, as Python's list iterator is, if the list grows later)
            raise StopIteration
        item = xs[i]
        if self._entry is not None and _written_since_iter(self._entry, i, item):
            # The items' adjoints reach xs when iter()'s own step is reversed, after the write's: the adjoint of
            # the item read here would go to the one it replaced (a silently wrong gradient).
            raise UnsupportedDerivativeError(
                "reverse mode of an iterator over a list or array written after iter() and before the iterator read "
                "that item (`it = iter(xs); next(it); xs[1] = ...; for v in it`): iterate a copy made after the "
                "writes (`iter(list(xs))` there), index xs in a loop, or use forward mode (mc.jvp)")
        if i < len(self.items):
            self.items[i] = item
        else:
            self.items.append(item)
        self._i = i + 1
        return item

    def __length_hint__(self) -> int:
        return max(len(self._source) - self._i, 0) if self._source is not None else 0


def _written_since_iter(entry: Any, i: int, item: Any) -> bool:
    if i >= len(entry):
        return True  # (appended after iter())
    was = entry[i]
    if type(entry) is list:
        return item is not was
    return not (item == was or (item != item and was != was))


class ReversedItemsIterator(ItemsIterator):
    """`reversed(xs)` of a list, tuple or array in reverse mode: xs[n-1], xs[n-2], ... read when asked for (n: the
    length when it was made), counted like iter()'s, so a loop left by `break` and the reader of the rest give
    their adjoints to their own items."""

    __slots__ = ("_source", "_n")

    def __init__(self, xs: Any) -> None:
        super().__init__([])
        self._source, self._n = xs, len(xs)

    def __next__(self) -> Any:
        i, xs = self._i, self._source
        k = self._n - 1 - i
        if xs is None or k < 0 or k >= len(xs):
            self._source = None
            raise StopIteration
        item = xs[k]
        self.items.append(item)
        self._i = i + 1
        return item

    def __length_hint__(self) -> int:
        return max(self._n - self._i, 0) if self._source is not None else 0


def rrule_reversed(xs: Any) -> tuple:
    """reversed(xs) in reverse mode: a counting iterator for a list, tuple or array (see ReversedItemsIterator), the
    adjoint of xs its items' adjoints in reverse order."""
    if type(xs) in (list, tuple) or type(xs) is np.ndarray and xs.ndim >= 1:
        y: Any = ReversedItemsIterator(xs)
        n = len(xs)
    else:
        y, n = reversed(xs), None

    def pullback(g: Any) -> tuple:
        if g is NoTangent or g is None:
            return (NoTangent,)
        if n is not None:
            gs = list(g)[:n]
            g = gs + [NoTangent] * (n - len(gs))
        return (reversed_adjoint(xs, g),)

    return y, pullback


def read_again(xs: Any, what: str) -> list:
    """The items a consumer (`sum`, `sorted`, ...) read from xs, read again by its pullback.  An iterator is
    exhausted by then: ours (map's recorded results, a generator's items: ItemsIterator) keep their list, the
    lowering gives the consumer `list(reversed(xs))` / `list(iter(xs))` for those two (forward/object_iteration.py),
    and any other iterator left with no items is refused: they were consumed, and the derivative would be silently
    zero (one that still holds items was recorded apart from the one consumed: nested forward code does so)."""
    if isinstance(xs, ItemsIterator):
        return items_read_by_one(xs, what)
    if isinstance(xs, (list, tuple)):
        return list(xs)
    items = list(xs)
    if not items and iter(xs) is xs:  # (an iterator left with nothing: consumed by the call, or empty from the start)
        raise UnsupportedDerivativeError(
            f"reverse mode of {what}() over an iterator ({type(xs).__name__}): its items are consumed by the call, so "
            f"their derivatives cannot be found afterwards; pass a list (`{what}(list(it))`)")
    return items


def items_read_by_one(xs: "ItemsIterator", what: str) -> list:
    """The items a consumer that reads to the end (sum, sorted, max...) read from our iterator xs, read again in its
    pullback, long after the call: those from where the one such reader started (loops and next() do not count:
    they record their own positions) to the end.  Two such readers of one iterator (`list(it); sum(it)`) are
    refused, not guessed: which of them read the items is not known then."""
    if len(xs._starts) == 1:
        return xs.items[xs._starts[0]:xs._i]
    if not xs._starts and xs._i == 0:
        return xs.items
    raise UnsupportedDerivativeError(
        f"reverse mode of {what}() over an iterator that a second call read too: which of its items {what}() read "
        f"is not known to the derivative; take a list where the iterator is made (`items = list(it)`) and use it")


def to_the_end(xs: Any, adjoints: list) -> Any:
    """The adjoint of our iterator xs from those of the items a reader read up to its end (its last ones)."""
    from .iterator_adjoints import IteratorAdjoint

    end = xs._i if isinstance(xs, ItemsIterator) else len(adjoints)
    if end <= len(adjoints):
        return AdjList(adjoints)  # (all of them, from the first)
    return IteratorAdjoint([NoTangent] * (end - len(adjoints)) + list(adjoints))


def last_read(xs: Any) -> Any:
    """The items the last reader that called `iter()` on our iterator xs read (forward mode: its tangent helper runs
    right after the call), or None if xs is not one of ours."""
    if isinstance(xs, ItemsIterator):
        start = xs._starts[-1] if xs._starts else 0
        return xs.items[start:xs._i]
    return None


def sum_items_adjoint(xs: Any, g: Any, start: Any = 0) -> Any:
    """The items' adjoints of `sum(xs, start)`.  For numbers and arrays sum is linear, so each item
    gets g, summed over the axes the item was broadcast along.  For lists or tuples sum concatenates:
    each item gets its own slice of g (after the slice that belongs to start)."""
    if g is NoTangent:
        return g
    if isinstance(xs, np.ndarray):
        if xs.ndim == 0:
            return g
        row = xs[0] if len(xs) else np.zeros(xs.shape[1:])
        return np.broadcast_to(_unbroadcast_item(g, row), xs.shape).copy()
    if isinstance(xs, (dict, set, range)):
        return NoTangent
    items = read_again(xs, "sum")
    if _concatenates(items, start):
        offset = len(start) if isinstance(start, (list, tuple)) else 0
        pieces = []
        for item in items:
            piece = g[offset:offset + len(item)]
            offset += len(item)
            pieces.append(AdjList(piece) if isinstance(item, list) else AdjTuple(piece))
        adjoints = pieces
    else:
        adjoints = [_unbroadcast_item(g, item) for item in items]
    if isinstance(xs, ItemsIterator):
        return to_the_end(xs, adjoints)
    return AdjList(adjoints) if isinstance(xs, list) else AdjTuple(adjoints)


def sum_start_adjoint(start: Any, g: Any) -> Any:
    """The adjoint of start in `sum(xs, start)`: g (summed over broadcast axes), or for a list or
    tuple start (concatenation) the leading slice of g."""
    if g is NoTangent:
        return g
    if isinstance(start, (list, tuple)):
        piece = g[:len(start)]
        return AdjList(piece) if isinstance(start, list) else AdjTuple(piece)
    return _unbroadcast_item(g, start)


def _concatenates(items: Any, start: Any) -> bool:
    return isinstance(start, (list, tuple)) or any(isinstance(item, (list, tuple)) for item in items)


def _unbroadcast_item(g: Any, item: Any) -> Any:
    return g if np.shape(g) == np.shape(item) else unbroadcast(g, item)


def minmax_adjoint(y: Any, xs: tuple, k: int, g: Any) -> Any:
    """max/min: the first argument equal to the result gets g (ties: the first)."""
    if len(xs) == 1:
        items = list(xs[0])
        out = [NoTangent] * len(items)
        for i, v in enumerate(items):
            if v is y or v == y:
                out[i] = g
                break
        return AdjList(out) if isinstance(xs[0], list) else AdjTuple(out)
    for i, v in enumerate(xs):
        if v is y or v == y:
            return g if i == k else NoTangent
    return NoTangent


def zip_adjoint(xs: tuple, g: Any, k: int) -> Any:
    """The adjoint of the k-th iterable zipped: the k-th components of the items' adjoints."""
    if g is NoTangent:
        return g
    x = xs[k]
    comps = [item_of(gi, k) for gi in g]
    if isinstance(x, ItemsIterator):
        return _zipped_iterator_adjoint(xs, comps, k)
    return _like(x, comps)


def _zipped_iterator_adjoint(xs: tuple, comps: list, k: int) -> Any:
    """Our iterator zipped (once, or several times: `zip(it, it)`): zip pulls its inputs in order for each tuple,
    so component k of tuple i was the iterator's item start + i * (times zipped) + (its rank among them).  The start
    is where zip's own iter() found it; another reader's iter() between makes that unknown: refused."""
    from .iterator_adjoints import IteratorAdjoint

    x = xs[k]
    ranks = [j for j, o in enumerate(xs) if o is x]
    m, r = len(ranks), ranks.index(k)
    if len(x._starts) != m or len(set(x._starts)) != 1:
        raise UnsupportedDerivativeError(
            "reverse mode of zip() over an iterator another reader read too: where zip started reading it is not "
            "known to the derivative; take a list of its items (`items = list(it)`) and zip that")
    s = x._starts[0]
    out = [NoTangent] * (s + len(comps) * m)
    for i, c in enumerate(comps):
        out[s + i * m + r] = c
    return IteratorAdjoint(out)


def _like(x: Any, items: list) -> Any:
    if isinstance(x, np.ndarray):
        # Row by row: a row's adjoint may be a view of x's own storage (it was read as a view of x),
        # which adding into x's storage recognises; a stacked copy would count it twice.
        return AdjList(items[: x.shape[0]])
    if isinstance(x, list):
        return AdjList(items)
    if isinstance(x, tuple):
        return AdjTuple(items)
    if isinstance(x, (range, dict, set, str)):
        return NoTangent
    if isinstance(x, ItemsIterator):
        return to_the_end(x, items)
    return AdjList(items)


def reversed_adjoint(xs: Any, g: Any) -> Any:
    if isinstance(g, MutableTangent):  # (`reversed(obj)` of the user's `__reversed__`, run inside reversed())
        raise UnsupportedDerivativeError(
            f"reverse mode of reversed() of a {type(xs).__qualname__}: its `__reversed__` runs inside reversed(), not "
            f"differentiated; call `obj.__reversed__()` yourself, or reverse a list of the items")
    if g is NoTangent:
        return NoTangent
    items = list(g)[::-1]
    if isinstance(xs, np.ndarray) and xs.ndim == 1:  # (numbers, not views: an array, as typed pullbacks expect)
        return np.array([0.0 if v is NoTangent or v is None else v for v in items], dtype=np.result_type(xs, float))
    return _like(xs, items)


def sorted_adjoint(xs: Any, g: Any, kw: dict) -> Any:
    if g is NoTangent or isinstance(xs, (dict, set)):
        return NoTangent
    items = read_again(xs, "sorted")
    key = kw.get("key")
    order = sorted(range(len(items)), key=(lambda i: key(items[i])) if key else (lambda i: items[i]), reverse=kw.get("reverse", False))
    out = [NoTangent] * len(items)
    for pos, i in enumerate(order):
        out[i] = g[pos]
    return _like(xs, out)


def dict_get_adjoint(d: dict, k: Any, g: Any) -> Any:
    return AdjDict({k: g}) if k in d and g is not NoTangent else NoTangent


def default_adjoint(d: dict, k: Any, g: Any) -> Any:
    return NoTangent if k in d else g


def items_adjoint(d: dict, g: Any) -> Any:
    """d.items() consumed as (key, value) pairs: the values' adjoints."""
    if g is NoTangent:
        return g
    return AdjDict({k: item_of(gi, 1) for k, gi in zip(d, g)})


def values_adjoint(d: dict, g: Any) -> Any:
    if g is NoTangent:
        return g
    return AdjDict({k: gi for k, gi in zip(d, g)})


_SEQ = (list, tuple, collections.deque)  # (sequences `+` concatenates and `*` repeats)


def add_vjp(g: Any, y: Any, a: Any, b: Any, need_a: bool = True, need_b: bool = True) -> tuple:
    """Adjoints of y = a + b: sums for numbers and arrays, the two pieces for concatenated sequences."""
    if type(y) is np.ndarray:
        return (unbroadcast(g, a) if need_a else NoTangent), (unbroadcast(g, b) if need_b else NoTangent)
    if g is NoTangent:
        return NoTangent, NoTangent
    if isinstance(y, _SEQ) and isinstance(a, _SEQ):
        # (the pieces of a list's storage stay storage: a mutable item's slot is its storage, which item_of takes
        # out once even when the item is in both pieces, `[a] + [a]`)
        listed = StorageList if getattr(type(g), "holds_storage", False) else AdjList
        n, g = len(a), list(g)
        return (AdjTuple if isinstance(a, tuple) else listed)(g[:n]), (AdjTuple if isinstance(b, tuple) else listed)(g[n:])
    return unbroadcast(g, a), unbroadcast(g, b)


def mul_vjp(g: Any, y: Any, a: Any, b: Any, need_a: bool = True, need_b: bool = True) -> tuple:
    """Adjoints of y = a * b: products for numbers and arrays; for `seq * n` the repeats are summed.

    `need_a`/`need_b` say whether an operand is differentiated at all (known when the code is made).
    """
    if type(y) is np.ndarray:
        if y.dtype.kind == "c":  # (complex: a_bar = g conj(b), b_bar = g conj(a); real parts for real operands)
            return (unbroadcast(g * conj(b), a) if need_a else NoTangent), \
                (unbroadcast(g * conj(a), b) if need_b else NoTangent)
        return (unbroadcast(g * b, a) if need_a else NoTangent), (unbroadcast(g * a, b) if need_b else NoTangent)
    if g is NoTangent:
        return NoTangent, NoTangent
    if isinstance(y, _SEQ):
        seq, n = (a, b) if isinstance(a, _SEQ) else (b, a)
        m = len(seq)
        total: list = [NoTangent] * m
        taken: set = set()
        for k in range(len(y)):
            if is_mutable(seq[k % m]) and _is_storage_of(g[k], seq[k % m]):
                # `[a] * 3` repeats one object: its slots may each hold that object's storage (one adjoint, kept
                # by identity), which is counted once, not once per repeat
                if id(g[k]) in taken:
                    continue
                taken.add(id(g[k]))
            total[k % m] = accumulate(total[k % m], g[k])
        wrap = AdjTuple if isinstance(seq, tuple) else StorageList if taken else AdjList
        return (wrap(total), NoTangent) if seq is a else (NoTangent, wrap(total))
    if isinstance(y, str):
        return NoTangent, NoTangent
    return unbroadcast(g * conj(b), a), unbroadcast(g * conj(a), b)


def _is_storage_of(g: Any, v: Any) -> bool:
    from .shadows import shadow

    return g is shadow(v)
