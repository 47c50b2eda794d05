"""Adjoints at run time: structural accumulation, undoing broadcasts, calling pullbacks.

An adjoint has the structure of its primal.  Numbers and arrays add with `+`;
tuples, lists and dicts add element by element, so their adjoints use the
`Adj*` containers below, whose `+` does that (a plain tuple's `+` would
concatenate).  `NoTangent` is the zero of every adjoint.
"""
from __future__ import annotations

import collections
from typing import Any

import numpy as np

from ..arrays import add_at, is_array, is_other_array, library_of_type
from ..errors import UnsupportedDerivativeError
from ..tangents import MutableTangent, NoTangent, is_mutable
from .complex_values import conj, refuse_complex, refuse_complex_power, refuse_complex_rule  # noqa: F401  (as _mc.*)


class AdjTuple(tuple):
    """The adjoint of a tuple: `+` adds element by element."""

    def __add__(self, other: Any) -> Any:
        if other is NoTangent:
            return self
        return AdjTuple(_slot_sum(a, b) for a, b in zip(self, other))

    __radd__ = __add__

    def __repr__(self) -> str:
        return f"AdjTuple({tuple(self)!r})"


class StorageTuple(AdjTuple):
    """The whole adjoint of a tuple holding mutable objects (shadows.take): at `storage_at`, the objects' own
    storage.  A reader taking a slot out as a value (`item_of`, in a pullback that adds adjoints up as values)
    moves an array's storage out (a copy, the storage left zero): a parameter returned in the tuple
    (`return v, v * 2`) would otherwise have its storage read as its adjoint, added to, and added back into
    the same storage by the caller -- counted twice."""

    storage_at: frozenset = frozenset()


class AdjList(list):
    """The adjoint of a list: `+` adds element by element."""

    def __add__(self, other: Any) -> Any:
        if other is NoTangent:
            return self
        slots = [_slot_sum(a, b) for a, b in zip(self, other)]
        return StorageList(slots) if any(type(v) is np.ndarray and _in_storage(v) for v in slots) else AdjList(slots)

    __radd__ = __add__


class StorageList(AdjList):
    """A list's adjoint (`l + l`, `[a] * 2` undone) whose slots of mutable items are still those items' storage:
    item_of takes such a slot out as a value once (like shadows.ShadowList), so an object held in two slots,
    or a parameter whose storage is read at the end as well, is not counted twice."""

    holds_storage = True


def _in_storage(v: np.ndarray) -> bool:
    from .shadows import is_storage

    return is_storage(v)


def _slot_sum(a: Any, b: Any) -> Any:
    """One slot of two adjoints of a container added.  A slot holding a mutable object holds that object's storage
    (its whole adjoint, kept by identity): the same storage from both (`l + l`, `[w] * 2` zipped) is one adjoint,
    counted once."""
    if a is b and type(a) is np.ndarray and _in_storage(a):
        return a
    return accumulate(a, b)


class AdjDict(dict):
    """The adjoint of a dict: `+` adds value by value."""

    def __add__(self, other: Any) -> Any:
        if other is NoTangent:
            return self
        out = AdjDict(self)
        for k, v in other.items():
            out[k] = accumulate(out.get(k, NoTangent), v)
        return out

    __radd__ = __add__


def accumulate(a: Any, b: Any) -> Any:
    """a + b for adjoints of any structure (NoTangent is zero)."""
    if a is NoTangent:
        return b
    if b is NoTangent:
        return a
    if isinstance(a, np.ndarray) and isinstance(b, AdjList):
        return a + rows_to_array(b, a)
    if isinstance(b, np.ndarray) and isinstance(a, AdjList):
        return rows_to_array(a, b) + b
    if isinstance(a, (tuple, list)) and not isinstance(a, (AdjTuple, AdjList)):
        a = AdjList(a) if isinstance(a, list) else AdjTuple(a)
    if isinstance(a, dict) and not isinstance(a, AdjDict):
        a = AdjDict(a)
    if isinstance(a, MutableTangent) and isinstance(b, MutableTangent):
        out = MutableTangent(a.fields)
        for k, v in b.fields.items():
            out.fields[k] = accumulate(out.fields.get(k, NoTangent), v)
        return out
    return a + b


def add_rows(target: np.ndarray, rows: Any) -> None:
    """target[k] += rows[k]: the adjoints of an array's rows (from iterating it), into the array's adjoint.

    A row that is a view of target (the storage of the row the loop read) is there already and is
    not added again; missing rows are zero; zip() may have stopped early.
    """
    for k, gk in enumerate(rows):
        if k >= len(target):
            break
        if gk is NoTangent or gk is None:
            continue
        if isinstance(gk, np.ndarray) and np.shares_memory(gk, target):
            continue
        target[k] += gk


def rows_to_array(rows: list, like: np.ndarray) -> np.ndarray:
    """Row adjoints (from iterating an array) as one array shaped like it; missing rows are zero."""
    out = np.zeros(like.shape, dtype=np.result_type(like.dtype, float))
    add_rows(out, rows)
    return out


def unbroadcast(g: Any, like: Any) -> Any:
    """Sum `g` over the axes NumPy broadcast `like` along, so it has `like`'s shape (and is a number if `like` is)."""
    if type(g) is np.ndarray and type(like) is np.ndarray and g.shape == like.shape and g.dtype.kind != "c":
        return g  # the common case, first
    if g is NoTangent:
        return g
    if is_other_array(like) or is_other_array(g):
        refuse_complex(g, like)
        return _unbroadcast_in_library(g, like)
    # A complex adjoint reaching a real operand: its real part (the adjoint of R -> C, x -> x + 0j).
    if isinstance(like, np.ndarray):
        g = np.asarray(g)
        if g.dtype.kind == "c" and like.dtype.kind != "c":
            g = g.real
        if g.shape == like.shape:
            return g
        while g.ndim > like.ndim:
            g = g.sum(axis=0)
        for axis, n in enumerate(like.shape):
            if n == 1 and g.shape[axis] != 1:
                g = g.sum(axis=axis, keepdims=True)
        return np.broadcast_to(g, like.shape).copy() if g.shape != like.shape else g
    real_like = isinstance(like, (float, int, np.floating, np.integer))
    if real_like and isinstance(g, np.ndarray):
        total = g.sum()
        if total.dtype.kind == "c":
            total = total.real
        return float(total) if isinstance(like, (float, int)) else total
    if isinstance(like, (complex, np.complexfloating)) and isinstance(g, np.ndarray):
        total = g.sum()  # (a complex number broadcast against an array)
        return complex(total) if type(like) is complex else total
    if real_like and isinstance(g, (complex, np.complexfloating)):
        return float(g.real) if isinstance(like, (float, int)) else g.real
    return g


def _unbroadcast_in_library(g: Any, like: Any) -> Any:
    """unbroadcast where g or like is a Dask (or CuPy) array: the same sums, by methods and NumPy functions that
    dispatch to the array's library, so a Dask adjoint stays a lazy graph (no np.asarray, no float())."""
    if is_array(like):
        shape = like.shape
        if not is_array(g):
            return np.full_like(like, g, dtype=np.result_type(like.dtype, float))  # (in like's library)
        while g.ndim > len(shape):
            g = g.sum(axis=0)
        for axis, n in enumerate(shape):
            if n == 1 and g.shape[axis] != 1:
                g = g.sum(axis=axis, keepdims=True)
        return np.broadcast_to(g, shape) if g.shape != shape else g
    if isinstance(like, (float, int, np.floating, np.integer)) and is_array(g):
        return g.sum()  # a 0-d array of g's library: a lazy scalar stays lazy until the user asks
    return g


def item_adjoint(container: Any, index: Any, g: Any) -> Any:
    """The adjoint of `container` from `container[index]` having adjoint g (zero elsewhere)."""
    if g is NoTangent:
        return NoTangent
    if isinstance(container, np.ndarray):
        out = np.zeros(container.shape, dtype=np.result_type(container.dtype, float))
        np.add.at(out, index, g)
        return out
    if is_other_array(container):
        return _item_adjoint_in_library(container, index, g)
    if isinstance(container, tuple):
        if isinstance(index, slice):
            items = [NoTangent] * len(container)
            for j, v in zip(range(*index.indices(len(container))), g):
                items[j] = v
            return AdjTuple(items)
        items = [NoTangent] * len(container)
        items[index] = g
        return AdjTuple(items)
    if isinstance(container, list):
        items = [NoTangent] * len(container)
        if isinstance(index, slice):
            for j, v in zip(range(*index.indices(len(container))), g):
                items[j] = v
        else:
            items[index] = g
        return AdjList(items)
    if isinstance(container, dict):
        return AdjDict({index: g})
    if isinstance(container, np.generic) and container.dtype.kind in "fc":
        return np.sum(g)  # `s[()]`, `s[...]`, `s[None]` of a NumPy scalar: each entry is s (it was dropped: a zero)
    return NoTangent


def _basic_index(index: Any) -> bool:
    """Ints, slices, None and Ellipsis: each position of the array is read at most once."""
    items = index if isinstance(index, tuple) else (index,)
    return all(k is None or k is Ellipsis or isinstance(k, (int, np.integer, slice)) and not isinstance(k, bool)
               for k in items)


def _item_adjoint_in_library(container: Any, index: Any, g: Any) -> Any:
    """The adjoint of a Dask (CuPy) array read at `index`: g written into fresh zeros of its library.

    Assignment is right only where no position is read twice (basic indexing); an index array may repeat
    positions, whose adjoints must add (np.add.at): CuPy's add.at does that; Dask offers none, so it is refused."""
    if not _basic_index(index) and library_of_type(type(container)) == "cupy":
        out = np.zeros_like(container, dtype=np.result_type(container.dtype, float))
        parts = index if isinstance(index, tuple) else (index,)
        parts = tuple(np.asarray(k, like=out) if isinstance(k, (np.ndarray, list)) else k for k in parts)
        add_at(out, parts if isinstance(index, tuple) else parts[0], g)  # (repeated positions add)
        return out
    if not _basic_index(index):
        from ..errors import UnsupportedDerivativeError

        raise UnsupportedDerivativeError(
            f"the adjoint of indexing a {type(container).__module__.split('.')[0]} array with an index array or mask "
            f"(x[idx]) is not supported (repeated positions must add, as np.add.at does, which that library does not "
            f"offer); use slices and integers, or compute the input first (x.compute())")
    out = np.zeros_like(container, dtype=np.result_type(container.dtype, float))  # (fresh: ours to write)
    out[index] = g
    return out


def attr_adjoint(obj: Any, name: str, g: Any) -> Any:
    """The adjoint of `obj` from `obj.name` having adjoint g."""
    if g is NoTangent:
        return NoTangent
    if isinstance(obj, np.ndarray) or is_other_array(obj):
        g = g if is_other_array(g) else np.asarray(g)
        if name == "T":
            return g.T
        if name == "real":
            return g.real.astype(obj.dtype) if obj.dtype.kind == "c" else g
        return NoTangent
    if isinstance(g, MethodAdjoint):
        return g.self_adjoint
    if hasattr(obj, "_fields") and name in obj._fields:
        items = [NoTangent] * len(obj)
        items[obj._fields.index(name)] = g
        return AdjTuple(items)
    if hasattr(obj, "__dict__"):
        return MutableTangent({name: g})
    return NoTangent


class FunctionAdjoint:
    """The adjoint of a function object: of the default values it was made with.

    `lambda t, c=x: c * t` carries x in its defaults; a call that uses the default hands
    the default's adjoint to the function, and the reverse of making the function (a
    `def` or `lambda` statement) hands it on to x.  (Captured variables need none of
    this: their adjoints live in their cells' storage.)
    """

    __slots__ = ("defaults", "kwdefaults")

    def __init__(self, defaults: Any = NoTangent, kwdefaults: Any = NoTangent) -> None:
        self.defaults = defaults
        self.kwdefaults = kwdefaults

    def __add__(self, other: Any) -> Any:
        if other is NoTangent or other is None:
            return self
        if not isinstance(other, FunctionAdjoint):
            return NotImplemented
        return FunctionAdjoint(accumulate(self.defaults, other.defaults), accumulate(self.kwdefaults, other.kwdefaults))

    __radd__ = __add__

    def __repr__(self) -> str:
        return f"FunctionAdjoint(defaults={self.defaults!r}, kwdefaults={self.kwdefaults!r})"


def defaults_adjoint(g: Any, which: str) -> Any:
    """The adjoint of the defaults tuple (or kw-defaults dict) a function was made with."""
    if not isinstance(g, FunctionAdjoint):
        return NoTangent
    return g.defaults if which == "defaults" else g.kwdefaults


class MethodAdjoint:
    """The adjoint of a bound method: the adjoint of its `self`."""

    __slots__ = ("self_adjoint",)

    def __init__(self, self_adjoint: Any) -> None:
        self.self_adjoint = self_adjoint

    def __add__(self, other: Any) -> Any:
        if other is NoTangent:
            return self
        if other.self_adjoint is self.self_adjoint and isinstance(self.self_adjoint, MutableTangent):
            return self  # (two calls of `f = obj.method`: both hand back obj's storage, which holds both already)
        return MethodAdjoint(accumulate(self.self_adjoint, other.self_adjoint))

    __radd__ = __add__


def sequence_adjoint(x: Any, g: Any) -> Any:
    """The adjoint of `x` from the adjoint of `ops.sequence(x)` (a list if x was materialised)."""
    if g is NoTangent:
        return g
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


def call_pullback(pb: Any, g: Any) -> Any:
    return pb(g)


def rcall_marker() -> Any:  # placeholder replaced by rcall in the forward pass
    raise AssertionError


def rcall(f: Any, args: tuple, kwargs: dict) -> tuple:
    from .runtime import rcall as real

    return real(f, args, kwargs)


def number_adjoint(g: Any) -> Any:
    """A number's adjoint as a number: 0.0 for the symbolic zero (a tuple slot or a callee's argument that
    got no adjoint), so the pullback's arithmetic on numbers stays plain."""
    return 0.0 if g is NoTangent or g is None else g


def real_item(g: Any, key: int, shape: tuple) -> Any:
    """Item `key` of a returned tuple's adjoint, for an item that is a float array of this shape: that array, zeros
    where the caller gave none (the symbolic zero), a real number spread to the shape; so the pullback's NumPy on
    it stays plain (reverse/specialise.item_of)."""
    gk = item_of(g, key)
    if gk is NoTangent or gk is None:
        return np.zeros(shape)
    if type(gk) is np.ndarray and gk.shape == shape and gk.dtype.kind == "f":
        return gk
    if isinstance(gk, (int, float, np.integer, np.floating)) or type(gk) is np.ndarray and gk.dtype.kind in "fiub":
        return np.array(np.broadcast_to(gk, shape), dtype=float)
    return gk  # (anything else, as the caller gave it: NumPy on it says what it says)


def item_of(g: Any, key: Any) -> Any:
    """g[key], or zero if g has no adjoint there."""
    if g is NoTangent:
        return g
    try:
        v = g[key]
    except (KeyError, IndexError, TypeError):
        return NoTangent
    if type(g) is StorageTuple and type(key) is int and key in g.storage_at and type(v) is np.ndarray:
        moved = v.copy()
        v[...] = 0
        return moved
    if getattr(type(g), "holds_storage", False) and isinstance(v, _STORAGE):
        # A list's (dict's) storage: a mutable item's slot is that item's storage.  The same storage in an
        # earlier slot is the same object held twice (`return [out, out]`): its adjoint is counted there, once.
        if isinstance(g, dict):
            for k in g:
                if k == key:
                    break
                if g[k] is v:
                    return NoTangent
        elif type(key) is int:
            for j in range(key if key >= 0 else len(g) + key):
                if g[j] is v:
                    return NoTangent
        if type(v) is np.ndarray:
            from .shadows import is_storage

            if is_storage(v):  # taken out as a value: moved (see StorageTuple)
                moved = v.copy()
                v[...] = 0
                return moved
    return v


_STORAGE = (np.ndarray, list, dict, MutableTangent)


def unpack_adjoint(x: Any, g: Any) -> Any:
    """The adjoint of x from the adjoint of `tuple(x)` (used by `a, b = x`)."""
    if g is NoTangent:
        return g
    if isinstance(x, np.ndarray):
        from .shadows import shadow
        from ..tangents import is_mutable

        sh = shadow(x) if is_mutable(x) else None
        # Rows of x are views: an adjoint that is a view of x's storage is already counted there.
        return np.array([np.zeros(x.shape[1:]) if v is NoTangent or (sh is not None and isinstance(v, np.ndarray)
                                                                         and np.shares_memory(v, sh)) else v for v in g], dtype=float)
    if isinstance(x, list):
        return AdjList(g)
    if isinstance(x, tuple):
        return AdjTuple(g)
    return _unpack_other_adjoint(x, g)


_NO_ITEM_DERIVATIVES = (range, str, bytes, dict, set, frozenset, type({}.keys()))


def _unpack_other_adjoint(x: Any, g: Any) -> Any:
    """`a, b = x` of an iterator, a dict view or `A.flat` (their adjoint was dropped: a silently wrong gradient).

    An iterator's (a dict view's) adjoint is the list of its items' adjoints, as its maker's pullback takes it
    (`iter`, `zip`, `map`, `reversed`, `dict.values`); `A.flat`'s goes into A's storage, entry by entry in C
    order, ending at the last entry (unpacking consumed the iterator to its end).  Anything else whose items
    carry an adjoint is refused, never dropped."""
    if isinstance(x, _NO_ITEM_DERIVATIVES) or all(v is NoTangent or v is None for v in g):
        return NoTangent
    if isinstance(x, np.flatiter):
        from .shadows import shadow
        from ..tangents import is_mutable

        if is_mutable(x.base):
            sh, start = shadow(x.base), x.base.size - len(g)
            for k, v in enumerate(g):
                if v is not NoTangent and v is not None:
                    sh.flat[start + k] += v  # (the items of A.flat are numbers, never views)
        return NoTangent
    if isinstance(x, (type({}.values()), type({}.items()))) or iter(x) is x:
        return AdjList(g)
    if all(_in_storage(v) for v in g):
        return NoTangent  # (mutable items: their adjoints are in their own storage already)
    from ..errors import UnsupportedDerivativeError

    raise UnsupportedDerivativeError(f"reverse mode of unpacking a {type(x).__qualname__} (`a, b = x`) whose items carry "
                                     f"derivatives is not supported: unpack a list or a tuple of them (`a, b = list(x)`)")


def _in_storage(v: Any) -> bool:
    """Is the item adjoint v nothing, or the storage of a mutable item (counted there)?"""
    if v is NoTangent or v is None:
        return True
    if isinstance(v, (list, dict, MutableTangent)) and getattr(v, "holds_storage", isinstance(v, MutableTangent)):
        return True
    if type(v) is np.ndarray:
        from .shadows import is_storage

        return is_storage(v)
    return False


def unpack_star_adjoint(x: Any, g: Any, i: int, j: int) -> Any:
    if g is NoTangent:
        return g
    items = list(g[:i])
    star = g[i]
    items += list(star) if star is not NoTangent else [NoTangent] * (len(x) - i - j)
    items += list(g[i + 1:])
    return unpack_adjoint(x, AdjTuple(items))


def concat_part_adjoint(g: Any, y: Any, *parts_and_k: Any) -> Any:
    *parts, k = parts_and_k
    if g is NoTangent:
        return g
    start = sum(len(tuple(p)) for p in parts[:k])
    piece = AdjTuple(g[start:start + len(tuple(parts[k]))])
    return unpack_adjoint(parts[k], piece) if not isinstance(parts[k], tuple) else piece


def merge_part_adjoint(g: Any, part: Any) -> Any:
    if g is NoTangent:
        return g
    return AdjDict({k: g[k] for k in part if k in g})


def real_adjoint(x: Any, g: Any) -> Any:
    return g if not isinstance(x, np.ndarray) else np.full(np.shape(x), g)


class ItemsIterator:
    """An iterator over a known list of items (e.g. map's results): reverse rules that consume
    it (`sum(map(f, xs))`) still know, once it is exhausted, how many items it gave."""

    __slots__ = ("items", "_it")
    __mc_value__ = True  # its adjoint is a value (a list, one per item), not storage
    __mc_items__ = True  # its `items` are what it yields (rules/builtin_rules._iterable_items reads them)

    def __init__(self, items: list) -> None:
        self.items = items
        self._it = iter(items)

    def __iter__(self) -> "ItemsIterator":
        return self

    def __next__(self) -> Any:
        return next(self._it)

    def __length_hint__(self) -> int:
        return self._it.__length_hint__()


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
    items = xs.items if isinstance(xs, ItemsIterator) else xs if isinstance(xs, (list, tuple)) else list(xs)
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
    return AdjList(adjoints) if isinstance(xs, (list, ItemsIterator)) else AdjTuple(adjoints)


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
    return _like(x, comps)


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
    return AdjList(items)


def reversed_adjoint(xs: Any, g: Any) -> Any:
    if isinstance(g, MutableTangent):  # (`reversed(obj)` of the user's `__reversed__`, run inside reversed())
        raise UnsupportedDerivativeError(
            f"reverse mode of reversed() of a {type(xs).__qualname__}: its `__reversed__` runs inside reversed(), not "
            f"differentiated; call `obj.__reversed__()` yourself, or reverse a list of the items")
    return NoTangent if g is NoTangent else _like(xs, list(g)[::-1])


def sorted_adjoint(xs: Any, g: Any, kw: dict) -> Any:
    if g is NoTangent or isinstance(xs, (dict, set)):
        return NoTangent
    items = list(xs)
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


def add_to_item_unless_zero(a: np.ndarray, g: Any, index: Any) -> None:
    """`a[index] += g` for an adjoint that may be the symbolic zero (reverse/buffers.py)."""
    if g is not NoTangent and g is not None:
        a[index] += g


def add_at_unless_zero(a: np.ndarray, index: Any, g: Any) -> None:
    """`np.add.at(a, index, g)` for an adjoint that may be the symbolic zero (reverse/buffers.py)."""
    if g is not NoTangent and g is not None:
        np.add.at(a, index, g)


def add_into_buffer(a: np.ndarray, g: Any) -> np.ndarray:
    """`a += g` for an adjoint that may be the symbolic zero (reverse/buffers.py)."""
    if g is not NoTangent and g is not None:
        a += g
    return a
