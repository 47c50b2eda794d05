"""The digest of the library's keys and checks: SHA-512 cut to 256 bits, without importing `hashlib`.

`import hashlib` loads OpenSSL's binding (about 3 ms on the project's machine) and even CPython's own
SHA-256 module is a library to load (0.5 ms): either was more than a third of a warm cache hit.
The standard library's `random`, which `import numpy` imports, loads CPython's SHA-512 module for its
seeds (so does `import libcst`), so its digests cost nothing to reach.  `hasher` gives the first 32
bytes of SHA-512 (a 256-bit digest, as the SHA-256 used before: the cache's digests keep their
lengths; not the standard SHA-512/256, whose initial values differ).  `hashlib` is the fallback where
CPython's module is missing (another interpreter).

`bulk_digest` is for the files of kept dataclass code (cache_classes): libcst's (750 kB) by CPython's
BLAKE2b (a 0.3 ms module to load), which digests it in 0.8 ms where SHA-512 takes 2.5; one under 256 kB
(the library's own, read by `import mooncake_ast`) by `hasher`, which costs no module.
"""
from __future__ import annotations

import importlib
import sys
from typing import Any

def _find_sha512() -> Any:
    for name in ("_sha512", "_sha2"):  # (CPython up to 3.11, from 3.12): the one `random` loaded, else either
        module = sys.modules.get(name)
        if module is not None:
            return module.sha512
    for name in ("_sha512", "_sha2"):  # (a failed import searches the whole path: only where none is loaded)
        try:
            return importlib.import_module(name).sha512
        except ImportError:
            pass
    from hashlib import sha512  # pragma: no cover  (depends on the interpreter)

    return sha512


_sha512 = _find_sha512()


class hasher:  # noqa: N801  (used like hashlib's constructors)
    """`hasher(data).hexdigest()`: 64 hex digits (32 bytes from `digest()`), like hashlib.sha256's."""

    __slots__ = ("_h",)

    def __init__(self, data: Any = b"") -> None:
        self._h = _sha512(data)

    def update(self, data: Any) -> None:
        self._h.update(data)

    def digest(self) -> bytes:
        return self._h.digest()[:32]

    def hexdigest(self) -> str:
        return self._h.hexdigest()[:64]


def bulk_digest(data: Any) -> bytes:
    """A 32-byte digest of `data`: BLAKE2b's from 256 kB on (where CPython's module is there), else `hasher`'s."""
    if len(data) < 1 << 18:
        return hasher(data).digest()
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover  (depends on the interpreter)
        return hasher(data).digest()
    return blake2b(data, digest_size=32).digest()
