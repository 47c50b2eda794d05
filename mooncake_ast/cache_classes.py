"""Importing libcst without compiling its dataclasses' methods again: their code is kept in the cache.

libcst declares its ~200 node classes as frozen dataclasses.  Creating them has `dataclasses` write
~700 small functions (`__init__`, `__eq__`, `__hash__`, ...) as text and `exec` each text, and
compiling those texts is half of `import libcst` (about 70 of 140 ms on the project's machine),
which the first derivation of every process pays.  The texts depend only on the classes'
declarations, so the same texts come back in every process: while libcst is imported (`import_libcst`),
`dataclasses` finds an `exec` of ours among its module globals that runs the code object kept
for a text it has compiled before, and otherwise compiles the text exactly as `exec` would (file
name "<string>", the calling frame's `__future__` flags, the same namespaces) and keeps it.
Nothing else changes: the classes are made by `dataclasses` from the same functions.

The code objects are kept, marshalled (and compressed) and keyed by their text, in one dot-named
file of the cache directory per interpreter (`code_file_name`), rewritten when an import compiled
something it did not hold (another libcst), holding what that import used; it counts towards the
cache's size cap (cache_evict).  It is trusted exactly as far as the
derivative cache is: read with the cache's checks (ours, private, no symlink), used only if it
says it was written by this interpreter (bytecode magic) and its digest matches its content.
Anything else (missing, refused, torn, another Python, an unusable cache) is a silent miss:
libcst is imported as without this module.
"""
from __future__ import annotations

import __future__
import hashlib
import marshal
import sys
import threading
import types
import zlib
from importlib.util import MAGIC_NUMBER
from typing import Any, Optional

from . import cache

_FUTURE_FLAGS = 0  # the compiler flags `exec` passes on from its caller's code (PyCF_MASK)
for _name in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag
_DIGEST = 32
_LOCK = threading.Lock()
STATS = {"compiled": 0, "kept": 0}  # texts the last hooked import compiled, and found compiled (for tests)


def code_file_name() -> str:
    """The file of the cache directory holding the kept code (one per interpreter: marshal's format
    and code objects are the interpreter's own)."""
    return f"{cache.CLASSES_PREFIX}{sys.implementation.cache_tag}"


class _Kept:
    """The code objects for texts `exec`'d while a module is imported: those read from the cache, and
    those this import used (what the file will hold if it has to be rewritten)."""

    __slots__ = ("known", "used", "compiled", "reused")

    def __init__(self, known: dict) -> None:
        self.known = known
        self.used: dict = {}
        self.compiled = self.reused = 0

    def exec(self, source: Any, globals: Any = None, locals: Any = None, *args: Any, **kwargs: Any) -> None:
        """`exec`, as `dataclasses` calls it from its own code (see the module's docstring)."""
        caller = sys._getframe(1)
        if type(source) is str:
            flags = caller.f_code.co_flags & _FUTURE_FLAGS
            code = self.known.get(source) if flags == 0 else None
            if type(code) is types.CodeType:
                self.reused += 1
            else:
                code = compile(source, "<string>", "exec", flags, True)
                self.compiled += 1
            if flags == 0:
                self.used[source] = code
            source = code
        if globals is None:  # exec(text): the caller's namespaces, not this frame's
            globals = caller.f_globals
            if locals is None:
                locals = caller.f_locals
        exec(source, globals, locals, *args, **kwargs)


def import_libcst() -> types.ModuleType:
    """`import libcst` (libcst.metadata included), with the dataclasses' code from the cache."""
    if "libcst" in sys.modules:  # (imported, or being imported: the import statement waits for it)
        import libcst

        return libcst
    with _LOCK:  # one import at a time installs (and removes) the hook
        if "libcst" in sys.modules:
            import libcst

            return libcst
        import dataclasses

        if "exec" in vars(dataclasses):  # someone else's hook: leave it alone
            import libcst

            return libcst
        d = cache.open_dir(quiet=True)
        try:
            kept = _Kept(_read(d) if d is not None else {})
            dataclasses.exec = kept.exec  # type: ignore[attr-defined]
            try:
                import libcst
                import libcst.metadata  # noqa: F401
            finally:
                if vars(dataclasses).get("exec") == kept.exec:
                    del dataclasses.exec  # type: ignore[attr-defined]
            STATS.update(compiled=kept.compiled, kept=kept.reused)
            if d is not None and kept.compiled:
                _write(d, kept.used)
        finally:
            if d is not None:
                d.close()
        return libcst


def _read(d: cache._Dir) -> dict:
    status, info = cache.read_bytes(d, code_file_name())
    if status != "ok":
        return {}
    data = info[0]  # type: ignore[index]
    head = len(MAGIC_NUMBER)
    if data[:head] != MAGIC_NUMBER or hashlib.sha256(data[head + _DIGEST:]).digest() != data[head:head + _DIGEST]:
        return {}
    try:
        codes = marshal.loads(zlib.decompress(data[head + _DIGEST:]))
    except (EOFError, ValueError, TypeError, zlib.error):
        return {}
    return codes if type(codes) is dict else {}


def _write(d: cache._Dir, codes: dict) -> Optional[OSError]:
    try:
        payload = zlib.compress(marshal.dumps(codes))  # (a tenth of the size: 80 kB for libcst 1.0)
    except ValueError:
        return None
    return cache.write_atomic(d, code_file_name(), MAGIC_NUMBER + hashlib.sha256(payload).digest() + payload)
