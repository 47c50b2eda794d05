"""An unsupported construct met while tracing into library code: the error names what the user called.

A function without a rule of its own is differentiated from its Python source, also when it belongs to an
installed package (SciPy's statistics call NumPy's and the standard library's Python).  When that source holds
something the transforms do not handle, the error raised deep inside names a line of `inspect.py` or
`_stats_py.py`, and the advice that comes with it ("rewrite the loop") is for code the user cannot change.  At
each call of installed code the dispatcher (forward/runtime.fcall, reverse/runtime.rcall) passes such an error
through `in_library`, which names the callable and the calls that led there, keeps the construct and its
file:line, and says what the user can do: register a rule for the callable they called.
"""
from __future__ import annotations

import os
import sys
import types
from typing import Any, Optional

from .errors import ControlFlowError, MissingRuleError, UnsupportedDerivativeError, UnsupportedSyntaxError, qualified_name


def _installed() -> tuple:
    """The installation's code folders (module global `_INSTALLED`), found on first need: `sysconfig` costs
    `import mooncake_ast` a millisecond, and only a dispatched call of installed code asks."""
    found = globals().get("_INSTALLED")
    if found is None:
        import sysconfig

        found = tuple(sorted({os.path.abspath(p) + os.sep for k, p in sysconfig.get_paths().items()
                              if k in ("stdlib", "platstdlib", "purelib", "platlib")}))
        globals()["_INSTALLED"] = found
    return found


def __getattr__(name: str) -> Any:
    if name == "_INSTALLED":
        return _installed()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


class LibraryCodeError(UnsupportedDerivativeError):
    """Installed code the function calls holds a construct mooncake_ast cannot differentiate: the message names the
    callable your code called (`path[0]`), the calls that led to the construct, the construct and its file:line, and
    how to register a rule for the callable.  Attributes: path (callable names, outermost first), detail."""

    def __init__(self, path: list, detail: str, also: str = "") -> None:
        self.path, self.detail = path, detail
        through = f" (through {' -> '.join(path[1:])})" if len(path) > 1 else ""
        UnsupportedDerivativeError.__init__(
            self, f"cannot differentiate {path[0]}{through}: its source holds what mooncake_ast cannot differentiate: "
            f"{detail}\nWhat to do: register a rule for {path[0]} (@mc.rrule for reverse mode, @mc.frule for forward "
            f"mode; docs/rules.md shows how){also}, or call a NumPy version of it of your own; the other mode may work.")

    def named_by(self, outer: str) -> "LibraryCodeError":
        """The same error, met through a call of `outer` (installed code too)."""
        return LibraryCodeError([outer, *self.path], self.detail)


class LibraryMissingRuleError(LibraryCodeError, MissingRuleError):
    """A callable without a rule (and without Python source to trace) met inside installed code: named by what your
    code called, as LibraryCodeError says, and a MissingRuleError whose `fn` and `mode` are the callable without a
    rule (`why` is None: the message says it).  Attribute `missing`: the MissingRuleError raised inside."""

    def __init__(self, path: list, missing: MissingRuleError) -> None:
        inner = qualified_name(missing.fn)
        why = f" ({missing.why})" if missing.why else ""
        LibraryCodeError.__init__(self, path, f"it calls {inner}, which has no {missing.mode} rule{why}",
                                  f", or one for {inner} (mc.zero_derivative({inner}) if it is not differentiable)")
        self.fn, self.mode, self.why, self.missing = missing.fn, missing.mode, None, missing

    def named_by(self, outer: str) -> "LibraryCodeError":
        return LibraryMissingRuleError([outer, *self.path], self.missing)


# Standard-library modules that look at code and text, never compute with numbers: a call of theirs given nothing
# that carries a derivative (`inspect.signature(fn)` in SciPy's decorators) is run as it is, not traced.
_INTROSPECTION = frozenset({"inspect", "typing", "warnings", "re", "textwrap", "enum", "abc", "types", "string",
                            "dataclasses", "ast", "tokenize", "linecache"})


_PLAIN: dict = {}  # code -> runs_plainly's answer (asked at every dispatched call of a Python function)


def runs_plainly(fn: Any) -> bool:
    """Is fn a function of one of `_INTROSPECTION`'s modules (the caller checks that nothing differentiable goes in)?"""
    if not isinstance(fn, types.FunctionType):
        return False
    code = fn.__code__
    known = _PLAIN.get(code)
    if known is None:
        known = _PLAIN[code] = (fn.__module__ or "").split(".")[0] in _INTROSPECTION and is_library(fn)
    return known


def is_library(fn: types.FunctionType) -> bool:
    """Is fn's code installed (the standard library, site-packages), not the user's nor mooncake_ast's own?"""
    file = os.path.abspath(fn.__code__.co_filename)
    return file.startswith(_installed()) and not file.startswith(_PACKAGE)


def in_library(fn: Any, e: BaseException) -> Optional[LibraryCodeError]:
    """The error to raise in place of e, raised while differentiating a call of fn, or None to let e pass."""
    if not isinstance(fn, types.FunctionType) or not is_library(fn):
        return None
    if isinstance(e, LibraryCodeError):
        return e.named_by(public_name(fn))
    if isinstance(e, MissingRuleError) and callable(e.fn) and not _users_own(e.fn):
        return LibraryMissingRuleError([public_name(fn)], e)  # (a value called, a function of the user's: theirs)
    if isinstance(e, ControlFlowError):
        where = f"{e.file}:{e.line}: " if e.file else ""
        shown = str(e).split("\n")
        text = f"  {shown[1].strip()}" if len(shown) > 1 and not shown[1].startswith("This is") else ""
        return LibraryCodeError([public_name(fn)], f"{where}control flow it cannot structure ({e.what}){text}")
    if isinstance(e, UnsupportedSyntaxError) or type(e).__name__ == "ReverseUnsupported":
        return LibraryCodeError([public_name(fn)], str(e).split("\n")[0])
    return None


def _users_own(fn: Any) -> bool:
    """A Python function of the user's (handed to installed code, e.g. a lambda given to SciPy)."""
    return isinstance(fn, types.FunctionType) and not is_library(fn)


def public_name(fn: types.FunctionType) -> str:
    """`scipy.stats.linregress` for the function `scipy.stats._stats_py.linregress`: the shortest module path that
    has it under its own name, else its defining module's."""
    parts = (fn.__module__ or "").split(".")
    for k in range(1, len(parts) + 1):
        obj: Any = sys.modules.get(".".join(parts[:k]))
        for attr in fn.__qualname__.split("."):
            obj = getattr(obj, attr, None)
        if obj is fn:
            return ".".join(parts[:k]) + "." + fn.__qualname__
    return f"{fn.__module__}.{fn.__qualname__}"
