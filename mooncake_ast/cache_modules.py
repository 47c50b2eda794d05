"""Modules that generation imports, run from compiled code kept in the cache: many `.pyc` in one file.

A first derivation in a process imports some seventy of the library's modules (lowering, the
transforms, emission) and, unless the user did, libcst's eighty.  On the project's machine finding
and loading a module through the import system (the directory's check, a `stat` of the source,
opening, checking and reading its `.pyc`, in Python code of the import system's) costs about as
much again as running its code: 6 of 19 ms of CPU for the library's seventy, a fifth of a first
gradient once libcst is imported.  So, while a derivative is generated (`KeptModules`, around
cache_write's generation, as cache_classes' `KeptCode`), a finder placed first on `sys.meta_path`
serves the submodules of the packages in `PACKAGES` not imported yet from one file per package of
the cache directory, which holds each module's code object (marshalled apart: only what is
imported is unmarshalled) and the state of the source file it was made from; it records the code
of those it did not hold as the import system made it, and each package's file is rewritten, with
them added, when the generation ends.

A module is served only where the import system would find that very file: a submodule (never a
top-level package, which `sys.path` decides) whose parent's `__path__` holds its directory, and
whose source file has the size, modification time (ns) and inode recorded with its code, as the
import system's own loader saw them (a stricter test than a `.pyc`'s).  The file is one per
interpreter (bytecode magic first) and is trusted exactly as far as an entry's compiled form is
(cache_write): read with the cache's checks (ours, private, no symlink), not digested.  A module
it serves is what the import system would have made (same code, `__file__`, `__spec__.origin`,
`__path__`; its loader a `SourceFileLoader`, so `inspect` and tracebacks read the source as usual).
Anything unusable (missing, refused, another Python, garbage, an edited source) is a silent miss:
the module is imported as without this file, and recorded again.  The files count towards the
cache's size cap, are evicted as entries would be (least recently written first), are not written
where one would take more than an eighth of the cap, and are removed by `mooncake-ast cache clear`.
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

PACKAGES = (__package__, "libcst")  # whose submodules are served and recorded
_LOCK = threading.RLock()
STATS = {"served": 0, "recorded": 0}  # modules the last generation took from the files, and recorded (tests)


def file_name(package: str) -> str:
    """The cache directory's file of `package`'s kept module code (one per interpreter: marshal's format is its own)."""
    return f"{cache.MODULES_PREFIX}{sys.implementation.cache_tag}.{package}"


def _state(st: os.stat_result) -> tuple:
    return st.st_size, st.st_mtime_ns, st.st_ino


class _Kept:
    """This process's view of the files: per package, the modules held (read when first needed) and those
    recorded since."""

    def __init__(self) -> None:
        self.depth = 0  # generations in progress (nested, or threads): the outermost installs the finder
        self.held: dict[str, dict] = {}  # package -> module name -> (origin, is a package, source state, code)
        self.recorded: dict[str, dict] = {}  # package -> modules imported meanwhile, not held

    def modules(self, package: str) -> dict:
        found = self.held.get(package)
        if found is None:
            with _LOCK:
                found = self.held.get(package)
                if found is None:
                    found = self.held[package] = _read(package)
        return found

    def write(self) -> None:
        if not self.recorded:
            return
        recorded, self.recorded = self.recorded, {}
        d = cache.open_dir(create=False, quiet=True)
        if d is None:
            return
        try:
            from .cache_evict import max_bytes
            from .cache_write import write_atomic

            cap = max_bytes()
            for package, rows in sorted(recorded.items()):
                merged = {k: v for k, v in self.modules(package).items() if k not in rows and _fresh(v)}
                merged.update(rows)  # (rows of removed or edited sources are dropped: a rare write pays the stats)
                try:
                    payload = marshal.dumps(merged)
                except ValueError:
                    continue
                if cap is not None and len(payload) > cap // 8:  # (a small cache keeps derivatives first)
                    continue
                if write_atomic(d, file_name(package), MAGIC_NUMBER + payload) is None:
                    self.held[package] = merged
        finally:
            d.close()


_KEPT = _Kept()


def _read(package: str) -> dict:
    d = cache.open_dir(create=False, quiet=True)
    if d is None:
        return {}
    try:
        status, info = cache.read_bytes(d, file_name(package))
    finally:
        d.close()
    if status != "ok":
        return {}
    data = info[0]  # type: ignore[index]
    head = len(MAGIC_NUMBER)
    if data[:head] != MAGIC_NUMBER:
        return {}
    try:
        held = marshal.loads(memoryview(data)[head:])
    except (EOFError, ValueError, TypeError):
        return {}
    if type(held) is not dict:
        return {}
    prefix = package + "."
    return {k: v for k, v in held.items() if type(k) is str and k.startswith(prefix) and type(v) is tuple
            and len(v) == 4 and type(v[0]) is str and type(v[1]) is bool and type(v[2]) is tuple and type(v[3]) is bytes}


def _fresh(row: tuple) -> bool:
    """Does a held row's source still have the state its code was made from?"""
    try:
        return _state(os.stat(row[0])) == row[2]
    except (OSError, TypeError):
        return False


def _package_of(name: str) -> Optional[str]:
    top, dot, _ = name.partition(".")
    return top if dot and top in PACKAGES else None


class _HeldLoader(SourceFileLoader):
    """A module's loader as the import system makes it, its code taken from the kept file instead of the `.pyc`."""

    def __init__(self, fullname: str, path: str, data: bytes) -> None:
        super().__init__(fullname, path)
        self._data: Optional[bytes] = data

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
    """The import system's own loader, which keeps the code it made and the state of the source it checked."""

    _source_state: Optional[tuple] = None

    def path_stats(self, path: str) -> dict:
        st = os.stat(path)
        if path == self.path:
            self._source_state = _state(st)
        return {"mtime": st.st_mtime, "size": st.st_size}

    def get_code(self, fullname: str) -> Any:
        code = super().get_code(fullname)
        package = _package_of(fullname)
        if fullname == self.name and type(code) is types.CodeType and self._source_state is not None and package:
            try:
                data = marshal.dumps(code)
            except ValueError:
                return code
            is_package = os.path.basename(self.path) == "__init__.py"
            _KEPT.recorded.setdefault(package, {})[fullname] = (self.path, is_package, self._source_state, data)
            STATS["recorded"] += 1
        return code


class _Finder:
    """First on `sys.meta_path` while a generation runs: the packages' submodules, from the kept files where
    they hold them (see the module's docstring for when)."""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> Optional[ModuleSpec]:
        package = _package_of(name)
        if package is None or _KEPT.depth == 0 or path is None:
            return None
        row = _KEPT.modules(package).get(name)
        if row is not None:
            origin, is_package, _, data = row
            where = os.path.dirname(origin)
            if is_package:
                where = os.path.dirname(where)
            if where in path and _fresh(row):
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
    """While in this context, the packages' submodules imported are served from (and recorded into) the kept files."""

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
