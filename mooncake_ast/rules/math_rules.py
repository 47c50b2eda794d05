"""Forward rules of the `math` module.  `y` is the primal result, reused where it saves work."""
from __future__ import annotations

import math

from . import helpers as h
from .registry import defjvp, defvjp, defzero


def unary(fn, dfdx):
    """Register y = fn(x): forward dy = dx * f'(x), reverse x_bar += g * f'(x), from one derivative."""
    defjvp(fn, lambda t, y, x: t.mul(t.d(x), dfdx(t, y, x)))
    defvjp(fn, lambda t, g, y, x: (t.mul(g, dfdx(t, y, x)),))


# ------------------------------------------------------------------ exponentials and logarithms
unary(math.exp, lambda t, y, x: y)
unary(math.expm1, lambda t, y, x: t.call(math.exp, x))
unary(math.log, lambda t, y, x: t.div(1.0, x))
unary(math.log1p, lambda t, y, x: t.div(1.0, t.call(add1, x)))
unary(math.log2, lambda t, y, x: t.div(1.0, t.mul(x, math.log(2.0))))
unary(math.log10, lambda t, y, x: t.div(1.0, t.mul(x, math.log(10.0))))
unary(math.sqrt, lambda t, y, x: t.div(0.5, y))
unary(math.cbrt, lambda t, y, x: t.div(1.0, t.mul(3.0, t.mul(y, y)))) if hasattr(math, "cbrt") else None
unary(math.exp2, lambda t, y, x: t.mul(y, math.log(2.0))) if hasattr(math, "exp2") else None

# ------------------------------------------------------------------ trigonometric
unary(math.sin, lambda t, y, x: t.call(math.cos, x))
unary(math.cos, lambda t, y, x: t.neg(t.call(math.sin, x)))
unary(math.tan, lambda t, y, x: t.add(1.0, t.mul(y, y)))
unary(math.asin, lambda t, y, x: t.div(1.0, t.call(math.sqrt, t.sub(1.0, t.mul(x, x)))))
unary(math.acos, lambda t, y, x: t.neg(t.div(1.0, t.call(math.sqrt, t.sub(1.0, t.mul(x, x))))))
unary(math.atan, lambda t, y, x: t.div(1.0, t.add(1.0, t.mul(x, x))))

# ------------------------------------------------------------------ hyperbolic
unary(math.sinh, lambda t, y, x: t.call(math.cosh, x))
unary(math.cosh, lambda t, y, x: t.call(math.sinh, x))
unary(math.tanh, lambda t, y, x: t.sub(1.0, t.mul(y, y)))
unary(math.asinh, lambda t, y, x: t.div(1.0, t.call(math.sqrt, t.add(t.mul(x, x), 1.0))))
unary(math.acosh, lambda t, y, x: t.div(1.0, t.call(math.sqrt, t.sub(t.mul(x, x), 1.0))))
unary(math.atanh, lambda t, y, x: t.div(1.0, t.sub(1.0, t.mul(x, x))))

# ------------------------------------------------------------------ special functions
unary(math.erf, lambda t, y, x: t.mul(2.0 / math.sqrt(math.pi), t.call(math.exp, t.neg(t.mul(x, x)))))
unary(math.erfc, lambda t, y, x: t.mul(-2.0 / math.sqrt(math.pi), t.call(math.exp, t.neg(t.mul(x, x)))))
unary(math.fabs, lambda t, y, x: t.call(h.sign, x))
unary(math.degrees, lambda t, y, x: 180.0 / math.pi)
unary(math.radians, lambda t, y, x: math.pi / 180.0)


def add1(x):
    return 1.0 + x


# ------------------------------------------------------------------ two arguments
defjvp(math.pow, lambda t, y, a, b: t.add(
    t.mul(t.d(a), t.call(h.pow_deriv, a, b)),
    t.mul(t.d(b), t.mul(y, t.call(h.log_for_pow, a)))))
defvjp(math.pow, lambda t, g, y, a, b: (t.mul(g, t.call(h.pow_deriv, a, b)), t.mul(g, t.mul(y, t.call(h.log_for_pow, a)))))
defvjp(math.atan2, lambda t, g, y, a, b: (t.div(t.mul(g, b), t.add(t.mul(a, a), t.mul(b, b))),
                                          t.neg(t.div(t.mul(g, a), t.add(t.mul(a, a), t.mul(b, b))))))
defvjp(math.hypot, lambda t, g, y, *xs: tuple(t.mul(g, t.div(x, y)) for x in xs))
defvjp(math.fmod, lambda t, g, y, a, b: (g, t.neg(t.mul(g, t.call(math.trunc, t.call(_div, a, b))))))
defvjp(math.copysign, lambda t, g, y, a, b: (t.mul(g, t.mul(t.call(h.sign, a), t.call(h.sign, y))), None))
defjvp(math.atan2, lambda t, y, a, b: t.div(t.sub(t.mul(t.d(a), b), t.mul(a, t.d(b))), t.add(t.mul(a, a), t.mul(b, b))))
defjvp(math.hypot, lambda t, y, *xs: _sum(t, [t.mul(t.d(x), t.div(x, y)) for x in xs]))
defjvp(math.copysign, lambda t, y, a, b: t.mul(t.d(a), t.mul(t.call(h.sign, a), t.call(h.sign, y))))
defjvp(math.fmod, lambda t, y, a, b: t.sub(t.d(a), t.mul(t.call(math.trunc, t.call(_div, a, b)), t.d(b))))
defjvp(math.ldexp, lambda t, y, a, i: t.mul(t.d(a), t.call(math.ldexp, 1.0, i)))


def _div(a, b):
    return a / b


def _sum(t, terms):
    out = None
    for term in terms:
        out = t.add(out, term)
    return out


defjvp(math.fsum, lambda t, y, xs: t.call(fsum_tangent, xs, t.d(xs)) if t.d(xs) is not None else None)
defvjp(math.fsum, lambda t, g, y, xs: (t.call(_fsum_adjoint, xs, g),))
defjvp(math.prod, lambda t, y, xs, start=1: t.call(prod_tangent, xs, t.d(xs)) if t.d(xs) is not None else None)


def fsum_tangent(xs, dxs):
    from .builtin_rules import iter_tangents
    from ..tangents import NoTangent

    out = NoTangent
    for d in iter_tangents(xs, dxs):
        out = out + d
    return out


def prod_tangent(xs, dxs):
    from .builtin_rules import iter_tangents
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
        math.factorial, math.comb, math.perm, math.gcd, math.isqrt, math.frexp, math.modf)


def _fsum_adjoint(xs, g):
    from ..reverse.adjoints import sum_items_adjoint

    return sum_items_adjoint(xs, g)
