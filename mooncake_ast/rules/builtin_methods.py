"""Methods of lists and dicts (`l.append`, `d.get`, `d.update`, ...) and `dict(...)`, both modes.

Mutating methods have forward templates here, which do the same mutation on the tangent; their
reverse is done by reverse/transform.py (SPECIAL) and reverse/runtime.py, which undo the mutation.
rules/containers.py, imported after this, replaces some of these with rules that know more.
"""
from __future__ import annotations

import builtins

from .. import ops
from ..tangents import NoTangent
from .builtin_displays import stored
from .builtin_iteration import _A, iter_tangents
from .builtin_keys import _pair_value
from .registry import defcomplex, defjvp, defmethod, defvjp, defzero


# ------------------------------------------------------------------ forward rules
defjvp(list.append, lambda t, y, l, x: t.call(list.append, t.d(l), stored(t, x)) if t.d(l) is not None else None, mutates=(0,))
defjvp(builtins.dict, lambda t, y, *a, **kw: t.call(dict_tangent, y, t.call(ops.tuple_of, *[t.call(ops.tuple_of, x, t.dz(x)) for x in a]),
                                                      t.call(ops.dict_of, *[z for k, v in kw.items() for z in (k, t.dz(v))])))


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


# ------------------------------------------------------------------ reverse rules
defvjp(dict.get, lambda t, g, y, d, k, default=None: (t.call(_A().dict_get_adjoint, d, k, g), None, t.call(_A().default_adjoint, d, k, g)))
defvjp((dict, "get"), lambda t, g, y, d, k, default=None: (t.call(_A().dict_get_adjoint, d, k, g), None, t.call(_A().default_adjoint, d, k, g)))
defvjp((dict, "items"), lambda t, g, y, d: (t.call(_A().items_adjoint, d, g),))
defvjp((dict, "values"), lambda t, g, y, d: (t.call(_A().values_adjoint, d, g),))


# Copies and reads move values without arithmetic: the adjoints move back unchanged.
defcomplex((list, "copy"), dict.get, (dict, "get"), (dict, "items"), (dict, "values"))
