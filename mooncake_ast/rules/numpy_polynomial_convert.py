"""`convert` and `__call__` of NumPy's polynomial classes (np.polynomial.Polynomial, Chebyshev, ...), both modes.

p.convert(domain, kind, window) re-expresses p in another basis / domain: the new coefficients are linear in p's,
new = T @ coef, with T fixed by the classes, domains and windows (constants).  T's column j is the conversion of
the unit series e_j.  Traced, convert evaluates p at a polynomial object (Horner's rule on objects), where the
tangent of the coefficients was lost (a zero derivative); this rule gives it exactly.  Differentiated domains or
windows are refused by name (their derivative is not implemented).

p(x) is linear in the coefficients too: d p(x) = p_dc(x) + p'(x) dx (p_dc: p with the coefficients' tangent as
coefficients, p' = p.deriv(), which accounts for the domain's map); in reverse coef_bar[j] = sum g * e_j(x) and
x_bar = g p'(x).  p(q) for a polynomial object q (composition) takes T's route: linear in p's coefficients, q a
constant (a differentiated q is refused by name).  Registered when numpy.polynomial is imported.
"""
from __future__ import annotations

import numpy as np

from ..tangents import MutableTangent, NoTangent

FUNCTIONS = ["numpy.polynomial._polybase.ABCPolyBase.convert", "numpy.polynomial._polybase.ABCPolyBase.__call__"]
_REFUSED = ("derivative of a numpy.polynomial series' convert() with respect to its domain or window is not "
            "implemented (only its coefficients are differentiated): make the domain and window constants")


def _field(d, name):
    if d is None or d is NoTangent:
        return NoTangent
    if isinstance(d, dict):
        return d.get(name, NoTangent)
    fields = getattr(d, "fields", None)
    return fields.get(name, NoTangent) if isinstance(fields, dict) else NoTangent


def _live(v):
    from .scipy_optimize_rules import _live as live

    return live(v)


def _matrix(p, y, domain, kind, window):
    n, m = len(p.coef), len(y.coef)
    T = np.zeros((m, n))
    for j in range(n):
        unit = p.copy()
        e = np.zeros(n)
        e[j] = 1.0
        unit.coef = e
        col = np.asarray(unit.convert(domain=domain, kind=kind, window=window).coef, dtype=float)
        if len(col) > m and np.any(col[m:]):
            raise NotImplementedError("derivative of a numpy.polynomial series' convert() whose result lost "
                                      "trailing coefficients (an exact zero leading coefficient)")
        T[:min(m, len(col)), j] = col[:m]
    return T


def convert_tangent(p, y, dp, domain=None, kind=None, window=None, ddomain=NoTangent, dwindow=NoTangent):
    if _live(ddomain) or _live(dwindow) or _live(_field(dp, "domain")) or _live(_field(dp, "window")):
        raise NotImplementedError(_REFUSED)
    dcoef = _field(dp, "coef")
    if not _live(dcoef):
        return NoTangent
    if np.iscomplexobj(dcoef) or np.iscomplexobj(p.coef):
        raise NotImplementedError("derivative of a numpy.polynomial series' convert() with complex coefficients")
    return MutableTangent({"coef": _matrix(p, y, domain, kind, window) @ np.asarray(dcoef, dtype=float)})


def convert_adjoint(p, y, g, domain=None, kind=None, window=None):
    gcoef = _field(g, "coef")
    if not _live(gcoef):
        return NoTangent
    if np.iscomplexobj(gcoef) or np.iscomplexobj(p.coef):
        raise NotImplementedError("reverse mode of a numpy.polynomial series' convert() with complex coefficients")
    return MutableTangent({"coef": _matrix(p, y, domain, kind, window).T @ np.asarray(gcoef, dtype=float)})


# ------------------------------------------------------------------ p(x)
def _with_coef(p, coef):
    q = p.copy()
    q.coef = np.asarray(coef)
    return q


def _is_series(x):
    from numpy.polynomial._polybase import ABCPolyBase

    return isinstance(x, ABCPolyBase)


def _refuse_complex_composition(p, q, d):
    """p(q)'s composition matrix is real (float) arithmetic: complex coefficients would lose their imaginary parts."""
    if np.iscomplexobj(d) or np.iscomplexobj(p.coef) or np.iscomplexobj(q.coef):
        raise NotImplementedError("derivative of a numpy.polynomial series evaluated at a series with complex "
                                  "coefficients")


def _composition_matrix(p, y, arg):
    n, m = len(p.coef), len(y.coef)
    T = np.zeros((m, n))
    for j in range(n):
        col = np.asarray(_with_coef(p, np.eye(n)[j])(arg).coef, dtype=float)
        if len(col) > m and np.any(col[m:]):
            raise NotImplementedError("derivative of a numpy.polynomial series evaluated at a series, whose result "
                                      "lost trailing coefficients")
        T[:min(m, len(col)), j] = col[:m]
    return T


def call_tangent(p, arg, y, dp, darg):
    if _live(_field(dp, "domain")) or _live(_field(dp, "window")):
        raise NotImplementedError(_REFUSED)
    dcoef = _field(dp, "coef")
    if _is_series(arg):
        if _live(darg):
            raise NotImplementedError("derivative of p(q) for numpy.polynomial series with respect to q is not "
                                      "implemented (only p's coefficients are differentiated)")
        if not _live(dcoef):
            return NoTangent
        _refuse_complex_composition(p, arg, dcoef)
        return MutableTangent({"coef": _composition_matrix(p, y, arg) @ np.asarray(dcoef, dtype=float)})
    out = np.zeros(np.shape(y), dtype=np.result_type(y, float)) if not _live(dcoef) else _with_coef(p, dcoef)(arg)
    if _live(darg):
        out = out + p.deriv()(arg) * darg
    return out


def call_adjoints(p, arg, y, g):
    """(p's adjoint, arg's)."""
    if _zero_value(g):
        return NoTangent, NoTangent
    if _is_series(arg):
        gcoef = _field(g, "coef")
        if not _live(gcoef):
            return NoTangent, NoTangent
        _refuse_complex_composition(p, arg, gcoef)
        return MutableTangent({"coef": _composition_matrix(p, y, arg).T @ np.asarray(gcoef, dtype=float)}), \
            NoTangent  # (q's adjoint: refused in forward mode; its reverse gives none)
    g = np.asarray(g)
    if np.iscomplexobj(g) or np.iscomplexobj(arg) or np.iscomplexobj(p.coef):
        raise NotImplementedError("reverse mode of a numpy.polynomial series evaluated at complex values")
    n = len(p.coef)
    cbar = np.array([np.sum(g * _with_coef(p, np.eye(n)[j])(arg)) for j in range(n)])
    xbar = g * p.deriv()(arg)
    if np.ndim(arg) == 0:
        xbar = float(np.sum(xbar))
    return MutableTangent({"coef": cbar}), xbar


def _zero_value(g):
    return g is None or g is NoTangent


def register() -> None:
    from numpy.polynomial._polybase import ABCPolyBase

    from .registry import defjvp, defvjp

    def jvp(t, y, p, domain=None, kind=None, window=None):
        if t.d(p) is None and t.d(domain) is None and t.d(window) is None:
            return None
        return t.call(convert_tangent, p, y, t.dz(p), domain, kind, window, t.dz(domain), t.dz(window))

    def vjp(t, g, y, p, domain=None, kind=None, window=None):
        return (t.call(convert_adjoint, p, y, g, domain, kind, window), None, None, None)

    defjvp((ABCPolyBase, "convert"), jvp)
    defvjp((ABCPolyBase, "convert"), vjp)

    def call_jvp(t, y, p, arg):
        if t.d(p) is None and t.d(arg) is None:
            return None
        return t.call(call_tangent, p, arg, y, t.dz(p), t.dz(arg))

    def call_vjp(t, g, y, p, arg):
        from .numpy_common import _split

        parts = _split(t, t.call(call_adjoints, p, arg, y, g), 2)
        return parts[0], parts[1]

    # (keyed by the function: a callable object is called through type(p).__call__, looked up as a function)
    defjvp(ABCPolyBase.__call__, call_jvp)
    defvjp(ABCPolyBase.__call__, call_vjp)
