"""`scipy.stats.linregress` (issue 12), both modes; registered by scipy_stats.register() once the user's code
has imported scipy.stats.

Tracing SciPy's code works (its result class has a rule in python_bunches.py) but costs seconds per new
signature and stops at a batch (`axis=`), so this rule computes the derivative itself.  Every output is a
function of five statistics of the samples, taken along `axis` (the last axis once moved):

    xm = mean(x), ym = mean(y), Sxx = mean(dx*dx), Sxy = mean(dx*dy), Syy = mean(dy*dy)   (dx = x - xm, ...)

with tangents  dxm = mean(x'), dSxx = 2 mean(dx x'), dSxy = mean(x' dy + dx y'), dSyy = 2 mean(dy y')
(the mean of dx is zero), and SciPy's formulas from there: slope = Sxy/Sxx, intercept = ym - slope xm,
r = Sxy/sqrt(Sxx Syy) (clipped to [-1, 1]: zero derivative where it clips), t = r sqrt(df/((1-r+T)(1+r+T))),
the p-value through Student's t with df = n - 2 (two-sided 2 sf(|t|), 'less' cdf(t), 'greater' sf(t)),
stderr = sqrt((1-r^2) Syy/Sxx/df) and intercept_stderr = stderr sqrt(Sxx + xm^2); with two points SciPy
returns constant p-value and standard errors.

`_outputs` propagates the five statistics' tangents to the six outputs; reverse mode runs it once per
statistic (unit tangents) to get the Jacobian, elementwise over the batch, and pulls the output adjoints
through it.  Our own values are compared with SciPy's (a later SciPy computing something else is refused,
not differentiated wrongly).  Refused: samples holding NaN, y constant along the axis (r is not
differentiable there), x and y of different shapes (broadcast samples), complex data.
"""
from __future__ import annotations

import inspect

import numpy as np

from ..tangents import NoTangent

FUNCTIONS = ["linregress"]
_TINY = 1.0e-20  # (SciPy's, inside t)


def _bind(fn, args, kwargs):
    b = inspect.signature(fn).bind(*args, **kwargs)  # raises TypeError as the call would
    b.apply_defaults()
    a = b.arguments
    if a.get("y") is None:
        raise NotImplementedError("derivative of scipy.stats.linregress without y: pass x and y")
    x, y = np.asarray(a["x"]), np.asarray(a["y"])
    if np.iscomplexobj(x) or np.iscomplexobj(y):
        raise NotImplementedError("derivative of scipy.stats.linregress of complex data")
    if x.shape != y.shape:
        raise NotImplementedError("derivative of scipy.stats.linregress of x and y of different shapes (broadcast "
                                  "them first: np.broadcast_arrays(x, y))")
    if np.isnan(x).any() or np.isnan(y).any():
        raise NotImplementedError("derivative of scipy.stats.linregress of samples holding NaN (remove them first)")
    return a


def _samples(v, axis):
    v = np.asarray(v, dtype=float)
    return v.reshape(-1) if axis is None else np.moveaxis(v, axis, -1)


def _back(bar, like, axis):
    """An adjoint laid out like the sample `like` (undoing _samples)."""
    return bar.reshape(np.shape(like)) if axis is None else np.moveaxis(bar, -1, axis)


def _stats(xs, ys):
    xm, ym = xs.mean(-1), ys.mean(-1)
    dx, dy = xs - xm[..., None], ys - ym[..., None]
    return (xm, ym, (dx * dx).mean(-1), (dx * dy).mean(-1), (dy * dy).mean(-1)), dx, dy


def _outputs(n, alternative, s, ds):
    """The six outputs and their tangents, from the statistics s = (xm, ym, Sxx, Sxy, Syy) and tangents ds."""
    import scipy.stats

    xm, ym, sxx, sxy, syy = s
    dxm, dym, dsxx, dsxy, dsyy = ds
    slope = sxy / sxx
    dslope = dsxy / sxx - sxy * dsxx / sxx ** 2
    intercept = ym - slope * xm
    dintercept = dym - dslope * xm - slope * dxm
    root = np.sqrt(sxx * syy)
    r0 = sxy / root
    dr0 = dsxy / root - 0.5 * r0 * (dsxx / sxx + dsyy / syy)
    r = np.clip(r0, -1.0, 1.0)
    dr = np.where(np.abs(r0) > 1.0, 0.0, dr0)
    zero = np.zeros_like(r)
    if n == 2:
        return (slope, intercept, r, None, zero, zero), (dslope, dintercept, dr, zero, zero, zero)
    df = n - 2
    q = (1.0 - r + _TINY) * (1.0 + r + _TINY)
    root_q = np.sqrt(df / q)
    t = r * root_q
    dt = root_q * dr * (1.0 + r * r / q)
    density = scipy.stats.t.pdf(t, df)
    if alternative == "less":
        p, dp = scipy.stats.t.cdf(t, df), density * dt
    elif alternative == "greater":
        p, dp = scipy.stats.t.sf(t, df), -density * dt
    else:
        p, dp = 2.0 * scipy.stats.t.sf(np.abs(t), df), -2.0 * density * np.sign(t) * dt
    inner = (1.0 - r * r) * syy / sxx / df
    dinner = (-2.0 * r * dr * syy / sxx + (1.0 - r * r) * (dsyy / sxx - syy * dsxx / sxx ** 2)) / df
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.sqrt(inner)
        dse = dinner / (2.0 * se)  # (not differentiable where the fit is exact: NaN there)
        lever = np.sqrt(sxx + xm * xm)
        ise = se * lever
        dise = dse * lever + se * (dsxx + 2.0 * xm * dxm) / (2.0 * lever)
    return (slope, intercept, r, p, se, ise), (dslope, dintercept, dr, dp, dse, dise)


def _check(y, mine):
    """Refuse, rather than differentiate something else, when SciPy's values are not ours."""
    theirs = [*tuple(y), y.intercept_stderr]
    for ours, v in zip(mine, theirs):
        if ours is None:
            continue
        if not np.allclose(np.asarray(v, dtype=float), ours, rtol=1e-7, atol=1e-12, equal_nan=True):
            raise NotImplementedError("derivative of scipy.stats.linregress: SciPy's result is not the one this rule "
                                      "differentiates (another SciPy version's formula?)")


def _prepare(fn, args, kwargs):
    a = _bind(fn, args, kwargs)
    axis = a["axis"]
    xs, ys = _samples(a["x"], axis), _samples(a["y"], axis)
    s, dx, dy = _stats(xs, ys)
    if np.any(s[4] == 0):
        raise NotImplementedError("derivative of scipy.stats.linregress where y is constant: the correlation is not "
                                  "differentiable there")
    return a, axis, xs.shape[-1], s, dx, dy


def _shaped(v, like):
    v = np.asarray(v, dtype=float)
    return v.reshape(np.shape(like)) if np.ndim(like) else float(v)


def linregress_tangent(fn, y, args, dargs, kwargs, dkwargs):
    from .python_bunches import BunchTangent

    a, axis, n, s, dx, dy = _prepare(fn, args, kwargs)
    names = list(inspect.signature(fn).bind(*args, **kwargs).arguments)
    dnamed = dict(zip(names, list(dargs) + [dkwargs.get(k, NoTangent) for k in names[len(dargs):]]))
    tx, ty = dnamed.get("x", NoTangent), dnamed.get("y", NoTangent)
    zero = np.zeros(dx.shape)
    tx = zero if tx is NoTangent or tx is None else _samples(tx, axis)
    ty = zero if ty is NoTangent or ty is None else _samples(ty, axis)
    ds = (tx.mean(-1), ty.mean(-1), 2.0 * (dx * tx).mean(-1), (tx * dy + dx * ty).mean(-1), 2.0 * (dy * ty).mean(-1))
    values, tangents = _outputs(n, a["alternative"], s, ds)
    _check(y, values)
    out = [_shaped(d, v) for d, v in zip(tangents, [*tuple(y), y.intercept_stderr])]
    return BunchTangent(out[:5], {"intercept_stderr": out[5]})


def _jvp(fn):
    def jvp(t, y, *args, **kwargs):
        if all(t.d(v) is None for v in (*args, *kwargs.values())):
            return None
        from .. import ops

        names = [z for k, v in kwargs.items() for z in (k, v)]
        dnames = [z for k, v in kwargs.items() for z in (k, t.dz(v))]
        return t.call(linregress_tangent, fn, y, t.call(ops.tuple_of, *args), t.call(ops.tuple_of, *[t.dz(v) for v in args]),
                      t.call(ops.dict_of, *names), t.call(ops.dict_of, *dnames))

    return jvp


def _rrule(fn):
    def rrule(*args, **kwargs):
        from .python_bunches import bunch_adjoint
        from .call_binding import KwAdj

        y = fn(*args, **kwargs)
        a, axis, n, s, dx, dy = _prepare(fn, args, kwargs)
        ones, zeros = np.ones_like(s[0]), np.zeros_like(s[0])
        columns = []  # the Jacobian, one statistic (column) at a time: six outputs each
        for k in range(5):
            values, tangents = _outputs(n, a["alternative"], s, tuple(ones if j == k else zeros for j in range(5)))
            columns.append(tangents)
        _check(y, values)

        def pullback(g):
            fields, extra = bunch_adjoint(y, g)
            gs = [*fields, extra.get("intercept_stderr", NoTangent)]
            bars = [np.zeros_like(s[0]) for _ in range(5)]
            for j, gj in enumerate(gs):
                if gj is NoTangent or gj is None:
                    continue
                gj = np.reshape(np.asarray(gj, dtype=float), np.shape(s[0]))
                for k in range(5):
                    bars[k] = bars[k] + gj * columns[k][j]
            xm_bar, ym_bar, sxx_bar, sxy_bar, syy_bar = (b[..., None] for b in bars)
            x_bar = _back((xm_bar + 2.0 * sxx_bar * dx + sxy_bar * dy) / n, a["x"], axis)
            y_bar = _back((ym_bar + sxy_bar * dx + 2.0 * syy_bar * dy) / n, a["y"], axis)
            out = {"x": x_bar, "y": y_bar}
            names = list(inspect.signature(fn).bind(*args, **kwargs).arguments)
            pos = tuple(_like_arg(out.get(k, NoTangent), args[i]) for i, k in enumerate(names[:len(args)]))
            named = {k: _like_arg(out[k], kwargs[k]) for k in kwargs if k in out}
            return pos + ((KwAdj(named),) if kwargs else ())

        return y, pullback

    return rrule


def _like_arg(bar, arg):
    """The adjoint of an argument given as a list (or tuple) is a list of numbers; an array's, an array."""
    if bar is NoTangent:
        return bar
    if isinstance(arg, np.ndarray):
        return bar.astype(arg.dtype) if arg.dtype.kind == "f" else NoTangent
    if isinstance(arg, (list, tuple)):
        from ..reverse.adjoints import AdjList, AdjTuple

        items = [_like_arg(b, v) if isinstance(v, (list, tuple, np.ndarray)) else float(b) for b, v in zip(bar, arg)]
        return AdjTuple(items) if isinstance(arg, tuple) else AdjList(items)
    return NoTangent


def register(stats) -> None:
    """Register the rules (scipy_stats.register calls this with scipy.stats)."""
    from . import scipy_stats as base
    from .registry import defjvp, defrrule_at_run_time

    fn = getattr(stats, "linregress", None)
    if fn is None:
        return
    base.REGISTERED[fn] = "linregress"
    defjvp(fn, _jvp(fn))
    defrrule_at_run_time(fn, _rrule(fn), linregress_tangent, _outputs, _rrule)
