"""Callables the frontend normalises Python syntax to.

`operator.*`, `getattr`, `slice` etc. cover most syntax; the few constructs
with no stdlib callable (displays, closure cells, `f(*a, **k)`, iteration)
get one small function here each.  The emitter prints them back as the
syntax they came from (`tuple_of(a, b)` prints as `(a, b)`), and the rule
tables give each one its derivative.
"""
from __future__ import annotations

import types
from typing import Any

import numpy as np

from .arrays import is_array
from .lazy_iteration import LazySequence, is_iterator


def tuple_of(*items: Any) -> tuple:
    return items


def list_of(*items: Any) -> list:
    return list(items)


def set_of(*items: Any) -> set:
    return set(items)


def dict_of(*keys_and_values: Any) -> dict:
    """`dict_of(k1, v1, k2, v2)` is `{k1: v1, k2: v2}`."""
    it = iter(keys_and_values)
    return {k: v for k, v in zip(it, it)}


def concat_tuple(*parts: Any) -> tuple:
    """`(*a, b)`: each part is an iterable already made into a tuple."""
    out: tuple = ()
    for p in parts:
        out = out + tuple(p)
    return out


def merge_dicts(*parts: Any) -> dict:
    out: dict = {}
    for p in parts:
        out.update(p)
    return out


def merge_kwargs(*parts: Any) -> dict:
    """A call's keywords, `f(a=1, **opts)`: unlike a dict display's `{**a, **b}`, a name given twice is Python's
    TypeError."""
    out: dict = {}
    for p in parts:
        for k in p.keys():
            if k in out:
                raise TypeError(f"got multiple values for keyword argument '{k}'")
            out[k] = p[k]
    return out


def apply(fn: Any, args: tuple, kwargs: dict) -> Any:
    """`fn(*args, **kwargs)`."""
    return fn(*args, **kwargs)


def new_cell() -> Any:
    return types.CellType()


def cell_get(cell: Any) -> Any:
    return cell.cell_contents


def cell_set(cell: Any, value: Any) -> None:
    cell.cell_contents = value


def add_to_item(a: Any, g: Any, index: Any) -> None:
    """`a[index] += g`: a pullback adding a part's adjoint into its array's adjoint (basic indices only,
    so no position repeats)."""
    a[index] += g


def identity(x: Any) -> Any:
    """`y = x`: a second name for the same object (kept so names stay readable)."""
    return x


def sequence(iterable: Any) -> Any:
    """What a `for` loop iterates, made indexable so each iteration's element is known.

    Lists, tuples, ranges and arrays are used as they are (indexing an array
    gives views, as iterating it does); an iterator is read item by item as the
    loop asks (lazy_iteration.LazySequence); anything else is materialised once.
    """
    if isinstance(iterable, (list, tuple, range, np.ndarray, str)) or is_array(iterable):
        return iterable  # (a Dask or CuPy array too: indexed like NumPy's, its rows' adjoints in its library)
    if is_iterator(iterable):
        # An iterator is read item by item as the loop asks (lazy_iteration.py): a loop left by `break` leaves
        # the rest to the next reader, and two loops over one iterator (`zip(it, it)`) read it in turn.
        return LazySequence(iterable)
    return list(iterable)


def whole_sequence(iterable: Any) -> Any:
    """`sequence` read to the end at once (code differentiated again, rules/plain_forwards.py, reads a loop's
    iterator so: it has no derivative of a LazySequence's inner workings)."""
    if isinstance(iterable, (list, tuple, range, np.ndarray, str)) or is_array(iterable):
        return iterable
    take = getattr(iterable, "take_items", None)
    if take is not None and getattr(type(iterable), "__mc_value__", False):
        return take()  # a generator's items (frontend/generator_ops.py: its exception, if any, waits for the loop's end)
    return list(iterable)


def all_items(seq: Any) -> Any:
    """What `sequence` gave, read to its end: a consumer that takes every item at once (`sum(obj)`, `statistics.fmean(
    obj)` of a user object, forward/object_iteration.py) reads a list, where a loop pulls an iterator's items as it asks."""
    if isinstance(seq, LazySequence):
        seq.drain()
    return seq


def choose(cond: Any, a: Any, b: Any) -> Any:
    """`a if cond else b` (the generated code prints it so; both operands are already computed values)."""
    return a if cond else b


def unpack(value: Any, count: int) -> tuple:
    """`a, b = value`: exactly `count` items, with Python's error otherwise."""
    items = tuple(value)
    if len(items) != count:
        raise ValueError(f"expected {count} values to unpack, got {len(items)}")
    return items


def unpack_star(value: Any, before: int, after: int) -> tuple:
    """`a, *rest, b = value`: returns (a, rest_list, b)."""
    items = list(value)
    if len(items) < before + after:
        raise ValueError(f"not enough values to unpack (expected at least {before + after}, got {len(items)})")
    stop = len(items) - after
    return (*items[:before], items[before:stop], *items[stop:])


def make_function(code: types.CodeType, globals_of: Any, defaults: tuple, kwdefaults: dict, closure: tuple) -> types.FunctionType:
    """A nested `def`/`lambda`: a new function object over `code` with explicit cells."""
    fn = types.FunctionType(code, globals_of.__globals__, code.co_name, defaults or None, closure or None)
    if kwdefaults:
        fn.__kwdefaults__ = kwdefaults
    fn.__qualname__ = f"{globals_of.__qualname__}.<locals>.{code.co_name}"
    return fn


_code_cache: dict[tuple, types.CodeType] = {}


def nested_code(outer: Any, name: str, line: int, nth: int) -> types.CodeType:
    """The code object of the `nth` nested function `name` defined at `line` inside `outer`."""
    key = (outer.__code__, name, line, nth)
    code = _code_cache.get(key)
    if code is None:
        found = [c for c in _walk_code(outer.__code__) if c.co_name == name and c.co_firstlineno == line]
        if len(found) <= nth:
            raise RuntimeError(f"cannot find the code of nested function {name!r} at line {line} in {outer.__qualname__}")
        code = _code_cache[key] = found[nth]
    return code


def _walk_code(code: types.CodeType):
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield c
            if c.co_name.startswith("<") and c.co_name != "<lambda>":  # comprehensions
                yield from _walk_code(c)


def format_value(value: Any, spec: str, conversion: str) -> str:
    """One `{value!conversion:spec}` field of an f-string."""
    if conversion == "r":
        value = repr(value)
    elif conversion == "s":
        value = str(value)
    elif conversion == "a":
        value = ascii(value)
    return format(value, spec)


def join_str(*parts: str) -> str:
    return "".join(parts)


def not_contains(container: Any, item: Any) -> bool:
    return item not in container


def assert_failed(msg: Any = None) -> AssertionError:
    return AssertionError(msg) if msg is not None else AssertionError()


def import_module(name: str, fromlist: tuple = ()) -> Any:
    return __import__(name, fromlist=fromlist)



def broadcast_check(*shapes: tuple) -> tuple:
    """The shape operands of these shapes broadcast to, raising where NumPy's arithmetic on them would
    (reverse/value_free.py keeps this check of an operation it leaves out); equal shapes, the usual
    case, without NumPy's slower general path."""
    first = shapes[0]
    for s in shapes[1:]:
        if s != first:
            return np.broadcast_shapes(*shapes)
    return first
