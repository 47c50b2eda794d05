"""Rules of `scipy.spatial.distance` (pdist, cdist, squareform), both modes; registered by
registry.lookup once the user's code has imported scipy.spatial.  This module never imports SciPy
itself (pdist and cdist run compiled code behind SciPy's array-API layer, which cannot be traced).

Metrics differentiated: "euclidean" (d = |u - v|), "sqeuclidean" (|u - v|^2) and "cityblock"
(sum |u_k - v_k|), given by name (the default is euclidean); other metrics, a callable metric and
weights are refused.  With D[p] = d(u_p, v_p) over the pairs p:

* euclidean:   dD = (u - v) . (du - dv) / D;  u_bar = sum_p g_p (u - v) / D  (0 where D = 0, the
  derivative's value at the kink, as np.linalg.norm's rule takes)
* sqeuclidean: dD = 2 (u - v) . (du - dv)
* cityblock:   dD = sign(u - v) . (du - dv)

pdist's pairs are (i, j), i < j, in row-major order (np.triu_indices); cdist's are all (a, b).
squareform is linear (a vector of pairs to a symmetric matrix with a zero diagonal, or back, reading
the upper triangle): its tangent is squareform of the tangent, and its adjoint the transposed map.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

FUNCTIONS = ["spatial.distance.cdist", "spatial.distance.pdist", "spatial.distance.squareform"]
REGISTERED: dict = {}
_METRICS = ("euclidean", "sqeuclidean", "cityblock")


def _distance():
    import scipy.spatial.distance

    return scipy.spatial.distance


def _zero(v):
    return v is None or v is NoTangent


def _metric(name, metric, kwargs):
    if kwargs:
        raise NotImplementedError(f"derivative of scipy.spatial.distance.{name} with {sorted(kwargs)}")
    if not isinstance(metric, str) or metric not in _METRICS:
        raise NotImplementedError(f"derivative of scipy.spatial.distance.{name} with metric={metric!r} "
                                  f"(differentiated: {', '.join(_METRICS)})")
    return metric


def _pairs_diff(name, U, V, metric, D):
    """(weight per pair and coordinate) w with dD = sum_k w[..., k] (du - dv)_k."""
    diff = U - V
    if metric == "sqeuclidean":
        return 2.0 * diff
    if metric == "cityblock":
        return np.sign(diff)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(D[..., None] > 0, diff / np.where(D > 0, D, 1.0)[..., None], 0.0)


def _real(name, *xs):
    if any(np.iscomplexobj(x) for x in xs):
        raise NotImplementedError(f"derivative of scipy.spatial.distance.{name} of complex points")


def pdist_tangent(X, D, dX, metric="euclidean", **kwargs):
    metric = _metric("pdist", metric, kwargs)
    X = np.asarray(X, dtype=float)
    _real("pdist", X, dX)
    i, j = np.triu_indices(X.shape[0], 1)
    w = _pairs_diff("pdist", X[i], X[j], metric, D)
    dX = np.broadcast_to(np.asarray(dX, dtype=float), X.shape)
    return np.sum(w * (dX[i] - dX[j]), axis=-1)


def pdist_adjoint(X, D, g, metric="euclidean", **kwargs):
    if _zero(g):
        return NoTangent
    metric = _metric("pdist", metric, kwargs)
    X = np.asarray(X, dtype=float)
    _real("pdist", X, g)
    i, j = np.triu_indices(X.shape[0], 1)
    contrib = _pairs_diff("pdist", X[i], X[j], metric, D) * np.asarray(g, dtype=float)[:, None]
    out = np.zeros_like(X)
    np.add.at(out, i, contrib)
    np.subtract.at(out, j, contrib)
    return out


def cdist_tangent(XA, XB, D, dA, dB, metric="euclidean", **kwargs):
    metric = _metric("cdist", metric, kwargs)
    XA, XB = np.asarray(XA, dtype=float), np.asarray(XB, dtype=float)
    _real("cdist", XA, XB, dA, dB)
    w = _pairs_diff("cdist", XA[:, None, :], XB[None, :, :], metric, D)
    out = np.zeros(D.shape)
    if not _zero(dA):
        out = out + np.sum(w * np.broadcast_to(np.asarray(dA, dtype=float), XA.shape)[:, None, :], axis=-1)
    if not _zero(dB):
        out = out - np.sum(w * np.broadcast_to(np.asarray(dB, dtype=float), XB.shape)[None, :, :], axis=-1)
    return out


def cdist_adjoints(XA, XB, D, g, metric="euclidean", **kwargs):
    if _zero(g):
        return NoTangent, NoTangent
    metric = _metric("cdist", metric, kwargs)
    XA, XB = np.asarray(XA, dtype=float), np.asarray(XB, dtype=float)
    _real("cdist", XA, XB, g)
    contrib = _pairs_diff("cdist", XA[:, None, :], XB[None, :, :], metric, D) * np.asarray(g, dtype=float)[..., None]
    return np.sum(contrib, axis=1), -np.sum(contrib, axis=0)


def squareform_tangent(X, y, dX, force="no", checks=True):
    if np.iscomplexobj(X) or np.iscomplexobj(dX):
        raise NotImplementedError("derivative of scipy.spatial.distance.squareform of complex values is not supported")
    return _distance().squareform(np.broadcast_to(np.asarray(dX, dtype=float), np.shape(X)), force=force, checks=False)


def squareform_adjoint(X, y, g, force="no", checks=True):
    if _zero(g):
        return NoTangent
    g = np.asarray(g, dtype=float)
    if np.ndim(X) == 1:  # vector -> matrix: each pair's entry appears at (i, j) and (j, i)
        i, j = np.triu_indices(np.shape(y)[0], 1)
        return g[i, j] + g[j, i]
    n = np.shape(X)[0]  # matrix -> vector: the upper triangle is read
    out = np.zeros((n, n))
    i, j = np.triu_indices(n, 1)
    out[i, j] = g
    return out


def register() -> None:
    """Register the rules (registry.lookup calls this once scipy.spatial is imported)."""
    import scipy.spatial.distance  # noqa: F401  (the user imported scipy.spatial; the submodule may be pending)

    from .numpy_common import _split
    from .registry import defjvp, defvjp

    dist = _distance()
    REGISTERED[dist.pdist] = "spatial.distance.pdist"
    REGISTERED[dist.cdist] = "spatial.distance.cdist"
    REGISTERED[dist.squareform] = "spatial.distance.squareform"

    defjvp(dist.pdist, lambda t, y, X, metric="euclidean", **k: (
        t.call(pdist_tangent, X, y, t.d(X), metric, **k) if t.d(X) is not None else None))
    defvjp(dist.pdist, lambda t, g, y, X, metric="euclidean", **k: (t.call(pdist_adjoint, X, y, g, metric, **k),))

    def cdist_jvp(t, y, XA, XB, metric="euclidean", **k):
        if t.d(XA) is None and t.d(XB) is None:
            return None
        return t.call(cdist_tangent, XA, XB, y, t.dz(XA), t.dz(XB), metric, **k)

    defjvp(dist.cdist, cdist_jvp)
    defvjp(dist.cdist, lambda t, g, y, XA, XB, metric="euclidean", **k: _split(
        t, t.call(cdist_adjoints, XA, XB, y, g, metric, **k), 2))

    defjvp(dist.squareform, lambda t, y, X, force="no", checks=True: (
        t.call(squareform_tangent, X, y, t.d(X), force, checks) if t.d(X) is not None else None))
    defvjp(dist.squareform, lambda t, g, y, X, force="no", checks=True: (t.call(squareform_adjoint, X, y, g, force, checks),))
