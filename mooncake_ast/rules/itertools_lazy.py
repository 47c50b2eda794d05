"""itertools' wrappers over a shared *iterator*, read as their consumer asks (first order, both modes).

`t = itertools.islice(it, 3); a = next(t); rest = list(it)`: Python's islice pulls one item of `it` for `next(t)`,
and `list(it)` reads the rest.  The rules of python_itertools.py read their inputs when the call is made, which
for a list or an array is the same thing (it is read again from its start), but for an iterator took every item
from its next reader: `rest` came out short, and the value and the derivative were both wrong (takewhile read to
its end too: Python stops one item after the last it yields, the rule read them all).

Here, where an input is an iterator, the call is made with Python's own itertools function over *tokens*
`(m, i)` (item i of input m) that pull the input's item, with its tangent or its position, when itertools asks for
the token, so itertools itself decides how far each input is read and in which order, as the plain call does.
A predicate (takewhile's, a merge key) is called on the item a token stands for.  The result is an iterator whose
items are made from the tokens as its consumer asks for them:

* forward mode: two iterators in step (`Lockstep`), the items and their tangents; whichever is asked first
  makes the pair (next() takes the tangent before the item);
* reverse mode: an ItemsIterator whose items grow as they are asked for (it counts what it hands out, as loops and
  next() expect), its pullback adding each item's adjoint onto the position its token had in its input (an
  iterator's adjoint is a list by positions, reverse/iterator_adjoints.py), so a later reader's adjoints add to
  their own slots.

accumulate and starmap call a function on each item they pull: the same, one call per item asked for.
"""
from __future__ import annotations

import heapq
import itertools
import operator
from collections import deque
from typing import Any, Callable, Optional

from ..lazy_iteration import LazySequence, is_iterator
from ..errors import UnsupportedDerivativeError
from ..tangents import NoTangent, is_mutable


# ---------------------------------------------------------------- one input, pulled as asked
class Input:
    """Input m of the call: its items pulled one at a time (an iterator) or all at once (a list, an array), with
    their tangents (forward mode) or their positions in the iterator (reverse mode: its LazySequence's positions)."""

    __slots__ = ("m", "source", "items", "tangents", "_seq", "_dseq", "_lazy")

    def __init__(self, m: int, source: Any, tangent: Any = None, forward: bool = False, single: bool = False) -> None:
        from .builtin_iteration import _lazy_tangents, iter_tangents

        self.m, self.source = m, source
        self._lazy = not single and is_iterator(source)
        self._dseq = None
        if single:  # (a fill value: one item, the argument itself)
            self.items, self.tangents = [source], [tangent if forward else NoTangent]
        elif self._lazy:
            self._seq = LazySequence(source)
            self.items = self._seq  # (the items pulled so far: list.__getitem__ reads them)
            if forward:
                self._dseq = _lazy_tangents(source, self._seq, tangent)
            self.tangents = self._dseq
        else:
            self.items = list(source)
            if forward:
                none = tangent is NoTangent or tangent is None
                self.tangents = [NoTangent] * len(self.items) if none else list(iter_tangents(source, tangent))
            else:
                self.tangents = None

    def pulled(self) -> int:
        return list.__len__(self.items)

    def pull(self) -> bool:
        """Pull one more item (and its tangent): False at the end of the input."""
        return self._lazy and self._seq._more()  # (the tangent is pulled with it: LazySequence.followed_by)

    def item(self, i: int) -> Any:
        return list.__getitem__(self.items, i)

    def tangent(self, i: int) -> Any:
        d = self.tangents
        if d is None:
            return NoTangent
        if isinstance(d, LazySequence):
            return list.__getitem__(d, i) if i < list.__len__(d) else NoTangent
        return d[i]

    def tokens(self) -> Any:
        """(m, i) for each item, pulled when itertools asks for the token."""
        i = 0
        while True:
            if i >= self.pulled() and not self.pull():
                return
            yield (self.m, i)
            i += 1

    def adjoint(self, bars: list) -> Any:
        """The adjoint of this input from its items' adjoints (the items pulled so far)."""
        from ..reverse.builtin_adjoints import _like
        from ..reverse.iterator_adjoints import positioned

        if not self._lazy:
            return _like(self.source, bars)
        positions = list(self._seq.positions)
        if any(p is None for p in positions):  # (an iterator nobody counts: read from its start by this input alone)
            positions = list(range(len(positions)))
        out = positioned(bars, positions)
        if type(out) is list:
            from ..reverse.iterator_adjoints import IteratorAdjoint

            out = IteratorAdjoint(out)
        return out


def has_iterator(args: tuple, where: tuple) -> bool:
    return any(i < len(args) and is_iterator(args[i]) for i in where)


# ---------------------------------------------------------------- the plans: itertools over tokens
def _value(inputs: list) -> Callable:
    return lambda t: inputs[t[0]].item(t[1])


def _plan(fn: Any, args: tuple, kwargs: dict, inputs: list) -> tuple:
    """(an iterator over the result's references -- one token, or one per component --, tuples?) for the call."""
    toks = [inp.tokens() for inp in inputs]
    value = _value(inputs)
    if fn is itertools.islice:
        return ([t] for t in itertools.islice(toks[0], *args[1:])), False
    if fn in (itertools.takewhile, itertools.dropwhile, itertools.filterfalse):
        pred = args[0]
        test = (lambda t: value(t)) if pred is None else (lambda t: pred(value(t)))
        return ([t] for t in fn(test, toks[0])), False
    if fn is itertools.pairwise:
        return (list(p) for p in itertools.pairwise(toks[0])), True
    if fn is itertools.chain:
        return ([t] for t in itertools.chain(*toks)), False
    if fn is itertools.compress:
        return ([t] for t in itertools.compress(toks[0], args[1])), False
    if fn is itertools.zip_longest:
        fill = (len(inputs) - 1, 0)
        return (list(row) for row in itertools.zip_longest(*toks[:-1], fillvalue=fill)), True
    if fn is heapq.merge:
        key = kwargs.get("key")
        k = value if key is None else (lambda t: key(value(t)))
        return ([t] for t in heapq.merge(*toks, key=k, reverse=kwargs.get("reverse", False))), False
    raise AssertionError(fn)


# Which positional arguments are the iterables each one reads (None: all of them).
ITERABLES: dict = {itertools.islice: (0,), itertools.takewhile: (1,), itertools.dropwhile: (1,),
                   itertools.filterfalse: (1,), itertools.pairwise: (0,), itertools.chain: None,
                   itertools.compress: (0,), itertools.zip_longest: None, heapq.merge: None,
                   itertools.accumulate: (0,), itertools.starmap: (1,)}


def wanted(fn: Any, args: tuple, kwargs: dict) -> bool:
    """Should this call be read lazily: is an input it reads an iterator (and the call one this module makes)?"""
    try:
        where = ITERABLES[fn]
    except (KeyError, TypeError):
        return False
    if fn is itertools.compress and kwargs:
        return False  # (`compress(data=..., selectors=...)`: the eager rule)
    where = tuple(range(len(args))) if where is None else where
    return has_iterator(args, where)


def _inputs(fn: Any, args: tuple, dargs: Optional[tuple], kwargs: dict, dkwargs: Optional[dict]) -> tuple:
    """The Input of each iterable, and where each came from (an argument position, or "fillvalue")."""
    forward = dargs is not None
    where = ITERABLES[fn]
    where = tuple(range(len(args))) if where is None else where
    inputs, origins = [], []
    for m, a in enumerate(where):
        inputs.append(Input(m, args[a], dargs[a] if forward else None, forward))
        origins.append(a)
    if fn is itertools.zip_longest:
        d = (dkwargs or {}).get("fillvalue", NoTangent) if forward else None
        inputs.append(Input(len(inputs), kwargs.get("fillvalue"), d, forward, single=True))
        origins.append("fillvalue")
    return inputs, origins


def _build(refs: list, tuples: bool, of: Callable) -> Any:
    if tuples:
        return tuple(of(t) for t in refs)
    return of(refs[0])


# ---------------------------------------------------------------- forward mode: items and tangents in step
class Lockstep:
    """The shared state of a lazy result and its tangent: `step()` makes the next (item, tangent) pair, or raises
    StopIteration; each half keeps the other's part until it is asked for."""

    __slots__ = ("step", "queues", "done")

    def __init__(self, step: Callable) -> None:
        self.step, self.queues, self.done = step, (deque(), deque()), False

    def take(self, k: int) -> Any:
        q = self.queues[k]
        if not q:
            if self.done:
                raise StopIteration
            try:
                pair = self.step()
            except StopIteration:
                self.done = True
                raise
            self.queues[0].append(pair[0])
            self.queues[1].append(pair[1])
        return q.popleft()


class LockstepHalf:
    """One half of a Lockstep: the items (0) or their tangents (1)."""

    __slots__ = ("_state", "_k")
    __mc_value__ = True

    def __init__(self, state: Lockstep, k: int) -> None:
        self._state, self._k = state, k

    def __iter__(self) -> "LockstepHalf":
        return self

    def __next__(self) -> Any:
        return self._state.take(self._k)


LockstepHalf.__module__ = "builtins"  # (a run-time value of ours, iterated like Python's own iterators)


def frule(fn: Any, args: tuple, dargs: tuple, kwargs: dict, dkwargs: Optional[dict]) -> tuple:
    """The forward rule of a selection over an iterator: the lazy result and its tangent."""
    inputs, _ = _inputs(fn, args, dargs, kwargs, dkwargs)
    refs, tuples = _plan(fn, args, kwargs, inputs)
    item = _value(inputs)

    def tangent(t: tuple) -> Any:
        return inputs[t[0]].tangent(t[1])

    def step() -> tuple:
        r = next(refs)
        return _build(r, tuples, item), _build(r, tuples, tangent)

    state = Lockstep(step)
    return LockstepHalf(state, 0), LockstepHalf(state, 1)


# ---------------------------------------------------------------- reverse mode: items made as they are asked for
_CLASS: list = []


def _lazy_items_class() -> type:
    if _CLASS:
        return _CLASS[0]
    from ..reverse.builtin_adjoints import ItemsIterator

    class LazyItemsIterator(ItemsIterator):
        """An ItemsIterator whose `items` are made as they are asked for (by `make()`, which raises StopIteration
        at the end)."""

        __slots__ = ("_make", "_ended")

        def __next__(self) -> Any:
            i = self._i
            if i >= len(self.items):
                if self._ended:
                    raise StopIteration
                try:
                    self.items.append(self._make())
                except StopIteration:
                    self._ended = True
                    raise
            self._i = i + 1
            return self.items[i]

        def __length_hint__(self) -> int:
            return max(len(self.items) - self._i, 0)

    LazyItemsIterator.__module__ = "builtins"
    _CLASS.append(LazyItemsIterator)
    return LazyItemsIterator


def lazy_items(make: Callable) -> Any:
    y = _lazy_items_class()([])
    y._make, y._ended = make, False
    return y


def _out(inputs: list, origins: list, bars: list, nargs: int) -> tuple:
    from .call_binding import KwAdj
    from ..reverse.adjoints import accumulate

    out, named = [NoTangent] * nargs, {}
    for inp, where, b in zip(inputs, origins, bars):
        if all(v is NoTangent for v in b):
            continue
        if where == "fillvalue":
            named[where] = b[0]
            continue
        out[where] = accumulate(out[where], inp.adjoint(b))
    return tuple(out) + ((KwAdj(named),) if named else ())


def rrule(fn: Any, args: tuple, kwargs: dict) -> tuple:
    """The reverse rule of a selection over an iterator: a lazy ItemsIterator and its pullback."""
    from ..reverse.adjoints import accumulate
    from .python_itertools import _component, _gs

    inputs, origins = _inputs(fn, args, None, kwargs, None)
    refs, tuples = _plan(fn, args, kwargs, inputs)
    item = _value(inputs)
    plan: list = []

    def make() -> Any:
        r = next(refs)
        plan.append(r)
        return _build(r, tuples, item)

    y = lazy_items(make)

    def pullback(g: Any) -> tuple:
        bars = [[NoTangent] * inp.pulled() for inp in inputs]
        for k, gk in enumerate(_gs(g, len(plan))):
            if gk is NoTangent or gk is None:
                continue
            for j, (m, i) in enumerate(plan[k]):
                part = _component(gk, j) if tuples else gk
                bars[m][i] = accumulate(bars[m][i], part)
        return _out(inputs, origins, bars, len(args))

    return y, pullback


# ---------------------------------------------------------------- accumulate and starmap: a call per item
def _accumulate_parts(args: tuple, kwargs: dict) -> tuple:
    func = args[1] if len(args) > 1 else kwargs.get("func")
    return (operator.add if func is None else func), kwargs.get("initial")


def frule_accumulate(args: tuple, dargs: tuple, dkwargs: dict, kwargs: dict) -> tuple:
    from ..forward.runtime import fcall

    func, initial = _accumulate_parts(args, kwargs)
    dfunc = dargs[1] if len(args) > 1 else dkwargs.get("func", NoTangent)
    (inp,), _ = _inputs(itertools.accumulate, args, dargs, kwargs, dkwargs)
    toks = inp.tokens()
    prev: list = []  # (the last (item, tangent) handed out)

    def step() -> tuple:
        if not prev and initial is not None:
            prev.append((initial, dkwargs.get("initial", NoTangent)))
            return prev[0]
        _, i = next(toks)
        x, dx = inp.item(i), inp.tangent(i)
        if not prev:
            prev.append((x, dx))
        else:
            prev[0] = fcall(func, dfunc, (prev[0][0], x), (prev[0][1], dx))
        return prev[0]

    state = Lockstep(step)
    return LockstepHalf(state, 0), LockstepHalf(state, 1)


def rrule_accumulate(args: tuple, kwargs: dict) -> tuple:
    from .call_binding import KwAdj
    from .python_itertools import _gs
    from ..reverse.adjoints import accumulate
    from ..reverse.runtime import rcall

    func, initial = _accumulate_parts(args, kwargs)
    (inp,), origins = _inputs(itertools.accumulate, args, None, kwargs, None)
    toks = inp.tokens()
    ys: list = []
    calls: list = []  # (the pullback of step k >= 1, the index of the item it read)
    reads: list = []  # (the item index each output k read; None for `initial`)

    def make() -> Any:
        if not ys and initial is not None:
            ys.append(initial)
            reads.append(None)
            return initial
        _, i = next(toks)
        x = inp.item(i)
        if is_mutable(x):  # (an array's adjoint goes to storage found by identity; this pullback hands back values)
            raise UnsupportedDerivativeError(
                "reverse mode of itertools.accumulate over an iterator of arrays (or lists, objects): take a list of "
                "the items first (`accumulate(list(it))`), or use forward mode (mc.jvp)")
        if not ys:
            ys.append(x)
        else:
            y, pb = rcall(func, (ys[-1], x), {})
            ys.append(y)
            calls.append(pb)
        reads.append(i)
        return ys[-1]

    y_it = lazy_items(make)

    def pullback(g: Any) -> tuple:
        n = len(ys)
        gs = _gs(g, n)
        bars = [NoTangent] * inp.pulled()
        carry, fn_bar, init_bar = NoTangent, NoTangent, NoTangent
        for k in reversed(range(1, n)):
            total = accumulate(gs[k], carry)
            fb, ab, _ = calls[k - 1](total)
            fn_bar = accumulate(fn_bar, fb)
            bars[reads[k]] = accumulate(bars[reads[k]], ab[1])
            carry = ab[0]
        if n:
            first = accumulate(gs[0], carry)
            if reads[0] is None:
                init_bar = first
            else:
                bars[reads[0]] = accumulate(bars[reads[0]], first)
        out = [inp.adjoint(bars) if any(b is not NoTangent for b in bars) else NoTangent]
        named = {}
        if len(args) > 1:
            out.append(fn_bar)
        elif "func" in kwargs and fn_bar is not NoTangent:
            named["func"] = fn_bar
        if initial is not None and init_bar is not NoTangent:
            named["initial"] = init_bar
        return tuple(out) + ((KwAdj(named),) if named else ())

    return y_it, pullback


def frule_starmap(args: tuple, dargs: tuple) -> tuple:
    from ..forward.runtime import fcall
    from .python_itertools import _tangents

    func = args[0]
    (inp,), _ = _inputs(itertools.starmap, args, dargs, {}, None)
    toks = inp.tokens()

    def step() -> tuple:
        _, i = next(toks)
        x, dx = tuple(inp.item(i)), inp.tangent(i)
        return fcall(func, dargs[0], x, _tangents(list(x), dx) if dx is not NoTangent else NoTangent)

    state = Lockstep(step)
    return LockstepHalf(state, 0), LockstepHalf(state, 1)


def rrule_starmap(args: tuple) -> tuple:
    from .python_itertools import _gs
    from ..reverse.adjoints import AdjTuple, accumulate
    from ..reverse.runtime import rcall

    func = args[0]
    (inp,), _ = _inputs(itertools.starmap, args, None, {}, None)
    toks = inp.tokens()
    calls: list = []

    def make() -> Any:
        _, i = next(toks)
        y, pb = rcall(func, tuple(inp.item(i)), {})
        calls.append((i, pb))
        return y

    y_it = lazy_items(make)

    def pullback(g: Any) -> tuple:
        gs = _gs(g, len(calls))
        fn_bar = NoTangent
        bars: list = [NoTangent] * inp.pulled()
        for k in reversed(range(len(calls))):
            i, pb = calls[k]
            fb, ab, _ = pb(gs[k])
            fn_bar = accumulate(fn_bar, fb)
            bars[i] = accumulate(bars[i], AdjTuple(list(ab)))
        item_bar = inp.adjoint(bars) if any(b is not NoTangent for b in bars) else NoTangent
        return fn_bar, item_bar

    return y_it, pullback


# ---------------------------------------------------------------- tee: n readers of one input
class TeeHalf:
    """Forward mode: one of tee's iterators, the items (0) or their tangents (1), at its own place in the shared input
    (the input pulled, item and tangent together, when the furthest reader asks)."""

    __slots__ = ("_make",)
    __mc_value__ = True

    def __init__(self, inp: Input, k: int) -> None:
        self._make = _reader(inp, k)

    def __iter__(self) -> "TeeHalf":
        return self

    def __next__(self) -> Any:
        return self._make()


TeeHalf.__module__ = "builtins"


def _tee_count(args: tuple, kwargs: dict) -> int:
    n = args[1] if len(args) > 1 else kwargs.get("n", 2)
    itertools.tee([], n)  # (itertools checks n: a negative one raises, as the plain call does)
    return n


def frule_tee(args: tuple, dargs: tuple, **kwargs: Any) -> tuple:
    """`itertools.tee(it, n)`: n iterators over the items of it, read from it as the furthest one asks."""
    n = _tee_count(args, kwargs)
    inp = Input(0, args[0], dargs[0], forward=True) if is_iterator(args[0]) else \
        Input(0, iter(args[0]), _as_tangent_iterator(args[0], dargs[0]), forward=True)
    return tuple(TeeHalf(inp, 0) for _ in range(n)), tuple(TeeHalf(inp, 1) for _ in range(n))


def _as_tangent_iterator(x: Any, d: Any) -> Any:
    from .builtin_iteration import iter_tangents

    return NoTangent if d is NoTangent or d is None else iter(list(iter_tangents(x, d)))


def _reader(inp: Input, k: int = 0) -> Callable:
    """make() of one of tee's iterators: the next item (k = 0) or its tangent (k = 1) of the shared input, from this
    reader's own place."""
    place = [0]
    of = inp.item if k == 0 else inp.tangent

    def make() -> Any:
        i = place[0]
        if i >= inp.pulled() and not inp.pull():
            raise StopIteration
        place[0] = i + 1
        return of(i)

    return make


def rrule_tee(*args: Any, **kwargs: Any) -> tuple:
    """Reverse mode of tee: n lazy ItemsIterators over one Input; the adjoints of all of them add up on the input's
    items (each at the position it had in the input)."""
    from ..reverse.adjoints import accumulate

    n = _tee_count(args, kwargs)
    inp = Input(0, args[0])
    outs = [lazy_items(_reader(inp)) for _ in range(n)]
    y = tuple(outs)

    def pullback(g: Any) -> tuple:
        bars = [NoTangent] * inp.pulled()
        if g is not NoTangent and g is not None:
            for gk in g:
                if gk is NoTangent or gk is None:
                    continue
                for i, v in enumerate(list(gk)[:len(bars)]):
                    bars[i] = accumulate(bars[i], v)
        bar = inp.adjoint(bars) if any(b is not NoTangent for b in bars) else NoTangent
        return (bar,) + (NoTangent,) * (len(args) - 1)

    return y, pullback
