"""Arguments that share memory: one object passed twice (`f(x, x)`), or a view of another argument (`f(A, A[0])`).

One semantics for every entry point (grad, value_and_grad, vjp, jvp, jacfwd, jacrev, hessian, hvp), DESIGN.md §2's:
two names for one object share one tangent, and the tangent of a view is the same view of its base's tangent.  So
memory, not the position it is passed in, is what is differentiated:

* the gradient with respect to an argument is the adjoint of its memory, through every argument that reaches that
  memory (`grad(f)(x, x)` is the total derivative; `grad(f, argnums=1)(A, A[0])` is the adjoint of A's first row,
  through both places).  Reverse mode keeps adjoints per element of memory; the entry points make every argument
  that shares memory with a differentiated one active (`sharing`), so its part is not dropped;
* a tangent (a direction) moves memory: jacfwd and hessian's directions for an argument move every argument that
  shares that memory (`tie`: the tangents are views of one buffer laid out as the arguments' common base), and jvp's
  tangents must agree where their arguments share memory (api_checks refuses two tangents for one object; `tie`
  takes a view's missing tangent from its base's and refuses two that differ on shared elements).

Views that share no element (`v[:3]`, `v[3:]`) are apart; so is everything else.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .api_checks import TangentError
from .batching import Batched


def _root(a: np.ndarray) -> np.ndarray:
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _shares(a: Any, b: Any) -> bool:
    if a is b:
        return True
    return type(a) is np.ndarray and type(b) is np.ndarray and np.may_share_memory(a, b) and np.shares_memory(a, b)


def sharing(args: tuple, nums: Any) -> frozenset:
    """The positions outside nums of the arguments that are, or share memory with, a differentiated argument."""
    if len(args) < 2:
        return frozenset()
    out = set()
    for i in nums:
        a = args[i]
        if isinstance(a, (int, float, complex, str, bytes, type(None), np.generic)):
            continue  # (numbers are values: each place its own)
        for j, b in enumerate(args):
            if j != i and j not in nums and j not in out and _shares(a, b):
                out.add(j)
    return frozenset(out)


def twins(args: tuple, nums: Any) -> list:
    """Groups (lists of positions in nums, two or more) of differentiated positions given one array object: a
    direction for one of them moves that memory, so in all of them (jacfwd sums their directions into one tangent,
    as jacrev gives each position the total derivative).  Numbers are values, each place its own."""
    groups: dict = {}
    for i in nums:
        a = args[i]
        if type(a) is np.ndarray:
            groups.setdefault(id(a), []).append(i)
    return [g for g in groups.values() if len(g) > 1]


def views_of_one_memory(args: tuple) -> list:
    """Groups (lists of positions, two or more) of float-array arguments that share memory without all being one
    object: their tangents must be views of one buffer (`tie`)."""
    arrays = [i for i, a in enumerate(args) if type(a) is np.ndarray and a.dtype.kind in "fc"]
    if len(arrays) < 2:
        return []
    groups: list = []
    for i in arrays:
        for g in groups:
            if any(_shares(args[i], args[j]) for j in g):
                g.append(i)
                break
        else:
            groups.append([i])
    return [g for g in groups if len(g) > 1 and any(args[j] is not args[g[0]] for j in g)]


def _buffer(root: np.ndarray, dtype: Any, n: Optional[int]) -> np.ndarray:
    """Zeros laid out as root's memory (C or Fortran order), with a leading batch axis of n (outermost in memory)
    unless n is None."""
    fortran = not root.flags.c_contiguous
    if n is None:
        return np.zeros(root.shape, dtype=dtype, order="F" if fortran else "C")
    if not fortran:
        return np.zeros((n,) + root.shape, dtype=dtype)
    k = len(root.shape)
    return np.zeros((n,) + root.shape[::-1], dtype=dtype).transpose((0,) + tuple(range(k, 0, -1)))


def _view_into(buf: np.ndarray, root: np.ndarray, a: np.ndarray, batch: bool) -> np.ndarray:
    """The view of buf (laid out as root, with a leading batch axis where `batch`) that a is of root's memory."""
    item = root.itemsize
    offset = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    if offset % item or any(s % item for s in a.strides):
        raise TangentError("an argument that is a view of another argument at an offset or stride that is not a whole "
                           "number of elements is not supported: pass a copy")
    mem = buf.ravel(order="K")  # (buf is contiguous in its memory order: a view of all of it, in that order)
    start = mem[offset // item:]
    strides = tuple(s // item * buf.itemsize for s in a.strides)
    if batch:
        return np.lib.stride_tricks.as_strided(start, (buf.shape[0],) + a.shape, (buf.strides[0],) + strides)
    return np.lib.stride_tricks.as_strided(start, a.shape, strides)


def tie(args: tuple, dargs: list, groups: list, add: bool) -> list:
    """dargs with the tangents of each group of arguments sharing memory made views of one buffer, a missing one
    (None) the view of the others'.  Where arguments overlap, the given tangents are checked equal (jvp: they are
    one tangent given twice), or with `add` summed (jacfwd's directions: moving one argument's memory and moving the
    other's, in different directions of the batch or of a probe).  A Batched tangent keeps its batch axis in front.
    An object given in several places counts once."""
    out = list(dargs)
    for g in groups:
        root = _root(args[g[0]])
        if any(_root(args[j]) is not root for j in g) or not (root.flags.c_contiguous or root.flags.f_contiguous):
            raise TangentError("arguments that share memory with a base that is not one contiguous array are not "
                               "supported: pass copies")
        given = [j for k, j in enumerate(g) if out[j] is not None and not _is_zero_marker(out[j])
                 and not any(args[i] is args[j] for i in g[:k])]
        batched = [out[j] for j in given if type(out[j]) is Batched]
        n = batched[0].data.shape[0] if batched else None
        dtype = np.result_type(*[np.asarray(out[j].data if type(out[j]) is Batched else out[j]).dtype
                                 for j in given]) if given else root.dtype
        buf = _buffer(root, dtype, n)
        seen = _buffer(root, bool, None) if n is None else None
        batch = n is not None
        for j in given:
            t = out[j]
            view = _view_into(buf, root, args[j], batch)
            if n is None and add:
                view += np.asarray(t, dtype=dtype)
            elif n is None:
                mark = _view_into(seen, root, args[j], False)
                t = np.asarray(t, dtype=dtype)
                if np.any(mark & (view != t)):
                    raise TangentError(f"the tangents of arguments {sorted(g)} differ where the arguments share memory "
                                       f"(one is a view of the other): memory has one tangent, so give the same values "
                                       f"there (or None for the view: it is taken from the other)")
                view[...] = t
                mark[...] = True
            else:
                d = t.data if type(t) is Batched else np.broadcast_to(np.asarray(t), (n,) + args[j].shape)
                view += d  # (jacfwd: directions of different arguments are different rows)
        tr = batched[0].tr if batched else None
        for j in g:
            view = _view_into(buf, root, args[j], batch)
            out[j] = view if n is None else Batched(view, tr)
    return out


def _is_zero_marker(t: Any) -> bool:
    from .tangents import NoTangent

    return t is NoTangent
