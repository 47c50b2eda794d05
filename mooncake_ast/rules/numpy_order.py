"""The `order=` of ravel, flatten and reshape (issue 12): which entry of the operand goes where.

`np.ravel(x, order='F')` reads x column by column, so its adjoint is g put back column by column
(`np.reshape(g, x.shape, order='F')`); the rules used to put it back row by row, a silently wrong gradient.
'A' reads in Fortran order when x is Fortran-contiguous and not C-contiguous, else in C order; 'K' (ravel,
flatten) reads in the order the entries lie in memory.  Both are resolved on the primal x, whose layout the
tangent (a fresh array) does not share.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent
from .numpy_common import _no_adjoint


def other_order(a, k, at) -> bool:
    """Is a rule's `order` argument (keyword, or positional at `at`; at None: keyword only, as for x.reshape(3, 4),
    whose positional arguments are the shape) given as something other than 'C'?  An order not known when the code
    is generated (a variable) counts as another one: the order-aware helper decides when it runs."""
    if "order" in k:
        order = k["order"]
    elif at is not None and len(a) > at:
        order = a[at]
    else:
        return False
    v = getattr(order, "v", order)  # (a reverse template's placeholder holds the IR value)
    lit = v.value if type(v).__name__ == "Const" else v
    if lit is None:
        return False
    return not (isinstance(lit, str) and lit.upper() == "C")


def resolved(x, order) -> str:
    """'C' or 'F' where that is how `order` reads x, else 'K' (memory order of a non-contiguous x)."""
    o = "C" if order is None else str(order).upper()
    x = np.asarray(x)
    if o == "A":
        return "F" if x.flags.f_contiguous and not x.flags.c_contiguous else "C"
    if o == "K":
        if x.flags.c_contiguous:
            return "C"
        return "F" if x.flags.f_contiguous else "K"
    return o


def _memory_positions(x):
    """The C-order positions of x's entries, in the order np.ravel(x, order='K') reads them."""
    pos = np.empty_like(np.asarray(x), dtype=np.intp)
    pos[...] = np.arange(np.size(x)).reshape(np.shape(x))
    return np.ravel(pos, order="K")


def _order(a, k, at):
    return k.get("order", a[at] if len(a) > at else "C")


def ravel_tangent(x, dx, *a, **k):
    """The tangent of np.ravel(x, order) / x.ravel(order) / x.flatten(order)."""
    o = resolved(x, _order(a, k, 0))
    d = np.broadcast_to(np.asarray(dx), np.shape(x))
    if o == "K":
        return np.ravel(d)[_memory_positions(x)]
    return np.array(np.ravel(d, order=o))  # (a copy: a flatten's tangent is storage of its own)


def ravel_view_tangent(x, dx, *a, **k):
    """The tangent of np.ravel(x, order) / x.ravel(order): NumPy returns a view of x where the order allows one
    (order "K" or "A" of a contiguous array, "F" of a Fortran-ordered one), and a write through it, or to x, shows in
    the other; the tangent must be the same view of x's tangent.  Raveled alike when laid out alike."""
    if isinstance(dx, np.ndarray) and isinstance(x, np.ndarray) and dx.shape == x.shape and dx.strides == x.strides \
            and dx.dtype.itemsize == x.dtype.itemsize:
        return np.ravel(dx, order=resolved(x, _order(a, k, 0)))
    return ravel_tangent(x, dx, *a, **k)


def ravel_adjoint(x, g, *a, **k):
    if _no_adjoint(g):
        return NoTangent
    o = resolved(x, _order(a, k, 0))
    if o == "K":
        out = np.empty(np.size(x), dtype=np.asarray(g).dtype)
        out[_memory_positions(x)] = np.ravel(g)
        return out.reshape(np.shape(x))
    return np.reshape(g, np.shape(x), order=o)


def reshape_tangent(x, dx, shape, order="C", **k):
    """The tangent of np.reshape(x, shape, order) (x.reshape's, with its shape given as one tuple)."""
    return np.reshape(dx, shape, order=resolved(x, order))


def reshape_adjoint(x, g, order="C"):
    if _no_adjoint(g):
        return NoTangent
    return np.reshape(g, np.shape(x), order=resolved(x, order))


def laid_out_as(y, operands, tangents, dy):
    """The tangent of a call's result y, laid out as y where y is a new array (forward code run when the code runs).

    A maybe-view function (reshape, ravel, astype(copy=False), asarray) is a view or a copy by the layout of its
    operand, and a write through its result reaches the operand only when it is a view: the tangent must be a view
    or a copy in the same way, which it is only if it has the primal's layout.  So a new array (sharing no memory
    with the call's operands) gets a tangent that shares none with theirs and has its strides: `A.T + row` (C
    order) whose tangent dA.T + 0 is Fortran-ordered, `np.sort(A.T)` (Fortran order, tangent C order), and
    `X.ravel()` of a strided argument (a copy, while the contiguous tangent ravels to a view).  The usual result
    (same strides, a tangent of its own) returns at the first test."""
    if type(y) is not np.ndarray or type(dy) is not np.ndarray or dy.strides == y.strides and (
            dy.flags.owndata or not y.flags.owndata):
        return dy
    if dy.shape != y.shape or dy.dtype.itemsize != y.dtype.itemsize:
        return dy
    for a in operands:
        if isinstance(a, np.ndarray) and np.may_share_memory(y, a):
            return dy  # (a view of an operand: its tangent is the same view of the operand's, as the rule made it)
    if dy.strides == y.strides and not any(isinstance(d, np.ndarray) and np.may_share_memory(dy, d) for d in tangents):
        return dy
    out = np.empty_like(y, dtype=dy.dtype)
    out[...] = dy
    return out
