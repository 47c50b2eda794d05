"""Regular expressions made without parsing them again: their compiled programs are kept in the cache.

`re` parses a pattern and assembles its program in Python code, once per process and pattern.  A first
derivation compiles about a dozen (lowering's prefilters of a function's text, libcst's checks of number
literals: 1.6 ms of its ~40 on the project's machine) and `import mooncake_ast` a dozen more (json's,
dataclasses', the tracebacks module's: about 1 ms).  A program depends only on the pattern, its flags and the
interpreter, so while cache_classes' `KeptCode` is in force (the library's import, libcst's, every generation)
`re`'s compiler is `_compile` below: a pattern met before (same text and flags; same interpreter and `_sre`)
is made from its kept program by `_sre.compile`, which is how `re`'s own compiler ends; any other is compiled
by `re`, and its program (assembled as `re` assembles it, from `re`'s parser and code generator) is kept only
if the pattern it makes is equal to the one `re` made (patterns compare their programs).  `_sre` checks a
program before it makes a pattern; one it refuses is compiled by `re` instead.  Nothing else changes: `re`'s
own cache, flags, errors (a pattern that does not compile raises as before: it is never kept).

The programs are kept in one file of the cache directory, of cache_classes' kind (`code_file_name`, counted,
evicted and cleared with it), read with its checks (ours, private, no symlink, written by this interpreter,
digest), and rewritten when a period kept something new.
"""
from __future__ import annotations

import re
import sys
import threading
from typing import Any

from . import cache
from .cache_classes import _read, _write, code_file_name

try:
    import _sre
except ImportError:  # pragma: no cover  (another implementation: patterns are compiled as usual)
    _sre = None

_COMPILER: Any = getattr(re, "_compiler", None) or sys.modules.get("sre_compile")  # (3.10: sre_compile)
_PARSER: Any = getattr(re, "_parser", None) or sys.modules.get("sre_parse")
_ORIGINAL = getattr(_COMPILER, "compile", None)
_DEBUG = getattr(re, "DEBUG", 128)
_VERSION = ("version", sys.version, getattr(_sre, "MAGIC", None), getattr(_sre, "CODESIZE", None))
_LOCK = threading.RLock()
STATS = {"compiled": 0, "kept": 0}  # patterns the current or last period compiled, and made from kept programs


def file_name() -> str:
    return code_file_name("re-patterns")  # (not an identifier: never a package's file of dataclass code)


class _Kept:
    def __init__(self) -> None:
        self.depth = 0
        self.known: Any = None  # (pattern, flags) -> program row, read when first needed
        self.dirty = False
        self.create = True

    def programs(self) -> dict:
        if self.known is None:
            with _LOCK:
                if self.known is None:
                    d = cache.open_dir(create=False, quiet=True)
                    found: dict = {}
                    if d is not None:
                        try:
                            found = _read(d, file_name())
                        finally:
                            d.close()
                    self.known = found if found.get(_VERSION[0]) == _VERSION else {_VERSION[0]: _VERSION}
        return self.known

    def write(self) -> None:
        if not self.dirty:
            return
        d = cache.open_dir(create=self.create, quiet=True)
        if d is None:
            return
        try:
            _write(d, file_name(), self.known)
        finally:
            d.close()
        self.dirty = False


_KEPT = _Kept()


def _program(pattern: Any, flags: int) -> Any:
    """(flags, code, groups, groupindex, indexgroup) for `_sre.compile`, as `re`'s compiler assembles them."""
    parsed = _PARSER.parse(pattern, flags)
    code = [int(c) for c in _COMPILER._code(parsed, flags)]  # (its opcodes are int subclasses: not marshalled)
    groupindex = parsed.state.groupdict
    indexgroup = [None] * parsed.state.groups
    for k, i in groupindex.items():
        indexgroup[i] = k
    return int(flags | parsed.state.flags), code, parsed.state.groups - 1, dict(groupindex), tuple(indexgroup)


def _compile(p: Any, flags: int = 0) -> Any:
    """`re`'s compiler (what `re.compile` calls on a miss of its own cache), with programs kept."""
    if (type(p) is str or type(p) is bytes) and type(flags) is int and not flags & _DEBUG:
        known = _KEPT.programs()
        row = known.get((p, flags))
        if row is not None:
            try:
                made = _sre.compile(p, *row)
            except Exception:  # (a program _sre refuses: compiled anew below)
                pass
            else:
                STATS["kept"] += 1
                return made
        made = _ORIGINAL(p, flags)
        STATS["compiled"] += 1
        try:
            row = _program(p, flags)
            same = _sre.compile(p, *row) == made
        except Exception:
            same = False
        if same:
            known[(p, flags)] = row
            _KEPT.dirty = True
        return made
    return _ORIGINAL(p, flags)


def enter(create: bool) -> bool:
    """Start a period (the outermost installs the compiler, unless `re`'s is not its own); whether it counts."""
    if _sre is None or _ORIGINAL is None or not hasattr(_COMPILER, "_code") or not hasattr(_PARSER, "parse"):
        return False
    with _LOCK:
        if _KEPT.depth == 0:
            if _COMPILER.compile is not _ORIGINAL:  # (someone else's hook: left alone)
                return False
            STATS.update(compiled=0, kept=0)
            _KEPT.create = create
            _COMPILER.compile = _compile
        _KEPT.depth += 1
        return True


def leave() -> None:
    """End a period begun by a counted `enter`: the outermost removes the compiler and keeps what was new."""
    with _LOCK:
        _KEPT.depth -= 1
        if _KEPT.depth:
            return
        if _COMPILER.compile is _compile:
            _COMPILER.compile = _ORIGINAL
        _KEPT.write()
