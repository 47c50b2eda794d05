"""The square of a kink, differentiated as the smooth function it is: `np.linalg.norm(x) ** 2`, `np.hypot(a, b) ** 2`,
`np.abs(x) ** 2`, `np.sqrt(s) ** 2` (ir/smooth_squares.py finds them).

Each kink's own rules take the slope 0 at the kink (abs, norm, hypot at 0: strong_zeros.unit_ratio) and an infinite
curvature there, met by the square's slope 2 y == 0 as a strong zero.  Differentiated once that is right (the square's
gradient at 0 is 0); differentiated twice it is not: the Hessian of norm(x) ** 2 at x == 0 came out 0 where it is 2 I
(the square smooths the cone: |x|^2).  Here the square is computed as the code computes it, so its value is the
user's to the last bit, and differentiated as the sum of squares of the kink's operands, whose derivatives are
polynomials: right at every order, at the kink too.

`smooth_square(v, s)`: the value v (the square as written), the derivative of s (the same number as a sum of
squares), and nan where v is nan (np.sqrt(s) ** 2 for s < 0, where NumPy gives nan: no derivative there).
`modulus_squared(x)`: |x|^2 elementwise (x * x for real x, for complex x the sum of the squared parts).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..arrays import is_other_array
from ..ir.types import FLOAT_ELEMENTWISE
from ..tangents import NoTangent
from .registry import defcomplex, defjvp, defvjp

__all__ = ["as_numeric_array", "defined_where", "modulus_squared", "modulus_squared_tangent", "nan_where_moving",
           "numeric_operand", "operand_adjoint", "operand_tangent", "smooth_square"]


def smooth_square(v: Any, s: Any) -> Any:
    """v's value (the square as the user's code computed it); its derivative is s's (rules below).  A copy of an
    array v: the same object would share v's adjoint storage in reverse mode, and the adjoint of the result would
    reach v's own derivative too (counted twice)."""
    return v.copy() if isinstance(v, np.ndarray) or is_other_array(v) else v


def defined_where(d: Any, v: Any) -> Any:
    """d, and nan where v is nan and d is not 0 (a derivative where the value has none is not a number either; an
    input that does not move moves nothing: an exact 0 stays, as strong_zeros has it)."""
    if d is NoTangent:
        return NoTangent
    if type(v) is float or type(v) is int:
        return d if v == v or (type(d) is float and d == 0.0) else d * np.nan
    nan = np.isnan(v)
    if not np.any(nan):
        return d
    return np.where(nan & np.not_equal(d, 0), np.nan, d)


def nan_where_moving(dv: Any, v: Any) -> Any:
    """0, and nan where v is nan and its tangent (or adjoint) dv is not 0: the derivative of defined_where through
    its v (where v is a number, defined_where does not depend on it; where v is nan nothing about it is defined)."""
    if dv is NoTangent:
        return NoTangent
    if type(v) is float or type(v) is int:
        return 0.0 if v == v or (type(dv) is float and dv == 0.0) else np.nan
    return np.where(np.isnan(v) & np.not_equal(dv, 0), np.nan, 0.0)


def _complex(x: Any) -> bool:
    return np.iscomplexobj(x)


def _refuse_other(x: Any) -> None:
    """modulus_squared takes numbers and numeric arrays: `abs(v) ** 2` of an object of the user's (its own __abs__)
    is no sum of squares that this helper knows."""
    if isinstance(x, np.ndarray) and x.dtype.kind in "biufc":
        return
    if isinstance(x, (bool, int, float, complex, np.number)) or is_other_array(x):
        return  # (a Dask / CuPy array: its own x * x and copy)
    raise NotImplementedError(f"derivative of the square of a norm / hypot / abs / sqrt of a {type(x).__name__}: give "
                              f"it an array (np.asarray), or write the square as a product of its parts")


def as_numeric_array(x: Any) -> Any:
    """The kink's operand as NumPy reads it: a list or tuple (`v = list(x); np.linalg.norm(v) ** 2`) as an array; an
    array copied (the same object would share x's adjoint storage in reverse mode); anything else as it is."""
    if isinstance(x, (list, tuple)):
        return np.asarray(x)
    return x.copy() if isinstance(x, np.ndarray) or is_other_array(x) else x


def operand_tangent(x: Any, dx: Any) -> Any:
    """The tangent of as_numeric_array(x): a list's tangent (its items' tangents) laid out as the array NumPy makes."""
    if dx is NoTangent:
        return NoTangent
    if isinstance(x, (list, tuple)):
        from .numpy_creation import asarray_tangent

        return asarray_tangent(np.asarray(x), x, dx)
    return dx


def operand_adjoint(x: Any, g: Any) -> Any:
    """The adjoint of x from that of as_numeric_array(x): split back into the list's items."""
    if g is NoTangent:
        return NoTangent
    if isinstance(x, (list, tuple)):
        from ..reverse.adjoints import AdjList, AdjTuple

        items = [operand_adjoint(v, g[i]) if isinstance(v, (list, tuple)) else _item_adjoint(v, g[i])
                 for i, v in enumerate(x)]
        return AdjList(items) if isinstance(x, list) else AdjTuple(items)
    return g


def _item_adjoint(v: Any, g: Any) -> Any:
    """An item's part of the array's adjoint: complex for a complex item, the real part for a real one (the real
    inner product: a real item moves only the real part of its entry)."""
    if not np.iscomplexobj(v):
        g = np.real(g)
    if isinstance(v, np.ndarray):
        return np.asarray(g).reshape(v.shape)
    return g.item() if np.ndim(g) == 0 else g


def numeric_operand(x: Any) -> Any:
    """x (a copy of an array: the same object would share x's adjoint storage in reverse mode), refused where it is
    no number or numeric array (a list given to np.sqrt by name: its square's derivative would have the list's
    shape)."""
    _refuse_other(x)
    return x.copy() if isinstance(x, np.ndarray) or is_other_array(x) else x


def modulus_squared(x: Any) -> Any:
    """|x|^2 elementwise without a kink: x * x, or x.real ** 2 + x.imag ** 2 for complex x (a real result)."""
    _refuse_other(x)
    if _complex(x):
        return x.real * x.real + x.imag * x.imag
    return x * x


def modulus_squared_tangent(x: Any, dx: Any) -> Any:
    """2 Re(conj(x) dx): the tangent of modulus_squared (bilinear in x and dx, so its own rules are products)."""
    if _complex(x) or _complex(dx):
        return 2.0 * np.real(np.conj(x) * dx)
    return 2.0 * (x * dx)


for _fn in (smooth_square, defined_where, nan_where_moving, numeric_operand, modulus_squared, modulus_squared_tangent,
            as_numeric_array):  # (as_numeric_array of a list: no dtype, so no type: ir/op_types._elementwise)
    _fn.dense_in_dense = True  # type: ignore[attr-defined]  (an array in, an array out: reverse/templates.py)
    FLOAT_ELEMENTWISE.add(_fn)

defjvp(smooth_square, lambda t, y, v, s: t.call(defined_where, t.d(s), v) if t.d(s) is not None else None)
defvjp(smooth_square, lambda t, g, y, v, s: (None, t.call(defined_where, g, v)))
defjvp(defined_where, lambda t, y, d, v: t.add(t.call(defined_where, t.d(d), v) if t.d(d) is not None else None,
                                                t.call(nan_where_moving, t.d(v), v) if t.d(v) is not None else None))
defvjp(defined_where, lambda t, g, y, d, v: (t.call(defined_where, g, v), t.unb(t.call(nan_where_moving, g, v), v)))
defjvp(nan_where_moving, lambda t, y, dv, v: t.add(t.call(nan_where_moving, t.d(dv), v) if t.d(dv) is not None else None,
                                                   t.call(nan_where_moving, t.d(v), v) if t.d(v) is not None else None))
defvjp(nan_where_moving, lambda t, g, y, dv, v: (t.unb(t.call(nan_where_moving, g, v), dv), t.unb(t.call(nan_where_moving, g, v), v)))
defjvp(numeric_operand, lambda t, y, x: t.d(x))
defvjp(numeric_operand, lambda t, g, y, x: (g,))
defjvp(modulus_squared, lambda t, y, x: t.call(modulus_squared_tangent, x, t.d(x)) if t.d(x) is not None else None)
# (the real inner product on C = R^2: x_bar = 2 g x, g real)
defvjp(modulus_squared, lambda t, g, y, x: (t.mul(t.mul(2.0, g), x),))
defjvp(modulus_squared_tangent, lambda t, y, x, d: t.add(
    t.call(modulus_squared_tangent, t.d(x), d) if t.d(x) is not None else None,
    t.call(modulus_squared_tangent, x, t.d(d)) if t.d(d) is not None else None))
defvjp(modulus_squared_tangent, lambda t, g, y, x, d: (t.mul(t.mul(2.0, g), d), t.mul(t.mul(2.0, g), x)))
# (linear in the tangent / adjoint; x gives only the layout)
defjvp(as_numeric_array, lambda t, y, x: t.call(operand_tangent, x, t.d(x)) if t.d(x) is not None else None)
defvjp(as_numeric_array, lambda t, g, y, x: (t.call(operand_adjoint, x, g),))
defjvp(operand_tangent, lambda t, y, x, dx: t.call(operand_tangent, x, t.d(dx)) if t.d(dx) is not None else None)
defvjp(operand_tangent, lambda t, g, y, x, dx: (None, t.call(operand_adjoint, x, g)))
defjvp(operand_adjoint, lambda t, y, x, g: t.call(operand_adjoint, x, t.d(g)) if t.d(g) is not None else None)
defvjp(operand_adjoint, lambda t, gb, y, x, g: (None, t.call(operand_tangent, x, gb)))
defcomplex(smooth_square, defined_where, numeric_operand, modulus_squared, modulus_squared_tangent, as_numeric_array,
           operand_tangent, operand_adjoint)
