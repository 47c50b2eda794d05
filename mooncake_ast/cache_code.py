"""An entry's compiled code, kept beside it so that a warm hit does not compile the module again.

Compiling a generated module costs more than everything else a process pays to use a cached
derivative (reading, checking, executing it), so the code object is stored, marshalled, in a
dot-named file beside the entry (`cache.code_name`).  It is trusted exactly as far as the
entry is: it is read with the same checks (ours, private, no symlink), and used only if its
stamp matches a digest of the entry text that was *just checked* (plus the interpreter's
bytecode magic and the file name the code reports in tracebacks).  Anything else (missing,
refused, stale, truncated, another Python) is a silent miss: the text is compiled, as without
this file, and the compiled form rewritten.  Eviction removes it with its entry and removes
any whose entry is gone (`cache_evict`).
"""
from __future__ import annotations

import hashlib
import marshal
import types
from importlib.util import MAGIC_NUMBER
from typing import Optional

from .cache import _Dir, code_name, read_bytes

_STAMP = 32  # bytes of SHA-256


def stamp(filename: str, text: str) -> bytes:
    """What the compiled form must say it was compiled from: this interpreter, this file, this text."""
    return hashlib.sha256(MAGIC_NUMBER + b"\0" + filename.encode("utf-8", "surrogatepass") + b"\0"
                          + text.encode("utf-8")).digest()


def load(d: _Dir, entry: str, filename: str, text: str) -> Optional[types.CodeType]:
    """The code of entry `entry` (whose checked text is `text`), or None where none is usable."""
    status, info = read_bytes(d, code_name(entry))
    if status != "ok":
        return None
    data = info[0]  # type: ignore[index]
    if data[:_STAMP] != stamp(filename, text):
        return None
    try:
        code = marshal.loads(data[_STAMP:])
    except (EOFError, ValueError, TypeError):
        return None
    if not isinstance(code, types.CodeType) or code.co_filename != filename:
        return None
    return code


def store(d: _Dir, entry: str, filename: str, text: str, code: types.CodeType) -> None:
    """Keep `code` (compiled from `text`) as entry `entry`'s compiled form; failures are ignored."""
    from .cache_write import write_atomic

    try:
        data = stamp(filename, text) + marshal.dumps(code)
    except ValueError:
        return
    write_atomic(d, code_name(entry), data)
