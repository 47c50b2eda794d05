"""Rules of `scipy.interpolate`, both modes; registered by registry.lookup once the user's code has imported
scipy.interpolate.  This module never imports SciPy itself.

The piecewise polynomials (PPoly, and what is made of it: CubicSpline, Akima1DInterpolator,
PchipInterpolator, CubicHermiteSpline) are Python code the transforms trace, down to one compiled kernel:

* _ppoly.evaluate(c, x, xp, nu, extrapolate, out) writes into out[p, j] the nu-th derivative of the
  polynomial j of the interval holding xp[p]:  sum_k c[k, i, j] (xp[p] - x[i])^(K-1-k), differentiated nu
  times, with i = i(p) the interval.  It is linear in c; in xp its derivative is the (nu+1)-th derivative
  D; in the interval's left breakpoint x[i] it is -D (where the interval is chosen does not move with x
  almost everywhere).  So  d out = evaluate(dc) + D (dxp - dx[i(p)]),  and in reverse
  c_bar[k, i, j] = sum over the points p in interval i of B_k(p) out_bar[p, j] (B_k: the kernel's value
  for the unit polynomial of order k), xp_bar[p] = sum_j D[p, j] out_bar[p, j], x_bar[i] = -(the same,
  summed over the points in interval i).  The interval of each point is found by the kernel itself
  (evaluating the polynomial that is i on interval i), so ties and extrapolation are decided as SciPy
  decides them.  A point outside the breakpoints with extrapolate=False gives NaN, and no derivative.

Forward mode is a template that runs before the write (as numpy_writes.py's); reverse mode runs when the
code runs: `out` is storage that other names share, whose overwritten entries had no influence.  Complex
coefficients are refused in reverse mode.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

FUNCTIONS = ["interpolate._ppoly.evaluate"]  # (the B-splines' rules: scipy_interpolate_bspline.py)
REGISTERED: dict = {}
_NAMES = ("c", "x", "xp", "dx", "extrapolate", "out")


def _ppoly():
    from scipy.interpolate import _ppoly

    return _ppoly


def _zero(v):
    return v is None or v is NoTangent


def _run(c, x, xp, nu, extrapolate, dtype=float):
    """The kernel's result, in a new array."""
    c = np.ascontiguousarray(c, dtype=np.result_type(c, dtype))
    out = np.empty((len(xp), c.shape[2]), dtype=c.dtype)
    _ppoly().evaluate(c, np.ascontiguousarray(x, dtype=float), np.ascontiguousarray(xp, dtype=float), int(nu),
                      bool(extrapolate), out)
    return out


def _intervals(x, xp, extrapolate):
    """The interval of each point (as the kernel chooses it), and which points have one."""
    m = len(x) - 1
    which = _run(np.arange(m, dtype=float).reshape(1, m, 1), x, xp, 0, extrapolate)[:, 0]
    ok = ~np.isnan(which)
    return np.where(ok, which, 0).astype(np.intp), ok


def _dense(v, like):
    return np.zeros(np.shape(like)) if _zero(v) else np.asarray(v)


def ppoly_tangent(c, x, xp, nu, extrapolate, out, dc, dx, dxp, dout):
    """Writes the tangent of `out` into its tangent storage dout (before the kernel writes out)."""
    if not isinstance(dout, np.ndarray):
        if _zero(dc) and _zero(dx) and _zero(dxp):
            return None
        raise NotImplementedError("forward mode of scipy.interpolate's PPoly evaluation: the output array has no "
                                  "tangent storage here (a derivative would be lost)")
    d = _run(_dense(dc, c), x, xp, nu, extrapolate, dtype=np.result_type(c, _dense(dc, c)))
    if not (_zero(dx) and _zero(dxp)):
        D = _run(c, x, xp, nu + 1, extrapolate)
        shift = _dense(dxp, xp).astype(float)
        if not _zero(dx):
            idx, ok = _intervals(x, xp, extrapolate)
            shift = shift - np.where(ok, np.asarray(dx, dtype=float)[idx], 0.0)
        d = d + D * shift[:, None]
    dout[...] = d
    return None


def _jvp(t, y, c, x, xp, nu, extrapolate, out):
    if t.d(c) is None and t.d(x) is None and t.d(xp) is None and t.d(out) is None:
        return None
    t.call(ppoly_tangent, c, x, xp, nu, extrapolate, out, t.dz(c), t.dz(x), t.dz(xp), t.dz(out))
    return None


def rrule_evaluate(*args, **kwargs):
    from ..reverse import shadows
    from .call_binding import KwAdj

    b = dict(zip(_NAMES, args))
    b.update(kwargs)
    c, x, xp, nu, extrapolate, out = (b[n] for n in _NAMES)
    old = out.copy()
    y = _ppoly().evaluate(*args, **kwargs)

    def pullback(g):
        shadows.remember(out)
        sh = shadows.shadow(out)
        gout = np.array(sh, dtype=float if not np.iscomplexobj(sh) else sh.dtype)
        sh[...] = 0.0  # every entry was overwritten: its old value had no influence
        out[...] = old
        bars = {n: NoTangent for n in _NAMES}
        if np.any(gout):
            if np.iscomplexobj(c) or np.iscomplexobj(gout):
                raise NotImplementedError("reverse mode of scipy.interpolate's PPoly with complex coefficients")
            idx, ok = _intervals(x, xp, extrapolate)
            g = np.where(ok[:, None], gout, 0.0)
            K, m = c.shape[0], c.shape[1]
            cbar = np.zeros(c.shape)
            for k in range(K):
                unit = np.zeros((K, m, 1))
                unit[k] = 1.0
                basis = _run(unit, x, xp, nu, extrapolate)[:, 0]
                np.add.at(cbar[k], idx[ok], basis[ok, None] * g[ok])
            D = _run(c, x, xp, nu + 1, extrapolate)
            slope = np.sum(np.where(ok[:, None], D, 0.0) * g, axis=1)
            xbar = np.zeros(len(x))
            np.add.at(xbar, idx[ok], -slope[ok])
            bars.update(c=cbar, x=xbar, xp=slope.reshape(np.shape(xp)))
        pos = tuple(bars[_NAMES[i]] for i in range(len(args)))
        named = {k: bars[k] for k in kwargs if bars.get(k, NoTangent) is not NoTangent}
        return pos + ((KwAdj(named),) if named else ())

    return y, pullback


def register() -> None:
    """Register the rules (registry.lookup calls this once scipy.interpolate is imported)."""
    from .fingerprints import _fingerprint
    from .registry import _entry, defjvp

    fn = _ppoly().evaluate
    REGISTERED[fn] = "interpolate._ppoly.evaluate"
    defjvp(fn, _jvp, mutates=(5,))
    r = _entry(fn)
    r.user_rrule = rrule_evaluate
    r.fingerprint = _fingerprint(r.jvp_template, rrule_evaluate, r.mutates)
    from . import scipy_interpolate_bspline

    scipy_interpolate_bspline.register(REGISTERED)
    from . import scipy_interpolate_rgi

    scipy_interpolate_rgi.register(REGISTERED)
