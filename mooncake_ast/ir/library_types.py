"""Result types of library functions beyond the core families of ir/op_types.py: NumPy's and SciPy's functions
whose result type follows from their operands' and from literal arguments, keyword ones included
(`np.diff(x, n=2)`, `np.linalg.norm(d, axis=1)`, `scipy.special.log_softmax(z, axis=1)`, `np.roll(x, 1)`).

Each entry claims only what the library guarantees for every input of those types (a result type is a promise
the reverse emitter writes plain code on); anything else is UNKNOWN.  SciPy's functions are recognised by
module and name, so nothing here imports SciPy.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import op_types
from .types import BOOL, FLOAT, INT, UNKNOWN, AVal, Arr, Num, Tup, broadcast_axes, is_float_array, size_symbol


def _diff(t: AVal, n: Any, axis: Any) -> AVal:
    """`np.diff(x, n, axis)` of a float array: the axis differenced is n shorter (never below zero), as `x[n:]` is
    (the same size symbol, less n: types._sliced), the others as they were."""
    if not is_float_array(t) or not t.axes or type(n) is not int or n < 0 or type(axis) is not int or \
            not -len(t.axes) <= axis < len(t.axes):
        return UNKNOWN
    k = axis % len(t.axes)
    d = t.axes[k]
    if n == 0:
        return t
    s = size_symbol(d)
    if s is None:
        axis_t = "?"
    else:
        base, _, less = s.partition("-")
        axis_t = f"?@{base}-{int(less or 0) + n}"
    return Arr("f", t.axes[:k] + (axis_t,) + t.axes[k + 1:])


def _named(fn: Any, module: str, *names: str) -> bool:
    """Is fn the function `names` of `module` (without importing it: SciPy is imported only by code that uses it)?"""
    return getattr(fn, "__module__", None) == module and getattr(fn, "__name__", None) in names


def keyword_result(fn: Any, args: list, kw: dict) -> AVal:
    """The result type of a call with literal keyword arguments `kw` (`np.diff(x, n=2)`, `np.linalg.norm(d, axis=1)`,
    `scipy.special.log_softmax(z, axis=1)`), or UNKNOWN."""
    n = len(args)
    if not kw:
        out = _library_result(fn, args, kw)
        if out is not UNKNOWN:
            return out
    if fn is np.diff and n == 1 and set(kw) <= {"n", "axis"}:
        return _diff(args[0], kw.get("n", 1), kw.get("axis", -1))
    if fn is np.linalg.norm and n == 1 and set(kw) <= {"axis", "keepdims"} and is_float_array(args[0]) and \
            type(kw.get("axis")) is int:
        return op_types._reduction(args[0], kw["axis"], bool(kw.get("keepdims", False)))  # (the 2-norm along one axis)
    if _named(fn, "scipy.special._logsumexp", "softmax", "log_softmax") and n == 1 and set(kw) <= {"axis"} and \
            is_float_array(args[0]) and (kw.get("axis") is None or type(kw.get("axis")) is int):
        return args[0]  # (the same shape, floats)
    if _named(fn, "scipy.special._logsumexp", "logsumexp") and n == 1 and set(kw) <= {"axis", "keepdims"} and \
            (kw.get("axis") is None or type(kw.get("axis")) is int):
        return op_types._reduction(args[0], kw.get("axis"), bool(kw.get("keepdims", False)))  # (as np.sum's, of floats)
    if _named(fn, "scipy.linalg._basic", "solve_triangular") and n == 2 and set(kw) <= {"lower"} and \
            is_float_array(args[0]) and len(args[0].axes) == 2 and _float_vector_or_matrix(args[1]):
        return args[1]
    if kw:
        out = _same_shape_calls(fn, args, kw)
        if out is not UNKNOWN:
            return out
    if fn is np.take_along_axis and n == 2 and set(kw) == {"axis"} and type(kw["axis"]) is int:
        return _along_axis(args[0], args[1], kw["axis"])
    return UNKNOWN


def _along_axis(a: AVal, idx: AVal, axis: int) -> AVal:
    """`np.take_along_axis(a, idx, axis)`: idx's axis along `axis`, the others broadcast between a and idx."""
    if not (is_float_array(a) and isinstance(idx, Arr) and idx.dtype in "iu" and idx.axes is not None and
            len(idx.axes) == len(a.axes) and a.axes and -len(a.axes) <= axis < len(a.axes)):
        return UNKNOWN
    k = axis % len(a.axes)
    out = []
    for j, (x, i) in enumerate(zip(a.axes, idx.axes)):
        if j == k:
            out.append(i)
        else:
            col = broadcast_axes([(x,), (i,)])
            if col is None:
                return UNKNOWN
            out.append(col[0])
    return Arr("f", tuple(out))


def _float_vector_or_matrix(t: AVal) -> bool:
    return is_float_array(t) and len(t.axes) in (1, 2)


def _shaped_like(x: AVal, dtype: str = "f") -> AVal:
    """A result of x's shape (a number for a number)."""
    if isinstance(x, Num):
        return FLOAT if dtype == "f" else INT
    if isinstance(x, Arr) and x.axes is not None and x.dtype in "fiub":
        return Arr(dtype, x.axes)
    return UNKNOWN


def _same_shape_calls(fn: Any, args: list, kw: dict) -> AVal:
    """Functions whose result is a float array of their first operand's shape."""
    n = len(args)
    if fn is np.roll and n == 2 and isinstance(args[1], Num) and set(kw) <= {"axis"} and is_float_array(args[0]) and \
            (kw.get("axis") is None or type(kw.get("axis")) is int):
        return args[0]  # (the items moved round: the same shape)
    if fn in (np.cumsum, np.cumprod) and n == 1 and set(kw) == {"axis"} and type(kw["axis"]) is int and \
            is_float_array(args[0]) and -len(args[0].axes) <= kw["axis"] < len(args[0].axes):
        return args[0]  # (along one axis: the shape kept; without it the result is flat, op_types.numpy_result)
    if fn is np.copy and n == 1 and set(kw) == {"order"} and is_float_array(args[0]):
        return args[0]  # (`x.copy()` is `np.copy(x, order="C")`: ir/typed_methods.py)
    if fn is np.gradient and n == 2 and not kw and is_float_array(args[0]) and len(args[0].axes) == 1 and \
            isinstance(args[1], Num):
        return args[0]  # (of a vector: one array of its shape; of a matrix a list of them, left unknown)
    if _named(fn, "scipy.linalg._decomp_cholesky", "cholesky") and n == 1 and set(kw) <= {"lower"} and \
            is_float_array(args[0]) and len(args[0].axes) == 2:
        return args[0]
    return UNKNOWN


def _library_result(fn: Any, args: list, kw: dict) -> AVal:
    """Positional calls (and the few keywords that change nothing of the result's type)."""
    n = len(args)
    out = _same_shape_calls(fn, args, kw)
    if out is not UNKNOWN:
        return out
    if kw:
        return UNKNOWN
    if fn is np.diff and n == 1:
        return _diff(args[0], 1, -1)
    if fn is np.linalg.norm and n == 2 and _float_vector_or_matrix(args[0]):
        return FLOAT  # (any valid order of a vector or a matrix: one number; an invalid one raises)
    if fn is np.interp and n == 3 and all(is_float_array(t) and len(t.axes) == 1 for t in args[1:]):
        return _shaped_like(args[0])
    if fn is np.polyval and n == 2 and is_float_array(args[0]) and len(args[0].axes) == 1:
        return _shaped_like(args[1])
    if fn is np.searchsorted and n == 2 and is_float_array(args[0]) and len(args[0].axes) == 1:
        return _shaped_like(args[1], "i")
    if fn in (np.hanning, np.hamming, np.blackman, np.bartlett) and n == 1 and args[0] == INT:
        return Arr("f", ("?",))
    if fn is np.convolve and n == 2 and all(is_float_array(t) and len(t.axes) == 1 for t in args):
        return Arr("f", ("?",))
    if fn is np.linalg.slogdet and n == 1 and is_float_array(args[0]) and len(args[0].axes) == 2:
        return Tup((FLOAT, FLOAT))  # (the sign and the log of |det|: floats for a real matrix)
    if _named(fn, "scipy.spatial.distance", "pdist") and n == 1 and is_float_array(args[0]) and \
            len(args[0].axes) == 2:
        return Arr("f", ("?",))  # (one distance per pair of rows)
    if _named(fn, "scipy.spatial.distance", "cdist") and n == 2 and all(
            is_float_array(t) and len(t.axes) == 2 for t in args):
        return Arr("f", (args[0].axes[0], args[1].axes[0]))
    if _named(fn, "scipy.linalg._decomp_cholesky", "cho_factor") and n == 1 and is_float_array(args[0]) and \
            len(args[0].axes) == 2:
        return Tup((args[0], BOOL))  # (the factor and whether it is the lower one)
    if _named(fn, "scipy.linalg._decomp_cholesky", "cho_solve") and n == 2 and isinstance(args[0], Tup) and \
            len(args[0].items) == 2 and is_float_array(args[0].items[0]) and _float_vector_or_matrix(args[1]):
        return args[1]
    return UNKNOWN


