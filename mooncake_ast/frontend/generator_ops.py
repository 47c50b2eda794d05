"""Generators in differentiated code: run to the end when called, their items then handed out in order.

A generator function (one with `yield`) is lowered like a function that collects what it yields
(statements.py): `yield v` appends v to a list, and every way out returns

    finish(items, state, value)        # an iterator over the items; `value` is what `return` gave

so its derivative is that of ordinary code building a list, and the iterator's tangent (forward
mode) is an iterator over the items' tangents, its adjoint (reverse mode) the list of the adjoints
of the items consumed.  Running the body eagerly gives the items Python's lazy generator gives
when the body does not interact with its consumer.  What would differ is checked, not assumed:

* the body changes its inputs (arguments, the objects they hold, closure variables) while it runs:
  its consumer would see the changes too early.  `snapshot` fingerprints the inputs when the body
  starts, `finish` compares at its end; a change is refused (UnsupportedDerivativeError).
* the inputs change between the call and an item being handed out (the consumer's loop body, or code
  between the call and the loop: a lazy body would read the new values): each item handed out, and
  the end of a `for` loop over the call, compares the inputs with how the body left them.
* an infinite generator (`while True` without `break` or `return` in the body) is refused when
  lowered; an exception the body raises comes out of the call, not out of the n-th `next`.
* a generator over an iterator its caller reads again (`it = iter(x); a = next(gen(it)); rest = list(it)`): the
  body read all of `it` when called, Python's only what the consumer asked for; refused where the caller's text
  shows it (frontend/iterator_rereads.py).
* reverse mode: the items' adjoints come back as a list from the first item on, so the iterator
  must be consumed by one consumer from its start (a `for` loop, `sum`, `list`, `zip`, ...):
  a second consumer starting part-way is refused.

What is not checked: effects outside the inputs (printing, files, module globals, random number
generators' hidden state): they happen when the generator is called, all at once.
"""
from __future__ import annotations

import types
from typing import Any

import numpy as np

from ..errors import UnsupportedDerivativeError
from ..tangents import NoTangent

_DEPTH = 6


def _fingerprint(x: Any, depth: int = 0) -> Any:
    """A comparable picture of x's value, deep enough to see writes into arrays, lists, dicts and fields."""
    if x is None or isinstance(x, (bool, int, float, complex, str, bytes, np.generic)):
        return ("v", type(x), x)
    if isinstance(x, np.ndarray):
        return ("a", id(x), x.shape, x.dtype.str, x.copy())
    if depth >= _DEPTH:
        return ("id", id(x))
    if isinstance(x, (list, tuple)):
        return (type(x), id(x) if isinstance(x, list) else None, [_fingerprint(v, depth + 1) for v in x])
    if isinstance(x, dict):
        return (dict, id(x), [(k, _fingerprint(v, depth + 1)) for k, v in list(x.items())])
    if isinstance(x, (types.FunctionType, types.ModuleType, type, types.BuiltinFunctionType)):
        return ("id", id(x))
    fields = getattr(x, "__dict__", None)
    if isinstance(fields, dict):
        return (type(x), id(x), [(k, _fingerprint(v, depth + 1)) for k, v in list(fields.items())])
    return ("id", id(x))


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b, equal_nan=True))
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    try:
        return bool(a == b) or (a != a and b != b)
    except Exception:  # noqa: BLE001
        return a is b


class State:
    """The inputs of one run of a generator's body, and their fingerprint."""

    __slots__ = ("fn", "inputs", "before", "after", "yielded")
    __mc_value__ = True

    def __init__(self, fn: Any, inputs: tuple) -> None:
        cells = tuple(c.cell_contents for c in (getattr(fn, "__closure__", None) or ()) if _filled(c))
        self.fn, self.inputs = fn, (inputs, cells)
        self.before = _fingerprint(self.inputs)
        self.after: Any = None
        self.yielded: list = []  # (position, picture) of each mutable item yielded, as it was then

    def now(self) -> Any:
        cells = tuple(c.cell_contents for c in (getattr(self.fn, "__closure__", None) or ()) if _filled(c))
        return _fingerprint((self.inputs[0], cells))


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents
        return True
    except ValueError:
        return False


def snapshot(fn: Any, *inputs: Any) -> State:
    """The inputs of a generator's body as it starts (its arguments, and its closure's variables)."""
    return State(fn, inputs)


def _where(fn: Any) -> str:
    code = getattr(fn, "__code__", None)
    return f" ({code.co_filename}:{code.co_firstlineno})" if code is not None else ""


def note_yield(state: State, items: list) -> None:
    """`yield v` just appended v: a mutable v's picture as it is now, compared when the body ends (`_finished`)."""
    v = items[-1]
    if not (v is None or isinstance(v, (bool, int, float, complex, str, bytes, tuple, np.generic))):
        state.yielded.append((len(items) - 1, v, _fingerprint(v)))


def _finished(state: State) -> None:
    for k, v, picture in state.yielded:
        if not _same(picture, _fingerprint(v)):
            name = getattr(state.fn, "__qualname__", "generator")
            raise UnsupportedDerivativeError(
                f"the generator {name}{_where(state.fn)} changed item {k} after yielding it (a buffer refilled, a list "
                "grown, an array written in place that the item is a view of).  mooncake_ast runs a generator to its "
                "end when it is called, so its consumer would see the item as it is at the end, not as it was "
                "yielded; yield a copy (`yield buf.copy()`, `yield list(L)`)")
    after = state.now()
    if not _same(state.before, after):
        name = getattr(state.fn, "__qualname__", "generator")
        raise UnsupportedDerivativeError(
            f"the generator {name}{_where(state.fn)} changed its inputs (an argument, an object it holds, or a closure "
            "variable) while it produced its items.  mooncake_ast runs a generator to its end when it is called, so "
            "its consumer would see those changes before Python's lazy generator makes them; return a list instead, "
            "or make the changes outside the generator")
    state.after = after


def _consumed_check(state: State) -> None:
    if state.after is not None and not _same(state.after, state.now()):
        name = getattr(state.fn, "__qualname__", "generator")
        raise UnsupportedDerivativeError(
            f"the inputs of the generator {name}{_where(state.fn)} changed while its items were being consumed; "
            "mooncake_ast ran the generator to its end when it was called, so its later items were computed from "
            "the old values, where Python's lazy generator reads the new ones; build the list first (`list(gen(...))`) "
            "and change the inputs afterwards, or compute the items in the loop itself")


class _Handing:
    """What both iterators share: the items, where the consumer is, the exception to raise after the items."""

    def _end(self) -> Any:
        error, self._error = self._error, None
        if error is not None:
            raise error  # (once, as from Python's generator; then it is exhausted)
        raise StopIteration(self._value) if self._value is not None else StopIteration

    def take_one(self) -> Any:
        """The next item, or lazy_iteration's end marker when there is none (a `for` loop's pull: the exception
        raised after the items waits for `exhausted`, at the loop's end)."""
        from ..lazy_iteration import _END

        _consumed_check(self._state)
        i = self._i
        if i >= len(self.items):
            return _END
        self._i = i + 1
        return self.items[i]

    def take_items(self) -> list:
        """The items not handed out yet, all at once (`ops.sequence`: a `for` loop's), leaving the exception
        for `exhausted` to raise when the loop asks past the last one."""
        _consumed_check(self._state)
        rest = self.items[self._i:]
        self._i = len(self.items)
        self._taken = len(rest)
        return rest


class EagerGenerator(_Handing):
    """The items a generator's body yielded, handed out in order (forward mode, and the plain run)."""

    __slots__ = ("items", "_i", "_state", "_value", "_error", "_taken")
    __mc_value__ = True
    __mc_items__ = True  # (its `items` are what it yields: rules/builtin_numeric._iterable_items reads them)

    def __init__(self, items: list, state: State, value: Any = None, error: Any = None) -> None:
        self.items, self._i, self._state, self._value, self._error, self._taken = items, 0, state, value, error, 0

    def __iter__(self) -> "EagerGenerator":
        return self

    def __next__(self) -> Any:
        i = self._i
        if i >= len(self.items):
            self._end()
        _consumed_check(self._state)  # (also before the first: code between the call and the loop may change them)
        self._i = i + 1
        return self.items[i]

    def __length_hint__(self) -> int:
        return len(self.items) - self._i


def exhausted(it: Any, n: int) -> None:
    """A `for` loop over `it` ended because its items ran out, after `n` rounds: a generator whose body raised
    after its items raises that exception now (a loop over Python's generator gets it from the next item)."""
    if isinstance(it, _Handing) and it._error is not None and (n >= it._taken or it._i >= len(it.items)):
        it._end()


# The transforms treat instances of classes written in Python as the user's objects, whose special
# methods they differentiate (forward/objects.py); these iterators are run-time values of ours, handed
# over like Python's own iterators, so their class says it is a builtin one.
EagerGenerator.__module__ = "builtins"


def consumed(it: Any) -> None:
    """A `for` loop over `it` ended: if `it` is a generator's iterator, its inputs must be as the body left them
    (the loop's body, run between items, would otherwise have changed what a lazy generator reads)."""
    state = getattr(it, "_state", None)
    if isinstance(state, State):
        _consumed_check(state)


def finish(items: list, state: State, value: Any = None, error: Any = None) -> EagerGenerator:
    """What calling the generator function returns (the primal: used where no derivative is asked)."""
    _finished(state)
    return EagerGenerator(items, state, value, error)


def frule_finish(args: tuple, dargs: tuple, **kw: Any) -> tuple:
    from ..rules.builtin_iteration import iter_tangents

    items, state, value, error = (*args, None, None)[:4]
    y = finish(items, state, value, error)
    ditems = dargs[0]
    tangents = iter_tangents(items, ditems) if ditems is not NoTangent else [NoTangent] * len(items)
    return y, iter(list(tangents))


_REVERSE_CLASS: list = []


def _reverse_class() -> type:
    """EagerGenerator for reverse mode: an ItemsIterator (reverse rules that consume an iterator, like
    `sum`'s, read its items there), consumed once from its start."""
    if _REVERSE_CLASS:
        return _REVERSE_CLASS[0]
    from ..reverse.builtin_adjoints import ItemsIterator

    class ReverseEagerGenerator(ItemsIterator, _Handing):
        __slots__ = ("_state", "_value", "_started", "_error", "_taken")

        def take_items(self) -> list:
            self.__iter__()  # (one consumer, from the start)
            return _Handing.take_items(self)

        def __iter__(self) -> "ReverseEagerGenerator":
            if self._started and 0 < self._i < len(self.items):
                name = getattr(self._state.fn, "__qualname__", "generator")
                raise UnsupportedDerivativeError(
                    f"reverse mode: the items of the generator {name}{_where(self._state.fn)} are consumed in two parts "
                    "(a second loop over it after a first one stopped early); build the list once (`list(gen(...))`) "
                    "and index it, or use forward mode")
            self._started = True
            self._starts.append(self._i)
            return self

        def __next__(self) -> Any:
            i = self._i
            if not self._started:
                name = getattr(self._state.fn, "__qualname__", "generator")
                raise UnsupportedDerivativeError(
                    f"reverse mode: next() on the generator {name}{_where(self._state.fn)}: its items' adjoints are "
                    "kept for one pass from the first item; loop over it (or `list(...)` it) instead, or use forward mode")
            if i >= len(self.items):
                self._end()
            _consumed_check(self._state)
            self._i = i + 1
            return self.items[i]

        def __length_hint__(self) -> int:
            return len(self.items) - self._i

    ReverseEagerGenerator.__module__ = "builtins"  # (see EagerGenerator)
    _REVERSE_CLASS.append(ReverseEagerGenerator)
    return ReverseEagerGenerator


def rrule_finish(items: list, state: State, value: Any = None, error: Any = None) -> tuple:
    from ..reverse.adjoints import AdjList

    _finished(state)
    y = _reverse_class()(items)
    y._i, y._state, y._value, y._started, y._error, y._taken = 0, state, value, False, error, 0
    rest = (NoTangent,) if error is not None else ()

    def pullback(g: Any) -> tuple:
        if g is NoTangent or g is None:
            return (NoTangent, NoTangent, NoTangent, *rest)
        gs = list(g)
        bar = AdjList((gs + [NoTangent] * len(items))[:len(items)])
        return (bar, NoTangent, NoTangent, *rest)

    return y, pullback


def register_rules() -> None:
    """Called by rules/__init__.py with the built-in tables."""
    from ..rules.registry import defrrule_at_run_time
    from ..rules.registry import defrule, defzero

    defzero(snapshot, consumed, exhausted, note_yield)
    defrule(finish, frule_finish)
    defrrule_at_run_time(finish, rrule_finish)
