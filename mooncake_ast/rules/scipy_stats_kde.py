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
  The weights' tangent is the normalised weights' (field _weights, w / sum(w)); they move C (by
  (sum_i dw_i xc_i xc_i^T + 2 C (w . dw)) / (1 - sum w^2)) and the factor.  A callable bw_method is refused.
  The pullback takes the adjoints of dataset, _weights, covariance, _data_covariance, log_det and factor (of
  the Cholesky factors and _neff: refused).
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
def kde_model(X, w, bw, P, log):
    """SciPy's estimate at the points P (d x m) from the data X (d x n), the normalised weights w and the
    bandwidth: 'scott' or 'silverman' (factors of the weights' effective count) or the factor itself."""
    neff = 1.0 / np.sum(w * w)
    if bw == "scott":
        factor = neff ** (-1.0 / (X.shape[0] + 4))
    elif bw == "silverman":
        factor = (neff * (X.shape[0] + 2) / 4.0) ** (-1.0 / (X.shape[0] + 4))
    else:
        factor = bw
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


def _bandwidth(kde):
    """'scott', 'silverman' or the constant factor the object was made with."""
    import scipy.stats

    fn = getattr(kde.covariance_factor, "__func__", None)
    if fn is scipy.stats.gaussian_kde.scotts_factor:
        return "scott"
    if fn is scipy.stats.gaussian_kde.silverman_factor:
        return "silverman"
    if getattr(kde, "_bw_method", None) == "use constant":
        return float(kde.factor)
    raise NotImplementedError(_REFUSE.format("with a callable bw_method"))


def _inputs(kde):
    if np.iscomplexobj(kde.dataset):
        raise NotImplementedError(_REFUSE.format("of complex data"))
    return np.asarray(kde.dataset, dtype=float), np.asarray(kde.weights, dtype=float), _bandwidth(kde)


def _agree(y, y_model):
    if not np.allclose(np.asarray(y, dtype=float), y_model, rtol=1e-7, atol=1e-12):
        raise NotImplementedError(_REFUSE.format("for these arguments: the NumPy model it is differentiated through "
                                                 "gives another value"))


def kde_tangent(method, kde, dkde, points, dpoints, y):
    from ..forward.runtime import fcall

    X, w, factor = _inputs(kde)
    P = _points(kde, points)
    dX = _fields(dkde).get("dataset", NoTangent)
    dw = _fields(dkde).get("_weights", NoTangent)
    dP = NoTangent if _zero(dpoints) else np.reshape(np.asarray(dpoints, dtype=float), P.shape)
    if _zero(dX) and _zero(dw) and dP is NoTangent:
        return NoTangent
    dense = lambda d, like: np.zeros(like.shape) if _zero(d) else np.broadcast_to(np.asarray(d, dtype=float), like.shape)  # noqa: E731
    val, dval = fcall(kde_model, NoTangent, (X, w, factor, P, method == "logpdf"),
                      (dense(dX, X), dense(dw, w), NoTangent, dense(dP, P), NoTangent))
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
    from .scipy_stats_wrapped import _as_value

    _, bars, _ = pb(np.asarray(g, dtype=float))
    bars = [_as_value(v) for v in bars]  # (values of their own, not the arrays' identity-keyed storage)
    xbar = NoTangent if _zero(bars[0]) else np.array(bars[0], dtype=float)
    wbar = NoTangent if _zero(bars[1]) else np.array(bars[1], dtype=float)
    pbar = NoTangent if _zero(bars[3]) else np.reshape(np.array(bars[3], dtype=float), np.shape(points))
    if np.ndim(points) == 0 and pbar is not NoTangent:
        pbar = float(pbar)
    return MutableTangent({"dataset": xbar, "_weights": wbar}), pbar


# ------------------------------------------------------------------ making the object
def _check_construct(bw_method):
    if callable(bw_method):
        raise NotImplementedError(_REFUSE.format("with a callable bw_method"))


def _cov_parts(kde):
    X, w, _ = _inputs(kde)
    Xc = X - (X @ w)[:, None]
    return X, w, float(kde.factor), Xc, 1.0 - w @ w


def _chol_tangent(L, dC):
    """dL for C = L L^T: L Phi(L^-1 dC L^-T), Phi the lower triangle with the diagonal halved."""
    inner = np.linalg.solve(L, np.linalg.solve(L, dC.T).T)
    return L @ (np.tril(inner, -1) + 0.5 * np.diag(np.diag(inner)))


def _factor_slope(kde, w):
    """d factor / d w (normalised weights): Scott's and Silverman's factors go as neff^(-1/(d+4)), neff = 1/sum w^2;
    a constant factor does not move."""
    bw = _bandwidth(kde)
    if not isinstance(bw, str):
        return np.zeros_like(w)
    neff = 1.0 / np.dot(w, w)
    return float(kde.factor) * (-1.0 / (kde.d + 4)) / neff * (-2.0 * neff * neff * w)


def kde_construct_tangent(kde, dataset, ddataset, bw_method=None, weights=None, dweights=NoTangent):
    """The object's tangent: the data's, the normalised weights' (field _weights) and what SciPy derives from
    them (covariances, Cholesky factors, log_det, the bandwidth factor)."""
    from ..tangents import MutableTangent

    _check_construct(bw_method)
    X, w, factor, Xc, norm = _cov_parts(kde)
    C = np.asarray(kde._data_covariance, dtype=float)
    dC, df, fields = np.zeros(C.shape), 0.0, {}
    if not _zero(dweights):
        raw = np.atleast_1d(np.asarray(weights, dtype=float))
        dw = np.broadcast_to(np.asarray(dweights, dtype=float), raw.shape)
        dwn = (dw - w * np.sum(dw)) / np.sum(raw)
        fields["_weights"] = dwn
        dC = dC + ((Xc * dwn) @ Xc.T + 2.0 * np.dot(w, dwn) * C) / norm
        df = float(np.dot(_factor_slope(kde, w), dwn))
        fields["_neff"] = -2.0 * np.dot(w, dwn) / np.dot(w, w) ** 2
    if not _zero(ddataset):
        D = np.reshape(np.asarray(ddataset, dtype=float), X.shape)
        fields["dataset"] = D
        dC = dC + ((D * w) @ Xc.T + (Xc * w) @ D.T) / norm
    if not fields:
        return NoTangent
    L = np.asarray(kde._data_cho_cov, dtype=float)
    dL = _chol_tangent(L, dC)
    fields.update({"_data_covariance": dC, "covariance": dC * factor ** 2 + 2.0 * factor * df * C, "factor": df,
                   "_data_cho_cov": dL, "cho_cov": dL * factor + L * df,
                   "log_det": float(np.sum(np.linalg.inv(C) * dC.T)) + 2.0 * kde.d * df / factor})
    return MutableTangent(fields)


def kde_construct_adjoint(kde, dataset, g, bw_method=None, weights=None):
    """(the data's adjoint, the weights')."""
    if _zero(g):
        return NoTangent, NoTangent
    _check_construct(bw_method)
    f = _fields(g)
    for name in ("_data_cho_cov", "cho_cov", "inv_cov", "_neff"):
        if not _zero(f.get(name, NoTangent)):
            raise NotImplementedError(_REFUSE.format(f"through its attribute {name} in reverse mode"))
    X, w, factor, Xc, norm = _cov_parts(kde)
    C = np.asarray(kde._data_covariance, dtype=float)
    Cbar, fbar = np.zeros(C.shape), 0.0
    v = f.get("_data_covariance", NoTangent)
    if not _zero(v):
        Cbar = Cbar + np.asarray(v, dtype=float)
    v = f.get("covariance", NoTangent)
    if not _zero(v):
        Cbar = Cbar + factor ** 2 * np.asarray(v, dtype=float)
        fbar += 2.0 * factor * float(np.sum(np.asarray(v, dtype=float) * C))
    v = f.get("log_det", NoTangent)
    if not _zero(v):
        Cbar = Cbar + float(v) * np.linalg.inv(C).T
        fbar += float(v) * 2.0 * kde.d / factor
    v = f.get("factor", NoTangent)
    if not _zero(v):
        fbar += float(v)
    out = ((Cbar + Cbar.T) @ Xc) * w / norm
    v = f.get("dataset", NoTangent)
    if not _zero(v) and not (isinstance(dataset, np.ndarray) and np.shares_memory(dataset, kde.dataset)):
        out = out + np.asarray(v, dtype=float)  # (SciPy's view of the user's array: its adjoint is there already)
    xbar = float(np.sum(out)) if np.ndim(dataset) == 0 else np.reshape(out, np.shape(dataset))
    if weights is None:
        return xbar, NoTangent
    wn_bar = np.zeros_like(w)
    v = f.get("_weights", NoTangent)
    if not _zero(v):
        wn_bar = wn_bar + np.asarray(v, dtype=float)
    wn_bar = wn_bar + (np.einsum("ai,ab,bi->i", Xc, Cbar, Xc) + 2.0 * float(np.sum(Cbar * C)) * w) / norm
    wn_bar = wn_bar + fbar * _factor_slope(kde, w)
    if not np.any(wn_bar):
        return xbar, NoTangent
    raw = np.atleast_1d(np.asarray(weights, dtype=float))
    wb = (wn_bar - np.dot(wn_bar, w)) / np.sum(raw)
    return xbar, (wb.reshape(np.shape(weights)) if isinstance(weights, np.ndarray) else [float(u) for u in wb])


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
        bars = _split(t, t.call(kde_construct_adjoint, y, dataset, g, bw_method, weights), 2)
        return (bars[0], None, None if weights is None else bars[1])

    defjvp(cls, construct_jvp)
    defvjp(cls, construct_vjp)

    # (keyed by (class, name) for bound calls, kde.pdf(p), and by the function for calls dispatched at run
    # time, kde(p) reaching gaussian_kde.__call__ = evaluate)
    keys = [((cls, m), m) for m in METHODS] + [(getattr(cls, m), m) for m in ("evaluate", "pdf", "logpdf")]
    for key, method in keys:
        if isinstance(key, tuple):  # (the docs list each method once)
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
