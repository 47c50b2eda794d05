"""An entry's compiled code, kept beside it so that a warm hit does not compile the module again.

Compiling a generated module costs more than everything else a process pays to use a cached
derivative (reading, checking, executing it), so the code object is stored, marshalled, in a
dot-named file beside the entry (`cache.code_name`).  It is trusted exactly as far as the
entry is: it is read with the same checks (ours, private, no symlink), and used only if its
stamp matches a digest of the entry text that was *just checked* (plus the interpreter's
bytecode magic and the file name the code reports in tracebacks).  Anything else (missing,
refused, stale, truncated, another Python) is a silent miss: the text is compiled, as without
this file, and the compiled form rewritten.  Eviction removes it with its entry and removes
any whose entry is gone (`cache_evict`).  Reading it is in cache.py (`load_code`, what a warm hit
runs); this module writes it.
"""
from __future__ import annotations

import marshal
import types

from .cache import _Dir, code_name, code_stamp as stamp, load_code as load  # noqa: F401  (reading: in cache.py)


def store(d: _Dir, entry: str, filename: str, text: str, code: types.CodeType) -> None:
    """Keep `code` (compiled from `text`) as entry `entry`'s compiled form; failures are ignored."""
    from .cache_write import write_atomic

    try:
        data = stamp(filename, text) + marshal.dumps(code)
    except ValueError:
        return
    write_atomic(d, code_name(entry), data)
