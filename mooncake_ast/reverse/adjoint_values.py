"""Adjoints as values: the containers that add element by element, `accumulate`, undoing broadcasts.

An adjoint has the structure of its primal.  Numbers and arrays add with `+`;
tuples, lists and dicts add element by element, so their adjoints use the
`Adj*` containers below, whose `+` does that (a plain tuple's `+` would
concatenate).  `NoTangent` is the zero of every adjoint.  Functions and bound
methods have adjoints too (`FunctionAdjoint`, `MethodAdjoint`).

The bottom of the run-time adjoint helpers: part_adjoints.py (items, attributes,
unpacking) and builtin_adjoints.py (Python's builtins) build on it, and adjoints.py
gathers all three for generated code (`_mc.*`).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..arrays import is_array, is_other_array
from ..tangents import MutableTangent, NoTangent
from .complex_values import refuse_complex


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


def number_adjoint(g: Any) -> Any:
    """A number's adjoint as a number: 0.0 for the symbolic zero (a tuple slot or a callee's argument that
    got no adjoint), so the pullback's arithmetic on numbers stays plain."""
    return 0.0 if g is NoTangent or g is None else g


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
