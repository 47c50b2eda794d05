"""NumPy rules, both modes: statistics (average, ptp, median/percentile/quantile, the nan-reductions, cov, corrcoef).

Split from numpy_extra.py, whose helpers they share."""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent
from .numpy_common import _bind, _inexact, _refuse_keywords, _split, _unb
from .numpy_reductions import extremum_adjoint, extremum_tangent, sum_adjoint
from .call_binding import KwAdj
from .registry import defjvp, defvjp
from .numpy_extra import _dz, _like, _number, _refuse_tangent, _refused, _zero, refuse_option


# ================================================================== statistics
def _axes(nd, axis):
    if axis is None:
        return tuple(range(nd))
    return tuple(int(a) % nd for a in ((axis,) if np.ndim(axis) == 0 else axis))


def _keep_shape(x, axis):
    """The shape of a reduction of x over axis with keepdims=True."""
    ax = _axes(np.ndim(x), axis)
    return tuple(1 if i in ax else n for i, n in enumerate(np.shape(x)))


def _as_kept(g, x, axis):
    """An adjoint of a reduction of x over axis, reshaped as if keepdims=True (to broadcast against x)."""
    return np.asarray(g).reshape(_keep_shape(x, axis))


def _out(v, like):
    """v shaped like the primal result `like` (a number if it is one)."""
    v = np.asarray(v).reshape(np.shape(like))
    return v[()] if v.ndim == 0 else v


# ------------------------------------------------------------------ np.average
_AVERAGE = ("axis", "weights", "returned")


def _average_weights(a, w, axis):
    """The weights broadcast against a, as np.average does (1-D weights along an int axis)."""
    a = np.asarray(a)
    w = np.asarray(w)
    if w.shape == a.shape:
        return w
    if axis is None or np.ndim(axis) != 0:
        raise NotImplementedError("derivative of np.average with weights shaped unlike a and a tuple axis")
    shape = [1] * a.ndim
    shape[int(axis) % a.ndim] = w.shape[0]
    return w.reshape(shape)


def average_tangent(a, y, da, dw, axis=None, weights=None, returned=False, keepdims=False):
    if returned:  # (average, sum of the weights): the sum's tangent is the weights' summed
        d = _average_tangent(a, y[0], da, dw, axis, weights, keepdims)
        if weights is None or _zero(dw):
            return d, _out(np.zeros(np.shape(y[1])), y[1])
        a_ = _inexact(a)
        dws = np.broadcast_to(_average_weights(a_, _dz(weights, dw), axis), a_.shape)
        return d, _out(np.broadcast_to(np.sum(dws, axis=axis, keepdims=True), _keep_shape(a_, axis)), y[1])
    return _average_tangent(a, y, da, dw, axis, weights, keepdims)


def _average_tangent(a, y, da, dw, axis, weights, keepdims):
    a = _inexact(a)
    if weights is None:
        return _out(np.mean(np.broadcast_to(_dz(a, da), a.shape), axis=axis, keepdims=True), y)
    w = _average_weights(a, weights, axis)
    sw = np.sum(np.broadcast_to(w, a.shape), axis=axis, keepdims=True)
    out = 0.0
    if not _zero(da):
        out = out + np.sum(w * _dz(a, da), axis=axis, keepdims=True) / sw
    if not _zero(dw):
        yk = np.sum(a * w, axis=axis, keepdims=True) / sw
        out = out + np.sum((a - yk) * _average_weights(a, _dz(weights, dw), axis), axis=axis, keepdims=True) / sw
    return _out(np.broadcast_to(out, _keep_shape(a, axis)), y)


def average_adjoint(g, a, axis=None, weights=None, returned=False, keepdims=False):
    """(a's adjoint, the weights' adjoint); with returned=True g is (the average's, the sum of the weights')."""
    if returned:
        gs = list(g) if isinstance(g, (tuple, list)) else [NoTangent, NoTangent]
        abar, wbar = average_adjoint(gs[0], a, axis, weights, False, keepdims)
        if weights is not None and not _zero(gs[1]):
            a_ = _inexact(a)
            w = _average_weights(a_, weights, axis)
            part = _unb(np.broadcast_to(_as_kept(gs[1], a_, axis), a_.shape), w).reshape(np.shape(weights))
            wbar = _number(part) if wbar is NoTangent else wbar + part
        return abar, wbar
    if _zero(g):
        return NoTangent, NoTangent
    a = _inexact(a)
    gk = _as_kept(g, a, axis)
    if weights is None:
        return _number(mean_like(a, gk, axis)), NoTangent
    w = _average_weights(a, weights, axis)
    sw = np.sum(np.broadcast_to(w, a.shape), axis=axis, keepdims=True)
    yk = np.sum(a * w, axis=axis, keepdims=True) / sw
    abar = np.broadcast_to(gk * w / sw, a.shape)
    wbar = _unb(np.broadcast_to(gk * (a - yk) / sw, a.shape), w).reshape(np.shape(weights))
    return _number(abar.copy() if a.ndim else abar[()]), _number(wbar)


def mean_like(a, gk, axis):
    n = np.prod([np.shape(a)[i] for i in _axes(np.ndim(a), axis)])
    out = np.broadcast_to(gk / n, np.shape(a)).copy()
    return out[()] if out.ndim == 0 else out


def _average_jvp(t, y, a, p, k):
    b = _bind(_AVERAGE, p, k)
    w = b.get("weights")
    if t.d(a) is None and t.d(w) is None:
        return None
    kw = {n: b[n] for n in ("axis", "weights", "returned", "keepdims") if n in b}
    return t.call(average_tangent, a, y, t.dz(a), t.dz(w), **kw)


def _average_vjp(t, g, a, p, k):
    b = _bind(_AVERAGE, p, k)
    kw = {n: b[n] for n in ("axis", "weights", "returned", "keepdims") if n in b}
    abar, wbar = _split(t, t.call(average_adjoint, g, a, **kw), 2)
    named = (KwAdj(weights=wbar),) if "weights" in k else ()  # np.average(a, weights=w): w's adjoint by name
    return ((abar, None, wbar) + (None,) * 3)[:1 + len(p)] + named


defjvp(np.average, lambda t, y, a, *p, **k: _average_jvp(t, y, a, p, k))
defvjp(np.average, lambda t, g, y, a, *p, **k: _average_vjp(t, g, a, p, k))


# ------------------------------------------------------------------ np.ptp
def ptp_tangent(a, da, axis=None, out=None, keepdims=False):
    refuse_option("np.ptp", "out=", out is not None)
    hi, lo = np.max(a, axis=axis, keepdims=keepdims), np.min(a, axis=axis, keepdims=keepdims)
    da = _dz(a, da)
    return extremum_tangent(a, hi, da, axis, keepdims) - extremum_tangent(a, lo, da, axis, keepdims)


def ptp_adjoint(a, g, axis=None, out=None, keepdims=False):
    refuse_option("np.ptp", "out=", out is not None)
    if _zero(g):
        return NoTangent
    hi, lo = np.max(a, axis=axis, keepdims=keepdims), np.min(a, axis=axis, keepdims=keepdims)
    return _number(extremum_adjoint(a, hi, g, axis, keepdims) - extremum_adjoint(a, lo, g, axis, keepdims))


defjvp(np.ptp, lambda t, y, a, *p, **k: t.call(ptp_tangent, a, t.d(a), *p, **k) if t.d(a) is not None else None)
defvjp(np.ptp, lambda t, g, y, a, *p, **k: (t.call(ptp_adjoint, a, g, *p, **k),) + (None,) * len(p))


# ------------------------------------------------------------------ nansum, nanmean, nanmax, nanmin, nanvar, nanstd
def _nan_args(name, out=None, where=None, **kw):
    refuse_option(name, "out=", out is not None)
    refuse_option(name, "where=", where is not None)
    for key in kw:
        if key == "mean":
            raise NotImplementedError(f"derivative of {name} with mean=")


def _valid(a):
    a = np.asarray(a)
    return ~np.isnan(a) if a.dtype.kind in "fc" else np.ones(a.shape, dtype=bool)


def nansum_tangent(a, da, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    _nan_args("np.nansum", out, where)
    return np.sum(np.where(_valid(a), _dz(a, da), 0.0), axis=axis, keepdims=keepdims)


def nansum_adjoint(a, g, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    _nan_args("np.nansum", out, where)
    if _zero(g):
        return NoTangent
    return _number(_out(np.where(_valid(a), sum_adjoint(np.asarray(a), g, axis, keepdims), 0.0), a))


def _ones_for_nan(a):
    a = _inexact(a)
    return np.where(_valid(a), a, 1.0)


def nanprod_tangent(a, da, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """np.nanprod is np.prod with each NaN taken as 1 (a constant: no derivative there)."""
    _nan_args("np.nanprod", out, where)
    from .numpy_reductions import prod_tangent

    d = np.where(_valid(a), np.broadcast_to(_dz(a, da), np.shape(a)), 0.0)
    return _number(prod_tangent(_ones_for_nan(a), d, axis, keepdims))


def nanprod_adjoint(a, g, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    _nan_args("np.nanprod", out, where)
    if _zero(g):
        return NoTangent
    from .numpy_reductions import prod_adjoint

    return _number(_out(np.where(_valid(a), prod_adjoint(_ones_for_nan(a), np.asarray(g), axis, keepdims), 0.0), a))


def nanmean_tangent(a, da, axis=None, dtype=None, out=None, keepdims=False, where=None):
    _nan_args("np.nanmean", out, where)
    v = _valid(a)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.sum(np.where(v, _dz(a, da), 0.0), axis=axis, keepdims=keepdims) / np.sum(v, axis=axis, keepdims=keepdims)


def nanmean_adjoint(a, g, axis=None, dtype=None, out=None, keepdims=False, where=None):
    _nan_args("np.nanmean", out, where)
    if _zero(g):
        return NoTangent
    v = _valid(a)
    with np.errstate(invalid="ignore", divide="ignore"):
        gk = _as_kept(g, a, axis) / np.sum(v, axis=axis, keepdims=True)
    return _number(_out(np.where(v, gk, 0.0), a))


def nanext_tangent(name, a, y, da, axis=None, out=None, keepdims=False, initial=None, where=None):
    _nan_args(name, out, where)
    refuse_option(name, "initial=", initial is not None)
    return extremum_tangent(a, y, np.broadcast_to(_dz(a, da), np.shape(a)), axis, keepdims)


def nanext_adjoint(name, a, y, g, axis=None, out=None, keepdims=False, initial=None, where=None):
    _nan_args(name, out, where)
    refuse_option(name, "initial=", initial is not None)
    if _zero(g):
        return NoTangent
    return _number(_out(extremum_adjoint(a, y, g, axis, keepdims), a))


def _nanvar_parts(a, axis, ddof, correction):
    ddof = correction if correction is not None else ddof
    a = _inexact(a)
    v = _valid(a)
    n = np.sum(v, axis=axis, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.sum(np.where(v, a, 0.0), axis=axis, keepdims=True) / n
        scale = 2.0 / (n - ddof)
    return v, np.where(v, a - mean, 0.0), scale


def nanvar_tangent(name, a, y, da, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None, correction=None):
    _nan_args(name, out, where, **({"mean": mean} if mean is not None else {}))
    v, centred, scale = _nanvar_parts(a, axis, ddof, correction)
    change = np.real(np.conj(centred) * _dz(a, da))  # |x - mean|^2 changes by 2 Re(conj(x - mean) dx)
    dvar = np.sum(scale * change, axis=axis, keepdims=keepdims)
    if name == "np.nanstd":
        with np.errstate(invalid="ignore", divide="ignore"):
            dvar = dvar / (2.0 * np.asarray(y))
    return dvar[()] if np.ndim(dvar) == 0 else dvar


def nanvar_adjoint(name, a, y, g, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None, correction=None):
    _nan_args(name, out, where, **({"mean": mean} if mean is not None else {}))
    if _zero(g):
        return NoTangent
    v, centred, scale = _nanvar_parts(a, axis, ddof, correction)
    gk = _as_kept(g, a, axis)
    if name == "np.nanstd":
        with np.errstate(invalid="ignore", divide="ignore"):
            gk = gk / (2.0 * _as_kept(y, a, axis))
    return _number(_out(scale * centred * gk, a))


defjvp(np.nanprod, lambda t, y, a, *p, **k: t.call(nanprod_tangent, a, t.d(a), *p, **k) if t.d(a) is not None else None)
defvjp(np.nanprod, lambda t, g, y, a, *p, **k: (t.call(nanprod_adjoint, a, g, *p, **k),) + (None,) * len(p))
defjvp(np.nansum, lambda t, y, a, *p, **k: t.call(nansum_tangent, a, t.d(a), *p, **k) if t.d(a) is not None else None)
defvjp(np.nansum, lambda t, g, y, a, *p, **k: (t.call(nansum_adjoint, a, g, *p, **k),) + (None,) * len(p))
defjvp(np.nanmean, lambda t, y, a, *p, **k: t.call(nanmean_tangent, a, t.d(a), *p, **k) if t.d(a) is not None else None)
defvjp(np.nanmean, lambda t, g, y, a, *p, **k: (t.call(nanmean_adjoint, a, g, *p, **k),) + (None,) * len(p))
for _fn, _name in ((np.nanmax, "np.nanmax"), (np.nanmin, "np.nanmin")):
    defjvp(_fn, lambda t, y, a, *p, _name=_name, **k: t.call(nanext_tangent, _name, a, y, t.d(a), *p, **k) if t.d(a) is not None else None)
    defvjp(_fn, lambda t, g, y, a, *p, _name=_name, **k: (t.call(nanext_adjoint, _name, a, y, g, *p, **k),) + (None,) * len(p))
for _fn, _name in ((np.nanvar, "np.nanvar"), (np.nanstd, "np.nanstd")):
    defjvp(_fn, lambda t, y, a, *p, _name=_name, **k: t.call(nanvar_tangent, _name, a, y, t.d(a), *p, **k) if t.d(a) is not None else None)
    defvjp(_fn, lambda t, g, y, a, *p, _name=_name, **k: (t.call(nanvar_adjoint, _name, a, y, g, *p, **k),) + (None,) * len(p))


# ------------------------------------------------------------------ np.cov, np.corrcoef
_COV = ("y", "rowvar", "bias", "ddof", "fweights", "aweights")


def _cov_layout(m, y, rowvar):
    """The variables-by-observations matrix np.cov builds from m (and y), and how many rows are m's."""
    m = np.asarray(m)
    X = np.array(m, ndmin=2, dtype=np.result_type(m, float))
    if not rowvar and m.ndim != 1:
        X = X.T
    rows = X.shape[0]
    if y is not None:
        Y = np.array(y, ndmin=2, dtype=np.result_type(np.asarray(y), float))
        if not rowvar and Y.shape[0] != 1:
            Y = Y.T
        X = np.concatenate((X, Y), axis=0)
    return X, rows


def _cov_parts(m, y, rowvar, bias, ddof, fweights, aweights, dtype=None):
    """(X, the centred X times the observations' weights, m's rows, the divisor), as np.cov computes them: with
    weights w = fweights * aweights (constants), C = (X - avg) diag(w) (X - avg)^H / fact."""
    X, rows = _cov_layout(m, y, rowvar)
    if ddof is None:
        ddof = 0 if bias else 1
    w = None if fweights is None else np.asarray(fweights, dtype=float)
    if aweights is not None:
        w = np.asarray(aweights, dtype=float) if w is None else w * np.asarray(aweights, dtype=float)
    if w is None:
        Xc = X - X.mean(axis=1, keepdims=True)
        return X, Xc, rows, X.shape[1] - ddof
    v1 = np.sum(w)
    Xc = X - (X * w).sum(axis=1, keepdims=True) / v1
    if ddof == 0:
        fact = v1
    elif aweights is None:
        fact = v1 - ddof
    else:
        fact = v1 - ddof * np.sum(w * np.asarray(aweights, dtype=float)) / v1
    return X, Xc * w, rows, fact  # ((Xc w) sums to zero over the observations: the mean's change drops out)


def _cov_change(m, y, dm, dy, rowvar, Xc, fact):
    """dC = (dX Xc^H + Xc dX^H) / fact: the mean's change drops out, as Xc's rows sum to zero (Xc: centred and
    weighted)."""
    dX, _ = _cov_layout(_dz(m, dm), None if y is None else _dz(y, dy), rowvar)
    P = dX @ Xc.T.conj()
    return (P + P.T.conj()) / fact


def _aweights_parts(m, y, rowvar, bias, ddof, fweights, aweights):
    """(the centred, unweighted X, C, fact, f = fweights or 1, a = aweights, v1, ddof) for the derivative in aweights.
    With w = f a, v1 = sum w: C = Xu diag(w) Xu^T / fact (the mean's change drops out: Xu w sums to zero) and
    fact = v1 (ddof 0) or v1 - ddof sum(w a) / v1."""
    X, Xcw, rows, fact = _cov_parts(m, y, rowvar, bias, ddof, fweights, aweights)
    if np.iscomplexobj(X):
        raise NotImplementedError("derivative of np.cov of complex values with respect to aweights")
    a = np.asarray(aweights, dtype=float)
    f = np.ones_like(a) if fweights is None else np.asarray(fweights, dtype=float)
    w = f * a
    v1 = np.sum(w)
    Xu = X - (X * w).sum(axis=1, keepdims=True) / v1
    ddof = (0 if bias else 1) if ddof is None else ddof
    return Xu, Xcw @ Xu.T / fact, fact, f, a, v1, ddof


def _fact_slope(f, a, v1, ddof):
    """d fact / d a_k."""
    if ddof == 0:
        return f
    w = f * a
    return f - ddof * (2.0 * w / v1 - np.sum(w * a) * f / v1 ** 2)


def cov_aweights_tangent(m, da, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    Xu, C, fact, f, a, v1, dd = _aweights_parts(m, y, rowvar, bias, ddof, fweights, aweights)
    da = np.broadcast_to(np.asarray(da, dtype=float), a.shape)
    out = ((Xu * (f * da)) @ Xu.T - C * np.sum(_fact_slope(f, a, v1, dd) * da)) / fact
    out = out.squeeze()
    return out[()] if out.ndim == 0 else out


def cov_aweights_adjoint(g, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    if _zero(g):
        return NoTangent
    Xu, C, fact, f, a, v1, dd = _aweights_parts(m, y, rowvar, bias, ddof, fweights, aweights)
    G = np.asarray(g, dtype=float).reshape(C.shape)
    bar = (f * np.einsum("ik,ij,jk->k", Xu, G, Xu) - np.sum(G * C) * _fact_slope(f, a, v1, dd)) / fact
    return _number(bar) if np.ndim(aweights) == 0 else _like(bar, aweights)


def cov_tangent(m, dm, dy, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    X, Xc, rows, fact = _cov_parts(m, y, rowvar, bias, ddof, fweights, aweights)
    out = _cov_change(m, y, dm, dy, rowvar, Xc, fact).squeeze()
    return out[()] if out.ndim == 0 else out


def _cov_back(Cbar, m, y, rowvar, Xc, rows, fact):
    """(m's adjoint, y's adjoint) from the adjoint of the full covariance matrix."""
    Xbar = (Cbar + Cbar.T) @ Xc / fact
    out = []
    for v, part in ((m, Xbar[:rows]), (y, Xbar[rows:])):
        if v is None:
            out.append(NoTangent)
            continue
        v_arr = np.asarray(v)
        if not rowvar and (v_arr.ndim != 1 if v is m else np.array(v, ndmin=2).shape[0] != 1):
            part = part.T
        out.append(_number(_out(part, v_arr)) if np.ndim(v) == 0 else _like(part.reshape(-1), v))
    return tuple(out)


def cov_adjoint(g, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    if _zero(g):
        return NoTangent, NoTangent
    X, Xc, rows, fact = _cov_parts(m, y, rowvar, bias, ddof, fweights, aweights)
    p = X.shape[0]
    return _cov_back(np.asarray(g, dtype=float).reshape(p, p), m, y, rowvar, Xc, rows, fact)


def _cov_jvp(t, m, p, k):
    b = _bind(_COV, p, k)
    y = b.get("y")
    aw = b.get("aweights")
    if t.d(m) is None and t.d(y) is None and t.d(aw) is None:
        return None
    _refuse_tangent(t, "np.cov", "fweights (whole counts)", b.get("fweights"))
    out = None if t.d(m) is None and t.d(y) is None else t.call(cov_tangent, m, t.dz(m), t.dz(y), **b)
    if t.d(aw) is not None:
        out = t.add(out, t.call(cov_aweights_tangent, m, t.dz(aw), **b))
    return out


def _cov_vjp(t, g, m, p, k):
    from .call_binding import KwAdj

    takes_kw = getattr(t, "keyword_adjoints", False)
    _refuse_keywords(t, "np.cov", **{n: v for n, v in k.items() if n in ("y", "fweights") or (n == "aweights" and not takes_kw)})
    b = _bind(_COV, p, k)
    mbar, ybar = _split(t, t.call(cov_adjoint, g, m, **b), 2)
    needs = getattr(t, "needs", None)
    aw = b.get("aweights")
    awbar = None if aw is None or (needs is not None and not needs(aw)) else t.call(cov_aweights_adjoint, g, m, **b)
    weights = (_refused(t, g, "np.cov", "fweights (whole counts)", p[4]) if len(p) > 4 else None, awbar if len(p) > 5 else None)
    out = ((mbar, ybar, None, None, None) + weights + (None,))[:1 + len(p)]
    return out + ((KwAdj(aweights=awbar),) if "aweights" in k and awbar is not None and takes_kw else ())


defjvp(np.cov, lambda t, _r, m, *p, **k: _cov_jvp(t, m, p, k))
defvjp(np.cov, lambda t, g, _r, m, *p, **k: _cov_vjp(t, g, m, p, k))

_CORRCOEF = ("y", "rowvar")


def _corr_parts(C):
    d = np.real(np.diagonal(C))
    s = np.sqrt(d)
    return d, s, np.outer(s, s)


def corrcoef_tangent(x, dx, dy, y=None, rowvar=True, dtype=None):
    X, Xc, rows, fact = _cov_parts(x, y, rowvar, False, None, None, None)
    C = Xc @ Xc.T.conj() / fact
    if C.shape == (1, 1):
        return 0.0  # np.corrcoef of one variable is the constant 1
    dC = _cov_change(x, y, dx, dy, rowvar, Xc, fact)
    d, s, S = _corr_parts(C)
    R = C / S
    dd = np.real(np.diagonal(dC)) / d
    dR = dC / S - R * 0.5 * (dd[:, None] + dd[None, :])
    np.fill_diagonal(dR, 0.0)  # the diagonal is the constant 1
    return dR


def corrcoef_adjoint(g, x, y=None, rowvar=True, dtype=None):
    if _zero(g):
        return NoTangent, NoTangent
    X, Xc, rows, fact = _cov_parts(x, y, rowvar, False, None, None, None)
    C = Xc @ Xc.T / fact
    if C.shape == (1, 1):
        return (_number(np.zeros(np.shape(x))) if np.ndim(x) else 0.0), NoTangent
    d, s, S = _corr_parts(C)
    R = C / S
    Rbar = np.array(g, dtype=float)
    np.fill_diagonal(Rbar, 0.0)
    Cbar = Rbar / S
    ddbar = -0.5 * (np.sum(Rbar * R, axis=1) + np.sum(Rbar * R, axis=0)) / d
    Cbar = Cbar + np.diag(ddbar)
    return _cov_back(Cbar, x, y, rowvar, Xc, rows, fact)


def _corrcoef_jvp(t, x, p, k):
    b = _bind(_CORRCOEF, p, k)
    y = b.get("y")
    if t.d(x) is None and t.d(y) is None:
        return None
    return t.call(corrcoef_tangent, x, t.dz(x), t.dz(y), **b)


def _corrcoef_vjp(t, g, x, p, k):
    _refuse_keywords(t, "np.corrcoef", **{n: v for n, v in k.items() if n == "y"})
    xbar, ybar = _split(t, t.call(corrcoef_adjoint, g, x, **_bind(_CORRCOEF, p, k)), 2)
    return ((xbar, ybar, None))[:1 + len(p)]


defjvp(np.corrcoef, lambda t, _r, x, *p, **k: _corrcoef_jvp(t, x, p, k))
defvjp(np.corrcoef, lambda t, g, _r, x, *p, **k: _corrcoef_vjp(t, g, x, p, k))
