"""More rules of `scipy.special` (issue 12): incomplete gamma/beta, Bessel functions, rgamma, gammasgn.

Registered by scipy_rules.register() (so, like the others, only once the user's code has imported
scipy.special); this module never imports SciPy itself.  Only derivatives SciPy gives in closed
form are provided: with respect to x for the incomplete functions, and with respect to the
argument (not the order) for the Bessel functions; the `a`/`b` of betainc and betaincc, the `a` of
gammainc and gammaincc and the df of stdtr by quadrature (scipy_special_params.py).  A differentiated
parameter without either (the order `v` of jv/iv/ive) is refused when its tangent or adjoint is
nonzero: a zero or a guessed value would be a wrong answer.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

from .scipy_special_distributions import FUNCTIONS as _DISTRIBUTIONS
from .scipy_special_extra import FUNCTIONS as _EXTRA
from .scipy_special_params import PARAMS
from .scipy_special_lang import FUNCTIONS as _LANG
from .scipy_special_harmonics import FUNCTIONS as _HARMONICS
from .scipy_special_realistic import FUNCTIONS as _REALISTIC

FUNCTIONS = ["betainc", "gammainc", "gammaincc", "gammasgn", "iv", "ive", "j0", "j1", "jv", "kn", "rgamma",
             "y0", "y1", "yn"] + _REALISTIC + _EXTRA + _LANG + _HARMONICS + _DISTRIBUTIONS


def _special():
    import scipy.special

    return scipy.special


def _scalar(out):
    return out[()] if np.ndim(out) == 0 and isinstance(out, np.ndarray) else out


def _all_zero(d) -> bool:
    if d is NoTangent or d is None:
        return True
    try:
        return not np.any(d)
    except (TypeError, ValueError):
        return False


def refuse_parameter(d, fn: str, param: str):
    """The tangent (or adjoint) contribution of a parameter with no closed-form derivative: nothing
    when it is zero, otherwise an honest refusal."""
    if _all_zero(d):
        return NoTangent
    raise NotImplementedError(_parameter_message(fn, param))


class RefusedAdjoint:
    """The adjoint of a parameter whose derivative has no closed form, in reverse mode, where the
    pullback cannot always tell whether the parameter is differentiated (a constant captured by a
    closure gets adjoint storage; a call dispatched at run time sees no activity): discarded unread
    when the parameter is a constant; any use of it (adding it to another adjoint, reading it as a
    number or an array) raises the refusal.  Never a zero standing for an unknown derivative."""

    __slots__ = ("message",)
    __array_priority__ = 1e6
    refuses_use = True  # (api._to_user raises when a user asks for this adjoint)

    def __init__(self, message):
        where = _user_location()  # (raised later, where the adjoint is used: say now which line of the user's made it)
        self.message = f"{where}: {message}" if where else message

    def _refuse(self, *args, **kwargs):
        raise NotImplementedError(self.message)

    __add__ = __radd__ = __iadd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _refuse
    __neg__ = __float__ = __int__ = __index__ = __bool__ = __len__ = __iter__ = __array__ = __getitem__ = _refuse
    __array_ufunc__ = __array_function__ = _refuse

    def __repr__(self):
        return f"<refused: {self.message}>"


def _user_location():
    """`file.py:12` of the user's statement whose pullback is running (the nearest generated frame made from the
    user's code, not from a library's), or None."""
    import os
    import sys

    from ..tracebacks import _generated_source, _is_library, _user_line

    f = sys._getframe(2)
    while f is not None:
        name = f.f_code.co_filename
        src = _generated_source(name)
        if src and not _is_library(src) and "site-packages" not in src:
            loc = _user_line(name, f.f_lineno)
            if loc:
                return f"{os.path.basename(loc[0])}:{loc[1]}"
        f = f.f_back
    return None


def _parameter_message(fn, param):
    return (f"derivative of scipy.special.{fn} with respect to its parameter {param!r} "
            f"(no closed form in SciPy); only the derivative in {_SUPPORTED.get(fn, 'x')} is supported")


_SUPPORTED = {"zeta": "q"}  # (the argument whose derivative is given, where it is not x)


def refused_parameter_adjoint(g, fn: str, param: str):
    """Reverse mode's share of refuse_parameter: a RefusedAdjoint, unless the result's adjoint is zero."""
    if _all_zero(g):
        return NoTangent
    return RefusedAdjoint(_parameter_message(fn, param))


# ------------------------------------------------------------------ derivatives in x
def betainc_dx(a, b, x):
    """d I_x(a, b)/dx = x^(a-1) (1-x)^(b-1) / B(a, b), 0 outside (0, 1)."""
    sp = _special()
    x = np.asarray(x, dtype=float)
    inside = (x > 0) & (x < 1)
    xs = np.where(inside, x, 0.5)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.exp(np.subtract(a, 1.0) * np.log(xs) + np.subtract(b, 1.0) * np.log1p(-xs) - sp.betaln(a, b))
    return _scalar(np.where(inside, out, 0.0))


def gammainc_dx(a, x):
    """d P(a, x)/dx = x^(a-1) e^(-x) / Gamma(a) for x > 0, 0 below."""
    sp = _special()
    x = np.asarray(x, dtype=float)
    pos = x > 0
    xs = np.where(pos, x, 1.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = np.exp(np.subtract(a, 1.0) * np.log(xs) - xs - sp.gammaln(a))
    return _scalar(np.where(pos, out, 0.0))


def gammaincc_dx(a, x):
    return -gammainc_dx(a, x)


def jv_dx(v, x):
    sp = _special()
    return 0.5 * (sp.jv(np.subtract(v, 1), x) - sp.jv(np.add(v, 1), x))


def kn_dx(n, x):
    """K_n' = -(K_{n-1} + K_{n+1}) / 2 (kv of the neighbouring orders: K_{-1} = K_1)."""
    sp = _special()
    return -0.5 * (sp.kv(np.subtract(n, 1), x) + sp.kv(np.add(n, 1), x))


def yn_dx(n, x):
    sp = _special()
    return 0.5 * (sp.yn(np.subtract(n, 1), x) - sp.yn(np.add(n, 1), x))


def iv_dx(v, x):
    sp = _special()
    return 0.5 * (sp.iv(np.subtract(v, 1), x) + sp.iv(np.add(v, 1), x))


def ive_dx(v, x, y):
    """ive(v, x) = iv(v, x) exp(-|Re x|): (ive(v-1) + ive(v+1))/2 - sign(Re x) ive(v, x) (slope of |.| 0 at 0)."""
    sp = _special()
    return 0.5 * (sp.ive(np.subtract(v, 1), x) + sp.ive(np.add(v, 1), x)) - np.sign(np.real(x)) * y


def ive_tangent(v, x, y, dx):
    """The tangent of ive(v, x): for complex x, exp(-|Re x|) is not holomorphic, so the sign term
    takes Re(dx) (a real-linear tangent, not a complex slope times dx)."""
    if dx is NoTangent:
        return NoTangent
    sp = _special()
    holo = 0.5 * (sp.ive(np.subtract(v, 1), x) + sp.ive(np.add(v, 1), x))
    return holo * dx - np.sign(np.real(x)) * y * np.real(dx)


def j0_dx(x):
    return -_special().j1(x)


def j1_dx(x):
    sp = _special()
    return 0.5 * (sp.j0(x) - sp.jv(2, x))


def y0_dx(x):
    return -_special().y1(x)


def y1_dx(x):
    sp = _special()
    return 0.5 * (sp.y0(x) - sp.yn(2, x))


def rgamma_dx(x, y):
    """d(1/Gamma(x)) = -psi(x)/Gamma(x); at the poles x = -n (n = 0, 1, ...) it is (-1)^n n!."""
    sp = _special()
    if np.iscomplexobj(x):  # (complex poles are not special-cased)
        return -y * sp.digamma(x)
    x = np.asarray(x, dtype=float)
    pole = (x <= 0) & (x == np.floor(x))
    n = np.where(pole, -x, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        smooth = -y * sp.digamma(np.where(pole, 0.5, x))
    return _scalar(np.where(pole, np.where(n % 2 == 0, 1.0, -1.0) * sp.gamma(n + 1.0), smooth))


def gammasgn_zero(x):
    """gammasgn is piecewise constant: slope 0 (the jumps at the poles count as zero)."""
    return NoTangent


# ------------------------------------------------------------------ registration
def register(sp, named) -> None:
    """Register the rules (scipy_rules.register calls this with scipy.special and its `named`)."""
    from .numpy_rules import unary
    from .registry import defjvp, defvjp

    def param_jvp(t, fn, d, name):
        return None if d is None else t.call(refuse_parameter, d, fn, name)

    def param_vjp(t, g, op, fn, name):
        needs = getattr(t, "needs", None)
        if needs is not None and not needs(op):
            return None
        return t.call(refused_parameter_adjoint, g, fn, name)

    # (name, parameters before x (refused when differentiated, or integers), helper of d/dx, passes y)
    two = [("betainc", ("a", "b"), betainc_dx, False), ("gammainc", ("a",), gammainc_dx, False),
           ("gammaincc", ("a",), gammaincc_dx, False), ("jv", ("v",), jv_dx, False), ("iv", ("v",), iv_dx, False),
           ("ive", ("v",), ive_dx, True), ("yn", ("n",), yn_dx, False),
           ("kn", ("n",), kn_dx, False)]

    def make(name, fn, params, dx, with_y=False):
        """The rules of fn(*params, x): a closed-form d/dx (`dx`); a parameter with a derivative helper in
        scipy_special_params.PARAMS (by quadrature) is differentiated, the others refused when differentiated."""
        k = len(params)
        pdx = PARAMS.get(name, {})

        def jvp(t, y, *ops, name=name, params=params, dx=dx, with_y=with_y, k=k):
            x = ops[k]
            if name == "ive":  # complex x: see ive_tangent
                out = t.call(ive_tangent, *ops[:k], x, y, t.d(x)) if t.d(x) is not None else None
            else:
                out = t.mul(t.d(x), t.call(dx, *ops[:k], x, y) if with_y else t.call(dx, *ops[:k], x))
            for p, op in zip(params, ops[:k]):
                if p in pdx:
                    out = t.add(out, t.mul(t.d(op), t.call(pdx[p], *ops[:k], x)) if t.d(op) is not None else None)
                else:
                    out = t.add(out, param_jvp(t, name, t.d(op), p))
            return out

        def vjp(t, g, y, *ops, name=name, params=params, dx=dx, with_y=with_y, k=k):
            x = ops[k]
            slope = t.call(dx, *ops[:k], x, y) if with_y else t.call(dx, *ops[:k], x)
            return tuple(param_adjoint(t, g, op, name, p, pdx, ops[:k], x) for p, op in zip(params, ops[:k])) + (
                t.unb(t.mul(g, slope), x),)

        def param_adjoint(t, g, op, name, p, pdx, params, x):
            if p not in pdx:
                return param_vjp(t, g, op, name, p)
            needs = getattr(t, "needs", None)
            if needs is not None and not needs(op):
                return None
            return t.unb(t.mul(g, t.call(pdx[p], *params, x)), op)

        defjvp(fn, jvp)
        defvjp(fn, vjp)

    for name, params, dx, with_y in two:
        make(name, named(name, getattr(sp, name)), params, dx, with_y)

    from . import scipy_special_extra

    scipy_special_extra.register(sp, named, make, param_vjp)  # (betaincc, stdtr, dawsn, zeta)
    from . import scipy_special_lang

    scipy_special_lang.register(sp, named, make)  # (exp2, cbrt, loggamma, expi, spence, yv, hyp1f1, hyp2f1, ...)
    from . import scipy_special_harmonics

    scipy_special_harmonics.register(sp, named)  # (sph_harm_y)

    from . import scipy_special_realistic

    scipy_special_realistic.register(sp, named)  # (log1p, expm1, Bessel K, exponential integrals, binom, boxcox, ...)
    from . import scipy_special_distributions

    scipy_special_distributions.register(sp, named)  # (chdtr, gdtr, pdtr, bdtr, fdtr, stdtrit, ndtri_exp, ...)
    unary(named("j0", sp.j0), lambda t, y, x: t.call(j0_dx, x))
    unary(named("j1", sp.j1), lambda t, y, x: t.call(j1_dx, x))
    unary(named("y0", sp.y0), lambda t, y, x: t.call(y0_dx, x))
    unary(named("y1", sp.y1), lambda t, y, x: t.call(y1_dx, x))
    unary(named("rgamma", sp.rgamma), lambda t, y, x: t.call(rgamma_dx, x, y))
    gammasgn = named("gammasgn", sp.gammasgn)
    defjvp(gammasgn, lambda t, y, x: None)
    defvjp(gammasgn, lambda t, g, y, x: (None,))
