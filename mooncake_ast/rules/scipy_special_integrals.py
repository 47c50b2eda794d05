"""`scipy.special` functions defined by integrals or differential equations (issue 12, second pass), both
modes; registered by scipy_special_lang.register() once scipy.special is imported (no SciPy import here).
Real arguments only (complex input is refused by name), except wofz, which is holomorphic.

Several results at once (ufuncs with nout > 1; tangents and adjoints are tuples):
    airy(x) = (Ai, Ai', Bi, Bi'):   Ai'' = x Ai, Bi'' = x Bi
    airye(x): the same scaled by e^(2/3 x^1.5) (Ai) and e^(-2/3 x^1.5) (Bi) for x > 0, plain for x <= 0:
        eAi' = eAip + sqrt(x) eAi, eAip' = x eAi + sqrt(x) eAip, eBi' = eBip - sqrt(x) eBi, eBip' = x eBi - sqrt(x) eBip
    fresnel(x) = (S, C):  S' = sin(pi x^2 / 2), C' = cos(pi x^2 / 2)
    sici(x) = (Si, Ci):   Si' = sin x / x (1 at 0), Ci' = cos x / x
    shichi(x) = (Shi, Chi): Shi' = sinh x / x (1 at 0), Chi' = cosh x / x
One result:
    struve(v, x)' = (H_(v-1) - H_(v+1) + (x/2)^v / (sqrt(pi) Gamma(v + 3/2))) / 2
    modstruve(v, x)' = (L_(v-1) + L_(v+1) + (x/2)^v / (sqrt(pi) Gamma(v + 3/2))) / 2      (v refused)
    owens_t(h, a): d/dh = -phi(h) erf(h a / sqrt 2) / 2, d/da = e^(-h^2 (1 + a^2) / 2) / (2 pi (1 + a^2))
    ellipkm1(p) = K(1 - p): d/dp = -(E(m) - p K(m)) / (2 p (1 - p)), m = 1 - p
    ellipkinc(phi, m) = F: dF/dphi = 1 / Delta, dF/dm = E / (2 m (1-m)) - F / (2m) - sin 2phi / (4 (1-m) Delta)
    ellipeinc(phi, m) = E: dE/dphi = Delta, dE/dm = (E - F) / (2m); Delta = sqrt(1 - m sin^2 phi)
        (at m = 0: +-(2 phi - sin 2 phi) / 8)
    wofz(z)' = -2 z w(z) + 2i / sqrt(pi)  (holomorphic)
    voigt_profile(x, s, g) = Re w(z) / (s sqrt(2 pi)), z = (x + i g) / (s sqrt 2): chain rule through w'
        (s = 0 refused: the Lorentzian limit)
"""
from __future__ import annotations

import math

import numpy as np

from ..tangents import NoTangent
from .numpy_common import _no_adjoint
from .scipy_special_elementary import _s, elementwise_partials, real

FUNCTIONS = ["airy", "airye", "ellipeinc", "ellipj", "ellipkinc", "ellipkm1", "fresnel", "modstruve", "owens_t", "shichi",
             "sici", "struve", "voigt_profile", "wofz"]

_SQRT_PI = math.sqrt(math.pi)


def _sp():
    import scipy.special

    return scipy.special


# ------------------------------------------------------------------ several results: the slopes of each
def airy_slopes(x, y):
    (x,) = real(x, name="airy")
    ai, aip, bi, bip = y
    return aip, x * ai, bip, x * bi


def airye_slopes(x, y):
    (x,) = real(x, name="airye")
    ai, aip, bi, bip = (np.asarray(v, dtype=float) for v in y)
    r = np.sqrt(np.maximum(x, 0.0))
    return aip + r * ai, x * ai + r * aip, bip - r * bi, x * bi - r * bip


def fresnel_slopes(x, y):
    (x,) = real(x, name="fresnel")
    u = 0.5 * math.pi * x * x
    return np.sin(u), np.cos(u)


def _over_x(num, x, at0):
    zero = x == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(zero, at0, num / np.where(zero, 1.0, x))


def sici_slopes(x, y):
    (x,) = real(x, name="sici")
    with np.errstate(divide="ignore"):
        return _over_x(np.sin(x), x, 1.0), np.cos(x) / x


def shichi_slopes(x, y):
    (x,) = real(x, name="shichi")
    with np.errstate(divide="ignore"):
        return _over_x(np.sinh(x), x, 1.0), np.cosh(x) / x


def ellipj_slopes(m):
    """d/du of Jacobi's (sn, cn, dn, am)(u | m): (cn dn, -sn dn, -m sn cn, dn).  (In m they take the incomplete
    integral of the second kind at am: refused.)"""
    def slopes(u, y):
        (u,) = real(u, name="ellipj")
        sn, cn, dn, _ = (np.asarray(v, dtype=float) for v in y)
        return cn * dn, -sn * dn, -np.asarray(m, dtype=float) * sn * cn, dn

    return slopes


def ellipj_tangent(u, m, y, du, dm):
    from .scipy_special_more import refuse_parameter

    refuse_parameter(dm, "ellipj", "m")
    return multi_tangent(ellipj_slopes(m), u, y, du)


def ellipj_adjoint(u, m, y, g):
    return multi_adjoint(ellipj_slopes(m), u, y, g)


def multi_tangent(slopes, x, y, dx):
    """The tuple of tangents of fn(x) = y (a tuple): slope_i dx for each result."""
    with np.errstate(invalid="ignore"):  # (Ci(0) = -inf: an infinite slope times a zero tangent)
        return tuple(_s(np.asarray(s) * dx) for s in slopes(x, y))


def multi_adjoint(slopes, x, y, g):
    """sum_i slope_i g_i over the results whose adjoint is not zero (real x)."""
    if _no_adjoint(g):
        return NoTangent
    out = None
    for s, gi in zip(slopes(x, y), g):
        if not _no_adjoint(gi):
            with np.errstate(invalid="ignore"):  # (a result not used, NaN where SciPy gives NaN: no part of x_bar)
                term = np.where(np.equal(gi, 0), 0.0, np.asarray(s) * gi)
            out = term if out is None else out + term
    return NoTangent if out is None else _s(out)


# ------------------------------------------------------------------ one result
def _struve_term(v, x):
    sp = _sp()
    return np.power(0.5 * x, v) / (_SQRT_PI * sp.gamma(v + 1.5))


def struve_dx(v, x):
    v, x = real(v, x, name="struve")
    sp = _sp()
    return _s(0.5 * (sp.struve(v - 1.0, x) - sp.struve(v + 1.0, x) + _struve_term(v, x)))


def modstruve_dx(v, x):
    v, x = real(v, x, name="modstruve")
    sp = _sp()
    return _s(0.5 * (sp.modstruve(v - 1.0, x) + sp.modstruve(v + 1.0, x) + _struve_term(v, x)))


def owens_t_partials(h, a, y):
    h, a = real(h, a, name="owens_t")
    sp = _sp()
    dh = -np.exp(-0.5 * h * h) / math.sqrt(2.0 * math.pi) * 0.5 * sp.erf(h * a / math.sqrt(2.0))
    da = np.exp(-0.5 * h * h * (1.0 + a * a)) / (2.0 * math.pi * (1.0 + a * a))
    return _s(dh), _s(da)


def ellipkm1_dx(p, y):
    (p,) = real(p, name="ellipkm1")
    m = 1.0 - p
    with np.errstate(divide="ignore", invalid="ignore"):
        return _s(-(_sp().ellipe(m) - p * np.asarray(y)) / (2.0 * p * m))


def _delta(phi, m):
    return np.sqrt(1.0 - m * np.square(np.sin(phi)))


def ellipkinc_partials(phi, m, y):
    phi, m = real(phi, m, name="ellipkinc")
    d = _delta(phi, m)
    zero = m == 0
    mm = np.where(zero, 0.5, m)
    with np.errstate(divide="ignore", invalid="ignore"):
        dm = (_sp().ellipeinc(phi, mm) / (2.0 * mm * (1.0 - mm)) - np.asarray(y) / (2.0 * mm)
              - np.sin(2.0 * phi) / (4.0 * (1.0 - mm) * d))
    return _s(1.0 / d), _s(np.where(zero, (2.0 * phi - np.sin(2.0 * phi)) / 8.0, dm))


def ellipeinc_partials(phi, m, y):
    phi, m = real(phi, m, name="ellipeinc")
    zero = m == 0
    mm = np.where(zero, 0.5, m)
    with np.errstate(divide="ignore", invalid="ignore"):
        dm = (np.asarray(y) - _sp().ellipkinc(phi, mm)) / (2.0 * mm)
    return _s(_delta(phi, m)), _s(np.where(zero, -(2.0 * phi - np.sin(2.0 * phi)) / 8.0, dm))


def wofz_dz(z, w):
    return -2.0 * np.asarray(z) * w + 2j / _SQRT_PI


def wofz_adjoint(z, w, g):
    """conj(w'(z)) g; its real part for real z (the adjoint in the inner product Re(conj(a) b))."""
    if _no_adjoint(g):
        return NoTangent
    out = np.conj(wofz_dz(z, w)) * g
    return _s(out if np.iscomplexobj(z) else np.real(out))


def voigt_partials(x, sigma, gamma, y):
    x, sigma, gamma = real(x, sigma, gamma, name="voigt_profile")
    if np.any(sigma == 0):
        raise NotImplementedError("derivative of scipy.special.voigt_profile at sigma == 0 (the Lorentzian limit)")
    c = 1.0 / (sigma * math.sqrt(2.0))
    z = (x + 1j * gamma) * c
    wp = wofz_dz(z, _sp().wofz(z))
    k = 1.0 / (sigma * math.sqrt(2.0 * math.pi))
    dx = k * np.real(wp * c)
    dg = k * np.real(wp * 1j * c)
    ds = -np.asarray(y) / sigma + k * np.real(wp * (-z / sigma))
    return _s(dx), _s(ds), _s(dg)


# ------------------------------------------------------------------ registration
def register(sp, named, make) -> None:
    """Register the rules (`make` is scipy_special_more's maker of fn(*params, x) with refused params)."""
    from .numpy_rules import unary
    from .registry import defcomplex, defjvp, defvjp

    for name, slopes in (("airy", airy_slopes), ("airye", airye_slopes), ("fresnel", fresnel_slopes),
                         ("sici", sici_slopes), ("shichi", shichi_slopes)):
        fn = named(name, getattr(sp, name))
        defjvp(fn, lambda t, y, x, s=slopes, **k: t.call(multi_tangent, s, x, y, t.d(x)) if t.d(x) is not None else None)
        defvjp(fn, lambda t, g, y, x, s=slopes, **k: (t.unb(t.call(multi_adjoint, s, x, y, g), x),))

    from .scipy_special_more import refused_parameter_adjoint

    ellipj = named("ellipj", sp.ellipj)
    defjvp(ellipj, lambda t, y, u, m, **k: None if t.d(u) is None and t.d(m) is None
           else t.call(ellipj_tangent, u, m, y, t.dz(u), t.dz(m)))
    defvjp(ellipj, lambda t, g, y, u, m, **k: (
        t.unb(t.call(ellipj_adjoint, u, m, y, g), u),
        None if getattr(t, "needs", None) is not None and not t.needs(m) else t.call(refused_parameter_adjoint, g, "ellipj", "m")))
    make("struve", named("struve", sp.struve), ("v",), struve_dx)
    make("modstruve", named("modstruve", sp.modstruve), ("v",), modstruve_dx)
    unary(named("ellipkm1", sp.ellipkm1), lambda t, y, x: t.call(ellipkm1_dx, x, y))
    for name, partials in (("owens_t", owens_t_partials), ("ellipkinc", ellipkinc_partials),
                           ("ellipeinc", ellipeinc_partials), ("voigt_profile", voigt_partials)):
        elementwise_partials(named(name, getattr(sp, name)), partials, defjvp, defvjp)
    wofz = named("wofz", sp.wofz)
    defjvp(wofz, lambda t, y, z, **k: t.mul(t.d(z), t.call(wofz_dz, z, y)))
    defvjp(wofz, lambda t, g, y, z, **k: (t.unb(t.call(wofz_adjoint, z, y, g), z),))
    defcomplex(wofz)  # (holomorphic: complex z is welcome)
