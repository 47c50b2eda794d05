"""Exact zeros in derivative propagation: a zero tangent or adjoint times an infinite local derivative is 0.

Floating point says 0 * inf = nan.  A derivative says otherwise: an input that does not move (tangent exactly
0) moves nothing, however steep the function is there, and an output nobody reads (adjoint exactly 0: the side
np.where did not select) sends nothing back.  `sqrt(counts)` with an empty bin (counts[0] == 0 and its tangent 0),
`np.where(x > 0, np.sqrt(x), x ** 2)` (sqrt's slope is nan below 0, where its adjoint is 0) and
`entr(p)` with p[0] == 0 all gave nan where the function is smooth and finite differences agree.

`strong_mul(z, d)` is the one tool: z * d, where an exact zero z gives 0 whatever d is (inf, nan).  z is the
tangent or adjoint, d the local derivative.  Rules use it only where d can be inf or nan at a finite input whose
value is finite or out of the domain (sqrt and cbrt at 0, arcsin/arccos at and beyond +-1, fractional powers at
0 and below, the entr family at 0): elsewhere a plain product is exact and faster (exp, log, 1 / x: their slope is
infinite only where their value is, see docs/nan-derivatives.md).  A non-zero z keeps z * d, inf or nan
included: where the true derivative is infinite or undefined (sqrt at 0 with a non-zero tangent) it stays so.

Why a helper and not `np.where(z == 0, 0.0, z * d)` in the generated code: that expression is right at first
order but its own derivative is not.  Differentiated again (a Hessian differentiates the generated pullback),
np.where's rule masks the whole product's tangent where z == 0, dropping dz * d, which is the second derivative's
main term where the cotangent happens to vanish (f = (sum(sqrt(x)) - c)**2 at sum(sqrt(x)) == c).  The rules
below keep the product rule with strong zeros: d(z * d) = strong_mul(dz, d) + strong_mul(z, dd).

The other side of 0 * inf: a product's partial that is exactly 0 met by an infinite adjoint (`2 * d` of `d ** 2`
under a sqrt at d == 0, the diagonal of hand-written pairwise distances), or an exactly-zero adjoint met by a
value that overflowed (exp on np.where's unselected side).  Products, powers, exp and quotients take strong
zeros there (times_partial, times_overflowing_slope), only in the functions where such an adjoint can arise (one
that calls an infinite slope, one that calls a selector): elsewhere they keep the plain products the reverse
emitter fuses.
"""
from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from .. import ops
from ..arrays import is_other_array
from ..ir.nodes import Call, Const
from ..ir.types import FLOAT_ELEMENTWISE
from ..tangents import NoTangent
from .numpy_common import cj
from .registry import defcomplex, defjvp, defvjp

__all__ = ["arcsin_slope", "atan2_adjoints", "atan2_tangent", "cbrt_slope", "over_partial", "sqrt_slope", "strong_mul",
           "strong_product", "strong_terms", "times_partial", "unit_ratio"]


def strong_mul(z: Any, d: Any) -> Any:
    """z * d, and exactly 0 where z == 0 (whatever d is there: inf and nan included); the symbolic zero stays
    symbolic.  Shapes broadcast as in z * d."""
    if type(z) is float and type(d) is float:  # (the scalar loops' case first: one test, no NumPy)
        return z * d if z != 0.0 else 0.0
    if z is NoTangent or d is NoTangent or z is None or d is None:
        return NoTangent
    if isinstance(z, np.ndarray) or isinstance(d, np.ndarray) or is_other_array(z) or is_other_array(d):
        # (d replaced before the product: 0 * inf would warn "invalid value" where the answer is simply 0)
        return z * np.where(np.equal(z, 0), 0.0, d)
    if z == 0:
        return z * 0.0  # (the zero of z's type: 0.0, 0j, a NumPy scalar's)
    return z * d


def strong_product(a: Any, b: Any) -> Any:
    """a * b, and exactly 0 where a == 0 or b == 0 (whatever the other is: inf and nan included): an adjoint times a
    partial where either may be the infinite one (strong_zeros.times_partial)."""
    if type(a) is float and type(b) is float:
        return a * b if a != 0.0 and b != 0.0 else 0.0
    if a is NoTangent or b is NoTangent or a is None or b is None:
        return NoTangent
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray) or is_other_array(a) or is_other_array(b):
        zero = np.logical_or(np.equal(a, 0), np.equal(b, 0))
        return np.where(zero, 0, a) * np.where(zero, 0, b)  # (each replaced first: 0 * inf would warn)
    if a == 0 or b == 0:
        return a * 0.0 if a == 0 else b * 0.0
    return a * b


for _fn in (strong_mul, strong_product):
    _fn.dense_in_dense = True  # type: ignore[attr-defined]  (an array in, an array out: reverse/templates.py)
    FLOAT_ELEMENTWISE.add(_fn)  # (typed like z * d: ir/types.py)


def _strong_mul_tangent(t: Any, y: Any, z: Any, d: Any) -> Any:
    """d(strong_mul(z, d)) = strong_mul(dz, d) + strong_mul(z, dd): each term keeps its own strong zero."""
    dz, dd = t.d(z), t.d(d)
    return t.add(t.call(strong_mul, dz, d) if dz is not None else None,
                 t.call(strong_mul, z, dd) if dd is not None else None)


def _strong_mul_adjoints(t: Any, g: Any, y: Any, z: Any, d: Any) -> tuple:
    """z's adjoint g * conj(d) (0 where g == 0), d's g * conj(z) (0 where z == 0), each summed to its shape."""
    return (t.unb(t.call(strong_mul, g, cj(t, d, d)), z), t.unb(t.call(strong_mul, cj(t, z, z), g), d))


defjvp(strong_mul, _strong_mul_tangent)
defvjp(strong_mul, _strong_mul_adjoints)
defcomplex(strong_mul)
defjvp(strong_product, lambda t, y, a, b: t.add(t.call(strong_product, t.d(a), b) if t.d(a) is not None else None,
                                                t.call(strong_product, a, t.d(b)) if t.d(b) is not None else None))
defvjp(strong_product, lambda t, g, y, a, b: (t.unb(t.call(strong_product, g, cj(t, b, b)), a),
                                              t.unb(t.call(strong_product, cj(t, a, a), g), b)))
defcomplex(strong_product)



# ---------------------------------------------------------------- slopes that are infinite at a finite input
# Their own derivatives (a Hessian differentiates the pullback that multiplies by them) are infinite or nan where
# they are: written as helpers with strong-zero rules, so that the zero adjoint of np.where's unselected side stays
# 0 at the second order too (`0.5 / y` differentiated as a quotient gives 0 * nan there).
def _over(a: float, b: Any) -> Any:
    """a / b, and an infinity for a Python number b == 0 (Python raises where NumPy answers inf: math.sqrt(0.0)'s
    slope is inf, as np.sqrt's is)."""
    if type(b) in (float, int) and b == 0:
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def sqrt_slope(y: Any) -> Any:
    """d sqrt(x)/dx = 0.5 / y, y = sqrt(x) (inf at 0, nan below: NumPy's sqrt of a negative float)."""
    if type(y) is float and y != 0.0:
        return 0.5 / y
    return _over(0.5, y)


def cbrt_slope(y: Any) -> Any:
    """d cbrt(x)/dx = 1 / (3 y^2), y = cbrt(x) (inf at 0)."""
    return _over(1.0, 3.0 * (y * y))


def arcsin_slope(x: Any) -> Any:
    """d arcsin(x)/dx = 1 / sqrt(1 - x^2) (inf at +-1, nan beyond: arccos's is its negative)."""
    if type(x) in (float, int):
        return _over(1.0, math.sqrt(1.0 - x * x)) if abs(x) <= 1.0 else math.nan
    return 1.0 / np.sqrt(1.0 - x * x)


def unit_ratio(x: Any, r: Any) -> Any:
    """x / r for r = |(x, ...)| (hypot's slope x / hypot): 0 where r == 0, the slope abs and np.linalg.norm take
    at their kink, so that hypot(x, y) ** 2 has the gradient 0 there (it was 0 / 0 = nan, or a ZeroDivisionError
    for math.hypot).  Its own derivative, (dx - (x / r) dr) / r, stays infinite there: the Hessian of
    hypot(x, y) ** 2 at 0 is nan (the cone's kink is smoothed by the square: finite differences say 2 I, and a
    strong zero would say 0), never a guessed number."""
    if type(x) in (float, int) and type(r) in (float, int):
        return x / r if r != 0 else 0.0 * x
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(np.equal(r, 0), 0.0 * x, np.divide(x, np.where(np.equal(r, 0), 1.0, r)))


def over_partial(n: Any, s: Any) -> Any:
    """n / s as a partial derivative that may be 0 / 0 at a kink (arctan2's b / (a^2 + b^2) at the origin, the
    slope x / r of unit_ratio): nan there, an infinity for n != 0, and a Python number never raises."""
    if type(n) is float and type(s) is float and s != 0.0:
        return n / s
    with np.errstate(invalid="ignore", divide="ignore"):
        return n * reciprocal(s)


def strong_terms(t: Any, pairs: list) -> Any:
    """sum of strong_mul(dz, partial) over (tangent or adjoint, partial) pairs, skipping symbolic zeros: each term is
    exactly 0 where its dz is, whatever the partial (nan at a kink), so an input that does not move leaves the
    result finite (hypot / arctan2 at the origin reached with zero tangents gave 0 / 0 = nan, which reverse mode
    over forward code spread into every entry of the Hessian: hunt12 _HYPOT_ZERO_LEAK)."""
    out = None
    for dz, partial in pairs:
        if dz is not None:
            term = t.call(strong_mul, dz, partial)
            out = term if out is None else t.add(out, term)
    return out


unit_ratio.dense_in_dense = True  # type: ignore[attr-defined]
FLOAT_ELEMENTWISE.add(unit_ratio)
# (d(x / r) = dx / r - (q / r) dr, each a strong product: at r == 0 with exactly zero dx, dr (or adjoint g) the
# result is 0, not 0 / 0; with a moving input it stays infinite or nan, the kink's honest answer)
defjvp(unit_ratio, lambda t, q, x, r: strong_terms(t, [(t.d(x), t.call(reciprocal, r)),
                                                       (t.neg(t.d(r)), t.call(over_partial, q, r))]))
defvjp(unit_ratio, lambda t, g, q, x, r: (t.unb(t.call(strong_mul, g, t.call(reciprocal, r)), x),
                                          t.unb(t.neg(t.call(strong_mul, g, t.call(over_partial, q, r))), r)))


def atan2_tangent(t: Any, a: Any, b: Any) -> Any:
    """d atan2(a, b) = (b da - a db) / (a^2 + b^2), as strong products of the tangents: 0 where da and db are 0,
    at the origin too (nan there for a moving input: atan2 has no derivative at the origin)."""
    s = t.add(t.mul(a, a), t.mul(b, b))
    return strong_terms(t, [(t.d(a), t.call(over_partial, b, s)), (t.neg(t.d(b)), t.call(over_partial, a, s))])


def atan2_adjoints(t: Any, g: Any, a: Any, b: Any) -> tuple:
    """(g b, -g a) / (a^2 + b^2), 0 where g is 0 (the origin included)."""
    s = t.add(t.mul(a, a), t.mul(b, b))
    return (t.call(strong_mul, g, t.call(over_partial, b, s)), t.neg(t.call(strong_mul, g, t.call(over_partial, a, s))))


def reciprocal(b: Any) -> Any:
    """1 / b, inf at a Python number b == 0 as at a NumPy one (the slope of np.log at a float 0.0 is inf; the
    plain `1.0 / x` raised ZeroDivisionError where a strong zero adjoint gives 0: rules/numpy_elementwise.quotient)."""
    if type(b) is float and b != 0.0:
        return 1.0 / b
    return _over(1.0, b)


for _fn in (sqrt_slope, cbrt_slope, arcsin_slope, reciprocal, over_partial):
    _fn.dense_in_dense = True  # type: ignore[attr-defined]
    FLOAT_ELEMENTWISE.add(_fn)


def _slope_rules(fn: Any, second: Any) -> None:
    """fn's rules from its own derivative `second(t, s, v)` (s = fn(v)), each multiplied as a strong zero."""
    defjvp(fn, lambda t, s, v: t.call(strong_mul, t.d(v), second(t, s, v)) if t.d(v) is not None else None)
    defvjp(fn, lambda t, g, s, v: (t.call(strong_mul, g, cj(t, second(t, s, v), v)) if g is not None else None,))


_slope_rules(sqrt_slope, lambda t, s, y: t.mul(-2.0, t.mul(s, s)))  # -0.5 / y^2
_slope_rules(cbrt_slope, lambda t, s, y: t.div(t.mul(-2.0, s), y))  # -2 / (3 y^3)
_slope_rules(arcsin_slope, lambda t, s, x: t.mul(x, t.mul(s, t.mul(s, s))))  # x / (1 - x^2)^(3/2)
_slope_rules(reciprocal, lambda t, s, b: t.neg(t.mul(s, s)))  # -1 / b^2
# (over_partial = n * reciprocal(s): the product rule, the tangents of n and of s each a strong product)
defjvp(over_partial, lambda t, y, n, s: strong_terms(t, [(t.d(n), t.call(reciprocal, s)),
                                                       (t.neg(t.d(s)), t.call(over_partial, y, s))]))
defvjp(over_partial, lambda t, g, y, n, s: (t.unb(t.call(strong_mul, g, t.call(reciprocal, s)), n),
                                            t.unb(t.neg(t.call(strong_mul, g, t.call(over_partial, y, s))), s)))
defcomplex(sqrt_slope, arcsin_slope, reciprocal)


# ---------------------------------------------------------------- zero partials met by an infinite adjoint
# The callables whose slope can be infinite at a finite input (the rules above multiply their tangents and
# adjoints as strong zeros): in reverse mode the adjoint they send back is infinite there when their own adjoint
# is not 0 (sqrt at 0: the honest d sqrt(u)/du).  Rule files add them as they register the rules.
INFINITE_SLOPES: set = {strong_mul, strong_product, sqrt_slope, cbrt_slope, arcsin_slope, reciprocal, over_partial}  # (and, differentiated again, these)
_POWERS = frozenset([operator.pow, operator.ipow, pow, np.power, np.float_power, math.pow])
# Callables that pass a zero adjoint to an operand they did not select (ops.choose: generated code's `a if c else b`
# of two computed values), and the NaN-skipping ones, which pass a zero adjoint to the NaN slots they skip
# (`np.nansum(w * x)` with w[1] = nan: x[1]'s adjoint was 0 * nan, where x[1] changes nothing).
SELECTORS: set = {np.where, np.select, np.piecewise, np.clip, np.maximum, np.minimum, np.fmax, np.fmin, ops.choose,
                  np.nansum, np.nanmean, np.nanprod, np.nanmax, np.nanmin, np.nanvar, np.nanstd, np.nancumsum,
                  np.nancumprod, np.nanmedian, np.nanquantile, np.nanpercentile, np.nanargmax, np.nanargmin,
                  np.nan_to_num}


def _whole(k: Any) -> bool:
    return isinstance(k, (int, float, np.integer, np.floating)) and not isinstance(k, bool) and \
        bool(np.isfinite(k)) and float(k).is_integer()


def _sends_infinite_adjoints(resolver: Any, st: Any) -> bool:
    try:
        fn, rule = resolver.callee(st)
    except Exception:  # (a statement the resolver does not know: not one of ours)
        return False
    try:
        if fn in INFINITE_SLOPES:
            return True
    except TypeError:  # (an unhashable callable)
        return False
    if fn in _POWERS and len(st.args) >= 2:
        k = st.args[1]
        return not (isinstance(k, Const) and _whole(k.value))  # (a ** 0.5, or an exponent known at run time)
    from .helper_slopes import handed_helpers, helper_may_send_infinities, named_callee  # (a helper hiding a sqrt)

    if rule is None and helper_may_send_infinities(fn if fn is not None else named_callee(resolver, st)):
        return True
    return any(helper_may_send_infinities(h) for h in handed_helpers(resolver, st))  # (forward code's rcall(f, ...))


def partials_meet_infinities(t: Any) -> bool:
    """May the adjoint reaching a product's pullback be infinite where the product's partial is exactly 0?

    `np.sqrt(np.sum((P[:, None] - P[None]) ** 2, -1))`: the diagonal's difference is 0, so is `2 * d`, its square's
    partial, and sqrt's adjoint there is inf; `g * (2 * d)` gave nan where forward mode's tangent (exactly 0: a
    strong zero at sqrt) gives 0.  A product whose partial multiplies the adjoint as a strong zero gives 0 too, as
    forward mode does.  Only where it can matter, so that code without an infinite slope keeps plain products
    (the MLP's `err_bar = out_bar * 2.0 / size * err`): in a pullback being built (reverse/templates.py), when the
    function being reversed calls sqrt, cbrt, arcsin, arccos, a fractional power or the entr family, or a helper
    of the user's that may (rules/helper_slopes.py); at run time (the generic path, whose cost is its helper
    calls'), always."""
    return _function_calls(t, "_mc_infinite_slopes", _sends_infinite_adjoints)


def adjoints_meet_overflow(t: Any, g: Any = None) -> bool:
    """May an exactly-zero adjoint meet an infinite partial (a value that overflowed)?  np.where's unselected side
    gets a zero adjoint: `np.where(x < 50, np.exp(x), x)` at x = 1000 has exp(x) = inf there, and exp's `g * y`
    was 0 * inf = nan.  True where the function being reversed calls np.where or another selector (np.select,
    np.piecewise, np.clip, np.maximum / minimum, SELECTORS), and at run time; and, given the adjoint g being
    multiplied, where g may be the zero of a path that did not read the value (unread_adjoints.may_be_unread:
    `e = np.exp(x); return e if x < 50 else x`), which costs nothing where no `if` leaves a value unread."""
    if _function_calls(t, "_mc_selectors", _selects):
        return True
    if g is None:
        return False
    from .unread_adjoints import may_be_unread

    return may_be_unread(t, g)


def _selects(resolver: Any, st: Any) -> bool:
    try:
        fn, _ = resolver.callee(st)
        return fn in SELECTORS
    except Exception:  # (unknown or unhashable: not a selector of ours)
        return False


def _function_calls(t: Any, key: str, pred: Any) -> bool:
    """Does the function whose pullback t builds make a call pred accepts (cached per transform)?  True at run time
    (t without a transform: the generic path)."""
    rt = getattr(t, "rt", None)
    if rt is None:
        return True
    known = rt.__dict__.get(key)
    if known is None:
        resolver, ir = getattr(rt, "resolver", None), getattr(rt, "ir", None)
        known = resolver is not None and ir is not None and (_tangent_code(ir) or any(
            isinstance(st, Call) and pred(resolver, st) for b in ir.blocks for st in b.stmts))
        setattr(rt, key, known)
    return known


def _tangent_code(ir: Any) -> bool:
    """Is ir a primitive's forward derivative written as Python (rules/plain_forwards.py: `(da - y * db) / b`),
    reversed for a second derivative?  Its caller's adjoints (a sqrt of the quotient at 0) can be infinite, and
    its tangents' partials exactly 0, however plain the function itself is."""
    loc = getattr(ir, "loc", None)
    return loc is not None and str(getattr(loc, "file", "")).endswith(("plain_forwards.py", "plain_forwards.pyc"))


def times_partial(t: Any, g: Any, d: Any) -> Any:
    """g * d, an adjoint g times a partial derivative d (the other factor of a product, `2 * a` of a ** 2): exactly
    0 where d is 0 if an infinite adjoint can reach it (partials_meet_infinities), and where g is 0 if d can have
    overflowed (adjoints_meet_overflow, `np.where(c, big * a, 0.0)`); else the plain product."""
    if g is None or d is None:
        return None
    if getattr(t, "rt", None) is None and _finite(t.value(g)) and _finite(t.value(d)):
        return t.mul(g, d)  # (at run time the values say: no inf or nan, no 0 * inf)
    k = t.value(d)
    if type(k) in (int, float) and k != 0 and math.isfinite(k):
        return t.mul(g, d)  # (a constant factor, `x * 2.0`: never 0, never infinite)
    infinite_g, infinite_d = partials_meet_infinities(t), adjoints_meet_overflow(t, g)
    if infinite_g and infinite_d:
        return t.call(strong_product, g, d)
    if infinite_g:
        return t.call(strong_mul, d, g)
    if infinite_d:
        return t.call(strong_mul, g, d)
    return t.mul(g, d)


def times_overflowing_slope(t: Any, g: Any, d: Any) -> Any:
    """g * d for a slope d infinite only where the value overflowed (exp's y): a strong zero in g where
    adjoints_meet_overflow (np.where's unselected side), else the plain product the emitter fuses."""
    if g is None or d is None:
        return None
    return t.call(strong_mul, g, d) if adjoints_meet_overflow(t, g) else t.mul(g, d)


def _finite(v: Any) -> bool:
    """Is v a real number or float array without inf or nan (then a product with it is never 0 * inf)?"""
    if type(v) is float:
        return math.isfinite(v)
    if type(v) is np.ndarray and v.dtype.kind in "fi" or isinstance(v, (np.floating, np.integer, int)):
        return bool(np.isfinite(v).all())
    return False


def _strong_times(zero_partials: bool, zero_adjoints: bool) -> Any:
    """times(g, d) as times_partial picks it, at run time: 0 where the partial d is (zero_partials), where g is
    (zero_adjoints), or both."""
    if zero_partials and zero_adjoints:
        return strong_product
    return (lambda g, d: strong_mul(d, g)) if zero_partials else strong_mul


def strong_mul_vjp(g: Any, y: Any, a: Any, b: Any, need_a: bool, need_b: bool, zero_partials: bool,
                   zero_adjoints: bool) -> tuple:
    """The adjoints of y = a * b where the types were not known when the pullback was made (reverse/builtin_adjoints
    .mul_vjp serves sequences, complex values and the rest): for real numbers and float arrays, g * b and g * a
    as times_partial makes them (zero_partials: 0 where the partial is; zero_adjoints: 0 where g is)."""
    from ..reverse.builtin_adjoints import mul_vjp, unbroadcast

    def real(v: Any) -> bool:
        return type(v) in (float, int) or isinstance(v, (np.floating, np.integer)) or \
            type(v) is np.ndarray and v.dtype.kind in "fi"

    if g is NoTangent or g is None or not (real(a) and real(b) and real(g)) or \
            _finite(g) and _finite(a) and _finite(b):
        return mul_vjp(g, y, a, b, need_a, need_b)  # (no inf or nan: the plain products)
    times = _strong_times(zero_partials, zero_adjoints)
    return (unbroadcast(times(g, b), a) if need_a else NoTangent), (unbroadcast(times(g, a), b) if need_b else NoTangent)


def vector_product_adjoints(t: Any, g: Any, a: Any, b: Any, kind: str = "matmul") -> Any:
    """(a's, b's) adjoints of the dot product of two float vectors (`d @ d`, `np.dot(d, d)`) as times_partial's
    products, in a function where an infinite adjoint or an overflowed factor can meet a zero
    (`np.sqrt(d @ d)` at d == 0); where the operands' types are not known, a run-time helper that looks
    (vector_product_vjp); None elsewhere (the product rules' own adjoints serve).  kind: "matmul" or "dot"."""
    if g is None or not (partials_meet_infinities(t) or adjoints_meet_overflow(t, g)):
        return None
    kinds = (_float_vector(t, a), _float_vector(t, b))
    if kinds == (True, True):
        return times_partial(t, g, cj(t, b, b)), times_partial(t, g, cj(t, a, a))
    if False in kinds or getattr(t, "rt", None) is None:
        from .strong_products import matrix_product_adjoints  # (matrices: each term of the sums strong)

        return matrix_product_adjoints(t, g, a, b, kind)
    both = t.call(vector_product_vjp, g, a, b, kind, partials_meet_infinities(t), adjoints_meet_overflow(t, g))
    if hasattr(both, "tuple_size"):
        both.tuple_size = 2
    return t.call(operator.getitem, both, 0), t.call(operator.getitem, both, 1)


def _float_vector(t: Any, v: Any) -> Any:
    """True: a float vector; False: certainly not one; None: not known when the pullback is made."""
    type_of = getattr(t, "type_of", None)
    if type_of is not None:
        from ..ir.types import UNKNOWN, Arr

        ty = type_of(v)
        if isinstance(ty, Arr):
            return None if ty.axes is None else ty.dtype == "f" and len(ty.axes) == 1
        return None if ty is UNKNOWN else False
    x = t.value(v)
    return type(x) is np.ndarray and x.ndim == 1 and x.dtype.kind == "f"


def vector_product_vjp(g: Any, a: Any, b: Any, kind: str, zero_partials: bool, zero_adjoints: bool) -> tuple:
    """The adjoints of np.matmul / np.dot(a, b) whose types were not known when the pullback was made: for two
    float vectors met by a non-finite value, as vector_product_adjoints makes them; else the products' own."""
    from . import numpy_products as products

    vectors = all(type(v) is np.ndarray and v.ndim == 1 and v.dtype.kind == "f" for v in (a, b))
    if not vectors and g is not NoTangent and g is not None:
        from .strong_products import strong_dot_adjoint, strong_matmul_adjoint  # (matrices: strong terms)

        adjoint = strong_dot_adjoint if kind == "dot" else strong_matmul_adjoint
        return adjoint(g, a, b, 0), adjoint(g, a, b, 1)
    if not vectors or g is NoTangent or g is None or _finite(g) and _finite(a) and _finite(b):
        if kind == "dot":
            return products.dot_adjoint_a(g, a, b), products.dot_adjoint_b(g, a, b)
        return products.matmul_adjoint_a(g, a, b), products.matmul_adjoint_b(g, a, b)
    times = _strong_times(zero_partials, zero_adjoints)
    return times(g, b), times(g, a)
