"""Generated modules on disk: keyed by everything they depend on, published atomically,
validated before use, never executed from an unsafe place.

Each module is a real file (so tracebacks, `pdb`, `inspect` and IDEs show it) named
`<module>.<qualname>.<mode>.<hash>.py` in a per-user directory: the platform cache
directory (`$XDG_CACHE_HOME` or `~/.cache`, `~/Library/Caches`, `%LOCALAPPDATA%`) under
`mooncake_ast/<version>/`, so library versions coexist; `MOONCAKE_AST_CACHE_DIR` overrides.
Directories we create are 0700, files 0600.

* The key (computed by the generators from the function's source, options, the names
  the code resolves statically, every rule's fingerprint, the library and Python
  versions) decides the file name; nothing stale can be found under a new key.
* A file is written to a unique temporary name in the same directory and `os.replace`d
  into place, so no reader ever sees half a file.
* The first line holds the key and what the caller needs to use the module without
  regenerating it (`meta`, JSON); the second a digest (digests.hasher) of the first line and the body.
  What of the library the generation ran (kB of module names) is not in the entry: it names a shared
  record file by its digest (`record_name`), checked by a hit before the entry is used.
  The text is read once, checked, and the checked text is what is executed.  A missing,
  truncated, garbage or foreign entry is a miss: regenerated and replaced.
* Files or directories that another user owns, that group/others can write, or that are
  reached through a symlink are never executed: the module is regenerated in memory.
* An unusable location (read-only, no home directory, a path under a regular file)
  falls back to memory.  Each kind of problem is reported by at most one warning per
  process; differentiation always works.

This module is what a warm hit needs (finding, checking and running an entry); making an entry
is in cache_write.py and the `mooncake-ast cache` commands in cache_admin.py, loaded when needed.
"""
from __future__ import annotations

import errno
import json
import linecache
import marshal
import os
import re
import stat
import sys
import threading
import types
import warnings
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from typing import Callable, Optional

from .digests import hasher

KEY_LINE = "# mooncake_ast-key: "
DIGEST_LINE = "# mooncake_ast-digest: "
_warned: set[str] = set()
_memory: dict[str, tuple[types.ModuleType, dict]] = {}
# Held while a module is made or loaded (see GENERATION_LOCK's users in forward/ and reverse/runtime.py).
# Generation is pure Python (threads gain nothing by interleaving it), and Python 3.11's `ast`
# (`ast.literal_eval`, `inspect` on classes) is not safe to use from two threads at once
# ("AST constructor recursion depth mismatch"); one lock makes all of it one at a time.
GENERATION_LOCK = threading.RLock()
_ENTRY_PATTERN = r"^(?P<function>.+)\.(?P<mode>forward|reverse)\.(?P<hash>[0-9a-f]{16})\.py$"
_ENTRY_RE: list = []  # compiled when first needed (listing, eviction): a warm hit only builds one name
_HAS_UID = hasattr(os, "getuid")
_DIR_FD = os.open in os.supports_dir_fd and os.stat in os.supports_dir_fd and os.rename in os.supports_dir_fd \
    and hasattr(os, "O_DIRECTORY")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _entry_re() -> "re.Pattern[str]":
    if not _ENTRY_RE:
        _ENTRY_RE.append(re.compile(_ENTRY_PATTERN))
    return _ENTRY_RE[0]


_HEX = frozenset("0123456789abcdef")


def entry_parts(name: str) -> Optional[tuple[str, str, str]]:
    """(function, mode, hash) of an entry's name, as `ENTRY_RE` reads it (a miss's upkeep asks this of its
    own entry and of its function's others: no pattern to compile), else None."""
    if not name.endswith(".py") or "\n" in name:
        return None
    parts = name[:-3].rsplit(".", 2)
    if len(parts) != 3:
        return None
    function, mode, digest = parts
    if not function or mode not in ("forward", "reverse") or len(digest) != 16 or not _HEX.issuperset(digest):
        return None
    return function, mode, digest


# What making entries (cache_write) and the `mooncake-ast cache` commands (cache_admin) use, reachable
# from here as before: a warm hit loads neither module.
_ELSEWHERE = {"with_header": "cache_write", "write_atomic": "cache_write", "EntryInfo": "cache_admin",
              "list_entries": "cache_admin", "verify_entries": "cache_admin", "prune_entries": "cache_admin",
              "clear_entries": "cache_admin"}


def __getattr__(name: str) -> object:
    if name == "ENTRY_RE":  # `<module>.<qualname>.<mode>.<hash>.py`, the entries' names
        return _entry_re()
    if name in _ELSEWHERE:
        import importlib

        return getattr(importlib.import_module(f"{__package__}.{_ELSEWHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _warn_once(kind: str, message: str) -> None:
    if kind not in _warned:
        _warned.add(kind)
        warnings.warn(message, RuntimeWarning, stacklevel=4)


# ---------------------------------------------------------------- where


class NoCacheDirectory(Exception):
    """There is no place for a cache (no home directory)."""


def _home() -> Optional[str]:
    if os.name == "nt":
        return os.environ.get("LOCALAPPDATA") or os.environ.get("APPDATA")
    home = os.environ.get("HOME")
    if home is None:
        home = os.path.expanduser("~")
    if not home or not os.path.isabs(home) or home == "/":
        return None
    return home


def cache_root() -> Path:
    """The cache directory (which may not exist yet).  Raises NoCacheDirectory without a home."""
    return Path(_root_text())


def _root_text() -> str:
    """cache_root() as a string (a warm hit builds no Path: their first uses cost it ~0.05 ms)."""
    env = os.environ.get("MOONCAKE_AST_CACHE_DIR")
    if env:
        return os.path.abspath(os.path.expanduser(env))
    from . import __version__

    if os.name == "nt":
        base = _home()
        if base is None:
            raise NoCacheDirectory("neither LOCALAPPDATA nor APPDATA is set")
        return os.path.normpath(os.path.join(base, "mooncake_ast", "Cache", __version__))
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return os.path.normpath(os.path.join(xdg, "mooncake_ast", __version__))
    home = _home()
    if home is None:
        raise NoCacheDirectory("no home directory (HOME is unset or not an absolute path)")
    if sys.platform == "darwin":
        return os.path.normpath(os.path.join(home, "Library", "Caches", "mooncake_ast", __version__))
    return os.path.normpath(os.path.join(home, ".cache", "mooncake_ast", __version__))


def _unsafe(st: os.stat_result, what: str) -> Optional[str]:
    """Why a file or directory must not be trusted, or None."""
    if stat.S_ISLNK(st.st_mode):
        return f"{what} is a symlink"
    if _HAS_UID and st.st_uid != os.getuid():
        return f"{what} is owned by another user (uid {st.st_uid})"
    if os.name != "nt" and st.st_mode & 0o022:
        return f"{what} is writable by group or others (mode {stat.S_IMODE(st.st_mode):o})"
    return None


def _make_dirs(root: str) -> None:
    """Create root and any missing parents, each 0700."""
    missing = []
    p = root
    while not os.path.lexists(p):
        missing.append(p)
        parent = os.path.dirname(p)
        if parent == p:
            break
        p = parent
    for d in reversed(missing):
        try:
            os.mkdir(d, 0o700)
        except FileExistsError:
            pass


class _Dir:
    """The checked cache directory (a plain class: a dataclass costs a warm hit its creation)."""

    __slots__ = ("path", "fd")

    def __init__(self, path: str, fd: Optional[int]) -> None:
        self.path = path  # (a string)
        self.fd = fd  # an O_DIRECTORY descriptor (entries are opened relative to it), if supported

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    # Operations on entry names, relative to the directory we checked.
    def lstat(self, name: str) -> os.stat_result:
        if self.fd is not None:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        return os.lstat(os.path.join(self.path, name))

    def open(self, name: str, flags: int, mode: int = 0o600) -> int:
        if self.fd is not None:
            return os.open(name, flags, mode, dir_fd=self.fd)
        return os.open(os.path.join(self.path, name), flags, mode)

    def replace(self, src: str, dst: str) -> None:
        if self.fd is not None:
            os.replace(src, dst, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        else:
            os.replace(os.path.join(self.path, src), os.path.join(self.path, dst))

    def unlink(self, name: str) -> None:
        if self.fd is not None:
            os.unlink(name, dir_fd=self.fd)
        else:
            os.unlink(os.path.join(self.path, name))

    def names(self) -> list[str]:
        return sorted(os.listdir(self.fd if self.fd is not None else self.path))


def open_dir(create: bool = True, quiet: bool = False) -> Optional[_Dir]:
    """The cache directory, checked (ours, private, not a symlink); None: use memory (warned once)."""
    def unusable(kind: str, message: str) -> None:
        if not quiet:
            _warn_once(kind, f"mooncake_ast: {message}; keeping derivatives in memory")

    try:
        root = _root_text()
    except NoCacheDirectory as e:
        unusable("unusable", f"no cache directory ({e})")
        return None
    try:
        if create:
            _make_dirs(root)
        st = os.lstat(root)
    except OSError as e:
        if create or not isinstance(e, FileNotFoundError):
            unusable("unusable", f"cache directory {root} is unusable ({e.strerror or e})")
        return None
    if not stat.S_ISDIR(st.st_mode) and not stat.S_ISLNK(st.st_mode):
        unusable("unusable", f"cache directory {root} is not a directory")
        return None
    why = _unsafe(st, f"cache directory {root}")
    if why is not None:
        unusable("refused", f"refusing the cache: {why}")
        return None
    fd = None
    if _DIR_FD:
        try:
            fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW)
            st2 = os.fstat(fd)
        except OSError as e:
            unusable("unusable", f"cache directory {root} is unusable ({e.strerror or e})")
            return None
        if (st2.st_dev, st2.st_ino) != (st.st_dev, st.st_ino):  # swapped since we looked
            os.close(fd)
            unusable("refused", f"refusing the cache: {root} changed while being opened")
            return None
    return _Dir(root, fd)


# ---------------------------------------------------------------- entries


def parse_text(text: str) -> Optional[tuple[str, dict, str]]:
    """(key, meta, body) if `text` is a complete, intact entry, else None."""
    parts = text.split("\n", 2)
    if len(parts) != 3 or not parts[0].startswith(KEY_LINE) or not parts[1].startswith(DIGEST_LINE):
        return None
    first, digest_line, body = parts
    if hasher((first + "\n" + body).encode()).hexdigest() != digest_line[len(DIGEST_LINE):]:
        return None
    key, _, meta_text = first[len(KEY_LINE):].partition(" ")
    try:
        meta = json.loads(meta_text)
    except ValueError:
        return None
    if not isinstance(meta, dict):
        return None
    return key, meta, body


def check_text(text: str, key: str) -> Optional[tuple[dict, str]]:
    """(meta, body) if `text` is a complete entry for `key`, else None."""
    parsed = parse_text(text)
    if parsed is None or parsed[0] != key:
        return None
    return parsed[1], parsed[2]


def _read_entry(d: _Dir, name: str) -> tuple[str, object]:
    """("missing", None) | ("refused", reason) | ("invalid", reason) | ("ok", (text, stat))."""
    status, info = read_bytes(d, name)
    if status != "ok":
        return status, info
    data, st = info  # type: ignore[misc]
    try:
        return "ok", (data.decode("utf-8"), st)
    except UnicodeDecodeError:
        return "invalid", "not UTF-8 text"


def read_bytes(d: _Dir, name: str) -> tuple[str, object]:
    """A file of the directory, if it is safe to use: ("ok", (bytes, stat)), else as `_read_entry`."""
    status, info = open_checked(d, name)
    if status != "ok":
        return status, info
    fd, st = info  # type: ignore[misc]
    try:
        # Reads of the size fstat gave, plus one byte to see the end: a fixed 1 MiB buffer would be
        # allocated (mapped and unmapped) for a 5 kB entry, which costs a warm hit more than the read.
        chunks = []
        size = st.st_size + 1
        while True:
            chunk = os.read(fd, size)
            if not chunk:
                break
            chunks.append(chunk)
            size = 1 << 16  # (the file grew since fstat: what is left, in reasonable pieces)
        return "ok", (chunks[0] if len(chunks) == 1 else b"".join(chunks), st)
    except OSError as e:
        return "invalid", str(e)
    finally:
        os.close(fd)


def open_checked(d: _Dir, name: str) -> tuple[str, object]:
    """A file of the directory opened for reading, if it is safe to use: ("ok", (fd, stat of what was
    opened)), the caller closing the fd; else as `_read_entry`."""
    try:
        st = d.lstat(name)
    except FileNotFoundError:
        return "missing", None
    except OSError as e:
        return "invalid", str(e)
    why = _unsafe(st, "it")
    if why is None and not stat.S_ISREG(st.st_mode):
        why = "it is not a regular file"
    if why is not None:
        return "refused", why
    try:
        fd = d.open(name, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0))  # a FIFO swapped in must not block
    except OSError as e:
        return ("refused", "it is a symlink") if e.errno == errno.ELOOP else ("invalid", str(e))
    try:
        st = os.fstat(fd)  # the file actually opened
    except OSError as e:
        os.close(fd)
        return "invalid", str(e)
    why = _unsafe(st, "it")
    if why is None and not stat.S_ISREG(st.st_mode):
        why = "it is not a regular file"
    if why is not None:
        os.close(fd)
        return "refused", why
    return "ok", (fd, st)


def entry_stem(module: str, qualname: str, mode: str) -> str:
    """`<module>.<qualname>.<mode>`, with characters that do not belong in file names removed."""
    text = f"{module}.{qualname}".replace("<", "").replace(">", "")
    text = _only(text, _FILE_CHARS)[:150]
    return f"{text}.{mode}"


_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_FILE_CHARS = _NAME_CHARS | {".", "-"}


def _only(text: str, allowed: frozenset) -> str:
    """`text` with every character not in `allowed` replaced by "_" (no regular expression to
    compile on a warm hit)."""
    return "".join(c if c in allowed else "_" for c in text)


def _module_name(stem: str, key: str) -> str:
    return "mooncake_ast.generated." + _only(f"{stem}_{key[:16]}", _NAME_CHARS)


CODE_PREFIX = ".code-"  # an entry's compiled form (see cache_write.store_code): dot-named, like temporaries
CLASSES_PREFIX = ".dataclass-code-"  # libcst's dataclass methods, compiled (see cache_classes)
MODULES_PREFIX = ".module-code-"  # the library's modules that generation imports, compiled (see cache_modules)
RECORD_PREFIX = ".library-"  # library records (cache_write.library_record), named by their digest, shared by entries


def record_name(digest: str) -> str:
    """The file holding the library record whose digest is `digest` (an entry's `meta["library"]`).  The record
    (the names of the library's modules a generation ran, 5 kB) is kept out of the entry, whose first line
    users read (mc.source, an editor, a traceback): the entry names it by its digest, and one file serves every
    entry made with the same library state."""
    return RECORD_PREFIX + digest[:32]


def is_record_name(name: str) -> bool:
    return len(name) == len(RECORD_PREFIX) + 32 and name.startswith(RECORD_PREFIX) and \
        all(c in "0123456789abcdef" for c in name[len(RECORD_PREFIX):])


def code_name(entry: str) -> str:
    """The file holding entry `entry`'s compiled code: named by a digest of the entry's name (no
    mode or function in it, so nothing that lists entries by name mistakes it for one)."""
    return CODE_PREFIX + hasher(entry.encode()).hexdigest()[:24]


def is_code_name(name: str) -> bool:
    return len(name) == len(CODE_PREFIX) + 24 and name.startswith(CODE_PREFIX) and \
        all(c in "0123456789abcdef" for c in name[len(CODE_PREFIX):])


def _execute(body: str, filename: str, modname: str, text: str, d: Optional[_Dir] = None,
             name: Optional[str] = None) -> types.ModuleType:
    """Run a checked entry's body as a new module.  With the directory and entry name, its code
    object comes from (or goes to) the entry's compiled form (`cache_write.store_code`): compiling costs more
    than the rest of a warm hit."""
    module = types.ModuleType(modname)
    module.__file__ = filename
    module.__mooncake_ast_text__ = text  # type: ignore[attr-defined]  (what was checked and executed)
    code = None
    if d is not None and name is not None:
        code = load_code(d, name, filename, text)
    if code is None:
        code = compile(body_with_padding(body), filename, "exec", dont_inherit=True)
        if d is not None and name is not None:
            from .cache_write import store_code

            store_code(d, name, filename, text, code)
    exec(code, module.__dict__)
    return module


_STAMP = 32  # bytes of digests.hasher's digest


def code_stamp(filename: str, text: str) -> bytes:
    """What an entry's compiled form (cache_write.store_code) must say it was compiled from: this interpreter, this
    file, this text.  The text is named by its digest line, which the entry's check has just found to be the
    digest of the rest (hashing the whole text again cost a warm hit a fiftieth of a millisecond)."""
    start = text.find("\n") + 1
    end = text.find("\n", start) if start else -1
    named = text[start:end] if end > start and text.startswith(DIGEST_LINE, start) else text
    return hasher(MAGIC_NUMBER + b"\0" + filename.encode("utf-8", "surrogatepass") + b"\0"
                  + named.encode("utf-8")).digest()


def load_code(d: _Dir, entry: str, filename: str, text: str) -> Optional[types.CodeType]:
    """The compiled form of entry `entry` (whose checked text is `text`), or None where none is usable
    (here, not in cache_write: a warm hit reads it, and one module less to import is worth it)."""
    status, info = read_bytes(d, code_name(entry))
    if status != "ok":
        return None
    data = info[0]  # type: ignore[index]
    if data[:_STAMP] != code_stamp(filename, text):
        return None
    try:
        code = marshal.loads(data[_STAMP:])
    except (EOFError, ValueError, TypeError):
        return None
    if not isinstance(code, types.CodeType) or code.co_filename != filename:
        return None
    return code


def body_with_padding(body: str) -> str:
    """The body with its two header lines kept as blank lines, so line numbers match the file."""
    return "\n\n" + body


def load_module(key: str, stem: str, generate: Callable[[], tuple[str, dict]],
                accept: Optional[Callable[[dict], bool]] = None) -> tuple[types.ModuleType, dict]:
    """The generated module for `key` and its meta: from the cache if a valid entry exists, else
    `generate()` -> (body, meta), published.  `accept(meta)` re-validates what the entry assumed."""
    found = _memory.get(key)
    if found is not None:
        return found
    with GENERATION_LOCK:
        return _load_module(key, stem, generate, accept)


def _load_module(key: str, stem: str, generate: Callable[[], tuple[str, dict]],
                 accept: Optional[Callable[[dict], bool]]) -> tuple[types.ModuleType, dict]:
    found = _memory.get(key)  # another thread may have made it while this one waited
    if found is not None:
        return found
    modname = _module_name(stem, key)
    name = f"{stem}.{key[:16]}.py"
    d = open_dir()
    if d is None:
        from .cache_write import in_memory

        return in_memory(key, stem, generate, modname)
    try:
        status, info = _read_entry(d, name)
        path = os.path.join(d.path, name)
        if status == "ok":
            text, st = info  # type: ignore[misc]
            checked = check_text(text, key)
            if checked is not None and (accept is None or accept(checked[0])):
                if _library_holds(d, checked[0]):
                    meta, body = checked
                    _remember_lines(path, text, st)
                    _touch(d, name)
                    module = _execute(body, path, modname, text, d, name)
                    _memory[key] = (module, meta)
                    return module, meta
                status = "stale"  # (made by a library whose files have changed since: replaced, silently)
            else:
                status, info = "invalid", "bad header or digest"
        from .cache_write import in_memory, make_entry

        if status == "refused":
            _warn_once("refused", f"mooncake_ast: refusing cache entry {path} ({info}); regenerating it in memory")
            return in_memory(key, stem, generate, modname)
        if status == "invalid":
            _warn_once("invalid", f"mooncake_ast: cache entry {path} is invalid ({info}); regenerating it")
        return make_entry(d, key, name, path, modname, stem, generate)
    finally:
        d.close()


def _library_holds(d: _Dir, meta: dict) -> bool:
    """Has the library the state the entry's generation ran (cache_write.library_record, kept in the file
    `record_name(meta["library"])`)?  An entry that does not say, or whose record is gone, is not used."""
    from .cache_key import record_holds

    return record_holds(d, meta.get("library"))


def _touch(d: _Dir, name: str) -> None:
    """A hit refreshes the entry's mtime: the size cap removes the least recently used first."""
    try:
        if d.fd is not None and os.utime in os.supports_dir_fd:
            os.utime(name, dir_fd=d.fd)
        else:
            os.utime(os.path.join(d.path, name))
    except (OSError, NotImplementedError):
        pass


def _remember_lines(path: str, text: str, st: os.stat_result) -> None:
    """Tracebacks show, and a derivative of the module reads, the text that was checked and executed, for as long
    as the module lives: with no modification time, linecache.checkcache keeps the lines when the file is removed
    (the size cap evicts it, another process prunes it) or replaced; a derivative of a derivative read the file
    again and found nothing."""
    linecache.cache[path] = (st.st_size, None, text.splitlines(True), path)


def source_path(module: types.ModuleType) -> Optional[str]:
    f = getattr(module, "__file__", None)
    return f if f and os.path.exists(f) else None


def read_source(module: types.ModuleType) -> str:
    text = getattr(module, "__mooncake_ast_text__", None)
    if text is not None:
        return text
    return "".join(linecache.getlines(module.__file__))
