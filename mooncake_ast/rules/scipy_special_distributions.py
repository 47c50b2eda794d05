"""The distribution functions of `scipy.special` (issue 12): chdtr, gdtr, pdtr, bdtr, fdtr, their complements,
stdtrit and ndtri_exp, both modes; registered by scipy_special_more.register() (no SciPy import here).
Each is the incomplete gamma or beta function of scipy_special_params.py in other variables:
    chdtr(v, x)        = P(v/2, x/2)                         chdtrc = 1 - chdtr
    gdtr(a, b, x)      = P(b, a x)                           gdtrc  = 1 - gdtr
    pdtr(k, m)         = Q(k + 1, m)                         pdtrc  = 1 - pdtr      (k: whole counts, slope 0)
    bdtr(k, n, p)      = I_(1-p)(n - k, k + 1)               bdtrc  = 1 - bdtr      (k, n: whole counts, slope 0)
    fdtr(d1, d2, x)    = I_w(d1/2, d2/2), w = d1 x / (d2 + d1 x)   fdtrc = 1 - fdtr
    stdtrit(df, p)     = t with stdtr(df, t) = p:  dt/dp = 1 / f(t),  dt/ddf = -d stdtr/ddf / f(t)
    ndtri_exp(y)       = ndtri(e^y):  dx/dy = e^(y - log phi(x))
The derivatives in x come in closed form, those in the parameters (v, a, b, d1, d2, df) by the quadratures of
scipy_special_params.py.
"""
from __future__ import annotations

import math

import numpy as np

FUNCTIONS = ["bdtr", "bdtrc", "chdtr", "chdtrc", "fdtr", "fdtrc", "gdtr", "gdtrc", "ndtri_exp", "pdtr", "pdtrc", "stdtrit"]


def _sp():
    import scipy.special

    return scipy.special


def _f(*vals):
    return [np.asarray(v, dtype=float) for v in vals]


def _s(out):
    out = np.asarray(out, dtype=float)
    return out[()] if out.ndim == 0 else out


def _zero_like(*vals):
    return _s(np.zeros(np.broadcast(*vals).shape))


def chdtr_partials(v, x, y, sign=1.0):
    from .scipy_special_more import gammainc_dx
    from .scipy_special_params import gammainc_da

    v, x = _f(v, x)
    return _s(sign * 0.5 * np.asarray(gammainc_da(v / 2.0, x / 2.0))), _s(sign * 0.5 * np.asarray(gammainc_dx(v / 2.0, x / 2.0)))


def gdtr_partials(a, b, x, y, sign=1.0):
    from .scipy_special_more import gammainc_dx
    from .scipy_special_params import gammainc_da

    a, b, x = _f(a, b, x)
    dz = sign * np.asarray(gammainc_dx(b, a * x))
    return _s(dz * x), _s(sign * np.asarray(gammainc_da(b, a * x))), _s(dz * a)


def pdtr_partials(k, m, y, sign=1.0):
    from .scipy_special_more import gammainc_dx

    k, m = _f(k, m)
    kk = np.floor(k)
    return _zero_like(k, m), _s(np.where(kk >= 0, -sign * np.asarray(gammainc_dx(kk + 1.0, m)), 0.0))


def bdtr_partials(k, n, p, y, sign=1.0):
    from .scipy_special_more import betainc_dx

    k, n, p = _f(k, n, p)
    kk = np.floor(k)
    inside = (kk >= 0) & (kk < n)
    a, b = np.where(inside, n - kk, 1.0), np.where(inside, kk + 1.0, 1.0)
    return _zero_like(k, n, p), _zero_like(k, n, p), _s(np.where(inside, -sign * np.asarray(betainc_dx(a, b, 1.0 - p)), 0.0))


def fdtr_partials(d1, d2, x, y, sign=1.0):
    from .scipy_special_more import betainc_dx
    from .scipy_special_params import betainc_da, betainc_db

    d1, d2, x = _f(d1, d2, x)
    pos = x > 0
    xs = np.where(pos, x, 1.0)
    den = d2 + d1 * xs
    w = d1 * xs / den
    dw = np.asarray(betainc_dx(d1 / 2.0, d2 / 2.0, w))
    dd1 = 0.5 * np.asarray(betainc_da(d1 / 2.0, d2 / 2.0, w)) + dw * xs * d2 / den ** 2
    dd2 = 0.5 * np.asarray(betainc_db(d1 / 2.0, d2 / 2.0, w)) - dw * d1 * xs / den ** 2
    dx = dw * d1 * d2 / den ** 2
    return tuple(_s(sign * np.where(pos, v, 0.0)) for v in (dd1, dd2, dx))


def stdtrit_partials(df, p, y):
    from .scipy_special_extra import stdtr_dt
    from .scipy_special_params import stdtr_ddf

    dens = np.asarray(stdtr_dt(df, y), dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _s(-np.asarray(stdtr_ddf(df, y)) / dens), _s(1.0 / dens)


def ndtri_exp_partials(yy, x):
    yy, x = _f(yy, x)
    with np.errstate(over="ignore"):
        return (_s(np.exp(yy + 0.5 * x * x + 0.5 * math.log(2.0 * math.pi))),)


# (the complements: the same partials with the sign changed; module-level functions, which generated code can name)
def chdtrc_partials(v, x, y):
    return chdtr_partials(v, x, y, -1.0)


def gdtrc_partials(a, b, x, y):
    return gdtr_partials(a, b, x, y, -1.0)


def pdtrc_partials(k, m, y):
    return pdtr_partials(k, m, y, -1.0)


def bdtrc_partials(k, n, p, y):
    return bdtr_partials(k, n, p, y, -1.0)


def fdtrc_partials(d1, d2, x, y):
    return fdtr_partials(d1, d2, x, y, -1.0)


def register(sp, named) -> None:
    from .registry import defjvp, defvjp
    from .scipy_special_elementary import elementwise_partials

    table = {"chdtr": chdtr_partials, "chdtrc": chdtrc_partials, "gdtr": gdtr_partials, "gdtrc": gdtrc_partials,
             "pdtr": pdtr_partials, "pdtrc": pdtrc_partials, "bdtr": bdtr_partials, "bdtrc": bdtrc_partials,
             "fdtr": fdtr_partials, "fdtrc": fdtrc_partials, "stdtrit": stdtrit_partials, "ndtri_exp": ndtri_exp_partials}
    for name, partials in table.items():
        if hasattr(sp, name):
            elementwise_partials(named(name, getattr(sp, name)), partials, defjvp, defvjp)
