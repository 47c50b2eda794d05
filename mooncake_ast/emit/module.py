"""Assemble a generated module: header, imports, one function per IR.

Imports use conventional aliases (`operator`, `math`, `np`, `_mc` for our
runtime) unless the user function mentions that name for something else,
in which case the alias gets a trailing underscore.  The header says what the
module was generated from and that it must not be edited.
"""
from __future__ import annotations

import builtins
import importlib
import os
import sys
import types
from typing import Any, Iterable, Optional

from .. import runtime
from ..ir.nodes import Function, Param, Stmt, Value
from ..tangents import NoTangent
from .layout import format_nodes
from .names import assign_names, fresh
from .planning import _user_named
from .structure import StructuredEmitter

RUNTIME_MODULES = ("mooncake_ast.ops", "mooncake_ast.runtime")
CANONICAL_ALIAS = {"numpy": "np", "numpy.linalg": "la", "operator": "operator", "math": "math", "builtins": "builtins"}
_MISSING = object()


class ModuleWriter:
    """Collects imports and functions, then renders the module text."""

    def __init__(self, reserved: set[str], user_globals: dict[str, Any], user_locals: Iterable[str] = ()) -> None:
        self.reserved = set(reserved)
        self.user_locals = set(user_locals)
        self.user_globals = user_globals
        self.aliases: dict[str, str] = {}  # module name -> alias
        self.shared: set[str] = set()  # aliases that are the user's own global for the same module
        self.functions: list[str] = []
        self.header: list[str] = []
        self.last_names: dict = {}

    # ------------------------------------------------------------ names of callables
    def module_alias(self, modname: str) -> str:
        if modname in self.aliases:
            return self.aliases[modname]
        if modname in RUNTIME_MODULES:
            want = "_mc"
            modname = "mooncake_ast.runtime"
            if modname in self.aliases:
                return self.aliases[modname]
        else:
            want = CANONICAL_ALIAS.get(modname, modname.rsplit(".", 1)[-1])
        module = importlib.import_module(modname)
        alias = want
        if want in self.reserved:
            if self.user_globals.get(want, _MISSING) is module:
                self.shared.add(want)  # the user's own `np` is numpy: use it as the user code does
            else:
                alias = fresh(want + "_", self.reserved | set(self.aliases.values()))
        self.aliases[modname] = alias
        return alias

    def helper_params(self) -> list[str]:
        """Keyword-only parameters that hand our imports to a function run in the user's globals."""
        return [f"{a}={a}" for m, a in sorted(self.aliases.items(), key=lambda kv: kv[1]) if a not in self.shared]

    def qualify(self, fn: Any) -> str:
        """An expression that evaluates to the callable `fn` inside the generated module."""
        if fn is NoTangent:
            return f"{self.module_alias('mooncake_ast.runtime')}.NoTangent"
        if isinstance(fn, types.ModuleType) and sys.modules.get(fn.__name__) is fn:
            return self.module_alias(fn.__name__)  # (a module a parameter stood for: reverse/transform.py)
        mod = getattr(fn, "__module__", None)
        qual = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
        if isinstance(fn, types.BuiltinFunctionType) and getattr(fn, "__self__", None) is not None and not isinstance(fn.__self__, types.ModuleType):
            # e.g. dict.fromkeys: a method bound to a class
            owner = fn.__self__
            return f"{self.qualify(owner)}.{fn.__name__}"
        if mod is None and isinstance(fn, type(len)):
            mod = "builtins"
        if mod in ("builtins",) or (mod is None and hasattr(builtins, str(qual))):
            name = qual or repr(fn)
            root = name.split(".")[0]
            if root in self.user_globals or root in self.user_locals:
                return f"{self.module_alias('builtins')}.{name}"
            return name
        if mod == "_operator":
            mod = "operator"
        if mod and mod.startswith("mooncake_ast"):
            if runtime.holds(fn):
                return f"{self.module_alias('mooncake_ast.runtime')}.{fn.__name__}"
        if mod and mod.startswith("numpy") and hasattr(fn, "nin"):
            mod = "numpy"  # ufuncs report numpy as their module
        if mod is None or qual is None or "<locals>" in qual:
            raise ValueError(f"cannot refer to {fn!r} from generated code")
        return f"{self.module_alias(mod)}.{qual}"

    # ------------------------------------------------------------ rendering
    def add_function(self, text: str) -> None:
        self.functions.append(text)

    def render(self) -> str:
        lines = list(self.header)
        for modname, alias in sorted(self.aliases.items()):
            if alias in self.shared:
                continue
            last = modname.rsplit(".", 1)
            if alias == modname:
                lines.append(f"import {modname}")
            elif len(last) == 2 and alias == last[1]:
                lines.append(f"from {last[0]} import {last[1]}")
            else:
                lines.append(f"import {modname} as {alias}")
        lines.append("")
        for f in self.functions:
            lines += ["", f.rstrip("\n"), ""]
        return "\n".join(lines).rstrip("\n") + "\n"


_LEADING = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")


def _reads_name(text: str, name: str) -> bool:
    """Is `name` one of the words `re.findall(r"[A-Za-z_]\\w*", text)` finds?  (No pattern: compiling one
    cost each first derivation a tenth of a millisecond.)  A word starts at a letter or `_` that no word
    started before it in its run of word characters, and runs over all word characters after it."""
    i = text.find(name)
    while i >= 0:
        j = i + len(name)
        if j == len(text) or not _word_char(text[j]):
            r = i
            while r > 0 and _word_char(text[r - 1]):
                r -= 1
            if not any(c in _LEADING for c in text[r:i]):
                return True
        i = text.find(name, i + 1)
    return False


def _word_char(c: str) -> bool:
    """`\\w` of a str pattern: alphanumeric or `_`."""
    return c.isalnum() or c == "_"


def comment_for(loc: Any) -> str:
    return f"# {os.path.basename(loc.file)}:{loc.line}  {loc.text}{_via(loc)}"


def grad_comment_for(loc: Any) -> str:
    """Above adjoint code: which source line it differentiates."""
    return f"# grad of {os.path.basename(loc.file)}:{loc.line}  {loc.text}{_via(loc)}"


def _via(loc: Any) -> str:
    """`  [in helper, called at f.py:12]` for code put in line (outermost call first): read by tracebacks.py."""
    via = getattr(loc, "via", ())
    if not via:
        return ""
    calls = [f"in {name}, called at {os.path.basename(file)}:{line}" for name, file, line in reversed(via)]
    return "  [" + "; ".join(calls) + "]"


def emit_function(
    fn: Function,
    writer: ModuleWriter,
    name: str,
    params: list[Value],
    tangent_of: Optional[dict[Value, Value]] = None,
    adjoint_of: Optional[dict[Value, Value]] = None,
    preferred: Optional[dict[Value, str]] = None,
    inlinable: Any = None,
    docstring: Optional[str] = None,
    external_names: Optional[dict[Value, str]] = None,
) -> str:
    """Emit one IR function as `def name(params): ...` and return its text."""
    tangent_of = tangent_of or {}
    derivative_of = {**tangent_of, **(adjoint_of or {})}

    def keep_named(s: Stmt) -> bool:
        # The derivative of a named variable is printed under its name (`dz`), not folded away.
        primal = derivative_of.get(s)
        return primal is None or not (_user_named(primal) or isinstance(primal, Param))

    emitter = StructuredEmitter(fn, {}, writer.qualify, comment=grad_comment_for if adjoint_of else comment_for,
                                reserved=frozenset(writer.reserved),
                                inlinable=inlinable or keep_named)
    count = emitter.use_count  # (uses(fn), counted by the emitter already)
    loop_items = {b.loop.item for b in fn.blocks if b.loop is not None and b.loop.item is not None}
    named: set[Value] = set(params)
    for b in fn.blocks:
        for phi in b.phis:
            if phi not in emitter.skip:
                named.add(phi)
        for s in b.stmts:
            if s in emitter.skip and s not in loop_items and s not in emitter.loop_items:
                continue
            if (count.get(s, 0) > 0 or _user_named(s)) and not emitter._can_inline(s):
                named.add(s)
    pref = dict(preferred or {})
    for p in params:
        pref.setdefault(p, p.name if isinstance(p, Param) else p.hint)  # type: ignore[union-attr]
    names = assign_names(fn, named, writer.reserved | set(writer.aliases.values()), pref, tangent_of, adjoint_of, external_names)
    writer.last_names = names
    emitter.names.update(names)
    writer.reserved |= set(names.values())
    emitter.reserved |= set(names.values())
    body = emitter.emit_function_body()
    # Aliases chosen while emitting must not collide with the names chosen before.
    signature = [names[p] for p in params]
    level = "elif_level"  # counters of flat elif chains: level_<depth>, unlike any name in use
    while any(n.startswith(level) for n in writer.reserved | emitter.reserved):
        level = "_" + level
    body_lines = format_nodes(body, level_name=level)
    # Our imports, as keyword-only parameters: only those this function's body reads.
    text = "\n".join(body_lines)
    helpers = [h for h in writer.helper_params() if _reads_name(text, h.split("=", 1)[0])]
    if helpers:
        signature += ["*"] + helpers
    lines = [f"def {name}({', '.join(signature)}):"]
    if docstring:
        lines.append(f'    """{docstring}"""')
    lines += body_lines
    return "\n".join(lines) + "\n"
