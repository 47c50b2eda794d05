"""Rules of `scipy.special`, both modes; registered once the user's code has imported it.

SciPy is not a dependency of mooncake_ast, and importing it costs about half a second: this
module never imports it.  `registry.lookup` (and `all_rules`) call `register()` the first time
they run after `scipy.special` appears in `sys.modules`; until then `REGISTERED` is empty
(`FUNCTIONS` always says what would be registered, for docs/rules.md).  The derivative helpers are
module-level functions, so generated code can call them as `_mc.<name>`.

Conventions: `xlogy(x, y)`/`xlog1py(x, y)` take slope 0 in y where x == 0 (where the function is
0 whatever y is); `entr` has an infinite slope at 0; `gamma`/`digamma`/`gammaln` poles give
infinities; `logsumexp`'s `b=` is differentiated too, and `return_sign=True` (the value log|sum|, its sign's slope 0).
"""
from __future__ import annotations

import math

import numpy as np

from ..tangents import NoTangent
from .numpy_common import _inexact
from .registry import defjvp, defvjp
from .scipy_special_more import FUNCTIONS as MORE_FUNCTIONS


def _special():
    """scipy.special, imported when a helper first runs (by then the user's code has imported it)."""
    import scipy.special

    return scipy.special

# (name in scipy.special, modes): what this module registers when SciPy is installed.
FUNCTIONS = [
    "beta", "betaln", "digamma", "entr", "erf", "erfc", "erfcinv", "erfcx", "erfinv", "expit", "gamma",
    "gammaln", "i0", "i1", "log_expit", "log_ndtr", "log_softmax", "logit", "logsumexp", "ndtr", "ndtri",
    "polygamma", "softmax", "softplus", "xlog1py", "xlogy",
]
FUNCTIONS = sorted(FUNCTIONS + MORE_FUNCTIONS)  # (scipy_special_more registers the rest)
REGISTERED: dict = {}  # callable -> its name in scipy.special (empty without SciPy)

_SQRT_PI = math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)


# ------------------------------------------------------------------ derivative helpers (elementwise)
def expit_deriv(y):
    return y * (1.0 - y)


def logit_deriv(x):
    return 1.0 / (x * (1.0 - x))


def log_expit_deriv(x):
    return _special().expit(np.negative(x))


def softplus_deriv(x):
    return _special().expit(x)


def erf_deriv(x):
    return (2.0 / _SQRT_PI) * np.exp(-np.square(x))


def erfc_deriv(x):
    return (-2.0 / _SQRT_PI) * np.exp(-np.square(x))


def erfinv_deriv(y):
    return (_SQRT_PI / 2.0) * np.exp(np.square(y))


def erfcinv_deriv(y):
    return (-_SQRT_PI / 2.0) * np.exp(np.square(y))


def erfcx_deriv(x, y):
    """erfcx(x) = exp(x^2) erfc(x): 2 x erfcx(x) - 2 / sqrt(pi)."""
    return 2.0 * x * y - 2.0 / _SQRT_PI


def ndtr_deriv(x):
    return np.exp(-0.5 * np.square(x)) / _SQRT_2PI


def ndtri_deriv(y):
    return _SQRT_2PI * np.exp(0.5 * np.square(y))


def log_ndtr_deriv(x, y):
    """d log Phi(x) = phi(x) / Phi(x), computed as exp(log phi(x) - log Phi(x)) (stable in the tails)."""
    return np.exp(-0.5 * np.square(x) - y) / _SQRT_2PI


def gammaln_deriv(x):
    return _special().digamma(x)


def gamma_deriv(x, y):
    return y * _special().digamma(x)


def digamma_deriv(x):
    return _special().polygamma(1, x)


def polygamma_deriv(n, x):
    return _special().polygamma(np.add(n, 1), x)


def entr_deriv(x):
    """entr(x) = -x log x (x > 0), 0 at 0, -inf below: slope -(log x + 1), +inf at 0, 0 below."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(x > 0, -(np.log(np.where(x > 0, x, 1.0)) + 1.0), np.where(x == 0, np.inf, 0.0))
    return out[()] if out.ndim == 0 else out


def i0_deriv(x):
    return _special().i1(x)


def i1_deriv(x, y):
    """I1'(x) = I0(x) - I1(x) / x, and 1/2 at x == 0."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(x == 0, 0.5, _special().i0(x) - y / np.where(x == 0, 1.0, x))
    return out[()] if out.ndim == 0 else out


def xlogy_dx(x, y):
    return np.log(y)


def xlogy_dy(x, y):
    """x / y, and 0 where x == 0 (xlogy(0, y) is 0 for every y)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(np.equal(x, 0), 0.0, np.divide(x, y))
    return out[()] if np.ndim(out) == 0 else out


def xlog1py_dx(x, y):
    return np.log1p(y)


def xlog1py_dy(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(np.equal(x, 0), 0.0, np.divide(x, np.add(1.0, y)))
    return out[()] if np.ndim(out) == 0 else out


def betaln_da(a, b):
    return _special().digamma(a) - _special().digamma(np.add(a, b))


def beta_da(a, b, y):
    return y * (_special().digamma(a) - _special().digamma(np.add(a, b)))


# ------------------------------------------------------------------ reductions over an axis
def _lse_weights(a, axis, b, keepdims, return_sign=False):
    """d logsumexp(a, b=b)/da = b exp(a) / sum(b exp(a)) (softmax when b is None), and
    d/db = exp(a) / sum(b exp(a)); both with the reduced axes kept.  With return_sign=True the value is
    log|S| (S = sum(b exp(a)), possibly negative), whose derivative is dS / S: the same weights, times sign(S)."""
    a = _inexact(a)
    if return_sign and (np.iscomplexobj(a) or np.iscomplexobj(b)):
        raise NotImplementedError("derivative of scipy.special.logsumexp with return_sign=True of complex values (the "
                                  "sign is then a phase that moves): real values only")
    if return_sign:
        y, sign = _special().logsumexp(a, axis=axis, b=b, keepdims=True, return_sign=True)
        e = np.exp(a - y) * sign
    else:
        y = _special().logsumexp(a, axis=axis, b=b, keepdims=True)
        e = np.exp(a - y)
    return (e if b is None else np.multiply(b, e)), e


def _lse_reduce(v, axis, keepdims):
    out = np.sum(v, axis=axis, keepdims=keepdims)
    return out[()] if np.ndim(out) == 0 else out


def logsumexp_tangent(a, da, axis=None, b=None, keepdims=False, return_sign=False, db=NoTangent):
    """d logsumexp(a, b) = sum(w_a * da + w_b * db) over the axes (with return_sign, the sign's tangent is 0)."""
    wa, wb = _lse_weights(a, axis, b, keepdims, return_sign)
    out = 0.0
    if da is not NoTangent and da is not None:
        out = out + wa * da
    if db is not NoTangent and db is not None:
        out = out + np.broadcast_to(wb, np.broadcast_shapes(np.shape(wb), np.shape(db))) * db
    dy = _lse_reduce(np.broadcast_to(out, np.shape(wa)) if np.ndim(out) == 0 else out, axis, keepdims)
    return (dy, np.zeros_like(dy)) if return_sign else dy


def _lse_gk(g, axis, keepdims):
    return np.asarray(g) if keepdims or axis is None else np.expand_dims(g, axis)


def _lse_g(g, return_sign):
    """The adjoint of the value (with return_sign, the first of the pair's: the sign's is dropped, its slope 0)."""
    if return_sign and isinstance(g, (tuple, list)):
        g = g[0]
    return NoTangent if g is None else g


def logsumexp_adjoint(a, g, axis=None, b=None, keepdims=False, return_sign=False):
    g = _lse_g(g, return_sign)
    if g is NoTangent:
        return NoTangent
    return _lse_weights(a, axis, b, keepdims, return_sign)[0] * _lse_gk(g, axis, keepdims)


logsumexp_adjoint.dense_in_dense = True  # type: ignore[attr-defined]  # (an array of a's shape for a real g)


def logsumexp_b_adjoint(a, g, axis=None, b=None, keepdims=False, return_sign=False):
    """The adjoint of b (summed back to b's shape)."""
    from ..reverse.adjoints import unbroadcast

    g = _lse_g(g, return_sign)
    if g is NoTangent:
        return NoTangent
    return unbroadcast(_lse_weights(a, axis, b, keepdims, return_sign)[1] * _lse_gk(g, axis, keepdims), b)


def softmax_tangent(y, dx, axis=None):
    """y = softmax(x): dy = y (dx - sum(y dx))."""
    return y * (dx - np.sum(y * dx, axis=axis, keepdims=True))


def softmax_adjoint(y, g, axis=None):
    if g is NoTangent:
        return NoTangent
    return y * (g - np.sum(g * y, axis=axis, keepdims=True))


def log_softmax_tangent(y, dx, axis=None):
    """y = log softmax(x): dy = dx - sum(softmax(x) dx)."""
    return dx - np.sum(np.exp(y) * dx, axis=axis, keepdims=True)


def log_softmax_adjoint(y, g, axis=None):
    if g is NoTangent:
        return NoTangent
    return g - np.exp(y) * np.sum(g, axis=axis, keepdims=True)


# ------------------------------------------------------------------ registration
def register() -> None:
    """Register the rules of scipy.special (registry.lookup calls this once scipy.special is imported)."""
    from .numpy_rules import unary

    sp = _special()

    def named(name, fn):
        REGISTERED[fn] = name
        return fn

    def elementwise(name, dfdx):
        unary(named(name, getattr(sp, name)), dfdx)

    elementwise("expit", lambda t, y, x: t.call(expit_deriv, y))
    elementwise("logit", lambda t, y, x: t.call(logit_deriv, x))
    elementwise("log_expit", lambda t, y, x: t.call(log_expit_deriv, x))
    elementwise("erf", lambda t, y, x: t.call(erf_deriv, x))
    elementwise("erfc", lambda t, y, x: t.call(erfc_deriv, x))
    from .registry import defcomplex

    defcomplex(sp.erf, sp.erfc)  # holomorphic: unary's conj(f'(z)) g is right for complex z (README "Complex numbers")
    elementwise("erfinv", lambda t, y, x: t.call(erfinv_deriv, y))
    elementwise("erfcinv", lambda t, y, x: t.call(erfcinv_deriv, y))
    elementwise("erfcx", lambda t, y, x: t.call(erfcx_deriv, x, y))
    elementwise("ndtr", lambda t, y, x: t.call(ndtr_deriv, x))
    elementwise("ndtri", lambda t, y, x: t.call(ndtri_deriv, y))
    elementwise("log_ndtr", lambda t, y, x: t.call(log_ndtr_deriv, x, y))
    elementwise("gammaln", lambda t, y, x: t.call(gammaln_deriv, x))
    elementwise("gamma", lambda t, y, x: t.call(gamma_deriv, x, y))
    elementwise("digamma", lambda t, y, x: t.call(digamma_deriv, x))
    from .numpy_elementwise import unary_strong

    # (entr's slope is +inf at 0, where its value is 0: an exact zero tangent or adjoint gives 0 there)
    unary_strong(named("entr", sp.entr), lambda t, y, x: t.call(entr_deriv, x))
    elementwise("i0", lambda t, y, x: t.call(i0_deriv, x))
    elementwise("i1", lambda t, y, x: t.call(i1_deriv, x, y))
    if hasattr(sp, "softplus"):
        elementwise("softplus", lambda t, y, x: t.call(softplus_deriv, x))

    polygamma = named("polygamma", sp.polygamma)
    defjvp(polygamma, lambda t, y, n, x: t.mul(t.d(x), t.call(polygamma_deriv, n, x)))
    defvjp(polygamma, lambda t, g, y, n, x: (None, t.unb(t.mul(g, t.call(polygamma_deriv, n, x)), x)))

    for name, dx, dy in (("xlogy", xlogy_dx, xlogy_dy), ("xlog1py", xlog1py_dx, xlog1py_dy)):
        fn = named(name, getattr(sp, name))
        defjvp(fn, lambda t, y, a, b, dx=dx, dy=dy, **k: t.add(t.mul(t.d(a), t.call(dx, a, b)), t.mul(t.d(b), t.call(dy, a, b))))
        defvjp(fn, lambda t, g, y, a, b, dx=dx, dy=dy, **k: (t.unb(t.mul(g, t.call(dx, a, b)), a), t.unb(t.mul(g, t.call(dy, a, b)), b)))

    betaln = named("betaln", sp.betaln)
    defjvp(betaln, lambda t, y, a, b, **k: t.add(t.mul(t.d(a), t.call(betaln_da, a, b)), t.mul(t.d(b), t.call(betaln_da, b, a))))
    defvjp(betaln, lambda t, g, y, a, b, **k: (t.unb(t.mul(g, t.call(betaln_da, a, b)), a), t.unb(t.mul(g, t.call(betaln_da, b, a)), b)))
    beta = named("beta", sp.beta)
    defjvp(beta, lambda t, y, a, b, **k: t.add(t.mul(t.d(a), t.call(beta_da, a, b, y)), t.mul(t.d(b), t.call(beta_da, b, a, y))))
    defvjp(beta, lambda t, g, y, a, b, **k: (t.unb(t.mul(g, t.call(beta_da, a, b, y)), a), t.unb(t.mul(g, t.call(beta_da, b, a, y)), b)))

    lse = named("logsumexp", sp.logsumexp)
    defjvp(lse, lambda t, y, a, axis=None, b=None, keepdims=False, return_sign=False:
           t.call(logsumexp_tangent, a, t.dz(a), axis, b, keepdims, return_sign, t.dz(b))
           if t.d(a) is not None or t.d(b) is not None else None)
    defvjp(lse, lambda t, g, y, a, axis=None, b=None, keepdims=False, return_sign=False:
           (t.call(logsumexp_adjoint, a, g, axis, b, keepdims, return_sign), None,
            None if b is None or (getattr(t, "needs", None) is not None and not t.needs(b))
            else t.call(logsumexp_b_adjoint, a, g, axis, b, keepdims, return_sign)))
    softmax = named("softmax", sp.softmax)
    defjvp(softmax, lambda t, y, x, axis=None: t.call(softmax_tangent, y, t.d(x), axis) if t.d(x) is not None else None)
    defvjp(softmax, lambda t, g, y, x, axis=None: (t.call(softmax_adjoint, y, g, axis),))
    log_softmax = named("log_softmax", sp.log_softmax)
    defjvp(log_softmax, lambda t, y, x, axis=None: t.call(log_softmax_tangent, y, t.d(x), axis) if t.d(x) is not None else None)
    defvjp(log_softmax, lambda t, g, y, x, axis=None: (t.call(log_softmax_adjoint, y, g, axis),))

    from . import scipy_special_more

    scipy_special_more.register(sp, named)
