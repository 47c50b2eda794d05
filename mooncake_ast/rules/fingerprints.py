"""Process-independent descriptions of callables: a rule's fingerprint, and a callable's dotted name.

A cache key must change when a rule changes and stay the same in every process that
registers the same rule, so a rule's fingerprint is digested from what its callables
*do* (bytecode, constants, names, defaults, closure contents), never from their text
or their addresses.  Computed when first asked for, so registering the tables at import
stays cheap.  Apart from the registry because it is about describing code, not about
finding rules; `qualified` and `strip_addresses` name callables the same way for
messages and for cache keys (cache_key.py).
"""
from __future__ import annotations

import types
from typing import Any, Optional


class Fingerprint:
    """A rule's fingerprint, computed when first needed (registration at import stays cheap).

    Digested from what the callables *do*, not their text: bytecode, constants, names, defaults
    and closure contents (recursively for nested code and functions), so it is the same in every
    process and changes when a template changes, without reading any source file."""

    __slots__ = ("parts", "value")

    def __init__(self, parts: tuple) -> None:
        self.parts = parts
        self.value: Optional[str] = None

    def __str__(self) -> str:
        if self.value is None:
            from ..digests import hasher  # (here: a module fewer for `import mooncake_ast`)

            h = hasher()
            for p in self.parts:
                _digest_into(h, p, 0)
                h.update(b"\1")
            self.value = h.hexdigest()[:16]
            self.parts = ()
        return self.value

    __format__ = lambda self, spec: format(str(self), spec)  # noqa: E731
    __repr__ = __str__


def _fingerprint(*parts: Any) -> Fingerprint:
    return Fingerprint(parts)


def strip_addresses(text: str) -> str:
    """`text` without the memory addresses reprs show (" at 0x7f..."), which differ per process."""
    i = text.find(" at 0x")
    while i >= 0:
        j = i + 6
        while j < len(text) and text[j] in "0123456789abcdefABCDEF":
            j += 1
        text = text[:i] + text[j:]
        i = text.find(" at 0x", i)
    return text


def _digest_into(h: Any, obj: Any, depth: int) -> None:
    """Feed a process-independent description of `obj` into the hash `h`."""
    if depth > 6:
        h.update(b"...")
        return
    code = getattr(obj, "__code__", None)
    if isinstance(obj, types.CodeType):
        code, obj = obj, None
    if isinstance(code, types.CodeType):
        h.update(code.co_code)
        h.update(repr((code.co_names, code.co_varnames, code.co_freevars, code.co_argcount,
                       code.co_kwonlyargcount, code.co_flags)).encode())
        for c in code.co_consts:
            _digest_into(h, c, depth + 1)
        if obj is not None:
            for d in (getattr(obj, "__defaults__", None) or ()):
                _digest_into(h, d, depth + 1)
            for k, d in sorted((getattr(obj, "__kwdefaults__", None) or {}).items()):
                h.update(k.encode())
                _digest_into(h, d, depth + 1)
            for cell in (getattr(obj, "__closure__", None) or ()):
                try:
                    content = cell.cell_contents
                except ValueError:  # an empty cell
                    content = None
                _digest_into(h, content, depth + 1)
        return
    if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes)):
        h.update(repr(obj).encode())
    elif isinstance(obj, (tuple, list)):
        h.update(type(obj).__name__.encode())
        for x in obj:
            _digest_into(h, x, depth + 1)
    elif isinstance(obj, (set, frozenset, dict)):  # in an order that is the same in every process
        h.update(type(obj).__name__.encode())
        items = obj.items() if isinstance(obj, dict) else ((x, None) for x in obj)
        for k, v in sorted(items, key=lambda kv: repr(kv[0])):
            _digest_into(h, k, depth + 1)
            _digest_into(h, v, depth + 1)
    elif callable(obj) or isinstance(obj, (type, types.ModuleType)):
        h.update(strip_addresses(qualified(obj)).encode())
    else:
        h.update(strip_addresses(f"{type(obj).__qualname__}:{obj!r}")[:200].encode())
    h.update(b"\0")


def qualified(fn: Any) -> str:
    mod = getattr(fn, "__module__", None) or ""
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", repr(fn))
    return f"{mod}.{name}" if mod and mod != "builtins" else name
