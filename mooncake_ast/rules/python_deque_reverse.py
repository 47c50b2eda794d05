"""Reverse mode of `collections.deque` made and changed inside differentiated code (issue 12).

A deque is adjoint storage like a list (reverse/shadows.py): one slot per position, a mutable item's slot
its own storage, created on first use and shared by every name of the deque.  Reads (`d[i]`, iteration,
`sum(d)`, `list(d)`) add into the slots as they do for a list.  Each method runs in the forward pass as
Python runs it; its pullback puts the deque back as it was before the call and moves the slots with the
items: a slot follows its item to where it was (rotate, reverse, remove), goes to the argument the item
came from (append, appendleft, extend, extendleft, insert), or comes from the method's result (pop,
popleft).  An item pushed out of a bounded deque (maxlen) gets no adjoint: nothing can read it.

Where each item came from is found by running the same method on a deque of tags with the same maxlen,
so every method (and maxlen's evictions) moves slots exactly as it moves items.
"""
from __future__ import annotations

import collections
from typing import Any

from ..tangents import NoTangent, is_mutable

# A position's origin: ("old", i) the item at position i before the call; ("arg", k) argument k;
# ("argitem", k, j) item j of argument k.
_CHANGERS = frozenset({"append", "appendleft", "extend", "extendleft", "insert", "pop", "popleft", "remove",
                       "rotate", "reverse", "clear"})
_READERS = frozenset({"index", "count", "__len__", "__contains__"})


def _slot_value(item: Any, slot: Any) -> Any:
    return NoTangent if is_mutable(item) or slot is None else slot


def rrule_deque(*args: Any, **kwargs: Any) -> tuple:
    """deque(iterable, maxlen): the slots that survive go back to the iterable's items."""
    from ..reverse import shadows
    from ..reverse.builtin_adjoints import _like

    it = args[0] if args else kwargs.get("iterable")
    given = it if it is None or isinstance(it, (list, tuple, collections.deque)) else list(it)  # (an iterator: once)
    items = [] if given is None else list(given)
    rest = dict(kwargs)
    rest.pop("iterable", None)
    y = collections.deque(items, *args[1:], **rest)
    dropped = len(items) - len(y)  # (pushed out by maxlen: the first ones)

    def pullback(g: Any) -> tuple:
        bars: list = [NoTangent] * len(args)
        if given is not None and len(items) and shadows._has_shadow(y):
            slots = list(shadows.shadow(y))
            parts = [NoTangent] * dropped + [_slot_value(v, s) for v, s in zip(y, slots)]
            if any(p is not NoTangent for p in parts):
                bar = _like(it if given is it else given, parts)
                if args:
                    bars[0] = bar
                else:
                    from .call_binding import KwAdj

                    return tuple(bars) + (KwAdj({"iterable": bar}),)
        return tuple(bars)

    return y, pullback


def _tags(d: collections.deque) -> collections.deque:
    return collections.deque([("old", i) for i in range(len(d))], d.maxlen)


def call_method_reverse(f: Any, args: tuple, kwargs: dict) -> tuple:
    """A bound deque method in reverse mode."""
    from ..reverse.adjoints import AdjDict, AdjTuple, MethodAdjoint

    d, name = f.__self__, f.__name__
    if kwargs:
        raise NotImplementedError(f"reverse mode of collections.deque.{name} with keyword arguments")
    if name in _READERS:
        y = f(*args)
        return y, lambda g: (MethodAdjoint(NoTangent), AdjTuple([NoTangent] * len(args)), AdjDict())
    if name == "copy":
        return _copy(d)
    if name not in _CHANGERS:
        raise NotImplementedError(f"reverse mode of collections.deque.{name}: no rule")
    return _change(d, name, tuple(args))


def _copy(d: collections.deque) -> tuple:
    from ..reverse import shadows
    from ..reverse.adjoints import AdjDict, AdjList, AdjTuple, MethodAdjoint

    y = d.copy()

    def pullback(g: Any) -> tuple:
        if not shadows._has_shadow(y):
            return MethodAdjoint(NoTangent), AdjTuple([]), AdjDict()
        parts = AdjList(_slot_value(v, s) for v, s in zip(y, shadows.shadow(y)))
        return MethodAdjoint(parts), AdjTuple([]), AdjDict()

    return y, pullback


def _change(d: collections.deque, name: str, args: tuple) -> tuple:
    from ..reverse.adjoints import AdjDict, AdjTuple, MethodAdjoint, accumulate
    from ..reverse.containers import route_slots  # (the list methods' router: the same moves)

    before = list(d)
    tags = _tags(d)
    if name in ("extend", "extendleft") and not isinstance(args[0], (list, tuple, collections.deque)):
        args = (list(args[0]),)  # an iterator is consumed once, here
    if name == "remove":
        at = before.index(args[0])  # raises ValueError as Python does
        y = d.remove(args[0])
        del tags[at]
        taken = None
    else:
        y = getattr(d, name)(*args)  # raises as Python does (pop of an empty deque, insert into a full one)
        tag_args: tuple = args
        if name in ("append", "appendleft"):
            tag_args = (("arg", 0),)
        elif name in ("extend", "extendleft"):
            tag_args = ([("argitem", 0, j) for j in range(len(args[0]))],)
        elif name == "insert":
            tag_args = (args[0], ("arg", 1))
        taken = getattr(tags, name)(*tag_args)
    origins = list(tags)
    after = list(d)
    from_result = taken[1] if name in ("pop", "popleft") else None

    def pullback(g: Any) -> tuple:
        sh, old_slots, bars = route_slots(d, before, after, origins, args)
        if from_result is not None and not is_mutable(y) and g is not None:
            old_slots[from_result] = accumulate(old_slots[from_result], g)
        d.clear()
        d.extend(before)
        sh[:] = old_slots
        return MethodAdjoint(NoTangent), AdjTuple(bars), AdjDict()

    return y, pullback
