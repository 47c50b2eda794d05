"""Generic adjoint helpers, specialised on the types known when the pullback is generated.

Rule templates are written once for every type (`t.call(mul_vjp, g, y, a, b)` must serve
numbers, arrays, lists repeated by an int...), so their helpers decide at run time.
When ir/types.py knows the operands are floats or float arrays of known rank (and the
adjoint arriving is certainly a real value, not the symbolic zero), the helper's answer
is known too, and the pullback gets the plain NumPy a person would write instead:

    mul_vjp(g, y, a, b)          ->  a_bar = g * b;  b_bar = np.sum(g * a, axis=0)
    matmul_adjoint_a(g, a, b)    ->  g @ b.T
    mean_adjoint(x, g)           ->  g / x.size, kept a scalar that broadcasts (spread.py)
    pow_deriv(a, 2)              ->  2.0 * a

This is what Julia's compiler does for Mooncake's generic rules; Python has no optimiser
after emission, so the emitter specialises itself.  Each entry returns NotImplemented
when the types do not settle the answer, and the generic helper is called.
"""
from __future__ import annotations

import operator
import sys
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from .. import ops
from ..ir.analysis import uses
from ..ir.nodes import Call, Const, Value
from ..ir.op_types import literal_array
from ..ir.types import FLOAT, NOT_LITERAL, Arr, AVal, Num, is_float_array, is_real, not_one, size_symbol
from ..rules import helpers as h
from ..rules import (builtin_attributes, forward_code_rules, math_rules, numpy_creation, numpy_linalg, numpy_products,
                     numpy_reductions, numpy_shapes)
from . import adjoints as adj
from .handles import PH

if TYPE_CHECKING:
    from .templates import TemplateBuilder


class Pair(tuple):
    """Two adjoints a specialised helper worked out (what `add_vjp` & co. return at run time)."""

    tuple_size = 2


def unbroadcast(t: "TemplateBuilder", g: Any, src: AVal, like: AVal) -> Any:
    """g, of type `src` (a broadcast result), summed down to `like`'s shape; NotImplemented if unknown."""
    if g is None:
        return None
    if isinstance(like, Num):
        if isinstance(src, Num):
            return g
        if is_float_array(src):  # (a 0-d result's adjoint may be a number: NumPy's function takes both)
            return t.call(float, _array_sum(t, g) if src.axes else t.call(np.sum, g))
        return NotImplemented
    if not (is_float_array(like) and is_float_array(src)) or len(like.axes) == 0:
        return NotImplemented
    lead = len(src.axes) - len(like.axes)
    if lead < 0:
        return NotImplemented
    keep: list = []
    for k, (d, s) in enumerate(zip(like.axes, src.axes[lead:])):
        if d == "1":
            if s != "1":
                keep.append(k)
        elif not not_one(d) and s != "1" and (size_symbol(d) is None or size_symbol(d) != size_symbol(s)):
            return NotImplemented  # broadcast or not: only the run time knows
    if lead:
        g = _array_sum(t, g, axis=_axis(tuple(range(lead))))
    if keep:
        g = _array_sum(t, g, axis=_axis(tuple(keep)), keepdims=True)
    return g


def _array_sum(t: "TemplateBuilder", g: Any, **kwargs: Any) -> Any:
    """`np.sum(g, ...)` of an adjoint that is certainly a float array (spreads are made real first), marked to
    print as the method a person writes, `g.sum(axis=0)` (record.methods_of_arrays): NumPy's function wraps
    the method in a Python layer that costs about a microsecond a call."""
    out = t.call(np.sum, g, **kwargs)
    if isinstance(out, Call) and out.callee() is np.sum:
        out.array_method = True  # type: ignore[attr-defined]
    return out


def _axis(axes: tuple) -> Any:
    return axes[0] if len(axes) == 1 else axes


def _both(t: "TemplateBuilder", g: Any, y: Any, a: Any, b: Any, need_a: Any, need_b: Any, ga: Any, gb: Any) -> Any:
    ty, ta, tb = t.type_of(y), t.type_of(a), t.type_of(b)
    # (an int or bool operand that needs no adjoint, `2 * u`, `np.arange(n) * u`, is as good as a float to the other's
    # adjoint)
    if not (t.dense(g) and is_real(ty) and (is_real(ta) or _integral(ta) and not t.value(need_a))
            and (is_real(tb) or _integral(tb) and not t.value(need_b))):
        return NotImplemented
    # (an array with a number, or with itself, `c * c`, broadcasts to its own shape: nothing to undo, whatever its axes)
    same = isinstance(a, PH) and isinstance(b, PH) and a.v is b.v
    out_a = (ga() if isinstance(tb, Num) or same else unbroadcast(t, ga(), ty, ta)) if t.value(need_a) else None
    out_b = (gb() if isinstance(ta, Num) or same else unbroadcast(t, gb(), ty, tb)) if t.value(need_b) else None
    if out_a is NotImplemented or out_b is NotImplemented:
        return NotImplemented
    return Pair((out_a, out_b))


def _integral(t: AVal) -> bool:
    """A number, or an int or bool array of known rank (what it multiplies is real either way)."""
    return isinstance(t, Num) or isinstance(t, Arr) and t.dtype in "iub" and t.axes is not None


def add_vjp(t: "TemplateBuilder", g: Any, y: Any, a: Any, b: Any, need_a: Any = True, need_b: Any = True) -> Any:
    return _both(t, g, y, a, b, need_a, need_b, lambda: g, lambda: g)


def mul_vjp(t: "TemplateBuilder", g: Any, y: Any, a: Any, b: Any, need_a: Any = True, need_b: Any = True) -> Any:
    return _both(t, g, y, a, b, need_a, need_b, lambda: t.mul(g, b), lambda: t.mul(g, a))


def plain_unbroadcast(t: "TemplateBuilder", g: Any, like: Any) -> Any:
    """`unbroadcast(g, like)` inside a rule template: g has the type of the statement's result."""
    src = t.result_type
    if src is None or not t.dense(g):
        return NotImplemented
    stmt = t.stmt
    if t.broadcasting and isinstance(like, PH) and stmt is not None and like.v in stmt.args and is_float_array(src) \
            and all(a is like.v or isinstance(t.rt.type_of(a), Num) for a in stmt.args) and not stmt.kwargs:
        return g  # (an array with numbers broadcasts to its own shape: `x[1:] ** 2` has the shape of `x[1:]`)
    return unbroadcast(t, g, src, t.type_of(like))


def pow_deriv(t: "TemplateBuilder", a: Any, p: Any) -> Any:
    """d(a**p)/da for a constant power: `p * a ** (p - 1)`.

    What the helper computes, for every base: a whole power (where a zero base with a negative
    power made the primal fail or give inf already), or a power above one (`0.0 ** (p - 1)` is 0).
    A power between 0 and 1 is left to the helper: at a zero base it answers inf where
    `0.0 ** -0.5` raises."""
    k = t.literal(p)  # (`x ** -2` too: the IR's -2 is neg(2))
    if not is_real(t.type_of(a)) or k is NOT_LITERAL:
        return NotImplemented
    if type(k) not in (int, float) or k == 0 or not (k == int(k) or k > 1) or not np.isfinite(k):
        return NotImplemented
    if k == 1:
        return Const(1.0)
    if k == 2:
        return t.call(operator.mul, Const(2.0), a)
    less = int(k) - 1 if k == int(k) else k - 1
    return t.call(operator.mul, Const(float(k)), t.call(operator.pow, a, Const(less)))


def sign(t: "TemplateBuilder", x: Any) -> Any:
    """d|x|/dx of a float array: `np.sign(x)` (0 at 0, as the helper).  A float keeps the helper, whose
    answer is a Python float."""
    if not is_float_array(t.type_of(x)):
        return NotImplemented
    return t.call(np.sign, x)


def add1(t: "TemplateBuilder", x: Any) -> Any:
    """`1.0 + x` (math.log1p's derivative) for a float."""
    if not is_real(t.type_of(x)):
        return NotImplemented
    return t.call(operator.add, Const(1.0), x)


def _matmul_types(t: "TemplateBuilder", g: Any, a: Any, b: Any) -> Optional[tuple]:
    ta, tb = t.type_of(a), t.type_of(b)
    if not (t.dense(g) and is_float_array(ta) and is_float_array(tb)):
        return None
    n = (len(ta.axes), len(tb.axes))
    return n if n in ((2, 2), (2, 1), (1, 2), (1, 1)) else None


def matmul_adjoint_a(t: "TemplateBuilder", g: Any, a: Any, b: Any) -> Any:
    n = _matmul_types(t, g, a, b)
    if n is None:
        return NotImplemented
    if n == (2, 2):
        return t.call(operator.matmul, g, t.call(getattr, b, "T"))
    if n == (2, 1):
        return t.call(np.outer, g, b)
    if n == (1, 2):
        return t.call(operator.matmul, b, g)
    return t.call(operator.mul, g, b)


def matmul_adjoint_b(t: "TemplateBuilder", g: Any, a: Any, b: Any) -> Any:
    n = _matmul_types(t, g, a, b)
    if n is None:
        return NotImplemented
    if n in ((2, 2), (2, 1)):
        return t.call(operator.matmul, t.call(getattr, a, "T"), g)
    if n == (1, 2):
        return t.call(np.outer, a, g)
    return t.call(operator.mul, g, a)


def _vector(t: "TemplateBuilder", x: Any) -> bool:
    """Is operand x a float vector: typed one, or a display of literal floats read only here (`[1.0, -0.5]`, which
    NumPy reads as one; ir/inference._float_display)?"""
    tx = t.type_of(x)
    if is_float_array(tx):
        return len(tx.axes) == 1
    v = x.v if isinstance(x, PH) else None
    if v is None or _use_counts(t.rt).get(v) != 1:
        return False
    lit = literal_array(v)
    return isinstance(lit, Arr) and lit.dtype == "f" and lit.axes is not None and len(lit.axes) == 1


def outer_adjoint(t: "TemplateBuilder", g: Any, a: Any, b: Any, which: Any) -> Any:
    """The adjoint of `np.outer(a, b)` of float vectors: `g @ b` for a, `a @ g` for b."""
    k = t.value(which)
    if not (t.dense(g) and is_float_array(t.result_type) and _vector(t, a) and _vector(t, b)) or k not in (0, 1):
        return NotImplemented
    return t.call(operator.matmul, g, b) if k == 0 else t.call(operator.matmul, a, g)


def norm_adjoint(t: "TemplateBuilder", x: Any, y: Any, g: Any, ord: Any = None, axis: Any = None,
                 keepdims: Any = False) -> Any:
    """The adjoint of the 2-norm of a float array along one axis, `np.linalg.norm(d, axis=1)`:
    `x * np.expand_dims(g / (y + (y == 0)), axis)`, 0 where the norm is 0 (x is all zeros there: the helper's
    choice)."""
    tx, k, keep = t.type_of(x), t.value(axis), t.value(keepdims)
    if t.dense(g) and is_float_array(tx) and len(tx.axes) == 1 and t.value(ord) in (None, 2) and k is None and \
            keep is False and t.type_of(y) == FLOAT:  # (`np.linalg.norm(x, 2)` of a vector: its 2-norm)
        return t.call(operator.mul, x, t.call(operator.truediv, g,
                                              t.call(operator.add, y, t.call(operator.eq, y, Const(0.0)))))
    if not (t.dense(g) and is_float_array(tx) and tx.axes and t.value(ord) is None and type(k) is int and
            -len(tx.axes) <= k < len(tx.axes) and keep in (False, True) and is_float_array(t.type_of(y))):
        return NotImplemented
    scale = t.call(operator.truediv, g, t.call(operator.add, y, t.call(operator.eq, y, Const(0.0))))
    return t.call(operator.mul, x, scale if keep else t.call(np.expand_dims, scale, Const(k % len(tx.axes))))


def log_softmax_adjoint(t: "TemplateBuilder", y: Any, g: Any, axis: Any = None) -> Any:
    """The adjoint of `scipy.special.log_softmax(z, axis)` of a float array:
    `g - np.exp(y) * g.sum(axis, keepdims=True)`."""
    ty, k = t.type_of(y), t.value(axis)
    if not (t.dense(g) and is_float_array(ty) and ty.axes and (k is None or type(k) is int and
                                                               -len(ty.axes) <= k < len(ty.axes))):
        return NotImplemented
    g = t.rt.spreads.materialize(g)
    total = _array_sum(t, g, axis=k, keepdims=True) if k is not None else _array_sum(t, g, keepdims=True)
    return t.call(operator.sub, g, t.call(operator.mul, t.call(np.exp, y), total))


def logsumexp_adjoint(t: "TemplateBuilder", a: Any, g: Any, axis: Any = None, b: Any = None, keepdims: Any = False,
                      return_sign: Any = False) -> Any:
    """`scipy.special.logsumexp(a, axis)` of a float array without weights or sign: the helper's softmax weights times
    g, an array of a's shape (called without the None weights, so the pullback knows its result is real)."""
    k, keep, ta = t.value(axis), t.value(keepdims), t.type_of(a)
    if t.value(b) is not None or t.value(return_sign) is not False or keep not in (False, True) or \
            not (k is None or type(k) is int) or not (t.dense(g) and is_float_array(ta) and ta.axes):
        return NotImplemented
    g = t.rt.spreads.materialize(g)
    options = {"keepdims": Const(keep)} if k is None else {"axis": Const(k), "keepdims": Const(keep)}
    from ..rules import scipy_rules

    return t.call(scipy_rules.logsumexp_adjoint, a, g, **options)


def _spread(t: "TemplateBuilder", x: Any, g: Any, axis: Any, keepdims: Any, where: tuple) -> Any:
    """(g spread back over the axes a reduction of x removed, the axis), or NotImplemented."""
    tx = t.type_of(x)
    axis, keepdims = t.value(axis), t.value(keepdims)
    if where or not t.dense(g) or not is_float_array(tx) or keepdims not in (False, True):
        return NotImplemented
    if axis is None:
        if keepdims:
            return t.call(operator.add, t.call(np.zeros_like, x), g), None
        return t.spread(g, x), None  # g at every element of x: kept the scalar it is
    if type(axis) is not int or not -len(tx.axes) <= axis < len(tx.axes):
        return NotImplemented
    gk = g if keepdims else t.call(np.expand_dims, g, Const(axis))
    return t.call(operator.add, t.call(np.zeros_like, x), gk), axis


def sum_adjoint(t: "TemplateBuilder", x: Any, g: Any, axis: Any = None, keepdims: Any = False, *where: Any) -> Any:
    out = _spread(t, x, g, axis, keepdims, where)
    return out if out is NotImplemented else out[0]


def mean_adjoint(t: "TemplateBuilder", x: Any, g: Any, axis: Any = None, keepdims: Any = False, *where: Any) -> Any:
    if t.value(axis) is None and t.value(keepdims) is False and not where and t.dense(g) and is_float_array(t.type_of(x)):
        # the scale goes on the scalar, which stays one (spread.py)
        return t.spread(t.call(operator.truediv, g, t.call(getattr, x, "size")), x)
    out = _spread(t, x, g, axis, keepdims, where)
    if out is NotImplemented:
        return out
    if out[1] is None:
        return t.call(operator.truediv, out[0], t.call(getattr, x, "size"))
    return t.call(operator.truediv, out[0], t.call(operator.getitem, t.call(getattr, x, "shape"), Const(out[1])))


def shape_of(t: "TemplateBuilder", x: Any) -> Any:
    """`np.shape(x)` of an array: its shape recorded in the forward pass (the tape keeps the tuple, not x)."""
    if not is_float_array(t.type_of(x)):
        return NotImplemented
    return t.call(getattr, x, "shape")


def transpose_adjoint(t: "TemplateBuilder", x: Any, g: Any, axes: Any = None) -> Any:
    """The adjoint of `np.transpose(x, axes)`: g transposed back (`np.transpose(g)` reverses the axes again)."""
    tx = t.type_of(x)
    if not (t.dense(g) and is_float_array(tx)):
        return NotImplemented
    order = t.value(axes) if t.is_const(axes) or axes is None else NotImplemented
    if order is None:
        return t.call(np.transpose, g)
    if not (isinstance(order, tuple) and sorted(a % len(tx.axes) for a in order) == list(range(len(tx.axes)))):
        return NotImplemented
    return t.call(np.transpose, g, Const(tuple(int(k) for k in np.argsort([a % len(tx.axes) for a in order]))))


def trace_adjoint(t: "TemplateBuilder", x: Any, g: Any, offset: Any = 0, axis1: Any = 0, axis2: Any = 1) -> Any:
    """The adjoint of the trace of a matrix: g on its diagonal, `g * np.eye(n, m)`."""
    tx = t.type_of(x)
    if not (t.dense(g) and is_float_array(tx) and len(tx.axes) == 2
            and (t.value(offset), t.value(axis1), t.value(axis2)) == (0, 0, 1)):
        return NotImplemented
    shape = t.call(getattr, x, "shape")
    eye = t.call(np.eye, t.call(operator.getitem, shape, Const(0)), t.call(operator.getitem, shape, Const(1)))
    return t.call(operator.mul, g, eye)


def _display(t: "TemplateBuilder", xs: Any) -> Optional[list]:
    """The items of the list or tuple display `[a, b]` an operand is, or None; only for a display whose adjoint is
    a value (not in identity-keyed storage, where a list's adjoint is a list of slots)."""
    v = xs.v if isinstance(xs, PH) else None
    if isinstance(v, Call) and v.callee() in (ops.list_of, ops.tuple_of) and not v.kwargs and v.args and \
            v not in t.rt.stored:
        if v.callee() is ops.list_of and _use_counts(t.rt).get(v, 0) > 1:
            return None  # (a list read elsewhere too may have grown: `xs = [a]; xs.append(b); np.array(xs)` had the
            # display's one item take the whole adjoint)
        return list(v.args)
    return None


def _pieces(t: "TemplateBuilder", xs: PH, parts: list) -> Value:
    """The adjoints of a display's items, as one tuple whose items the display's reverse takes out when the
    pullback is made (`item_of`, below), so `(g[:n], g[n:])` never exists when it runs.  Where this statement is
    the display's only reader, in the display's block, the tuple is all the display's adjoint is each time:
    `sole_pieces` lets ReverseTransform.accumulate take it as such inside loops too (where the adjoint so far is
    a phi, known to be zero only once the pullback is built)."""
    for p in parts:
        t.rt.dense_values.add(p)
    out = t.rt.b.call(ops.tuple_of, parts)
    out.pieces = True  # type: ignore[attr-defined]
    rt, d = t.rt, xs.v
    if t.stmt is not None and rt.home.get(d) is rt.home.get(t.stmt) and _use_counts(rt).get(d) == 1:
        out.sole_pieces = True  # type: ignore[attr-defined]
    return out


def _use_counts(rt: Any) -> dict:
    counts = getattr(rt, "_use_counts", None)
    if counts is None:
        counts = rt._use_counts = uses(rt.ir)
    return counts


def _part(t: "TemplateBuilder", g: Any, axis: int, index: Any) -> Value:
    """`g[index]` along `axis` (`g[:, index]` for axis 1)."""
    if axis == 0:
        return t.rt.b.call(operator.getitem, [g, index])
    full = t.rt.b.call(slice, [Const(None), Const(None), Const(None)])
    return t.rt.b.call(operator.getitem, [g, t.rt.b.call(ops.tuple_of, [full] * axis + [index])])


def join_adjoint(t: "TemplateBuilder", kind: Any, xs: Any, g: Any, axis: Any) -> Any:
    """The adjoint of `np.concatenate([a, b])` (or np.stack) of float arrays of one known rank: g cut
    back into the pieces, `a_bar = g[:n]; b_bar = g[n:]` (`n = a.shape[0]`, recorded), or `g[0]`, `g[1]` for a
    stack.  Views of g, as NumPy's split (the helper's) gives."""
    items, kind, axis = _display(t, xs), t.value(kind), t.value(axis)
    if items is None or not t.dense(g) or type(axis) is not int or not is_float_array(t.result_type):
        return NotImplemented
    types_ = [t.rt.type_of(a) for a in items]
    if not all(is_float_array(x) for x in types_) or len({len(x.axes) for x in types_}) != 1:
        return NotImplemented
    rank = len(types_[0].axes)
    if rank == 0:
        return NotImplemented
    if kind not in ("stack", "concatenate"):  # (vstack and hstack results are not typed: ir/inference.py)
        return NotImplemented
    out_rank = rank + 1 if kind == "stack" else rank
    if not -out_rank <= axis < out_rank:
        return NotImplemented
    axis %= out_rank
    # (a spread -- spread.py -- stands for the result by broadcasting, and may be an array: made real, then cut)
    g = t.rt.spreads.materialize(g)
    if kind == "stack":
        return _pieces(t, xs, [_part(t, g, axis, Const(k)) for k in range(len(items))])
    parts, start = [], Const(None)
    for k, a in enumerate(items):
        if k == len(items) - 1:
            stop: Any = Const(None)
        else:
            size = t.rt.b.call(operator.getitem, [t.call(getattr, PH(a), "shape"), Const(axis)])
            stop = size if k == 0 else t.rt.b.call(operator.add, [start, size])
        parts.append(_part(t, g, axis, t.rt.b.call(slice, [start, stop, Const(None)])))
        start = stop
    return _pieces(t, xs, parts)


def array_adjoint(t: "TemplateBuilder", x: Any, g: Any) -> Any:
    """The adjoint of `np.array([a, b])` of numbers: `float(g[0])`, `float(g[1])` (the helper's floats)."""
    items = _display(t, x)
    if items is None or not t.dense(g) or not is_float_array(t.result_type) or len(t.result_type.axes) != 1 or \
            not all(isinstance(t.rt.type_of(a), Num) for a in items):
        return NotImplemented
    g = t.rt.spreads.materialize(g)
    b = t.rt.b
    return _pieces(t, x, [b.call(float, [b.call(operator.getitem, [g, Const(k)])]) for k in range(len(items))])


def item_of(t: "TemplateBuilder", g: Any, key: Any) -> Any:
    """An item of the adjoints `_pieces` made: taken out now."""
    k = t.value(key)
    if isinstance(g, Call) and getattr(g, "pieces", False) and type(k) is int and 0 <= k < len(g.args):
        return g.args[k]
    st, rt = t.stmt, t.rt
    if st is not None and st in rt.returned_tuples and type(k) is int and 0 <= k < len(st.args) and k not in rt.quiet:
        item = st.args[k]  # (an array the function returns in a tuple: a real array, whatever the caller gave)
        if is_float_array(rt.type_of(item)) and rt.active(item):
            out = rt.b.call(adj.real_item, [g, Const(k), t.call(getattr, PH(item), "shape")])
            rt.dense_values.add(out)
            return out
    return NotImplemented


def function_part_adjoint(t: "TemplateBuilder", g: Any, which: Any, part: Any) -> Any:
    """The adjoint of the keyword defaults (or defaults) a function was made with, where they are an empty display
    (`{}`, `()`: a lambda or nested function without them): none, whatever the function's adjoint is (the helper
    gives `{}` / `()` of nothing then, even for a refusal it hands on), so the pullback reads nothing."""
    v = part.v if isinstance(part, PH) else None
    kind = t.value(which)
    if isinstance(v, Call) and not v.args and not v.kwargs and (
            (kind == "kwdefaults" and v.callee() is ops.dict_of) or (kind == "defaults" and v.callee() is ops.tuple_of)):
        return None
    return NotImplemented


TABLE = {
    adj.unbroadcast: plain_unbroadcast,
    forward_code_rules._unbroadcast_to: plain_unbroadcast,  # (the same, in rules for generated code: issue 10)
    adj.add_vjp: add_vjp,
    adj.mul_vjp: mul_vjp,
    h.pow_deriv: pow_deriv,
    h.sign: sign,
    math_rules.add1: add1,
    numpy_products.matmul_adjoint_a: matmul_adjoint_a,
    numpy_products.matmul_adjoint_b: matmul_adjoint_b,
    numpy_products.outer_adjoint: outer_adjoint,
    numpy_linalg.norm_adjoint: norm_adjoint,
    numpy_products.dot_adjoint_a: matmul_adjoint_a,  # (np.dot is matmul for real operands of rank 1 and 2)
    numpy_products.dot_adjoint_b: matmul_adjoint_b,
    numpy_reductions.sum_adjoint: sum_adjoint,
    numpy_reductions.mean_adjoint: mean_adjoint,
    numpy_shapes.transpose_adjoint: transpose_adjoint,
    numpy_shapes.trace_adjoint: trace_adjoint,
    np.shape: shape_of,
    numpy_shapes.join_adjoint: join_adjoint,
    numpy_creation.array_adjoint: array_adjoint,
    adj.item_of: item_of,
    builtin_attributes.function_part_adjoint: function_part_adjoint,
}


_SCIPY = [__package__.rpartition(".")[0] + ".rules.scipy_rules"]


def _add_scipy_entries() -> None:
    """SciPy's adjoints join TABLE once rules/scipy_rules is imported: its rules are registered only then, so no
    pullback can call them before (importing it here cost every first derivation its ten modules, ~2 ms)."""
    from ..rules import scipy_rules

    TABLE[scipy_rules.log_softmax_adjoint] = log_softmax_adjoint
    TABLE[scipy_rules.logsumexp_adjoint] = logsumexp_adjoint
    _SCIPY.append(True)


def specialised(t: "TemplateBuilder", fn: Any, args: tuple, kwargs: dict) -> Any:
    """The plain code for `fn(*args)` in this pullback, or NotImplemented."""
    try:
        entry = TABLE.get(fn)
    except TypeError:
        return NotImplemented
    if entry is None and len(_SCIPY) == 1 and _SCIPY[0] in sys.modules:
        _add_scipy_entries()
        entry = TABLE.get(fn)
    if entry is None or kwargs:
        return NotImplemented
    return entry(t, *args)
