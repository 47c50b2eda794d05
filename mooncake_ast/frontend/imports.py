"""Lowering of `import` statements inside a function: each becomes `ops.import_module` calls.

A relative import (`from . import x`, `from .mod import y`, `from ..pkg import z`) is resolved when the
function is lowered, against its module's package (`__package__`, as Python resolves it when the
statement runs): SciPy's functions import their siblings that way inside their bodies.  The generated
code imports the absolute name, which reads the same module.
"""
from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

import libcst as cst

from .. import ops
from ..ir.nodes import Const

if TYPE_CHECKING:  # pragma: no cover
    from .statements import Lowering


def _dotted(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def lower_import(lw: "Lowering", s: cst.Import) -> None:
    for alias in s.names:
        full = _dotted(alias.name)
        mod = lw.b.call(ops.import_module, [Const(full)])
        if alias.asname is not None:
            mod = lw.b.call(ops.import_module, [Const(full), Const(("*",))])
            lw.assign_name(alias.asname.name.value, mod)  # type: ignore[union-attr]
        else:
            lw.assign_name(full.split(".")[0], mod)


def lower_import_from(lw: "Lowering", s: cst.ImportFrom) -> None:
    if isinstance(s.names, cst.ImportStar):
        lw.unsupported(s, "relative or star import inside a function (a star import)")
    full = _dotted(s.module) if s.module is not None else ""
    if s.relative:
        full = _absolute(lw, s, "." * len(s.relative) + full)
    names = tuple(a.name.value for a in s.names)  # type: ignore[union-attr]
    mod = lw.b.call(ops.import_module, [Const(full), Const(names)])
    for a in s.names:  # type: ignore[union-attr]
        name = a.asname.name.value if a.asname else a.name.value  # type: ignore[union-attr]
        lw.assign_name(name, lw.b.call(getattr, [mod, Const(a.name.value)]))  # type: ignore[union-attr]


def _absolute(lw: "Lowering", s: cst.ImportFrom, relative: str) -> str:
    """The module `relative` names, seen from the function's package."""
    g = lw.pyfn.__globals__
    package = g.get("__package__")
    if package is None:  # (a module that did not set it: its spec's parent, as importlib falls back to)
        spec = g.get("__spec__")
        package = getattr(spec, "parent", None)
    if package is None and "__path__" not in g:
        package = (g.get("__name__") or "").rpartition(".")[0]
    if not package:
        lw.unsupported(s, f"relative or star import inside a function (`from {relative} import`: its module has no package)")
    try:
        return importlib.util.resolve_name(relative, package)  # type: ignore[arg-type]
    except ImportError as e:
        lw.unsupported(s, f"relative or star import inside a function (`from {relative} import`: {e})")
        raise  # (unsupported raised)
