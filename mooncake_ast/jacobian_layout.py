"""What a Jacobian's inputs look like, worked out once per argument kind (higher.jacfwd): the differentiated
arguments' pytree, leaf sizes and kinds, memory orders and identity directions.  (Split from higher.py, which
re-exports these names.)"""
from __future__ import annotations

from typing import Any

import numpy as np

from .pytrees import _flatten, _leaf_kinds


_PLAIN_SCALARS = (float, int, np.float64)


def _kinds_key(args: tuple) -> Any:
    """A key for the layout of a call whose arguments are all float arrays, floats or other values that are
    not containers (None where an argument is a container: its layout is worked out on each call)."""
    key = []
    for a in args:
        t = type(a)
        if t is np.ndarray:
            key.append((a.shape, a.dtype.str, _fortran(a), _gapped_strides(a)))
        elif t is float or t is int or t is np.float64:
            key.append(t)
        elif t in (tuple, list, dict):
            return None
        else:
            key.append(t)
    return tuple(key)


def _fortran(a: Any) -> bool:
    """Whether array a is laid out in Fortran order (and not also in C order): its tangents are laid out so too,
    since `a.ravel()` / `a.reshape(-1)` is a view of a C-ordered array and a copy of a Fortran-ordered one, and
    forward code decides which from the tangent (a write through the result reaches a, or not)."""
    return type(a) is np.ndarray and a.ndim > 1 and a.flags.f_contiguous and not a.flags.c_contiguous


def _gapped_strides(a: Any) -> Any:
    """The strides (in items, signed) of an array neither C- nor Fortran-contiguous (`big[::2]`, `big[:, ::2]`,
    `big[::-1]`), whose tangents get them too: `a.ravel()` / `a.reshape(-1)` is a copy of it, and must be one of
    its tangents (a contiguous tangent's was a view, and a write through it reached the argument's tangent only);
    None for a contiguous array, and for strides no tangent can copy (entries shared, parts of items)."""
    if type(a) is not np.ndarray or a.flags.c_contiguous or a.flags.f_contiguous or a.size == 0:
        return None
    size = a.dtype.itemsize
    if any(s % size for s in a.strides):
        return None
    strides = tuple(s // size for s in a.strides)
    reach = 1
    for n, s in sorted(zip(a.shape, map(abs, strides)), key=lambda p: p[1]):
        if n > 1 and s < reach:
            return None  # (entries overlap: a broadcast view)
        reach = s * n if n > 1 else reach
    return strides


def _gapped_zeros(shape: tuple, strides: tuple, n: Any = None) -> np.ndarray:
    """Float zeros of the shape (with a leading batch axis of n, unless None) whose entries (each batch's) lie
    `strides` items apart, as the argument's do (an axis of negative stride runs backwards through memory)."""
    span = sum((k - 1) * abs(s) for k, s in zip(shape, strides)) + 1
    item = np.dtype(float).itemsize
    steps = tuple(abs(s) * item for s in strides)
    if n is None:
        z = np.lib.stride_tricks.as_strided(np.zeros(span), shape, steps)
    else:
        z = np.lib.stride_tricks.as_strided(np.zeros((n, span)), (n,) + tuple(shape), (span * item,) + steps)
    flips = tuple(slice(None, None, -1) if s < 0 else slice(None) for s in strides)
    return z[(slice(None),) + flips] if n is not None else z[flips]


def zeros_laid_out_as(v: Any) -> np.ndarray:
    """Zeros of leaf v's shape and dtype laid out as v is (C, Fortran, or its very strides): a column of jacfwd's."""
    strides = _gapped_strides(v)
    if strides is not None:
        return _gapped_zeros(v.shape, strides).astype(v.dtype, copy=False)
    return _zeros_like_leaf(np.shape(v), _fortran(v)).astype(np.asarray(v).dtype, copy=False)


def fresh_copy(e: np.ndarray) -> np.ndarray:
    """A copy of e (a batch of directions) laid out as e is, gaps and all: forward code may write into its tangents,
    and decides from their layout whether a reshape is a view."""
    strides = _gapped_strides(e)
    if strides is None:
        return e.copy(order="K")
    out = _gapped_zeros(e.shape, strides)
    out[...] = e
    return out


def probe_laid_out(piece: np.ndarray, fortran: bool, strides: Any) -> np.ndarray:
    """A fresh copy of piece laid out as its leaf (see _InputLayout.strides)."""
    if strides is not None:
        out = _gapped_zeros(piece.shape, strides)
        out[...] = piece
        return out
    return piece.copy(order="F" if fortran else "C")


def _zeros_like_leaf(shape: tuple, fortran: bool, n: Any = None) -> np.ndarray:
    """Zeros of the leaf's shape (with a leading batch axis of n, unless None) in the leaf's memory order."""
    if not fortran:
        return np.zeros(shape if n is None else (n,) + shape)
    k = len(shape)
    if n is None:
        return np.zeros(shape[::-1]).T
    return np.zeros((n,) + shape[::-1]).transpose((0,) + tuple(range(k, 0, -1)))


class _InputLayout:
    """The differentiated inputs of one argument kind: pytree, leaf sizes and kinds, identity directions."""

    def __init__(self, selected: tuple, nums: tuple, args: tuple = ()) -> None:
        leaves: list = []
        self.nums = nums
        self.tree = _flatten(selected, leaves)
        self.sig = repr(self.tree)  # the pytree's structure and shapes, as a key of checked batched passes
        self.sizes = [leaf.size for leaf in leaves]
        self.shapes = [leaf.shape for leaf in leaves]
        self.kinds = _leaf_kinds(self.tree)
        self.n = sum(self.sizes)
        self.simple = all(t[0] == "leaf" for t in self.tree[1])  # the arguments are leaves themselves
        # every argument a number or an array of numbers (what _kinds_key keys on: so for all calls of this kind)
        self.plain = all((type(a) is np.ndarray and a.dtype.kind in "fiu") or type(a) in _PLAIN_SCALARS
                         for a in args)
        self.vector_hessian = False  # (mc.hessian: the function's result is not a scalar, see _jacfwd)
        self.batch: Any = None  # False once a batched pass failed for this layout (None: not known yet)
        self.rule: Any = None  # the derived forward rule a call of this kind ran (higher._columns), or None
        self.last_checked: Any = None  # (forward code, trace) of this layout's last batched pass found checked
        self.fortran = [_fortran(leaf) for leaf in leaves]
        self.strides = [_gapped_strides(leaf) for leaf in leaves]  # (a leaf neither C- nor Fortran-contiguous)
        self.eyes: list = []  # per leaf: (n, *shape) with the leaf's identity directions in its rows
        start = 0
        for leaf, size, fortran, strides in zip(leaves, self.sizes, self.fortran, self.strides):
            b = _zeros_like_leaf(leaf.shape, fortran, self.n) if strides is None else \
                _gapped_zeros(leaf.shape, strides, self.n)
            if size and not leaf.shape:  # (a number)
                b[start] = 1.0
            elif size:  # (an empty leaf has no directions; direction k is the leaf's element k in C order)
                b[(np.arange(start, start + size),) + np.unravel_index(np.arange(size), leaf.shape)] = 1.0
            self.eyes.append(b)
            start += size

    def leaves_of(self, args: tuple) -> list:
        if self.simple:
            out = []
            for i in self.nums:
                a = args[i]
                out.append(a if type(a) is np.ndarray and a.dtype.kind == "f" else np.asarray(a, dtype=float))
            return out
        leaves: list = []
        _flatten(tuple(args[i] for i in self.nums), leaves)
        return leaves
