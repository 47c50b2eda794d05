"""Creating dataclasses without compiling their methods again: the code is kept in the cache.

libcst declares its ~200 node classes as frozen dataclasses.  Creating them has `dataclasses` write ~1000
small functions (`__init__`, `__eq__`, `__hash__`, ...) as text and `exec` each text, and compiling
those texts is half of `import libcst` (about 70 of 140 ms on the project's machine), which the first
derivation of every process pays (our lowering modules add a few dataclasses more).  The texts depend
only on the classes' declarations, so the same texts come back in every process: while libcst is
imported (`import_libcst`), while a derivative is generated (`KeptCode`, around `cache`'s generation)
and while `import mooncake_ast` makes the library's own (ir/types.py's and a dozen more: 2-4 ms of that
import; it creates no cache directory), `dataclasses` finds an `exec` of ours among its module globals
that runs the code object kept for a text compiled before, and otherwise compiles the text exactly as
`exec` would (file name "<string>", the calling frame's `__future__` flags, the same namespaces) and
keeps it.  Nothing else changes: the classes are made by `dataclasses` from the same functions.

The code objects are kept, marshalled (not compressed: inflating them cost more than reading them),
keyed by their text, in dot-named files of the cache directory, one per interpreter and top-level
package of the classes (`code_file_name`; about 750 kB for libcst 1.0), each read when a class of its
package is first made under the hook in a process, and rewritten (what it held and what was compiled)
when a hooked period compiled something new for it; it counts towards the cache's size cap
(cache_evict).  It is trusted exactly as far as the derivative cache is: read with the cache's checks
(ours, private, no symlink), used only if it says it was written by this interpreter (bytecode magic)
and its digest (digests.bulk_digest) matches its content.  Anything else (missing, refused, torn, another
Python, an unusable cache) is a silent miss: the texts are compiled, as without this module.
"""
from __future__ import annotations

import __future__
import marshal
import sys
import threading
import types
from importlib.util import MAGIC_NUMBER
from typing import Any, Optional

from . import cache
from .digests import bulk_digest

_FUTURE_FLAGS = 0  # the compiler flags `exec` passes on from its caller's code (CPython's PyCF_MASK)
for _name in __future__.all_feature_names:
    if _name != "nested_scopes":  # (its flag, CO_NESTED, marks nested functions; exec does not pass it on)
        _FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag
_DIGEST = 32
_LOCK = threading.RLock()  # installs and removes the hook, loads and writes the kept code
STATS = {"compiled": 0, "kept": 0}  # texts the last hooked period compiled, and found compiled (for tests)


def code_file_name(package: str = "libcst") -> str:
    """The file of the cache directory holding the kept code of the dataclasses of `package` (one per
    interpreter, as marshal's format and code objects are the interpreter's own; one per top-level
    package, so that a process reads only what it creates)."""
    return f"{cache.CLASSES_PREFIX}{sys.implementation.cache_tag}.{package}"


_PACKAGES: dict = {}  # module name -> _package's answer


def _package(globals: Any) -> str:
    """The top-level package of the module whose namespace a text is executed in (`dataclasses` passes
    the class's module's): which file keeps its code."""
    name = globals.get("__name__") if type(globals) is dict else None
    if type(name) is not str:
        return "_"
    found = _PACKAGES.get(name)
    if found is None:
        top = name.partition(".")[0]
        found = _PACKAGES[name] = top if top.isidentifier() and top.isascii() and len(top) <= 64 else "_"
    return found


class _Kept:
    """The hook's state in this process: per package, the code objects known (read from the cache
    when first needed, then what was compiled); the counts of the current hooked period."""

    def __init__(self) -> None:
        self.known: dict[str, dict] = {}
        self.dirty: set[str] = set()  # packages with code compiled since their file was read or written
        self.compiled = self.reused = 0
        self.depth = 0  # hooked periods in progress (threads, nesting): the outermost removes the hook
        self.create = True  # the outermost period may create the cache directory to keep what it compiled

    def _known(self, package: str) -> dict:
        found = self.known.get(package)
        if found is None:
            with _LOCK:
                found = self.known.get(package)
                if found is None:
                    d = cache.open_dir(create=False, quiet=True)
                    try:
                        found = self.known[package] = _read(d, code_file_name(package)) if d is not None else {}
                    finally:
                        if d is not None:
                            d.close()
        return found

    def exec(self, source: Any, globals: Any = None, locals: Any = None, *args: Any, **kwargs: Any) -> None:
        """`exec`, as `dataclasses` calls it from its own code (see the module's docstring)."""
        caller = sys._getframe(1)
        if globals is None:  # exec(text): the caller's namespaces, not this frame's
            globals = caller.f_globals
            if locals is None:
                locals = caller.f_locals
        if type(source) is str:
            flags = caller.f_code.co_flags & _FUTURE_FLAGS
            package = _package(globals)
            known = self._known(package) if flags == 0 else {}
            code = known.get(source)
            if type(code) is types.CodeType:
                self.reused += 1
            else:
                code = compile(source, "<string>", "exec", flags, True)
                self.compiled += 1
                if flags == 0:
                    known[source] = code
                    self.dirty.add(package)
            source = code
        exec(source, globals, locals, *args, **kwargs)

    def write(self, create: bool = True) -> None:
        """Keep what was compiled: each package's file rewritten with all its code known here (in a cache
        directory that exists already, unless `create`)."""
        if not self.dirty:
            return
        d = cache.open_dir(create=create, quiet=True)
        if d is None:
            return
        try:
            for package in sorted(self.dirty):
                _write(d, code_file_name(package), self.known[package])
        finally:
            d.close()
        self.dirty.clear()


_KEPT = _Kept()


class KeptCode:
    """While in this context (any thread), dataclasses are made from kept code (see the module's docstring).
    Re-entrant; where `dataclasses` already has an `exec` that is not ours, it is left alone.  `create`:
    whether the outermost period may create the cache directory to keep what it compiled (not `import
    mooncake_ast`'s: a directory appears when a first derivative is written, not before)."""

    __slots__ = ("hooked", "create")

    def __init__(self, create: bool = True) -> None:
        self.create = create

    def __enter__(self) -> None:
        import dataclasses

        with _LOCK:
            self.hooked = False
            if _KEPT.depth == 0:
                if "exec" in vars(dataclasses):  # someone else's hook
                    return
                _KEPT.compiled = _KEPT.reused = 0
                _KEPT.create = self.create
                dataclasses.exec = _KEPT.exec  # type: ignore[attr-defined]
            _KEPT.depth += 1
            self.hooked = True

    def __exit__(self, *exc: object) -> None:
        if not self.hooked:
            return
        import dataclasses

        with _LOCK:
            _KEPT.depth -= 1
            if _KEPT.depth:
                return
            if vars(dataclasses).get("exec") == _KEPT.exec:
                del dataclasses.exec  # type: ignore[attr-defined]
            STATS.update(compiled=_KEPT.compiled, kept=_KEPT.reused)
            _KEPT.write(_KEPT.create)


def import_libcst() -> types.ModuleType:
    """`import libcst` (libcst.metadata included), its dataclasses made from kept code."""
    if "libcst" not in sys.modules:  # (imported, or being imported: the import statement waits for it)
        with KeptCode():
            import libcst.metadata  # noqa: F401
    import libcst

    return libcst


def _read(d: cache._Dir, name: str) -> dict:
    status, info = cache.read_bytes(d, name)
    if status != "ok":
        return {}
    data = info[0]  # type: ignore[index]
    head = len(MAGIC_NUMBER)
    payload = memoryview(data)[head + _DIGEST:]  # (a view: no copy of the 750 kB, for the digest or for marshal)
    if data[:head] != MAGIC_NUMBER or bulk_digest(payload) != data[head:head + _DIGEST]:
        return {}
    try:
        codes = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return {}
    return codes if type(codes) is dict else {}


def _write(d: cache._Dir, name: str, codes: dict) -> Optional[OSError]:
    try:
        payload = marshal.dumps(codes)  # (not compressed: inflating 750 kB cost every import of libcst 2 ms)
    except ValueError:
        return None
    from .cache_write import write_atomic

    return write_atomic(d, name, MAGIC_NUMBER + bulk_digest(payload) + payload)
