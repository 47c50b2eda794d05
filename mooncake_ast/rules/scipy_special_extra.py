"""A few more `scipy.special` functions met in realistic code (p-values, Dawson's integral, Hurwitz zeta),
both modes.  Registered by scipy_special_more.register(); this module never imports SciPy itself.

* betaincc(a, b, x) = 1 - betainc(a, b, x): d/dx = -x^(a-1) (1-x)^(b-1) / B(a, b)  (scipy.stats.pearsonr's
  p-value); a and b refused when differentiated (no closed form), as for betainc.
* stdtr(df, t), Student's t CDF: d/dt = the t density Gamma((df+1)/2) / (sqrt(df pi) Gamma(df/2))
  (1 + t^2/df)^(-(df+1)/2)  (spearmanr's and linregress's p-values); df refused when differentiated.
* dawsn(x) = e^(-x^2) int_0^x e^(t^2) dt: d/dx = 1 - 2 x dawsn(x).
* zeta(x, q), Hurwitz: d/dq = -x zeta(x + 1, q); x refused when differentiated (the Riemann zeta(x), with no
  q, has no rule: no closed form in x).
"""
from __future__ import annotations

import numpy as np

FUNCTIONS = ["betaincc", "dawsn", "stdtr", "zeta"]


def _special():
    import scipy.special

    return scipy.special


def _scalar(x):
    x = np.asarray(x)
    return x[()] if x.ndim == 0 else x


def betaincc_dx(a, b, x):
    from .scipy_special_more import betainc_dx

    return -betainc_dx(a, b, x)


def stdtr_dt(df, t):
    """The density of Student's t with df degrees of freedom at t."""
    sp = _special()
    df = np.asarray(df, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        log = (sp.gammaln((df + 1.0) / 2.0) - sp.gammaln(df / 2.0) - 0.5 * np.log(df * np.pi)
               - (df + 1.0) / 2.0 * np.log1p(np.square(t) / df))
    return _scalar(np.exp(log))


def dawsn_dx(x, y):
    return 1.0 - 2.0 * x * y


def zeta_dq(x, q):
    return -x * _special().zeta(np.add(x, 1.0), q)


def register(sp, named, two, param_vjp) -> None:
    """Register the rules; `two(name, fn, params, dx)` is scipy_special_more's maker of the rules of
    fn(*params, x) with a closed-form d/dx and refused parameters, `param_vjp` its refused adjoint."""
    from .numpy_rules import unary
    from .registry import defjvp, defvjp
    from .scipy_special_more import refuse_parameter

    two("betaincc", named("betaincc", sp.betaincc), ("a", "b"), betaincc_dx)
    two("stdtr", named("stdtr", sp.stdtr), ("df",), stdtr_dt)
    unary(named("dawsn", sp.dawsn), lambda t, y, x: t.call(dawsn_dx, x, y))
    ufuncs = getattr(sp, "_ufuncs", None)
    hurwitz = getattr(ufuncs, "_zeta", None)
    if hurwitz is not None:  # (sp.zeta is Python calling this ufunc: listed as zeta, not `named` for the internal name)
        def zeta_jvp(t, y, x, q, *out):
            dq = t.mul(t.d(q), t.call(zeta_dq, x, q)) if t.d(q) is not None else None
            dx = t.call(refuse_parameter, t.d(x), "zeta", "x") if t.d(x) is not None else None
            return t.add(dq, dx)

        defjvp(hurwitz, zeta_jvp)
        defvjp(hurwitz, lambda t, g, y, x, q, *out: (param_vjp(t, g, x, "zeta", "x"),
                                                     t.unb(t.mul(g, t.call(zeta_dq, x, q)), q)) + (None,) * len(out))
