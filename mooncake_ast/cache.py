"""Generated modules on disk: content-addressed, published atomically, validated before use.

Each module is a real file (so tracebacks, `pdb`, `inspect` and IDEs show
it) named `<module>.<qualname>.<mode>.<hash>.py` in a per-user directory
(`MOONCAKE_AST_CACHE_DIR` overrides).  A file is written to a unique
temporary name and `os.replace`d into place, so no reader ever sees half a
file.  Its header carries the key and a digest of the body; the text is read
once, checked, and the checked bytes are what is executed.  Files or
directories that another user owns, that group/others can write, or that are
reached through a symlink are never executed; an unusable directory falls
back to memory with one warning.
"""
from __future__ import annotations

import hashlib
import linecache
import os
import stat
import sys
import tempfile
import types
import warnings
from pathlib import Path
from typing import Callable, Optional

KEY_LINE = "# mooncake_ast-key: "
DIGEST_LINE = "# mooncake_ast-digest: "
_warned: set[str] = set()
_memory: dict[str, types.ModuleType] = {}


def _warn_once(kind: str, message: str) -> None:
    if kind not in _warned:
        _warned.add(kind)
        warnings.warn(message, RuntimeWarning, stacklevel=3)


def cache_root() -> Path:
    env = os.environ.get("MOONCAKE_AST_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    from . import __version__

    return Path(base) / "mooncake_ast" / __version__


def _safe_dir(path: Path) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        return False
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return False
    return not (st.st_mode & 0o022)


def usable_dir() -> Optional[Path]:
    """The cache directory, created 0700 if needed; None (memory only) if it cannot be used safely."""
    root = cache_root()
    try:
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as e:
        _warn_once("unwritable", f"mooncake_ast: cache directory {root} is unusable ({e}); keeping derivatives in memory")
        return None
    if not _safe_dir(root):
        _warn_once("unsafe", f"mooncake_ast: cache directory {root} is not a private directory of this user; keeping derivatives in memory")
        return None
    if not os.access(root, os.W_OK):
        _warn_once("unwritable", f"mooncake_ast: cache directory {root} is not writable; keeping derivatives in memory")
        return None
    return root


def with_header(key: str, body: str) -> str:
    digest = hashlib.sha256(body.encode()).hexdigest()
    return f"{KEY_LINE}{key}\n{DIGEST_LINE}{digest}\n{body}"


def check_text(text: str, key: str) -> Optional[str]:
    """The body if `text` is a complete module for `key`, else None."""
    lines = text.split("\n", 2)
    if len(lines) != 3 or lines[0] != KEY_LINE + key or not lines[1].startswith(DIGEST_LINE):
        return None
    body = lines[2]
    if hashlib.sha256(body.encode()).hexdigest() != lines[1][len(DIGEST_LINE):]:
        return None
    return body


def _read_trusted(path: Path) -> Optional[str]:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()) or st.st_mode & 0o022:
            _warn_once("refused", f"mooncake_ast: refusing cache entry {path} (not owned by you or writable by others)")
            return None
        with os.fdopen(fd, "r", encoding="utf-8", closefd=False) as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None
    finally:
        os.close(fd)


def _publish(directory: Path, path: Path, text: str) -> bool:
    try:
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".py", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.chmod(tmp, 0o600)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        return True
    except OSError as e:
        _warn_once("unwritable", f"mooncake_ast: cannot write to the cache ({e}); keeping derivatives in memory")
        return False


def _execute(body: str, filename: str, modname: str) -> types.ModuleType:
    module = types.ModuleType(modname)
    module.__file__ = filename
    code = compile(body_with_padding(body), filename, "exec")
    exec(code, module.__dict__)
    return module


def body_with_padding(body: str) -> str:
    """The body with its two header lines kept as blank lines, so line numbers match the file."""
    return "\n\n" + body


def load_module(key: str, name: str, generate: Callable[[], str]) -> types.ModuleType:
    """The generated module for `key`: from the cache if a valid entry exists, else generated now."""
    if key in _memory:
        return _memory[key]
    filename_stem = f"{name}.{key[:16]}"
    modname = "mooncake_ast.generated." + filename_stem.replace(".", "_").replace("-", "_")
    directory = usable_dir()
    if directory is not None:
        path = directory / f"{filename_stem}.py"
        text = _read_trusted(path) if os.path.lexists(path) else None
        body = check_text(text, key) if text is not None else None
        if body is None and text is not None:
            _warn_once("invalid", f"mooncake_ast: regenerating invalid cache entry {path}")
        if body is None:
            body = generate()
            full = with_header(key, body)
            if not _publish(directory, path, full):
                return _in_memory(key, name, body, modname)
        linecache.checkcache(str(path))
        module = _execute(body, str(path), modname)
        _memory[key] = module
        return module
    return _in_memory(key, name, generate(), modname)


def _in_memory(key: str, name: str, body: str, modname: str) -> types.ModuleType:
    filename = f"<mooncake_ast {name}>"
    text = with_header(key, body)
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    module = _execute(body, filename, modname)
    _memory[key] = module
    return module


def source_path(module: types.ModuleType) -> Optional[str]:
    f = getattr(module, "__file__", None)
    return f if f and os.path.exists(f) else None


def read_source(module: types.ModuleType) -> str:
    f = module.__file__
    lines = linecache.getlines(f)
    return "".join(lines)


def clear_memory() -> None:
    _memory.clear()
