"""NumPy functions that write into their first argument (issue 12): np.put, np.place, np.copyto, np.fill_diagonal.

All three are linear in the values they write, and where they write depends only on the indices, the
mask and the shapes -- never on the values.  That makes both modes simple and exact:

* forward: the same write applied to the tangent storage of the destination, with the tangent of the
  written values (zeros where those are constant), so NumPy's own rules (repeated indices: the last
  write wins; `v` shorter than `ind` repeats; `mode="wrap"/"clip"`; `wrap=` of fill_diagonal) hold
  for the tangent because NumPy applies them;
* reverse: the destination's old value comes back, the adjoint stored for the written entries goes to
  the written values (summed where one value was written to several entries), and those entries'
  adjoint is cleared, because the old value there was overwritten and has no influence.  To learn
  which value landed where, the write is replayed on an array of source positions (so again NumPy
  decides, duplicates included).

The forward rules are templates (`mutates=(0,)`: they run before the write and see operands passed by
keyword too); the reverse rules run when the code runs, since the destination is storage that other
names may share and its adjoint lives in that storage (reverse/shadows.py).
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent
from .call_binding import KwAdj
from .registry import defjvp, defrrule_at_run_time


def _bind(name, names, defaults, args, kwargs):
    """The call's arguments by parameter name (as NumPy binds them), and which were given by keyword."""
    if len(args) > len(names):
        raise TypeError(f"{name}() takes at most {len(names)} arguments")
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names or k in bound:
            raise TypeError(f"{name}() got an unexpected or repeated argument {k!r}")
        bound[k] = v
    for k, v in defaults.items():
        bound.setdefault(k, v)
    missing = [n for n in names if n not in bound]
    if missing:
        raise TypeError(f"{name}() missing argument {missing[0]!r}")
    return bound


def _dest(name, a):
    if not isinstance(a, np.ndarray):
        raise TypeError(f"{name}: the destination must be a NumPy array")
    return a


def _tangent_of_values(v, dv, dtype):
    """The written values' tangent as an array (zeros for a constant), in the destination's dtype kind."""
    if dv is NoTangent or dv is None:
        return np.zeros(np.shape(v), dtype=dtype)
    from .builtin_iteration import iter_tangents

    if isinstance(v, (list, tuple)) and isinstance(dv, (list, tuple)):
        dv = [_tangent_of_values(vi, di, dtype) for vi, di in zip(v, iter_tangents(v, dv))]
    return np.asarray(dv, dtype=dtype) if not isinstance(dv, np.ndarray) else dv


def _dest_tangent(name, a, da, dvalues_live):
    """The destination's tangent storage (None: nothing to do).  A float destination whose tangent was
    not kept as storage cannot take a tangent written into it: refused rather than dropped."""
    if a.dtype.kind not in "fc":
        return None  # integers and booleans carry no tangent
    if isinstance(da, np.ndarray):
        return da
    if not dvalues_live:
        return None
    raise NotImplementedError(f"forward mode of {name}: the destination array has no tangent storage here "
                              f"(write into an array made inside the function, or assign the result instead)")


def _shaped_like(v, bar):
    """An adjoint `bar` (an array shaped like v) in the form of v: an array, a number, a list or tuple."""
    if isinstance(v, np.ndarray):
        if v.dtype.kind not in "fc":
            return NoTangent
        return np.asarray(bar, dtype=v.dtype).reshape(v.shape)
    if isinstance(v, (list, tuple)):
        from ..reverse.adjoints import AdjList, AdjTuple

        items = [_shaped_like(vi, bar[i]) for i, vi in enumerate(v)]
        return AdjTuple(items) if isinstance(v, tuple) else AdjList(items)
    if isinstance(v, (bool, int, np.integer, np.bool_)):
        return NoTangent
    return float(bar) if not np.iscomplexobj(bar) else complex(bar)


def _refuse_complex(name, *values):
    if any(np.iscomplexobj(x) for x in values):
        raise NotImplementedError(f"reverse mode of {name} with complex values")


def _result(args, kwargs, bound_bars):
    """(adjoints of the positional arguments, then a KwAdj of those passed by keyword)."""
    names = list(bound_bars)
    pos = [bound_bars[names[i]] for i in range(len(args))]
    named = {k: bound_bars[k] for k in kwargs if k in bound_bars and bound_bars[k] is not NoTangent}
    return tuple(pos) + ((KwAdj(named),) if named else ())


def _written_sources(a, replay):
    """For each entry of `a` (flat, C order), the position of the source value written there, or -1."""
    src = np.full(a.shape, -1, dtype=np.intp)
    replay(src)
    return src.reshape(-1)


def _scatter_reverse(name, a, v, replay, nv):
    """Run the write; the pullback routes the written entries' adjoint to the values (shaped like v)."""
    from ..reverse import shadows

    src = _written_sources(a, replay)
    written = np.flatnonzero(src >= 0)

    def pullback_values():
        shadows.remember(a)  # (before the caller's pullback rolls `a` back)
        sh = shadows.shadow(a)
        flat = np.asarray(sh).reshape(-1)  # a copy only when the storage is not contiguous (read only)
        gathered = flat[written]
        bar = np.bincount(src[written], weights=gathered, minlength=nv)[:nv] if nv else np.zeros(0)
        sh.flat[written] = 0  # those entries were overwritten: their old values had no influence
        return bar

    return pullback_values


# ------------------------------------------------------------------ np.put
_PUT = ("a", "ind", "v", "mode")


def put_tangent(a, da, ind, v, dv, mode="raise"):
    """Before the primal write: the same write into a's tangent storage (indices checked by NumPy first)."""
    da = _dest_tangent("np.put", _dest("np.put", a), da, dv is not NoTangent)
    if da is not None:
        np.put(da, ind, _tangent_of_values(v, dv, da.dtype), mode=mode)


def _put_jvp(t, y, *args, **kwargs):
    b = _bind("put", _PUT, {"mode": "raise"}, args, kwargs)
    if t.d(b["a"]) is None and t.d(b["v"]) is None:
        return None
    t.call(put_tangent, b["a"], t.dz(b["a"]), b["ind"], b["v"], t.dz(b["v"]), b["mode"])
    return None


def rrule_put(*args, **kwargs):
    b = _bind("put", _PUT, {"mode": "raise"}, args, kwargs)
    a, ind, v, mode = _dest("np.put", b["a"]), b["ind"], b["v"], b["mode"]
    _refuse_complex("np.put", a, v)
    old = a.copy()
    nv = int(np.size(v))
    n_ind = int(np.size(ind))
    values_of = _scatter_reverse("np.put", a, v, lambda s: np.put(s, ind, np.arange(n_ind) % max(nv, 1), mode=mode), nv)
    y = np.put(a, ind, v, mode=mode)

    def pullback(g):
        bar = values_of()
        a[...] = old
        vbar = _shaped_like(v, np.reshape(bar, np.shape(v))) if nv else NoTangent
        return _result(args, kwargs, {"a": NoTangent, "ind": NoTangent, "v": vbar, "mode": NoTangent})

    return y, pullback


defjvp(np.put, _put_jvp, mutates=(0,))
defrrule_at_run_time(np.put, rrule_put)


# ------------------------------------------------------------------ np.place
_PLACE = ("arr", "mask", "vals")


def place_tangent(a, da, mask, v, dv):
    """Before the primal write: the same write into a's tangent storage (NumPy repeats short values)."""
    da = _dest_tangent("np.place", _dest("np.place", a), da, dv is not NoTangent)
    if da is not None:
        np.place(da, mask, _tangent_of_values(v, dv, da.dtype))


def _place_jvp(t, y, *args, **kwargs):
    b = _bind("place", _PLACE, {}, args, kwargs)
    if t.d(b["arr"]) is None and t.d(b["vals"]) is None:
        return None
    t.call(place_tangent, b["arr"], t.dz(b["arr"]), b["mask"], b["vals"], t.dz(b["vals"]))
    return None


def rrule_place(*args, **kwargs):
    b = _bind("place", _PLACE, {}, args, kwargs)
    a, mask, v = _dest("np.place", b["arr"]), b["mask"], b["vals"]
    _refuse_complex("np.place", a, v)
    old = a.copy()
    nv = int(np.size(v))
    values_of = _scatter_reverse("np.place", a, v, lambda s: np.place(s, mask, np.arange(nv)) if nv else None, nv)
    y = np.place(a, mask, v)

    def pullback(g):
        bar = values_of()
        a[...] = old
        vbar = _shaped_like(v, np.reshape(bar, np.shape(v))) if nv else NoTangent
        return _result(args, kwargs, {"arr": NoTangent, "mask": NoTangent, "vals": vbar})

    return y, pullback


defjvp(np.place, _place_jvp, mutates=(0,))
defrrule_at_run_time(np.place, rrule_place)


# ------------------------------------------------------------------ np.fill_diagonal
_FILL = ("a", "val", "wrap")


def _check_fill(a):
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")


def fill_diagonal_tangent(a, da, val, dval, wrap=False):
    a = _dest("np.fill_diagonal", a)
    _check_fill(a)
    da = _dest_tangent("np.fill_diagonal", a, da, dval is not NoTangent)
    if da is not None:
        np.fill_diagonal(da, _tangent_of_values(val, dval, da.dtype), wrap=wrap)


def _fill_jvp(t, y, *args, **kwargs):
    b = _bind("fill_diagonal", _FILL, {"wrap": False}, args, kwargs)
    if t.d(b["a"]) is None and t.d(b["val"]) is None:
        return None
    t.call(fill_diagonal_tangent, b["a"], t.dz(b["a"]), b["val"], t.dz(b["val"]), b["wrap"])
    return None


def rrule_fill_diagonal(*args, **kwargs):
    b = _bind("fill_diagonal", _FILL, {"wrap": False}, args, kwargs)
    a, val, wrap = _dest("np.fill_diagonal", b["a"]), b["val"], b["wrap"]
    _check_fill(a)
    _refuse_complex("np.fill_diagonal", a, val)
    old = a.copy()
    nv = max(int(np.size(val)), 1)
    positions = np.arange(nv) if np.ndim(val) > 0 else 0
    values_of = _scatter_reverse("np.fill_diagonal", a, val, lambda s: np.fill_diagonal(s, positions, wrap=wrap), nv)
    y = np.fill_diagonal(a, val, wrap=wrap)

    def pullback(g):
        bar = values_of()
        a[...] = old
        vbar = _shaped_like(val, np.reshape(bar, np.shape(val)) if np.ndim(val) > 0 else bar[0])
        return _result(args, kwargs, {"a": NoTangent, "val": vbar, "wrap": NoTangent})

    return y, pullback


defjvp(np.fill_diagonal, _fill_jvp, mutates=(0,))
defrrule_at_run_time(np.fill_diagonal, rrule_fill_diagonal)


# ------------------------------------------------------------------ np.copyto
_COPYTO = ("dst", "src", "casting", "where")


def copyto_tangent(dst, ddst, src, dsrc, where=True):
    ddst = _dest_tangent("np.copyto", _dest("np.copyto", dst), ddst, dsrc is not NoTangent)
    if ddst is not None:
        np.copyto(ddst, _tangent_of_values(src, dsrc, ddst.dtype), where=where)


def _copyto_jvp(t, y, *args, **kwargs):
    b = _bind("copyto", _COPYTO, {"casting": "same_kind", "where": True}, args, kwargs)
    if t.d(b["dst"]) is None and t.d(b["src"]) is None:
        return None
    t.call(copyto_tangent, b["dst"], t.dz(b["dst"]), b["src"], t.dz(b["src"]), b["where"])
    return None


def rrule_copyto(*args, **kwargs):
    from ..reverse import shadows
    from ..reverse.adjoints import unbroadcast

    b = _bind("copyto", _COPYTO, {"casting": "same_kind", "where": True}, args, kwargs)
    dst, src, where = _dest("np.copyto", b["dst"]), b["src"], b["where"]
    _refuse_complex("np.copyto", dst, src)
    old = dst.copy()
    mask = np.broadcast_to(np.asarray(where, dtype=bool), dst.shape).copy()
    y = np.copyto(dst, src, casting=b["casting"], where=where)

    def pullback(g):
        shadows.remember(dst)
        sh = shadows.shadow(dst)
        picked = np.where(mask, sh, 0.0)
        np.copyto(sh, 0.0, where=mask)  # overwritten entries: their old values had no influence
        dst[...] = old
        shape = np.shape(src)
        sbar = _shaped_like(src, unbroadcast(picked, np.zeros(shape)) if shape != dst.shape else picked)
        return _result(args, kwargs, {"dst": NoTangent, "src": sbar, "casting": NoTangent, "where": NoTangent})

    return y, pullback


defjvp(np.copyto, _copyto_jvp, mutates=(0,))
defrrule_at_run_time(np.copyto, rrule_copyto)


# ------------------------------------------------------------------ np.putmask
# putmask(a, mask, values) writes values[i % values.size] where mask[i] (flat positions): np.copyto of the values
# repeated to a's shape (np.resize), whose rules exist; the derivative is that model's, run through fcall/rcall.
def putmask_model(a, mask, values):
    np.copyto(a, np.resize(values, np.shape(a)), where=np.asarray(mask, dtype=bool))


def _putmask_frule(args, dargs, **kwargs):
    from ..forward.runtime import fcall

    if kwargs:
        raise NotImplementedError("derivative of np.putmask with keyword arguments")
    return fcall(putmask_model, NoTangent, tuple(args), tuple(dargs), {}, {})


def rrule_putmask(*args, **kwargs):
    from ..reverse.runtime import rcall

    if kwargs:
        raise NotImplementedError("derivative of np.putmask with keyword arguments")
    y, pb = rcall(putmask_model, tuple(args), {})

    def pullback(g):
        _, bars, _ = pb(g)
        return tuple(bars)

    return y, pullback


from .registry import defrule  # noqa: E402

defrule(np.putmask, _putmask_frule, mutates=(0,))
defrrule_at_run_time(np.putmask, rrule_putmask)
