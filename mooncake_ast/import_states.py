"""The state of each of the library's source files as this process imported it, for the cache's library checks.

A cache entry records the size, modification time and inode of the `.py` file of every module of
the library its generation ran, and a hit checks them (cache_write.library_record,
cache_key.library_holds): one `stat` per file in every process, the largest part of a warm cache
hit.  Yet the import system has already made that very `stat` for each module it loaded (to check
the module's `.pyc` against its source: `SourceFileLoader.path_stats`).  So the library's own
directories are imported through finders whose loader keeps what that `stat` found
(`STATES`, by source path), and the check asks the disk only for the files not imported yet.

Using the state a module was imported with is also the more exact answer for it: a derivative is
generated with the code in memory, which is what was imported then, even if the file has changed
since.  A module imported otherwise (before this module was, by another finder, from a hash-checked
`.pyc` that needs no `stat`) is simply not in `STATES`, and is `stat`-ed as before.
"""
from __future__ import annotations

import os
import sys
from importlib.machinery import BYTECODE_SUFFIXES, EXTENSION_SUFFIXES, SOURCE_SUFFIXES, ExtensionFileLoader, \
    FileFinder, SourceFileLoader, SourcelessFileLoader
from typing import Any

STATES: dict[str, tuple] = {}  # source path -> (size, mtime in ns, inode) when its module was loaded


class RecordingLoader(SourceFileLoader):
    """The import system's source loader, keeping the state of each source it checks a `.pyc` against."""

    def path_stats(self, path: str) -> dict:
        st = os.stat(path)
        STATES[path] = (st.st_size, st.st_mtime_ns, st.st_ino)
        return {"mtime": st.st_mtime, "size": st.st_size}


_DETAILS = ((ExtensionFileLoader, EXTENSION_SUFFIXES), (RecordingLoader, SOURCE_SUFFIXES),
            (SourcelessFileLoader, BYTECODE_SUFFIXES))  # (the import system's own order)


def _install(root: str) -> None:
    """Finders with the recording loader for `root` (the package's directory) and every directory under it
    (a path hook, for the subpackages' directories when they are first imported from)."""
    make = FileFinder.path_hook(*_DETAILS)
    inside = root.rstrip(os.sep) + os.sep

    def hook(path: str) -> Any:
        if path == root or path.startswith(inside):
            return make(path)
        raise ImportError("not a directory of mooncake_ast")

    hook.mooncake_ast_root = root  # type: ignore[attr-defined]
    if any(getattr(h, "mooncake_ast_root", None) == root for h in sys.path_hooks):
        return  # (imported again, e.g. after its module was removed from sys.modules)
    sys.path_hooks.insert(0, hook)
    found = sys.path_importer_cache.get(root)
    if found is None or type(found) is FileFinder:  # (the finder that imported this module: replaced)
        sys.path_importer_cache[root] = make(root)


def _imported_before() -> None:
    """The package's `__init__.py` and this file were imported before the recording finders were in place: their
    states, taken now (moments later), so that every module of the library has the state it was imported with."""
    for name in (__package__, __name__):
        file = getattr(sys.modules.get(name or ""), "__file__", None)
        if isinstance(file, str) and file.endswith(".py") and file not in STATES:
            try:
                st = os.stat(file)
            except OSError:
                continue
            STATES[file] = (st.st_size, st.st_mtime_ns, st.st_ino)


_package = sys.modules.get(__package__ or "")
for _root in list(getattr(_package, "__path__", None) or ()):
    if isinstance(_root, str) and os.path.isabs(_root) and os.path.isdir(_root):  # (not a zip file's path)
        _install(_root)
        _imported_before()
del _package
