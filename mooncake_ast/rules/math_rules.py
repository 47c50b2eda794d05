"""Rules of the `math` module, both modes.  `y` is the primal result, reused where it saves work.

Conventions: `fabs`/`copysign` take slope 0 at 0; `sqrt` at 0 has an infinite derivative (0 for a tangent or
adjoint that is exactly 0 there: strong_zeros.py); `fmod`,
`remainder`, `modf` and `frexp` are differentiated between their jumps (the jumps count as zero);
`dist` at a zero distance divides by zero; `hypot` takes slope 0 there (strong_zeros.unit_ratio).
"""
from __future__ import annotations

import math

from . import helpers as h
from .operator_rules import integer_scalar, pow_tangent, times_base_slope
from .registry import defjvp, defvjp, defzero
from .strong_zeros import (INFINITE_SLOPES, arcsin_slope, atan2_adjoints, atan2_tangent, cbrt_slope, over_partial,
                           sqrt_slope, strong_mul, unit_ratio)


def unary(fn, dfdx):
    """Register y = fn(x): forward dy = dx * f'(x), reverse x_bar += g * f'(x), from one derivative."""
    defjvp(fn, lambda t, y, x: t.mul(t.d(x), dfdx(t, y, x)))
    defvjp(fn, lambda t, g, y, x: (t.mul(g, dfdx(t, y, x)),))


def strong(fn, dfdx):
    """Register y = fn(x) whose slope is infinite at a finite x where the value is finite (sqrt and cbrt at 0, asin
    and acos at +-1): a tangent or adjoint that is exactly 0 gives 0 there, not 0 * inf = nan, and the slope is inf
    (not Python's ZeroDivisionError) for one that is not (strong_zeros.py, docs/nan-derivatives.md)."""
    INFINITE_SLOPES.add(fn)
    defjvp(fn, lambda t, y, x: t.call(strong_mul, t.d(x), dfdx(t, y, x)) if t.d(x) is not None else None)
    defvjp(fn, lambda t, g, y, x: (t.call(strong_mul, g, dfdx(t, y, x)) if g is not None else None,))


def quotient(fn, denominator, negate=False):
    """Register y = fn(x) with f'(x) = (-)1 / denominator: `dx / d` and `g / d`, one division rather than a
    product with a reciprocal."""
    def tangent(t, y, x):
        d = t.div(t.d(x), denominator(t, y, x))
        return t.neg(d) if negate and d is not None else d

    def adjoint(t, g, y, x):
        d = t.div(g, denominator(t, y, x))
        return (t.neg(d) if negate and d is not None else d,)

    defjvp(fn, tangent)
    defvjp(fn, adjoint)


# ------------------------------------------------------------------ exponentials and logarithms
unary(math.exp, lambda t, y, x: y)
unary(math.expm1, lambda t, y, x: t.call(math.exp, x))
# math.log(x) and math.log(x, base) = ln(x) / ln(base)
defjvp(math.log, lambda t, y, x, *base: t.div(t.d(x), x) if not base else t.sub(
    t.mul(t.d(x), t.div(1.0, t.mul(x, t.call(math.log, base[0])))),
    t.mul(t.d(base[0]), t.div(y, t.mul(base[0], t.call(math.log, base[0]))))))
defvjp(math.log, lambda t, g, y, x, *base: (t.div(g, x),) if not base else (
    t.mul(g, t.div(1.0, t.mul(x, t.call(math.log, base[0])))),
    t.neg(t.mul(g, t.div(y, t.mul(base[0], t.call(math.log, base[0])))))))
quotient(math.log1p, lambda t, y, x: t.call(add1, x))
quotient(math.log2, lambda t, y, x: t.mul(x, math.log(2.0)))
quotient(math.log10, lambda t, y, x: t.mul(x, math.log(10.0)))
strong(math.sqrt, lambda t, y, x: t.call(sqrt_slope, y))
strong(math.cbrt, lambda t, y, x: t.call(cbrt_slope, y)) if hasattr(math, "cbrt") else None
unary(math.exp2, lambda t, y, x: t.mul(y, math.log(2.0))) if hasattr(math, "exp2") else None

# ------------------------------------------------------------------ trigonometric
unary(math.sin, lambda t, y, x: t.call(math.cos, x))
unary(math.cos, lambda t, y, x: t.neg(t.call(math.sin, x)))
unary(math.tan, lambda t, y, x: t.add(1.0, t.mul(y, y)))
strong(math.asin, lambda t, y, x: t.call(arcsin_slope, x))
strong(math.acos, lambda t, y, x: t.neg(t.call(arcsin_slope, x)))
quotient(math.atan, lambda t, y, x: t.add(1.0, t.mul(x, x)))

# ------------------------------------------------------------------ hyperbolic
unary(math.sinh, lambda t, y, x: t.call(math.cosh, x))
unary(math.cosh, lambda t, y, x: t.call(math.sinh, x))
unary(math.tanh, lambda t, y, x: t.sub(1.0, t.mul(y, y)))
quotient(math.asinh, lambda t, y, x: t.call(math.sqrt, t.add(t.mul(x, x), 1.0)))
quotient(math.acosh, lambda t, y, x: t.call(math.sqrt, t.sub(t.mul(x, x), 1.0)))
quotient(math.atanh, lambda t, y, x: t.sub(1.0, t.mul(x, x)))

# ------------------------------------------------------------------ special functions
unary(math.erf, lambda t, y, x: t.mul(2.0 / math.sqrt(math.pi), t.call(math.exp, t.neg(t.mul(x, x)))))
unary(math.erfc, lambda t, y, x: t.mul(-2.0 / math.sqrt(math.pi), t.call(math.exp, t.neg(t.mul(x, x)))))
unary(math.fabs, lambda t, y, x: t.call(h.sign, x))
unary(math.degrees, lambda t, y, x: 180.0 / math.pi)
unary(math.radians, lambda t, y, x: math.pi / 180.0)


def add1(x):
    return 1.0 + x


h.FLOAT_ELEMENTWISE.add(add1)


# ------------------------------------------------------------------ two arguments
defjvp(math.pow, pow_tangent)
defvjp(math.pow, lambda t, g, y, a, b: (times_base_slope(t, g, t.call(h.pow_deriv, a, b), b),
                                        None if integer_scalar(t.value(b)) else t.mul(g, t.mul(y, t.call(h.log_for_pow, a, g)))))
defvjp(math.atan2, lambda t, g, y, a, b: atan2_adjoints(t, g, a, b))  # (strong zeros: strong_zeros.atan2_tangent)
defvjp(math.hypot, lambda t, g, y, *xs: tuple(t.mul(g, t.call(unit_ratio, x, y)) for x in xs))  # (0 at 0: strong_zeros)
defvjp(math.fmod, lambda t, g, y, a, b: (g, t.neg(t.mul(g, t.call(math.trunc, t.call(_div, a, b))))))
defvjp(math.copysign, lambda t, g, y, a, b: (t.mul(g, t.mul(t.call(h.sign, a), t.call(h.sign, y))), None))
defjvp(math.atan2, lambda t, y, a, b: atan2_tangent(t, a, b))
defjvp(math.hypot, lambda t, y, *xs: _sum(t, [t.mul(t.d(x), t.call(unit_ratio, x, y)) for x in xs]))
defjvp(math.copysign, lambda t, y, a, b: t.mul(t.d(a), t.mul(t.call(h.sign, a), t.call(h.sign, y))))
defjvp(math.fmod, lambda t, y, a, b: t.sub(t.d(a), t.mul(t.call(math.trunc, t.call(_div, a, b)), t.d(b))))
defjvp(math.ldexp, lambda t, y, a, i: t.mul(t.d(a), t.call(math.ldexp, 1.0, i)))
defvjp(math.ldexp, lambda t, g, y, a, i: (t.mul(g, t.call(math.ldexp, 1.0, i)), None))
# remainder(a, b) = a - n b with n the nearest integer to a / b; between the jumps dn = 0.
defjvp(math.remainder, lambda t, y, a, b: t.sub(t.d(a), t.mul(t.call(remainder_quotient, a, b, y), t.d(b))))
defvjp(math.remainder, lambda t, g, y, a, b: (g, t.neg(t.mul(g, t.call(remainder_quotient, a, b, y)))))
# frexp(x) = (m, e) with x = m 2**e: dm = dx / 2**e.  modf(x) = (frac, whole): dfrac = dx.
defjvp(math.frexp, lambda t, y, x: t.call(frexp_tangent, y, t.d(x)) if t.d(x) is not None else None)
defvjp(math.frexp, lambda t, g, y, x: (t.call(frexp_adjoint, y, g),))
defjvp(math.modf, lambda t, y, x: t.call(modf_tangent, t.d(x)) if t.d(x) is not None else None)
defvjp(math.modf, lambda t, g, y, x: (t.call(modf_adjoint, g),))
# dist(p, q) = |p - q|
defjvp(math.dist, lambda t, y, p, q: t.call(dist_tangent, p, q, y, t.dz(p), t.dz(q)) if (t.d(p) is not None or t.d(q) is not None) else None)
defvjp(math.dist, lambda t, g, y, p, q: (t.call(dist_adjoint, p, q, y, g, 1.0), t.call(dist_adjoint, p, q, y, g, -1.0)))


def remainder_quotient(a, b, y):
    """The integer n of remainder(a, b) = a - n b, recovered exactly from the result."""
    return round((a - y) / b)


def _item(g, i):
    from ..tangents import NoTangent

    if g is NoTangent or g is None:
        return NoTangent
    return g[i] if i < len(g) else NoTangent


def frexp_tangent(y, dx):
    from ..tangents import NoTangent

    return (dx * math.ldexp(1.0, -y[1]), NoTangent)


def frexp_adjoint(y, g):
    return _item(g, 0) * math.ldexp(1.0, -y[1])


def modf_tangent(dx):
    from ..tangents import NoTangent

    return (dx, NoTangent)


def modf_adjoint(g):
    return _item(g, 0)


def dist_tangent(p, q, y, dp, dq):
    from .builtin_iteration import iter_tangents

    dps = iter_tangents(p, dp) if dp is not _no() else [0.0] * len(p)
    dqs = iter_tangents(q, dq) if dq is not _no() else [0.0] * len(q)
    # (each coordinate's tangent a strong product: exactly 0 where it does not move, also at p == q, where the
    # slope (p - q) / |p - q| is 0 / 0: that nan reached every entry of a jacfwd)
    return sum(strong_mul(da - db, over_partial(a - b, y)) for a, b, da, db in zip(p, q, dps, dqs))


def dist_adjoint(p, q, y, g, sign):
    """The adjoint of p (sign 1) or q (sign -1): sign * g (p - q) / |p - q|, one per coordinate."""
    from ..reverse.adjoints import AdjList, AdjTuple

    if g is _no():
        return g
    items = [sign * strong_mul(g, over_partial(a - b, y)) for a, b in zip(p, q)]  # (0 for g == 0, p == q too)
    return AdjList(items) if isinstance(p if sign > 0 else q, list) else AdjTuple(items)


def _no():
    from ..tangents import NoTangent

    return NoTangent


def _div(a, b):
    return a / b


def _sum(t, terms):
    out = None
    for term in terms:
        out = t.add(out, term)
    return out


defjvp(math.fsum, lambda t, y, xs: t.call(fsum_tangent, xs, t.d(xs)) if t.d(xs) is not None else None)
defvjp(math.fsum, lambda t, g, y, xs: (t.call(_fsum_adjoint, xs, g),))
# math.prod(xs, *, start=1) = start * x0 * x1 * ...
_START = object()  # `start` not given
defjvp(math.prod, lambda t, y, xs, start=_START: t.add(
    (t.call(mathprod_tangent, xs, t.d(xs)) if start is _START else t.mul(t.call(mathprod_tangent, xs, t.d(xs)), start))
    if t.d(xs) is not None else None,
    t.mul(t.d(start), t.call(math.prod, xs)) if start is not _START else None))
defvjp(math.prod, lambda t, g, y, xs, start=_START: _prod_vjp(t, g, xs, start))


def _prod_vjp(t, g, xs, start):
    if start is not _START:
        from .numpy_rules import _refuse_keywords

        _refuse_keywords(t, "math.prod", start=start)
        return (t.call(mathprod_adjoint, xs, t.mul(g, start)),)
    return (t.call(mathprod_adjoint, xs, g),)


def mathprod_adjoint(xs, g):
    """Each factor's adjoint: g times the product of the others (exact with zeros)."""
    from ..reverse.builtin_adjoints import _like

    if g is _no():
        return g
    items = list(xs)
    before, after = [1.0], [1.0]  # prefix and suffix products: O(n), no division
    for v in items[:-1]:
        before.append(before[-1] * v)
    for v in reversed(items[1:]):
        after.append(after[-1] * v)
    return _like(xs, [g * (b * a) for b, a in zip(before, reversed(after))] if items else [])


def fsum_tangent(xs, dxs):
    from .builtin_iteration import iter_tangents
    from ..tangents import NoTangent

    out = NoTangent
    for d in iter_tangents(xs, dxs):
        out = out + d
    return out


def mathprod_tangent(xs, dxs):
    from .builtin_iteration import iter_tangents
    from ..tangents import NoTangent

    items = list(xs)
    ds = iter_tangents(items, dxs)
    total = NoTangent
    for i, d in enumerate(ds):
        others = 1.0
        for j, v in enumerate(items):
            if j != i:
                others *= v
        total = total + d * others
    return total


# ------------------------------------------------------------------ gamma
unary(math.lgamma, lambda t, y, x: t.call(digamma, x))
unary(math.gamma, lambda t, y, x: t.mul(y, t.call(digamma, x)))


def digamma(x: float) -> float:
    """The digamma function (asymptotic series after shifting x up), accurate to ~1e-12."""
    if x <= 0 and x == int(x):
        return math.nan
    result = 0.0
    if x < 0:  # reflection
        return digamma(1.0 - x) - math.pi / math.tan(math.pi * x)
    while x < 6.0:
        result -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    return result + math.log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))))


# ------------------------------------------------------------------ not differentiable
defzero(math.floor, math.ceil, math.trunc, math.isfinite, math.isinf, math.isnan, math.isclose,
        math.factorial, math.comb, math.perm, math.gcd, math.isqrt, math.lcm, math.ulp)
# nextafter(a, b): a moved by one unit in the last place, piecewise a itself (derivative 1 in a, 0 in b)
defjvp(math.nextafter, lambda t, y, a, b, **k: t.d(a))
defvjp(math.nextafter, lambda t, g, y, a, b, **k: (g, None))


def _fsum_adjoint(xs, g):
    from ..reverse.builtin_adjoints import sum_items_adjoint

    return sum_items_adjoint(xs, g)

defvjp(math.log, lambda t, g, y, x, *base: (t.div(g, x),) if not base else (
    t.div(g, t.mul(x, t.call(math.log, base[0]))), t.neg(t.div(t.mul(g, y), t.mul(base[0], t.call(math.log, base[0]))))))
