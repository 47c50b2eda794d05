"""The square of a kink, `np.linalg.norm(x) ** 2` (np.hypot(a, b) ** 2, np.abs(x) ** 2, np.sqrt(s) ** 2, `r * r` of
such an r), differentiated as the smooth function it is (rules/smooth_squares.py says why).

The square keeps its value, computed as written; the transforms see `smooth_square(<the square>, <sum of squares>)`,
whose derivative is that of the sum of squares of the kink's operands (`np.sum(modulus_squared(x))` for a norm,
`modulus_squared(a) + modulus_squared(b)` for hypot, `s` for sqrt(s)).  Only where the kink is known when the
derivative is made (a NumPy or math function read from its module; not the builtin abs, which an object of the
user's may define) and called in a form whose square is that sum: a norm of the default order (or "fro"), with or
without axis / keepdims.
"""
from __future__ import annotations

import builtins
import math
import operator
from typing import Any, Callable, Optional

import numpy as np

from .. import ops
from .nodes import Call, Const, Function, Value

_POWERS = (operator.pow, builtins.pow, np.power, math.pow)
_PRODUCTS = (operator.mul, np.multiply)
# (not the builtin abs: `abs(v)` of an object of the user's is its own __abs__, whose square is no sum of squares known
# here, and which must stay differentiable as it is)
_ABSOLUTES = (np.abs, np.fabs, math.fabs)


def _is(fn: Any, options: tuple) -> bool:
    return any(fn is o for o in options)


def _squared_operand(s: Call, resolve: Callable[[Any], Any]) -> Optional[Value]:
    """y where s computes y ** 2 (y * y, np.square(y), pow(y, 2), np.power(y, 2.0)), else None."""
    if s.kwargs:
        return None
    fn = resolve(s.fn)
    if fn is None:
        return None
    if len(s.args) == 1 and fn is np.square:
        return s.args[0]
    if len(s.args) == 2 and _is(fn, _POWERS):
        e = s.args[1]
        if isinstance(e, Const) and type(e.value) in (int, float) and e.value == 2:
            return s.args[0]
    if len(s.args) == 2 and _is(fn, _PRODUCTS) and s.args[0] is s.args[1]:
        return s.args[0]
    return None


def _sum_of_squares(y: Value, resolve: Callable[[Any], Any], new: Callable[..., Call]) -> Optional[Call]:
    """The statements computing y ** 2 as a sum of squares of y's operands (appended through `new`), for y a kink
    whose square is smooth; else None (nothing made)."""
    if not isinstance(y, Call):
        return None
    fn = resolve(y.fn)
    if fn is None:
        return None
    from ..rules.smooth_squares import as_numeric_array, modulus_squared, numeric_operand

    if fn is not math.hypot and fn is not math.sqrt and fn is not math.fabs:
        # (`np.linalg.norm([a, b]) ** 2`, `v = list(x); np.linalg.norm(v) ** 2`: the array NumPy makes of a display
        # or a list, through as_numeric_array, whose adjoint is split back into the items, complex ones too)
        def operand(a: Value) -> Value:
            return a if isinstance(a, Const) else new(as_numeric_array, [a])

        ops_ = [operand(y.args[0]), *y.args[1:]] if fn is np.linalg.norm else [operand(a) for a in y.args]
        y = Call(y.fn, ops_, dict(y.kwargs), loc=y.loc)  # (norm's ord / axis / keepdims: as they are)

    if fn is np.linalg.norm and 1 <= len(y.args) and set(y.kwargs) <= {"ord", "axis", "keepdims"}:
        named = dict(zip(("ord", "axis", "keepdims"), y.args[1:]))
        if len(y.args) > 4 or set(named) & set(y.kwargs):
            return None
        named.update(y.kwargs)
        order = named.pop("ord", None)
        if order is not None and not (isinstance(order, Const) and order.value in (None, "fro")):
            return None
        return new(np.sum, [new(modulus_squared, [y.args[0]])], named)
    if y.kwargs or not y.args:
        return None
    if fn is np.hypot and len(y.args) == 2:
        return new(operator.add, [new(modulus_squared, [y.args[0]]), new(modulus_squared, [y.args[1]])])
    if fn is math.hypot:  # (numbers: modulus_squared refuses anything else by name)
        total = new(modulus_squared, [y.args[0]])
        for a in y.args[1:]:
            total = new(operator.add, [total, new(modulus_squared, [a])])
        return total
    if len(y.args) == 1 and _is(fn, _ABSOLUTES):
        return new(modulus_squared, [y.args[0]])
    if len(y.args) == 1 and _is(fn, (np.sqrt, math.sqrt)):
        # (sqrt(s) ** 2 is s where it is defined: smooth_square gives nan where it is not)
        return new(numeric_operand, [y.args[0]])
    return None


def smooth_kink_squares(ir: Function, resolve: Callable[[Any], Any]) -> None:
    """Rewrite each square of a kink in ir (rules/smooth_squares.py): `v = y ** 2` stays, followed by the sum of
    squares `s` and `w = smooth_square(v, s)`, and every use of v reads w."""
    from ..rules.smooth_squares import smooth_square

    for b in ir.blocks:
        i = 0
        while i < len(b.stmts):
            s = b.stmts[i]
            y = _squared_operand(s, resolve) if isinstance(s, Call) else None
            made: list = []

            def new(fn: Any, args: list, kwargs: Optional[dict] = None) -> Call:
                c = Call(Const(fn), args, kwargs or {}, loc=s.loc)
                c.block = b  # type: ignore[attr-defined]
                made.append(c)
                return c

            total = _sum_of_squares(y, resolve, new) if y is not None else None
            if total is None:
                i += 1
                continue
            w = new(smooth_square, [s, total])
            w.hint = s.hint
            for blk in ir.blocks:
                for x in (*blk.phis, *blk.stmts, *((blk.term,) if blk.term is not None else ())):
                    x.replace_operand(s, w)
            for c in made:  # (the new statements read the square itself, and each other, not w)
                c.replace_operand(w, s)
            b.stmts[i + 1:i + 1] = made
            i += 1 + len(made)
