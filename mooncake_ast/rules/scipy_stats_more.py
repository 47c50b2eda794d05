"""More rules of `scipy.stats` (issue 12): the quantile functions ppf and isf of the continuous
distributions of scipy_stats.py, and frozen distributions (`norm(loc, scale).logpdf(x)`).
Registered by scipy_stats.register(), so only once the user's code has imported scipy.stats.

* ppf(q, *shapes, loc, scale) = loc + scale ppf0(q): d/dq = 1 / pdf(y), d/dloc = 1, d/dscale = (y - loc) / scale;
  isf(q) = ppf(1 - q): d/dq = -1 / pdf(y).  A differentiated shape parameter moves the quantile by
  -scale dF/dtheta / f at the quantile (scipy_stats_shapes.py).
* Frozen distributions: calling a distribution (`norm(0.0, 2.0)`, `norm.freeze(...)`,
  `multivariate_normal(mean, cov)`) makes an object whose methods call the distribution's with the stored
  parameters; SciPy builds it through `_parse_args`, generated with `exec` (no source).  The frozen
  object's tangent (adjoint) holds its parameters' in its own fields, as for any object: `args` and
  `kwds` for the univariate ones (bound to loc, scale and shapes by SciPy's `_parse_args`), `mean` and
  `cov_object._covariance` (the array SciPy keeps) for multivariate_normal.  The methods take x's
  derivative and the parameters' from scipy_stats' partial derivatives; making the object gives its
  parameters the adjoints collected in those fields.  The discrete distributions' methods are piecewise
  constant in k (and q): slope 0; their parameters through a frozen object are refused (forward: a
  nonzero tangent raises; reverse: a RefusedAdjoint, which raises when used): use poisson.logpmf(k, mu).
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent
from . import scipy_stats as base
from .numpy_common import _keep, _split
from .scipy_special_more import RefusedAdjoint

QUANTILES = ("ppf", "isf")
FROZEN_CONTINUOUS = base.METHODS + QUANTILES
FROZEN_DISCRETE = tuple(dict.fromkeys(base.DISCRETE_METHODS + base.METHODS[2:] + QUANTILES))  # (all piecewise constant in k or q)
REGISTERED: dict = {}  # rule key -> its name in FUNCTIONS (empty until scipy.stats is imported)
# (scipy_stats.FUNCTIONS and REGISTERED take these in too: the docs page lists SciPy's rules from them)
FUNCTIONS = sorted([f"{d}.{m}" for d in base.CONTINUOUS for m in QUANTILES]
                   + [f"rv_continuous_frozen.{m}" for m in FROZEN_CONTINUOUS]
                   + [f"rv_discrete_frozen.{m}" for m in FROZEN_DISCRETE]
                   + [f"multivariate_normal_frozen.{m}" for m in base.MULTIVARIATE["multivariate_normal"] + ("cdf", "logcdf")]
                   + ["rv_generic.__call__", "rv_generic.freeze", "multivariate_normal_gen.__call__"])


# ------------------------------------------------------------------ ppf / isf
def quantile_partial(dist, method, i, y, q, loc, scale, *shapes):
    """d method(q, *shapes, loc, scale) / d operand i, operands in the order (q, *shapes, loc, scale)."""
    base._real_only(f"{dist}.{method}", q, loc, scale, *shapes)
    k = len(shapes)
    if 1 <= i <= k:
        from . import scipy_stats_shapes as closed

        if not closed.closed(dist, i - 1):
            raise NotImplementedError(base._shape_message(dist, method, i - 1))
        return base._scalar(np.asarray(closed.quantile_shape(dist, i - 1, y, loc, scale, shapes), dtype=float))
    y = np.asarray(y, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if i == 0:
            dens = base._dist(dist).pdf(y, *shapes, loc, scale)
            part = (1.0 if method == "ppf" else -1.0) / dens
        elif i == k + 1:
            part = np.ones_like(y)
        else:
            part = (y - loc) / np.asarray(scale, dtype=float)
    return base._scalar(np.asarray(part, dtype=float))


def _quantile_rule(dist, method):
    shapes = base.CONTINUOUS[dist]
    names = ("q", *shapes, "loc", "scale")
    defaults = {"loc": 0.0, "scale": 1.0}

    def values(ops):
        vals = [defaults.get(n) if op is base._ABSENT else op for n, op in zip(names, ops)]
        return (vals[0], vals[-2], vals[-1], *vals[1:-2])

    from .scipy_stats_shapes import closed

    refused = [i for i in range(1, len(shapes) + 1) if not closed(dist, i - 1)]

    def jvp(t, y, self, *args, **kwargs):
        ops = base._operands(names, args, kwargs, f"{dist}.{method}")
        out = None
        for i, op in enumerate(ops):
            d = None if op is base._ABSENT else t.d(op)
            if d is not None and i in refused:
                out = t.add(out, t.call(base.refuse_shape, d, dist, method, i - 1))
            elif d is not None:
                out = t.add(out, t.mul(d, t.call(quantile_partial, dist, method, i, y, *values(ops))))
        return out

    def vjp(t, g, y, self, *args, **kwargs):
        ops = base._operands(names, args, kwargs, f"{dist}.{method}")
        adj = [None if not base._wants(t, op) else t.call(base.refused_adjoint, g, dist, method, i - 1) if i in refused
               else t.unb(t.mul(g, t.call(quantile_partial, dist, method, i, y, *values(ops))), op)
               for i, op in enumerate(ops)]
        return base._reverse_result(t, names, args, kwargs, adj)

    return jvp, vjp


# ------------------------------------------------------------------ frozen distributions
_PARAM_MESSAGE = ("derivative of a frozen scipy.stats distribution other than {rules} (or of a discrete one) with "
                  "respect to its parameters: pass them to the method instead, e.g. poisson.logpmf(k, mu)")


def _zero(d) -> bool:
    """Is the tangent d zero everywhere (numbers, arrays, containers, object tangents)?"""
    if d is NoTangent or d is None:
        return True
    if isinstance(d, (tuple, list)):
        return all(_zero(v) for v in d)
    if isinstance(d, dict):
        return all(_zero(v) for v in d.values())
    fields = getattr(d, "__dict__", {}).get("fields")
    if isinstance(fields, dict):
        return all(_zero(v) for v in fields.values())
    try:
        return not np.any(d)
    except (TypeError, ValueError):
        return False


def _message():
    return _PARAM_MESSAGE.format(rules=", ".join(sorted(base.CONTINUOUS) + ["multivariate_normal"]))


def refuse_parameter_tangent(d):
    """Forward mode: a parameter the frozen object does not carry a tangent for, with a nonzero tangent."""
    if not _zero(d):
        raise NotImplementedError(_message())


def refused_parameter_adjoint():
    """Reverse mode: the adjoint of such a parameter: raises when read or added to another adjoint (a
    constant's is discarded unread)."""
    return RefusedAdjoint(_message())


def _nondiff(v) -> bool:
    """A value with no derivative (an integer, a flag, None): no adjoint is computed for it."""
    return isinstance(v, (bool, int, str, type(None), np.integer)) or (isinstance(v, np.ndarray) and v.dtype.kind not in "fc")


def _fields(d):
    f = getattr(d, "__dict__", {}).get("fields") if d is not NoTangent and d is not None else None
    return f if isinstance(f, dict) else {}


def _operand_names(dist):
    return ("x", *base.CONTINUOUS[dist], "loc", "scale")


def _frozen_operands(fz, method):
    """(distribution name, the method's operands after x in scipy_stats' order (loc, scale, *shapes), and
    where each came from in the frozen object: ("args", i), ("kwds", name) or None for a default)."""
    dist = fz.dist
    name = getattr(dist, "name", type(dist).__name__)
    if name not in base.CONTINUOUS:
        raise NotImplementedError(f"derivative of a frozen scipy.stats.{name} distribution's {method}: "
                                  f"no rule for {name} (rules: {', '.join(sorted(base.CONTINUOUS))})")
    shapes, loc, scale = dist._parse_args(*fz.args, **fz.kwds)  # (SciPy binds, and checks, the arguments)
    names = _operand_names(name)[1:]  # shapes..., loc, scale: the order of freeze's positional arguments
    where = {n: ("args", i) for i, n in enumerate(names[:len(fz.args)])}
    where.update({n: ("kwds", n) for n in fz.kwds})
    order = ("loc", "scale", *names[:-2])
    return name, (loc, scale, *shapes), [where.get(n) for n in order]


def _partial(method, name, i, y, x, ops):
    """d method / d operand i in the order (x, *shapes, loc, scale); ops = (loc, scale, *shapes)."""
    if method in QUANTILES:
        return quantile_partial(name, method, i, y, x, *ops)
    return base.continuous_partial(name, method, i, y, x, *ops)


def _closed(name, j):
    from .scipy_stats_shapes import closed

    return closed(name, j)


def _index(name, k):
    """Operand k of (loc, scale, *shapes) as an index into (x, *shapes, loc, scale)."""
    n = len(base.CONTINUOUS[name])
    return (n + 1, n + 2)[k] if k < 2 else k - 1


def frozen_tangent(method, fz, dfz, y, x, dx):
    """The tangent of fz.method(x): through x, and through the stored parameters' tangents (dfz's fields
    args and kwds, which the rule of making the object filled in)."""
    fields = _fields(dfz)
    if _generic(fz.dist):
        from .scipy_stats_generic import generic_tangent

        dargs, dkwds = fields.get("args", NoTangent), fields.get("kwds", NoTangent)
        dargs = tuple(dargs) if isinstance(dargs, (tuple, list)) else (NoTangent,) * len(fz.args)
        dkwds = dkwds if isinstance(dkwds, dict) else {}
        return generic_tangent(fz.dist, method, y, (x, *fz.args), (dx, *dargs), dict(fz.kwds),
                               {k: dkwds.get(k, NoTangent) for k in fz.kwds})
    name, ops, where = _frozen_operands(fz, method)
    out = NoTangent if dx is NoTangent or dx is None else dx * _partial(method, name, 0, y, x, ops)
    dargs, dkwds = fields.get("args", NoTangent), fields.get("kwds", NoTangent)
    for k, w in enumerate(where):
        if w is None:
            continue
        d = (dargs[w[1]] if isinstance(dargs, (tuple, list)) else NoTangent) if w[0] == "args" \
            else (dkwds.get(w[1], NoTangent) if isinstance(dkwds, dict) else NoTangent)
        if _zero(d):
            continue
        if method not in ("logpdf", "pdf") and k >= 2 and not _closed(name, k - 2):
            base.refuse_shape(d, name, method, k - 2)
        part = d * _partial(method, name, _index(name, k), y, x, ops)
        out = part if out is NoTangent else out + part
    return out


def frozen_adjoints(method, fz, y, x, g):
    """(x's adjoint, the frozen object's: a MutableTangent with the stored parameters' adjoints in the
    fields args and kwds, which the pullback of making the object hands to those parameters)."""
    from ..reverse.adjoints import AdjTuple, unbroadcast
    from ..tangents import MutableTangent

    if g is NoTangent or g is None:
        return NoTangent, NoTangent
    if _generic(fz.dist):
        from .scipy_stats_generic import generic_adjoints

        bars = generic_adjoints(fz.dist, method, g, (x, *fz.args), dict(fz.kwds))
        xbar = NoTangent if _nondiff(x) else bars[0]
        return xbar, MutableTangent({"args": AdjTuple(bars[1:1 + len(fz.args)]),
                                     "kwds": {k: b for k, b in zip(fz.kwds, bars[1 + len(fz.args):])}})
    name, ops, where = _frozen_operands(fz, method)
    xbar = NoTangent if _nondiff(x) else unbroadcast(g * _partial(method, name, 0, y, x, ops), np.asarray(x))
    if isinstance(x, (float, int)) and xbar is not NoTangent:
        xbar = float(np.sum(xbar))
    args = [NoTangent] * len(fz.args)
    kwds = {}
    for k, w in enumerate(where):
        if w is None:
            continue
        value = fz.args[w[1]] if w[0] == "args" else fz.kwds[w[1]]
        if _nondiff(value):
            continue
        if method not in ("logpdf", "pdf") and k >= 2 and not _closed(name, k - 2):
            bar = base.refused_adjoint(g, name, method, k - 2)
        else:
            bar = g * _partial(method, name, _index(name, k), y, x, ops)
            bar = float(np.sum(bar)) if np.ndim(value) == 0 else unbroadcast(bar, np.asarray(value))
        if w[0] == "args":
            args[w[1]] = bar
        else:
            kwds[w[1]] = bar
    return xbar, MutableTangent({"args": AdjTuple(args), "kwds": kwds})


_MVN = ("mean", "cov", "allow_singular", "seed")


def _covariance_of(fz):
    """The covariance array a frozen multivariate normal computes with (SciPy keeps the one it was given)."""
    cov = getattr(getattr(fz, "cov_object", None), "_covariance", None)
    if not isinstance(cov, np.ndarray):
        raise NotImplementedError("derivative of a frozen scipy.stats.multivariate_normal: this SciPy version keeps "
                                  "its covariance in a form the rule does not know; call multivariate_normal.logpdf(x, mean, cov)")
    return cov


def frozen_mvn_tangent(method, fz, dfz, y, x, dx, lower=None, dlower=NoTangent):
    fields = _fields(dfz)
    dmean = fields.get("mean", NoTangent)
    dcov = _fields(fields.get("cov_object", NoTangent)).get("_covariance", NoTangent)
    dmean, dcov = (NoTangent if _zero(d) else d for d in (dmean, dcov))
    if dx is NoTangent and dmean is NoTangent and dcov is NoTangent and _zero(dlower):
        return NoTangent
    if method in ("cdf", "logcdf"):
        from .scipy_stats_mvn_cdf import mvn_cdf_tangent

        return mvn_cdf_tangent(method, y, x, fz.mean, _covariance_of(fz), dx, dmean, dcov, {}, lower, dlower)
    return base.mvn_tangent(method, y, x, fz.mean, _covariance_of(fz), dx, dmean, dcov)


def frozen_mvn_adjoints(method, fz, y, x, g, lower=None):
    """(x's adjoint, the frozen object's: mean's and the covariance array's, in its fields[, lower_limit's])."""
    from ..tangents import MutableTangent

    if g is NoTangent or g is None:
        return (NoTangent, NoTangent) + ((NoTangent,) if lower is not None else ())
    cov = _covariance_of(fz)
    if method in ("cdf", "logcdf"):
        from .scipy_stats_mvn_cdf import mvn_cdf_adjoint

        adjoint = lambda i: mvn_cdf_adjoint(method, i, y, x, fz.mean, cov, g, {}, lower)  # noqa: E731
    else:
        adjoint = lambda i: base.mvn_adjoint(method, i, y, x, fz.mean, cov, g)  # noqa: E731
    xbar = NoTangent if _nondiff(x) else adjoint(0)
    mbar = adjoint(1)
    cbar = adjoint(2)  # (cov is 2-D: the triangle SciPy reads)
    out = (xbar, MutableTangent({"mean": mbar, "cov_object": MutableTangent({"_covariance": cbar})}))
    return out + ((NoTangent if _nondiff(lower) else adjoint(3),) if lower is not None else ())


def frozen_mvn_entropy_tangent(fz, dfz):
    dcov = _fields(_fields(dfz).get("cov_object", NoTangent)).get("_covariance", NoTangent)
    if _zero(dcov):
        return 0.0
    return base.mvn_entropy_tangent(fz.mean, _covariance_of(fz), dcov)


def frozen_mvn_entropy_adjoint(fz, g):
    """The frozen object's adjoint: the covariance array's, in its fields (the mean plays no part)."""
    from ..tangents import MutableTangent

    if g is NoTangent or g is None:
        return NoTangent
    cbar = base.mvn_entropy_adjoint(fz.mean, _covariance_of(fz), g)
    return MutableTangent({"cov_object": MutableTangent({"_covariance": cbar})})


def _frozen_entropy_rule():
    """multivariate_normal(mean, cov).entropy(): it reads SciPy's log-determinant, made when the object was,
    so it needs a rule (traced, it would see a constant and give 0)."""
    def jvp(t, y, self, *rest, **kwargs):
        if rest or kwargs:
            raise NotImplementedError("derivative of a frozen distribution's entropy with arguments")
        return None if t.d(self) is None else t.call(frozen_mvn_entropy_tangent, self, t.dz(self))

    def vjp(t, g, y, self, *rest, **kwargs):
        return (t.call(frozen_mvn_entropy_adjoint, self, g),) + (None,) * len(rest)

    return jvp, vjp


def _generic(dist):
    """A continuous distribution without a rule of its own in scipy_stats.py: its frozen methods go through its
    private formulas (scipy_stats_generic.py)."""
    import scipy.stats

    return isinstance(dist, scipy.stats.rv_continuous) and getattr(dist, "name", None) not in base.CONTINUOUS


def _is_mvn(dist):
    return type(dist).__name__ == "multivariate_normal_gen"


def _mvn_construct_tangent(fz, names, ops, dops):
    from ..tangents import MutableTangent

    bound = dict(zip(names, zip(ops, dops)))
    mean, dmean = bound.get("mean", (None, NoTangent))
    cov, dcov = bound.get("cov", (1.0, NoTangent))
    for name in ("allow_singular", "seed"):
        if name in bound:
            refuse_parameter_tangent(bound[name][1])
    if not _zero(dmean):
        dmean = np.broadcast_to(np.asarray(dmean, dtype=float), np.shape(fz.mean))
    if not _zero(dcov):
        dcov = np.asarray(dcov, dtype=float)
        n = np.shape(fz.mean)[-1] if np.ndim(fz.mean) else 1
        dcov = dcov * np.eye(n) if dcov.ndim == 0 else (np.diag(dcov) if dcov.ndim == 1 else dcov)
    return MutableTangent({"mean": dmean, "cov_object": MutableTangent({"_covariance": dcov})})


def _mvn_construct_adjoint(fz, names, ops, g):
    """mean's and cov's adjoints from the frozen object's storage (nothing to add where SciPy kept the
    argument itself: the adjoint is already in that array's storage)."""
    fields = _fields(g)
    bars = []
    for name, op in zip(names, ops):
        if name == "mean":
            bar = NoTangent if op is None or op is fz.mean else fields.get("mean", NoTangent)
            if bar is not NoTangent and np.ndim(op) == 0:
                bar = float(np.sum(bar))
        elif name == "cov":
            cov = _covariance_of(fz)
            bar = NoTangent if op is cov else _fields(fields.get("cov_object", NoTangent)).get("_covariance", NoTangent)
            if bar is not NoTangent and np.ndim(op) < 2:
                d = np.diagonal(np.asarray(bar))
                bar = float(np.sum(d)) if np.ndim(op) == 0 else d.copy()
        else:
            bar = NoTangent
        bars.append(bar)
    return bars


def _frozen_rule(method, kind):
    """Rules of a frozen object's method(x)."""
    box = kind == "mvn" and method in ("cdf", "logcdf")  # (a box: lower_limit=, scipy_stats_mvn_box.py)

    def jvp(t, y, self, x, /, *rest, **kwargs):
        if rest or (kwargs and not (box and set(kwargs) == {"lower_limit"})):
            raise NotImplementedError(f"derivative of a frozen distribution's {method} with extra arguments")
        if kwargs:
            lower = kwargs["lower_limit"]
            if t.d(x) is None and t.d(self) is None and t.d(lower) is None:
                return None
            return t.call(frozen_mvn_tangent, method, self, t.dz(self), y, x, t.dz(x), lower, t.dz(lower))
        if kind == "discrete":  # a pmf (cdf, ppf) moves between integers: slope 0 in k and q; the parameter
            if t.d(self) is not None:  # (mu of poisson) is refused where the object is made
                _keep(t.call(refuse_parameter_tangent, t.d(self)))
            return None
        if t.d(x) is None and t.d(self) is None:
            return None
        fn = frozen_mvn_tangent if kind == "mvn" else frozen_tangent
        return t.call(fn, method, self, t.dz(self), y, x, t.dz(x))

    def vjp(t, g, y, self, x, /, *rest, **kwargs):
        if kind == "discrete":
            return None, None
        if box and kwargs.get("lower_limit") is not None:
            from .registry import KwAdj

            xbar, selfbar, lbar = _split(t, t.call(frozen_mvn_adjoints, method, self, y, x, g, kwargs["lower_limit"]), 3)
            return selfbar, xbar, KwAdj(lower_limit=lbar)
        xbar, selfbar = _split(t, t.call(frozen_mvn_adjoints if kind == "mvn" else frozen_adjoints, method, self, y, x, g), 2)
        return selfbar, xbar

    return jvp, vjp


def frozen_construct_tangent(dist, fz, n, keys, *ops_and_tangents):
    """The tangent of fz = dist(*args, **kwds), a frozen distribution: its fields hold the tangents (args
    and kwds; a multivariate normal's mean and covariance array)."""
    from ..tangents import MutableTangent

    m = len(ops_and_tangents) // 2
    ops, dops = ops_and_tangents[:m], ops_and_tangents[m:]
    if _is_mvn(dist):
        return _mvn_construct_tangent(fz, _MVN[:n] + keys, ops, dops)
    if getattr(dist, "name", None) not in base.CONTINUOUS and not _generic(dist):
        refuse_parameter_tangent(dops)  # (multivariate_normal, and the discrete distributions' parameters)
        return NoTangent
    return MutableTangent({"args": tuple(dops[:n]), "kwds": dict(zip(keys, dops[n:]))})


def frozen_construct_adjoint(dist, fz, n, keys, g, *ops):
    """The parameters' adjoints from the frozen object's (fields args and kwds; see frozen_adjoints)."""
    if _is_mvn(dist):
        return tuple(_mvn_construct_adjoint(fz, _MVN[:n] + keys, ops, g))
    if getattr(dist, "name", None) not in base.CONTINUOUS and not _generic(dist):
        bars = [NoTangent if _nondiff(op) else refused_parameter_adjoint() for op in ops]
    else:
        fields = _fields(g)
        args, kwds = fields.get("args", NoTangent), fields.get("kwds", NoTangent)
        bars = [args[i] if isinstance(args, (tuple, list)) and i < len(args) else NoTangent for i in range(n)]
        bars += [kwds.get(k, NoTangent) if hasattr(kwds, "get") else NoTangent for k in keys]
    return tuple(bars)


def _construct_rule():
    """Rules of making a frozen distribution (calling the distribution, or its freeze method)."""
    def jvp(t, y, self, *args, **kwargs):
        keys = tuple(kwargs)
        ops = (*args, *kwargs.values())
        if all(t.d(op) is None for op in ops):
            return None
        return t.call(frozen_construct_tangent, self, y, len(args), keys, *ops, *[t.dz(op) for op in ops])

    def vjp(t, g, y, self, *args, **kwargs):
        from .call_binding import KwAdj

        keys = tuple(kwargs)
        ops = (*args, *kwargs.values())
        if not ops:
            return (None,)
        bars = _split(t, t.call(frozen_construct_adjoint, self, y, len(args), keys, g, *ops), len(ops))
        named = dict(zip(keys, bars[len(args):]))
        return (None, *bars[:len(args)]) + ((KwAdj(named),) if named else ())

    return jvp, vjp


def register(stats) -> None:
    """Register the rules (scipy_stats.register calls this with the scipy.stats module)."""
    from .registry import defjvp, defvjp

    def add(key, rule, name):
        jvp, vjp = rule
        defjvp(key, jvp)
        defvjp(key, vjp)
        REGISTERED[key] = base.REGISTERED[key] = name

    for dist in base.CONTINUOUS:
        for method in QUANTILES:
            add((type(getattr(stats, dist)), method), _quantile_rule(dist, method), f"{dist}.{method}")
    infra = stats._distn_infrastructure
    multi = stats._multivariate
    for method in FROZEN_CONTINUOUS:
        add((infra.rv_continuous_frozen, method), _frozen_rule(method, "continuous"), f"rv_continuous_frozen.{method}")
    for method in FROZEN_DISCRETE:
        add((infra.rv_discrete_frozen, method), _frozen_rule(method, "discrete"), f"rv_discrete_frozen.{method}")
    for method in ("logpdf", "pdf", "cdf", "logcdf"):
        add((multi.multivariate_normal_frozen, method), _frozen_rule(method, "mvn"), f"multivariate_normal_frozen.{method}")
    add((multi.multivariate_normal_frozen, "entropy"), _frozen_entropy_rule(), "multivariate_normal_frozen.entropy")
    add(infra.rv_generic.__call__, _construct_rule(), "rv_generic.__call__")
    add((infra.rv_generic, "freeze"), _construct_rule(), "rv_generic.freeze")
    add(multi.multivariate_normal_gen.__call__, _construct_rule(), "multivariate_normal_gen.__call__")
