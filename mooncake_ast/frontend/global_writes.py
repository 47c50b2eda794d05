"""Lowering of `global` names: writes, and the reads that may see a value differentiated code wrote.

A function declaring `global N` stores into its module on every write (global_ops.store_global: the plain
call's effect), and also keeps the value it wrote as the SSA variable `%global:N`.  A read of N in that
function then takes, where the module still holds what the function wrote last (global_ops.global_holds),
that SSA value (`ops.choose(holds, written, current)`), so `global CACHE; CACHE = x * 2; return CACHE + 1`
differentiates through CACHE; where the function has not written N yet, or a call in between rebound it, the
read is the module global's current value, as in any other function.

`globals()["N"] = v` (the builtin, a constant key) is lowered as that write too.  Every read of a module
global that some function of the same file declares `global` or writes so (and `mod.N` where module `mod`
does) is preceded by global_ops.check_global_read: a value written by differentiated code earlier in the
same differentiation would be read there as a constant, its derivative lost, so that read is refused by name.
"""
from __future__ import annotations

import linecache
import re
from typing import TYPE_CHECKING, Any, Optional

import libcst as cst

from .. import ops
from ..ir.nodes import Const, Global, Value
from . import global_ops
from .source import LazyPattern

if TYPE_CHECKING:
    from .statements import Lowering

_DECLARED = LazyPattern(r"^[ \t]*global[ \t]+([A-Za-z_][\w \t,]*)", re.M)  # (compiled where a text says `global`)
_GLOBALS_ITEM = LazyPattern(r"""globals\(\)\[\s*["']([A-Za-z_]\w*)["']\s*\]\s*=[^=]""")
_declared_cache: dict = {}


def tracked_key(name: str) -> str:
    """The builder variable holding what this function last wrote to the module global `name`."""
    return f"%global:{name}"


def declared_in_file(filename: Any) -> frozenset:
    """The names some function of the source file `filename` declares `global` (a textual scan: a name
    listed here that is never written costs one dictionary lookup per read)."""
    lines = linecache.getlines(filename) if isinstance(filename, str) else []
    key = (filename, len(lines), hash(lines[-1]) if lines else 0)
    found = _declared_cache.get(key)
    if found is None:
        names = set()
        text = "".join(lines)
        if "global" in text:  # (what the pattern needs: it is compiled only then)
            for m in _DECLARED.finditer(text):
                names.update(n.strip() for n in m.group(1).split(",") if n.strip().isidentifier())
        if "globals()" in text:  # (`globals()["N"] = v`: a global write too)
            names.update(m.group(1) for m in _GLOBALS_ITEM.finditer(text))
        found = _declared_cache[key] = frozenset(names)
    return found


def enter(lw: "Lowering") -> None:
    """At the function's entry: each declared global reads the module until the function writes it."""
    for name in lw.globals_declared:
        lw.b.write(tracked_key(name), Global(name))


def write(lw: "Lowering", name: str, value: Value, track: bool = True) -> None:
    lw.b.call(global_ops.store_global, [lw.ir.self_ref, Const(name), value])  # type: ignore[attr-defined]
    if track:
        lw.b.write(tracked_key(name), value)


def globals_item(lw: "Lowering", target: cst.Subscript) -> Optional[str]:
    """N for an assignment target `globals()["N"]` (the builtin, a constant key), else None."""
    v = target.value
    if not (isinstance(v, cst.Call) and isinstance(v.func, cst.Name) and v.func.value == "globals" and not v.args):
        return None
    if lw._var_key("globals") is not None or "globals" in lw.freevars or "globals" in lw.pyfn.__globals__:
        return None
    if len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index):
        return None
    key = target.slice[0].slice.value
    if isinstance(key, cst.SimpleString) and isinstance(key.evaluated_value, str) and key.evaluated_value.isidentifier():
        return key.evaluated_value
    return None


def deleted(lw: "Lowering", name: str) -> None:
    lw.b.write(tracked_key(name), Global(name))


def read_module_global(lw: "Lowering", name: str) -> Value:
    """A read of the module global `name` (a global this function does not write, or has not yet)."""
    if name in declared_in_file(lw.pyfn.__code__.co_filename):
        lw.b.call(global_ops.check_global_read, [lw.ir.self_ref, Const(name)])  # type: ignore[attr-defined]
    lw.ir.globals_read.add(name)
    return Global(name)


def read_declared(lw: "Lowering", name: str) -> Value:
    """A read of `name`, declared `global` in this function."""
    written = lw.b.read(tracked_key(name))
    if isinstance(written, Global):
        return read_module_global(lw, name)
    # (no branch: a loop's condition must stay one block; both operands are plain reads)
    args = [lw.ir.self_ref, Const(name), written]  # type: ignore[attr-defined]
    holds = lw.b.call(global_ops.global_holds, args)
    current = lw.b.call(global_ops.module_value, list(args))
    return lw.b.call(ops.choose, [holds, written, current])  # (no hint: a local named so would hide the global)


def check_module_attribute(lw: "Lowering", module_value: Value, module: Any, attr: str) -> None:
    """`mod.attr` of an imported module whose source declares `global attr` somewhere."""
    filename = getattr(module, "__file__", None)
    if isinstance(filename, str) and filename.endswith(".py") and attr in declared_in_file(filename):
        lw.b.call(global_ops.check_module_attribute, [module_value, Const(attr)])
