"""What state kept outside a call a call may read or change: module-level objects held elsewhere (closures'
cells, objects' and classes' attributes), functions whose results depend on state (mutable defaults, stateful
closures and classes, module-level objects read a few calls deep), and callees that may be the user's own code.

These questions are about Python objects as the module holds them now, not about the IR: activity analysis
(activity.py) asks them of the callees and module-level names a function reads.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..tangents import is_mutable


_HEAPTYPE = 1 << 9  # a class made by a `class` statement
_NO_VALUE = object()


def _may_be_user_code(fn: Any) -> bool:
    """Is fn (resolved when the code is generated; None: known only when it runs) possibly the user's own Python
    code, which may write what it is handed -- not an installed library's function (scipy's, numpy's)?"""
    import types

    from ..library_errors import is_library

    if fn is None:
        return True
    f = getattr(fn, "__func__", fn)
    if not isinstance(f, types.FunctionType):
        call = getattr(type(fn), "__call__", None)
        if not isinstance(call, types.FunctionType):
            return False  # (a builtin or a C function: its rule, or a refusal, decides)
        f = call
    return not is_library(f)



def _may_reach_module_state(raw: Any) -> bool:
    """May a call of `raw` (the callable written in the code; None: known only when it runs) change state
    the module holds?  Operators and builtins dispatched at run time only run user code on user objects, whose
    methods are then the calls to ask about; everything else may."""
    if raw is None:
        return True
    if getattr(raw, "__module__", None) in ("_operator", "operator", "builtins") or isinstance(raw, np.ufunc):
        return False
    return True



def _held_elsewhere(user_globals: dict) -> set:
    """Ids of the objects held by the module's closures (their cells), objects and classes (their attributes),
    one level down and one more into lists, tuples and dicts."""
    import types

    out: set = set()

    def add(x: Any, depth: int) -> None:
        out.add(id(x))
        if depth and isinstance(x, (list, tuple)):
            for y in x[:64]:
                add(y, depth - 1)
        elif depth and isinstance(x, dict):
            for y in list(x.values())[:64]:
                add(y, depth - 1)

    for obj in list(user_globals.values()):
        if isinstance(obj, types.FunctionType):
            for c in obj.__closure__ or ():
                try:
                    add(c.cell_contents, 1)
                except ValueError:
                    pass
        elif isinstance(obj, type) and obj.__flags__ & _HEAPTYPE:
            for y in list(vars(obj).values()):
                add(y, 1)
        elif not isinstance(obj, (types.ModuleType, types.BuiltinFunctionType)) and hasattr(obj, "__dict__"):
            try:
                for y in list(vars(obj).values()):
                    add(y, 1)
            except TypeError:
                pass
    return out



def _reads_state(obj: Any, held: set, depth: int) -> bool:
    """May calling `obj` give a result that depends on state kept outside the call (so that a call without
    input-dependent arguments still has a derivative): a closure that keeps state, a function with a mutable
    default or reading (a few calls deep) a module-level object, a stateful class or a closure, a method of an
    object, a callable object."""
    import types

    from ..attribute_checks import class_keeps_state
    from ..frontend.stmt_ops import carries_tangent
    from ..tangents import is_data_object

    if isinstance(obj, types.MethodType):
        owner = obj.__self__
        return is_mutable(owner) or (isinstance(owner, type) and bool(owner.__flags__ & _HEAPTYPE)
                                     and class_keeps_state(owner))
    if isinstance(obj, type):
        return bool(obj.__flags__ & _HEAPTYPE) and class_keeps_state(obj)
    if not isinstance(obj, types.FunctionType):
        return is_data_object(obj) and is_mutable(obj)
    if any(is_mutable(d) for d in (*(obj.__defaults__ or ()), *(obj.__kwdefaults__ or {}).values())):
        return True
    for c in obj.__closure__ or ():
        try:
            v = c.cell_contents
        except ValueError:
            continue
        if is_mutable(v) or (depth and isinstance(v, types.FunctionType) and _reads_state(v, held, depth - 1)):
            return True
    if depth == 0:
        return False
    g = obj.__globals__
    declared = None
    for name in _global_names(obj.__code__):
        v = g.get(name, _NO_VALUE)
        if v is _NO_VALUE or isinstance(v, types.ModuleType):
            continue
        if declared is None:
            from ..frontend.global_writes import declared_in_file

            declared = declared_in_file(obj.__code__.co_filename)
        if name in declared and carries_tangent(v):
            # a number some function of its module writes with `global` (frontend/global_ops.py): differentiated
            # code may have written it with a derivative, which only the differentiated call checks for
            return True
        if isinstance(v, (list, dict, np.ndarray)):
            if id(v) in held:
                return True
        elif isinstance(v, (types.FunctionType, types.MethodType, type)) or is_data_object(v):
            if _reads_state(v, held, depth - 1):
                return True
    return False



def _global_names(code: Any) -> set:
    names = set(code.co_names)
    for c in code.co_consts:
        if hasattr(c, "co_names"):
            names |= _global_names(c)
    return names
