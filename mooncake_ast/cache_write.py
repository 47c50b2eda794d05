"""Making a cache entry (a miss): generation with the collector paused, atomic publication, the memory fallback.

A warm hit never loads this module (cache.py reads and checks entries); a miss has just cost a
derivation, next to which importing it is nothing.
"""
from __future__ import annotations

import gc
import hashlib
import json
import linecache
import os
import types
from typing import Callable, Optional

from . import cache
from .cache import DIGEST_LINE, KEY_LINE, _NOFOLLOW, _Dir, _execute, _remember_lines, _warn_once


def with_header(key: str, meta: dict, body: str) -> str:
    first = f"{KEY_LINE}{key} {json.dumps(meta, sort_keys=True, separators=(',', ':'))}"
    digest = hashlib.sha256((first + "\n" + body).encode()).hexdigest()
    return f"{first}\n{DIGEST_LINE}{digest}\n{body}"


def make_entry(d: _Dir, key: str, name: str, path: str, modname: str, stem: str,
               generate: Callable[[], tuple[str, dict]]) -> tuple[types.ModuleType, dict]:
    """Generate entry `name` of directory `d` for `key`, publish it, and run it (in memory if it cannot be written)."""
    body, meta = _generate(generate)
    text = with_header(key, meta, body)
    if not _publish(d, name, text):
        return in_memory(key, stem, lambda: (body, meta), modname)
    try:
        _remember_lines(path, text, d.lstat(name))
    except OSError:
        pass
    from .cache_evict import after_publish

    after_publish(d, name, meta.get("source") if isinstance(meta.get("source"), str) else None)
    module = _execute(body, path, modname, text, d, name)
    cache._memory[key] = (module, meta)  # (through the module: tests replace the dict)
    return module, meta


def _publish(d: _Dir, name: str, text: str) -> bool:
    """Write `text` as entry `name`: a private temporary file, then an atomic rename."""
    e = write_atomic(d, name, text.encode("utf-8"))
    if e is None:
        return True
    _warn_once("unwritable", f"mooncake_ast: cannot write to the cache {d.path} ({e.strerror or e}); "
                             "keeping derivatives in memory")
    return False


def write_atomic(d: _Dir, name: str, data: bytes) -> Optional[OSError]:
    """Write `data` as file `name` (a private temporary file, then an atomic rename); the error, if any."""
    tmp = f".tmp-{os.getpid()}-{os.urandom(6).hex()}.py"
    try:
        fd = d.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        d.replace(tmp, name)
        return None
    except OSError as e:
        try:
            d.unlink(tmp)
        except OSError:
            pass
        return e


_PAUSE: list = [0, None]  # generations in progress (under GENERATION_LOCK), how the outermost paused the collector


class _CollectorPaused:
    """Around a generation: the cyclic garbage collector leaves the objects that existed before it alone.

    A first derivation follows large imports (libcst's node classes, our lowering modules), so
    the collector's full passes, which walk every object the process holds, fall due while it
    runs: a third of a small derivation's time.  `gc.freeze()` sets what exists aside for the
    collector (collections still run, over the objects the derivation makes) and `gc.unfreeze()`
    gives it all back afterwards, so nothing is kept that would have been collected.  Where the
    user has frozen objects (their unfreeze must stay theirs) the collector is disabled instead;
    where it is disabled already, nothing changes.  Nested generations pause it once."""

    __slots__ = ()

    def __enter__(self) -> None:
        if _PAUSE[0] == 0:
            how = None
            if gc.isenabled():
                if gc.get_freeze_count() == 0:
                    gc.freeze()
                    how = "freeze"
                else:
                    gc.disable()
                    how = "disable"
            _PAUSE[1] = how
        _PAUSE[0] += 1

    def __exit__(self, *exc: object) -> None:
        _PAUSE[0] -= 1
        if _PAUSE[0] == 0:
            how, _PAUSE[1] = _PAUSE[1], None
            if how == "freeze":
                gc.unfreeze()
            elif how == "disable":
                gc.enable()


def _generate(generate: Callable[[], tuple[str, dict]]) -> tuple[str, dict]:
    """`generate()`, with the collector paused and the dataclasses made meanwhile (libcst's and our
    lowering modules', imported by a first generation) from code kept in the cache (cache_classes)."""
    from .cache_classes import KeptCode

    with _CollectorPaused(), KeptCode():
        return generate()



def in_memory(key: str, stem: str, generate: Callable[[], tuple[str, dict]], modname: str) -> tuple[types.ModuleType, dict]:
    body, meta = _generate(generate)
    filename = f"<mooncake_ast {stem}>"
    text = with_header(key, meta, body)
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    module = _execute(body, filename, modname, text)
    cache._memory[key] = (module, meta)  # (through the module: tests replace the dict)
    return module, meta

