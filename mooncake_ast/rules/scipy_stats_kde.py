"""`scipy.stats.gaussian_kde` (issue 12, second pass): the density estimate and its methods evaluate, __call__,
pdf and logpdf, differentiated with respect to the data and the points, both modes; registered by
scipy_stats.register() (no SciPy import here).

SciPy builds the estimate in __init__ through a property that caches in the object (neff) and evaluates
it in compiled code, so neither can be traced.  Rules instead:
* making the object (`gaussian_kde(dataset, bw_method, weights)`): the object's tangent holds the data's
  (field `dataset`, SciPy's 2-D copy) and what SciPy derives from it: covariance = factor^2 C with
  C = sum_i w_i (x_i - mu)(x_i - mu)^T / (1 - sum w_i^2) (its tangent: (D W Xc^T + Xc W D^T) / (1 - sum w^2)),
  _data_covariance = C, cho_cov and _data_cho_cov (Cholesky factors: dL = L Phi(L^-1 dC L^-T)) and log_det
  (tr(C^-1 dC)).  The bandwidth factor depends on the weights only (Scott's, Silverman's or a number).
  Differentiated weights and a callable bw_method are refused.  The pullback takes the adjoints of dataset,
  covariance, _data_covariance and log_det (of the Cholesky factors: refused).
* the methods: a NumPy model of the estimate, sum_i w_i N(p; x_i, factor^2 C), differentiated by
  mooncake_ast itself (forward.runtime.fcall / reverse.runtime.rcall) and compared with SciPy's value on
  every call (a refusal where they differ, never a wrong derivative).
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

FUNCTIONS = ["gaussian_kde", "gaussian_kde.__call__", "gaussian_kde.evaluate", "gaussian_kde.logpdf",
             "gaussian_kde.pdf"]
METHODS = ("evaluate", "__call__", "pdf", "logpdf")
_REFUSE = "derivative of scipy.stats.gaussian_kde {}: not supported (the data and the points are differentiated)"


def _zero(d):
    from .scipy_optimize_rules import _live

    return not _live(d)


def _fields(d):
    f = getattr(d, "__dict__", {}).get("fields") if d is not NoTangent and d is not None else None
    return f if isinstance(f, dict) else {}


# ------------------------------------------------------------------ the model (traced by mooncake_ast)
def kde_model(X, w, factor, P, log):
    """SciPy's estimate at the points P (d x m) from the data X (d x n), weights w and bandwidth factor."""
    mu = X @ w
    Xc = X - mu[:, None]
    C = (Xc * w) @ Xc.T / (1.0 - w @ w) * (factor * factor)
    Cinv = np.linalg.inv(C)
    sign, logdet = np.linalg.slogdet(2.0 * np.pi * C)
    R = P[:, None, :] - X[:, :, None]
    q = np.einsum("ab,anm,bnm->nm", Cinv, R, R)
    logk = np.log(w)[:, None] - 0.5 * q - 0.5 * logdet
    top = np.max(logk, axis=0)
    total = np.sum(np.exp(logk - top), axis=0)
    if log:
        return top + np.log(total)
    return np.exp(top) * total


def _points(kde, points):
    P = np.atleast_2d(np.asarray(points, dtype=float))
    if P.shape[0] != kde.d and P.shape[0] == 1 and P.shape[1] == kde.d:
        P = P.reshape(kde.d, 1)
    return P


def _inputs(kde):
    if np.iscomplexobj(kde.dataset):
        raise NotImplementedError(_REFUSE.format("of complex data"))
    return np.asarray(kde.dataset, dtype=float), np.asarray(kde.weights, dtype=float), float(kde.factor)


def _agree(y, y_model):
    if not np.allclose(np.asarray(y, dtype=float), y_model, rtol=1e-7, atol=1e-12):
        raise NotImplementedError(_REFUSE.format("for these arguments: the NumPy model it is differentiated through "
                                                 "gives another value"))


def kde_tangent(method, kde, dkde, points, dpoints, y):
    from ..forward.runtime import fcall

    X, w, factor = _inputs(kde)
    P = _points(kde, points)
    dX = _fields(dkde).get("dataset", NoTangent)
    dP = NoTangent if _zero(dpoints) else np.reshape(np.asarray(dpoints, dtype=float), P.shape)
    if _zero(dX) and dP is NoTangent:
        return NoTangent
    val, dval = fcall(kde_model, NoTangent, (X, w, factor, P, method == "logpdf"),
                      (NoTangent if _zero(dX) else dX, NoTangent, NoTangent, dP, NoTangent))
    _agree(y, val)
    return dval


def kde_adjoints(method, kde, points, y, g):
    """(the object's adjoint: the data's in its field `dataset`, the points' adjoint)."""
    from ..reverse.runtime import rcall
    from ..tangents import MutableTangent

    if _zero(g):
        return NoTangent, NoTangent
    X, w, factor = _inputs(kde)
    P = _points(kde, points)
    val, pb = rcall(kde_model, (X, w, factor, P, method == "logpdf"), {})
    _agree(y, val)
    _, bars, _ = pb(np.asarray(g, dtype=float))
    xbar = NoTangent if _zero(bars[0]) else np.array(bars[0], dtype=float)
    pbar = NoTangent if _zero(bars[3]) else np.reshape(np.array(bars[3], dtype=float), np.shape(points))
    if np.ndim(points) == 0 and pbar is not NoTangent:
        pbar = float(pbar)
    return MutableTangent({"dataset": xbar}), pbar


# ------------------------------------------------------------------ making the object
def _check_construct(bw_method, dweights):
    if callable(bw_method):
        raise NotImplementedError(_REFUSE.format("with a callable bw_method"))
    if not _zero(dweights):
        raise NotImplementedError(_REFUSE.format("with respect to its weights"))


def _cov_parts(kde):
    X, w, factor = _inputs(kde)
    Xc = X - (X @ w)[:, None]
    return X, w, factor, Xc, 1.0 - w @ w


def _chol_tangent(L, dC):
    """dL for C = L L^T: L Phi(L^-1 dC L^-T), Phi the lower triangle with the diagonal halved."""
    inner = np.linalg.solve(L, np.linalg.solve(L, dC.T).T)
    return L @ (np.tril(inner, -1) + 0.5 * np.diag(np.diag(inner)))


def kde_construct_tangent(kde, dataset, ddataset, bw_method=None, weights=None, dweights=NoTangent):
    from ..tangents import MutableTangent

    _check_construct(bw_method, dweights)
    if _zero(ddataset):
        return NoTangent
    X, w, factor, Xc, norm = _cov_parts(kde)
    D = np.reshape(np.asarray(ddataset, dtype=float), X.shape)
    dC = ((D * w) @ Xc.T + (Xc * w) @ D.T) / norm
    C = np.asarray(kde._data_covariance, dtype=float)
    dL = _chol_tangent(np.asarray(kde._data_cho_cov, dtype=float), dC)
    return MutableTangent({"dataset": D, "_data_covariance": dC, "covariance": dC * factor ** 2,
                           "_data_cho_cov": dL, "cho_cov": dL * factor, "log_det": float(np.sum(np.linalg.inv(C) * dC.T))})


def kde_construct_adjoint(kde, dataset, g, bw_method=None, weights=None):
    if _zero(g):
        return NoTangent
    _check_construct(bw_method, NoTangent)
    f = _fields(g)
    for name in ("_data_cho_cov", "cho_cov", "inv_cov"):
        if not _zero(f.get(name, NoTangent)):
            raise NotImplementedError(_REFUSE.format(f"through its attribute {name} in reverse mode"))
    X, w, factor, Xc, norm = _cov_parts(kde)
    Cbar = np.zeros((X.shape[0],) * 2)
    for name, scale in (("_data_covariance", 1.0), ("covariance", factor ** 2)):
        v = f.get(name, NoTangent)
        if not _zero(v):
            Cbar = Cbar + scale * np.asarray(v, dtype=float)
    v = f.get("log_det", NoTangent)
    if not _zero(v):
        Cbar = Cbar + float(v) * np.linalg.inv(np.asarray(kde._data_covariance, dtype=float)).T
    out = ((Cbar + Cbar.T) @ Xc) * w / norm
    v = f.get("dataset", NoTangent)
    if not _zero(v) and not (isinstance(dataset, np.ndarray) and np.shares_memory(dataset, kde.dataset)):
        out = out + np.asarray(v, dtype=float)  # (SciPy's view of the user's array: its adjoint is there already)
    if np.ndim(dataset) == 0:
        return float(np.sum(out))
    return np.reshape(out, np.shape(dataset))


def refused_weights(g):
    """The weights' adjoint: a refusal when used (discarded unread when the weights are a constant)."""
    from .scipy_special_more import RefusedAdjoint

    return NoTangent if _zero(g) else RefusedAdjoint(_REFUSE.format("with respect to its weights"))


# ------------------------------------------------------------------ registration
def register(registered) -> None:
    import scipy.stats as st

    from .numpy_common import _split
    from .registry import defjvp, defvjp

    cls = st.gaussian_kde
    registered[cls] = "gaussian_kde"

    def construct_jvp(t, y, dataset, bw_method=None, weights=None):
        if t.d(dataset) is None and (weights is None or t.d(weights) is None):
            return None
        return t.call(kde_construct_tangent, y, dataset, t.dz(dataset), bw_method, weights,
                      t.dz(weights) if weights is not None else NoTangent)

    def construct_vjp(t, g, y, dataset, bw_method=None, weights=None):
        varied = getattr(t, "varied", None)  # (weights that depend on the inputs: refused; constants get nothing)
        wbar = None if weights is None or (varied is not None and not varied(weights)) else t.call(refused_weights, g)
        return (t.call(kde_construct_adjoint, y, dataset, g, bw_method, weights), None, wbar)

    defjvp(cls, construct_jvp)
    defvjp(cls, construct_vjp)

    # (keyed by (class, name) for bound calls, kde.pdf(p), and by the function for calls dispatched at run
    # time, kde(p) reaching gaussian_kde.__call__ = evaluate)
    keys = [((cls, m), m) for m in METHODS] + [(getattr(cls, m), m) for m in ("evaluate", "pdf", "logpdf")]
    for key, method in keys:
        registered[key] = f"gaussian_kde.{method}"
        name = "evaluate" if method in ("__call__", "pdf") else method

        def jvp(t, y, self, points, name=name):
            if t.d(self) is None and t.d(points) is None:
                return None
            return t.call(kde_tangent, name, self, t.dz(self), points, t.dz(points), y)

        def vjp(t, g, y, self, points, name=name):
            return tuple(_split(t, t.call(kde_adjoints, name, self, points, y, g), 2))

        defjvp(key, jvp)
        defvjp(key, vjp)
