"""Run-time helpers that lowered `with`, `global` and `raise ... from` statements call.

They are registered as having no derivative (they move no differentiable value; see
ZERO_DERIVATIVE) and check, at
run time, what would make that false, raising `UnsupportedDerivativeError` instead of letting a
derivative come out silently wrong:

* a library context manager (NumPy's `errstate`, `contextlib`, `io`, `threading`, `warnings`,
  or any whose `__enter__` is not Python code) runs as an opaque call; the value its `__enter__`
  returns must carry no tangent (None, a file, a manager without float fields, ints, strings, ...).
  One made by `@contextlib.contextmanager` runs the user's generator as plain Python: it must not
  change the differentiable numbers its arguments and closure reach (flags and counters it may).  Managers
  written in Python elsewhere (the user's classes) are differentiated like any method call
  (`enter_method` hands back their own `__enter__`/`__exit__`).
* `contextlib.suppress` used other than as `with suppress(...)` (which with_stmt.py lowers as a `try`)
  is refused: it swallows exceptions, and the manager cannot catch an exception raised by a call in
  generated code.
* `global` writes and reads of written globals: frontend/global_ops.py.
"""
from __future__ import annotations

import contextlib
import traceback
import types
from typing import Any

import numpy as np

from ..errors import UnsupportedDerivativeError
from . import global_ops

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


def enter_method(mgr: Any, bound: bool = True) -> Any:
    """The callable that enters `mgr`: its own `__enter__` (differentiated) or `opaque_enter` (`opaque_enter_unbound`
    for a `with` without `as`: what `__enter__` returns is then not used, derivative or not)."""
    cls = type(mgr)
    if not (hasattr(cls, "__enter__") and hasattr(cls, "__exit__")):
        raise TypeError(f"'{cls.__name__}' object does not support the context manager protocol")
    if isinstance(mgr, REFUSED):
        raise UnsupportedDerivativeError(
            f"`with {cls.__module__}.{cls.__qualname__}(...)`{_where()}: it swallows exceptions, and differentiated "
            "code cannot catch an exception raised inside a `with` body; test for the condition before the "
            "call instead (e.g. `if os.path.exists(p): os.remove(p)`)")
    if _is_opaque(cls):
        return opaque_enter if bound else opaque_enter_unbound
    return cls.__enter__


def exit_method(mgr: Any) -> Any:
    """The callable that leaves `mgr` normally: its own `__exit__` or `opaque_exit`."""
    cls = type(mgr)
    return opaque_exit if _is_opaque(cls) else cls.__exit__


def _float_fingerprint(x: Any, depth: int = 0, seen: Any = None) -> Any:
    """The differentiable numbers reachable from x (floats, complex numbers, float arrays, inside containers
    and object fields), as a comparable picture; what carries no derivative (ints, strings, flags) is left
    out, so a manager that only toggles a flag passes."""
    if isinstance(x, bool) or x is None or isinstance(x, (int, str, bytes)):
        return None
    if isinstance(x, (float, complex, np.floating, np.complexfloating)):
        return ("v", x)
    if isinstance(x, np.ndarray):
        return ("a", id(x), x.shape, x.copy()) if x.dtype.kind in "fcO" else None
    seen = set() if seen is None else seen
    if depth > 4 or id(x) in seen or isinstance(x, (type, types.ModuleType, types.FunctionType)):
        return None
    seen.add(id(x))
    if isinstance(x, (list, tuple)):
        return [_float_fingerprint(v, depth + 1, seen) for v in x]
    if isinstance(x, dict):
        return [(k, _float_fingerprint(v, depth + 1, seen)) for k, v in list(x.items())]
    fields = getattr(x, "__dict__", None)
    if isinstance(fields, dict):
        return [(k, _float_fingerprint(v, depth + 1, seen)) for k, v in list(fields.items())]
    return None


def _generator_manager_inputs(mgr: Any) -> Any:
    """For a manager made by `@contextlib.contextmanager` (its generator runs as plain Python, not
    differentiated): what its generator function can reach, its arguments and closure variables; else None."""
    if not isinstance(mgr, contextlib._GeneratorContextManager):
        return None
    kept = mgr.__dict__.get("_mc_inputs")
    if kept is not None:  # (`__enter__` deletes func, args and kwds: kept here for the exit's check)
        return kept
    fn = getattr(mgr, "func", None)
    cells = tuple(c.cell_contents for c in (getattr(fn, "__closure__", None) or ()) if _cell_filled(c))
    inputs = (getattr(mgr, "args", ()), getattr(mgr, "kwds", {}), cells)
    mgr.__dict__["_mc_inputs"] = inputs
    mgr.__dict__["_mc_name"] = getattr(fn, "__qualname__", None)
    return inputs


def _cell_filled(cell: Any) -> bool:
    try:
        cell.cell_contents
        return True
    except ValueError:
        return False


def _same_numbers(a: Any, b: Any) -> bool:
    from .generator_ops import _same

    return _same(a, b)


def _refuse_changed(mgr: Any, when: str) -> None:
    name = getattr(mgr, "__dict__", {}).get("_mc_name") or type(mgr).__qualname__
    raise UnsupportedDerivativeError(
        f"the context manager {name}{_where()} (made by @contextlib.contextmanager, so run as plain Python, not "
        f"differentiated) changed a differentiable value it can reach (an argument, a field of one, a closure "
        f"variable) {when}; that change's derivative would be lost.  Write the manager as a class with "
        "`__enter__`/`__exit__` methods (those are differentiated), or make the change in the `with` body")


def opaque_enter(mgr: Any) -> Any:
    inputs = _generator_manager_inputs(mgr)
    before = _float_fingerprint(inputs) if inputs is not None else None
    result = type(mgr).__enter__(mgr)
    if inputs is not None and not _same_numbers(before, _float_fingerprint(inputs)):
        type(mgr).__exit__(mgr, None, None, None)
        _refuse_changed(mgr, "as the `with` statement entered it")
    if carries_tangent(result):
        type(mgr).__exit__(mgr, None, None, None)
        raise UnsupportedDerivativeError(
            f"the context manager {type(mgr).__qualname__}{_where()} gave `as` a value that can carry a derivative "
            f"({type(result).__name__}), which mooncake_ast does not follow through a library's `__enter__`; "
            "compute that value before the `with` statement instead")
    return result


def opaque_enter_unbound(mgr: Any) -> None:
    inputs = _generator_manager_inputs(mgr)
    before = _float_fingerprint(inputs) if inputs is not None else None
    type(mgr).__enter__(mgr)
    if inputs is not None and not _same_numbers(before, _float_fingerprint(inputs)):
        type(mgr).__exit__(mgr, None, None, None)
        _refuse_changed(mgr, "as the `with` statement entered it")


def opaque_exit(mgr: Any, exc_type: Any = None, exc: Any = None, tb: Any = None) -> Any:
    inputs = _generator_manager_inputs(mgr)
    before = _float_fingerprint(inputs) if inputs is not None else None
    out = type(mgr).__exit__(mgr, exc_type, exc, tb)
    if inputs is not None and not _same_numbers(before, _float_fingerprint(inputs)):
        _refuse_changed(mgr, "as the `with` statement left it")
    return out


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


def check_callee(fn: Any, expected: Any) -> None:
    """A `with` statement lowered for the callee it called when the function was lowered (with_stmt.py:
    `contextlib.suppress`, `nullcontext`) calls that one still."""
    if fn is not expected:
        raise UnsupportedDerivativeError(
            f"the `with` statement{_where()} was differentiated for {expected.__module__}.{expected.__qualname__}, "
            f"but its name now stands for {fn!r}; do not rebind it while the function is in use")


def build_class(outer: Any, name: str, line: int, nth: int, bases: tuple, keywords: dict, closure: tuple = (),
                body_reads: tuple = ()) -> type:
    """`class name(*bases, **keywords): ...` defined inside `outer` (frontend/local_classes.py): its body run as
    Python runs it, over `closure`, the cells of outer's variables it (or a method) reads.  The cells at
    `body_reads` are read by the body itself: refused where they hold what can carry a derivative."""
    import builtins

    from ..ops import nested_code

    code = nested_code(outer, name, line, nth)
    for i in body_reads:
        try:
            value = closure[i].cell_contents
        except ValueError:
            continue
        if _reaches_derivatives(value):
            raise UnsupportedDerivativeError(
                f"the class {name} defined{_where()} inside the differentiated function reads its variable "
                f"`{code.co_freevars[i]}` in its body (a class attribute, a default value, a decorator), and that "
                f"value can carry a derivative ({type(value).__name__}): the class body runs as plain Python, so "
                "the derivative would be lost; read it in the class's methods, pass it to the class (`__init__` "
                "arguments), or define the class at module level")
    body = types.FunctionType(code, outer.__globals__, name, None, closure or None)
    return builtins.__build_class__(body, name, *bases, **keywords)


def share_cells(cls: type, *cells: Any) -> type:
    """A local class built over `cells` (the function's variables its methods read): the class itself when the
    plain code runs.  Its forward rule hands the cells' tangent cells to the methods (rules/python_local_classes.py)."""
    return cls


def _reaches_derivatives(v: Any, depth: int = 0) -> bool:
    """Can v hold a differentiable number: itself (carries_tangent), or, for a function, what its cells and
    defaults hold; for a class made by a `class` statement, its attributes."""
    if carries_tangent(v):
        return True
    if depth > 2:
        return False
    if isinstance(v, types.FunctionType):
        parts = [c.cell_contents for c in (v.__closure__ or ()) if _filled(c)]
        parts += list(v.__defaults__ or ()) + list((v.__kwdefaults__ or {}).values())
        return any(_reaches_derivatives(p, depth + 1) for p in parts)
    if isinstance(v, type) and v.__flags__ & (1 << 9):
        return any(_reaches_derivatives(p, depth + 1) for p in vars(v).values())
    return False


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


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


store_global = global_ops.store_global  # (`global name; name = value`: frontend/global_ops.py)


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


delete_global = global_ops.delete_global


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
ZERO_DERIVATIVE = (enter_method, exit_method, opaque_enter, opaque_enter_unbound, opaque_exit, exit_raising, raise_from, store_global, check_callee,
                   check_bound, check_cell, delete_cell, delete_global, zip_strict, *global_ops.ZERO_DERIVATIVE)
