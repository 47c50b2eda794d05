"""Adjoints of reading parts of a value: an item, an attribute, the items of an unpacking.

`x[i]`, `x.name`, `a, b = x`, `(*a, *b)` and `{**a, **b}` each read parts of a value;
their pullbacks put the part's adjoint back where the part came from (`item_adjoint`,
`attr_adjoint`, `unpack_adjoint`, ...), and take one part out of a container's adjoint
(`item_of`), moving out the storage of a mutable item so it is counted once.  Apart from
adjoint_values.py, which defines the adjoint containers these build, because they are about
where a part's adjoint goes, not about adding adjoints.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..arrays import add_at, is_other_array, library_of_type
from ..tangents import MutableTangent, NoTangent
from .adjoint_values import AdjDict, AdjList, AdjTuple, MethodAdjoint, StorageTuple


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
    lengths = _part_lengths(parts, len(y))
    start = sum(lengths[:k])
    piece = AdjTuple(g[start:start + lengths[k]])
    from .builtin_adjoints import ItemsIterator, to_the_end

    if isinstance(parts[k], ItemsIterator):
        return to_the_end(parts[k], list(piece))  # (`(*it,)` read it to its end: its last items)
    return unpack_adjoint(parts[k], piece) if not isinstance(parts[k], tuple) else piece


def _part_lengths(parts: tuple, total: int) -> list:
    """How many items each part of `(*a, *b)` gave.  An iterator part is exhausted by then: ours know what the
    display read (builtin_adjoints.read_again); one other iterator has what the others leave of the result; two
    are refused (its items' adjoints would land on the wrong items: `(*it,)` of a map gave a zero gradient)."""
    from ..errors import UnsupportedDerivativeError
    from ..lazy_iteration import is_iterator
    from .builtin_adjoints import ItemsIterator, read_again

    lengths: list = []
    unknown = []
    for i, p in enumerate(parts):
        if isinstance(p, ItemsIterator):
            lengths.append(len(read_again(p, "star-unpacking (*it)")))
        elif is_iterator(p):
            lengths.append(0)
            unknown.append(i)
        else:
            lengths.append(len(tuple(p)))
    if len(unknown) > 1:
        raise UnsupportedDerivativeError(
            "reverse mode of star-unpacking two iterators in one display or call (`(*it1, *it2)`): how many items "
            "each gave is not known to the derivative; take lists of them first (`(*list(it1), *list(it2))`)")
    if unknown:
        lengths[unknown[0]] = total - sum(lengths)
    return lengths


def merge_part_adjoint(g: Any, part: Any, *later: Any) -> Any:
    """The adjoint of one part of `{**a, **b}` (ops.merge_dicts): its keys that no later part overrides (the value
    of an overridden key is not in the result: it got the adjoint of the value that replaced it)."""
    if g is NoTangent:
        return g
    return AdjDict({k: g[k] for k in part if k in g and not any(k in q for q in later)})


def real_adjoint(x: Any, g: Any) -> Any:
    return g if not isinstance(x, np.ndarray) else np.full(np.shape(x), g)
