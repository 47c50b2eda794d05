"""Displays (`(a, b)`, `[a, b]`, `{k: v}`), cells and the syntax helpers of `ops` without a derivative.

The frontend lowers displays and closures' cells to the helpers in `ops` (frontend/expressions.py);
their rules move tangents and adjoints item by item.  A value stored in a container or a cell keeps
its tangent as storage when it is mutable (`stored`), so later writes through it are seen.
"""
from __future__ import annotations

from .. import ops
from ..ir.fold_dicts import distinct_constant_keys
from ..frontend import stmt_ops
from ..tangents import NoTangent
from .builtin_iteration import _A, _tangents
from .builtin_keys import check_dict_keys, checked_key
from .registry import defcomplex, defjvp, defvjp, defzero


def stored(t, x):
    """The tangent to keep in a container or object for x: storage if x is mutable."""
    if t.is_num(x):
        return t.dz(x)
    return t.call(storage_of, x, t.dz(x))


def storage_of(x, dx):
    from ..tangents import storage

    return storage(x, dx)


# ------------------------------------------------------------------ displays and cells
defjvp(ops.tuple_of, lambda t, y, *xs: t.call(ops.tuple_of, *_tangents(t, xs)))
defjvp(ops.list_of, lambda t, y, *xs: t.call(ops.list_of, *_tangents(t, xs)))
defjvp(ops.dict_of, lambda t, y, *kv: t.call(ops.dict_of, *[(x if t.d(x) is None else t.call(checked_key, x, t.d(x)))
                                                             if i % 2 == 0 else t.dz(x) for i, x in enumerate(kv)]))
defjvp(ops.identity, lambda t, y, x: t.d(x))
defjvp(ops.cell_get, lambda t, y, c: t.call(cell_tangent_get, t.d(c)) if t.d(c) is not None else None)
defjvp(ops.cell_set, lambda t, y, c, v: t.call(ops.cell_set, t.d(c), stored(t, v)) if t.d(c) is not None else None, mutates=(0,))


defzero(ops.not_contains, ops.format_value, ops.join_str, ops.assert_failed, ops.import_module, ops.nested_code)
defzero(*stmt_ops.ZERO_DERIVATIVE)  # the helpers lowered `with`/`global`/`raise from` call (frontend/stmt_ops.py)


def cell_tangent_get(dc):
    try:
        return dc.cell_contents
    except ValueError:
        return NoTangent


# ------------------------------------------------------------------ reverse rules
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
    if all(known(k) for k in keys) and distinct_constant_keys([t.value(k) for k in keys]):
        return t.call(_A().item_of, g, kv[i - 1])
    from ..reverse import list_adjoints

    return t.call(list_adjoints.display_value_adjoint, g, t.call(ops.tuple_of, *keys), i // 2)
defvjp(ops.identity, lambda t, g, y, x: (g,))


# Displays move values without arithmetic: the adjoints move back unchanged.
defcomplex(ops.tuple_of, ops.list_of, ops.dict_of, ops.identity)
