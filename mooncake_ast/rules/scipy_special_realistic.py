"""More `scipy.special` functions met in realistic code (Matern kernels, exponential integrals, Box-Cox
transforms, elliptic integrals, binomial coefficients), both modes.  Registered by
scipy_special_more.register(); this module never imports SciPy itself.

Derivatives (all in closed form through SciPy's own functions):
* log1p: 1 / (1 + x); expm1: exp(x)
* k0: -k1; k1: -k0 - k1 / x; k0e = e^x k0: k0e - k1e; k1e: k1e (1 - 1/x) - k0e
* i0e = e^-|x| i0: i1e - sign(x) i0e; i1e: i0e - i1e (sign(x) + 1/x)  (sign 0 at 0)
* kv(v, x): -(k_{v-1} + k_{v+1}) / 2; kve(v, x) = e^x kv: kve - (kve_{v-1} + kve_{v+1}) / 2;
  expn(n, x): -expn(n - 1, x) (expn(0, x) = e^-x / x); exp1 = expn(1, .): -e^-x / x.  Their order
  v or n is refused when differentiated (no closed form).
* ellipk(m): (E - (1 - m) K) / (2 m (1 - m)); ellipe(m): (E - K) / (2 m)  (m = 0: pi/8 and -pi/8)
* binom(n, k) = Gamma(n+1) / (Gamma(k+1) Gamma(n-k+1)): d/dn = binom (psi(n+1) - psi(n-k+1)),
  d/dk = binom (psi(n-k+1) - psi(k+1))
* boxcox(x, l) = (x^l - 1) / l (log x at l = 0): d/dx = x^(l-1), d/dl = (x^l log x) / l - (x^l - 1) / l^2
  ((log x)^2 / 2 at l = 0); boxcox1p(x, l) = boxcox(1 + x, l).
* rel_entr(x, y) = x log(x / y) (x, y > 0; 0 at x = 0 <= y; +inf elsewhere): d/dx = log(x / y) + 1,
  d/dy = -x / y; kl_div(x, y) = rel_entr(x, y) - x + y: d/dx = log(x / y), d/dy = 1 - x / y.  At x = 0 the
  slope in x is -inf (as entr's is +inf), in y that of the value y there (0, or 1 for kl_div); where the
  value is +inf, 0.  (scipy.stats.entropy(pk, qk) is made of rel_entr.)
"""
from __future__ import annotations

import math

import numpy as np

FUNCTIONS = ["binom", "boxcox", "boxcox1p", "ellipe", "ellipk", "exp1", "expm1", "expn", "i0e", "i1e", "k0", "k0e",
             "k1", "k1e", "kl_div", "kv", "kve", "log1p", "rel_entr"]


def _special():
    import scipy.special

    return scipy.special


def _scalar(x):
    x = np.asarray(x)
    return x[()] if x.ndim == 0 else x


def log1p_dx(x):
    return 1.0 / np.add(1.0, x)


def entropy_partials(x, y, kl):
    """(d/dx, d/dy) of rel_entr(x, y) (kl: of kl_div(x, y)); see the module's docstring."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    x, y = np.broadcast_arrays(x, y)
    inside = (x > 0) & (y > 0)
    at_zero = (x == 0) & (y >= 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_ratio = np.log(np.where(inside, x, 1.0) / np.where(inside, y, 1.0))
        ratio = np.where(inside, x / np.where(inside, y, 1.0), 0.0)
    dx = np.where(inside, log_ratio + (0.0 if kl else 1.0), np.where(at_zero & (y > 0), -np.inf, 0.0))
    dy = np.where(inside, (1.0 if kl else 0.0) - ratio, np.where(at_zero, 1.0 if kl else 0.0, 0.0))
    return _scalar(dx), _scalar(dy)


def k0_dx(x):
    return -_special().k1(x)


def k1_dx(x):
    sp = _special()
    return _scalar(-sp.k0(x) - sp.k1(x) / np.asarray(x, dtype=float))


def k0e_dx(x):
    sp = _special()
    return sp.k0e(x) - sp.k1e(x)


def k1e_dx(x):
    sp = _special()
    return _scalar(sp.k1e(x) * (1.0 - 1.0 / np.asarray(x, dtype=float)) - sp.k0e(x))


def i0e_dx(x):
    sp = _special()
    return sp.i1e(x) - np.sign(x) * sp.i0e(x)


def i1e_dx(x):
    sp = _special()
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = sp.i0e(x) - sp.i1e(x) * (np.sign(x) + 1.0 / np.where(x == 0, 1.0, x))
    return _scalar(np.where(x == 0, 0.5, out))  # i1e(x) ~ x / 2 near 0


def kv_dx(v, x):
    sp = _special()
    return -0.5 * (sp.kv(np.subtract(v, 1), x) + sp.kv(np.add(v, 1), x))


def kve_dx(v, x):
    sp = _special()
    return sp.kve(v, x) - 0.5 * (sp.kve(np.subtract(v, 1), x) + sp.kve(np.add(v, 1), x))


def expn_dx(n, x):
    """d expn(n, x) / dx = -expn(n - 1, x) for n >= 1; expn(0, x) = exp(-x) / x: -(1 + 1/x) exp(-x) / x."""
    sp = _special()
    n = np.asarray(n)
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(n >= 1, -sp.expn(np.maximum(n - 1, 0), x), -(1.0 + 1.0 / x) * np.exp(-x) / x)
    return _scalar(out)


def exp1_dx(x):
    if np.iscomplexobj(x):
        raise NotImplementedError("derivative of scipy.special.exp1 of complex values is not supported")
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore"):
        return _scalar(-np.exp(-x) / x)


def ellipk_dm(m):
    sp = _special()
    m = np.asarray(m, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (sp.ellipe(m) - (1.0 - m) * sp.ellipk(m)) / (2.0 * m * (1.0 - m))
    return _scalar(np.where(m == 0, math.pi / 8.0, out))


def ellipe_dm(m):
    sp = _special()
    m = np.asarray(m, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (sp.ellipe(m) - sp.ellipk(m)) / (2.0 * m)
    return _scalar(np.where(m == 0, -math.pi / 8.0, out))


def binom_partials(n, k, y):
    """(d binom / dn, d binom / dk)."""
    sp = _special()
    a = sp.digamma(np.subtract(n, k) + 1.0)
    return _scalar(y * (sp.digamma(np.add(n, 1.0)) - a)), _scalar(y * (a - sp.digamma(np.add(k, 1.0))))


def boxcox_partials(x, lmbda, shift=0.0):
    """(d/dx, d/dlmbda) of boxcox(x + shift, lmbda)."""
    u = np.add(x, shift)
    lu = np.log(u)
    lm = np.asarray(lmbda, dtype=float)
    zero = lm == 0
    ls = np.where(zero, 1.0, lm)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ul = np.exp(lm * lu)
        dl = np.where(zero, 0.5 * lu * lu, ul * lu / ls - (ul - 1.0) / (ls * ls))
        dx = np.exp((lm - 1.0) * lu)
    return _scalar(dx), _scalar(dl)


def register(sp, named) -> None:
    """Register the rules (scipy_special_more.register calls this with scipy.special and its `named`)."""
    from .numpy_rules import unary
    from .registry import defjvp, defvjp
    from .scipy_special_more import refuse_parameter, refused_parameter_adjoint

    unary(named("log1p", sp.log1p), lambda t, y, x: t.call(log1p_dx, x))
    unary(named("expm1", sp.expm1), lambda t, y, x: t.add(y, 1.0))
    unary(named("k0", sp.k0), lambda t, y, x: t.call(k0_dx, x))
    unary(named("k1", sp.k1), lambda t, y, x: t.call(k1_dx, x))
    unary(named("k0e", sp.k0e), lambda t, y, x: t.call(k0e_dx, x))
    unary(named("k1e", sp.k1e), lambda t, y, x: t.call(k1e_dx, x))
    unary(named("i0e", sp.i0e), lambda t, y, x: t.call(i0e_dx, x))
    unary(named("i1e", sp.i1e), lambda t, y, x: t.call(i1e_dx, x))
    unary(named("exp1", sp.exp1), lambda t, y, x: t.call(exp1_dx, x))
    unary(named("ellipk", sp.ellipk), lambda t, y, x: t.call(ellipk_dm, x))
    unary(named("ellipe", sp.ellipe), lambda t, y, x: t.call(ellipe_dm, x))

    # an order (refused when differentiated) then x
    for name, dx, param in (("kv", kv_dx, "v"), ("kve", kve_dx, "v"), ("expn", expn_dx, "n")):
        fn = named(name, getattr(sp, name))

        def jvp(t, y, p, x, name=name, dx=dx, param=param):
            out = t.mul(t.d(x), t.call(dx, p, x))
            if t.d(p) is not None:
                out = t.add(out, t.call(refuse_parameter, t.d(p), name, param))
            return out

        def vjp(t, g, y, p, x, name=name, dx=dx, param=param):
            needs = getattr(t, "needs", None)
            pbar = None if needs is not None and not needs(p) else t.call(refused_parameter_adjoint, g, name, param)
            return (pbar, t.unb(t.mul(g, t.call(dx, p, x)), x))

        defjvp(fn, jvp)
        defvjp(fn, vjp)

    # two differentiated operands: `partials(a, b, *extra)` gives both partial derivatives at once
    _def_two_operands(named("binom", sp.binom), lambda n, k, y: (binom_partials, (n, k, y)))
    for name, kl in (("rel_entr", False), ("kl_div", True)):
        _def_two_operands(named(name, getattr(sp, name)), lambda a, b, y, kl=kl: (entropy_partials, (a, b, kl)),
                          strong=True)
    for name, shift in (("boxcox", 0.0), ("boxcox1p", 1.0)):
        _def_two_operands(named(name, getattr(sp, name)), lambda x, lm, y, shift=shift: (boxcox_partials, (x, lm, shift)))


def _def_two_operands(fn, partials_call, strong=False):
    """Both rules of fn(a, b) from one helper that gives (d/da, d/db): `partials_call(a, b, y)` names the helper
    and its arguments.  (SciPy's ufuncs take their operands by position only: the templates' names are free.)
    strong: a partial can be infinite where the value is finite (rel_entr and kl_div at x = 0), so a tangent or
    adjoint that is exactly 0 multiplies it as a strong zero (strong_zeros.py: 0, not 0 * inf = nan)."""
    from .numpy_common import _split
    from .registry import defjvp, defvjp
    from .strong_zeros import INFINITE_SLOPES, strong_mul

    if strong:
        INFINITE_SLOPES.add(fn)

    def times(t, z, d):
        return t.call(strong_mul, z, d) if strong and z is not None else t.mul(z, d)

    def jvp(t, y, a, b):
        if t.d(a) is None and t.d(b) is None:
            return None
        helper, args = partials_call(a, b, y)
        da, db = _split(t, t.call(helper, *args), 2)
        return t.add(times(t, t.d(a), da), times(t, t.d(b), db))

    def vjp(t, g, y, a, b):
        helper, args = partials_call(a, b, y)
        da, db = _split(t, t.call(helper, *args), 2)
        return (t.unb(times(t, g, da), a), t.unb(times(t, g, db), b))

    defjvp(fn, jvp)
    defvjp(fn, vjp)
