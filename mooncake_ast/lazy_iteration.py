"""A `for` loop over an iterator reads it item by item, as Python's does, and remembers where each item came from.

The lowering counts an index `k` over `ops.sequence(iterable)` (frontend/loops.py), so reverse mode knows which
item each iteration read.  For lists, tuples and arrays the sequence is the value itself.  An *iterator* (a
`map`, `zip`, `iter(xs)`, a generator...) was once turned into a list when the loop started: a loop that left
early (`break`) had still consumed every item, so a second consumer (`list(it)`, another loop, `zip(it, it)`)
found nothing, and the value and the derivative were silently wrong.

`LazySequence` is what `ops.sequence` gives for an iterator: a list whose items are pulled from the iterator
when the loop asks for them.  Its length is the number of items pulled so far, plus one more pulled when every
item pulled has been read (exactly when Python's loop asks the iterator for its next item), so a loop's test
`k < len(seq)` pulls item k just before the body reads it, and nothing after a `break`.  Two sequences over
one iterator (`for a, b in zip(it, it)`, nested loops over `it`) pull in turn, as Python's loops do.

Forward mode walks the iterator's tangent in step (`LazySequence.over_tangents`): the tangent of an
iterator is an iterator (or a queue, a list popped from its front) over its items' tangents, advanced each
time the primal iterator is.  Reverse mode needs, for each item a loop read, its position in the iterator
(`positions`): the iterators reverse mode makes (`PositionedIterator`, reverse/builtin_adjoints.ItemsIterator)
count the items they hand out, and an iterator's adjoint is a list indexed by those positions
(`IteratorAdjoint`), so the adjoints from several consumers, each reading its own part, add up slot by slot.
"""
from __future__ import annotations

import os
import sys
import weakref
from collections.abc import Iterator as _Iterator
from typing import Any

_END = object()
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep

# The modules of ours that read a loop's sequence as the program does (pulling its iterator on); any other module of
# the package that iterates it, or asks its length, is looking at it (a derived rule's specialisation walks its
# argument's items, a plan makes its tangent dense...).  Looking at a sequence whose loop has not ended would pull its
# shared iterator on before the loop asks -- a reader after a `break` then found nothing (a zero third derivative,
# reverse mode over forward over forward) -- so it is refused (_looked_at).  User code and generated code pull.
_READERS = frozenset(os.path.join(_PACKAGE, *name.split("/")) for name in (
    "lazy_iteration.py", "ops.py", "consumed_iterators.py", "rules/builtin_iteration.py", "rules/plain_forwards.py",
    "rules/nested_consumers.py", "rules/nested_iteration.py", "rules/builtin_consumers.py",
    "rules/python_itertools.py", "forward/object_calls.py", "forward/object_iteration.py", "reverse/object_calls.py",
    "reverse/builtin_adjoints.py", "reverse/runtime.py", "frontend/generator_ops.py"))
# (and one that only glances: whether a container holds objects of the user's, for a derived rule's specialisation --
# the items pulled so far answer it, as they do for the first order's index loops)
# and storage made for it, in pullbacks, after its loop: reverse/shadows.py)
_GLANCES = frozenset([os.path.join(_PACKAGE, "forward", "objects.py"), os.path.join(_PACKAGE, "reverse", "shadows.py")])
_asks: dict = {}


def _asked_by_a_reader(name: str) -> bool:
    """Is code of file `name` (the asker's) a reader of the sequence (see _READERS), not an inspector?"""
    found = _asks.get(name)
    if found is None:
        if not name.startswith(_PACKAGE) or name in _READERS:
            found = True
        else:
            import linecache

            found = linecache.getline(name, 1).startswith("# mooncake_ast-key")  # (a generated module kept here)
        _asks[name] = found
    return found


class LazySequence(list):
    """The items of an iterator, pulled as they are read (a list subclass: the list holds the items pulled)."""

    __slots__ = ("_source", "_pull", "_read", "_done", "positions", "_count", "_followers", "_iterated")
    __mc_value__ = True  # (ours: its adjoint is a value, not the user's object's storage)

    def __init__(self, source: Any, pull: Any = None) -> None:
        super().__init__()
        self._source = source
        self._pull = pull if pull is not None else _puller(source)
        self._read = 0  # how many items the loop has read (a pull ahead of them waits to be read)
        self._done = False
        self.positions: list = []  # each item's position in its iterator (None where it does not count)
        self._count = _shared_count(source)  # (an iterator of Python's own: the items all its readers pulled)
        self._followers: list = []  # (the tangents of the items, pulled with them: followed_by)
        self._iterated = False  # (read by a `for` of the generated code: its pulls are Python's iteration's)

    # ---------------------------------------------------------------- pulling
    def _more(self) -> bool:
        if self._done:
            return False
        position = getattr(self._source, "_mc_position", None)
        count = self._count
        if position is None and count is not None:
            position = count.pulled
        item = self._pull()
        if item is _END:
            self._done = True
            return False
        list.append(self, item)
        self.positions.append(position)
        if count is not None:
            count.pulled += 1
        for other in self._followers:
            other._fill(list.__len__(self))
        return True

    def followed_by(self, tangents: "LazySequence") -> "LazySequence":
        """`tangents` (the items' tangents, pulled from the iterator's tangent) pulled with each item, not when they
        are read: `for p, q in zip(it, short)` pulls one item of `it` past the last pair (as Python's zip does) that
        the loop never reads, and the next reader of `it` must find its tangent gone too (it took the item's)."""
        self._followers.append(tangents)
        tangents._fill(list.__len__(self))
        return tangents

    def _fill(self, n: int) -> None:
        while list.__len__(self) < n and self._more():
            pass

    def drain(self) -> "LazySequence":
        while self._more():
            pass
        return self

    # ---------------------------------------------------------------- the list a loop indexes
    def __len__(self) -> int:
        n = list.__len__(self)
        if n <= self._read and not self._done and not self._iterated:
            asker = sys._getframe(1).f_code.co_filename
            if asker not in _GLANCES:
                if not _asked_by_a_reader(asker):
                    _looked_at()
                self._more()  # (the loop asks for its next item: Python's loop would pull it now)
        return list.__len__(self)

    def __bool__(self) -> bool:
        n = list.__len__(self)
        if n <= self._read and not self._done and not self._iterated:
            if not _asked_by_a_reader(sys._getframe(1).f_code.co_filename):
                _looked_at()
            self._more()
        return list.__len__(self) > 0

    def __getitem__(self, k: Any) -> Any:
        if type(k) is int and k >= 0:  # (reading item k: a reader, whoever asks)
            self._fill(k + 1)
            if k + 1 > self._read:
                self._read = k + 1
        else:
            self.drain()
            self._read = list.__len__(self)
        return list.__getitem__(self, k)

    def __iter__(self) -> Any:
        if self._done:
            return list.__iter__(self)
        asker = sys._getframe(1).f_code.co_filename
        if asker in _GLANCES:
            return list.__iter__(self)
        if not _asked_by_a_reader(asker):
            _looked_at()
        return self._pulling()

    def _pulling(self) -> Any:
        # (a `for` of the generated code reads it: the iteration pulls; a count taken after (`len(seq)`, for the
        # tape) must not pull one more -- `for p, q in zip(seq, short)` left seq's last pull unread)
        self._iterated = True
        k = 0
        while True:
            if k >= list.__len__(self) and not self._more():
                return
            if k + 1 > self._read:
                self._read = k + 1
            yield list.__getitem__(self, k)
            k += 1

    def __repr__(self) -> str:
        return f"LazySequence({list.__repr__(self)}{'' if self._done else ', ...'})"

    def __reduce__(self) -> Any:
        return (list, (list(list.__iter__(self)),))


class _PulledCount:
    """How many items the loops over one iterator of Python's own (a `zip`, `map`, `enumerate` object) have pulled
    from it, shared by those loops: a second loop after a `break` (`for a, b in it: ... break` then `for a, b in it`)
    reads the iterator's items from where the first stopped, and reverse mode must send their adjoints there (they
    went to the first items: a wrong gradient).  Kept while a loop over the iterator is alive (weakly, by identity)."""

    __slots__ = ("source", "pulled", "__weakref__")

    def __init__(self, source: Any) -> None:
        self.source, self.pulled = source, 0


_COUNTS: "weakref.WeakValueDictionary[int, _PulledCount]" = weakref.WeakValueDictionary()


def _shared_count(source: Any) -> Any:
    """The pulled count of `source` if it is an iterator that does not count its items itself (None for lists,
    queues of tangents and our own counting iterators)."""
    if type(source) is list or hasattr(type(source), "_mc_position") or not is_iterator(source):
        return None
    count = _COUNTS.get(id(source))
    if count is None or count.source is not source:
        count = _COUNTS[id(source)] = _PulledCount(source)
    return count


def pulled_before(source: Any) -> int:
    """How many items loops pulled from `source` (an iterator of Python's own) before a consumer read the rest
    (`list(it)`, `sum(it)` after a loop left by `break`): where that consumer's items start."""
    count = _COUNTS.get(id(source))
    return count.pulled if count is not None and count.source is source else 0


def _looked_at() -> None:
    from .errors import UnsupportedDerivativeError

    raise UnsupportedDerivativeError(
        "this higher derivative of a for loop over an iterator (reversed(), zip(), enumerate(), map(), iter() ...) "
        "is not supported: code differentiated again would read the iterator on before the loop asks for its items (a "
        "reader after a `break` would find nothing); loop over a list of its items (`for v in list(it)`) or index the "
        "sequence (third orders; second orders through zip over a zip of an iterator)")


def _puller(source: Any) -> Any:
    """A function giving the next item of `source`, or _END: a list is a queue (taken from its front: the tangent
    of an iterator next() also takes from), anything else an iterator."""
    if type(source) is list:
        return lambda: source.pop(0) if source else _END
    take_one = getattr(source, "take_one", None)
    if take_one is not None and getattr(type(source), "__mc_value__", False):
        return take_one  # (a generator's iterator: its deferred exception waits for the loop's end)
    if getattr(type(source), "__mc_items__", False):
        it = source  # (ours: iter() would count the loop as a reader to the end, which it need not be)
    else:
        it = iter(source)
    return lambda: next(it, _END)


def is_iterator(x: Any) -> bool:
    """Is x an iterator (a `__next__`, and its own `iter()`), whose items a reader consumes?  (Asked of its class:
    calling iter() would count as a reader of ours, reverse/builtin_adjoints.ItemsIterator.)"""
    return isinstance(x, _Iterator)


class Zeros(list):
    """The tangents of the items a LazySequence pulled from an iterator without a derivative: one NoTangent per
    item pulled (read after the item itself, as a loop over `zip(items, tangents)` reads them; never pulling)."""

    __slots__ = ("_seq",)

    def __init__(self, seq: "LazySequence") -> None:
        super().__init__()
        self._seq = seq

    def __getitem__(self, k: Any) -> Any:
        from .tangents import NoTangent

        if type(k) is int:
            return NoTangent
        return [NoTangent] * len(range(list.__len__(self._seq))[k])

    def __iter__(self) -> Any:
        from .tangents import NoTangent

        k = 0
        while k < list.__len__(self._seq):
            yield NoTangent
            k += 1

    def __len__(self) -> int:
        return list.__len__(self._seq)


# The transforms differentiate the methods of classes written in Python (forward/objects.py): these are run-time
# values of ours, which code differentiated again (a second derivative) reads like Python's own lists.
LazySequence.__module__ = Zeros.__module__ = "builtins"
