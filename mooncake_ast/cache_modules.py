"""The library's own modules that generation imports, run from compiled code kept in the cache.

A first derivation in a process imports some seventy of the library's modules (lowering, the
transforms, emission), and on the project's machine finding and loading them through the import
system (a directory check, a `stat` of each source, opening and reading each `.pyc`) cost about
a third more than running their code: some 6 of 19 ms of CPU, a fifth of a first gradient once
libcst is imported.  So, while a derivative is generated (`KeptModules`, around cache_write's
generation, as cache_classes' `KeptCode`), a finder placed first on `sys.meta_path` serves the
library's submodules not imported yet from one file of the cache directory holding their code
objects (marshalled, each apart: only what is imported is unmarshalled), and records the code of
those it did not hold as the import system compiled or read it; the file is rewritten, with them
added, when the generation ends.

The file is one per interpreter (`file_name`), stamped with the interpreter's bytecode magic and a
digest of `cache_key.library_fingerprint()` (each of the library's files' path, size, modification
time and inode: what the derivatives' keys already use, computed once per process), so that it is
used only for the very files it was made from: an edited, added or removed file makes it a miss,
and it is made again.  It is trusted exactly as far as an entry's compiled form is (cache_write):
read with the cache's checks (ours, private, no symlink), stamped, not digested.  A module it
serves is what the import system would have made (same code, `__file__`, `__spec__.origin`,
`__path__`; its loader a `SourceFileLoader`, so `inspect` and tracebacks read the source as
usual).  Anything unusable (missing, refused, stale, another Python, garbage) is a silent miss:
the modules are imported as without this file.  It counts towards the cache's size cap, is evicted
as an entry would be (least recently written first), is not written where it would take more than
an eighth of the cap, and is removed by `mooncake-ast cache clear`.
"""
from __future__ import annotations

import marshal
import os
import sys
import threading
import types
from importlib.machinery import ModuleSpec, PathFinder, SourceFileLoader
from importlib.util import MAGIC_NUMBER
from typing import Any, Optional

from . import cache
from .digests import hasher

_PREFIX = __package__ + "."
_STAMP = 32
_LOCK = threading.RLock()
STATS = {"served": 0, "recorded": 0}  # modules the last generation took from the file, and recorded (tests)


def file_name() -> str:
    """The cache directory's file of kept module code (one per interpreter: marshal's format is its own)."""
    return f"{cache.MODULES_PREFIX}{sys.implementation.cache_tag}"


def _stamp() -> bytes:
    from .cache_key import library_fingerprint

    return hasher(f"{library_fingerprint()}\0{sys.implementation.cache_tag}".encode()).digest()


class _Kept:
    """This process's view of the file: the modules it holds (read when first needed) and those recorded since."""

    def __init__(self) -> None:
        self.depth = 0  # generations in progress (nested, or threads): the outermost installs the finder
        self.held: Optional[dict] = None  # module name -> (origin, is a package, marshalled code)
        self.stamp = b""
        self.recorded: dict = {}  # modules imported meanwhile, not held: written when the outermost ends

    def modules(self) -> dict:
        if self.held is None:
            with _LOCK:
                if self.held is None:
                    self.stamp = _stamp()
                    self.held = _read(self.stamp)
        return self.held

    def write(self) -> None:
        if not self.recorded or self.held is None:
            return
        merged = dict(self.held)
        merged.update(self.recorded)
        self.recorded = {}
        d = cache.open_dir(create=False, quiet=True)
        if d is None:
            return
        try:
            from .cache_write import write_atomic

            from .cache_evict import max_bytes

            try:
                payload = marshal.dumps(merged)
            except ValueError:
                return
            cap = max_bytes()
            if cap is not None and len(payload) > cap // 8:  # (a small cache keeps derivatives first)
                return
            if write_atomic(d, file_name(), MAGIC_NUMBER + self.stamp + payload) is None:
                self.held = merged
        finally:
            d.close()


_KEPT = _Kept()


def _read(stamp: bytes) -> dict:
    d = cache.open_dir(create=False, quiet=True)
    if d is None:
        return {}
    try:
        status, info = cache.read_bytes(d, file_name())
    finally:
        d.close()
    if status != "ok":
        return {}
    data = info[0]  # type: ignore[index]
    head = len(MAGIC_NUMBER)
    if data[:head] != MAGIC_NUMBER or data[head:head + _STAMP] != stamp:
        return {}
    try:
        held = marshal.loads(memoryview(data)[head + _STAMP:])
    except (EOFError, ValueError, TypeError):
        return {}
    if type(held) is not dict:
        return {}
    return {k: v for k, v in held.items() if type(k) is str and k.startswith(_PREFIX) and type(v) is tuple
            and len(v) == 3 and type(v[0]) is str and type(v[1]) is bool and type(v[2]) is bytes}


class _HeldLoader(SourceFileLoader):
    """A module's loader as the import system makes it, its code taken from the file instead of the `.pyc`."""

    def __init__(self, fullname: str, path: str, data: bytes) -> None:
        super().__init__(fullname, path)
        self._data = data

    def get_code(self, fullname: str) -> Any:
        data, self._data = self._data, None
        if fullname == self.name and data is not None:
            try:
                code = marshal.loads(data)
            except (EOFError, ValueError, TypeError):
                code = None
            if type(code) is types.CodeType:
                STATS["served"] += 1
                return code
        return super().get_code(fullname)


class _RecordingLoader(SourceFileLoader):
    """The import system's own loader, which keeps the code it made for the file."""

    def get_code(self, fullname: str) -> Any:
        code = super().get_code(fullname)
        if fullname == self.name and code is not None:
            try:
                data = marshal.dumps(code)
            except ValueError:
                return code
            _KEPT.recorded[fullname] = (self.path, os.path.basename(self.path) == "__init__.py", data)
            STATS["recorded"] += 1
        return code


class _Finder:
    """First on `sys.meta_path` while a generation runs: the library's submodules, from the file if it holds them."""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> Optional[ModuleSpec]:
        if not name.startswith(_PREFIX) or _KEPT.depth == 0:
            return None
        row = _KEPT.modules().get(name)
        if row is not None:
            origin, is_package, data = row
            spec = ModuleSpec(name, _HeldLoader(name, origin, data), origin=origin, is_package=is_package)
            if is_package:
                spec.submodule_search_locations = [os.path.dirname(origin)]
            spec.has_location = True
            return spec
        spec = PathFinder.find_spec(name, path, target)
        if spec is not None and type(spec.loader) is SourceFileLoader and spec.origin == spec.loader.path:
            spec.loader = _RecordingLoader(spec.loader.name, spec.loader.path)
        return spec

    @staticmethod
    def invalidate_caches() -> None:
        pass


_FINDER = _Finder()


class KeptModules:
    """While in this context, the library's submodules imported are served from (and recorded into) the cache's file."""

    __slots__ = ()

    def __enter__(self) -> None:
        with _LOCK:
            if _KEPT.depth == 0:
                STATS.update(served=0, recorded=0)
                if _FINDER not in sys.meta_path:
                    sys.meta_path.insert(0, _FINDER)
            _KEPT.depth += 1

    def __exit__(self, *exc: object) -> None:
        with _LOCK:
            _KEPT.depth -= 1
            if _KEPT.depth:
                return
            try:
                sys.meta_path.remove(_FINDER)
            except ValueError:
                pass
            _KEPT.write()
