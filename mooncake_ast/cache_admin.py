"""The derivative cache for people (`mooncake-ast cache list|verify|prune|clear`): listing, checking, removing entries."""
from __future__ import annotations

import os
import stat
import time

from .cache import (CLASSES_PREFIX, MODULES_PREFIX, NoCacheDirectory, _entry_re, _read_entry, _unsafe, cache_root,
                    is_code_name, is_record_name, open_dir, parse_text)
from .cache_evict import CAP_STATE


class EntryInfo:
    """One entry, as `mooncake-ast cache list` shows it."""

    __slots__ = ("name", "function", "mode", "size", "mtime")

    def __init__(self, name: str, function: str, mode: str, size: int, mtime: float) -> None:
        self.name, self.function, self.mode, self.size, self.mtime = name, function, mode, size, mtime

    def __repr__(self) -> str:
        return f"EntryInfo({self.name!r}, {self.function!r}, {self.mode!r}, {self.size}, {self.mtime})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EntryInfo) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    __hash__ = None  # type: ignore[assignment]  (mutable, like the dataclass it was)

    @property
    def age(self) -> str:
        s = max(0.0, time.time() - self.mtime)
        for unit, n in (("d", 86400), ("h", 3600), ("m", 60)):
            if s >= n:
                return f"{int(s // n)}{unit}"
        return f"{int(s)}s"


def list_entries() -> list[EntryInfo]:
    d = open_dir(create=False, quiet=True)
    if d is None:
        return []
    try:
        out = []
        for name in d.names():
            m = _entry_re().match(name)
            if m is None:
                continue
            try:
                st = d.lstat(name)
            except OSError:
                continue
            out.append(EntryInfo(name, m["function"], m["mode"], st.st_size, st.st_mtime))
        return out
    finally:
        d.close()


def verify_entries() -> tuple[int, list[str]]:
    """(number of entries, problems): each entry's permissions, header, key and digest."""
    try:
        root = cache_root()
    except NoCacheDirectory as e:
        return 0, [f"no cache directory: {e}"]
    try:
        st = os.lstat(root)
    except FileNotFoundError:
        return 0, []
    except OSError as e:
        return 0, [f"{root}: {e.strerror or e}"]
    why = _unsafe(st, "the directory") or (None if stat.S_ISDIR(st.st_mode) else "it is not a directory")
    if why is not None:
        return 0, [f"{root}: {why}"]
    d = open_dir(create=False, quiet=True)
    if d is None:
        return 0, [f"{root}: cannot be opened"]
    problems: list[str] = []
    count = 0
    try:
        for name in d.names():
            if name.startswith(".tmp-"):
                try:
                    old = time.time() - d.lstat(name).st_mtime > 3600  # younger: a writer may be at work
                except OSError:
                    old = False
                if old:
                    problems.append(f"{name}: leftover temporary file (a writer was interrupted)")
                continue
            m = _entry_re().match(name)
            if m is None:
                continue
            count += 1
            status, info = _read_entry(d, name)
            if status != "ok":
                problems.append(f"{name}: {'refused: ' if status == 'refused' else ''}{info}")
                continue
            parsed = parse_text(info[0])  # type: ignore[index]
            if parsed is None:
                problems.append(f"{name}: bad header or digest (truncated or modified)")
            elif not parsed[0].startswith(m["hash"]):
                problems.append(f"{name}: its key does not match its name")
        return count, problems
    finally:
        d.close()


def prune_entries() -> dict[str, list[str]]:
    """Remove superseded entries, stale temporary files and entries beyond the size cap (cache_evict)."""
    d = open_dir(create=False, quiet=True)
    if d is None:
        return {}
    try:
        from .cache_evict import prune

        return prune(d)
    finally:
        d.close()


def clear_entries() -> int:
    """Remove every entry and temporary file (only files named like ours), then the directory if empty."""
    d = open_dir(create=False, quiet=True)
    if d is None:
        return 0
    removed = 0
    try:
        for name in d.names():
            entry = _entry_re().match(name) is not None
            if entry or (name.startswith(".tmp-") and name.endswith(".py")) or is_code_name(name) or is_record_name(name) \
                    or name.startswith((CLASSES_PREFIX, MODULES_PREFIX)) or name == CAP_STATE:
                try:
                    d.unlink(name)
                    removed += entry or name.startswith(".tmp-")  # (compiled forms are part of their entry)
                except OSError:
                    pass
    finally:
        d.close()
    try:
        os.rmdir(d.path)
    except OSError:
        pass
    return removed
