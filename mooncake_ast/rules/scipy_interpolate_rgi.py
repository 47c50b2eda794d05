"""`RegularGridInterpolator(points, values)(xi)` with method 'linear', both modes: differentiated in the grid values
and in the points xi.  Registered by scipy_interpolate_rules.register(); never imports SciPy itself.

Traced, the call reaches compiled helpers (coordinate conversion, interval search, a 2-D fast path that writes its
output).  This rule evaluates the multilinear interpolant itself from SciPy's own interval search (so ties and
extrapolation are decided as SciPy decides them): with i_d the interval and t_d in [0, 1] the position in it along
dimension d, y = sum over the 2^n corners c of w_c values[i + c], w_c = prod_d (t_d if c_d else 1 - t_d).  So
dy = sum_c w_c dvalues[i + c] + sum_d (dy/dt_d) dxi_d / h_d, h_d the interval's width, and in reverse values_bar
gets g w_c at each corner (np.add.at) and xi_bar[d] = g (dy/dt_d) / h_d.  Points outside the grid take the fill
value (a constant: zero derivative) or, with fill_value=None, the linear extrapolation of the edge interval.
Refused by name: other methods, a differentiated grid or fill value, descending grid axes, values with trailing
dimensions, complex values.
"""
from __future__ import annotations

import itertools

import numpy as np

from ..tangents import MutableTangent, NoTangent

FUNCTIONS = ["interpolate.RegularGridInterpolator.__call__"]


def _refuse(what):
    raise NotImplementedError(f"derivative of scipy.interpolate.RegularGridInterpolator {what} is not implemented "
                              f"(supported: method='linear', scalar values on an ascending grid, differentiated in "
                              f"the values and the points)")


def _field(d, name):
    if d is None or d is NoTangent:
        return NoTangent
    fields = getattr(d, "fields", None)
    return fields.get(name, NoTangent) if isinstance(fields, dict) else NoTangent


def _live(v):
    from .scipy_optimize_rules import _live as live

    return live(v)


def _parts(rgi, xi, method):
    method = rgi.method if method is None else method
    if method != "linear":
        _refuse(f"with method={method!r}")
    if any(rgi._descending_dimensions):
        _refuse("with a descending grid axis")
    values = np.asarray(rgi._values)
    n = len(rgi._grid)
    if values.ndim != n:
        _refuse("with values of more dimensions than the grid")
    if np.iscomplexobj(values):
        _refuse("with complex values")
    pts, shape, _, nans, outside = rgi._prepare_xi(xi)
    indices, t = rgi._find_indices(pts.T)
    widths = np.stack([np.diff(np.asarray(g, dtype=float))[indices[d]] for d, g in enumerate(rgi._grid)])
    filled = np.zeros(len(pts), dtype=bool)
    if not rgi.bounds_error and rgi.fill_value is not None:
        filled = np.asarray(outside, dtype=bool).reshape(len(pts))
    return values, shape, np.asarray(nans, dtype=bool).reshape(len(pts)), filled, indices, t, widths


def _corners(n):
    return list(itertools.product((0, 1), repeat=n))


def _weight(c, t, skip=None):
    w = np.ones(t.shape[1])
    for d, cd in enumerate(c):
        if d != skip:
            w = w * (t[d] if cd else 1.0 - t[d])
    return w


def _slopes(values, indices, t, widths):
    """dy/dxi_d at each point, shape (n, P)."""
    n = len(t)
    out = np.zeros(t.shape)
    for c in _corners(n):
        v = values[tuple(indices[d] + c[d] for d in range(n))]
        for d in range(n):
            out[d] += (1.0 if c[d] else -1.0) * _weight(c, t, skip=d) * v
    return out / widths


def _check_constants(drgi):
    if _live(_field(drgi, "_grid")):
        _refuse("with respect to its grid")
    if _live(_field(drgi, "fill_value")):
        _refuse("with respect to its fill value")


def _xi_dense(xi, dxi, npts, n):
    """The points' tangent as an (P, n) array (xi may be an array (..., n) or a tuple of n coordinate arrays)."""
    if isinstance(xi, tuple):
        parts = [np.zeros(()) if not _live(d) else np.asarray(d, dtype=float) for d in dxi] if isinstance(dxi, tuple) \
            else [np.zeros(())] * n
        shape = np.broadcast_shapes(*(np.shape(v) for v in xi))
        return np.stack([np.broadcast_to(p, shape).reshape(-1) for p in parts], axis=1)
    return np.asarray(dxi, dtype=float).reshape(npts, n)


def call_tangent(rgi, xi, method, y, drgi, dxi):
    _check_constants(drgi)
    dvalues = _field(drgi, "_values")
    if not (_live(dvalues) or _live(dxi)):
        return NoTangent
    values, shape, nans, filled, indices, t, widths = _parts(rgi, xi, method)
    n = len(t)
    out = np.zeros(t.shape[1])
    if _live(dvalues):
        dv = np.asarray(dvalues, dtype=float)
        for c in _corners(n):
            out += _weight(c, t) * dv[tuple(indices[d] + c[d] for d in range(n))]
    if _live(dxi):
        out += np.sum(_slopes(values, indices, t, widths) * _xi_dense(xi, dxi, t.shape[1], n).T, axis=0)
    out[filled] = 0.0
    out[nans] = np.nan
    return out.reshape(shape[:-1])


def call_adjoints(rgi, xi, method, y, g):
    """(the interpolator's adjoint, the points')."""
    if g is None or g is NoTangent or not np.any(g):
        return NoTangent, NoTangent
    g = np.asarray(g, dtype=float)
    if np.iscomplexobj(g):
        _refuse("with complex values")
    values, shape, nans, filled, indices, t, widths = _parts(rgi, xi, method)
    n = len(t)
    g = g.reshape(-1).copy()
    g[filled] = 0.0
    vbar = np.zeros(values.shape)
    for c in _corners(n):
        np.add.at(vbar, tuple(indices[d] + c[d] for d in range(n)), g * _weight(c, t))
    xbar = (_slopes(values, indices, t, widths) * g).T  # (P, n)
    if isinstance(xi, tuple):
        from ..reverse.adjoints import AdjTuple, unbroadcast

        full = shape[:-1]
        xi_bar = AdjTuple(unbroadcast(xbar[:, d].reshape(full), np.asarray(v)) for d, v in enumerate(xi))
    else:
        xi_bar = xbar.reshape(np.shape(xi))
    return MutableTangent({"_values": vbar}), xi_bar


def register(REGISTERED) -> None:
    from scipy.interpolate import RegularGridInterpolator

    from .numpy_common import _split
    from .registry import defjvp, defvjp

    fn = RegularGridInterpolator.__call__
    REGISTERED[fn] = "interpolate.RegularGridInterpolator.__call__"

    def jvp(t, y, rgi, xi, method=None, nu=None):
        if t.d(rgi) is None and t.d(xi) is None:
            return None
        if nu is not None:
            _refuse("with nu=")
        return t.call(call_tangent, rgi, xi, method, y, t.dz(rgi), t.dz(xi))

    def vjp(t, g, y, rgi, xi, method=None, nu=None):
        parts = _split(t, t.call(call_adjoints, rgi, xi, method, y, g), 2)
        return parts[0], parts[1], None

    # (keyed by the function: a callable object is called through type(obj).__call__, looked up as a function)
    defjvp(fn, jvp)
    defvjp(fn, vjp)
