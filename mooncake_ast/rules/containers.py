"""Forward rules of the methods that rearrange lists, dicts and arrays in place.

Each template runs *before* the primal call (the rules declare `mutates=(0,)`), so it sees
the container as the method will find it and applies the same rearrangement to the
tangent storage: `xs.sort()` sorts the tangents by the primal keys, `d.pop(k)` pops k's
tangent, `d.update(a=x)` stores x's tangent under "a".  Their reverse counterparts are
in `reverse/containers.py`.
"""
from __future__ import annotations

import operator

import numpy as np

from ..tangents import NoTangent, storage
from .dict_key_checks import check_key_tangent, check_pair_tangents
from .registry import defjvp, defmethod, defvjp


def sort_order(items: list, key=None, reverse: bool = False) -> list:
    """The positions of `items` in the order `items.sort(key=key, reverse=reverse)` leaves them."""
    keyed = (lambda i: key(items[i])) if key is not None else items.__getitem__
    return sorted(range(len(items)), key=keyed, reverse=reverse)


def _stored(x, dx):
    return storage(x, dx) if dx is not NoTangent else NoTangent


# ---------------------------------------------------------------- lists


def list_sort_tangent(lst, dl, key=None, reverse=False):
    order = sort_order(lst, key, reverse)
    dl[:] = [dl[i] for i in order]


def list_remove_tangent(lst, dl, x):
    del dl[lst.index(x)]


def list_clear_tangent(dl):
    dl.clear()


defmethod(list, "sort", lambda t, y, l, key=None, reverse=False:
          t.call(list_sort_tangent, l, t.d(l), key, reverse) if t.d(l) is not None else None, mutates=(0,))
defmethod(list, "remove", lambda t, y, l, x: t.call(list_remove_tangent, l, t.d(l), x) if t.d(l) is not None else None,
          mutates=(0,))
defmethod(list, "clear", lambda t, y, l: t.call(list_clear_tangent, t.d(l)) if t.d(l) is not None else None, mutates=(0,))


# ---------------------------------------------------------------- dicts


def dict_setdefault_tangent(d, dd, k, dk, default, ddefault):
    check_key_tangent(dk)  # (a dict keeps no derivative of its keys)
    if k in d:
        return dd[k] if dd is not NoTangent else NoTangent
    stored = _stored(default, ddefault)
    if dd is not NoTangent:
        dd[k] = stored
    return stored


def dict_pop_tangent(d, dd, k, has_default, ddefault):
    if k in d:
        return dd.pop(k) if dd is not NoTangent else NoTangent
    return ddefault if has_default else NoTangent


def dict_popitem_tangent(d, dd):
    if not d or dd is NoTangent:
        return NoTangent
    k = next(reversed(d))
    return (NoTangent, dd.pop(k))


def dict_update_tangent(d, dd, other, dother, names, *values_and_tangents):
    """d.update(other, **kw)'s effect on d's tangent storage (`names` are the keywords)."""
    if dd is NoTangent:
        return
    if other is not None:
        if hasattr(other, "keys"):
            for k in other.keys():
                dd[k] = _stored(other[k], dother[k] if dother is not NoTangent else NoTangent)
        elif isinstance(other, (list, tuple)):
            pairs = list(other)
            dpairs = list(dother) if dother is not NoTangent else [NoTangent] * len(pairs)
            check_pair_tangents(dpairs)
            for (k, v), dp in zip(pairs, dpairs):
                dv = dp[1] if isinstance(dp, (tuple, list)) else NoTangent
                dd[k] = _stored(v, dv)
        else:
            # An iterator (zip, map, a generator): this runs before the call (a mutating rule's template sees the
            # values before it), and reading the pairs here spends the iterator, so they go into d here too and
            # the call itself finds nothing left: d ends as `d.update(it, **kw)` leaves it.
            pairs = [tuple(p) for p in other]
            dpairs = list(dother) if dother is not NoTangent else [NoTangent] * len(pairs)
            check_pair_tangents(dpairs)
            d.update(pairs)
            for (k, v), dp in zip(pairs, dpairs):
                dd[k] = _stored(v, dp[1] if isinstance(dp, (tuple, list)) else NoTangent)
    n = len(names)
    for name, v, dv in zip(names, values_and_tangents[:n], values_and_tangents[n:]):
        dd[name] = _stored(v, dv)


def _update_template(t, y, d, *other, **kw):
    if t.d(d) is None:
        return None
    o = other[0] if other else None
    names = tuple(kw)
    return t.call(dict_update_tangent, d, t.d(d), o, t.dz(o) if other else NoTangent, names,
                  *kw.values(), *[t.dz(v) for v in kw.values()])


def dict_clear_tangent(dd):
    dd.clear()


def dict_merge_tangent(a, da, b, db):
    """The tangent of `a | b` for dicts (None for anything else: ints and sets are not differentiable)."""
    if not isinstance(a, dict):
        return NoTangent
    out = dict(da) if da is not NoTangent else {k: NoTangent for k in a}
    for k in b:
        out[k] = db[k] if db is not NoTangent else NoTangent
    return out


def dict_imerge_tangent(a, da, b, db):
    if isinstance(a, dict) and da is not NoTangent:
        for k in b:
            da[k] = _stored(b[k], db[k] if db is not NoTangent else NoTangent)
    return da


defmethod(dict, "setdefault", lambda t, y, d, k, default=None:
          t.call(dict_setdefault_tangent, d, t.dz(d), k, t.dz(k), default, t.dz(default)), mutates=(0,))
defmethod(dict, "pop", lambda t, y, d, k, *default:
          t.call(dict_pop_tangent, d, t.dz(d), k, bool(default), t.dz(default[0]) if default else NoTangent), mutates=(0,))
defmethod(dict, "popitem", lambda t, y, d: t.call(dict_popitem_tangent, d, t.dz(d)), mutates=(0,))
defmethod(dict, "clear", lambda t, y, d: t.call(dict_clear_tangent, t.d(d)) if t.d(d) is not None else None, mutates=(0,))
defmethod(dict, "update", _update_template, mutates=(0,))
defjvp(operator.or_, lambda t, y, a, b: t.call(dict_merge_tangent, a, t.dz(a), b, t.dz(b))
       if t.d(a) is not None or t.d(b) is not None else None)
defjvp(operator.ior, lambda t, y, a, b: t.call(dict_imerge_tangent, a, t.dz(a), b, t.dz(b))
       if t.d(a) is not None or t.d(b) is not None else None, mutates=(0,))


# ---------------------------------------------------------------- arrays sorted or filled in place


def ndarray_sort_tangent(a, da, axis=-1, kind=None, order=None):
    if da is NoTangent:
        return
    idx = np.argsort(a, axis=axis, kind="stable")
    da[...] = np.take_along_axis(da, idx, axis=axis)


def ndarray_partition_tangent(a, da, kth, axis=-1, kind="introselect", order=None):
    """`a.partition(kth, axis)` moves a's entries (a permutation along axis, the one np.partition finds for them):
    the tangent's entries move alike.  Run before the call, on a's entries then."""
    if da is NoTangent:
        return
    from .numpy_extra import _partition_perm

    perm, ax = _partition_perm(a, np.partition(a, kth, axis=axis), axis)
    da[...] = np.take_along_axis(da, perm, axis=ax)


def ndarray_fill_tangent(da, dv):
    if da is not NoTangent:
        da[...] = 0.0 if dv is NoTangent else dv


defmethod(np.ndarray, "sort", lambda t, y, a, axis=-1, kind=None, order=None:
          t.call(ndarray_sort_tangent, a, t.d(a), axis) if t.d(a) is not None else None, mutates=(0,))
defmethod(np.ndarray, "partition", lambda t, y, a, kth, axis=-1, kind="introselect", order=None:
          t.call(ndarray_partition_tangent, a, t.d(a), kth, axis) if t.d(a) is not None else None, mutates=(0,))
defmethod(np.ndarray, "fill", lambda t, y, a, v: t.call(ndarray_fill_tangent, t.d(a), t.dz(v)) if t.d(a) is not None else None,
          mutates=(0,))


def dict_merge_adjoint(a, b, g, which):
    """The adjoint of operand `which` of `a | b` on dicts: each key's slot goes to the operand it came from."""
    if not isinstance(a, dict) or g is NoTangent or g is None:
        return NoTangent
    from ..reverse.adjoints import AdjDict

    keys = [k for k in a if k not in b] if which == 0 else list(b)
    return AdjDict({k: g[k] for k in keys if k in g})


defvjp(operator.or_, lambda t, g, y, a, b: (t.call(dict_merge_adjoint, a, b, g, 0), t.call(dict_merge_adjoint, a, b, g, 1)))
