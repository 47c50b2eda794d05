"""A fingerprint of all of the library's files: whether the library changed, for tests and tools.

Cache keys held it until each entry recorded the modules its generation ran and a hit checked only those
(cache_write.library_record / cache_key.library_holds); it is kept for whoever needs to know whether any file of the
library changed (tests that span processes run again where the library was edited meanwhile).
"""
from __future__ import annotations

import os
import sys
import time
from importlib.machinery import FileFinder
from typing import Any

from . import import_states
from .cache_key import _ROOT, SCANNED, _packed
from .digests import hasher

_LIBRARY: list = []
_SCAN_DIR = os.stat in os.supports_dir_fd and os.listdir in os.supports_fd and hasattr(os, "O_DIRECTORY")


def library_fingerprint() -> str:
    """The library's version and the state of its files (an edited checkout is a new library).

    Hashing every file's contents in every process would cost more than a warm gradient, so the
    state is each file's path, size, modification time (ns) and inode: one `stat` per file, once
    per process, but for the modules imported already, whose state the import system found
    (import_states.py: the state of the code in memory, which is what generation runs).  Editing, replacing or adding a file changes it; reinstalling identical files
    changes it too (the cache then regenerates once, never reuses a stale module).  (No cheaper
    test is sound: an edit in place changes the file's own times only, not its directory's.)
    """
    if not _LIBRARY:
        from . import __version__

        root = _ROOT
        names: list = [__version__, root]
        states: list = [0, 0, 0, 0, 0, 0]
        _scan(root, "", names, states)
        h = hasher("\0".join(names).encode())
        h.update(_packed(states))
        _LIBRARY.append(f"{__version__}:{h.hexdigest()}")
    return _LIBRARY[0]


def _scan(folder: str, rel: str, names: list, states: list) -> None:
    """Append the path of each .py file under `folder` to `names` and its size, mtime (ns) and inode
    to `states` (-1s where it cannot be read), in name order (subdirectories, except dot-named ones
    and __pycache__, after the files of their parent).

    The names are listed once per directory and each file not imported yet is stat'ed by its name relative
    to its open directory, with no per-file object but the stat (`scandir`'s entries cost more than the stats
    they save)."""
    fd = None
    try:
        if _SCAN_DIR:
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
            listed = sorted(_listed(folder, fd))
        else:
            listed = sorted(os.listdir(folder))
    except OSError:
        if fd is not None:
            os.close(fd)
        names.append(rel + "?")
        states += (-1, -1, -1)
        return
    subdirs = []
    stat = os.stat
    imported = import_states.STATES
    inside = folder + os.sep
    try:
        for name in listed:
            if name.endswith(".py"):
                names.append(rel + name)
                known = imported.get(inside + name)  # (as its module was imported: no stat, see import_states.py)
                if known is not None:
                    states += known
                    continue
                try:
                    st = stat(name, dir_fd=fd) if fd is not None else stat(os.path.join(folder, name))
                    known = SCANNED[inside + name] = (st.st_size, st.st_mtime_ns, st.st_ino)
                    states += known
                except OSError:
                    states += (-1, -1, -1)
            elif not name.startswith((".", "__pycache__")):
                try:  # (a directory, or a symlink to one, is scanned: as `os.scandir`'s is_dir() finds them)
                    st = stat(name, dir_fd=fd) if fd is not None else stat(os.path.join(folder, name))
                except OSError:
                    continue
                if (st.st_mode & 0o170000) == 0o040000:
                    subdirs.append(name)
    finally:
        if fd is not None:
            os.close(fd)
    for name in subdirs:
        _scan(os.path.join(folder, name), f"{rel}{name}/", names, states)


def _listed(folder: str, fd: int) -> Any:
    """The names in `folder` (open as `fd`): the import system's own listing where its finder for the folder
    holds one made at the folder's present modification time, older than two seconds (an entry added,
    removed or renamed since moves that time: a change within the same tick of a coarse clock could not, so a
    recent listing is not trusted), else `listdir` (a library directory imported from is listed once, not twice)."""
    finder = sys.path_importer_cache.get(folder)
    names = getattr(finder, "_path_cache", None)
    if type(names) is set and names and isinstance(finder, FileFinder) and not _CASE_FOLDED:
        try:
            mtime = os.fstat(fd).st_mtime
        except OSError:
            return os.listdir(fd)
        if mtime == getattr(finder, "_path_mtime", None) and time.time() - mtime > 2.0:
            return names
    return os.listdir(fd)


_CASE_FOLDED = sys.platform.startswith("win")  # (where the finder's names are not listdir's: suffixes lowered)
