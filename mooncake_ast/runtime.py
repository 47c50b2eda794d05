"""The one namespace generated modules import (as `_mc`): syntax helpers and AD runtime.

It holds what the star imports listed in `_SOURCES` would give, in that order (a later source wins),
but each name is found when first asked for (`_mc.acc`, `getattr(runtime, name)`) and then kept here:
copying the names of twenty modules on import cost a warm cache hit a tenth of its time, and a
generated module uses a handful of them.  SciPy's helpers (rules/scipy_rules) come last, imported
only when a name is found nowhere else.
"""
from __future__ import annotations

import importlib
import sys

# (module, names): None takes what `from module import *` takes, else exactly the names listed
_SOURCES: tuple = (
    (".ops", None),
    (".ops", ("make_function", "nested_code", "new_cell")),
    (".tangents", ("FunctionTangent", "MethodTangent", "MutableTangent", "NoTangent", "Tangent", "zero_tangent")),
    (".rules.registry", ("update",)),
    (".rules.helpers", None),
    (".rules.builtin_keys", None),
    (".rules.builtin_iteration", None),
    (".rules.builtin_displays", None),
    (".rules.builtin_numeric", None),
    (".rules.builtin_methods", None),
    (".rules.builtin_attributes", None),
    (".rules.builtin_consumers", None),
    (".rules.numpy_common", None),
    (".rules.numpy_elementwise", None),
    (".rules.numpy_reductions", None),
    (".rules.numpy_products", None),
    (".rules.numpy_shapes", None),
    (".rules.numpy_creation", None),
    (".rules.numpy_linalg", None),
    (".rules.numpy_methods", None),
    (".rules.math_rules", ("add1", "digamma", "dist_adjoint", "dist_tangent", "frexp_adjoint", "frexp_tangent",
                           "fsum_tangent", "mathprod_adjoint", "mathprod_tangent", "modf_adjoint", "modf_tangent",
                           "remainder_quotient")),
    (".forward.runtime", ("fcall",)),
    (".forward.transform", ("array_storage", "cell_tangent", "fresh_storage", "item_storage")),
    (".forward.state", ("module_tangent", "untracked_store")),
    (".tangents", ("storage",)),
    (".reverse.adjoints", None),
    (".reverse.runtime", ("rcall",)),  # (the dispatcher itself: one frame less per call)
    (".reverse.number_calls", ("rcall_numbers",)),
    (".reverse.list_adjoints", ("add_layer_adjoint", "add_list_adjoint", "add_slice", "add_sorted",
                                "display_value_adjoint", "zero_arrays", "zero_layers", "zero_rows")),
    (".reverse.field_adjoints", ("method_self_adjoints",)),
    (".reverse.part_reads", ("getattr_reverse", "getattr_default_reverse", "getitem_reverse")),
    (".reverse.param_adjoints", ("claim_float_dict", "claim_floats", "give_back", "pop_float_slot")),
    (".reverse.shadows", ("acc", "append_reverse", "cell_get_reverse", "claim", "cell_set_reverse", "inplace_reverse", "save_attr", "save_cell", "save_inplace", "save_item", "save_ufunc_out",
                          "setattr_reverse", "setitem_reverse", "take", "transfer", "save_membership", "set_add_reverse",
                          "ufunc_out_reverse", "undo_append", "undo_cell_set", "undo_delitem", "undo_set_add",
                          "undo_setattr", "undo_setitem")),
)
_MISSING = object()


def _exported(module: object, name: str) -> object:
    """What `from module import *` binds to `name`, or _MISSING."""
    public = getattr(module, "__all__", None)
    if public is not None:
        return getattr(module, name, _MISSING) if name in public else _MISSING
    return vars(module).get(name, _MISSING) if not name.startswith("_") else _MISSING


def find(name: str, scipy: bool = True) -> object:
    """`name` as the star imports of `_SOURCES` would bind it, else as SciPy's helpers do; _MISSING if neither
    (`scipy=False`: SciPy's helpers are looked at only if they are loaded already)."""
    if name.startswith("_"):
        return _MISSING
    for modname, names in reversed(_SOURCES):
        if names is not None and name not in names:
            continue
        module = sys.modules.get(__package__ + modname) or importlib.import_module(modname, __package__)
        found = getattr(module, name, _MISSING) if names is not None else _exported(module, name)
        if found is not _MISSING:
            return found
    if not scipy and __package__ + ".rules.scipy_rules" not in sys.modules:
        return _MISSING
    from .rules import scipy_rules

    return vars(scipy_rules).get(name, _MISSING)


def holds(fn: object) -> bool:
    """Is `fn` what `getattr(runtime, fn.__name__)` gives?  Asked by emission for every function of the library a
    generated module calls (emit/module.py: `_mc.<name>` if so); SciPy's helpers, the last place a name is looked
    for, are imported only to answer for a name found nowhere else (importing them cost a first forward
    derivative 2 ms): where they are not loaded, no function anyone holds is defined there, and one they only
    re-export is named through its own module instead, the same function."""
    name = getattr(fn, "__name__", None)
    if type(name) is not str or not name:
        return False
    found = globals().get(name, _MISSING)
    if found is _MISSING:
        found = find(name, scipy=False)
        if found is not _MISSING:
            globals()[name] = found  # (kept, as __getattr__ keeps what it finds)
    return found is fn


def __getattr__(name: str) -> object:
    found = find(name)
    if found is _MISSING:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = found
    return found
