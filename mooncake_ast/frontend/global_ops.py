"""Run-time helpers of `global` writes in differentiated code (lowered by frontend/global_writes.py).

What the user sees is the plain call's effect: `global N; N = v` stores v in the module, whatever v is.
Derivatives follow a value written to a module global in two ways only:

* read back by the function that wrote it (the lowering keeps the written value as an SSA value and uses it
  while the module still holds that very object: `global_holds`);
* not at all across calls: a value that can carry a derivative, written by differentiated code, is
  remembered (`store_global`), and a read of that global elsewhere in the same differentiation (a later
  call of the same function, another function of the module, `module.N` from another module) is refused
  by `check_global_read`, naming the global and where it was written: the derivative would silently be
  lost there, since the transforms read module globals as constants.

"The same differentiation" is the outermost call into mooncake_ast on the stack (grad, jvp,
check_derivatives, ...): a value written by an earlier, finished differentiation is a constant to a later
one, as any module global is.  The frame is held strongly so that identity says exactly whether it is
still running; an entry whose frame has finished is dropped when next looked at.
"""
from __future__ import annotations

import sys
from typing import Any, Optional

from ..errors import UnsupportedDerivativeError

# (id of the module's globals dict, name) -> (the object written, the outermost mooncake_ast frame then, where)
_WRITTEN: dict = {}


def _outermost_frame() -> Optional[Any]:
    """The outermost frame of mooncake_ast's own code on the stack (the API call that started this
    differentiation), or None."""
    found = None
    f = sys._getframe(1)
    while f is not None:
        if f.f_globals.get("__name__", "").startswith("mooncake_ast"):
            found = f
        f = f.f_back
    return found


def _on_stack(frame: Any) -> bool:
    f = sys._getframe(1)
    while f is not None:
        if f is frame:
            return True
        f = f.f_back
    return False


def _where() -> str:
    from .stmt_ops import _where as where

    return where()


def store_global(fn: Any, name: str, value: Any) -> None:
    """`name = value` in `fn`'s module, for a function declaring `global name`: stored as the plain call
    stores it; a value that can carry a derivative is remembered for check_global_read."""
    from .stmt_ops import carries_tangent

    g = fn.__globals__
    g[name] = value
    key = (id(g), name)
    if carries_tangent(value):
        _WRITTEN[key] = (value, _outermost_frame(), _where())
    else:
        _WRITTEN.pop(key, None)


def delete_global(fn: Any, name: str) -> None:
    """`del name` in `fn`'s module, for a function declaring `global name`."""
    try:
        del fn.__globals__[name]
    except KeyError:
        raise NameError(f"name '{name}' is not defined") from None
    _WRITTEN.pop((id(fn.__globals__), name), None)


def _refuse_if_written(g: dict, name: str, value: Any, module: str) -> None:
    key = (id(g), name)
    entry = _WRITTEN.get(key)
    if entry is None:
        return
    written, frame, where = entry
    if written is not value or frame is None or not _on_stack(frame):
        _WRITTEN.pop(key, None)  # (rebound since, or written by a differentiation that has finished)
        return
    raise UnsupportedDerivativeError(
        f"the module global `{module}{name}` is read{_where()} after differentiated code wrote it{where} with a "
        f"value that can carry a derivative, in this same differentiation: derivatives do not flow through "
        f"module globals from one call to another (only from a write to a read in the same function). Return "
        f"the value and pass it on as an argument instead, or keep it in an object passed in")


def check_global_read(fn: Any, name: str) -> None:
    """Before a read of the module global `name` in `fn`: refuse if differentiated code wrote it, in this
    differentiation, with a value that can carry a derivative (see the module docstring)."""
    g = fn.__globals__
    if not _WRITTEN:
        return
    value = g.get(name, _MISSING)
    if value is not _MISSING:
        _refuse_if_written(g, name, value, "")


def check_module_attribute(module: Any, name: str) -> None:
    """check_global_read for `module.name` read from another module."""
    if not _WRITTEN:
        return
    g = getattr(module, "__dict__", None)
    if isinstance(g, dict) and name in g:
        _refuse_if_written(g, name, g[name], f"{getattr(module, '__name__', '?')}.")


def global_holds(fn: Any, name: str, written: Any) -> bool:
    """Does `fn`'s module still hold `written` (what fn itself stored last) under `name`?  When it does, a
    read uses the written value, with its derivative; when a call in between rebound the name, it reads the
    module global as any other read does."""
    g = fn.__globals__
    return name in g and g[name] is written


def module_value(fn: Any, name: str, written: Any) -> Any:
    """The value of the module global `name` now, for a function that wrote `written` to it earlier: that
    object itself while the module holds it (global_holds then picks the written value, with its derivative),
    else the module's value, checked as check_global_read checks it (NameError where a call deleted it)."""
    g = fn.__globals__
    value = g.get(name, _MISSING)
    if value is written:
        return value
    if value is _MISSING:
        import builtins

        if name in builtins.__dict__:
            return builtins.__dict__[name]
        raise NameError(f"name '{name}' is not defined")
    if _WRITTEN:
        _refuse_if_written(g, name, value, "")
    return value


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


_MISSING = _Missing()

ZERO_DERIVATIVE = (check_global_read, check_module_attribute, global_holds, module_value)
