"""Every other `scipy.stats` distribution (issue 12): logpdf, pdf, cdf, logcdf, sf, logsf, ppf and isf of a
continuous distribution without a rule of its own (gumbel_r, pareto, vonmises, skewnorm, genextreme, ...), and
logpmf, pmf, cdf, logcdf, sf and logsf of a discrete one (betabinom, zipf, ...), both modes; registered by
scipy_stats.register() once the user's code has imported scipy.stats.

SciPy's public methods cannot be traced: they bind their arguments through `_parse_args`, generated with
`exec` (no source).  But each only moves the argument into the standard form and calls the distribution's
private formula, which is plain Python and NumPy that the transforms can follow:

    logpdf(x, *shapes, loc, scale) = _logpdf((x - loc) / scale, *shapes) - log(scale)
    pdf = _pdf(z, *shapes) / scale;  cdf, logcdf, sf, logsf = _cdf(z, *shapes), ...
    ppf(q, *shapes, loc, scale) = _ppf(q, *shapes) * scale + loc  (isf with _isf)
    logpmf(k, *shapes, loc) = _logpmf(k - loc, *shapes);  cdf(k) = _cdf(floor(k - loc), *shapes), ...

So the rule binds the arguments as SciPy does (the shape names are `dist.shapes`), and the derivative is that of
a model written that way (forward: `fcall`; reverse: `rcall`, run again when the pullback runs), which calls
the private formula with the operands broadcast and flattened, as SciPy's `argsreduce` hands them.  The model
must give SciPy's value: where it does not (a point outside the support, where SciPy writes -inf, 0 or 1
without calling the formula; a parameter SciPy rejects, where it writes NaN) the derivative is refused, so a
disagreement is an error, never a wrong derivative.  k and loc of a discrete distribution move between
integers: slope 0.  A private formula with no source or rule (a C function of scipy.special with no rule, a
root finder) stops with the transforms' own error, which names it.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

CONTINUOUS_METHODS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf")
DISCRETE_METHODS = ("logpmf", "pmf", "cdf", "logcdf", "sf", "logsf")
FUNCTIONS = sorted([f"rv_continuous.{m}" for m in CONTINUOUS_METHODS] + [f"rv_discrete.{m}" for m in DISCRETE_METHODS])


# ------------------------------------------------------------------ the models (traced by the transforms)
def _truncnorm_log_mass(a, b):
    """log(Phi(b) - Phi(a)) for a < b in real arithmetic (SciPy's own works in complex numbers, which reverse mode
    does not follow): each form is finite for every a < b, and accurate on its side of 0."""
    sc = _special()
    left = sc.log_ndtr(b) + np.log1p(-np.exp(sc.log_ndtr(a) - sc.log_ndtr(b)))  # (b <= 0)
    right = sc.log_ndtr(-a) + np.log1p(-np.exp(sc.log_ndtr(-b) - sc.log_ndtr(-a)))  # (a > 0)
    middle = np.log1p(-sc.ndtr(a) - sc.ndtr(-b))
    return np.where(a > 0, right, np.where(b <= 0, left, middle))


def _truncnorm_logpdf(x, a, b):
    return -0.5 * x * x - 0.5 * np.log(2.0 * np.pi) - _truncnorm_log_mass(a, b)


def _truncnorm_pdf(x, a, b):
    return np.exp(_truncnorm_logpdf(x, a, b))


def _truncnorm_logcdf(x, a, b):
    return _truncnorm_log_mass(a, x) - _truncnorm_log_mass(a, b)


def _truncnorm_cdf(x, a, b):
    return np.exp(_truncnorm_logcdf(x, a, b))


def _truncnorm_logsf(x, a, b):
    return _truncnorm_log_mass(x, b) - _truncnorm_log_mass(a, b)


def _truncnorm_sf(x, a, b):
    return np.exp(_truncnorm_logsf(x, a, b))


# (distribution, private formula) -> a formula of ours with the same value, where SciPy's cannot be followed
_FORMULAS = {("truncnorm", "_logpdf"): _truncnorm_logpdf, ("truncnorm", "_pdf"): _truncnorm_pdf,
             ("truncnorm", "_logcdf"): _truncnorm_logcdf, ("truncnorm", "_cdf"): _truncnorm_cdf,
             ("truncnorm", "_logsf"): _truncnorm_logsf, ("truncnorm", "_sf"): _truncnorm_sf}


def _special():
    import scipy.special

    return scipy.special


def _formula(dist, name):
    own = _FORMULAS.get((getattr(dist, "name", None), name))
    return own if own is not None else getattr(dist, name)


def _standard_parts(z, shapes):
    """z and the shape parameters broadcast and flattened (what SciPy's argsreduce hands the private formula),
    and the broadcast shape."""
    parts = np.broadcast_arrays(np.asarray(z, dtype=float), *[np.asarray(s, dtype=float) for s in shapes])
    return [np.ravel(p) for p in parts], parts[0].shape


def _scalar_if_0d(out):
    return out[()] if np.ndim(out) == 0 else out


def continuous_model_logpdf(dist, x, loc, scale, *shapes):
    flat, shape = _standard_parts((x - loc) / scale, shapes)
    return _scalar_if_0d(np.reshape(_formula(dist, "_logpdf")(*flat), shape) - np.log(scale))


def continuous_model_pdf(dist, x, loc, scale, *shapes):
    flat, shape = _standard_parts((x - loc) / scale, shapes)
    return _scalar_if_0d(np.reshape(_formula(dist, "_pdf")(*flat), shape) / scale)


def continuous_model_cdf(dist, x, loc, scale, *shapes):
    flat, shape = _standard_parts((x - loc) / scale, shapes)
    return _scalar_if_0d(np.reshape(_formula(dist, "_cdf")(*flat), shape))


def continuous_model_logcdf(dist, x, loc, scale, *shapes):
    flat, shape = _standard_parts((x - loc) / scale, shapes)
    return _scalar_if_0d(np.reshape(_formula(dist, "_logcdf")(*flat), shape))


def continuous_model_sf(dist, x, loc, scale, *shapes):
    flat, shape = _standard_parts((x - loc) / scale, shapes)
    return _scalar_if_0d(np.reshape(_formula(dist, "_sf")(*flat), shape))


def continuous_model_logsf(dist, x, loc, scale, *shapes):
    flat, shape = _standard_parts((x - loc) / scale, shapes)
    return _scalar_if_0d(np.reshape(_formula(dist, "_logsf")(*flat), shape))


def continuous_model_ppf(dist, q, loc, scale, *shapes):
    flat, shape = _standard_parts(q, shapes)
    return _scalar_if_0d(np.reshape(_formula(dist, "_ppf")(*flat), shape) * scale + loc)


def continuous_model_isf(dist, q, loc, scale, *shapes):
    flat, shape = _standard_parts(q, shapes)
    return _scalar_if_0d(np.reshape(_formula(dist, "_isf")(*flat), shape) * scale + loc)


def discrete_model_logpmf(dist, k, *shapes):
    flat, shape = _standard_parts(k, shapes)
    return _scalar_if_0d(np.reshape(_formula(dist, "_logpmf")(*flat), shape))


def discrete_model_pmf(dist, k, *shapes):
    flat, shape = _standard_parts(k, shapes)
    return _scalar_if_0d(np.reshape(_formula(dist, "_pmf")(*flat), shape))


def discrete_model_cdf(dist, k, *shapes):
    flat, shape = _standard_parts(k, shapes)
    return _scalar_if_0d(np.reshape(_formula(dist, "_cdf")(*flat), shape))


def discrete_model_logcdf(dist, k, *shapes):
    flat, shape = _standard_parts(k, shapes)
    return _scalar_if_0d(np.reshape(_formula(dist, "_logcdf")(*flat), shape))


def discrete_model_sf(dist, k, *shapes):
    flat, shape = _standard_parts(k, shapes)
    return _scalar_if_0d(np.reshape(_formula(dist, "_sf")(*flat), shape))


def discrete_model_logsf(dist, k, *shapes):
    flat, shape = _standard_parts(k, shapes)
    return _scalar_if_0d(np.reshape(_formula(dist, "_logsf")(*flat), shape))


_MODELS = {("continuous", m): globals()[f"continuous_model_{m}"] for m in CONTINUOUS_METHODS}
_MODELS.update({("discrete", m): globals()[f"discrete_model_{m}"] for m in DISCRETE_METHODS})


# ------------------------------------------------------------------ binding the call as SciPy does
def _is_discrete(dist):
    import scipy.stats

    return isinstance(dist, scipy.stats.rv_discrete)


def _names(dist, method):
    """The method's parameters in SciPy's order: the point, the shapes, loc (and scale)."""
    shapes = [s.strip() for s in dist.shapes.split(",")] if dist.shapes else []
    if _is_discrete(dist):
        return ["k", *shapes, "loc"]
    return ["q" if method in ("ppf", "isf") else "x", *shapes, "loc", "scale"]


def _where(dist, method, args, kwargs):
    """name -> ("pos", i) or ("kw", key) for each parameter the call gives."""
    names = _name_of(dist, method)
    if len(args) > len(names) or set(kwargs) - set(names):
        extra = sorted(set(kwargs) - set(names)) or "extra positional arguments"
        raise NotImplementedError(f"derivative of scipy.stats.{_name_of(dist)}.{method} called with {extra}")
    where = {n: ("pos", i) for i, n in enumerate(names[:len(args)])}
    where.update({k: ("kw", k) for k in kwargs})
    return names, where


def _name_of(dist, method=None):
    if method is None:
        return getattr(dist, "name", type(dist).__name__)
    return _names(dist, method)


def _pick(where, name, args, kwargs, default):
    w = where.get(name)
    if w is None:
        return default
    return args[w[1]] if w[0] == "pos" else kwargs[w[1]]


def _operands(dist, method, args, kwargs, dargs=None, dkwargs=None):
    """(model, its operands, their tangents (None in reverse mode), the parameter name of each operand after the
    distribution: None for one the call did not give)."""
    names, where = _where(dist, method, args, kwargs)
    shape_names = names[1:-1] if _is_discrete(dist) else names[1:-2]
    missing = [n for n in shape_names if n not in where]
    if missing or names[0] not in where:
        raise NotImplementedError(f"derivative of scipy.stats.{_name_of(dist)}.{method}: "
                                  f"missing {', '.join(missing or [names[0]])}")

    def tangent(name):
        if dargs is None or name not in where:
            return NoTangent
        w = where[name]
        d = dargs[w[1]] if w[0] == "pos" else dkwargs.get(w[1], NoTangent)
        return NoTangent if d is None else d

    if _is_discrete(dist):
        model = _MODELS["discrete", method]
        k = np.asarray(_pick(where, names[0], args, kwargs, None)) - np.asarray(_pick(where, "loc", args, kwargs, 0))
        if method not in ("logpmf", "pmf"):
            k = np.floor(k)
        order = [None, *shape_names]  # (k and loc: integers, slope 0)
        ops = [dist, k, *[_pick(where, n, args, kwargs, None) for n in shape_names]]
        douts = [NoTangent, NoTangent, *[tangent(n) for n in shape_names]]
    else:
        model = _MODELS["continuous", method]
        order = [names[0], "loc", "scale", *shape_names]
        defaults = {"loc": 0.0, "scale": 1.0}
        ops = [dist, *[_pick(where, n, args, kwargs, defaults.get(n)) for n in order]]
        douts = [NoTangent, *[tangent(n) for n in order]]
    if any(np.iscomplexobj(v) for v in ops[1:]):
        raise NotImplementedError(f"derivative of scipy.stats.{_name_of(dist)}.{method} with complex input is not supported")
    return model, tuple(ops), tuple(douts), [None if n is None or n not in where else where[n] for n in order]


def _agree(dist, method, y, value):
    y_arr, v_arr = np.asarray(y, dtype=float), np.asarray(value, dtype=float)
    if y_arr.shape != v_arr.shape or not np.allclose(y_arr, v_arr, rtol=1e-8, atol=1e-12, equal_nan=True):
        raise NotImplementedError(
            f"derivative of scipy.stats.{_name_of(dist)}.{method} at these arguments: SciPy's value is not that of "
            f"its formula {type(dist).__name__}._{method} (a point outside the support, or a parameter SciPy "
            "rejects, where SciPy writes a constant): no derivative is given there")


# ------------------------------------------------------------------ forward and reverse
def generic_tangent(dist, method, y, args, dargs, kwargs, dkwargs):
    from ..forward.runtime import fcall

    model, ops, dops, _ = _operands(dist, method, args, kwargs, dargs, dkwargs)
    if all(d is NoTangent for d in dops):
        return NoTangent
    value, dy = fcall(model, NoTangent, ops, dops)
    _agree(dist, method, y, value)
    if dy is NoTangent or dy is None:
        return NoTangent
    return dy


def generic_adjoints(dist, method, g, args, kwargs):
    """The adjoints of the call's positional arguments, then of its keyword arguments in their order."""
    from ..reverse.runtime import rcall
    from .scipy_stats_wrapped import _as_value

    n = len(args) + len(kwargs)
    if g is NoTangent or g is None:
        return (NoTangent,) * n
    model, ops, _, where = _operands(dist, method, args, kwargs)
    value, pb = rcall(model, ops, {})
    y = getattr(dist, method)(*args, **kwargs)
    _agree(dist, method, y, value)
    _, pos, _ = pb(g)
    pos = list(pos)[1:]  # (the distribution's own: none)
    out = [NoTangent] * n
    keys = list(kwargs)
    for w, bar in zip(where, pos):
        if w is None or bar is None:
            continue
        i = w[1] if w[0] == "pos" else len(args) + keys.index(w[1])
        out[i] = _as_value(bar)
    return tuple(out)


def _rule(method):
    from .. import ops as _ops
    from .numpy_common import _split
    from .scipy_stats import _wants

    def jvp(t, y, self, *args, **kwargs):
        if all(t.d(a) is None for a in (*args, *kwargs.values())):
            return None
        names = [z for k, v in kwargs.items() for z in (k, v)]
        dnames = [z for k, v in kwargs.items() for z in (k, t.dz(v))]
        return t.call(generic_tangent, self, method, y, t.call(_ops.tuple_of, *args),
                      t.call(_ops.tuple_of, *[t.dz(a) for a in args]), t.call(_ops.dict_of, *names),
                      t.call(_ops.dict_of, *dnames))

    def vjp(t, g, y, self, *args, **kwargs):
        from .call_binding import KwAdj

        ops = (*args, *kwargs.values())
        if not any(_wants(t, op) for op in ops):
            return (None,) * (len(args) + 1)
        names = [z for k, v in kwargs.items() for z in (k, v)]
        bars = _split(t, t.call(generic_adjoints, self, method, g, t.call(_ops.tuple_of, *args),
                                t.call(_ops.dict_of, *names)), len(ops))
        bars = [b if _wants(t, op) else None for b, op in zip(bars, ops)]
        named = {k: b for k, b in zip(kwargs, bars[len(args):]) if b is not None}
        return (None, *bars[:len(args)]) + ((KwAdj(named),) if named else ())

    return jvp, vjp


def register(stats, registered) -> None:
    """Register the rules under (rv_continuous, method) and (rv_discrete, method): a distribution's own rule,
    registered under its class, is found first."""
    from .registry import defjvp, defvjp

    for cls, methods in ((stats.rv_continuous, CONTINUOUS_METHODS), (stats.rv_discrete, DISCRETE_METHODS)):
        for method in methods:
            jvp, vjp = _rule(method)
            defjvp((cls, method), jvp)
            defvjp((cls, method), vjp)
            registered[cls, method] = f"{cls.__name__}.{method}"
