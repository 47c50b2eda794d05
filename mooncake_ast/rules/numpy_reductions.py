"""NumPy rules, both modes: reductions and statistics (sum, mean, max, min, prod, var, std),
cumulative sums and products, and sorting.

One module because these rules share the bookkeeping of reduced axes (`axis`, `keepdims`,
`where=`) and the choice at ties: max/min follow the first position attaining the extremum,
sort keeps tied values in order.  Products and zeros are handled exactly (no division by x).
"""
from __future__ import annotations

import numpy as np

from ..arrays import is_other_array
from ..tangents import NoTangent
from .numpy_common import _float_dtype, _inexact, _no_adjoint
from .registry import defcomplex, defjvp, defvjp


# ------------------------------------------------------------------ reductions
defjvp(np.sum, lambda t, y, x, axis=None, **k: t.add(t.lin(np.sum, t.d(x), axis=axis, **_but(k, "initial")), _initial_jvp(t, y, k)))
defjvp(np.mean, lambda t, y, x, axis=None, **k: t.lin(np.mean, t.d(x), axis=axis, **k))
defjvp(np.cumsum, lambda t, y, x, axis=None, **k: t.lin(np.cumsum, t.d(x), axis=axis, **k))
defjvp(np.max, lambda t, y, x, axis=None, keepdims=False, **k: _extremum_jvp(t, y, x, axis, keepdims, k))
defjvp(np.min, lambda t, y, x, axis=None, keepdims=False, **k: _extremum_jvp(t, y, x, axis, keepdims, k))
# np.amax / np.amin are np.max / np.min under their old names (NumPy's own aliases, same parameters): the same rules, so
# that they nest (through NumPy's source they met keyword calls nested derivatives refuse: hessian of np.amax(x) ** 2)
defjvp(np.amax, lambda t, y, x, axis=None, keepdims=False, **k: _extremum_jvp(t, y, x, axis, keepdims, k))
defjvp(np.amin, lambda t, y, x, axis=None, keepdims=False, **k: _extremum_jvp(t, y, x, axis, keepdims, k))
defjvp(np.prod, lambda t, y, x, axis=None, keepdims=False, **k: _prod_jvp(t, y, x, axis, keepdims, k))


def _as_array(x):
    """np.asarray(x), but a Dask (CuPy) array as it is (converting would compute it, or copy it to the host)."""
    return x if is_other_array(x) else np.asarray(x)


def _where(k):
    """The `where=` of a reduction, as extra helper arguments (none when not given, so the common call stays short)."""
    return [k["where"]] if "where" in k else []


def _but(k, *names):
    return {key: v for key, v in k.items() if key not in names}


def _refuse_unknown(name, k, known):
    unknown = set(k) - set(known)
    if unknown:
        raise NotImplementedError(f"derivative of {name} with {', '.join(sorted(unknown))}=: not supported")


def _initial_jvp(t, y, k):
    """d(initial) added to every entry of a sum's result (`np.sum(x, initial=c)` is c + the sum)."""
    if "initial" not in k or t.d(k["initial"]) is None:
        return None
    return t.call(spread_like, y, t.d(k["initial"]))


def spread_like(y, d):
    """d (a scalar) as the tangent of y: y's shape, a float for a scalar y."""
    if np.ndim(y) == 0:
        return d
    return np.full(np.shape(y), d, dtype=np.result_type(np.asarray(y).dtype, np.asarray(d).dtype, float))


def _extremum_jvp(t, y, x, axis, keepdims, k):
    _refuse_unknown("np.max/np.min", k, ("out", "initial", "where"))
    dinit = t.d(k["initial"]) if "initial" in k else None
    if t.d(x) is None and dinit is None:
        return None
    if dinit is None:
        return t.call(extremum_tangent, x, y, t.d(x), axis, keepdims, *_where(k))
    return t.call(extremum_tangent_initial, x, y, t.dz(x), axis, keepdims, dinit, k.get("where", True))


def _initial_won(x, y, axis, keepdims, where):
    """Where no entry of x attains the extremum y: the `initial=` value won there (shaped like y)."""
    mask = _first_extremum(x, y, axis, keepdims, where)
    return ~np.any(mask, axis=axis, keepdims=keepdims)


def extremum_tangent_initial(x, y, dx, axis, keepdims, dinit, where=True):
    """max/min with initial=: the tangent of the winning entry, or of initial where it won."""
    won = _initial_won(x, y, axis, keepdims, where)
    part = 0.0 if dx is NoTangent else extremum_tangent(x, y, dx, axis, keepdims, where)
    out = np.where(won, dinit, part)
    return out[()] if out.ndim == 0 else out


def extremum_initial_adjoint(x, y, g, axis, keepdims, where=True):
    """The adjoint of initial= in max/min: g where initial won, summed (initial is a scalar)."""
    if _no_adjoint(g):
        return NoTangent
    return float(np.sum(np.where(_initial_won(x, y, axis, keepdims, where), g, 0.0)))


# dtype: a float one changes nothing, an integer one makes the product a step (rules/reduction_dtypes.py zeroes it);
# out=: handled once for every rule (rules/eager.py), as for np.max
_PROD_KNOWN = ("dtype", "out")


def _prod_jvp(t, y, x, axis, keepdims, k):
    _refuse_unknown("np.prod", k, _PROD_KNOWN)
    return t.call(prod_tangent, x, t.d(x), axis, keepdims) if t.d(x) is not None else None


def _first_extremum(x, y, axis, keepdims, where=True):
    """A mask of the first position attaining the max/min y along axis (NaN matches NaN); all False where
    nothing attains it (an `initial=` value won)."""
    lazy = is_other_array(x) or is_other_array(y)
    x = x if is_other_array(x) else np.asarray(x)
    yk = y if is_other_array(y) else np.asarray(y)
    if axis is not None and not keepdims:
        yk = np.expand_dims(yk, axis)
    hit = x == yk
    if x.dtype.kind in "fc":
        hit = hit | (np.isnan(x) & np.isnan(yk))
    if where is not True:
        hit = hit & (where if is_other_array(where) else np.asarray(where))
    hit = np.broadcast_to(hit, x.shape)
    axes = tuple(range(x.ndim)) if axis is None else ((axis,) if np.ndim(axis) == 0 else tuple(axis))
    axes = tuple(a % x.ndim for a in axes) if x.ndim else ()
    if not axes:
        return hit if lazy else np.array(hit)
    moved = np.moveaxis(hit, axes, tuple(range(-len(axes), 0)))
    kept = moved.shape[: moved.ndim - len(axes)]
    flat = moved.reshape(kept + (int(np.prod(moved.shape[len(kept):])),))  # (not -1: ambiguous when a kept axis is empty)
    if lazy:
        # Dask has no put_along_axis: the first hit is the one where the running count of hits is 1.
        mask = flat & (np.cumsum(flat, axis=-1) == 1)
        return np.moveaxis(mask.reshape(moved.shape), tuple(range(-len(axes), 0)), axes)
    first = np.argmax(flat, axis=-1)[..., None]
    mask = np.zeros(flat.shape, dtype=bool)
    np.put_along_axis(mask, first, True, axis=-1)
    mask &= flat
    return np.moveaxis(mask.reshape(moved.shape), tuple(range(-len(axes), 0)), axes)


def extremum_tangent(x, y, dx, axis, keepdims, where=True):
    """Tangent of max/min: the tangent at the first position attaining the extremum."""
    mask = _first_extremum(x, y, axis, keepdims, where)
    out = np.sum(np.where(mask, dx, 0.0), axis=axis, keepdims=keepdims)
    return out[()] if isinstance(out, np.ndarray) and out.ndim == 0 else out


def _product_of_others(x, axis):
    """others[i] = the product of the other entries of i's group in np.prod(x, axis): prefix times suffix
    products along the reduced axes, so O(n) and exact when some entries are zero (no division)."""
    x = _inexact(x)
    ax = tuple(range(x.ndim)) if axis is None else tuple(a % x.ndim for a in np.atleast_1d(axis))
    last = tuple(range(x.ndim - len(ax), x.ndim))
    moved = np.moveaxis(x, ax, last)
    flat = moved.reshape(moved.shape[: moved.ndim - len(ax)] + (-1,))
    ones = np.ones_like(flat[..., :1])  # (in flat's library)
    before = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    after = np.flip(np.cumprod(np.concatenate([ones, np.flip(flat, -1)[..., :-1]], axis=-1), axis=-1), -1)
    others = (before * after)[..., : flat.shape[-1]]
    return np.moveaxis(others.reshape(moved.shape), last, ax)


def prod_tangent(x, dx, axis, keepdims):
    """Sum over i of dx_i * prod_{j != i} x_j, exact also when some x_j are zero."""
    if dx is NoTangent:
        return NoTangent
    return np.sum(np.multiply(dx, _product_of_others(x, axis)), axis=axis, keepdims=keepdims)


# ------------------------------------------------------------------ statistics
defjvp(np.var, lambda t, y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False: t.call(var_tangent, x, t.d(x), axis, ddof, keepdims) if t.d(x) is not None else None)
defjvp(np.std, lambda t, y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False: t.call(std_tangent, x, y, t.d(x), axis, ddof, keepdims) if t.d(x) is not None else None)


def var_tangent(x, dx, axis, ddof, keepdims):
    """d var = 2/(N - ddof) * sum((x - mean) * dx): the mean's own change sums to zero."""
    x = _as_array(x)
    n = x.size if axis is None else np.prod([x.shape[a] for a in np.atleast_1d(axis)])
    centred = x - x.mean(axis=axis, keepdims=True)
    change = centred * np.broadcast_to(dx, x.shape) if not np.iscomplexobj(x) else np.real(np.conj(centred) * dx)
    return 2.0 / (n - ddof) * np.sum(change, axis=axis, keepdims=keepdims)


def std_tangent(x, y, dx, axis, ddof, keepdims):
    """d std = d var / (2 std); 0 where std is 0 (all entries equal, e.g. one entry: a constant there, or a
    kink like |x| at 0, given the kink value 0)."""
    dv = var_tangent(x, dx, axis, ddof, keepdims)
    return _over_2y(dv, y, x)


def _over_2y(v, y, x):
    """v / (2 y), 0 where the standard deviation y is zero -- or only rounding error of the mean away from
    it (equal entries give a std of about 1e-17, not 0, and a tangent of rounding noise over it)."""
    if is_other_array(x) or is_other_array(y) or is_other_array(v):  # (the same, in x's library: nothing computed)
        eps = np.finfo(np.result_type(x.dtype, float)).eps
        flat = np.abs(y) <= 16 * eps * (np.max(np.abs(x)) if x.size else 0.0)
        return np.where(flat, 0.0, v / np.where(flat, 1.0, 2.0 * y))
    yk = np.asarray(y)
    noise = 16 * np.finfo(_float_dtype(x)).eps * (np.max(np.abs(x)) if np.size(x) else 0.0)
    flat = np.abs(yk) <= noise
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(flat, 0.0, np.asarray(v) / np.where(flat, 1.0, 2.0 * yk))
    return out[()] if out.ndim == 0 else out


def std_adjoint(x, y, g, axis, ddof, keepdims):
    if _no_adjoint(g):
        return _zero_or_symbolic(x, g)
    return var_adjoint(x, _over_2y(g, y, x), axis, ddof, keepdims)


# ================================================================== reverse rules
defvjp(np.sum, lambda t, g, y, x, axis=None, **k: (t.call(sum_adjoint, x, g, axis, k.get("keepdims", False), *_where(k)),)
       + _kw_adjoint(t, k, "initial", lambda: t.call(sum_all, g)))


def _kw_adjoint(t, k, name, adjoint):
    """`(KwAdj(name=adjoint()),)` when the keyword operand `name` was given and is differentiated, else ()."""
    from .call_binding import KwAdj

    needs = getattr(t, "needs", None)
    if name not in k or (needs is not None and not needs(k[name])):
        return ()
    return (KwAdj({name: adjoint()}),)


def sum_all(g):
    """The adjoint of a scalar added to every entry of a result: the sum of g."""
    if _no_adjoint(g):
        return NoTangent
    return np.sum(g)
defvjp(np.mean, lambda t, g, y, x, axis=None, **k: (t.call(mean_adjoint, x, g, axis, k.get("keepdims", False), *_where(k)),))


def sum_adjoint(x, g, axis=None, keepdims=False, where=True):
    """Spread g back over the summed axes (only onto the positions `where=` selected)."""
    if _no_adjoint(g) or x is NoTangent:  # (x: a symbolic zero tangent, summed by forward code differentiated again)
        return NoTangent
    if where is not True:
        return np.where(where, sum_adjoint(x, g, axis, keepdims), 0.0)
    if is_other_array(x) or is_other_array(g):
        return _spread_in_library(x, g, axis, keepdims)
    dtype = _spread_dtype(x, g)
    if dtype is float and np.iscomplexobj(g):
        g = np.real(g)  # (a complex adjoint reaching a real x: its real part)
    if axis is None and np.ndim(g) == 0:
        return np.full(np.shape(x), g, dtype=dtype)
    x = np.asarray(x)
    g = np.asarray(g, dtype=dtype)
    if axis is not None and not keepdims:
        g = np.expand_dims(g, axis)
    return np.broadcast_to(g, x.shape).copy()


def _spread_dtype(x, g):
    """complex where x and g are complex (the adjoint of a complex sum is complex), float otherwise."""
    return complex if np.iscomplexobj(g) and np.iscomplexobj(x) else float


def _spread_in_library(x, g, axis, keepdims):
    """sum_adjoint for a Dask (CuPy) x or g: the same broadcast, in the array's library (a lazy Dask graph)."""
    if np.ndim(x) == 0 and not is_other_array(x):
        return g  # (np.sum of a number is the number)
    if not is_other_array(g):
        g = np.asarray(g, dtype=float)
        if g.ndim == 0:
            return np.full_like(x, g[()], dtype=float)  # (dispatched to x's library; a scalar, not a NumPy array)
        g = np.asarray(g, like=x)  # a NumPy adjoint of a reduction of a Dask array: into Dask
    if axis is not None and not keepdims:
        g = np.expand_dims(g, axis)
    return np.broadcast_to(g, x.shape)


def mean_adjoint(x, g, axis=None, keepdims=False, where=True):
    if _no_adjoint(g):
        return NoTangent
    if where is True and (is_other_array(x) or is_other_array(g)):
        n = x.size if axis is None else int(np.prod([x.shape[a] for a in np.atleast_1d(axis)]))
        return _spread_in_library(x, g, axis, keepdims) / n
    if where is not True:
        x = np.asarray(x)
        count = np.sum(np.broadcast_to(where, x.shape), axis=axis, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(where, sum_adjoint(x, g, axis, keepdims) / count, 0.0)
    if axis is None and np.ndim(g) == 0:
        dtype = _spread_dtype(x, g)
        return np.full(np.shape(x), (g if dtype is complex else np.real(g)) / np.size(x), dtype=dtype)
    x = np.asarray(x)
    n = x.size if axis is None else np.prod([x.shape[a] for a in np.atleast_1d(axis)])
    return sum_adjoint(x, g, axis, keepdims) / n


def extremum_adjoint(x, y, g, axis=None, keepdims=False, where=True):
    """max/min: g goes to the first position attaining the extremum (ties: the first)."""
    if _no_adjoint(g):
        return _zero_or_symbolic(x, g)
    mask = _first_extremum(x, y, axis, keepdims, where)
    gk = (g if is_other_array(g) else np.asarray(g)) if keepdims or axis is None else np.expand_dims(g, axis)
    return np.where(mask, gk, 0.0)


defvjp(np.max, lambda t, g, y, x, axis=None, keepdims=False, **k: (t.call(extremum_adjoint, x, y, g, axis, keepdims, *_where(k)),)
       + _kw_adjoint(t, k, "initial", lambda: t.call(extremum_initial_adjoint, x, y, g, axis, keepdims, *_where(k))))
defvjp(np.min, lambda t, g, y, x, axis=None, keepdims=False, **k: (t.call(extremum_adjoint, x, y, g, axis, keepdims, *_where(k)),)
       + _kw_adjoint(t, k, "initial", lambda: t.call(extremum_initial_adjoint, x, y, g, axis, keepdims, *_where(k))))
for _alias in (np.amax, np.amin):  # (np.max / np.min under their old names: the same rules)
    defvjp(_alias, lambda t, g, y, x, axis=None, keepdims=False, **k:
           (t.call(extremum_adjoint, x, y, g, axis, keepdims, *_where(k)),)
           + _kw_adjoint(t, k, "initial",
                         lambda: t.call(extremum_initial_adjoint, x, y, g, axis, keepdims, *_where(k))))
defvjp(np.cumsum, lambda t, g, y, x, axis=None, **k: (t.call(cumsum_adjoint, x, g, axis),))
defvjp(np.prod, lambda t, g, y, x, axis=None, keepdims=False, **k: _refuse_unknown("np.prod", k, _PROD_KNOWN) or (t.call(prod_adjoint, x, g, axis, keepdims),))
defvjp(np.var, lambda t, g, y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False: (t.call(var_adjoint, x, g, axis, ddof, keepdims),))
defvjp(np.std, lambda t, g, y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False: (t.call(std_adjoint, x, y, g, axis, ddof, keepdims),))


def cumsum_adjoint(x, g, axis=None):
    if _no_adjoint(g):
        return _zero_or_symbolic(x, g)
    x = _as_array(x)
    if axis is None:
        return np.flip(np.cumsum(np.flip(_as_array(g).reshape(-1)))).reshape(x.shape)
    return np.flip(np.cumsum(np.flip(g, axis), axis=axis), axis)


def prod_adjoint(x, g, axis=None, keepdims=False):
    """g (broadcast back over the reduced axes) times the product of the others (exact with zeros)."""
    if _no_adjoint(g):
        return _zero_or_symbolic(x, g)
    gk = g if keepdims or axis is None else np.expand_dims(g, axis)
    others = _product_of_others(x, axis)
    return (np.conj(others) if np.iscomplexobj(others) else others) * gk  # (complex: conj of the derivative)


def var_adjoint(x, g, axis, ddof, keepdims):
    if _no_adjoint(g):
        return _zero_or_symbolic(x, g)
    x = _as_array(x)
    n = x.size if axis is None else np.prod([x.shape[a] for a in np.atleast_1d(axis)])
    centred = x - x.mean(axis=axis, keepdims=True)
    gk = g if keepdims or axis is None else np.expand_dims(g, axis)
    return 2.0 / (n - ddof) * centred * gk


def _zero_or_symbolic(x, g):
    """The zero adjoint these helpers give: NoTangent for the symbolic zero, else zeros of x's shape -- a scalar 0
    standing for an unused result's adjoint included, since a typed pullback adds what they return into an array
    (`x_bar[:1] += std_adjoint(...)`: NoTangent there was a TypeError, std's adjoint at a zero deviation is 0.0)."""
    if g is NoTangent or g is None:
        return NoTangent
    return np.zeros(np.shape(x), dtype=np.result_type(np.asarray(x).dtype, float))


# Helpers that give an array of x's shape whenever g is not the symbolic zero: a typed pullback may treat what
# they return as dense when g is (reverse/templates._keeps_dense), so what follows them stays plain NumPy.
for _helper in (extremum_adjoint, cumsum_adjoint, prod_adjoint, var_adjoint, std_adjoint):
    _helper.dense_in_dense = True  # type: ignore[attr-defined]


# ================================================================== cumulative products, sorting


def _cumprod_last(x, axis):
    """x with the cumulated axis last (flattened first when axis is None)."""
    x = np.asarray(x)
    if axis is None:
        return x.reshape(-1), 0
    return np.moveaxis(x, axis, -1), axis


def _cumprod_jacobian(v):
    """J[..., i, j] = d cumprod(v)[i] / d v[j] = prod(v[:j]) * prod(v[j+1:i+1]) for j <= i (exact with zeros)."""
    n = v.shape[-1]
    J = np.zeros(v.shape + (n,), dtype=_float_dtype(v))
    for j in range(n):
        before = np.prod(v[..., :j], axis=-1)
        J[..., j, j] = before
        if j + 1 < n:
            J[..., j + 1:, j] = before[..., None] * np.cumprod(v[..., j + 1:], axis=-1)
    return J


def cumprod_tangent(x, y, dx, axis=None):
    v, ax = _cumprod_last(x, axis)
    dv, _ = _cumprod_last(np.broadcast_to(dx, np.shape(x)), axis)
    yv, _ = _cumprod_last(y, None if axis is None else axis)
    if np.all(v != 0):
        d = yv * np.cumsum(dv / v, axis=-1)
    else:
        d = np.einsum("...ij,...j->...i", _cumprod_jacobian(v), dv)
    return d if axis is None else np.moveaxis(d, -1, ax)


def cumprod_adjoint(x, y, g, axis=None):
    """J^T g (real), conj(J)^T g = J(conj x)^T g for complex x (holomorphic: README "Complex numbers")."""
    if _no_adjoint(g):
        return NoTangent
    if np.iscomplexobj(x):
        x, y = np.conj(x), np.conj(y)
    v, ax = _cumprod_last(x, axis)
    gv, _ = _cumprod_last(np.asarray(g), axis)
    yv, _ = _cumprod_last(y, axis)
    if np.all(v != 0):
        d = np.flip(np.cumsum(np.flip(gv * yv, -1), axis=-1), -1) / v
    else:
        d = np.einsum("...ij,...i->...j", _cumprod_jacobian(v), gv)
    return d.reshape(np.shape(x)) if axis is None else np.moveaxis(d, -1, ax)


defjvp(np.cumprod, lambda t, y, x, axis=None, **k: t.call(cumprod_tangent, x, y, t.d(x), axis) if t.d(x) is not None else None)
defvjp(np.cumprod, lambda t, g, y, x, axis=None, **k: (t.call(cumprod_adjoint, x, y, g, axis),))


def _sort_order(a, axis):
    """The permutation np.sort applies; ties in their original order (the documented choice)."""
    a = np.asarray(a)
    if axis is None:
        return np.argsort(a.reshape(-1), kind="stable")
    return np.argsort(a, axis=axis, kind="stable")


def sort_tangent(a, da, axis=-1):
    order = _sort_order(a, axis)
    da = np.broadcast_to(np.asarray(da), np.shape(a))
    if axis is None:
        return da.reshape(-1)[order]
    return np.take_along_axis(da, order, axis=axis)


def sort_adjoint(a, g, axis=-1):
    if _no_adjoint(g):
        return NoTangent
    order = _sort_order(a, axis)
    out = np.zeros(np.shape(a), dtype=_float_dtype(a))
    if axis is None:
        out.reshape(-1)[order] = np.asarray(g)
    else:
        np.put_along_axis(out, order, g, axis=axis)
    return out


defjvp(np.sort, lambda t, y, a, axis=-1, **k: t.call(sort_tangent, a, t.d(a), axis) if t.d(a) is not None else None)
defvjp(np.sort, lambda t, g, y, a, axis=-1, **k: (t.call(sort_adjoint, a, g, axis),))


# Right for complex values in reverse mode (README "Complex numbers"): sums, means and cumsum are linear with real
# coefficients, max/min route g to the entry NumPy picks, prod conjugates the product of the others, var/std
# (real results) give 2 (x - mean) g / (n - ddof) as for reals.  Checked in tests/test_complex_reverse.py.
defcomplex(np.sum, np.mean, np.max, np.min, np.amax, np.amin, np.prod, np.var, np.std, np.cumsum, np.cumprod)
