"""Making a cache entry (a miss): generation with the collector paused, atomic publication, the memory fallback,
and the entry's compiled code.

A warm hit never loads this module (cache.py reads and checks entries); a miss has just cost a
derivation, next to which importing it is little (one module, not two: a first gradient pays each).

An entry's compiled code is kept beside it so that a warm hit does not compile the module again:
compiling a generated module costs more than everything else a process pays to use a cached
derivative (reading, checking, executing it), so the code object is stored, marshalled, in a
dot-named file beside the entry (`cache.code_name`, written by `store_code`).  It is trusted exactly
as far as the entry is: it is read with the same checks (ours, private, no symlink), and used only if
its stamp matches a digest of the entry text that was *just checked* (plus the interpreter's bytecode
magic and the file name the code reports in tracebacks).  Anything else (missing, refused, stale,
truncated, another Python) is a silent miss: the text is compiled, as without this file, and the
compiled form rewritten.  Eviction removes it with its entry and removes any whose entry is gone
(`cache_evict`).  Reading it is in cache.py (`load_code`, what a warm hit runs).
"""
from __future__ import annotations

import gc
import json
import linecache
import marshal
import os
import sys
import types
from typing import Callable, Optional

from . import cache, import_states
from .cache import DIGEST_LINE, KEY_LINE, _NOFOLLOW, _Dir, _execute, _remember_lines, _warn_once, code_name, code_stamp
from .cache_key import _ROOT, _library_digest, folder_state, listing_digest
from .digests import hasher


def with_header(key: str, meta: dict, body: str) -> str:
    first = f"{KEY_LINE}{key} {json.dumps(meta, sort_keys=True, separators=(',', ':'))}"
    digest = hasher((first + "\n" + body).encode()).hexdigest()
    return f"{first}\n{DIGEST_LINE}{digest}\n{body}"


def make_entry(d: _Dir, key: str, name: str, path: str, modname: str, stem: str,
               generate: Callable[[], tuple[str, dict]]) -> tuple[types.ModuleType, dict]:
    """Generate entry `name` of directory `d` for `key`, publish it, and run it (in memory if it cannot be written)."""
    note_folders()  # (as they are before the generation runs: a name added meanwhile is a change)
    body, meta = _generate(generate)
    reference = publish_record(d, library_record())  # (what of the library ran: a hit checks it, cache._library_holds)
    if reference is None:
        return in_memory(key, stem, lambda: (body, meta), modname)
    meta = {**meta, "library": reference}
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


def library_record() -> dict:
    """What of the library a generation that has just ended ran, for the new entry's header: every module of
    the package this process has loaded, by folder (`files`: `{"reverse": "adjoints.py ...", ...}`), a digest
    of their files' states (`digest`: cache_key._library_digest), and their folders' states (`folders`).

    A module not loaded ran no code, so nothing the entry says depends on it; every module that ran is
    loaded (the library imports its modules by name, never by listing a folder), and the state of one
    loaded is the state it was imported with (import_states.py), the code that ran even where the file has
    changed since.  A name added where a loaded one is (a package or an extension module shadowing a module
    of the same name) changes the folder: its time and inode, and the digest of its names, are kept too
    (`folders`: a hit compares the names where the time has moved, as the first bytecode written there moves it)."""
    package = __package__ or "mooncake_ast"
    inside = _ROOT + os.sep
    within = package + "."
    found = [getattr(m, "__file__", None) for n, m in list(sys.modules.items())
             if n.startswith(within) or n == package]
    folders: dict = {}
    for file in sorted({f[len(inside):] for f in found
                        if type(f) is str and f.startswith(inside) and f.endswith(".py")}):
        folder, _, base = file.rpartition(os.sep)
        folders.setdefault(folder, []).append(base)
    files = {folder: " ".join(names) for folder, names in sorted(folders.items())}
    where = {folder: os.path.join(_ROOT, folder) if folder else _ROOT for folder in files}
    return {"digest": _library_digest(files), "files": files,
            "folders": {folder: [*folder_state(path), listing_digest(path)] for folder, path in where.items()}}


def publish_record(d: _Dir, record: dict) -> Optional[str]:
    """Write `record` (library_record's) as the file `cache.record_name(<its digest>)` of `d`, before the entry
    that names it, and give the digest (None where it cannot be written: warned once, as an entry would be).
    Its name is its content's digest, so processes writing the same record at once write the same bytes (each
    atomically).  Where the file holds those bytes already it is not written again (a write cost a miss 0.7 ms on
    the project's machine, a read 0.01), only its time is moved (cache_evict.drop_unused_records leaves a record
    written or used in the last minute alone); a file removed or damaged meanwhile is written again."""
    data = json.dumps(record, sort_keys=True, separators=(",", ":")).encode()
    digest = hasher(data).hexdigest()
    name = cache.record_name(digest)
    status, info = cache.read_bytes(d, name)
    if status == "ok" and info[0] == data:  # type: ignore[index]
        cache._touch(d, name)
        return digest
    e = write_atomic(d, name, data)
    if e is None:
        return digest
    _warn_once("unwritable", f"mooncake_ast: cannot write to the cache {d.path} ({e.strerror or e}); "
                             "keeping derivatives in memory")
    return None


def note_folders() -> None:
    """The state and names of each folder of the library's imported modules, kept (cache_key._FOLDERS, _LISTINGS)
    before a generation runs, for its library record: a name added to one while it ran makes the entry stale."""
    inside = _ROOT + os.sep
    for folder in {os.path.dirname(f) for f in list(import_states.STATES) if f.startswith(inside)}:
        folder_state(folder)
        listing_digest(folder)


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


def store_code(d: _Dir, entry: str, filename: str, text: str, code: types.CodeType) -> None:
    """Keep `code` (compiled from `text`) as entry `entry`'s compiled form; failures are ignored."""
    try:
        data = code_stamp(filename, text) + marshal.dumps(code)
    except ValueError:
        return
    write_atomic(d, code_name(entry), data)


_PAUSE: list = [0, False]  # generations in progress (under GENERATION_LOCK), whether the outermost disabled the collector


class _CollectorPaused:
    """Around a generation: the cyclic garbage collector does not run.

    A generation makes many objects that live as long as it does (the syntax tree, the IR, its
    analyses), so the collector's passes, which walk every object not yet collected, keep
    finding the same survivors, and its full passes grow with the size of the function and fall
    due more often the larger it is: 0.66 of 3.15 s for a 1000-branch elif chain on the project's
    machine, 0.2 s once the generation's objects are looked at after it instead (a small
    function's derivation costs the same either way, about 1 ms).  Cyclic garbage made meanwhile
    waits until the generation ends, other threads' too (the 1000-branch chain's peak memory
    grew by 2%).  Nothing the user froze or disabled changes; nested generations pause it once.
    (Freezing what existed before, as this did first, still left the passes over the generation's
    own objects.)"""

    __slots__ = ()

    def __enter__(self) -> None:
        if _PAUSE[0] == 0:
            _PAUSE[1] = gc.isenabled()
            if _PAUSE[1]:
                gc.disable()
        _PAUSE[0] += 1

    def __exit__(self, *exc: object) -> None:
        _PAUSE[0] -= 1
        if _PAUSE[0] == 0 and _PAUSE[1]:
            _PAUSE[1] = False
            gc.enable()


def _generate(generate: Callable[[], tuple[str, dict]]) -> tuple[str, dict]:
    """`generate()`, with the collector paused, and the library's modules a first generation imports and
    the dataclasses made meanwhile (libcst's and our lowering modules') from code kept in the cache
    (cache_modules, cache_classes)."""
    from .cache_classes import KeptCode
    from .cache_modules import KeptModules

    with _CollectorPaused(), KeptModules(), KeptCode():
        return generate()



def in_memory(key: str, stem: str, generate: Callable[[], tuple[str, dict]], modname: str) -> tuple[types.ModuleType, dict]:
    body, meta = _generate(generate)
    filename = f"<mooncake_ast {stem}>"
    text = with_header(key, meta, body)
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    module = _execute(body, filename, modname, text)
    cache._memory[key] = (module, meta)  # (through the module: tests replace the dict)
    return module, meta

