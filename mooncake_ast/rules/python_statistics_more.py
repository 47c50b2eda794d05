"""More rules of `statistics` (issue 12): geometric_mean, harmonic_mean, correlation, linear_regression.

They are Python, but read their data through `try` statements, so they cannot be traced; each gets a
closed-form rule here (both modes), for data given as numbers (a list, a tuple or a 1-D array; an
iterator is read once).  The value is always the library's own; the rule only adds the partial
derivatives of the result with respect to every data point:

* geometric_mean(x) = exp(mean(log x)):            dy/dx_i = y / (n x_i)
* harmonic_mean(x, weights) = W / S, S = sum(w/x): dy/dx_i = y^2 w_i / (W x_i^2), dy/dw_i = (1 - y/x_i) / S
* correlation(x, y) = Sxy / sqrt(Sxx Syy):          dr/dx_i = (y_i - ybar) / sqrt(Sxx Syy) - r (x_i - xbar) / Sxx
* linear_regression(x, y) -> (slope, intercept):   slope = Sxy / Sxx, intercept = ybar - slope xbar
  (or, with proportional=True, slope = sum(x y) / sum(x^2) and intercept 0)

A result of 0 from a zero data point (geometric_mean, harmonic_mean) and correlation's `method="ranked"`
are refused rather than given a derivative.
"""
from __future__ import annotations

import math
import statistics

import numpy as np

from ..tangents import NoTangent
from .python_lib import _data, _item_tangents
from .registry import defjvp, defrrule_at_run_time


def _values(fn, data):
    values = [float(v) for v in _data(data)]
    if not values:
        raise statistics.StatisticsError(f"{fn} requires at least one data point")
    return values


def _geometric_mean(args, kw):
    if len(args) != 1 or kw:
        raise TypeError("geometric_mean() takes exactly one argument")
    x = _values("geometric_mean", args[0])
    y = statistics.geometric_mean(x)
    if y == 0 or any(v <= 0 for v in x):
        raise NotImplementedError("derivative of statistics.geometric_mean with a zero or negative data point")
    n = len(x)
    return y, [[y / (n * v) for v in x]]


def _harmonic_mean(args, kw):
    extra = set(kw) - {"weights"}
    if extra or len(args) > 2 or (len(args) == 2 and "weights" in kw):
        raise TypeError("harmonic_mean() takes data and weights")
    x = _values("harmonic_mean", args[0])
    weights = args[1] if len(args) > 1 else kw.get("weights")
    w = [1.0] * len(x) if weights is None else [float(v) for v in _data(weights)]
    y = statistics.harmonic_mean(x, w if weights is not None else None)
    if y == 0 or any(v <= 0 for v in x):
        raise NotImplementedError("derivative of statistics.harmonic_mean with a zero or negative data point")
    W = math.fsum(w)
    S = math.fsum(wi / xi for wi, xi in zip(w, x))
    dx = [y * y * wi / (W * xi * xi) for wi, xi in zip(w, x)]
    return y, [dx, [(1.0 - y / xi) / S for xi in x]] if weights is not None else [dx]


def _centered(x):
    m = math.fsum(x) / len(x)
    return m, [v - m for v in x]


def _pair(fn, args, kw, allowed):
    if len(args) != 2 or set(kw) - allowed:
        raise TypeError(f"{fn}() takes two data sequences" + (f" and {sorted(allowed)}" if allowed else ""))
    x, y = _values(fn, args[0]), _values(fn, args[1])
    if len(x) != len(y):
        raise statistics.StatisticsError(f"{fn} requires that both inputs have same number of data points")
    return x, y


def _correlation(args, kw):
    if kw.get("method", "linear") != "linear":
        raise NotImplementedError("derivative of statistics.correlation with method='ranked' (a function of ranks)")
    x, y = _pair("correlation", args, kw, {"method"})
    r = statistics.correlation(x, y, **kw)
    _, dx = _centered(x)
    _, dy = _centered(y)
    sxx, syy = math.fsum(d * d for d in dx), math.fsum(d * d for d in dy)
    root = math.sqrt(sxx * syy)
    return r, [[b / root - r * a / sxx for a, b in zip(dx, dy)], [a / root - r * b / syy for a, b in zip(dx, dy)]]


def _linear_regression(args, kw):
    x, y = _pair("linear_regression", args, kw, {"proportional"})
    out = statistics.linear_regression(x, y, **kw)
    slope, n = out.slope, len(x)
    if kw.get("proportional", False):
        sxx = math.fsum(v * v for v in x)
        ds_dx = [(b - 2.0 * slope * a) / sxx for a, b in zip(x, y)]
        ds_dy = [a / sxx for a in x]
        return out, [[ds_dx, ds_dy], [[0.0] * n, [0.0] * n]]
    xbar, dx = _centered(x)
    _, dy = _centered(y)
    sxx = math.fsum(d * d for d in dx)
    ds_dx = [(b - 2.0 * slope * a) / sxx for a, b in zip(dx, dy)]
    ds_dy = [a / sxx for a in dx]
    di_dx = [-xbar * s - slope / n for s in ds_dx]
    di_dy = [1.0 / n - xbar * s for s in ds_dy]
    return out, [[ds_dx, ds_dy], [di_dx, di_dy]]


# name -> (value and partials, positions of the data arguments, keyword name of a data argument, outputs)
TABLE = {
    "geometric_mean": (_geometric_mean, 1),
    "harmonic_mean": (_harmonic_mean, 1),
    "correlation": (_correlation, 1),
    "linear_regression": (_linear_regression, 2),
}


def _inputs(args, kw):
    """The data arguments in order (harmonic_mean's weights may come by keyword): (value, where)."""
    out = [(a, ("arg", i)) for i, a in enumerate(args)]
    if "weights" in kw and kw["weights"] is not None:
        out.append((kw["weights"], ("kw", "weights")))
    return out


def _materialized(args, kw):
    """Iterators read once, here: lists in their place."""
    args = tuple(a if isinstance(a, (list, tuple, np.ndarray)) else list(a) for a in args)
    if kw.get("weights") is not None and not isinstance(kw["weights"], (list, tuple, np.ndarray)):
        kw = dict(kw, weights=list(kw["weights"]))
    return args, kw


def _rules(name):
    compute, n_out = TABLE[name]

    def jvp(t, y, *args, **kw):
        keys = tuple(kw)
        ops = list(args) + [kw[k] for k in keys]
        if all(t.d(op) is None for op in ops):
            return None
        return t.call(stat_tangent, name, len(args), keys, *ops, *[t.dz(op) for op in ops])

    def rrule(*args, **kw):
        from ..reverse.builtin_adjoints import _like
        from .call_binding import KwAdj

        args, kw = _materialized(args, kw)
        y, jac = compute(args, kw)
        jac = jac if n_out > 1 else [jac]

        def pullback(g):
            gs = [g] if n_out == 1 else (list(g) if isinstance(g, (tuple, list)) else [NoTangent] * n_out)
            bars, named = [NoTangent] * len(args), {}
            for j, (value, (kind, key)) in enumerate(_inputs(args, kw)):
                total = None
                for gi, rows in zip(gs, jac):
                    if gi is NoTangent or gi is None:
                        continue
                    part = np.asarray(rows[j], dtype=float) * float(gi)
                    total = part if total is None else total + part
                if total is None:
                    continue
                bar = total.reshape(np.shape(value)) if isinstance(value, np.ndarray) else _like(value, [float(v) for v in total])
                if kind == "arg":
                    bars[key] = bar
                else:
                    named[key] = bar
            return tuple(bars) + ((KwAdj(named),) if named else ())

        return y, pullback

    fn = getattr(statistics, name)
    defjvp(fn, jvp)
    defrrule_at_run_time(fn, rrule)


def stat_tangent(name, n_args, keys, *ops_and_tangents):
    """The tangent of statistics.<name>(*args, **dict(zip(keys, ...))): the partials times the tangents."""
    m = len(ops_and_tangents) // 2
    ops, dops = ops_and_tangents[:m], ops_and_tangents[m:]
    if any(not isinstance(op, (list, tuple, np.ndarray)) and dop is not NoTangent for op, dop in zip(ops, dops)):
        raise NotImplementedError(f"forward mode of statistics.{name} of an iterator: pass a list")
    args, kw = tuple(ops[:n_args]), dict(zip(keys, ops[n_args:]))
    dargs, dkw = dops[:n_args], dict(zip(keys, dops[n_args:]))
    compute, n_out = TABLE[name]
    _, jac = compute(args, kw)
    jac = jac if n_out > 1 else [jac]
    douts = []
    for rows in jac:
        d = NoTangent
        for (value, (kind, key)), partials in zip(_inputs(args, kw), rows):
            dv = dargs[key] if kind == "arg" else dkw.get(key, NoTangent)
            for p, di in zip(partials, _item_tangents(list(value), dv)):
                if di is not NoTangent and di is not None:
                    d = p * di if d is NoTangent else d + p * di
        douts.append(d)
    if n_out == 1:
        return douts[0]
    return NoTangent if all(d is NoTangent for d in douts) else tuple(douts)




# ------------------------------------------------------------------ NormalDist.inv_cdf's compiled helper
# `statistics.NormalDist(mu, sigma).inv_cdf(p)` is Python that calls `_normal_dist_inv_cdf(p, mu, sigma)`, written in
# C: x = mu + sigma * Phi^-1(p), so dx/dp = 1 / pdf(x), dx/dmu = 1, dx/dsigma = (x - mu) / sigma.
def _inv_cdf_partials(p, mu, sigma):
    x = statistics._normal_dist_inv_cdf(p, mu, sigma)
    z = (x - mu) / sigma
    return x, (sigma * math.sqrt(2.0 * math.pi) * math.exp(0.5 * z * z), 1.0, z)


def _inv_cdf_frule(args, dargs, **kwargs):
    x, partials = _inv_cdf_partials(*args, **kwargs)
    dx = NoTangent
    for part, d in zip(partials, dargs):
        if d is not NoTangent and d is not None:
            dx = part * d if dx is NoTangent else dx + part * d
    return x, dx


def _inv_cdf_rrule(*args, **kwargs):
    x, partials = _inv_cdf_partials(*args, **kwargs)

    def pullback(g):
        if g is NoTangent or g is None:
            return (NoTangent,) * len(args)
        return tuple(part * g for part in partials[:len(args)])

    return x, pullback


def register() -> None:
    """Register these rules (registry._LAZY_TABLES: once the user's code has imported `statistics`, after
    python_lib's; importing this module registers nothing, so a generated module may import its helpers)."""
    from .registry import defrule

    for name in TABLE:
        if hasattr(statistics, name):
            _rules(name)
    if hasattr(statistics, "_normal_dist_inv_cdf"):
        defrule(statistics._normal_dist_inv_cdf, _inv_cdf_frule)
        defrrule_at_run_time(statistics._normal_dist_inv_cdf, _inv_cdf_rrule)
