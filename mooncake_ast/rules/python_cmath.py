"""Rules of the `cmath` module, both modes, complex values included (issue 12).

Every function but phase/polar/rect is holomorphic off its branch cuts: forward dy = f'(z) dz; reverse
z_bar = conj(f'(z)) y_bar, the real inner product on C = R^2 (README "Complex numbers", registry.defcomplex),
and the real part of that where the operand is a real number (cmath.sqrt(-2.0) takes floats too).
Derivatives (principal branches, as cmath computes them):
  exp: e^z;  log(z, base): 1 / (z ln base), in base -ln z / (base ln^2 base);  log10: 1 / (z ln 10);
  sqrt: 1 / (2 sqrt z);  sin: cos;  cos: -sin;  tan: 1 + tan^2;  asin: 1 / sqrt(1 - z^2);
  acos: -1 / sqrt(1 - z^2);  atan: 1 / (1 + z^2);  sinh: cosh;  cosh: sinh;  tanh: 1 - tanh^2;
  asinh: 1 / sqrt(1 + z^2);  acosh: 1 / (sqrt(z - 1) sqrt(z + 1)) (not 1 / sqrt(z^2 - 1): another sign
  for Re z < 0);  atanh: 1 / (1 - z^2).
The others are real on some side:
  phase(z) = arg z: d = Im(dz / z), so z_bar = y_bar i z / |z|^2 (zero for a real operand);
  polar(z) = (|z|, arg z): z_bar = r_bar z / |z| + p_bar i z / |z|^2;
  rect(r, phi) = r e^(i phi) (real r, phi): dy = e^(i phi) dr + i y dphi, r_bar = Re(e^(-i phi) y_bar),
  phi_bar = Re(conj(i y) y_bar).
isfinite, isinf, isnan and isclose have no derivative.
"""
from __future__ import annotations

import cmath

from ..tangents import NoTangent
from .registry import defcomplex, defjvp, defvjp, defzero


def _zero(v):
    return v is None or v is NoTangent


def _to(x, a):
    """An adjoint for the operand x: a itself for a complex x, its real part for a real one."""
    return a if isinstance(x, complex) else float(complex(a).real)


# ------------------------------------------------------------------ holomorphic, one operand
def _d_acosh(z):
    return 1.0 / (cmath.sqrt(z - 1.0) * cmath.sqrt(z + 1.0))


DERIVATIVES = {
    cmath.exp: lambda z, y: y,
    cmath.log10: lambda z, y: 1.0 / (z * cmath.log(10.0)),
    cmath.sqrt: lambda z, y: 0.5 / y,
    cmath.sin: lambda z, y: cmath.cos(z),
    cmath.cos: lambda z, y: -cmath.sin(z),
    cmath.tan: lambda z, y: 1.0 + y * y,
    cmath.asin: lambda z, y: 1.0 / cmath.sqrt(1.0 - z * z),
    cmath.acos: lambda z, y: -1.0 / cmath.sqrt(1.0 - z * z),
    cmath.atan: lambda z, y: 1.0 / (1.0 + z * z),
    cmath.sinh: lambda z, y: cmath.cosh(z),
    cmath.cosh: lambda z, y: cmath.sinh(z),
    cmath.tanh: lambda z, y: 1.0 - y * y,
    cmath.asinh: lambda z, y: 1.0 / cmath.sqrt(1.0 + z * z),
    cmath.acosh: lambda z, y: _d_acosh(z),
    cmath.atanh: lambda z, y: 1.0 / (1.0 - z * z),
}


def cmath_tangent(fn, z, y, dz):
    return complex(DERIVATIVES[fn](z, y) * dz)  # (a complex result's tangent is complex, for a real z too)


def cmath_adjoint(fn, z, y, g):
    if _zero(g):
        return NoTangent
    return _to(z, DERIVATIVES[fn](z, y).conjugate() * g)


for _fn in DERIVATIVES:
    defjvp(_fn, lambda t, y, z, fn=_fn: t.call(cmath_tangent, fn, z, y, t.d(z)) if t.d(z) is not None else None)
    defvjp(_fn, lambda t, g, y, z, fn=_fn: (t.call(cmath_adjoint, fn, z, y, g),))


# ------------------------------------------------------------------ log(z[, base])
def log_tangent(y, z, dz, base=None, dbase=None):
    out = 0j
    lb = 1.0 if base is None else cmath.log(base)
    if not _zero(dz):
        out += dz / (z * lb)
    if base is not None and not _zero(dbase):
        out -= y / (base * lb) * dbase
    return out


def log_adjoints(y, g, z, base=None):
    if _zero(g):
        return NoTangent, NoTangent
    lb = 1.0 if base is None else cmath.log(base)
    zbar = _to(z, (1.0 / (z * lb)).conjugate() * g)
    if base is None:
        return zbar, NoTangent
    return zbar, _to(base, (-y / (base * lb)).conjugate() * g)


def _log_jvp(t, y, z, *base):
    if t.d(z) is None and (not base or t.d(base[0]) is None):
        return None
    return t.call(log_tangent, y, z, t.dz(z), *([base[0], t.dz(base[0])] if base else []))


def _log_vjp(t, g, y, z, *base):
    both = t.call(log_adjoints, y, g, z, *base)
    return (t.call(_item, both, 0),) + ((t.call(_item, both, 1),) if base else ())


def _item(pair, i):
    return NoTangent if pair is NoTangent else pair[i]


defjvp(cmath.log, _log_jvp)
defvjp(cmath.log, _log_vjp)


# ------------------------------------------------------------------ phase, polar, rect
def phase_tangent(z, dz):
    return (dz / z).imag if z != 0 else 0.0


def phase_adjoint(z, g):
    if _zero(g) or z == 0:
        return NoTangent
    return _to(z, float(g) * 1j * z / abs(z) ** 2)


def polar_tangent(z, y, dz):
    r = y[0]
    return (float((z.conjugate() * dz).real / r) if r else 0.0, phase_tangent(z, dz))


def polar_adjoint(z, y, g):
    if _zero(g):
        return NoTangent
    r = y[0]
    gr, gp = (NoTangent, NoTangent) if _zero(g) else (g[0], g[1])
    out = 0j
    if not _zero(gr) and r:
        out += float(gr) * z / r
    if not _zero(gp) and r:
        out += float(gp) * 1j * z / (r * r)
    return _to(z, out)


def rect_tangent(r, phi, y, dr, dphi):
    out = 0j
    if not _zero(dr):
        out += cmath.exp(1j * phi) * dr
    if not _zero(dphi):
        out += 1j * y * dphi
    return out


def rect_adjoints(r, phi, y, g):
    if _zero(g):
        return NoTangent, NoTangent
    g = complex(g)
    return float((cmath.exp(-1j * phi) * g).real), float(((1j * y).conjugate() * g).real)


defjvp(cmath.phase, lambda t, y, z: t.call(phase_tangent, z, t.d(z)) if t.d(z) is not None else None)
defvjp(cmath.phase, lambda t, g, y, z: (t.call(phase_adjoint, z, g),))
defjvp(cmath.polar, lambda t, y, z: t.call(polar_tangent, z, y, t.d(z)) if t.d(z) is not None else None)
defvjp(cmath.polar, lambda t, g, y, z: (t.call(polar_adjoint, z, y, g),))
defjvp(cmath.rect, lambda t, y, r, phi: t.call(rect_tangent, r, phi, y, t.dz(r), t.dz(phi))
       if t.d(r) is not None or t.d(phi) is not None else None)
defvjp(cmath.rect, lambda t, g, y, r, phi: (t.call(_item, t.call(rect_adjoints, r, phi, y, g), 0),
                                            t.call(_item, t.call(rect_adjoints, r, phi, y, g), 1)))

defcomplex(*DERIVATIVES, cmath.log, cmath.phase, cmath.polar, cmath.rect)
defzero(cmath.isfinite, cmath.isinf, cmath.isnan, cmath.isclose)
