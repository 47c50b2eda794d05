"""Modules that generation imports, run from compiled code kept in the cache: many `.pyc` in one file.

A first derivation in a process imports some seventy of the library's modules (lowering, the
transforms, emission) and, unless the user did, libcst's eighty.  On the project's machine finding
and loading a module through the import system (the directory's check, a `stat` of the source,
opening, checking and reading its `.pyc`, in Python code of the import system's) costs about as
much again as running its code: 6 of 19 ms of CPU for the library's seventy, a fifth of a first
gradient once libcst is imported.  So, while a derivative is generated (`KeptModules`, around
cache_write's generation, as cache_classes' `KeptCode`), a finder placed first on `sys.meta_path`
serves the submodules of the packages in `PACKAGES` not imported yet from one file per package of
the cache directory, which holds each module's code object (marshalled apart, behind an index:
only what is imported is read) and the state of the source file it was made from; it records the code
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

from . import cache, import_states

PACKAGES = (__package__, "libcst")  # whose submodules are served and recorded
_LOCK = threading.RLock()
STATS = {"served": 0, "recorded": 0}  # modules the last generation took from the files, and recorded (tests)


def file_name(package: str) -> str:
    """The cache directory's file of `package`'s kept module code (one per interpreter: marshal's format is its own)."""
    return f"{cache.MODULES_PREFIX}{sys.implementation.cache_tag}.{package}"


def _state(st: os.stat_result) -> tuple:
    return st.st_size, st.st_mtime_ns, st.st_ino


# A file: the bytecode magic, the length of the index (8 bytes, little-endian), the index (marshalled:
# module name -> (origin, is a package, source state, offset, length)), then each module's marshalled code
# at its offset from the end of the index.  The index alone is read at first; a module's code when it is
# imported (reading all of a 1.3 MB file, which a single allocation of that size maps page by page,
# cost more than the import system's own reads of the modules it held).
_HEAD = len(MAGIC_NUMBER) + 8


def _pread(fd: int, n: int, offset: int) -> bytes:
    if hasattr(os, "pread"):
        return os.pread(fd, n, offset)
    os.lseek(fd, offset, os.SEEK_SET)  # pragma: no cover  (Windows)
    return os.read(fd, n)


class _File:
    """A package's kept file, open while generations run: its index, and its modules' code read when imported."""

    __slots__ = ("fd", "base", "index")

    def __init__(self, fd: Optional[int], base: int, index: dict) -> None:
        self.fd, self.base, self.index = fd, base, index

    def code(self, row: tuple) -> Optional[bytes]:
        """The marshalled code of an index row (None where it cannot be read whole: the file is closed, or short)."""
        if self.fd is None:
            return None
        try:
            data = _pread(self.fd, row[4], self.base + row[3])
        except OSError:
            return None
        return data if len(data) == row[4] else None

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


_NO_FILE = _File(None, 0, {})


class _Kept:
    """This process's view of the files: per package, the file (opened when first needed, while generations run)
    and the modules recorded since."""

    def __init__(self) -> None:
        self.depth = 0  # generations in progress (nested, or threads): the outermost installs the finder
        self.files: dict[str, _File] = {}  # package -> its file
        self.recorded: dict[str, dict] = {}  # package -> modules imported meanwhile: (origin, is a package, state, code)

    def file(self, package: str) -> _File:
        found = self.files.get(package)
        if found is None:
            with _LOCK:
                found = self.files.get(package)
                if found is None:
                    found = self.files[package] = _open(package)
        return found

    def close(self) -> None:
        for f in self.files.values():
            f.close()
        self.files.clear()

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
                f = self.file(package)
                merged = dict(rows)
                for name, row in f.index.items():  # (rows of removed or edited sources are dropped: a rare write pays the stats)
                    if name not in rows and _fresh(row):
                        code = f.code(row)
                        if code is not None:
                            merged[name] = (row[0], row[1], row[2], code)
                index: dict = {}
                offset = 0
                for name, (origin, is_package, state, code) in sorted(merged.items()):
                    index[name] = (origin, is_package, state, offset, len(code))
                    offset += len(code)
                try:
                    head = marshal.dumps(index)
                except ValueError:
                    continue
                if cap is not None and len(head) + offset > cap // 8:  # (a small cache keeps derivatives first)
                    continue
                data = b"".join([MAGIC_NUMBER, len(head).to_bytes(8, "little"), head]
                                + [merged[name][3] for name in sorted(merged)])
                write_atomic(d, file_name(package), data)
        finally:
            d.close()


_KEPT = _Kept()


def _open(package: str) -> _File:
    """Package's file, open, with its index read and checked; `_NO_FILE` where there is none fit to use."""
    d = cache.open_dir(create=False, quiet=True)
    if d is None:
        return _NO_FILE
    try:
        status, info = cache.open_checked(d, file_name(package))
    finally:
        d.close()
    if status != "ok":
        return _NO_FILE
    fd, st = info  # type: ignore[misc]
    try:
        head = _pread(fd, _HEAD, 0)
        n = int.from_bytes(head[len(MAGIC_NUMBER):], "little")
        if len(head) != _HEAD or head[:len(MAGIC_NUMBER)] != MAGIC_NUMBER or n > st.st_size - _HEAD:
            raise ValueError("not a file of kept modules")
        index = marshal.loads(_pread(fd, n, _HEAD))
        size = st.st_size - _HEAD - n
        if type(index) is not dict:
            raise ValueError("not a file of kept modules")
        prefix = package + "."
        index = {k: v for k, v in index.items() if type(k) is str and k.startswith(prefix) and _row(v, size)}
    except (OSError, EOFError, ValueError, TypeError):
        os.close(fd)
        return _NO_FILE
    return _File(fd, _HEAD + n, index)


def _row(v: object, size: int) -> bool:
    """Is v an index row, its code within the file's `size` bytes of code?"""
    return (type(v) is tuple and len(v) == 5 and type(v[0]) is str and type(v[1]) is bool and type(v[2]) is tuple
            and type(v[3]) is int and type(v[4]) is int and 0 <= v[3] and 0 <= v[4] and v[3] + v[4] <= size)


def _fresh(row: tuple) -> bool:
    """Does a held row's source still have the state its code was made from?"""
    try:
        return _state(os.stat(row[0])) == row[2]
    except (OSError, TypeError):
        return False


def _scanned(origin: str) -> Optional[tuple]:
    """The state this process found for a source file not imported then (cache_key.SCANNED: a hit's check of an
    entry's library record, or library_scan's): code kept for that state is the code of the file as this process
    saw it, with no second stat (a file edited since is imported as it was seen, not as it is now)."""
    key_module = sys.modules.get(_KEY_MODULE)
    return getattr(key_module, "SCANNED", {}).get(origin) if key_module is not None else None


_KEY_MODULE = __package__ + ".cache_key"


def _package_of(name: str) -> Optional[str]:
    top, dot, _ = name.partition(".")
    return top if dot and top in PACKAGES else None


class _HeldLoader(SourceFileLoader):
    """A module's loader as the import system makes it, its code taken from the kept file instead of the `.pyc`."""

    def __init__(self, fullname: str, path: str, file: _File, row: tuple) -> None:
        super().__init__(fullname, path)
        self._held: Optional[tuple] = (file, row)

    def get_code(self, fullname: str) -> Any:
        held, self._held = self._held, None
        if fullname == self.name and held is not None:
            data = held[0].code(held[1])
            try:
                code = marshal.loads(data) if data is not None else None
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
        import_states.STATES[path] = _state(st)  # (as import_states.RecordingLoader keeps it)
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
        file = _KEPT.file(package)
        row = file.index.get(name)
        if row is not None:
            origin, is_package = row[0], row[1]
            where = os.path.dirname(origin)
            if is_package:
                where = os.path.dirname(where)
            if where in path and (_scanned(origin) == row[2] or _fresh(row)):
                import_states.STATES[origin] = row[2]  # (the state of the source the served code was made from)
                spec = ModuleSpec(name, _HeldLoader(name, origin, file, row), origin=origin, is_package=is_package)
                if is_package:
                    spec.submodule_search_locations = [os.path.dirname(origin)]
                spec.has_location = True
                return spec
        spec = PathFinder.find_spec(name, path, target)
        if spec is not None and type(spec.loader) in _PLAIN_LOADERS and spec.origin == spec.loader.path:
            spec.loader = _RecordingLoader(spec.loader.name, spec.loader.path)
        return spec

    @staticmethod
    def invalidate_caches() -> None:
        pass


_FINDER = _Finder()
_PLAIN_LOADERS = (SourceFileLoader, import_states.RecordingLoader)  # (the import system's, or the library's own finders')


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
            try:
                _KEPT.write()
            finally:
                _KEPT.close()
