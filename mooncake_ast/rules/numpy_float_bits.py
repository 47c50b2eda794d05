"""Rules of the NumPy functions that take floats apart (issue 12): np.frexp, np.modf, np.nextafter, np.spacing.

* frexp(x) = (m, e) with x = m 2^e, e an integer that moves in jumps: dm = dx 2^-e, e has no derivative
  (as math.frexp).
* modf(x) = (frac, whole), whole = trunc(x) moving in jumps: dfrac = dx, whole has no derivative (as math.modf).
* nextafter(x1, x2) is the float next to x1 in the direction of x2: x1 moved by one unit in the last
  place, a step too small to be seen by any difference quotient, so it is x1 piecewise: derivative 1 in
  x1 and 0 in x2 (as math.nextafter).
* spacing(x), the distance from x to the next float, is piecewise constant (it jumps at powers of 2):
  no derivative (as math.ulp).
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent
from .numpy_common import _no_adjoint
from .registry import defjvp, defvjp, defzero


def frexp_tangent(y, dx):
    m, e = y
    return np.ldexp(np.asarray(dx, dtype=np.result_type(m, float)), -e), np.zeros(np.shape(e), dtype=float)


def frexp_adjoint(y, g):
    gm = NoTangent if _no_adjoint(g) else g[0]
    if _no_adjoint(gm):
        return NoTangent
    return np.ldexp(np.asarray(gm, dtype=float), -y[1])


def modf_tangent(y, dx):
    frac, whole = y
    d = np.broadcast_to(np.asarray(dx, dtype=np.result_type(frac, float)), np.shape(frac))
    return (d.copy() if np.ndim(frac) else d[()]), np.zeros(np.shape(whole), dtype=float)


def modf_adjoint(g):
    gf = NoTangent if _no_adjoint(g) else g[0]
    return NoTangent if _no_adjoint(gf) else gf


def nextafter_tangent(y, dx1):
    return np.broadcast_to(np.asarray(dx1, dtype=np.asarray(y).dtype), np.shape(y)).copy() if np.ndim(y) else \
        np.asarray(dx1, dtype=np.asarray(y).dtype)[()]


defjvp(np.frexp, lambda t, y, x, **k: t.call(frexp_tangent, y, t.d(x)) if t.d(x) is not None else None)
defvjp(np.frexp, lambda t, g, y, x, **k: (t.unb(t.call(frexp_adjoint, y, g), x),))
defjvp(np.modf, lambda t, y, x, **k: t.call(modf_tangent, y, t.d(x)) if t.d(x) is not None else None)
defvjp(np.modf, lambda t, g, y, x, **k: (t.unb(t.call(modf_adjoint, g), x),))
defjvp(np.nextafter, lambda t, y, x1, x2, **k: t.call(nextafter_tangent, y, t.d(x1)) if t.d(x1) is not None else None)
defvjp(np.nextafter, lambda t, g, y, x1, x2, **k: (t.unb(g, x1), None))
defzero(np.spacing)
# A truth-valued ufunc of floats: no derivative.  (The integer ufuncs -- gcd, bitwise_and, ... -- need no rule: their
# integer operands carry no derivative, and a float operand is NumPy's TypeError.)
defzero(np.logical_xor)
