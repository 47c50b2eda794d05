"""What operations return, in the lattice of ir/types.py: the transfer functions of type inference.

One entry per family (arithmetic and ufuncs broadcast, reductions drop axes, matrix products,
builtins of numbers, in-place operators, the NumPy functions whose result type follows from their
operands' and from literal arguments).  Anything not listed is UNKNOWN: the generated code decides
when it runs.  A result type here is a promise the reverse emitter writes plain code on, so each
entry claims only what NumPy guarantees for every input of those types.
"""
from __future__ import annotations

import builtins
import itertools
import math
import operator
from typing import Any, Callable, Optional

import numpy as np

from .. import ops
from . import library_types
from .nodes import Call, Const, Value
from .types import (BOOL, FLOAT, FLOAT_ELEMENTWISE, INT, RANGE, SLICE, UNKNOWN, AVal, Arr, Num, Tup, _axes, _dtype,
                    _getattr, Lst, broadcast_axes, getitem_type, is_float_array, join, literal, NOT_LITERAL)

_ARITH = {operator.add, operator.sub, operator.mul, operator.truediv, operator.pow, operator.neg, operator.pos,
          operator.abs, operator.mod, operator.floordiv, builtins.abs, builtins.pow}
_COMPARE = {operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne}
_NUM_RESULT = {builtins.len: INT, builtins.int: INT, builtins.round: INT, builtins.float: FLOAT,
               builtins.bool: BOOL, operator.not_: BOOL, builtins.isinstance: BOOL, operator.truth: BOOL}
_BOOL_UFUNCS = {np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal, np.logical_and,
                np.logical_or, np.logical_not, np.logical_xor, np.isnan, np.isinf, np.isfinite, np.signbit}
_KEEP_INT_UFUNCS = {np.add, np.subtract, np.multiply, np.negative, np.positive, np.absolute, np.maximum,
                    np.minimum, np.square, np.floor_divide, np.remainder, np.sign}
_REDUCTIONS = {np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.std, np.var, np.median}
_LIKE = {np.zeros_like, np.ones_like, np.empty_like, np.copy, np.array}


def _elementwise(fn: Any, ts: list, true_div: bool) -> AVal:
    dts = [_dtype(t) for t in ts]
    axes = [_axes(t) for t in ts]
    if None in dts:
        return UNKNOWN
    if "c" in dts or any(d not in "fiub" for d in dts):
        return UNKNOWN
    if fn in _COMPARE or fn in _BOOL_UFUNCS:
        dt = "b"
    elif "f" in dts or true_div:
        dt = "f"
    elif isinstance(fn, np.ufunc) and fn not in _KEEP_INT_UFUNCS:
        dt = "f"
    else:
        dt = "i"
    if all(isinstance(t, Num) for t in ts):
        return {"f": FLOAT, "i": INT, "b": BOOL}[dt]
    return Arr(dt, broadcast_axes(axes))


def _reduction(t: AVal, axis: Any, keepdims: bool) -> AVal:
    if isinstance(t, Num):
        return FLOAT if t.kind == "float" else UNKNOWN
    if not isinstance(t, Arr) or t.dtype != "f" or t.axes is None:
        return UNKNOWN
    if axis is None:
        return Arr("f", ("1",) * len(t.axes)) if keepdims else FLOAT
    if not isinstance(axis, int) or isinstance(axis, bool) or not -len(t.axes) <= axis < len(t.axes):
        return UNKNOWN
    k = axis % len(t.axes)
    if keepdims:
        return Arr("f", t.axes[:k] + ("1",) + t.axes[k + 1:])
    rest = t.axes[:k] + t.axes[k + 1:]
    return Arr("f", rest) if rest else FLOAT


def _matmul(a: AVal, b: AVal) -> AVal:
    if not (is_float_array(a) and is_float_array(b)):
        return UNKNOWN
    na, nb = len(a.axes), len(b.axes)
    if (na, nb) == (1, 1):
        return FLOAT
    if (na, nb) == (2, 1):
        return Arr("f", a.axes[:1])
    if (na, nb) == (1, 2):
        return Arr("f", b.axes[1:])
    if (na, nb) == (2, 2):
        return Arr("f", (a.axes[0], b.axes[1]))
    return UNKNOWN


def makes_new_array(fn: Any) -> bool:
    """Does fn (an operation whose result type this module infers) return a new object, never a view of an
    operand?"""
    try:
        hash(fn)
    except TypeError:
        return False
    if fn in _ARITH or fn in _COMPARE or fn in _REDUCTIONS or fn in (operator.matmul, np.matmul) or fn in FLOAT_ELEMENTWISE:
        return True
    if fn in (np.zeros_like, np.ones_like, np.empty_like, np.full_like, np.copy, np.array, np.zeros, np.ones, np.empty,
              np.full, np.eye, np.identity, np.arange, np.linspace, np.dot, np.vdot, np.inner, np.outer, np.tensordot,
              np.kron, np.concatenate, np.stack, np.vstack, np.hstack):
        return True  # (constructors, products and joins always make a new array)
    if isinstance(fn, np.ufunc):
        return fn.nout == 1
    return getattr(fn, "__module__", None) == "math"


def _depth(items: list) -> int:
    return max((1 + _depth(list(t.items)) if isinstance(t, Tup) else 0 for t in items), default=0)


_PLAIN_OF_INPLACE = {operator.iadd: operator.add, operator.isub: operator.sub, operator.imul: operator.mul,
                     operator.itruediv: operator.truediv, operator.ipow: operator.pow}
# math's functions that give what their operands' own methods give (the others convert with __float__ / __index__)
_MATH_BY_OPERAND = {math.floor, math.ceil, math.trunc, math.prod, getattr(math, "sumprod", math.prod)}


def _number_or_numbers(t: AVal) -> bool:
    """A number, or a list or tuple of numbers."""
    if isinstance(t, Lst):
        return isinstance(t.item, Num)
    if isinstance(t, Tup):
        return all(isinstance(i, Num) for i in t.items)
    return isinstance(t, Num)


_NUMBER_INPLACE = {operator.ifloordiv: operator.floordiv, operator.imod: operator.mod}  # (of numbers only)


_INT_TUPLES = frozenset({itertools.combinations, itertools.permutations, itertools.combinations_with_replacement,
                         itertools.product})


def _int_tuples(fn: Any, args: list, s: Call) -> AVal:
    """`itertools.combinations(range(n), 2)` (permutations, combinations_with_replacement of a range and a literal
    length; product of ranges): tuples of ints, typed as the list of them a loop walks (ops.sequence makes one),
    so that `for i, j in ...` reads `x[i]` as an item of x, not as code we do not see."""
    if fn is itertools.product:
        return Lst(Tup((INT,) * len(args))) if args and all(t is RANGE for t in args) and len(args) <= 8 else UNKNOWN
    k = literal(s.args[1]) if len(s.args) == 2 else None if fn is itertools.permutations and len(s.args) == 1 else NOT_LITERAL
    if not args or args[0] is not RANGE or not (type(k) is int and 0 < k <= 8):
        return UNKNOWN
    return Lst(Tup((INT,) * k))


def _unpacked(t: AVal, count: Any) -> AVal:
    """The type of `unpack(x, count)` (the items of `a, b = x`) for x of type t."""
    if isinstance(t, Tup):
        return t if len(t.items) == count else UNKNOWN
    if isinstance(t, Arr) and t.axes and type(count) is int:
        row = getitem_type(t, INT, Const(0))
        return Tup((row,) * count) if row is not UNKNOWN and count <= 16 else UNKNOWN
    return UNKNOWN


def _numbers(ts: list) -> AVal:
    """The type of max/min/sum of numbers of these types (None where that is not what they are)."""
    if not ts or not all(isinstance(t, Num) for t in ts):
        return UNKNOWN
    out = ts[0]
    for t in ts[1:]:
        out = join(out, t)
    return out


def _builtin_reduction(fn: Any, args: list) -> AVal:
    """`max(a, b)`, `min(xs)`, `sum(xs)` of numbers (a tuple of them, or a float vector)."""
    if len(args) >= 2 and fn is not builtins.sum:
        return _numbers(args)
    if len(args) != 1:
        return UNKNOWN
    t = args[0]
    if isinstance(t, Tup):
        items = list(t.items) + ([INT] if fn is builtins.sum else [])
        return _numbers(items)
    if isinstance(t, Arr) and t.axes is not None and len(t.axes) == 1 and t.dtype == "f":
        return FLOAT
    if isinstance(t, Lst) and t.item == FLOAT:
        return FLOAT
    return UNKNOWN

# ---------------------------------------------------------------- NumPy functions by their operands


def _literal_shape(v: Value) -> Optional[tuple]:
    """The axes a literal shape argument (`3`, `(3, -1)`, `(1, n)`) gives: "1", "n" or "?" each."""
    items = v.args if isinstance(v, Call) and v.callee() is ops.tuple_of and not v.kwargs else [v]
    out = []
    for item in items:
        k = literal(item)
        if k is NOT_LITERAL or type(k) is not int:
            out.append("?")
        elif k == 1:
            out.append("1")
        elif k > 1:
            out.append("n")
        elif k == -1:
            out.append("?")
        else:
            return None
    return tuple(out)


def _flat(t: Arr) -> tuple:
    """The one axis of a float array made flat."""
    if len(t.axes) == 1:
        return t.axes
    if all(d == "1" for d in t.axes):
        return ("1",)
    return ("n",) if any(d[0] == "n" for d in t.axes) else ("?",)


def _float_arrays(args: list, ndims: tuple) -> bool:
    return len(args) == len(ndims) and all(is_float_array(t) and (n is None or len(t.axes) == n)
                                           for t, n in zip(args, ndims))


def literal_array(v: Value) -> AVal:
    """`np.array([True, False, True])`, `np.array([0, 2, 2])`, `np.array([[1.0, 2.0], [3.0, 4.0]])`: a display of
    literal numbers, nested displays of one length each (a rectangular array)."""
    found = _literal_display(v)
    if found is None:
        return UNKNOWN
    kinds, shape = found
    dtype = "b" if kinds == {bool} else "f" if float in kinds else "i"
    return Arr(dtype, tuple(counted_axis(n) for n in shape))


def counted_axis(n: int) -> str:
    """The axis of a display of n items: size one, or a size every display of n items shares (`n@#2`: equal
    symbols mean equal sizes, so `s + 0.5 * dt * k` of two 2-item displays broadcasts nothing)."""
    return "1" if n == 1 else f"n@#{n}"


def _literal_display(v: Value) -> "tuple[set, tuple] | None":
    """(the Python types of the numbers, the shape) of a display of literal numbers or of such displays of one
    shape each, or None."""
    if not (isinstance(v, Call) and v.callee() in (ops.list_of, ops.tuple_of) and v.args and not v.kwargs):
        return None
    if all(isinstance(a, Call) for a in v.args):
        inner = [_literal_display(a) for a in v.args]
        if any(x is None for x in inner) or len({x[1] for x in inner}) != 1:
            return None
        return set().union(*(x[0] for x in inner)), (len(v.args),) + inner[0][1]
    items = [_number(a) for a in v.args]
    if any(type(k) not in (bool, int, float) for k in items):
        return None
    return {type(k) for k in items}, (len(items),)


def _number(v: Value) -> Any:
    """A literal number, negative ones too (`-0.5` is `neg(0.5)` in the IR), or NOT_LITERAL."""
    if isinstance(v, Call) and v.callee() is operator.neg and len(v.args) == 1 and isinstance(v.args[0], Const) and \
            type(v.args[0].value) in (int, float):
        return -v.args[0].value
    return literal(v)


def array_of_items(items: list) -> AVal:
    """`np.array([a, b, c])` of numbers, or of float arrays of one known shape (stacked along a new first axis)."""
    if not items:
        return UNKNOWN
    first = counted_axis(len(items))
    if all(isinstance(t, Num) for t in items):
        kinds = {t.kind for t in items}
        return Arr("f" if "float" in kinds else "b" if kinds == {"bool"} else "i", (first,))
    if all(is_float_array(t) for t in items) and len({t.axes for t in items}) == 1:
        return Arr("f", (first,) + items[0].axes)
    return UNKNOWN


def joined_items(fn: Any, items: list, axis: Any) -> AVal:
    """`np.concatenate([a, b], axis)` and `np.stack([a, b], axis)` of float arrays of one rank: the joined axis (a
    new one for stack) of unknown size, the others as the items have them (NumPy requires them equal)."""
    if not items or not all(is_float_array(t) for t in items) or len({len(t.axes) for t in items}) != 1 or \
            type(axis) is not int:
        return UNKNOWN
    ndim = len(items[0].axes)
    others = []
    for k in range(ndim):
        col = {t.axes[k] for t in items}
        others.append(col.pop() if len(col) == 1 else next((c for c in col if c[0] == "n"), "?"))
    if fn is np.stack:
        k = axis + ndim + 1 if axis < 0 else axis
        if not 0 <= k <= ndim:
            return UNKNOWN
        return Arr("f", tuple(others[:k]) + ("n" if len(items) > 1 else "1",) + tuple(others[k:]))
    k = axis + ndim if axis < 0 else axis
    if not 0 <= k < ndim:
        return UNKNOWN
    others[k] = "?"
    return Arr("f", tuple(others))


def numpy_result(fn: Any, args: list, s: Call) -> AVal:
    """The result type of a NumPy function called positionally (no keywords) on these argument types."""
    n = len(args)
    if n == 1 and isinstance(args[0], Lst) and args[0].item == FLOAT:  # (a list of floats: reverse/typed_lists.py)
        if fn in (np.array, np.asarray):
            return Arr("f", ("?",))
        if fn in (np.sum, np.mean, np.std, np.var, np.prod, np.max, np.min, np.median):
            return FLOAT
    if fn in (np.array, np.asarray) and n == 1:
        return literal_array(s.args[0])
    if fn is np.linalg.norm and n == 1 and (is_float_array(args[0]) or args[0] == FLOAT):
        return FLOAT
    if fn in (np.trace, np.linalg.det) and _float_arrays(args, (2,)):
        return FLOAT
    if fn is np.linalg.inv and _float_arrays(args, (2,)):
        return args[0]
    if fn in (np.vdot, np.inner) and _float_arrays(args, (1, 1)):
        return FLOAT
    if fn is np.outer and _float_arrays(args, (1, 1)):
        return Arr("f", (args[0].axes[0], args[1].axes[0]))
    if fn is np.transpose and _float_arrays(args, (None,)):
        return Arr("f", args[0].axes[::-1])
    if fn is np.ravel and _float_arrays(args, (None,)):
        return Arr("f", _flat(args[0]))
    if fn in (np.cumsum, np.cumprod) and _float_arrays(args, (None,)):
        return Arr("f", _flat(args[0]))
    if fn is np.argsort and _float_arrays(args, (None,)) and args[0].axes:
        return Arr("i", args[0].axes)  # (the positions that sort each row along the last axis: its shape)
    if fn in (np.sort, np.flip, np.asarray, np.ascontiguousarray) and _float_arrays(args, (None,)):
        return args[0]
    if fn is np.reshape and n == 2 and _float_arrays(args[:1], (None,)):
        axes = _literal_shape(s.args[1])
        return Arr("f", axes) if axes is not None else UNKNOWN
    if fn is np.expand_dims and n == 2 and _float_arrays(args[:1], (None,)):
        k = literal(s.args[1])
        nd = len(args[0].axes) + 1
        if type(k) is int and -nd <= k < nd:
            axes = list(args[0].axes)
            axes.insert(k % nd, "1")
            return Arr("f", tuple(axes))
        return UNKNOWN
    if fn is np.clip and n == 3 and is_float_array(args[0]) and all(t == FLOAT or is_float_array(t) for t in args[1:]):
        return Arr("f", broadcast_axes([_axes(t) for t in args]))
    if fn is np.where and n == 3 and _dtype(args[0]) == "b" and all(t == FLOAT or is_float_array(t) for t in args[1:]) \
            and _axes(args[0]) is not None:
        axes = broadcast_axes([_axes(t) for t in args])
        return Arr("f", axes) if axes else UNKNOWN  # (a 0-d array, not a float: left to the run time)
    if fn is np.linalg.solve and n == 2 and _float_arrays(args[:1], (2,)) and is_float_array(args[1]) and \
            len(args[1].axes) in (1, 2):
        return args[1]
    if fn in (np.float64, np.float32) and n == 1 and isinstance(args[0], Num):
        return FLOAT
    if fn in (np.eye, np.identity) and n == 1 and args[0] == INT:
        return Arr("f", ("?", "?"))
    if fn is np.linspace and n == 3 and all(isinstance(t, Num) for t in args):
        return Arr("f", ("?",))
    if fn is np.arange and 1 <= n <= 3 and all(isinstance(t, Num) for t in args):
        return Arr("f" if any(t == FLOAT for t in args) else "i", ("?",))
    if fn is np.diag and n == 1 and _float_arrays(args, (None,)) and len(args[0].axes) in (1, 2):
        return Arr("f", ("?",)) if len(args[0].axes) == 2 else Arr("f", (args[0].axes[0], args[0].axes[0]))
    return library_types.keyword_result(fn, args, {})


def result_type(fn: Any, s: Call, args: list, constant: Optional[Callable[[Value], Any]]) -> AVal:
    """The type of statement s, a call of fn (resolved) on arguments of these types."""
    kw = s.kwargs
    try:
        hash(fn)
    except TypeError:
        return UNKNOWN
    if fn is slice:
        return SLICE
    if fn is ops.tuple_of:
        return Tup(tuple(args)) if _depth(args) < 4 else UNKNOWN  # (loops that nest tuples still converge)
    if fn in (ops.identity, ops.sequence) and args:
        return args[0]
    if fn is builtins.range:
        return RANGE
    if fn in _INT_TUPLES and not kw:
        return _int_tuples(fn, args, s)
    if fn in _NUM_RESULT:
        return _NUM_RESULT[fn]
    if fn is operator.getitem and len(args) == 2:
        return getitem_type(args[0], args[1], s.args[1])
    if fn is builtins.getattr and len(s.args) == 2 and isinstance(s.args[1], Const):
        if constant is not None and args[0] is UNKNOWN:
            try:
                value = constant(s)  # `math.pi`
            except LookupError:
                pass
            else:
                return FLOAT if type(value) is float else UNKNOWN
        return _getattr(args[0], s.args[1].value)
    if fn is ops.unpack and len(s.args) == 2 and isinstance(s.args[1], Const):
        return _unpacked(args[0], s.args[1].value)
    if fn in (builtins.max, builtins.min, builtins.sum) and not kw:
        return _builtin_reduction(fn, args)
    if fn in _NUMBER_INPLACE and len(args) == 2 and not kw and all(isinstance(t, Num) for t in args):
        return _elementwise(_NUMBER_INPLACE[fn], args, False)  # (`n //= 2` of numbers: `n = n // 2`)
    if fn in _PLAIN_OF_INPLACE and len(args) == 2 and not kw:
        # (numbers: `s += x` is `s = s + x`; an unused tuple item's adjoint stays the symbolic zero where the caller
        # says so: reverse/transform.quiet_items)
        a, b = args
        if all(isinstance(t, Num) for t in args):
            return _elementwise(_PLAIN_OF_INPLACE[fn], args, fn is operator.itruediv)
        if is_float_array(a) and _dtype(b) in ("f", "i", "u", "b"):
            return a  # the same array, updated in place (NumPy refuses what would change its shape or dtype)
        return UNKNOWN
    if kw:
        if fn in _REDUCTIONS and set(kw) <= {"axis", "keepdims"} and len(args) == 1 and \
                all(literal(v) is not NOT_LITERAL for v in kw.values()):  # (`axis=-1` is neg(1) in the IR)
            return _reduction(args[0], literal(kw["axis"]) if "axis" in kw else None,
                              bool(literal(kw["keepdims"])) if "keepdims" in kw else False)
        if all(literal(v) is not NOT_LITERAL for v in kw.values()):
            return library_types.keyword_result(fn, args, {k: literal(v) for k, v in kw.items()})
        return UNKNOWN
    if fn in (operator.matmul, np.matmul, np.dot) and len(args) == 2:
        return _matmul(*args)
    if fn in FLOAT_ELEMENTWISE:
        return _elementwise(fn, args, True)
    if fn in _ARITH or fn in _COMPARE or (isinstance(fn, np.ufunc) and fn.signature is None and fn.nout == 1
                                          and fn.nin == len(args)):
        if fn in (operator.floordiv, operator.mod) and any(_dtype(t) == "f" for t in args) and \
                not all(isinstance(t, Num) for t in args):
            return UNKNOWN  # (of float arrays: rarely differentiated; keep them generic)
        return _elementwise(fn, args, fn is operator.truediv or fn is np.true_divide)
    if getattr(fn, "__module__", None) == "math" and fn not in (math.frexp, math.modf):
        if fn in _MATH_BY_OPERAND and not all(_number_or_numbers(t) for t in args):
            return UNKNOWN  # (they call the operands' __floor__, __ceil__, __trunc__ or `*`, which may return anything)
        return FLOAT  # (a number, whatever the arguments: the others convert them with __float__ or __index__)
    if fn in _REDUCTIONS and len(args) == 1:
        return _reduction(args[0], None, False)
    if fn in _LIKE and len(args) == 1 and isinstance(args[0], Arr):
        return args[0]  # same dtype, same shape
    if fn in (np.zeros, np.ones, np.empty) and len(args) == 1:
        shape = args[0]  # (a number typed float is an int the caller passed as `num`: a float shape would raise)
        if isinstance(shape, Num):
            return Arr("f", ("?",))
        if isinstance(shape, Tup) and all(isinstance(t, Num) for t in shape.items):
            return Arr("f", ("?",) * len(shape.items))
        return UNKNOWN
    return numpy_result(fn, args, s)
