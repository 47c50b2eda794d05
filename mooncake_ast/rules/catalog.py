"""What the registry holds, as rows for people: qualified name and modes of every rule.

Used by `mooncake-ast rules`, the generated docs page and the registry-driven tests.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from ..errors import qualified_name
from .registry import Rule, all_rules


class Entry(NamedTuple):
    name: str  # e.g. "numpy.sin", "numpy.ndarray.sum", "math.exp"
    modes: tuple  # subset of ("forward", "reverse"); ("zero",) for zero-derivative callables
    key: Any
    rule: Rule


def entry_name(key: Any) -> str:
    if isinstance(key, tuple):
        cls, name = key
        mod = "numpy" if cls.__module__.startswith("numpy") else cls.__module__
        return f"{mod}.{cls.__qualname__}.{name}" if mod != "builtins" else f"{cls.__qualname__}.{name}"
    return qualified_name(key)


def catalog() -> list[Entry]:
    out = []
    for key, rule in all_rules().items():
        if rule.zero:
            modes: tuple = ("zero",)
        else:
            modes = tuple(m for m, ok in (("forward", rule.jvp is not None or rule.user_frule is not None),
                                          ("reverse", rule.vjp is not None or rule.user_rrule is not None)) if ok)
        out.append(Entry(entry_name(key), modes, key, rule))
    return sorted(out, key=lambda e: e.name)


def format_catalog() -> str:
    """One line per callable: its qualified name and modes (`forward reverse`, or `zero`)."""
    rows = catalog()
    width = max((len(e.name) for e in rows), default=0)
    return "\n".join(f"{e.name:<{width}}  {' '.join(e.modes)}" for e in rows) + "\n"
