"""Signatures of simple builtins read without `inspect`'s parser (issue 11: a first gradient in milliseconds).

`inspect.signature(operator.add)` reads the builtin's `__text_signature__` (`"($module, a, b, /)"`) by tokenizing
it, and the first use of `tokenize` in a process compiles its token pattern: 2-6 ms, paid by the first gradient
of nearly every function (binding `x + y` asks the signature of `operator.add`, call_binding._signature).  A
text signature made only of parameter names, `/` and a bare `*` is read here instead, into the same
`inspect.Signature` (tests/test_text_signatures.py compares the two on every such builtin of `builtins`,
`operator`, `math` and `cmath`); anything else (defaults, `*args`, `$self`) is None, for `inspect` to read.
"""
from __future__ import annotations

import inspect
import keyword
import types
from typing import Any, Optional

_KINDS = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def simple_text_signature(fn: Any) -> Optional[inspect.Signature]:
    """The signature of module-level builtin function `fn` if its text signature is only names, `/` and `*`."""
    if type(fn) is not types.BuiltinFunctionType or not isinstance(getattr(fn, "__self__", None), types.ModuleType):
        return None
    return read_simple_text(fn.__text_signature__)


def read_simple_text(text: Any) -> Optional[inspect.Signature]:
    """A module-level builtin's text signature (`"($module, a, b, /)"`) as `inspect` reads it, if it is only names,
    `/` and a bare `*`; else None."""
    if not isinstance(text, str) or not text.startswith("($module") or not text.endswith(")"):
        return None
    parts = [p.strip() for p in text[1:-1].split(",")]
    if parts[0] != "$module":
        return None
    names = parts[1:]
    if names and names[-1] == "":  # (a trailing comma)
        return None
    slash = names.index("/") if "/" in names else -1
    star = names.index("*") if "*" in names else len(names)
    if names.count("/") > 1 or names.count("*") > 1 or (slash >= 0 and slash > star) or star == len(names) - 1:
        return None
    params = []
    for i, name in enumerate(names):
        if name in ("/", "*"):
            continue
        if not name.isidentifier() or keyword.iskeyword(name):
            return None
        kind = _KINDS[0] if i < slash else _KINDS[2] if i > star else _KINDS[1]
        params.append(inspect.Parameter(name, kind))
    return inspect.Signature(params)
