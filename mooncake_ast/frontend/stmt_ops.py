"""Run-time helpers that lowered `with`, `global` and `raise ... from` statements call.

They are registered as having no derivative (they move no differentiable value; see
ZERO_DERIVATIVE) and check, at
run time, what would make that false, raising `UnsupportedDerivativeError` instead of letting a
derivative come out silently wrong:

* a library context manager (NumPy's `errstate`, `contextlib`, `io`, `threading`, `warnings`,
  or any whose `__enter__` is not Python code) runs as an opaque call; the value its `__enter__`
  returns must carry no tangent (None, a file, a manager without float fields, ints, strings, ...).  Managers
  written in Python elsewhere (the user's classes) are differentiated like any method call
  (`enter_method` hands back their own `__enter__`/`__exit__`).
* `contextlib.suppress` is refused: it swallows exceptions, and an exception raised by a call in
  the body cannot be caught by generated code (see with_stmt.py).
* a `global` write of a value that can carry a tangent (a float, an array, ...) is refused: later
  reads of module globals are constants to the transforms, so the derivative would be lost.
"""
from __future__ import annotations

import contextlib
import traceback
import types
from typing import Any

import numpy as np

from ..errors import UnsupportedDerivativeError

# Modules whose context managers have no differentiable effect: run opaquely.
OPAQUE_MODULES = ("numpy", "contextlib", "io", "_io", "threading", "_thread", "warnings", "decimal",
                  "tempfile", "os", "builtins", "zipfile", "tarfile", "multiprocessing", "concurrent")
REFUSED = (contextlib.suppress,)


def _where() -> str:
    """` (file.py:12  text)`: the user's line that the innermost generated-code frame runs."""
    from ..tracebacks import user_location

    found = user_location(traceback.extract_stack())
    return f" ({found})" if found else ""


def carries_tangent(x: Any, depth: int = 0) -> bool:
    """Could `x` hold a differentiable number (float, complex, float array, inside containers and
    object fields, a few levels deep)?"""
    if isinstance(x, bool) or x is None:
        return False
    if isinstance(x, (float, complex, np.floating, np.complexfloating)):
        return True
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "fcO"
    if depth > 3:
        return False
    if isinstance(x, (list, tuple, set, frozenset)):
        return any(carries_tangent(v, depth + 1) for v in x)
    if isinstance(x, dict):
        return any(carries_tangent(v, depth + 1) for v in x.values())
    fields = getattr(x, "__dict__", None)
    if isinstance(fields, dict) and not isinstance(x, type):
        return any(carries_tangent(v, depth + 1) for v in fields.values())
    return False


def _is_opaque(cls: type) -> bool:
    enter = getattr(cls, "__enter__", None)
    if not isinstance(getattr(enter, "__code__", None), types.CodeType):
        return True  # written in C: no source to differentiate
    mod = getattr(enter, "__module__", None) or getattr(cls, "__module__", "") or ""
    return mod.split(".")[0] in OPAQUE_MODULES


def enter_method(mgr: Any) -> Any:
    """The callable that enters `mgr`: its own `__enter__` (differentiated) or `opaque_enter`."""
    cls = type(mgr)
    if not (hasattr(cls, "__enter__") and hasattr(cls, "__exit__")):
        raise TypeError(f"'{cls.__name__}' object does not support the context manager protocol")
    if isinstance(mgr, REFUSED):
        raise UnsupportedDerivativeError(
            f"`with {cls.__module__}.{cls.__qualname__}(...)`{_where()}: it swallows exceptions, and differentiated "
            "code cannot catch an exception raised inside a `with` body; test for the condition before the "
            "call instead (e.g. `if os.path.exists(p): os.remove(p)`)")
    return opaque_enter if _is_opaque(cls) else cls.__enter__


def exit_method(mgr: Any) -> Any:
    """The callable that leaves `mgr` normally: its own `__exit__` or `opaque_exit`."""
    cls = type(mgr)
    return opaque_exit if _is_opaque(cls) else cls.__exit__


def opaque_enter(mgr: Any) -> Any:
    result = type(mgr).__enter__(mgr)
    if carries_tangent(result):
        type(mgr).__exit__(mgr, None, None, None)
        raise UnsupportedDerivativeError(
            f"the context manager {type(mgr).__qualname__}{_where()} gave `as` a value that can carry a derivative "
            f"({type(result).__name__}), which mooncake_ast does not follow through a library's `__enter__`; "
            "compute that value before the `with` statement instead")
    return result


def opaque_exit(mgr: Any, exc_type: Any = None, exc: Any = None, tb: Any = None) -> Any:
    return type(mgr).__exit__(mgr, exc_type, exc, tb)


def exit_raising(mgr: Any, exc: Any) -> Any:
    """Leave `mgr` because of `raise exc` in its body; return the exception to raise.  A manager
    that would swallow it is refused: the derivative code cannot go on after the `with`."""
    if isinstance(exc, type) and issubclass(exc, BaseException):
        exc = exc()
    if isinstance(exc, BaseException):
        suppressed = type(mgr).__exit__(mgr, type(exc), exc, exc.__traceback__)
    else:
        suppressed = False  # `raise 3`: Python raises TypeError, which the manager sees too
    if suppressed:
        raise UnsupportedDerivativeError(
            f"the context manager {type(mgr).__qualname__}{_where()} swallowed an exception raised in its body; "
            "mooncake_ast cannot continue after the `with` on that path: test for the condition instead of raising")
    return exc


def raise_from(exc: Any, cause: Any) -> Any:
    """`raise exc from cause`: the exception to raise, with its `__cause__` set as Python sets it."""
    if isinstance(exc, type) and issubclass(exc, BaseException):
        exc = exc()
    if not isinstance(exc, BaseException):
        raise TypeError("exceptions must derive from BaseException")
    if isinstance(cause, type) and issubclass(cause, BaseException):
        cause = cause()
    if cause is not None and not isinstance(cause, BaseException):
        raise TypeError("exception causes must derive from BaseException")
    exc.__cause__ = cause  # (sets __suppress_context__ too)
    return exc


def store_global(fn: Any, name: str, value: Any) -> None:
    """`name = value` in `fn`'s module, for a function declaring `global name`."""
    if carries_tangent(value):
        raise UnsupportedDerivativeError(
            f"`global {name}` written{_where()} with a value that can carry a derivative "
            f"({type(value).__name__}): later reads of module globals are constants to mooncake_ast, so "
            "its derivative would be lost; return the value instead, or store it in an object passed in")
    fn.__globals__[name] = value


class _Deleted:
    """The class of `DELETED`.  Not named like ir/builder's `_Undefined`, which type inference leaves out of a
    phi's type: a phi that may hold DELETED is typed as what it may hold, so reverse mode does not take a
    float's or an array's attributes (`.shape`) from it where it is DELETED."""

    def __init__(self) -> None:
        self.__qualname__ = "DELETED"  # (how generated code names it: emit/module.qualify)

    def __repr__(self) -> str:
        return "DELETED"

    def __reduce__(self) -> str:
        return "DELETED"


DELETED = _Deleted()
"""The value of a local variable after `del` (frontend/del_stmt.py)."""


def check_bound(value: Any, name: str) -> None:
    """Raise as Python does where a deleted local `name` is read (or deleted again)."""
    if value is DELETED:
        raise UnboundLocalError(f"cannot access local variable '{name}' where it is not associated with a value")


def check_cell(cell: Any, name: str) -> None:
    """check_bound for a variable a nested function captures: its cell is empty after `del`."""
    try:
        cell.cell_contents
    except ValueError:
        raise UnboundLocalError(f"cannot access local variable '{name}' where it is not associated with a value") from None


def delete_cell(cell: Any, name: str) -> None:
    """`del name` of a variable a nested function captures (or one declared `nonlocal`)."""
    try:
        del cell.cell_contents
    except ValueError:
        raise UnboundLocalError(f"cannot access local variable '{name}' where it is not associated with a value") from None


def delete_global(fn: Any, name: str) -> None:
    """`del name` in `fn`'s module, for a function declaring `global name`."""
    try:
        del fn.__globals__[name]
    except KeyError:
        raise NameError(f"name '{name}' is not defined") from None


def zip_strict(strict: Any, *seqs: Any) -> None:
    """`for ... in zip(*seqs, strict=strict)`: the ValueError zip raises for sequences of unequal lengths (here
    before the loop runs, where Python raises when the shortest is exhausted: the derivative of a call that
    raises is not asked for)."""
    if strict:
        n = len(seqs[0])
        for i, q in enumerate(seqs[1:], start=2):
            if len(q) != n:
                how = "shorter" if len(q) < n else "longer"
                raise ValueError(f"zip() argument {i} is {how} than argument{'s 1-' + str(i - 1) if i > 2 else ' 1'}")


# Registered as zero-derivative rules by rules/builtin_displays.py, with the `ops` helpers.
ZERO_DERIVATIVE = (enter_method, exit_method, opaque_enter, opaque_exit, exit_raising, raise_from, store_global,
                   check_bound, check_cell, delete_cell, delete_global, zip_strict)
