"""Rules of builtins and of the syntax helpers in `ops` (displays, cells, unpacking), both modes.

Conventions: `abs` takes slope 0 at 0, `max`/`min` follow the first argument attaining the result,
`divmod`'s quotient and `round` have zero derivative.  Mutating methods (`list.append`, `dict.update`,
...) have forward templates here; their reverse is done by reverse/transform.py (SPECIAL) and
reverse/runtime.py, which undo the mutation.
"""
from __future__ import annotations

import builtins
import operator
import types

import numpy as np

from ..arrays import is_other_array
from ..errors import UnsupportedDerivativeError
from .. import ops
from ..batching import Batched
from ..errors import UnsupportedDerivativeError
from ..frontend import stmt_ops
from ..tangents import NoTangent
from . import helpers as h
from .operator_rules import pow_adjoints, pow_tangent
from .registry import defcomplex, defjvp, defmethod, defrule, defvjp, defvjp_method, defzero


def _tangents(t, xs):
    return [t.dz(x) for x in xs]


def stored(t, x):
    """The tangent to keep in a container or object for x: storage if x is mutable."""
    if t.is_num(x):
        return t.dz(x)
    return t.call(storage_of, x, t.dz(x))


def storage_of(x, dx):
    from ..tangents import storage

    return storage(x, dx)


# ------------------------------------------------------------------ displays and unpacking
defjvp(ops.tuple_of, lambda t, y, *xs: t.call(ops.tuple_of, *_tangents(t, xs)))
defjvp(ops.list_of, lambda t, y, *xs: t.call(ops.list_of, *_tangents(t, xs)))
defjvp(ops.dict_of, lambda t, y, *kv: t.call(ops.dict_of, *[(x if t.d(x) is None else t.call(checked_key, x, t.d(x)))
                                                             if i % 2 == 0 else t.dz(x) for i, x in enumerate(kv)]))
defjvp(ops.identity, lambda t, y, x: t.d(x))
defjvp(ops.sequence, lambda t, y, x: t.call(sequence_tangent, x, y, t.d(x)) if t.d(x) is not None else None)
defjvp(ops.unpack, lambda t, y, x, n: t.call(unpack_tangent, t.d(x), n) if t.d(x) is not None else None)
defjvp(ops.unpack_star, lambda t, y, x, i, j: t.call(unpack_star_tangent, t.d(x), x, i, j) if t.d(x) is not None else None)
defjvp(ops.concat_tuple, lambda t, y, *parts: t.call(concat_tangent, *[t.call(ops.tuple_of, p, t.dz(p)) for p in parts]))
defjvp(ops.merge_dicts, lambda t, y, *parts: t.call(merge_tangent, *[t.call(ops.tuple_of, p, t.dz(p)) for p in parts]))
defjvp(ops.merge_kwargs, lambda t, y, *parts: t.call(merge_tangent, *[t.call(ops.tuple_of, p, t.dz(p)) for p in parts]))
defjvp(ops.cell_get, lambda t, y, c: t.call(cell_tangent_get, t.d(c)) if t.d(c) is not None else None)
defjvp(ops.cell_set, lambda t, y, c, v: t.call(ops.cell_set, t.d(c), stored(t, v)) if t.d(c) is not None else None, mutates=(0,))
defjvp(list.append, lambda t, y, l, x: t.call(list.append, t.d(l), stored(t, x)) if t.d(l) is not None else None, mutates=(0,))
defjvp(set.add, lambda t, y, s, x: t.call(set_tangent, t.d(x)) if t.d(x) is not None else None, mutates=(0,))
defjvp(ops.set_of, lambda t, y, *xs: t.call(set_tangent, *[t.d(x) for x in xs if t.d(x) is not None])
       if any(t.d(x) is not None for x in xs) else None)
defjvp(builtins.set, lambda t, y, xs=(): t.call(set_items_tangent, xs, t.d(xs)) if t.d(xs) is not None else None)
defjvp(builtins.frozenset, lambda t, y, xs=(): t.call(set_items_tangent, xs, t.d(xs)) if t.d(xs) is not None else None)


SET_REFUSAL = ("a set (or frozenset) holds numbers that carry derivatives, and a set keeps no derivative of its "
               "items (equal items merge, the order is arbitrary); use a list or a tuple, or `sorted(set(...))` of "
               "values that do not depend on the inputs")


KEY_REFUSAL = ("a dict's key depends on the inputs, and a dict keeps no derivative of its keys (equal keys merge): "
               "key the dict by something that does not depend on the inputs, or keep the numbers in a list")


def checked_key(k, dk):
    """A dict display's key in forward mode: a key whose tangent is not zero would lose it silently; refused."""
    if not _zero_tangent(dk):
        raise UnsupportedDerivativeError(KEY_REFUSAL)
    return k


def _zero_tangent(dk) -> bool:
    """A key's or an index's tangent that is zero: none, 0.0, zeros, or a tuple of those (`x[()]`, `x[i, j]`)."""
    if isinstance(dk, (tuple, list)):
        return all(_zero_tangent(d) for d in dk)
    return _no_tangent(dk) or isinstance(dk, slice)


def check_dict_keys(*keys) -> None:
    """Reverse mode of a dict display whose keys depend on the inputs: refused if one can carry a derivative."""
    if any(_carries_derivative(k) for k in keys):
        raise UnsupportedDerivativeError(KEY_REFUSAL)


def set_tangent(*dxs):
    """Sets keep no tangents: refuse when a nonzero one would be dropped (a zero one is dropped rightly)."""
    for d in dxs:
        if not _no_tangent(d):
            raise UnsupportedDerivativeError(SET_REFUSAL)
    return NoTangent


def _carries_derivative(v) -> bool:
    """Could v (an item of a set) carry a derivative: a real or complex number or array, or a tuple holding one?"""
    if isinstance(v, (bool, int, str, bytes, type(None), np.integer, np.bool_)):
        return False
    if isinstance(v, tuple):
        return any(_carries_derivative(i) for i in v)
    if isinstance(v, np.ndarray):
        return v.dtype.kind in "fc"
    return isinstance(v, (float, complex, np.floating, np.complexfloating))


def check_set_items(items) -> None:
    """Reverse mode of a set that gets an adjoint: refuse if it holds anything that can carry a derivative (its
    adjoint would be dropped); sets of ints, strings and tuples of them are fine."""
    if any(_carries_derivative(v) for v in items):
        raise UnsupportedDerivativeError(SET_REFUSAL)


def check_set_item(v) -> None:
    """`s.add(v)` in reverse mode, for a set that depends on the inputs (see check_set_items)."""
    if _carries_derivative(v):
        raise UnsupportedDerivativeError(SET_REFUSAL)


def set_items_tangent(xs, dxs):
    """`set(xs)`: the items' tangents (none for a dict's keys, a string's characters, a range's ints) must be zero."""
    if dxs is NoTangent or isinstance(xs, (dict, set, frozenset, str, range)):
        return NoTangent
    return set_tangent(*(dxs if isinstance(dxs, (list, tuple)) else [dxs]))
defzero(ops.not_contains, ops.format_value, ops.join_str, ops.assert_failed, ops.import_module, ops.nested_code)
defzero(*stmt_ops.ZERO_DERIVATIVE)  # the helpers lowered `with`/`global`/`raise from` call (frontend/stmt_ops.py)


def iter_tangents(xs, dxs):
    """The tangents of the items `iter(xs)` yields (iterating a dict yields its keys: no tangent)."""
    if dxs is NoTangent or isinstance(xs, (dict, set, frozenset, str, range)):
        return [NoTangent] * len(xs) if hasattr(xs, "__len__") else NoTangent
    if isinstance(dxs, (zip, map, type(reversed([])))):
        return list(dxs)
    return list(dxs)


def sequence_tangent(x, seq, dx):
    """Tangent of `ops.sequence(x)`: indexable and iterable like the sequence itself."""
    if dx is NoTangent:
        return [NoTangent] * len(seq)
    if seq is x:
        return dx
    if isinstance(x, (dict, set, frozenset)):
        return [NoTangent] * len(seq)
    if isinstance(dx, MutableTangent):  # an object's fields: its items come from code not differentiated
        if all(_no_tangent(v) for v in dx.fields.values()):
            return [NoTangent] * len(seq)
        raise UnsupportedDerivativeError(
            f"forward mode of a for loop over a {type(x).__module__}.{type(x).__qualname__}: its items come from code "
            f"that is not differentiated, so their tangents are not known; loop over the array or list itself (e.g. "
            f"`for i in range(len(x))` in place of np.ndenumerate)")
    return list(dx) if not isinstance(dx, list) else dx


def _no_tangent(t):
    return t is NoTangent or (isinstance(t, np.ndarray) and not t.any()) or (isinstance(t, float) and t == 0.0)


def unpack_tangent(dx, n):
    if dx is NoTangent:
        return (NoTangent,) * n
    return tuple(dx)


def unpack_star_tangent(dx, x, i, j):
    items = iter_tangents(x, dx) if dx is not NoTangent else [NoTangent] * len(list(x))
    stop = len(items) - j
    return (*items[:i], items[i:stop], *items[stop:])


def concat_tangent(*pairs):
    out: tuple = ()
    for p, dp in pairs:
        out = out + (tuple(iter_tangents(p, dp)) if dp is not NoTangent else (NoTangent,) * len(tuple(p)))
    return out


def merge_tangent(*pairs):
    out: dict = {}
    for p, dp in pairs:
        for k in p:
            out[k] = dp[k] if dp is not NoTangent else NoTangent
    return out


def cell_tangent_get(dc):
    try:
        return dc.cell_contents
    except ValueError:
        return NoTangent


# ------------------------------------------------------------------ builtins
defjvp(builtins.abs, lambda t, y, x: t.call(h.abs_tangent, x, t.d(x)) if t.d(x) is not None else None)
defjvp(builtins.float, lambda t, y, x=0.0: t.call(real_tangent, t.d(x)) if t.d(x) is not None else None)
# NumPy's float scalar types as constructors (`np.float64(x)`): the identity on the value, like float().
for _np_float in (np.float64, np.float32):
    defjvp(_np_float, lambda t, y, x=0.0: t.call(real_tangent, t.d(x)) if t.d(x) is not None else None)
defjvp(builtins.complex, lambda t, y, real=0.0, imag=0.0: t.call(complex_tangent, t.dz(real), t.dz(imag)) if (t.d(real) is not None or t.d(imag) is not None) else None)
_NO_START = object()  # sum(xs) without a start: its derivatives need not name it
defjvp(builtins.sum, lambda t, y, xs, start=_NO_START: (
    None if t.d(xs) is None and (start is _NO_START or t.d(start) is None)
    else t.call(sum_tangent, y, xs, t.dz(xs)) if start is _NO_START
    else t.call(sum_tangent, y, xs, t.dz(xs), start, t.dz(start))))
defjvp(builtins.max, lambda t, y, *xs, **kw: t.call(minmax_tangent, builtins.max, y, t.call(ops.tuple_of, *xs), t.call(ops.tuple_of, *_tangents(t, xs)),
                                                   *_default_operand(t, kw)))
defjvp(builtins.min, lambda t, y, *xs, **kw: t.call(minmax_tangent, builtins.min, y, t.call(ops.tuple_of, *xs), t.call(ops.tuple_of, *_tangents(t, xs)),
                                                   *_default_operand(t, kw)))


def _default_operand(t, kw):
    """max/min(iterable, default=d): d's tangent, as an extra helper argument when d is differentiated."""
    return [t.d(kw["default"])] if "default" in kw and t.d(kw["default"]) is not None else []


def _same_item(x, y):
    """Is the item x the result y of max/min?  Identity, or equal value (rows of an array are new views
    each time they are read; `==` on arrays is elementwise, so arrays compare whole)."""
    if x is y:
        return True
    import numpy as np

    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return np.shape(x) == np.shape(y) and bool(np.array_equal(x, y, equal_nan=True))
    try:
        return bool(x == y)
    except (TypeError, ValueError):
        return False
defjvp(builtins.pow, lambda t, y, a, b, mod=None: pow_tangent(t, y, a, b) if mod is None else None)  # pow(a, b, mod): integers
defjvp(builtins.round, lambda t, y, x, ndigits=None: None)
defjvp(builtins.list, lambda t, y, xs=(): t.call(list_tangent, xs, t.d(xs)) if t.d(xs) is not None else None)
defjvp(builtins.tuple, lambda t, y, xs=(): t.call(tuple_tangent, xs, t.d(xs)) if t.d(xs) is not None else None)
defjvp(builtins.dict, lambda t, y, *a, **kw: t.call(dict_tangent, y, t.call(ops.tuple_of, *[t.call(ops.tuple_of, x, t.dz(x)) for x in a]),
                                                      t.call(ops.dict_of, *[z for k, v in kw.items() for z in (k, t.dz(v))])))
defjvp(builtins.zip, lambda t, y, *xs: t.call(zip_tangent, t.call(ops.tuple_of, *xs), t.call(ops.tuple_of, *_tangents(t, xs))))
defjvp(builtins.enumerate, lambda t, y, xs, start=0: t.call(enumerate_tangent, xs, t.d(xs)) if t.d(xs) is not None else None)
defjvp(builtins.reversed, lambda t, y, xs: t.call(reversed_tangent, xs, t.d(xs)) if t.d(xs) is not None else None)
defjvp(builtins.sorted, lambda t, y, xs, **kw: t.call(sorted_tangent, xs, t.d(xs), t.call(ops.dict_of, *[z for k, v in kw.items() for z in (k, v)])) if t.d(xs) is not None else None)
defjvp(builtins.divmod, lambda t, y, a, b: t.call(ops.tuple_of, NoTangent, t.sub(t.d(a), t.mul(t.call(_floordiv, a, b), t.d(b))))
       if (t.d(a) is not None or t.d(b) is not None) else None)
defjvp(builtins.iter, lambda t, y, xs, *sentinel: t.call(iter_tangent, xs, y, t.d(xs)) if t.d(xs) is not None and not sentinel else None)
defjvp(builtins.next, lambda t, y, it, *default: t.call(next_tangent, t.d(it), *[t.dz(d) for d in default])
       if t.d(it) is not None or any(t.d(d) is not None for d in default) else None, mutates=(0,))
defzero(builtins.len, builtins.range, builtins.isinstance, builtins.issubclass, builtins.int, builtins.bool,
        builtins.str, builtins.repr, builtins.type, builtins.id, builtins.hash, builtins.print, builtins.callable,
        builtins.hasattr, builtins.all, builtins.any, builtins.format, builtins.ord, builtins.chr,
        builtins.slice, builtins.bin, builtins.hex, builtins.oct, builtins.ascii)


def _floordiv(a, b):
    return a // b


def complex_tangent(dre, dim):
    """The tangent of complex(re, im) = re + 1j im: always a complex number (zeros are symbolic)."""
    out = 0j
    if dre is not NoTangent:
        out = out + dre
    if dim is not NoTangent:
        out = out + 1j * dim
    return out


def complex_part_adjoint(x, g, part):
    """complex(re, im): re's adjoint is g (its real part if re is real); im's is -1j g (Im(g) if im is real)."""
    if g is NoTangent or isinstance(x, str):
        return NoTangent
    a = g if part == 0 else -1j * g
    return a if isinstance(x, complex) else float(complex(a).real)


def divmod_adjoint(a, b, g, which):
    """divmod(a, b) = (a // b, a - (a // b) b): only the remainder carries a derivative."""
    if g is NoTangent or g is None:
        return NoTangent
    r = g[1] if len(g) > 1 else NoTangent
    if r is NoTangent or r is None:
        return NoTangent
    return r if which == 0 else -r * (a // b)


def real_tangent(dx):
    return float(dx.real) if isinstance(dx, complex) else float(dx)


def sum_tangent(y, xs, dxs, start=0, dstart=NoTangent):
    """Tangent of `sum(xs, start)`: the sum of the tangents, or, where sum concatenates lists or
    tuples (the result is one), the concatenation of the items' tangents after start's."""
    if isinstance(y, (list, tuple)):
        ditems = iter_tangents(xs, dxs) if dxs is not NoTangent else [NoTangent] * len(xs)
        items = xs if isinstance(xs, (list, tuple)) else [None] * len(ditems)
        out = _sequence_tangent(start, dstart)
        for item, d in zip(items, ditems):
            out.extend(_sequence_tangent(item, d))
        if len(out) != len(y):
            raise NotImplementedError("derivative of sum() concatenating an iterator's items: pass a list")
        return tuple(out) if isinstance(y, tuple) else out
    out = dstart
    if dxs is not NoTangent:
        for d in iter_tangents(xs, dxs):
            out = out + d
    return out


def _sequence_tangent(x, dx):
    if dx is not NoTangent:
        return list(dx)
    if x is None:
        raise NotImplementedError("derivative of sum() concatenating an iterator's items: pass a list")
    return [NoTangent] * len(x)


def _iterable_items(x):
    """The items max/min read from x, after the call: an iterator is exhausted by then, so ours (map's
    recorded results, a generator's items) give their list, and any other iterator is refused (its
    items are gone: the derivative would be silently zero)."""
    items = getattr(x, "items", None)
    if isinstance(items, list) and getattr(type(x), "__mc_items__", False):  # (ours; not a user's `items` field)
        return items
    if iter(x) is x:
        raise UnsupportedDerivativeError(
            f"max/min of an iterator ({type(x).__name__}): its items are consumed by the call, so their derivatives "
            "cannot be found afterwards; pass a list (`max(list(it))`)")
    return list(x)


def minmax_tangent(which, y, xs, dxs, ddefault=NoTangent):
    """Tangent of max/min: that of the first argument equal to the result (ties: the first); that of
    `default=` when the iterable was empty."""
    if len(xs) == 1:  # max(iterable)
        items = _iterable_items(xs[0])
        if not items:
            return ddefault
        ditems = dxs[0]
        if ditems is NoTangent:
            return NoTangent
        ditems = iter_tangents(xs[0], ditems)
    else:
        items, ditems = list(xs), list(dxs)
    for x, d in zip(items, ditems):
        if _same_item(x, y):
            return d
    return NoTangent


def minmax_adjoint(y, xs, k, g):
    """max/min: the first argument (or item of the one iterable) that is the result gets g (ties: the first)."""
    from ..reverse.adjoints import AdjList, AdjTuple

    if len(xs) == 1:
        items = _iterable_items(xs[0])
        out = [NoTangent] * len(items)
        for i, v in enumerate(items):
            if _same_item(v, y):
                out[i] = g
                break
        if isinstance(xs[0], list):
            return AdjList(out)
        if _is_array(xs[0]):
            from .numpy_common import _in_storage

            if _in_storage(xs[0], g):
                return NoTangent  # the row's adjoint is a view of the array's storage: already counted there
            return _array_of(xs[0], out)
        return AdjTuple(out)
    for i, v in enumerate(xs):
        if _same_item(v, y):
            return g if i == k else NoTangent
    return NoTangent


def _is_array(x):
    import numpy as np

    return isinstance(x, np.ndarray)


def _array_of(x, items):
    """The adjoint of an array iterated over (its rows or entries): the items' adjoints stacked, zeros for none."""
    import numpy as np

    out = np.zeros(np.shape(x), dtype=np.result_type(np.asarray(x).dtype, float))
    for i, v in enumerate(items):
        if v is not NoTangent:
            out[i] = v
    return out


def minmax_default_adjoint(xs, g):
    """max/min(iterable, default=d): d gets g when the iterable was empty."""
    return g if len(xs) == 1 and not list(xs[0]) else NoTangent


def list_tangent(xs, dxs):
    return iter_tangents(xs, dxs) if dxs is not NoTangent else [NoTangent] * len(list(xs))


def tuple_tangent(xs, dxs):
    return tuple(list_tangent(xs, dxs))


def dict_tangent(y, pairs, dkw):
    out = {k: NoTangent for k in y}
    for x, dx in pairs:
        if dx is NoTangent:
            continue
        if isinstance(x, dict) and isinstance(dx, dict):
            out.update({k: dx.get(k, NoTangent) for k in x})
        elif isinstance(x, (list, tuple)):
            for (k, _), dpair in zip(x, dx):
                out[k] = _pair_value(dpair)
        else:
            # An iterator (zip, map, ...), consumed by the call: its keys are y's first keys, in order,
            # provided they were distinct and the keyword arguments added new ones.
            items = list(dx)
            if len(items) + len(dkw) != len(y):
                raise NotImplementedError("derivative of dict() of an iterator with repeated keys: pass a list of pairs")
            for k, dpair in zip(list(y), items):
                out[k] = _pair_value(dpair)
    out.update(dkw)
    return out


def _pair_value(dpair):
    """A (key, value) pair's value tangent; the key's must be zero (a dict keeps no derivative of its keys)."""
    if dpair is NoTangent:
        return NoTangent
    if not _zero_tangent(dpair[0]):
        raise UnsupportedDerivativeError(KEY_REFUSAL)
    return dpair[1]


def zip_tangent(xs, dxs):
    cols = [iter_tangents(x, d) if d is not NoTangent else [NoTangent] * len(list(x)) for x, d in zip(xs, dxs)]
    return list(zip(*cols))


def enumerate_tangent(xs, dxs):
    items = iter_tangents(xs, dxs)
    return list(zip([NoTangent] * len(items), items))


def reversed_tangent(xs, dxs):
    return iter_tangents(xs, dxs)[::-1]


def iter_tangent(xs, y, dxs):
    """The tangent of iter(xs): a queue of the items' tangents, consumed by `next` as the iterator is."""
    if y is xs:
        return dxs  # iter() of an iterator is that iterator
    return list_tangent(xs, dxs)


_END = object()


def next_tangent(dit, *ddefault):
    """The tangent of next(it[, default]), taken before the call: the next queued tangent."""
    if dit is NoTangent:
        return NoTangent
    if isinstance(dit, list):
        d = dit.pop(0) if dit else _END
    else:
        d = next(dit, _END)
    if d is _END:
        return ddefault[0] if ddefault else NoTangent
    return d


def sorted_tangent(xs, dxs, kw):
    if dxs is NoTangent:
        return NoTangent
    items = list(xs)
    key = kw.get("key")
    order = builtins.sorted(range(len(items)), key=(lambda i: key(items[i])) if key else (lambda i: items[i]), reverse=kw.get("reverse", False))
    d = iter_tangents(xs, dxs)
    return [d[i] for i in order]


# ------------------------------------------------------------------ methods of builtin containers
defmethod(list, "append", lambda t, y, l, x: t.call(list.append, t.d(l), stored(t, x)) if t.d(l) is not None else None, mutates=(0,))
defmethod(list, "extend", lambda t, y, l, x: t.call(extend_tangent, t.d(l), x, t.dz(x)) if t.d(l) is not None else None, mutates=(0,))
defmethod(list, "pop", lambda t, y, l, i=-1: t.call(pop_tangent, t.d(l), i) if t.d(l) is not None else None, mutates=(0,))
defmethod(list, "insert", lambda t, y, l, i, x: t.call(insert_tangent, t.d(l), i, t.dz(x)) if t.d(l) is not None else None, mutates=(0,))
defmethod(list, "copy", lambda t, y, l: t.call(list, t.d(l)) if t.d(l) is not None else None)
defmethod(list, "reverse", lambda t, y, l: t.call(list.reverse, t.d(l)) if t.d(l) is not None else None, mutates=(0,))
defmethod(dict, "get", lambda t, y, d, k, default=None: t.call(dict_get_tangent, d, t.d(d), k, t.dz(default)) if t.d(d) is not None or t.d(default) is not None else None)
defmethod(dict, "items", lambda t, y, d: t.call(items_tangent, d, t.d(d)) if t.d(d) is not None else None)
defmethod(dict, "values", lambda t, y, d: t.call(values_tangent, d, t.d(d)) if t.d(d) is not None else None)
defmethod(dict, "copy", lambda t, y, d: t.call(dict, t.d(d)) if t.d(d) is not None else None)
defmethod(dict, "update", lambda t, y, d, *other, **kw: t.call(
    dict_update_tangent, t.d(d), other[0] if other else (), t.dz(other[0]) if other else NoTangent,
    *[z for k, v in kw.items() for z in (k, t.dz(v))]) if t.d(d) is not None else None, mutates=(0,))
defzero(*[(dict, _name) for _name in ("keys", "__len__", "__contains__")],
        *[(list, _name) for _name in ("index", "count", "__len__", "__contains__")],
        *[(str, _name) for _name in ("format", "join", "split", "strip", "upper", "lower", "replace", "startswith", "endswith")])
defvjp((list, "copy"), lambda t, g, y, l: (t.call(copy_adjoint, g),))
defvjp((dict, "copy"), lambda t, g, y, d: (t.call(copy_adjoint, g),))
defjvp(dict.get, lambda t, y, d, k, default=None: t.call(dict_get_tangent, d, t.dz(d), k, t.dz(default)) if t.d(d) is not None or t.d(default) is not None else None)


def copy_adjoint(g):
    """A shallow copy's adjoint is the copy's (a mutable item's slot is that item's own storage, counted once)."""
    return g


def extend_tangent(dl, x, dx):
    dl.extend(iter_tangents(x, dx) if dx is not NoTangent else [NoTangent] * len(list(x)))


def pop_tangent(dl, i):
    return dl.pop(i)


def insert_tangent(dl, i, dx):
    dl.insert(i, dx)


def dict_get_tangent(d, dd, k, ddefault):
    if k in d:
        return dd[k] if dd is not NoTangent else NoTangent
    return ddefault


def items_tangent(d, dd):
    return [(NoTangent, dd[k]) for k in d]


def values_tangent(d, dd):
    return [dd[k] for k in d]


def dict_update_tangent(dd, other, dother, *kw_tangents):
    """d.update(other, **kw) on the tangents: other a mapping or pairs, then the keywords (name, tangent, ...)."""
    if hasattr(other, "keys"):
        for k in other.keys():
            dd[k] = dother[k] if dother is not NoTangent else NoTangent
    else:
        pairs = list(other)
        dpairs = [NoTangent] * len(pairs) if dother is NoTangent else list(dother)
        for (k, _), dpair in zip(pairs, dpairs):
            dd[k] = _pair_value(dpair) if dpair is not NoTangent else NoTangent
    for i in range(0, len(kw_tangents), 2):
        dd[kw_tangents[i]] = kw_tangents[i + 1]


# ------------------------------------------------------------------ attributes, closures
NONDIFF_ATTRS = frozenset({"shape", "ndim", "dtype", "size", "__class__", "__name__", "itemsize", "nbytes"})
defjvp(builtins.getattr, lambda t, y, obj, name, *default: (
    t.call(getattr_default_tangent, obj, t.dz(obj), name, y, t.dz(default[0]))
    if default and (t.d(obj) is not None or t.d(default[0]) is not None) and t.value(name) not in NONDIFF_ATTRS else
    t.call(getattr_tangent, obj, t.d(obj), name, y) if not default and t.d(obj) is not None and t.value(name) not in NONDIFF_ATTRS
    else None))
defjvp(builtins.setattr, lambda t, y, obj, name, v: t.call(setattr_tangent, t.d(obj), v, name, t.dz(v)) if t.d(obj) is not None else None, mutates=(0,))
defjvp(ops.make_function, lambda t, y, code, outer, defaults, kwdefaults, closure: t.call(
    FunctionTangent, t.dz(closure), t.dz(defaults), t.dz(kwdefaults)))


_ARRAY_DATA_ATTRIBUTES = frozenset({"flat", "A", "H"})  # attributes of an array that carry its data in another form


def getattr_default_tangent(obj, dobj, name, value, ddefault):
    """The tangent of `getattr(obj, name, default)`: the attribute's when obj has it, else the default's (the
    default's tangent was dropped before: a silently wrong derivative)."""
    if hasattr(obj, name):
        return getattr_tangent(obj, dobj, name, value)
    return ddefault


def getattr_tangent(obj, dobj, name, value):
    """The tangent of `obj.name`, given the tangent of `obj`."""
    import numpy as np
    import types as _types

    if dobj is NoTangent:
        return NoTangent
    if isinstance(obj, (int, float, complex)) and name in ("real", "imag"):
        return complex(dobj).real if name == "real" else complex(dobj).imag  # a number's parts
    if isinstance(obj, np.ndarray):
        if name in ("T", "real", "imag", "mT"):
            if type(dobj) is Batched:  # jacfwd's batch of tangents (batching.py) has its own `.T`
                return getattr(dobj, name)
            return getattr(np.asarray(dobj), name)
        if name == "flat" and isinstance(dobj, np.ndarray):
            return dobj.flat  # A.flat[i] reads (and A.flat[i] = v writes) the same entries of the tangent
        if callable(value):
            return MethodTangent(dobj)
        return NoTangent
    if is_other_array(obj):  # a Dask array: its attributes as an ndarray's (its properties are Dask's code)
        if name in ("T", "real", "imag", "mT"):
            return getattr(dobj, name)
        if name in _ARRAY_DATA_ATTRIBUTES:
            raise NotImplementedError(f"the tangent of the attribute .{name} of a {type(obj).__module__.split('.')[0]} "
                                      f"array is not supported")
        return MethodTangent(dobj) if callable(value) else NoTangent
    if isinstance(dobj, MutableTangent):
        check_attribute_read(obj, name, value)
        fields = dobj.fields
        if name in fields:
            d = fields[name]
            if d is NoTangent and is_mutable(value):
                d = fields[name] = zero_tangent(value)  # storage, so writes through it are kept
            return d
        prop = getattr(type(obj), name, None)
        if isinstance(prop, property):
            from ..forward.runtime import fcall

            return fcall(prop.fget, NoTangent, (obj,), (dobj,))[1]
        if isinstance(value, (_types.MethodType, _types.BuiltinMethodType)) and getattr(value, "__self__", None) is obj:
            return MethodTangent(dobj)
        if is_mutable(value) and (isinstance(obj, type) or name not in getattr(obj, "__dict__", {})):
            # a class's list (dict, array, ...), read through the class or an instance: state shared by all
            # instances, its tangent kept by identity for this forward computation (forward/runtime.py)
            from ..forward.state import module_tangent

            return module_tangent(value)
        if name in getattr(obj, "__dict__", {}):
            fields[name] = zero_tangent(value)  # keep it, so later writes through it are seen
            return fields[name]
        return NoTangent
    if isinstance(dobj, Tangent):
        return dobj.fields.get(name, NoTangent)
    if isinstance(dobj, FunctionTangent) or (type(dobj) is _types.CellType and type(obj) is _types.CellType):
        return _function_part_tangent(dobj, name)
    if isinstance(dobj, tuple) and hasattr(obj, "_fields") and name in obj._fields:
        return dobj[obj._fields.index(name)]
    if isinstance(dobj, tuple) and name in (getattr(type(obj), "_extra_fields", None) or ()):
        from .python_bunches import extra_field_tangent  # (SciPy's LinregressResult.intercept_stderr)

        return extra_field_tangent(obj, dobj, name)
    if callable(value) and getattr(value, "__self__", None) is obj:
        return MethodTangent(dobj)
    return NoTangent


def _function_part_tangent(dobj, name):
    """The tangent of `fn.__closure__` / `__defaults__` / `__kwdefaults__` for a function's tangent dobj (a
    FunctionTangent: its tangent cells, its defaults' tangents), or of `cell.cell_contents` for a tangent cell dobj.
    Forward code of a closure reads what it captures so (`fn.__closure__[0].cell_contents`); differentiated again
    with the closure's tangent nonzero (mc.jvp of a closure over differentiated values, inside differentiated code),
    the captured values' tangents come from here (they were dropped: a silently wrong jvp(jvp(f)))."""
    if name == "cell_contents":
        try:
            return dobj.cell_contents
        except ValueError:  # (an empty tangent cell: nothing differentiable stored yet)
            return NoTangent
    if name == "__closure__":
        return tuple(NoTangent if c is None else c for c in dobj.cells)
    if name == "__defaults__":
        return tuple(dobj.defaults) if dobj.defaults else NoTangent
    if name == "__kwdefaults__":
        return dict(dobj.kwdefaults) if dobj.kwdefaults else NoTangent
    return NoTangent


def setattr_tangent(dobj, value, name, dv):
    if isinstance(dobj, MutableTangent):
        if getattr(dobj, "__mc_class__", False) and is_mutable(value):
            from ..forward.state import set_shared_tangent  # a class attribute: by identity (getattr_tangent)

            set_shared_tangent(value, storage(value, dv))
            return
        dobj.fields[name] = storage(value, dv)
    elif type(dobj) is types.CellType and name == "cell_contents":  # (a tangent cell: forward code's closures)
        dobj.cell_contents = storage(value, dv)


from ..tangents import FunctionTangent, MethodTangent, MutableTangent, Tangent, is_mutable, storage, zero_tangent  # noqa: E402
from ..attribute_checks import check_attribute_read  # noqa: E402


# ------------------------------------------------------------------ higher-order builtins (run-time rules)
def frule_map(args, dargs, **kwargs):
    """map(f, *iterables): each call through fcall, so f may be any differentiable callable."""
    from ..forward.runtime import fcall

    f, its = args[0], args[1:]
    df, dits = dargs[0], dargs[1:]
    columns = [list(it) for it in its]
    dcolumns = [iter_tangents(c, d) if d is not NoTangent else [NoTangent] * len(c) for c, d in zip(columns, dits)]
    ys, dys = [], []
    for items, ditems in zip(zip(*columns), zip(*dcolumns)):
        y, dy = fcall(f, df, items, ditems)
        ys.append(y)
        dys.append(dy)
    return iter(ys), iter(dys)


def frule_filter(args, dargs, **kwargs):
    from ..forward.runtime import fcall

    f, it = args
    items = list(it)
    ditems = iter_tangents(items, dargs[1]) if dargs[1] is not NoTangent else [NoTangent] * len(items)
    keep = [(x, d) for x, d in zip(items, ditems) if (f(x) if f is not None else x)]
    return iter([x for x, _ in keep]), iter([d for _, d in keep])


defrule(builtins.map, frule_map)
defrule(builtins.filter, frule_filter)


# ================================================================== reverse rules
def _A():
    from ..reverse import adjoints

    return adjoints


defvjp(ops.tuple_of, lambda t, g, y, *xs: tuple(t.call(_A().item_of, g, i) for i in range(len(xs))))
defvjp(ops.list_of, lambda t, g, y, *xs: tuple(t.call(_A().item_of, g, i) for i in range(len(xs))))
defvjp(ops.dict_of, lambda t, g, y, *kv: _dict_display_adjoints(t, g, kv))


def _dict_display_adjoints(t, g, kv):
    """The values' adjoints; keys get none, so a key that depends on the inputs is refused when the code runs."""
    varied = getattr(t, "varied", lambda k: False)  # (run time, EagerReverse: nothing is known to depend on them)
    active_keys = [k for k in kv[0::2] if varied(k)]
    if active_keys:
        check = t.call(check_dict_keys, *active_keys)
        if hasattr(check, "__dict__"):
            check.keep = True  # (its result unread: the pullback's sweep would drop it)
    return tuple(None if i % 2 == 0 else _display_value(t, g, kv, i) for i in range(len(kv)))


def _display_value(t, g, kv, i):
    """`{k1: x, k2: y}`: each value gets its key's slot of g, but only the last of equal keys (the dict kept that
    one): a key that is no constant, or a constant given twice, asks when the code runs."""
    keys = kv[0::2]
    known = getattr(t, "is_const", lambda k: True)  # (run time, EagerReverse: every key is known)
    if all(known(k) for k in keys) and len({repr(t.value(k)) for k in keys}) == len(keys):
        return t.call(_A().item_of, g, kv[i - 1])
    from ..reverse import list_adjoints

    return t.call(list_adjoints.display_value_adjoint, g, t.call(ops.tuple_of, *keys), i // 2)
defvjp(ops.identity, lambda t, g, y, x: (g,))
defvjp(ops.sequence, lambda t, g, y, x: (t.call(_A().sequence_adjoint, x, g),))
defvjp(ops.unpack, lambda t, g, y, x, n: (t.call(_A().unpack_adjoint, x, g), None))
defvjp(ops.unpack_star, lambda t, g, y, x, i, j: (t.call(_A().unpack_star_adjoint, x, g, i, j), None, None))
defvjp(ops.concat_tuple, lambda t, g, y, *parts: tuple(t.call(_A().concat_part_adjoint, g, y, *parts, k) for k in range(len(parts))))
defvjp(ops.merge_dicts, lambda t, g, y, *parts: tuple(t.call(_A().merge_part_adjoint, g, p) for p in parts))
defvjp(ops.merge_kwargs, lambda t, g, y, *parts: tuple(t.call(_A().merge_part_adjoint, g, p) for p in parts))
defvjp(builtins.getattr, lambda t, g, y, obj, name, *d: (t.call(_A().attr_adjoint, obj, name, g), None) + (None,) * len(d))
defvjp(builtins.abs, lambda t, g, y, x: (t.mul(g, t.call(h.sign, x)),))
defvjp(builtins.float, lambda t, g, y, x=0.0: (_float_adjoint(t, g, x),))
for _np_float in (np.float64, np.float32):
    defvjp(_np_float, lambda t, g, y, x=0.0: (_float_adjoint(t, g, x),))


def _float_adjoint(t, g, x):
    """float(x): g itself for a real number x (typed pullbacks), else the real part of g, shaped as x."""
    if getattr(t, "plain_numbers", None) is not None and t.plain_numbers(g, x):
        return g
    return t.call(_A().real_adjoint, x, g)
defvjp(builtins.sum, lambda t, g, y, xs, start=_NO_START: (
    t.call(_A().sum_items_adjoint, xs, g) if start is _NO_START else t.call(_A().sum_items_adjoint, xs, g, start),
    None if start is _NO_START else t.call(_A().sum_start_adjoint, start, g)))
defvjp(builtins.max, lambda t, g, y, *xs, **kw: _minmax_vjp(t, g, y, xs, kw, operator.gt))
defvjp(builtins.min, lambda t, g, y, *xs, **kw: _minmax_vjp(t, g, y, xs, kw, operator.lt))


def _minmax_vjp(t, g, y, xs, kw, beats):
    from .registry import KwAdj

    if len(xs) == 2 and not kw and getattr(t, "plain_numbers", None) is not None and t.plain_numbers(g, *xs):
        # max(a, b) of two numbers is b only when b > a (ties and NaNs keep a), min(a, b) when b < a:
        # `a_bar = 0.0 if b > a else g`, `b_bar = g if b > a else 0.0`.
        second = t.call(beats, xs[1], xs[0])
        return t.choose(second, 0.0, g), t.choose(second, g, 0.0)
    out = tuple(t.call(minmax_adjoint, y, xs_tuple(t, xs), k, g) for k in range(len(xs)))
    needs = getattr(t, "needs", None)
    if "default" in kw and (needs is None or needs(kw["default"])):
        out += (KwAdj(default=t.call(minmax_default_adjoint, xs_tuple(t, xs), g)),)
    return out
defvjp(builtins.pow, lambda t, g, y, a, b, mod=None: () if mod is not None else pow_adjoints(t, g, y, a, b))
defvjp(builtins.list, lambda t, g, y, xs=(): (t.call(items_of_adjoint, xs, g),))
defvjp(builtins.tuple, lambda t, g, y, xs=(): (t.call(items_of_adjoint, xs, g),))


def items_of_adjoint(xs, g):
    """The adjoint of xs from that of list(xs)/tuple(xs).  The rows of an array are views: their
    adjoints may already sit in the array's storage (counted once, as for unpacking)."""
    from ..reverse.adjoints import sequence_adjoint, unpack_adjoint
    import numpy as np

    if isinstance(xs, np.ndarray) and g is not NoTangent:
        return unpack_adjoint(xs, g)
    return sequence_adjoint(xs, g)
defvjp(builtins.round, lambda t, g, y, *a: (None,) * len(a))


def xs_tuple(t, xs):
    return t.call(ops.tuple_of, *xs)

# Closures' adjoints live in their cells' storage; the defaults' adjoints come back in the function's.
defvjp(ops.make_function, lambda t, g, y, code, outer, defaults, kwdefaults, closure: (
    None, None, t.call(function_part_adjoint, g, "defaults", defaults),
    t.call(function_part_adjoint, g, "kwdefaults", kwdefaults), t.call(function_part_adjoint, g, "closure", closure)))


def function_part_adjoint(g, which, part):
    """The adjoint of the defaults, kw-defaults or cells a function was made with, from the function's.

    A rule that cannot differentiate with respect to a function (a SciPy solver given a closure over the
    inputs) hands it a RefusedAdjoint: it goes on to every value the function carries, where a use raises
    the refusal (a captured constant is never read back, so it is discarded there).  Kept on the function
    itself it was dropped: a silent zero.  Otherwise the cells' adjoints are in their storage already."""
    if getattr(type(g), "refuses_use", False):
        if which == "kwdefaults":
            return {k: g for k in part} if part else NoTangent
        return tuple(g for _ in part) if part else NoTangent
    if which == "closure":
        return NoTangent
    return _A().defaults_adjoint(g, which)
defvjp(builtins.zip, lambda t, g, y, *xs: tuple(t.call(_A().zip_adjoint, xs_tuple(t, xs), g, k) for k in range(len(xs))))
defvjp(builtins.enumerate, lambda t, g, y, xs, start=0: (t.call(_A().zip_adjoint, t.call(ops.tuple_of, range, xs), g, 1), None))
defvjp(builtins.reversed, lambda t, g, y, xs: (t.call(_A().reversed_adjoint, xs, g),))
defvjp(builtins.sorted, lambda t, g, y, xs, **kw: (t.call(_A().sorted_adjoint, xs, g, t.call(ops.dict_of, *[z for k, v in kw.items() for z in (k, v)])),))
defvjp(dict.get, lambda t, g, y, d, k, default=None: (t.call(_A().dict_get_adjoint, d, k, g), None, t.call(_A().default_adjoint, d, k, g)))
defvjp((dict, "get"), lambda t, g, y, d, k, default=None: (t.call(_A().dict_get_adjoint, d, k, g), None, t.call(_A().default_adjoint, d, k, g)))
defvjp((dict, "items"), lambda t, g, y, d: (t.call(_A().items_adjoint, d, g),))
defvjp((dict, "values"), lambda t, g, y, d: (t.call(_A().values_adjoint, d, g),))
defvjp(builtins.complex, lambda t, g, y, real=0.0, imag=0.0: (t.call(complex_part_adjoint, real, g, 0), t.call(complex_part_adjoint, imag, g, 1)))
defvjp(builtins.divmod, lambda t, g, y, a, b: (t.call(divmod_adjoint, a, b, g, 0), t.call(divmod_adjoint, a, b, g, 1)))


def conjugate_number(v):
    """conj of a number or a tangent/adjoint of one (a Python complex stays one; the symbolic zero stays zero)."""
    return v if v is NoTangent or isinstance(v, (int, float)) else v.conjugate()


# z.conjugate() of a Python complex number (or of a float: itself); conj is its own adjoint.
for _num in (complex, float):
    defmethod(_num, "conjugate", lambda t, y, x: t.call(conjugate_number, t.d(x)) if t.d(x) is not None else None)
    defvjp_method(_num, "conjugate", lambda t, g, y, x: (t.call(conjugate_number, g),))

# Right for complex values in reverse mode (README "Complex numbers"; tests/test_complex_reverse.py): abs takes
# g z/|z|, complex(re, im) gives re g and -1j g (real parts for real parts), sum adds, pow conjugates.
defcomplex(builtins.abs, builtins.complex, builtins.sum, builtins.pow, (complex, "conjugate"), (float, "conjugate"))
# Containers and iteration move values without arithmetic: their adjoints move back unchanged.
defcomplex(ops.tuple_of, ops.list_of, ops.dict_of, ops.identity, ops.sequence, ops.unpack, ops.unpack_star,
           ops.concat_tuple, ops.merge_dicts, ops.merge_kwargs, ops.make_function, builtins.list, builtins.tuple, builtins.zip,
           builtins.enumerate, builtins.reversed, (list, "copy"), dict.get, (dict, "get"), (dict, "items"),
           (dict, "values"))


# ------------------------------------------------------------------ run-time reverse rules
# dict(), filter() and map() consume iterables: their reverse rules run when the call runs (like a
# user's mc.rrule), so the pullback knows which item went where.
def _run_time_reverse(fn, rrule):
    from .registry import _entry, _fingerprint

    r = _entry(fn)
    r.user_rrule = rrule
    r.fingerprint = _fingerprint(r.jvp, r.user_frule, rrule)


def rrule_dict(*args, **kwargs):
    """dict(x, **kw): x a mapping or an iterable of pairs (materialised first, so positions are known)."""
    from ..reverse.adjoints import AdjDict, AdjList, AdjTuple, _like

    x = args[0] if args else None
    items = None
    if args and not hasattr(x, "keys"):
        items = [tuple(p) for p in x] if not isinstance(x, (list, tuple)) else list(x)
        y = builtins.dict(items, **kwargs)
    else:
        y = builtins.dict(*args, **kwargs)

    def pullback(g):
        from .registry import KwAdj

        if g is NoTangent or g is None:
            return (NoTangent,) * len(args)
        named = {k: g.get(k, NoTangent) for k in kwargs}  # dict(r=x): the value under "r" is x's
        if not args:
            return (KwAdj(named),)
        if items is None:
            return AdjDict({k: g[k] for k in x.keys() if k not in kwargs and k in g}), KwAdj(named)
        last = {k: i for i, (k, _) in enumerate(items)}
        out = []
        for i, pair in enumerate(items):
            k = pair[0]
            if last[k] == i and k not in kwargs and k in g:
                out.append((AdjList if isinstance(pair, list) else AdjTuple)([NoTangent, g[k]]))
            else:
                out.append(NoTangent)
        return _like(x, out), KwAdj(named)

    return y, pullback


def rrule_filter(f, it):
    from ..reverse.adjoints import _like

    items = list(it)
    keep = [i for i, x in enumerate(items) if (f(x) if f is not None else x)]

    def pullback(g):
        out = [NoTangent] * len(items)
        gs = list(g) if g is not NoTangent and g is not None else []
        for pos, i in enumerate(keep):
            if pos < len(gs):
                out[i] = gs[pos]
        return NoTangent, _like(it, out) if any(v is not NoTangent for v in out) else NoTangent

    from ..reverse.adjoints import ItemsIterator

    return ItemsIterator([items[i] for i in keep]), pullback  # (sum(filter(...)) reads the items it gave)


def rrule_map(f, *its):
    """map's reverse is done by reverse/runtime.py (each call through rcall); this entry delegates to it."""
    from ..reverse.runtime import _map

    y, pb = _map(builtins.map, (f, *its), {})
    return y, lambda g: pb(g)[1]


_run_time_reverse(builtins.dict, rrule_dict)
_run_time_reverse(builtins.filter, rrule_filter)
_run_time_reverse(builtins.map, rrule_map)
