"""Rules of Python library callables that cannot be traced (issue 12): functools.reduce and the
means and deviations of `statistics`.

* `functools.reduce(f, items[, initial])` is C code calling f: like `map`, its rules run when the
  call runs, each step through `fcall` (forward) or `rcall` (reverse), so f may be any
  differentiable callable (a lambda, a user function, an operator, a ufunc).
* `statistics.fmean/mean/pstdev/stdev/pvariance/variance` are Python, but read their data through
  `try` statements and `itertools.groupby`; they get rules here, for data given as numbers (a
  list, a tuple or a 1-D array).  The deviations have derivative 0 where every value is the same
  (the kink of the square root at zero spread).
"""
from __future__ import annotations

import functools
import math
import statistics

import numpy as np

from ..tangents import NoTangent
from .registry import _entry, _fingerprint, defrule


def _run_time_reverse(fn, rrule):
    r = _entry(fn)
    r.user_rrule = rrule
    r.fingerprint = _fingerprint(r.jvp, r.user_frule, rrule)


def _item_tangents(items, dit):
    from .builtin_rules import iter_tangents

    if dit is NoTangent or dit is None:
        return [NoTangent] * len(items)
    return list(iter_tangents(items, dit))


# ------------------------------------------------------------------ functools.reduce
_NO_INITIAL = object()


def frule_reduce(args, dargs, **kwargs):
    """reduce(f, items[, initial]) step by step, each call of f through fcall."""
    from ..forward.runtime import fcall

    f, it, initial = args[0], args[1], (args[2] if len(args) > 2 else kwargs.get("initial", _NO_INITIAL))
    df = dargs[0]
    items = list(it)
    ditems = _item_tangents(items, dargs[1])
    if initial is _NO_INITIAL:
        if not items:
            raise TypeError("reduce() of empty iterable with no initial value")
        acc, dacc, start = items[0], ditems[0], 1
    else:
        acc, start = initial, 0
        dacc = dargs[2] if len(args) > 2 else NoTangent
    for x, dx in zip(items[start:], ditems[start:]):
        acc, dacc = fcall(f, df, (acc, x), (dacc, dx))
    return acc, dacc


def rrule_reduce(f, it, *rest, **kwargs):
    """reduce's reverse: each step through rcall; the pullback runs the steps' pullbacks backwards."""
    from ..reverse.adjoints import _like, accumulate
    from ..reverse.runtime import rcall

    if kwargs:
        raise NotImplementedError("reverse mode of functools.reduce with a keyword argument: pass initial positionally")
    items = list(it)
    has_initial = bool(rest)
    if not has_initial and not items:
        raise TypeError("reduce() of empty iterable with no initial value")
    acc, start = (rest[0], 0) if has_initial else (items[0], 1)
    steps = []
    for x in items[start:]:
        acc, pb = rcall(f, (acc, x), {})
        steps.append(pb)

    def pullback(g):
        f_bar = NoTangent
        bars = [NoTangent] * len(items)
        g_acc = g
        for k in reversed(range(len(steps))):
            fb, ab, _ = steps[k](g_acc)
            f_bar = accumulate(f_bar, fb)
            g_acc = ab[0]
            bars[start + k] = accumulate(bars[start + k], ab[1])
        if not has_initial and items:
            bars[0] = accumulate(bars[0], g_acc)
        it_bar = _like(it, bars) if any(b is not NoTangent for b in bars) else NoTangent
        return (f_bar, it_bar, g_acc) if has_initial else (f_bar, it_bar)

    return acc, pullback


defrule(functools.reduce, frule_reduce)
_run_time_reverse(functools.reduce, rrule_reduce)


# ------------------------------------------------------------------ statistics
def _data(data):
    """The data as a list of numbers (NumPy scalars included), or a refusal."""
    values = list(data)
    for v in values:
        if isinstance(v, (bool, complex)) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise NotImplementedError(f"derivative of a statistics function of {type(v).__name__} values: "
                                      f"numbers only (convert to float)")
    return values


def _weights(fn, values, mu):
    """(result, d result / d values as a list, d result / d mu or None)."""
    n = len(values)
    if fn in ("fmean", "mean"):
        if n == 0:
            raise statistics.StatisticsError(f"{fn} requires at least one data point")
        return math.fsum(values) / n, [1.0 / n] * n, None
    sample = fn in ("stdev", "variance")
    if n < (2 if sample else 1):
        raise statistics.StatisticsError(f"{fn} requires at least {2 if sample else 1} data points")
    m = math.fsum(values) / n if mu is None else float(mu)
    dev = [float(v) - m for v in values]
    denom = (n - 1) if sample else n
    var = math.fsum(d * d for d in dev) / denom
    # with mu given, d/dv_i = 2 (v_i - mu) / denom and d/dmu = -2 sum(v - mu) / denom; without it the
    # mean's own dependence cancels (sum of deviations is zero), giving the same formula for v_i
    dvar = [2.0 * d / denom for d in dev]
    dmu = None if mu is None else -2.0 * math.fsum(dev) / denom
    if fn in ("pvariance", "variance"):
        return var, dvar, dmu
    sd = math.sqrt(var)
    scale = 0.0 if sd == 0 else 0.5 / sd  # zero spread: slope 0 (the kink)
    return sd, [w * scale for w in dvar], None if dmu is None else dmu * scale


def _stat_value(fn, data, mu):
    # The library's own value (statistics.mean works in exact rational arithmetic).
    f = getattr(statistics, fn)
    return f(data) if mu is None else f(data, mu)


def _stat_rules(fn):
    def frule(args, dargs, **kwargs):
        data = args[0]
        if kwargs:
            raise NotImplementedError(f"derivative of statistics.{fn} with keyword arguments: pass them positionally")
        if fn == "fmean" and len(args) > 1:
            raise NotImplementedError("derivative of statistics.fmean with weights")
        mu = args[1] if len(args) > 1 else None
        dmu_in = dargs[1] if len(args) > 1 else NoTangent
        values = _data(data)
        y = _stat_value(fn, data, mu)
        _, w, wmu = _weights(fn, values, mu)
        ditems = _item_tangents(values, dargs[0])
        dy = NoTangent
        for wi, di in zip(w, ditems):
            if di is not NoTangent:
                dy = wi * di if dy is NoTangent else dy + wi * di
        if wmu is not None and dmu_in is not NoTangent and dmu_in is not None:
            dy = wmu * dmu_in if dy is NoTangent else dy + wmu * dmu_in
        return y, dy

    def rrule(*args, **kwargs):
        from ..reverse.adjoints import _like

        data = args[0]
        if kwargs:
            raise NotImplementedError(f"reverse mode of statistics.{fn} with keyword arguments")
        if fn == "fmean" and len(args) > 1:
            raise NotImplementedError("derivative of statistics.fmean with weights")
        mu = args[1] if len(args) > 1 else None
        values = _data(data)
        y = _stat_value(fn, data, mu)
        _, w, wmu = _weights(fn, values, mu)

        def pullback(g):
            if g is NoTangent or g is None:
                return (NoTangent,) * len(args)
            if isinstance(data, np.ndarray):
                bar = g * np.asarray(w, dtype=float).reshape(data.shape)
            else:
                bar = _like(data, [g * wi for wi in w])
            return (bar,) if len(args) == 1 else (bar, g * wmu)

        return y, pullback

    f = getattr(statistics, fn)
    defrule(f, frule)
    _run_time_reverse(f, rrule)


for _fn in ("fmean", "mean", "pstdev", "stdev", "pvariance", "variance"):
    _stat_rules(_fn)
