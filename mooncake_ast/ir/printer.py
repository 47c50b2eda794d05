"""Text form of the IR, for users (`.ir()`, `mooncake-ast ir`) and golden tests.

    L0:
        %1 = operator.mul(x, i)            # demo.py:4
        goto L1
    L1: (preds L0, L2)
        s.1 = φ(L0: 0.0, L2: s.2)
        br %3, L2, L3

SSA values print as their name hint with a version (`s.2`) or as `%N`.
"""
from __future__ import annotations

import os
from typing import Any

from .nodes import Block, Branch, Call, Const, FreeVar, Function, Global, Goto, Param, Raise, Return, Value


def callable_name(fn: Any) -> str:
    mod = getattr(fn, "__module__", None) or ""
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    if mod in ("builtins", ""):
        return name
    if mod == "_operator":
        mod = "operator"
    if mod.startswith("mooncake_ast."):
        mod = mod.rsplit(".", 1)[-1]
    if mod.startswith("numpy"):
        mod = "np"
    return f"{mod}.{name}"


class Namer:
    def __init__(self) -> None:
        self.names: dict[Value, str] = {}
        self.versions: dict[str, int] = {}
        self.temps = 0

    def __call__(self, v: Value) -> str:
        if isinstance(v, Const):
            return callable_name(v.value) if callable(v.value) and not isinstance(v.value, type(None)) else repr(v.value)
        if isinstance(v, (Param,)):
            return v.name
        if isinstance(v, Global):
            return f"@{v.name}"
        if isinstance(v, FreeVar):
            return f"&{v.name}"
        if v not in self.names:
            hint = v.hint
            if hint and not hint.startswith("%"):
                n = self.versions.get(hint, 0) + 1
                self.versions[hint] = n
                self.names[v] = f"{hint}.{n}"
            else:
                self.temps += 1
                self.names[v] = f"%{self.temps}"
        return self.names[v]


def format_function(fn: Function) -> str:
    name = Namer()
    params = ", ".join(p.name for p in fn.params)
    lines = [f"def {fn.name}({params}):  # {os.path.basename(fn.loc.file)}:{fn.loc.line}"]
    for b in fn.blocks:
        lines.append(_block_header(b))
        for phi in b.phis:
            inc = ", ".join(f"{p}: {name(v)}" for p, v in phi.incoming.items())
            lines.append(f"    {name(phi)} = φ({inc})")
        for s in b.stmts:
            lines.append(_stmt(s, name))
        lines.append("    " + _term(b, name))
    return "\n".join(lines) + "\n"


def _block_header(b: Block) -> str:
    extra = []
    if b.preds:
        extra.append("preds " + ", ".join(str(p) for p in b.preds))
    if b.loop is not None:
        extra.append(f"{b.loop.kind} loop")
    return f"{b}:" + (f"  ({'; '.join(extra)})" if extra else "")


def _stmt(s: Call, name: Namer) -> str:
    args = [name(a) for a in s.args] + [f"{k}={name(v)}" for k, v in s.kwargs.items()]
    text = f"    {name(s)} = {name(s.fn)}({', '.join(args)})"
    if s.loc is not None:
        text = f"{text:<48}  # line {s.loc.line}"
    return text


def _term(b: Block, name: Namer) -> str:
    t = b.term
    if isinstance(t, Goto):
        return f"goto {t.target}"
    if isinstance(t, Branch):
        return f"br {name(t.cond)}, {t.then}, {t.orelse}"
    if isinstance(t, Return):
        return f"return {name(t.value)}"
    if isinstance(t, Raise):
        return f"raise {name(t.exc) if t.exc is not None else ''}".rstrip()
    return "<no terminator>"
