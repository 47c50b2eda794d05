"""NumPy rules, both modes: ufuncs and other elementwise functions (one and two arguments,
complex parts, clip, where, `np.add.at`), and np.polyval, which is elementwise in x.

Kept apart from reductions, shapes and products because these rules share their own helpers
(`unary`, the tie-breaking of fmax/fmin, clip's bounds) and conventions: kinks take slope 0, ties
go to the first argument, `sqrt` at 0 gives an infinite derivative, except for a tangent or adjoint that is
exactly 0 there, which gives 0 (`unary_strong`, strong_zeros.py, docs/nan-derivatives.md).  Forward mode needs no
unbroadcasting (tangents broadcast like their primals); reverse templates undo it with `t.unb`.
"""
from __future__ import annotations

import numpy as np

from ..arrays import is_other_array
from ..tangents import NoTangent
from . import helpers as h
from .numpy_common import _in_storage, _inexact, _no_adjoint, _refuse_keywords, _split, _unb, cj
from .operator_rules import pow_adjoints, pow_tangent, quotient_adjoints
from .registry import defcomplex, defjvp, defvjp, defzero
from .strong_zeros import (INFINITE_SLOPES, adjoints_meet_overflow, arcsin_slope, atan2_adjoints, atan2_tangent, cbrt_slope,
                           reciprocal, sqrt_slope, strong_mul, times_overflowing_slope, times_partial, unit_ratio)


def unary(fn, dfdx):
    """Register y = fn(x) elementwise: forward and reverse from one derivative."""
    defjvp(fn, lambda t, y, x, *a, **k: t.mul(t.d(x), dfdx(t, y, x)))
    defvjp(fn, lambda t, g, y, x, *a, **k: (t.mul(g, cj(t, dfdx(t, y, x), x)),))  # (complex x: conj(f'(x)) g)


def unary_strong(fn, dfdx):
    """Register y = fn(x) elementwise whose slope f'(x) can be inf or nan at a finite x (sqrt at 0, arcsin at 1,
    out of the domain): an exact zero tangent or adjoint gives 0 there, not 0 * inf (strong_zeros.py)."""
    INFINITE_SLOPES.add(fn)
    defjvp(fn, lambda t, y, x, *a, **k: t.call(strong_mul, t.d(x), dfdx(t, y, x)) if t.d(x) is not None else None)
    defvjp(fn, lambda t, g, y, x, *a, **k: (t.call(strong_mul, g, cj(t, dfdx(t, y, x), x)) if g is not None else None,))


def overflowing(fn, dfdx):
    """Register y = fn(x) elementwise whose slope is infinite only where its value overflowed (exp): the plain
    product, which the emitter fuses, except where a selector may give the overflowed side a zero adjoint
    (strong_zeros.times_overflowing_slope: `np.where(x < 50, np.exp(x), x)` at x = 1000)."""
    defjvp(fn, lambda t, y, x, *a, **k: t.mul(t.d(x), dfdx(t, y, x)))
    defvjp(fn, lambda t, g, y, x, *a, **k: (times_overflowing_slope(t, g, cj(t, dfdx(t, y, x), x)),))


def quotient(fn, denominator, negate=False):
    """Register y = fn(x) elementwise with f'(x) = (-)1 / denominator: the derivative as one division, `dx / d` and
    `g / conj(d)`, rather than a product with a reciprocal (one array pass fewer, and one rounding)."""
    def tangent(t, y, x, *a, **k):
        d = t.div(t.d(x), denominator(t, y, x))
        return t.neg(d) if negate and d is not None else d

    def adjoint(t, g, y, x, *a, **k):
        if g is not None and adjoints_meet_overflow(t, g):  # (np.where(x > 0, np.log(x), 0.0) at x == 0: 0, not 0 / 0)
            d = times_overflowing_slope(t, g, cj(t, t.call(reciprocal, denominator(t, y, x)), x))
        else:
            d = t.div(g, cj(t, denominator(t, y, x), x))
        return (t.neg(d) if negate and d is not None else d,)

    defjvp(fn, tangent)
    defvjp(fn, adjoint)


def _real(t, x):
    """Is operand x certainly real (by its type, in a reverse template being made; a number at run time)?"""
    real = getattr(t, "certainly_real", None)
    if real is not None:
        return hasattr(x, "v") and real(x.v)
    num = getattr(t, "num", None)
    return num is not None and num(x)


def sign_tangent(x, dx):
    """np.sign is a step for real x (derivative 0); for complex x it is x / |x| (NumPy 2), whose
    tangent is (dx - sign(x) Re(conj(sign(x)) dx)) / |x| (0 at 0, where it jumps)."""
    if not np.iscomplexobj(x) and not np.iscomplexobj(dx):
        return NoTangent
    return _sign_projection(np.asarray(x), dx)


def sign_adjoint(x, g):
    """Reverse mode: 0 for real x; for complex x, s = x / |x|: (g - s Re(conj(s) g)) / |x| (0 at 0), the
    adjoint of sign_tangent in the inner product Re(conj(a) b)."""
    if not np.iscomplexobj(x) or _no_adjoint(g):
        return NoTangent
    return _sign_projection(np.asarray(x), np.asarray(g))


def _sign_projection(x, v):
    """(v - s Re(conj(s) v)) / |x| with s = x / |x| (0 at 0): sign's tangent map, which is its own adjoint."""
    m = np.abs(x)
    safe = np.where(m == 0, 1.0, m)
    s = x / safe
    with np.errstate(invalid="ignore"):
        out = np.where(m == 0, 0.0, (v - s * np.real(np.conj(s) * v)) / safe)
    return out[()] if out.ndim == 0 else out


# ------------------------------------------------------------------ elementwise, one argument
unary(np.sin, lambda t, y, x: t.call(np.cos, x))
unary(np.cos, lambda t, y, x: t.neg(t.call(np.sin, x)))
unary(np.tan, lambda t, y, x: t.add(1.0, t.mul(y, y)))
unary_strong(np.arcsin, lambda t, y, x: t.call(arcsin_slope, x))
unary_strong(np.arccos, lambda t, y, x: t.neg(t.call(arcsin_slope, x)))
quotient(np.arctan, lambda t, y, x: t.add(1.0, t.mul(x, x)))
unary(np.sinh, lambda t, y, x: t.call(np.cosh, x))
unary(np.cosh, lambda t, y, x: t.call(np.sinh, x))
unary(np.tanh, lambda t, y, x: t.sub(1.0, t.mul(y, y)))
quotient(np.arcsinh, lambda t, y, x: t.call(np.sqrt, t.add(t.mul(x, x), 1.0)))
unary(np.arccosh, lambda t, y, x: t.div(1.0, t.call(np.sqrt, t.sub(t.mul(x, x), 1.0))) if _real(t, x)
      else t.div(1.0, t.mul(t.call(np.sqrt, t.sub(x, 1.0)), t.call(np.sqrt, t.add(x, 1.0)))))  # (right off the reals too)
quotient(np.arctanh, lambda t, y, x: t.sub(1.0, t.mul(x, x)))
overflowing(np.exp, lambda t, y, x: y)
overflowing(np.exp2, lambda t, y, x: t.mul(y, np.log(2.0)))
overflowing(np.expm1, lambda t, y, x: t.call(np.exp, x))
quotient(np.log, lambda t, y, x: x)
quotient(np.log2, lambda t, y, x: t.mul(x, np.log(2.0)))
quotient(np.log10, lambda t, y, x: t.mul(x, np.log(10.0)))
quotient(np.log1p, lambda t, y, x: t.add(1.0, x))
unary_strong(np.sqrt, lambda t, y, x: t.call(sqrt_slope, y))
unary_strong(np.cbrt, lambda t, y, x: t.call(cbrt_slope, y))
defjvp(np.square, lambda t, y, x, *a, **k: t.mul(t.d(x), t.mul(2.0, x)))
defvjp(np.square, lambda t, g, y, x, *a, **k: (times_partial(t, g, cj(t, t.mul(2.0, x), x)),))  # (0 where x is)
unary(np.reciprocal, lambda t, y, x: t.neg(t.mul(y, y)))
defjvp(np.abs, lambda t, y, x, *a, **k: t.call(h.abs_tangent, x, t.d(x)) if t.d(x) is not None else None)
defvjp(np.abs, lambda t, g, y, x, *a, **k: (t.mul(g, t.call(np.sign, x)),))  # (complex x: g x / |x|, NumPy 2's sign)
unary(np.fabs, lambda t, y, x: t.call(np.sign, x))
defjvp(np.sign, lambda t, y, x, *a, **k: t.call(sign_tangent, x, t.d(x)) if t.d(x) is not None else None)
defvjp(np.sign, lambda t, g, y, x, *a, **k: (t.call(sign_adjoint, x, g),))
defjvp(np.negative, lambda t, y, x: t.neg(t.d(x)))
defjvp(np.positive, lambda t, y, x: t.d(x))
defjvp(np.conjugate, lambda t, y, x: t.lin(np.conjugate, t.d(x)))
defjvp(np.real, lambda t, y, x: t.lin(np.real, t.d(x)))
defjvp(np.imag, lambda t, y, x: t.lin(np.imag, t.d(x)))

# ------------------------------------------------------------------ elementwise, two arguments
defjvp(np.add, lambda t, y, a, b, **k: t.add(t.d(a), t.d(b)))
defjvp(np.subtract, lambda t, y, a, b, **k: t.sub(t.d(a), t.d(b)))
defjvp(np.multiply, lambda t, y, a, b, **k: t.add(t.mul(t.d(a), b), t.mul(a, t.d(b))))
defjvp(np.divide, lambda t, y, a, b, **k: t.div(t.sub(t.d(a), t.mul(y, t.d(b))), b))
defjvp(np.power, lambda t, y, a, b, **k: pow_tangent(t, y, a, b))
defjvp(np.maximum, lambda t, y, a, b, **k: t.call(np.where, t.call(np.greater_equal, a, b), t.dz(a), t.dz(b)))
defjvp(np.minimum, lambda t, y, a, b, **k: t.call(np.where, t.call(np.less_equal, a, b), t.dz(a), t.dz(b)))
defjvp(np.fmax, lambda t, y, a, b, **k: t.call(np.where, t.call(fmax_first, a, b), t.dz(a), t.dz(b)))
defjvp(np.fmin, lambda t, y, a, b, **k: t.call(np.where, t.call(fmin_first, a, b), t.dz(a), t.dz(b)))
defjvp(np.arctan2, lambda t, y, a, b, **k: atan2_tangent(t, a, b))  # (strong zeros: 0 at 0 for inputs that do not move)
defjvp(np.hypot, lambda t, y, a, b, **k: t.add(t.mul(t.d(a), t.call(unit_ratio, a, y)), t.mul(t.d(b), t.call(unit_ratio, b, y))))  # (0 at 0)
defjvp(np.logaddexp, lambda t, y, a, b, **k: t.add(t.mul(t.d(a), t.call(np.exp, t.sub(a, y))), t.mul(t.d(b), t.call(np.exp, t.sub(b, y)))))
defjvp(np.where, lambda t, y, c, a=None, b=None: t.call(np.where, c, t.dz(a), t.dz(b)) if (t.d(a) is not None or t.d(b) is not None) else None)
defjvp(np.clip, lambda t, y, x, *a, **k: _clip_jvp(t, x, *_clip_bounds(a, k)))


def fmax_first(a, b):
    """Where np.fmax takes its first argument: a >= b (ties: the first), or b is NaN."""
    return np.logical_or(np.greater_equal(a, b), np.isnan(b))


def fmin_first(a, b):
    return np.logical_or(np.less_equal(a, b), np.isnan(b))


def _clip_bounds(a, k):
    """The bounds of np.clip / ndarray.clip however they were passed: positionally, a_min/a_max or min/max."""
    lo = a[0] if len(a) > 0 else k.get("a_min", k.get("min", None))
    hi = a[1] if len(a) > 1 else k.get("a_max", k.get("max", None))
    return lo, hi


def _clip_jvp(t, x, lo, hi):
    if t.d(x) is None and t.d(lo) is None and t.d(hi) is None:
        return None
    return t.call(clip_tangent, x, lo, hi, t.dz(x), t.dz(lo), t.dz(hi))


def _float_copy(v):
    """v as a new float array (0-d for a number), in v's library (a CuPy array's where takes no bool condition)."""
    return v + 0.0 if is_other_array(v) else np.where(True, v, 0.0)


def clip_tangent(x, lo, hi, dx, dlo, dhi):
    """Tangent of clip(x, lo, hi) = min(max(x, lo), hi): dx inside, a bound's tangent where it is active.

    Ties go inside the interval (x == lo takes dx); with lo > hi NumPy returns hi, and so does the tangent.
    """
    dx, dlo, dhi = (0.0 if d is NoTangent else d for d in (dx, dlo, dhi))  # (a library array meets no NoTangent)
    out = _float_copy(dx)
    m = x
    if lo is not None:
        out = np.where(np.less(x, lo), dlo, out)
        m = np.maximum(x, lo)
    if hi is not None:
        out = np.where(np.greater(m, hi), dhi, out)
    return out[()] if out.ndim == 0 else out


def _clip_vjp(t, g, x, a, k, name):
    """Adjoints of x and of the bounds passed positionally, then (a `KwAdj`) of the bounds passed by keyword
    (`a.clip(min=lo, max=hi)`, `np.clip(a, a_min=lo)`); a caller that reads no keyword adjoints is refused."""
    from .call_binding import KwAdj

    lo, hi = _clip_bounds(a, k)
    parts = _split(t, t.call(clip_vjp, g, x, lo, hi), 3)
    needs = getattr(t, "needs", None)
    named = {key: parts[1 if key in ("a_min", "min") else 2] for key, v in k.items()
             if key in ("a_min", "a_max", "min", "max") and (needs is None or needs(v))}
    if named and not getattr(t, "keyword_adjoints", False):
        _refuse_keywords(t, name, **{key: k[key] for key in named})
        named = {}
    return tuple(parts[:1 + len(a)]) + ((KwAdj(named),) if named else ())


def clip_vjp(g, x, lo, hi):
    """Adjoints of clip(x, lo, hi) for x, lo and hi (the reverse of clip_tangent)."""
    if _no_adjoint(g):
        return NoTangent, NoTangent, NoTangent
    gx = _float_copy(g)
    m = x
    g_lo = g_hi = NoTangent
    if hi is not None:
        m = np.maximum(x, lo) if lo is not None else x
        above = np.greater(m, hi)
        g_hi = _unb(np.where(above, gx, 0.0), hi)
        gx = np.where(above, 0.0, gx)
    if lo is not None:
        below = np.less(x, lo)
        g_lo = _unb(np.where(below, gx, 0.0), lo)
        gx = np.where(below, 0.0, gx)
    return _unb(gx, x), g_lo, g_hi


# ------------------------------------------------------------------ unbuffered in-place ufunc methods
defjvp(np.add.at, lambda t, y, a, idx, b=None: t.call(np.add.at, t.d(a), idx, t.d(b)) if t.d(a) is not None and t.d(b) is not None else None, mutates=(0,))
defjvp(np.subtract.at, lambda t, y, a, idx, b=None: t.call(np.subtract.at, t.d(a), idx, t.d(b)) if t.d(a) is not None and t.d(b) is not None else None, mutates=(0,))


# ================================================================== reverse rules
defvjp(np.negative, lambda t, g, y, x: (t.neg(g),))
defvjp(np.positive, lambda t, g, y, x: (g,))
defvjp(np.add, lambda t, g, y, a, b, **k: (t.unb(g, a), t.unb(g, b)))
defvjp(np.subtract, lambda t, g, y, a, b, **k: (t.unb(g, a), t.unb(t.neg(g), b)))
defvjp(np.multiply, lambda t, g, y, a, b, **k: (t.unb(times_partial(t, g, cj(t, b, b)), a),
                                                t.unb(times_partial(t, g, cj(t, a, a)), b)))
defvjp(np.divide, lambda t, g, y, a, b, **k: quotient_adjoints(t, g, y, a, b))
defvjp(np.power, lambda t, g, y, a, b, **k: pow_adjoints(t, g, y, a, b))
defvjp(np.maximum, lambda t, g, y, a, b, **k: (t.unb(t.call(np.where, t.call(np.greater_equal, a, b), g, 0.0), a),
                                               t.unb(t.call(np.where, t.call(np.greater_equal, a, b), 0.0, g), b)))
defvjp(np.minimum, lambda t, g, y, a, b, **k: (t.unb(t.call(np.where, t.call(np.less_equal, a, b), g, 0.0), a),
                                               t.unb(t.call(np.where, t.call(np.less_equal, a, b), 0.0, g), b)))
defvjp(np.where, lambda t, g, y, c, a=None, b=None: (None, t.unb(t.call(np.where, c, g, 0.0), a), t.unb(t.call(np.where, c, 0.0, g), b))
       if a is not None else (None,))
defvjp(np.clip, lambda t, g, y, x, *a, **k: _clip_vjp(t, g, x, a, k, "np.clip"))
defvjp(np.arctan2, lambda t, g, y, a, b, **k: tuple(t.unb(part, z) for part, z in zip(atan2_adjoints(t, g, a, b), (a, b))))
defvjp(np.hypot, lambda t, g, y, a, b, **k: (t.unb(t.mul(g, t.call(unit_ratio, a, y)), a), t.unb(t.mul(g, t.call(unit_ratio, b, y)), b)))
defvjp(np.logaddexp, lambda t, g, y, a, b, **k: (t.unb(t.mul(g, t.call(np.exp, t.sub(a, y))), a), t.unb(t.mul(g, t.call(np.exp, t.sub(b, y))), b)))


# ================================================================== elementwise: complex parts, fmax/fmin, more ufuncs


def conjugate_adjoint(g, x=None):
    """conj is its own adjoint.  ndarray.conj() of a real array returns the array itself: then g is x's
    own adjoint storage and is already counted."""
    if _no_adjoint(g) or _in_storage(x, g):
        return NoTangent
    return np.conjugate(g)


def _part_in_storage(x, g):
    """Is g (the adjoint of `np.real(x)` / `np.imag(x)` of a complex array: a float view of x's memory) that view's
    storage, which is the same part of x's storage (reverse/shadows._complex_part)?  Then it is in x's already."""
    if not (isinstance(x, np.ndarray) and isinstance(g, np.ndarray) and np.iscomplexobj(x)):
        return False
    from ..reverse import shadows

    return shadows._has_shadow(x) and np.may_share_memory(g, shadows.shadow(x))


def real_adjoint_np(x, g):
    """y = Re(x): for complex x the adjoint is g as a complex number (inner product Re(conj(a) b))."""
    if _no_adjoint(g) or _part_in_storage(x, g):
        return NoTangent
    if np.iscomplexobj(x):
        return np.asarray(g).astype(np.asarray(x).dtype) if isinstance(x, np.ndarray) else complex(g)
    return g


def imag_adjoint_np(x, g):
    """y = Im(x): x's adjoint is 1j * g (zero for real x, whose imaginary part is constant)."""
    if _no_adjoint(g) or not np.iscomplexobj(x) or _part_in_storage(x, g):
        return NoTangent
    return 1j * np.asarray(g) if isinstance(x, np.ndarray) else 1j * complex(g)


defvjp(np.conjugate, lambda t, g, y, x, *a, **k: (t.call(conjugate_adjoint, g),))
defvjp(np.real, lambda t, g, y, x: (t.call(real_adjoint_np, x, g),))
defvjp(np.imag, lambda t, g, y, x: (t.call(imag_adjoint_np, x, g),))
defvjp(np.fmax, lambda t, g, y, a, b, **k: (t.unb(t.call(np.where, t.call(fmax_first, a, b), g, 0.0), a),
                                            t.unb(t.call(np.where, t.call(fmax_first, a, b), 0.0, g), b)))
defvjp(np.fmin, lambda t, g, y, a, b, **k: (t.unb(t.call(np.where, t.call(fmin_first, a, b), g, 0.0), a),
                                            t.unb(t.call(np.where, t.call(fmin_first, a, b), 0.0, g), b)))

unary(np.deg2rad, lambda t, y, x: np.pi / 180.0)
unary(np.radians, lambda t, y, x: np.pi / 180.0)
unary(np.rad2deg, lambda t, y, x: 180.0 / np.pi)
unary(np.degrees, lambda t, y, x: 180.0 / np.pi)
unary(np.sinc, lambda t, y, x: t.call(sinc_deriv, x, y))


def sinc_deriv(x, y):
    """d sinc(x)/dx = (cos(pi x) - sinc(x)) / x, and 0 at x == 0 (sinc is even there)."""
    x = _inexact(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(x == 0, 0.0, (np.cos(np.pi * x) - y) / np.where(x == 0, 1.0, x))
    return out[()] if out.ndim == 0 else out


defjvp(np.logaddexp2, lambda t, y, a, b, **k: t.add(t.mul(t.d(a), t.call(np.exp2, t.sub(a, y))), t.mul(t.d(b), t.call(np.exp2, t.sub(b, y)))))
defvjp(np.logaddexp2, lambda t, g, y, a, b, **k: (t.unb(t.mul(g, t.call(np.exp2, t.sub(a, y))), a), t.unb(t.mul(g, t.call(np.exp2, t.sub(b, y))), b)))
defjvp(np.float_power, lambda t, y, a, b, **k: pow_tangent(t, y, a, b))
defvjp(np.float_power, lambda t, g, y, a, b, **k: pow_adjoints(t, g, y, a, b))
# remainder (np.mod): a - floor(a / b) * b;  fmod: a - trunc(a / b) * b.  Piecewise; the jumps are not counted.
defjvp(np.remainder, lambda t, y, a, b, **k: t.sub(t.d(a), t.mul(t.call(np.floor_divide, a, b), t.d(b))))
defvjp(np.remainder, lambda t, g, y, a, b, **k: (t.unb(g, a), t.unb(t.neg(t.mul(g, t.call(np.floor_divide, a, b))), b)))
defjvp(np.fmod, lambda t, y, a, b, **k: t.sub(t.d(a), t.mul(t.call(fmod_quotient, a, b, y), t.d(b))))
defvjp(np.fmod, lambda t, g, y, a, b, **k: (t.unb(g, a), t.unb(t.neg(t.mul(g, t.call(fmod_quotient, a, b, y))), b)))
# copysign(a, b) = |a| sign(b): slope sign(a) sign(y) in a (0 at a == 0), none in b.
defjvp(np.copysign, lambda t, y, a, b, **k: t.mul(t.d(a), t.mul(t.call(np.sign, a), t.call(np.sign, y))))
defvjp(np.copysign, lambda t, g, y, a, b, **k: (t.unb(t.mul(g, t.mul(t.call(np.sign, a), t.call(np.sign, y))), a), None))
defzero(np.floor_divide, np.heaviside, np.signbit, np.fix, np.isreal, np.iscomplex, np.isin, np.argwhere,
        np.flatnonzero, np.digitize, np.tri, np.diag_indices, np.tril_indices, np.triu_indices, np.indices)


def fmod_quotient(a, b, y):
    """trunc(a / b), recovered from the result: (a - fmod(a, b)) / b is that integer up to rounding."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.round((np.asarray(a) - y) / b)  # an integer up to rounding: not trunc


# ================================================================== polynomials
def polyval_tangent(p, x, dp, dx):
    """np.polyval(p, x) = sum_k p[k] x**(n-1-k): linear in p, and p'(x) in x."""
    out = NoTangent
    if dp is not NoTangent:
        out = np.polyval(np.broadcast_to(dp, np.shape(p)), x)
    if dx is not NoTangent:
        out = out + np.polyval(np.polyder(p), x) * dx if len(p) > 1 else out
    return out


def polyval_adjoint(p, x, g, which):
    if _no_adjoint(g):
        return NoTangent
    p = np.asarray(p)
    if which == 1:
        if len(p) < 2:
            return NoTangent
        return _unb(np.asarray(g) * np.polyval(np.polyder(p), x), x)
    n = len(p)
    x = np.asarray(x, dtype=float)
    return np.array([np.sum(np.asarray(g) * x ** (n - 1 - k)) for k in range(n)])


defjvp(np.polyval, lambda t, y, p, x: t.call(polyval_tangent, p, x, t.dz(p), t.dz(x)) if (t.d(p) is not None or t.d(x) is not None) else None)
defvjp(np.polyval, lambda t, g, y, p, x: (t.call(polyval_adjoint, p, x, g, 0), t.call(polyval_adjoint, p, x, g, 1)))


# ================================================================== complex values in reverse mode (README "Complex numbers")
# Holomorphic ones take conj(f'(x)) g (unary's cj); abs, sign, angle, real, imag, conj follow Re(conj(a) b);
# arithmetic conjugates the other factor; unb takes the real part for a real operand.  Each is checked with
# complex inputs in tests/test_complex_reverse.py.  Not here (real-only, refused for complex): cbrt, fabs, the comparisons-based ones (maximum, minimum, fmax, fmin, clip, where), arctan2, hypot,
# logaddexp(2), sinc, deg2rad and the others below them.
defcomplex(np.sin, np.cos, np.tan, np.arcsin, np.arccos, np.arctan, np.sinh, np.cosh, np.tanh, np.arcsinh, np.arccosh, np.arctanh, np.exp, np.exp2,
           np.expm1, np.log, np.log2, np.log10, np.log1p, np.sqrt, np.square, np.reciprocal, np.abs, np.sign,
           np.negative, np.positive, np.conjugate, np.real, np.imag, np.add, np.subtract, np.multiply, np.divide,
           np.power, np.where)
