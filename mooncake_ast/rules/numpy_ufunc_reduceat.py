"""`u.reduceat(x, indices, axis=0)` of the binary arithmetic ufuncs (issue 12), both modes: segment sums
(np.add.reduceat), products, maxima, ... on top of numpy_ufunc_methods.py's fold.

Entry i of the result is the left fold of u over the segment x[indices[i]:indices[i+1]] along `axis` (to
the end for the last index), or x[indices[i]] alone where indices[i] >= indices[i+1]; its tangent and
adjoint are the fold's over that segment.  Our folds' values are compared with NumPy's result, so an
order NumPy does not document (np.power, see numpy_ufunc_methods._ORDERED) is refused, never
differentiated as if it were the left fold.  `dtype=` and `out=` are refused.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent
from .numpy_common import _bind, _no_adjoint
from .numpy_extra import _dz
from .numpy_ufunc_methods import _NV, PARTIALS, _plain, _running, fold_adjoint, fold_tangent
from .registry import defjvp, defvjp

_REDUCEAT = ("indices", "axis", "dtype", "out")


def _segments(x, indices, axis):
    """(start, stop) along `axis` of each result entry (a one-entry segment where the indices do not increase)."""
    n = np.shape(x)[axis]
    idx = [int(i) for i in np.asarray(indices).ravel()]
    out = []
    for k, i in enumerate(idx):
        stop = idx[k + 1] if k + 1 < len(idx) else n
        out.append((i, stop if stop > i else i + 1))
    return out


def _checked(u, x, y, indices, axis, dtype, out):
    _plain(f"np.{u.__name__}.reduceat", dtype=dtype)
    if np.iscomplexobj(x):
        raise NotImplementedError(f"derivative of np.{u.__name__}.reduceat of complex numbers")
    if out is not None:
        raise NotImplementedError(f"derivative of np.{u.__name__}.reduceat with out=")
    axis = int(axis) % np.ndim(x)
    segs = _segments(x, indices, axis)
    ours = [_running(u, np.moveaxis(np.take(x, range(a, b), axis=axis), axis, 0), _NV)[0][-1] for a, b in segs]
    mine = np.moveaxis(np.stack([np.asarray(v, dtype=float) for v in ours]), 0, axis)
    if not np.allclose(mine, np.asarray(y, dtype=float), rtol=1e-9, atol=1e-12, equal_nan=True):
        raise NotImplementedError(
            f"derivative of np.{u.__name__}.reduceat: NumPy {np.__version__} did not compute these reductions as "
            f"left-to-right folds, and its order is not documented; write the folds as a loop over the segments")
    return axis, segs


def reduceat_tangent(u, x, y, dx, indices, axis=0, dtype=None, out=None):
    axis, segs = _checked(u, x, y, indices, axis, dtype, out)
    d = np.broadcast_to(_dz(x, dx), np.shape(x))
    parts = [fold_tangent(u, np.take(x, range(a, b), axis=axis), np.take(d, range(a, b), axis=axis), axis, _NV, True)
             for a, b in segs]
    return np.moveaxis(np.stack([np.asarray(p, dtype=float) for p in parts]), 0, axis)


def reduceat_adjoint(u, x, y, g, indices, axis=0, dtype=None, out=None):
    if _no_adjoint(g):
        return NoTangent
    axis, segs = _checked(u, x, y, indices, axis, dtype, out)
    g = np.moveaxis(np.asarray(g, dtype=float), axis, 0)
    xbar = np.zeros(np.shape(x))
    moved = np.moveaxis(xbar, axis, 0)  # (a view: writes land in xbar)
    for k, (a, b) in enumerate(segs):
        part = fold_adjoint(u, np.take(x, range(a, b), axis=axis), g[k], axis, _NV, True)[0]
        moved[a:b] += np.moveaxis(part, axis, 0)
    return xbar


def _register(u):
    defjvp(u.reduceat, lambda t, y, x, *p, **k: t.call(reduceat_tangent, u, x, y, t.d(x), **_bind(_REDUCEAT, p, k))
           if t.d(x) is not None else None)
    defvjp(u.reduceat, lambda t, g, y, x, *p, **k: (t.call(reduceat_adjoint, u, x, y, g, **_bind(_REDUCEAT, p, k)),)
           + (None,) * len(p))


for _u in PARTIALS:
    _register(_u)
