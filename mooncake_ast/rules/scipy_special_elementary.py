"""Elementary-looking `scipy.special` functions real code calls (issue 12, second pass), both modes;
registered by scipy_special_lang.register() once scipy.special is imported (this module never imports
SciPy itself).  Every formula is the real-valued function's: complex input is refused by name.

    cosm1' = -sin          exprel(x)' = (e^x - exprel(x)) / x  (series 1/2 + x/3 + x^2/8 near 0)
    erfi' = 2/sqrt(pi) e^(x^2)                    exp10' = ln 10 exp10
    sindg' = pi/180 cosdg, cosdg' = -pi/180 sindg, tandg' = pi/180 (1 + tandg^2), cotdg' = -pi/180 (1 + cotdg^2)
    radian(d, m, s) = pi/180 (d + m/60 + s/3600)
    inv_boxcox(y, l) = x = (1 + l y)^(1/l): dx/dy = x^(1-l), dx/dl = x (y / (l (1 + l y)) - log(1 + l y) / l^2)
        (-x y^2 / 2 at l = 0); inv_boxcox1p = inv_boxcox - 1
    poch(z, m) = Gamma(z+m)/Gamma(z): d/dz = poch (psi(z+m) - psi(z)), d/dm = poch psi(z+m)
    jve, yve (real x: jv, yv): (f(v-1, x) - f(v+1, x)) / 2;  hyp0f1(v, x)' = hyp0f1(v+1, x) / v
    gammaincinv(a, y)' = Gamma(a) e^x x^(1-a) (gammainccinv: minus that);
    betaincinv(a, b, y)' = B(a, b) / (x^(a-1) (1-x)^(b-1))
    eval_laguerre(n, x)' = -L^(1)_(n-1)(x);  eval_chebyu(n, x)' = ((n+1) T_(n+1) - x U_n) / (x^2 - 1)
    lambertw(z, k)' = W / (z (1 + W))  (1 at z = 0 on the principal branch); real z only, complex result
    spherical_jn/yn/in/kn(n, x)' = the function itself with derivative=True (derivative=True refused)
    lpmv(m, v, x)' = ((v + 1) x P^m_v - (v - m + 1) P^m_(v+1)) / (1 - x^2)   (x = +-1 refused)
    agm(a, b) = a pi / (2 K(1 - (b/a)^2)): partials through K and E (agm_partials)

Orders, degrees and shape parameters without a closed form (v, n, a, b of the inverse incomplete functions)
are refused when differentiated (scipy_special_more.refuse_parameter).
"""
from __future__ import annotations

import math

import numpy as np

from ..tangents import NoTangent
from .numpy_common import _no_adjoint, _split

FUNCTIONS = ["agm", "lpmv", "betaincinv", "cosdg", "cosm1", "cotdg", "erfi", "eval_chebyu", "eval_laguerre", "exp10", "exprel",
             "gammainccinv", "gammaincinv", "hyp0f1", "inv_boxcox", "inv_boxcox1p", "jve", "lambertw", "poch",
             "radian", "sindg", "spherical_in", "spherical_jn", "spherical_kn", "spherical_yn", "tandg", "yve"]

_DEG = math.pi / 180.0


def _sp():
    import scipy.special

    return scipy.special


def _s(v):
    v = np.asarray(v)
    return v[()] if v.ndim == 0 else v


def real(*vals, name="a scipy.special function"):
    """The values as float arrays; complex numbers refused (the formulas here are the real functions')."""
    if any(np.iscomplexobj(v) for v in vals):
        raise NotImplementedError(f"derivative of scipy.special.{name} of complex numbers (real formulas only)")
    return [np.asarray(v, dtype=float) for v in vals]


# ------------------------------------------------------------------ one argument: f'(x) from x and y
def cosm1_dx(x, y):
    (x,) = real(x, name="cosm1")
    return _s(-np.sin(x))


def exprel_dx(x, y):
    (x,) = real(x, name="exprel")
    small = np.abs(x) < 1e-3
    safe = np.where(small, 1.0, x)
    return _s(np.where(small, 0.5 + x / 3.0 + x * x / 8.0, (np.exp(safe) - y) / safe))


def erfi_dx(x, y):
    (x,) = real(x, name="erfi")
    return _s(2.0 / math.sqrt(math.pi) * np.exp(x * x))


def exp10_dx(x, y):
    real(x, name="exp10")
    return _s(math.log(10.0) * np.asarray(y))


def sindg_dx(x, y):
    real(x, name="sindg")
    return _s(_DEG * _sp().cosdg(x))


def cosdg_dx(x, y):
    real(x, name="cosdg")
    return _s(-_DEG * _sp().sindg(x))


def tandg_dx(x, y):
    real(x, name="tandg")
    return _s(_DEG * (1.0 + np.square(y)))


def cotdg_dx(x, y):
    real(x, name="cotdg")
    return _s(-_DEG * (1.0 + np.square(y)))


# ------------------------------------------------------------------ several arguments: every partial
def radian_partials(d, m, s, y):
    real(d, m, s, name="radian")
    return _DEG, _DEG / 60.0, _DEG / 3600.0


def inv_boxcox_partials(y, lmbda, out, shift=0.0):
    y, lmbda = real(y, lmbda, name="inv_boxcox")
    x = np.asarray(out, dtype=float) + shift
    zero = lmbda == 0
    lam = np.where(zero, 1.0, lmbda)
    with np.errstate(divide="ignore", invalid="ignore"):
        dy = np.power(x, 1.0 - lmbda)
        u = 1.0 + lam * y
        dl = np.where(zero, -0.5 * x * y * y, x * (y / (lam * u) - np.log(u) / (lam * lam)))
    return _s(dy), _s(dl)


def inv_boxcox1p_partials(y, lmbda, out):
    return inv_boxcox_partials(y, lmbda, out, shift=1.0)


def poch_partials(z, m, y):
    z, m = real(z, m, name="poch")
    sp = _sp()
    psi = sp.digamma(z + m)
    return _s(y * (psi - sp.digamma(z))), _s(y * psi)


# ------------------------------------------------------------------ d/dx of fn(*params, x), params refused
def jve_dx(v, x, y=None):
    v, x = real(v, x, name="jve")
    sp = _sp()
    return _s(0.5 * (sp.jve(v - 1.0, x) - sp.jve(v + 1.0, x)))


def yve_dx(v, x, y=None):
    v, x = real(v, x, name="yve")
    sp = _sp()
    return _s(0.5 * (sp.yve(v - 1.0, x) - sp.yve(v + 1.0, x)))


def hyp0f1_dx(v, x, y=None):
    v, x = real(v, x, name="hyp0f1")
    return _s(_sp().hyp0f1(v + 1.0, x) / v)


def gammaincinv_dx(a, p, y):
    a, x = real(a, y, name="gammaincinv")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return _s(np.exp(_sp().gammaln(a) + x - (a - 1.0) * np.log(x)))


def gammainccinv_dx(a, p, y):
    return _s(-np.asarray(gammaincinv_dx(a, p, y)))


def betaincinv_dx(a, b, p, y):
    a, b, x = real(a, b, y, name="betaincinv")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return _s(np.exp(_sp().betaln(a, b) - (a - 1.0) * np.log(x) - (b - 1.0) * np.log1p(-x)))


def laguerre_dx(n, x, y=None):
    n, x = real(n, x, name="eval_laguerre")
    return _s(np.where(n >= 1, -_sp().eval_genlaguerre(np.maximum(n - 1.0, 0.0), 1.0, x), 0.0))


def chebyu_dx(n, x, y):
    n, x = real(n, x, name="eval_chebyu")
    sp = _sp()
    edge = np.isclose(np.abs(x), 1.0)
    safe = np.where(edge, 0.5, x)
    with np.errstate(invalid="ignore", divide="ignore"):
        inner = ((n + 1.0) * sp.eval_chebyt(n + 1.0, safe) - safe * sp.eval_chebyu(n, safe)) / (safe * safe - 1.0)
    at_edge = np.power(np.where(edge, x, 1.0), n + 1.0) * n * (n + 1.0) * (n + 2.0) / 3.0
    return _s(np.where(edge, at_edge, inner))


def lpmv_dx(m, v, x, y):
    """(1 - x^2) dP/dx = (v + 1) x P^m_v - (v - m + 1) P^m_(v+1) (DLMF 14.10.5); x = +-1 refused."""
    m, v, x = real(m, v, x, name="lpmv")
    if np.any(np.abs(x) == 1.0):
        raise NotImplementedError("derivative of scipy.special.lpmv at x = +-1 (an endpoint, where it may be infinite)")
    return _s(((v + 1.0) * x * np.asarray(y) - (v - m + 1.0) * _sp().lpmv(m, v + 1.0, x)) / (1.0 - x * x))


def agm_partials(a, b, y):
    """agm(a, b) = a pi / (2 K(1 - (b/a)^2)): dM/db = pi r K'(m) / K(m)^2 (r = b/a, m = 1 - r^2), and
    dM/da = (M - b dM/db) / a (M is homogeneous of degree 1); K'(m) = (E - (1 - m) K) / (2 m (1 - m)), pi/8 at 0."""
    a, b = real(a, b, name="agm")
    sp = _sp()
    with np.errstate(divide="ignore", invalid="ignore"):
        r = b / a
        m = 1.0 - r * r
        small = np.abs(m) < 1e-6
        ms = np.where(small, 0.5, m)
        K = sp.ellipk(m)
        dK = np.where(small, math.pi / 8.0 + 9.0 * math.pi / 128.0 * m, (sp.ellipe(ms) - (1.0 - ms) * sp.ellipk(ms)) / (2.0 * ms * (1.0 - ms)))
        db = math.pi * r * dK / (K * K)
        da = (np.asarray(y) - b * db) / a
    return _s(da), _s(db)


# ------------------------------------------------------------------ lambertw (complex result of real z)
def lambertw_slope(z, w):
    """W'(z) = W / (z (1 + W)), and 1 at z = 0 (principal branch, where W(0) = 0)."""
    if np.iscomplexobj(z):
        raise NotImplementedError("derivative of scipy.special.lambertw of complex z (real z only)")
    z = np.asarray(z, dtype=float)
    w = np.asarray(w)
    zero = z == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(zero, 1.0 + 0j, w / (np.where(zero, 1.0, z) * (1.0 + w)))
    return _s(out)


def lambertw_tangent(z, w, dz):
    return _s(lambertw_slope(z, w) * dz)


def lambertw_adjoint(z, w, g):
    """Real z: Re(conj(W') g), the adjoint in the inner product Re(conj(a) b)."""
    if _no_adjoint(g):
        return NoTangent
    return _s(np.real(np.conj(lambertw_slope(z, w)) * g))


# ------------------------------------------------------------------ spherical Bessel functions
def spherical_dx(kind):
    def dx(n, x, derivative=False):
        if derivative:
            raise NotImplementedError(f"derivative of scipy.special.{kind} with derivative=True (a second derivative)")
        real(x, name=kind)
        return _s(getattr(_sp(), kind)(n, x, derivative=True))

    dx.__name__ = dx.__qualname__ = f"{kind}_dx"
    return dx


_SPHERICAL = {k: spherical_dx(k) for k in ("spherical_jn", "spherical_yn", "spherical_in", "spherical_kn")}
spherical_jn_dx, spherical_yn_dx = _SPHERICAL["spherical_jn"], _SPHERICAL["spherical_yn"]
spherical_in_dx, spherical_kn_dx = _SPHERICAL["spherical_in"], _SPHERICAL["spherical_kn"]


# ------------------------------------------------------------------ makers
def elementwise_partials(fn, partials, defjvp, defvjp):
    """Rules of y = fn(*args) elementwise, every argument differentiable: partials(*args, y) returns
    d y / d arg_i for each (broadcastable); the pullback sums each back to its argument's shape."""
    def jvp(t, y, *ops, **k):
        if all(t.d(op) is None for op in ops):
            return None
        ps = _split(t, t.call(partials, *ops, y), len(ops))
        out = None
        for p, op in zip(ps, ops):
            if t.d(op) is not None:
                term = t.mul(t.d(op), p)
                out = term if out is None else t.add(out, term)
        return out

    def vjp(t, g, y, *ops, **k):
        ps = _split(t, t.call(partials, *ops, y), len(ops))
        return tuple(t.unb(t.mul(g, p), op) for p, op in zip(ps, ops))

    defjvp(fn, jvp)
    defvjp(fn, vjp)


def register(sp, named, make) -> None:
    """Register the rules (`make` is scipy_special_more's maker of fn(*params, x) with refused params)."""
    from .numpy_rules import unary
    from .registry import defjvp, defvjp

    for name, dx in (("cosm1", cosm1_dx), ("exprel", exprel_dx), ("erfi", erfi_dx), ("exp10", exp10_dx),
                     ("sindg", sindg_dx), ("cosdg", cosdg_dx), ("tandg", tandg_dx), ("cotdg", cotdg_dx)):
        if hasattr(sp, name):
            unary(named(name, getattr(sp, name)), lambda t, y, x, dx=dx: t.call(dx, x, y))
    for name, partials in (("radian", radian_partials), ("inv_boxcox", inv_boxcox_partials),
                           ("inv_boxcox1p", inv_boxcox1p_partials), ("poch", poch_partials), ("agm", agm_partials)):
        if hasattr(sp, name):
            elementwise_partials(named(name, getattr(sp, name)), partials, defjvp, defvjp)
    for name, params, dx, with_y in (("jve", ("v",), jve_dx, False), ("yve", ("v",), yve_dx, False),
                                     ("hyp0f1", ("v",), hyp0f1_dx, False),
                                     ("gammaincinv", ("a",), gammaincinv_dx, True),
                                     ("gammainccinv", ("a",), gammainccinv_dx, True),
                                     ("betaincinv", ("a", "b"), betaincinv_dx, True),
                                     ("eval_laguerre", ("n",), laguerre_dx, False),
                                     ("eval_chebyu", ("n",), chebyu_dx, True),
                                     ("lpmv", ("m", "v"), lpmv_dx, True)):
        if hasattr(sp, name):
            make(name, named(name, getattr(sp, name)), params, dx, with_y)

    lw = named("lambertw", sp.lambertw)
    defjvp(lw, lambda t, y, z, *a, **k: t.call(lambertw_tangent, z, y, t.d(z)) if t.d(z) is not None else None)
    defvjp(lw, lambda t, g, y, z, *a, **k: (t.unb(t.call(lambertw_adjoint, z, y, g), z),) + (None,) * len(a))
    from .registry import defcomplex

    defcomplex(lw)  # (its result is complex; lambertw_adjoint takes the real part for real z)

    from .scipy_special_more import refuse_parameter, refused_parameter_adjoint

    for name, dx in _SPHERICAL.items():
        fn = named(name, getattr(sp, name))

        def jvp(t, y, n, x, derivative=False, name=name, dx=dx):
            out = t.mul(t.d(x), t.call(dx, n, x, derivative)) if t.d(x) is not None else None
            if t.d(n) is not None:
                extra = t.call(refuse_parameter, t.d(n), name, "n")
                out = extra if out is None else t.add(out, extra)
            return out

        def vjp(t, g, y, n, x, derivative=False, name=name, dx=dx):
            needs = getattr(t, "needs", None)
            gn = None if needs is not None and not needs(n) else t.call(refused_parameter_adjoint, g, name, "n")
            return gn, t.unb(t.mul(g, t.call(dx, n, x, derivative)), x), None

        defjvp(fn, jvp)
        defvjp(fn, vjp)
