"""More `scipy.special` functions with closed-form derivatives (issue 12), both modes; registered by
scipy_special_more.register(); this module never imports SciPy itself.

    exp2' = ln 2 exp2          cbrt' = 1 / (3 cbrt^2)       loggamma' = digamma (real x)
    expi' = e^x / x            spence(z)' = log(z) / (1 - z)
    yv(v, x)' = (yv(v-1, x) - yv(v+1, x)) / 2              (v refused when differentiated)
    hyp1f1(a, b, x)' = a / b hyp1f1(a+1, b+1, x)            (a, b refused)
    hyp2f1(a, b, c, x)' = a b / c hyp2f1(a+1, b+1, c+1, x)  (a, b, c refused)
    eval_hermite(n, x)' = 2 n H_{n-1}(x)     eval_chebyt(n, x)' = n U_{n-1}(x)
    eval_legendre(n, x)' = n (x P_n - P_{n-1}) / (x^2 - 1)  (n (n+1) / 2 x^(n+1) at x = +-1)
    huber(d, r)' = r where |r| <= d, else d sign(r);        d/dd = 0 where |r| <= d, else |r| - d
    pseudo_huber(d, r)' = r / s, s = sqrt(1 + (r/d)^2);     d/dd = 2 d (s - 1) - r^2 / (d s)
    (in d: NaN for d < 0, where SciPy's value is inf, and for pseudo_huber at d = 0)
"""
from __future__ import annotations

import numpy as np

from .scipy_special_elementary import FUNCTIONS as _ELEMENTARY
from .scipy_special_integrals import FUNCTIONS as _INTEGRALS

FUNCTIONS = ["cbrt", "eval_chebyt", "eval_hermite", "eval_legendre", "exp2", "expi", "huber", "hyp1f1", "hyp2f1",
             "loggamma", "pseudo_huber", "spence", "yv"] + _ELEMENTARY + _INTEGRALS


def _sp():
    import scipy.special

    return scipy.special


def _s(v):
    v = np.asarray(v)
    return v[()] if v.ndim == 0 else v


def exp2_dx(x, y):
    return np.log(2.0) * y


def cbrt_dx(x, y):
    with np.errstate(divide="ignore"):
        return _s(1.0 / (3.0 * np.square(y)))


def loggamma_dx(x, y):
    if np.iscomplexobj(x):
        raise NotImplementedError("derivative of scipy.special.loggamma of complex numbers")
    return _sp().digamma(x)


def expi_dx(x, y):
    with np.errstate(divide="ignore"):
        return _s(np.exp(x) / x)


def spence_dx(z, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return _s(np.where(np.equal(z, 1.0), -1.0, np.log(z) / np.where(np.equal(z, 1.0), 2.0, 1.0 - np.asarray(z))))


def yv_dx(v, x):
    sp = _sp()
    return _s(0.5 * (sp.yv(np.subtract(v, 1.0), x) - sp.yv(np.add(v, 1.0), x)))


def hyp1f1_dx(a, b, x):
    return _s(np.divide(a, b) * _sp().hyp1f1(np.add(a, 1.0), np.add(b, 1.0), x))


def hyp2f1_dx(a, b, c, x):
    return _s(np.multiply(a, b) / np.asarray(c, dtype=float) * _sp().hyp2f1(np.add(a, 1.0), np.add(b, 1.0), np.add(c, 1.0), x))


def hermite_dx(n, x):
    n = np.asarray(n)
    return _s(2.0 * n * _sp().eval_hermite(np.maximum(n - 1, 0), x))


def chebyt_dx(n, x):
    n = np.asarray(n)
    return _s(n * _sp().eval_chebyu(np.maximum(n - 1, 0), x))


def legendre_dx(n, x):
    sp = _sp()
    n, x = _real(n), _real(x)
    edge = np.isclose(np.abs(x), 1.0)
    safe = np.where(edge, 0.5, x)
    inner = n * (safe * sp.eval_legendre(n, safe) - sp.eval_legendre(np.maximum(n - 1, 0), safe)) / (safe * safe - 1.0)
    return _s(np.where(edge, n * (n + 1.0) / 2.0 * np.power(np.where(edge, x, 1.0), n + 1.0), inner))


def huber_dr(d, r):
    r = _real(r)
    return _s(np.where(np.abs(r) <= d, r, d * np.sign(r)))


def pseudo_huber_dr(d, r):
    return _s(_real(r) / np.sqrt(1.0 + np.square(np.divide(r, d))))


def huber_dd(d, r):
    d, r = _real(d), _real(r)
    return _s(np.where(d < 0, np.nan, np.where(np.abs(r) <= d, 0.0, np.abs(r) - d)))


def pseudo_huber_dd(d, r):
    d, r = _real(d), _real(r)
    ok = d > 0
    safe = np.where(ok, d, 1.0)
    s = np.sqrt(1.0 + np.square(r / safe))
    return _s(np.where(ok, 2.0 * safe * (s - 1.0) - np.square(r) / (safe * s), np.nan))


def _real(a):
    """a as floats; complex numbers refused (these formulas are the real-valued functions' derivatives)."""
    if np.iscomplexobj(a):
        raise NotImplementedError("derivative of a scipy.special function of complex numbers (real formulas only)")
    return np.asarray(a, dtype=float)


def register(sp, named, make) -> None:
    """Register the rules (`make` is scipy_special_more's maker of the rules of fn(*params, x))."""
    from .numpy_rules import unary

    for name, dx in (("exp2", exp2_dx), ("cbrt", cbrt_dx), ("loggamma", loggamma_dx), ("expi", expi_dx),
                     ("spence", spence_dx)):
        if hasattr(sp, name):
            unary(named(name, getattr(sp, name)), lambda t, y, x, dx=dx: t.call(dx, x, y))
    for name, params, dx in (("yv", ("v",), yv_dx), ("hyp1f1", ("a", "b"), hyp1f1_dx),
                             ("hyp2f1", ("a", "b", "c"), hyp2f1_dx), ("eval_hermite", ("n",), hermite_dx),
                             ("eval_chebyt", ("n",), chebyt_dx), ("eval_legendre", ("n",), legendre_dx),
                             ("huber", ("delta",), huber_dr), ("pseudo_huber", ("delta",), pseudo_huber_dr)):
        if hasattr(sp, name):
            make(name, named(name, getattr(sp, name)), params, dx)
    from . import scipy_special_elementary, scipy_special_integrals

    scipy_special_elementary.register(sp, named, make)  # (cosm1, exprel, erfi, inv_boxcox, poch, lambertw, ...)
    scipy_special_integrals.register(sp, named, make)  # (airy, fresnel, sici, shichi, struve, owens_t, ellip*inc, ...)
