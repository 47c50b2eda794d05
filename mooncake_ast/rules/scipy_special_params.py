"""Derivatives of the regularized incomplete gamma and beta functions in their parameters (issue 12):
the `a` of gammainc/gammaincc, the `a` and `b` of betainc/betaincc, and through them Student's t CDF in
its degrees of freedom (stdtr), used by scipy.special's rules and by the cdf/sf/ppf of scipy.stats' t,
chi2, gamma, invgamma and beta in their shape parameters.

They have no closed form, so each is one adaptive quadrature (scipy.integrate.quad) per element of an
integral that does:
    dP(a, x)/da   = int_0^x t^(a-1) e^-t (log t - psi(a)) dt / Gamma(a)                  (x <= a + 1)
                  = -int_x^inf t^(a-1) e^-t (log t - psi(a)) dt / Gamma(a)               (x > a + 1: dQ/da = -dP/da)
    dI_x(a, b)/da = int_0^x t^(a-1) (1-t)^(b-1) (log t - psi(a) + psi(a+b)) dt / B(a, b)
    dI_x(a, b)/db = int_0^x t^(a-1) (1-t)^(b-1) (log(1-t) - psi(b) + psi(a+b)) dt / B(a, b)
with I_x(a, b) = 1 - I_(1-x)(b, a) for x beyond the mean a / (a + b) (so the integrand has no peak inside
the interval, and never nears t = 1).  For a < 1 the lower integrals substitute t = x u^(1/a)
(t^(a-1) dt = x^a / a du), which removes the singularity of t^(a-1) at 0; every integrand is evaluated in logarithms (large a and b neither overflow nor underflow the
prefactor separately).  Accuracy is that of quad (relative 1e-11 asked), far below what a finite
difference resolves.  Slow (a quad per element): these are for parameters, which are usually few.
"""
from __future__ import annotations

import math

import numpy as np

_QUAD = dict(epsabs=1e-14, epsrel=1e-11, limit=200)


def _special():
    import scipy.special

    return scipy.special


def _quad(f, lo, hi, points=None):
    import warnings

    from scipy.integrate import quad

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (roundoff warnings where the integral is below epsabs)
        return quad(f, lo, hi, points=points, **_QUAD)[0]


def _scalar(out):
    out = np.asarray(out, dtype=float)
    return out[()] if out.ndim == 0 else out


# ------------------------------------------------------------------ incomplete gamma
def _gammainc_da1(a: float, x: float) -> float:
    sp = _special()
    if not (a > 0) or math.isnan(x):
        return math.nan
    if x <= 0 or math.isinf(x):
        return 0.0
    psi = float(sp.digamma(a))
    lx = math.log(x)
    if x <= a + 1.0 and a < 1.0:  # lower integral, t = x u^(1/a) (t^(a-1) is singular at 0)
        logc = a * lx - float(sp.gammaln(a + 1.0))

        def f(u):
            if u <= 0.0:
                return 0.0
            lu = math.log(u)
            return math.exp(logc - x * math.exp(lu / a)) * (lx + lu / a - psi)

        return _quad(f, 0.0, 1.0)
    lg = float(sp.gammaln(a))
    if x <= a + 1.0:  # lower integral in t: rises to its peak near t = a - 1 >= x - 2, width ~ sqrt(a)

        def h(t):
            if t <= 0.0:
                return 0.0
            lt = math.log(t)
            return math.exp((a - 1.0) * lt - t - lg) * (lt - psi)

        return _quad(h, 0.0, x, _hints(0.0, x, math.sqrt(a)))
    logk = (a - 1.0) * lx - x - lg  # upper integral, t = x + s, the integrand's value at s = 0 factored

    def g(s):
        return math.exp(logk + (a - 1.0) * math.log1p(s / x) - s) * (math.log(x + s) - psi)

    return -_quad(g, 0.0, math.inf)


def _hints(lo, hi, width):
    """Break points for quad where an integrand peaked at `hi` with the given width falls off."""
    pts = [hi - k * width for k in (1.0, 4.0, 16.0)]
    return [p for p in pts if lo < p < hi] or None


def gammainc_da(a, x):
    """d gammainc(a, x) / da, elementwise."""
    a, x = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(x, dtype=float))
    return _scalar(np.vectorize(_gammainc_da1, otypes=[float])(a, x))


def gammaincc_da(a, x):
    return _scalar(-np.asarray(gammainc_da(a, x)))


# ------------------------------------------------------------------ incomplete beta
def _betainc_lower(a: float, b: float, x: float, which: int) -> float:
    """d I_x(a, b) / d (a if which == 0 else b), for 0 < x <= a / (a + b) (the integrand in t rises, or
    barely falls, towards t = x: no peak inside the interval for quad to miss)."""
    sp = _special()
    both = float(sp.digamma(a + b))
    shift = both - float(sp.digamma(a if which == 0 else b))
    lx = math.log(x)
    lb = float(sp.betaln(a, b))
    if a < 1.0:  # t = x u^(1/a): t^(a-1) is singular at 0
        logc = a * lx - math.log(a) - lb

        def f(u):
            if u <= 0.0:
                return 0.0
            lu = math.log(u)
            l1 = math.log1p(-x * math.exp(lu / a))
            return math.exp(logc + (b - 1.0) * l1) * ((lx + lu / a + shift) if which == 0 else (l1 + shift))

        return _quad(f, 0.0, 1.0)

    def h(t):
        if t <= 0.0:
            return 0.0
        lt, l1 = math.log(t), math.log1p(-t)
        return math.exp((a - 1.0) * lt + (b - 1.0) * l1 - lb) * ((lt + shift) if which == 0 else (l1 + shift))

    width = math.sqrt(a * b / (a + b + 1.0)) / (a + b)
    return _quad(h, 0.0, x, _hints(0.0, x, width))


def _betainc_d1(a: float, b: float, x: float, which: int) -> float:
    if not (a > 0 and b > 0) or math.isnan(x):
        return math.nan
    if x <= 0.0 or x >= 1.0:
        return 0.0
    if x <= a / (a + b):
        return _betainc_lower(a, b, x, which)
    return -_betainc_lower(b, a, 1.0 - x, 1 - which)  # I_x(a, b) = 1 - I_(1-x)(b, a)


def betainc_da(a, b, x):
    """d betainc(a, b, x) / da, elementwise."""
    a, b, x = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (a, b, x)))
    return _scalar(np.vectorize(lambda p, q, s: _betainc_d1(p, q, s, 0), otypes=[float])(a, b, x))


def betainc_db(a, b, x):
    """d betainc(a, b, x) / db, elementwise."""
    a, b, x = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (a, b, x)))
    return _scalar(np.vectorize(lambda p, q, s: _betainc_d1(p, q, s, 1), otypes=[float])(a, b, x))


def betaincc_da(a, b, x):
    return _scalar(-np.asarray(betainc_da(a, b, x)))


def betaincc_db(a, b, x):
    return _scalar(-np.asarray(betainc_db(a, b, x)))


# ------------------------------------------------------------------ Student's t in df
def stdtr_ddf(df, t):
    """d stdtr(df, t) / d df.  With w = df / (df + t^2): stdtr = 1 - I_w(df/2, 1/2) / 2 for t > 0 and
    I_w(df/2, 1/2) / 2 for t < 0, so d/ddf = -+ (dI/da / 2 + dI/dx dw/ddf) / 2, dw/ddf = t^2 / (df + t^2)^2
    (0 at t = 0, where stdtr is 1/2 for every df)."""
    from .scipy_special_more import betainc_dx

    df, t = np.broadcast_arrays(np.asarray(df, dtype=float), np.asarray(t, dtype=float))
    t2 = t * t
    with np.errstate(divide="ignore", invalid="ignore"):
        w = df / (df + t2)
        di = 0.5 * np.asarray(betainc_da(df / 2.0, 0.5, w)) + np.asarray(betainc_dx(df / 2.0, 0.5, w)) * t2 / np.square(df + t2)
    return _scalar(np.where(t == 0, 0.0, -0.5 * np.sign(t) * di))


# ------------------------------------------------------------------ the inverses, in their parameters
def gammaincinv_da(a, p):
    """y = gammaincinv(a, p) solves P(a, y) = p: dy/da = -(dP/da) / (dP/dy) at y."""
    from .scipy_special_more import gammainc_dx

    y = _special().gammaincinv(a, p)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _scalar(np.where(np.isfinite(y) & (y > 0), -np.asarray(gammainc_da(a, y)) / gammainc_dx(a, y), 0.0))


def gammainccinv_da(a, p):
    """Q(a, y) = p, Q = 1 - P: the same ratio (both partials change sign)."""
    from .scipy_special_more import gammainc_dx

    y = _special().gammainccinv(a, p)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _scalar(np.where(np.isfinite(y) & (y > 0), -np.asarray(gammainc_da(a, y)) / gammainc_dx(a, y), 0.0))


def _betaincinv_d(a, b, p, which):
    from .scipy_special_more import betainc_dx

    y = _special().betaincinv(a, b, p)
    d = betainc_da(a, b, y) if which == 0 else betainc_db(a, b, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _scalar(np.where((y > 0) & (y < 1), -np.asarray(d) / betainc_dx(a, b, y), 0.0))


def betaincinv_da(a, b, p):
    """y = betaincinv(a, b, p) solves I_y(a, b) = p: dy/da = -(dI/da) / (dI/dy) at y (0 at y = 0 or 1)."""
    return _betaincinv_d(a, b, p, 0)


def betaincinv_db(a, b, p):
    return _betaincinv_d(a, b, p, 1)


# (function -> parameter -> helper of fn(*params, x)): scipy_special_more's rules use these
PARAMS = {"gammainc": {"a": gammainc_da}, "gammaincc": {"a": gammaincc_da},
          "betainc": {"a": betainc_da, "b": betainc_db}, "betaincc": {"a": betaincc_da, "b": betaincc_db},
          "stdtr": {"df": stdtr_ddf}, "gammaincinv": {"a": gammaincinv_da}, "gammainccinv": {"a": gammainccinv_da},
          "betaincinv": {"a": betaincinv_da, "b": betaincinv_db}}


def _huber_params() -> None:
    from .scipy_special_lang import huber_dd, pseudo_huber_dd

    PARAMS["huber"] = {"delta": huber_dd}  # (closed forms: scipy_special_lang.py)
    PARAMS["pseudo_huber"] = {"delta": pseudo_huber_dd}


_huber_params()
