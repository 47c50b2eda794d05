"""Small functions the rule templates call from generated code (as `_mc.<name>`).

Each exists because the plain expression would be wrong somewhere the rule
must be right: at a kink, at zero, or for a value that may be an int.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..arrays import is_other_array
from ..ir.types import FLOAT_ELEMENTWISE
from ..tangents import NoTangent


def sign(x: Any) -> Any:
    """d|x|/dx, taking 0 at x == 0 (the documented value at the kink)."""
    if isinstance(x, (float, int)):
        return 1.0 if x > 0 else (-1.0 if x < 0 else 0.0)
    return np.sign(x)


def abs_tangent(x: Any, dx: Any) -> Any:
    """d|x| = sign(x) dx (0 at x == 0); for complex x it is real, Re(conj(x) dx) / |x| (0 at 0)."""
    if isinstance(x, float):
        return dx * (1.0 if x > 0 else (-1.0 if x < 0 else 0.0))
    if not (isinstance(x, complex) or np.iscomplexobj(x)):
        return dx * sign(x)
    m = np.abs(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(m == 0, 0.0, np.real(np.conj(x) * dx) / np.where(m == 0, 1.0, m))
    return float(out) if isinstance(x, complex) else (out[()] if out.ndim == 0 else out)


def log_for_pow(base: Any, z: Any = None) -> Any:
    """log(base) in d(base**p)/dp; 0 where base == 0 (the limit of p*base**p*log(base)); nan below 0.

    z, when given, is the factor the log multiplies in the derivative (dp, or an adjoint).  Where z == 0 below 0
    the result is log|base| instead of nan: the term z * base**p * log(base) is then 0, as the symbolic zero makes
    it, and not nan * 0 = nan.  (z is often a zero that is only a number: a constant float exponent's tangent made
    dense by an outer derivative, or a direction along the base only.)  log|base| rather than a constant, so that
    its rules (forward_code_rules._helper_defs: d log|base| = dbase / base) stay exact at every order; z only
    picks a branch and has no derivative of its own.  (So a derivative with respect to z itself where z == 0
    below 0, i.e. with respect to the seed of an exponent, reads the real part base**p * log|base| of the
    undefined partial derivative; a nonzero dp below 0 still gives nan.)"""
    if isinstance(base, (float, int)) and (z is None or z is NoTangent or isinstance(z, (float, int))):
        if base > 0:
            return math.log(base)
        if base == 0:
            return 0.0
        return math.nan if z is None or (z is not NoTangent and z != 0) else math.log(-base)
    if not is_other_array(base):
        base = np.asarray(base)
    if z is not None and base.dtype.kind in "fiub":
        zero = True if z is NoTangent else np.equal(z, 0)
        if zero is True:
            base = np.abs(base)
        elif is_other_array(base) or is_other_array(z):  # (no test on the host: a device array stays there)
            base = np.where(zero, np.abs(base), base)
        elif np.ndim(zero) == 0:
            base = np.abs(base) if zero else base
        else:  # (the common case, no base below 0, costs one comparison)
            below = base < 0
            if below.any():
                base = np.where(zero & below, -base, base)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(np.where(base == 0, 1.0, base))
    return out


def pow_deriv(base: Any, p: Any) -> Any:
    """d(base**p)/dbase = p * base**(p - 1), exactly 0 where p == 0 (also at base == 0)."""
    if isinstance(base, np.ndarray) or isinstance(p, np.ndarray) or is_other_array(base) or is_other_array(p):
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.multiply(p, np.power(base, np.subtract(p, 1.0)))
        return np.where(np.equal(p, 0), 0.0, out)
    if p == 0:
        return 0.0
    if base == 0:
        return 1.0 if p == 1 else (0.0 if p > 1 else math.inf)
    return p * base ** (p - 1)


FLOAT_ELEMENTWISE.update((pow_deriv, sign, log_for_pow))  # (their results are typed like base ** p: ir/types.py)


def linear(fn: Any, dx: Any, *args: Any, **kwargs: Any) -> Any:
    """fn(dx, *args) for fn linear in dx; the symbolic zero stays symbolic (NumPy would make it a 0-d array).

    (Plain Python on purpose: a nested derivative differentiates it like user code, through fn's own rule.)"""
    if dx is NoTangent:
        return NoTangent
    return fn(dx, *args, **kwargs)


def linear_right(fn: Any, x: Any, dy: Any) -> Any:
    """fn(x, dy) for fn linear in dy (e.g. np.dot(x, dy))."""
    if dy is NoTangent:
        return NoTangent
    return fn(x, dy)


def extended_by_constant(dx, b):
    """The tangent of `x += b` with b constant: x's own, and zeros for the items b appends to a list or tuple.
    (Traced when forward code is differentiated again: no import inside, NoTangent is this module's.)"""
    if isinstance(dx, list):
        return dx + [NoTangent] * len(b)
    if isinstance(dx, tuple):
        return dx + (NoTangent,) * len(b)
    return dx
