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
import inspect
import math
from typing import Any

import numpy as np

from ..tangents import NoTangent
from .call_binding import KwAdj
from .registry import defjvp, defrrule_at_run_time, defrule

statistics: Any = None  # the module, bound by register_statistics (not imported here: see there)


def _item_tangents(items, dit):
    from .builtin_iteration import iter_tangents

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
    from ..reverse.adjoints import accumulate
    from ..reverse.builtin_adjoints import _like
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
defrrule_at_run_time(functools.reduce, rrule_reduce)


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


def _positional(fn, args, kwargs):
    """The call's arguments by position (data, then mu/xbar/weights when given)."""
    if not kwargs:
        return tuple(args)
    bound = inspect.signature(getattr(statistics, fn)).bind(*args, **kwargs)
    return tuple(bound.arguments.values())


def _weighted(values, weights):
    """fmean(values, weights) = sum(w x) / sum(w): (value, d/dx_i, d/dw_i)."""
    ws = _data(weights)
    if len(ws) != len(values):
        raise statistics.StatisticsError("data and weights must be the same length")
    total = math.fsum(float(w) for w in ws)
    y = math.fsum(float(w) * float(x) for w, x in zip(ws, values)) / total
    return y, [float(w) / total for w in ws], [(float(x) - y) / total for x in values]


def stat_tangent(fn, y, args, dargs, kwargs, dkwargs):
    """The tangent of statistics.fn(*args, **kwargs) = y (keyword arguments bound by the signature, tangents too)."""
    if kwargs:
        sig = inspect.signature(getattr(statistics, fn))
        bound = sig.bind(*args, **kwargs)
        dbound = sig.bind(*dargs, **{k: dkwargs.get(k, NoTangent) for k in kwargs})
        args, dargs = tuple(bound.arguments.values()), tuple(dbound.arguments.values())
    dargs = tuple(dargs) + (NoTangent,) * (len(args) - len(dargs))
    data = args[0]
    second = args[1] if len(args) > 1 else None
    values = _data(data)
    if fn == "fmean" and second is not None:
        _, w, wmu = _weighted(values, second)
        pairs = list(zip(w, _item_tangents(values, dargs[0]))) + list(zip(wmu, _item_tangents(_data(second), dargs[1])))
    else:
        _, w, wmu = _weights(fn, values, second)
        pairs = list(zip(w, _item_tangents(values, dargs[0])))
        if wmu is not None and dargs[1] is not NoTangent and dargs[1] is not None:
            pairs.append((wmu, dargs[1]))
    dy = NoTangent
    for wi, di in pairs:
        if di is not NoTangent and di is not None:
            dy = wi * di if dy is NoTangent else dy + wi * di
    return dy


def _stat_rules(fn):
    def jvp(t, y, *args, **kwargs):
        from .. import ops

        if all(t.d(a) is None for a in (*args, *kwargs.values())):
            return None
        names = [z for k, v in kwargs.items() for z in (k, v)]
        dnames = [z for k, v in kwargs.items() for z in (k, t.dz(v))]
        return t.call(stat_tangent, fn, y, t.call(ops.tuple_of, *args), t.call(ops.tuple_of, *[t.dz(a) for a in args]),
                      t.call(ops.dict_of, *names), t.call(ops.dict_of, *dnames))

    def rrule(*args, **kwargs):
        from ..reverse.builtin_adjoints import _like

        given = len(args)
        full = _positional(fn, args, kwargs)
        data = full[0]
        second = full[1] if len(full) > 1 else None
        values = _data(data)
        y = getattr(statistics, fn)(*full)
        if fn == "fmean" and second is not None:
            _, w, wmu = _weighted(values, second)
        else:
            _, w, wmu = _weights(fn, values, second)

        def like(x, parts):
            if isinstance(x, np.ndarray):
                return np.asarray(parts, dtype=float).reshape(x.shape)
            return _like(x, parts)

        def pullback(g):
            if g is NoTangent or g is None:
                return (NoTangent,) * given
            bars = [like(data, [g * wi for wi in w])]
            if len(full) > 1:
                if fn == "fmean":
                    bars.append(NoTangent if second is None else like(second, [g * wi for wi in wmu]))
                else:
                    bars.append(NoTangent if wmu is None else g * wmu)
            params = list(inspect.signature(f).parameters)
            named = {k: bars[params.index(k)] for k in kwargs if params.index(k) < len(bars)}
            named = {k: v for k, v in named.items() if v is not NoTangent}
            return tuple(bars[:given]) + ((KwAdj(named),) if named else ())

        return y, pullback

    f = getattr(statistics, fn)
    defjvp(f, jvp)
    defrrule_at_run_time(f, rrule, stat_tangent)


def register_statistics() -> None:
    """Register the rules of `statistics` (registry._LAZY_TABLES: once the user's code has imported it, which costs
    `import mooncake_ast` 2.5 ms otherwise).  The module global `statistics` the rules' code reads is bound here:
    nothing else reaches that code (python_statistics_more, which calls it too, is registered after this)."""
    global statistics
    import statistics

    for fn in ("fmean", "mean", "pstdev", "stdev", "pvariance", "variance"):
        _stat_rules(fn)
