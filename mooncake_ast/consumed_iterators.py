"""A consumer called at run time (`math.prod`, `statistics.stdev`, `sorted`, ... reached through the dispatchers,
e.g. after a function-level `import math`) handed an iterator: its items read first, with list()'s own rules.

forward/object_iteration.py rewrites `math.prod(map(...))` to `math.prod(list(map(...)))` where the callee is
known when the code is generated.  The consumers' rules read their iterable again after the call (forward
mode's tangent helpers, reverse mode's pullbacks): an iterator is exhausted by then, so a callee found only
when the code runs (`math.prod` after `import math` inside the function) gave a zero or partial derivative
(math.prod(map(...))), or the rule found the map empty (statistics.stdev(map(...)): "requires at least two data
points").  fcall / rcall call `read_first` / `read_first_reverse` before such a rule: the iterator's items
become a list, whose tangent or adjoint list()'s rules carry back to the iterator.
"""
from __future__ import annotations

import builtins
from typing import Any, Optional

from .lazy_iteration import is_iterator


def _positions(f: Any, args: tuple) -> tuple:
    """The positions of the arguments f consumes whole, or ()."""
    try:
        if f in (builtins.max, builtins.min):
            return (0,) if len(args) == 1 else ()
        if f is builtins.sum or f is builtins.list or f is builtins.tuple:
            return ()  # (their rules follow an iterator)
        from .forward.object_iteration import _consumers

        return _consumers().get(f, ())
    except TypeError:  # (an unhashable callee)
        return ()


def wanted(f: Any, args: tuple) -> tuple:
    """The positions of iterators among the arguments f consumes whole."""
    return tuple(i for i in _positions(f, args) if i < len(args) and is_iterator(args[i]))


def read_first(f: Any, args: tuple, dargs: tuple) -> Optional[tuple]:
    """(args, dargs) with each iterator f consumes whole made a list (forward mode), or None."""
    where = wanted(f, args)
    if not where:
        return None
    from .forward.runtime import fcall

    args, dargs = list(args), list(dargs)
    for i in where:
        args[i], dargs[i] = fcall(builtins.list, None, (args[i],), (dargs[i],))
    return tuple(args), tuple(dargs)


def read_first_reverse(f: Any, args: tuple, kwargs: dict) -> Optional[tuple]:
    """rcall's (y, pullback) of f with each iterator it consumes whole made a list first, or None."""
    where = wanted(f, args)
    if not where:
        return None
    from .reverse.adjoints import AdjTuple
    from .reverse.runtime import rcall
    from .tangents import NoTangent

    args = list(args)
    pbs = {}
    for i in where:
        args[i], pbs[i] = rcall(builtins.list, (args[i],), {})
    y, pb = rcall(f, tuple(args), kwargs)

    def pullback(g: Any) -> tuple:
        f_bar, a_bar, k_bar = pb(g)
        a_bar = list(a_bar)
        for i, list_pb in pbs.items():
            if i < len(a_bar) and a_bar[i] is not NoTangent and a_bar[i] is not None:
                a_bar[i] = list_pb(a_bar[i])[1][0]
        return f_bar, AdjTuple(a_bar), k_bar

    return y, pullback
