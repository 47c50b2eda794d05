"""NumPy functions met in realistic code (scripts/realistic_audit.py), both modes: np.histogram,
np.fromiter, np.put_along_axis, and the zero-derivative np.lexsort, np.isrealobj, np.iscomplexobj and the
type queries (np.result_type, np.finfo, np.dtype, ...).

* histogram(a, bins, range, density, weights) -> (hist, edges).  The counts are piecewise constant in
  `a`; with weights they are linear in them (dhist = histogram(a, edges, weights=dw)).  The edges are
  `bins` itself when it is an array, else lo + (hi - lo) k / nbins with (lo, hi) = range, or the
  data's (min, max) (NumPy widens an empty span by 0.5 each side: a constant shift), so they move
  with the extreme data points (or with range).  density=True divides by S = sum(n) and the bin widths:
  h = n / (S w), so dh = dn / (S w) - h dS / S - h dw / w.  Bins given by name ("auto", ...) are
  refused when the data are differentiated (their edges follow rules of thumb on the data).
* fromiter(iterable, dtype, count): the array of the items (a generator is consumed, as the plain
  call consumes it); tangents and adjoints item by item.
* Generator / RandomState draws (normal, lognormal, uniform, exponential, laplace, gumbel, logistic)
  with differentiated parameters: reparameterised (see the section below).
* put_along_axis(arr, indices, values, axis): a write into arr, done like numpy_writes.py's np.put:
  the same write into the tangent storage (forward), and the written entries' adjoint routed to the
  values that landed there, found by replaying the write on the values' positions (reverse).
"""
from __future__ import annotations

import builtins

import numpy as np

from ..tangents import NoTangent
from .numpy_writes import (_bind, _dest, _dest_tangent, _refuse_complex, _result,
                           _scatter_reverse, _shaped_like, _tangent_of_values)
from .call_binding import KwAdj
from .registry import defjvp, defrrule_at_run_time, defrule, defvjp, defzero

defzero(np.lexsort, np.isrealobj, np.iscomplexobj)
# Types and their limits (library code reached from SciPy asks them): nothing to differentiate.
defzero(np.result_type, np.common_type, np.promote_types, np.can_cast, np.min_scalar_type, np.finfo, np.iinfo,
        np.dtype, np.issubdtype)


def _zero(v):
    return v is None or v is NoTangent


def _float(d):
    return 0.0 if _zero(d) else float(d)


# ------------------------------------------------------------------ histogram
def _edges_parts(a, bins, rng, edges):
    """How the edges depend on the inputs: ("bins",), ("range", nb) or ("data", nb, i_min, i_max)."""
    if np.ndim(bins) == 1:
        return ("bins",)
    if isinstance(bins, str):
        return ("named",)
    nb = len(edges) - 1
    if rng is not None:
        return ("range", nb)
    flat = np.ravel(a)
    if flat.size == 0:
        return ("range", nb)
    return ("data", nb, int(np.argmin(flat)), int(np.argmax(flat)))


def _bin_index(a, edges):
    """Each datum's bin (NumPy's: the last bin includes its right edge), -1 outside."""
    flat = np.ravel(a)
    nb = len(edges) - 1
    idx = np.searchsorted(edges, flat, side="right") - 1
    idx = np.where(flat == edges[-1], nb - 1, idx)
    inside = (flat >= edges[0]) & (flat <= edges[-1]) & (idx >= 0) & (idx < nb)
    return np.where(inside, idx, -1)


def _counts(a, edges, weights):
    return np.histogram(a, bins=edges, weights=weights)[0].astype(float)


def histogram_tangent(a, y, da, bins=10, range=None, density=None, weights=None, dbins=NoTangent,
                      drange=NoTangent, dweights=NoTangent):
    hist, edges = y
    kind = _edges_parts(a, bins, range, edges)
    if kind[0] == "named" and not _zero(da):
        raise NotImplementedError(f"derivative of np.histogram with bins={bins!r} (edges from a rule of thumb on "
                                  f"the data): pass a number of bins or the edges")
    # the edges' tangent
    if kind[0] == "bins":
        dedges = np.zeros(len(edges)) if _zero(dbins) else np.asarray(dbins, dtype=float) * np.ones(len(edges))
    else:
        k = np.arange(len(edges)) / (len(edges) - 1)
        if kind[0] == "range":
            dlo, dhi = (0.0, 0.0) if _zero(drange) else (_float(drange[0]), _float(drange[1]))
        else:
            flat_d = np.zeros(np.size(a)) if _zero(da) else np.ravel(np.broadcast_to(da, np.shape(a)))
            dlo, dhi = float(flat_d[kind[2]]), float(flat_d[kind[3]])
        dedges = dlo + (dhi - dlo) * k
    dn = np.zeros(len(edges) - 1) if _zero(dweights) else _counts(a, edges, np.broadcast_to(dweights, np.shape(a)))
    if not density:
        dh = dn if weights is not None else np.zeros(len(edges) - 1, dtype=float)
        return (dh, dedges)
    n = _counts(a, edges, weights)
    S = n.sum()
    w = np.diff(edges)
    dw = np.diff(dedges)
    dh = dn / (S * w) - hist * dn.sum() / S - hist * dw / w
    return (dh, dedges)


def histogram_adjoints(a, y, g, bins=10, range=None, density=None, weights=None):
    """(a_bar, bins_bar, range_bar, density_bar, weights_bar)."""
    none = (NoTangent,) * 5
    if _zero(g):
        return none
    hist, edges = y
    gh = g[0] if not _zero(g[0]) else None
    ge = g[1] if not _zero(g[1]) else None
    kind = _edges_parts(a, bins, range, edges)
    gh = None if gh is None else np.asarray(gh, dtype=float)
    ebar = np.zeros(len(edges)) if ge is None else np.asarray(ge, dtype=float).copy()
    nbar = None
    if gh is not None:
        if density:
            n = _counts(a, edges, weights)
            S = n.sum()
            w = np.diff(edges)
            nbar = gh / (S * w) - np.sum(gh * hist) / S
            wbar = -gh * hist / w
            ebar[1:] += wbar
            ebar[:-1] -= wbar
        else:
            nbar = gh
    weights_bar = NoTangent
    if weights is not None and nbar is not None:
        idx = _bin_index(a, edges)
        weights_bar = np.where(idx >= 0, nbar[np.maximum(idx, 0)], 0.0).reshape(np.shape(weights) or np.shape(a))
    a_bar = bins_bar = range_bar = NoTangent
    if kind[0] == "bins":
        bins_bar = ebar
    elif kind[0] == "named":
        if np.any(ebar):
            raise NotImplementedError(f"reverse mode of np.histogram with bins={bins!r}: pass a number of bins or the edges")
    else:
        k = np.arange(len(edges)) / (len(edges) - 1)
        lo_bar, hi_bar = float(np.sum(ebar * (1 - k))), float(np.sum(ebar * k))
        if kind[0] == "range":
            from ..reverse.adjoints import AdjTuple

            range_bar = AdjTuple([lo_bar, hi_bar])
        else:
            flat = np.zeros(np.size(a))
            flat[kind[2]] += lo_bar
            flat[kind[3]] += hi_bar
            a_bar = flat.reshape(np.shape(a))
    return a_bar, bins_bar, range_bar, NoTangent, weights_bar


def _hist_jvp(t, y, a, bins=10, range=None, density=None, weights=None):
    if all(t.d(v) is None for v in (a, bins, range, weights)):
        return None
    return t.call(histogram_tangent, a, y, t.dz(a), bins, range, density, weights, t.dz(bins), t.dz(range), t.dz(weights))


def _hist_vjp(t, g, y, a, bins=10, range=None, density=None, weights=None):
    from .numpy_common import _split

    return _split(t, t.call(histogram_adjoints, a, y, g, bins, range, density, weights), 5)


defjvp(np.histogram, _hist_jvp)
defvjp(np.histogram, _hist_vjp)


# ------------------------------------------------------------------ fromiter
def _fromiter_args(args, kwargs):
    names = ("iter", "dtype", "count")
    b = dict(builtins.zip(names, args), **kwargs)
    return b["iter"], b.get("dtype", float), b.get("count", -1), {k: v for k, v in b.items() if k == "like"}


def frule_fromiter(args, dargs, **kwargs):
    from .python_itertools import _tangents

    it, dtype, count, extra = _fromiter_args(args, kwargs)
    items = list(it) if count < 0 else [x for _, x in builtins.zip(builtins.range(count), it)]
    y = np.fromiter(items, dtype=dtype, count=count, **extra)
    if y.dtype.kind not in "fc":
        return y, NoTangent
    ditems = _tangents(items, dargs[0])
    dy = np.array([0.0 if _zero(d) else d for d in ditems], dtype=y.dtype).reshape(y.shape)
    return y, dy


def rrule_fromiter(*args, **kwargs):
    from ..reverse.builtin_adjoints import _like

    it, dtype, count, extra = _fromiter_args(args, kwargs)
    items = list(it) if count < 0 else [x for _, x in builtins.zip(builtins.range(count), it)]
    y = np.fromiter(items, dtype=dtype, count=count, **extra)

    def pullback(g):
        if _zero(g) or y.dtype.kind not in "fc":
            return (NoTangent,) * len(args)
        _refuse_complex("np.fromiter", y)
        gs = np.asarray(g, dtype=float).reshape(len(items))
        return (_like(it, [float(v) for v in gs]),) + (NoTangent,) * (len(args) - 1)

    return y, pullback


defrule(np.fromiter, frule_fromiter)
defrrule_at_run_time(np.fromiter, rrule_fromiter)


# ------------------------------------------------------------------ put_along_axis
_PAA = ("arr", "indices", "values", "axis")


def put_along_axis_tangent(a, da, ind, v, dv, axis):
    da = _dest_tangent("np.put_along_axis", _dest("np.put_along_axis", a), da, dv is not NoTangent)
    if da is not None:
        np.put_along_axis(da, ind, _tangent_of_values(v, dv, da.dtype), axis)


def _paa_jvp(t, y, *args, **kwargs):
    b = _bind("put_along_axis", _PAA, {}, args, kwargs)
    if t.d(b["arr"]) is None and t.d(b["values"]) is None:
        return None
    t.call(put_along_axis_tangent, b["arr"], t.dz(b["arr"]), b["indices"], b["values"], t.dz(b["values"]), b["axis"])
    return None


def rrule_put_along_axis(*args, **kwargs):
    b = _bind("put_along_axis", _PAA, {}, args, kwargs)
    a, ind, v, axis = _dest("np.put_along_axis", b["arr"]), b["indices"], b["values"], b["axis"]
    _refuse_complex("np.put_along_axis", a, v)
    old = a.copy()
    nv = max(int(np.size(v)), 1)
    positions = np.arange(nv).reshape(np.shape(v)) if np.ndim(v) > 0 else 0
    values_of = _scatter_reverse("np.put_along_axis", a, v, lambda s: np.put_along_axis(s, ind, positions, axis), nv)
    y = np.put_along_axis(a, ind, v, axis)

    def pullback(g):
        bar = values_of()
        a[...] = old
        vbar = _shaped_like(v, np.reshape(bar, np.shape(v)) if np.ndim(v) > 0 else bar[0])
        return _result(args, kwargs, {"arr": NoTangent, "indices": NoTangent, "values": vbar, "axis": NoTangent})

    return y, pullback


defjvp(np.put_along_axis, _paa_jvp, mutates=(0,))
defrrule_at_run_time(np.put_along_axis, rrule_put_along_axis)


# ------------------------------------------------------------------ random draws: reparameterised
# A draw y = loc + scale * z (z the standard draw the generator made) moves with its parameters as
# that expression does: the tangent is dloc + dscale * (y - loc) / scale, the generator's state and the
# standard draw fixed (the reparameterisation trick).  lognormal is exp of a normal draw, uniform is
# low + (high - low) u, exponential is scale * e.  A zero scale (z unknown) with a differentiated scale
# is refused.
_DRAWS = {"normal": ("loc", "scale", 0.0, 1.0), "laplace": ("loc", "scale", 0.0, 1.0),
          "gumbel": ("loc", "scale", 0.0, 1.0), "logistic": ("loc", "scale", 0.0, 1.0),
          "uniform": ("low", "high", 0.0, 1.0), "lognormal": ("mean", "sigma", 0.0, 1.0),
          "exponential": (None, "scale", 0.0, 1.0)}


def _standard(kind, y, a, b):
    """(dy/da, dy/db) at the draw y."""
    y = np.asarray(y, dtype=float)
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        if kind == "uniform":
            u = np.where(b != a, (y - a) / np.where(b != a, b - a, 1.0), 0.0)
            return 1.0 - u, u
        if kind == "lognormal":
            z = np.where(b != 0, (np.log(y) - a) / np.where(b != 0, b, 1.0), np.nan)
            return y, y * z
        z = np.where(b != 0, (y - a) / np.where(b != 0, b, 1.0), np.nan)
        return np.ones_like(y), z


def draw_tangent(kind, y, a, b, da, db):
    pa, pb = _standard(kind, y, a, b)
    out = np.zeros(np.shape(y))
    if not _zero(da):
        out = out + pa * np.asarray(da, dtype=float)
    if not _zero(db):
        if np.any(np.isnan(pb)):
            raise NotImplementedError(f"derivative of a {kind} draw in its scale where the scale is 0")
        out = out + pb * np.asarray(db, dtype=float)
    return out[()] if out.ndim == 0 else out


def draw_adjoints(kind, y, a, b, g):
    from ..reverse.adjoints import unbroadcast

    if _zero(g):
        return NoTangent, NoTangent
    pa, pb = _standard(kind, y, a, b)
    g = np.asarray(g, dtype=float)
    if np.any(np.isnan(pb)):
        raise NotImplementedError(f"reverse mode of a {kind} draw where the scale is 0")
    abar, bbar = unbroadcast(g * pa, np.asarray(a)), unbroadcast(g * pb, np.asarray(b))
    as_num = (lambda v, like: float(np.sum(v)) if np.ndim(like) == 0 else v)
    return as_num(abar, a), as_num(bbar, b)


def _draw_rules(kind):
    a_name, b_name, a_default, b_default = _DRAWS[kind]
    names = (a_name, b_name, "size") if a_name else (b_name, "size")

    def operands(args, kwargs):
        bound = dict(builtins.zip(names, args), **kwargs)
        a = bound.get(a_name, a_default) if a_name else 0.0
        return a, bound.get(b_name, b_default), bound

    def jvp(t, y, self, *args, **kwargs):
        a, b, _ = operands(args, kwargs)
        if t.d(a) is None and t.d(b) is None:
            return None
        return t.call(draw_tangent, kind, y, a, b, t.dz(a), t.dz(b))

    def vjp(t, g, y, self, *args, **kwargs):
        from .numpy_common import _split

        a, b, _ = operands(args, kwargs)
        abar, bbar = _split(t, t.call(draw_adjoints, kind, y, a, b, g), 2)
        by_name = {a_name: abar, b_name: bbar} if a_name else {b_name: bbar}
        pos = [None] + [by_name.get(n) for n in names[:len(args)]]
        named = {n: by_name[n] for n in kwargs if n in by_name}
        return tuple(pos) + ((KwAdj(named),) if named else ())

    return jvp, vjp


def register_draws() -> None:
    """Register the draws' rules: by registry._lazy_rules once the user's code has imported numpy.random
    (importing it costs more than all of the library's rules, and a draw needs it)."""
    for cls in (np.random.Generator, np.random.RandomState):
        for kind in _DRAWS:
            jvp, vjp = _draw_rules(kind)
            defjvp((cls, kind), jvp)
            defvjp((cls, kind), vjp)
