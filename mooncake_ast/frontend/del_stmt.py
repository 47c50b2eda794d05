"""Lowering of `del name` (and of `del a[i]`, `del a.b`, `del x, y`).

Python makes a deleted name local to the function, and a later read of it raises UnboundLocalError
(NameError for a module global, a closure's cell: NameError too).  The IR keeps a local's value per
path (SSA), so `del x` writes a sentinel value, `DELETED`, as x's value from there on; every read of
a name the function deletes somewhere, where that read may see the sentinel (a phi, or the sentinel
itself), goes through `stmt_ops.check_bound`, which raises as Python does.  A real value rather than
the builder's UNDEFINED, for two reasons: a path that deleted x must not let the generated code read
a stale binding of the same name (emitted names may be shared between an SSA value and the phi it
flows into, and UNDEFINED emits no copy on its edge), and reverse mode records values that cross
loop and branch edges, where an unbound variable cannot be read.

Such a name is given the sentinel at the function's entry too (unless it is a parameter), so "never
assigned" and "deleted" are one state and every read of it is checked at run time as Python does,
rather than refused when the function is transformed.

The sentinel is a constant: it carries no tangent, and no adjoint flows along an edge that carries
it (nothing can read the value on that path).  Type inference joins it like any constant, so a phi
that may hold it is of no known type and the transforms use run-time dispatch for it (only such
phis: a variable deleted and never read again, the usual case, makes none).
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING

import libcst as cst

from ..ir.builder import UNDEFINED
from ..ir.nodes import Call, Const, Param, Value
from . import stmt_ops

if TYPE_CHECKING:  # pragma: no cover
    from .statements import Lowering

DELETED_CONST = Const(stmt_ops.DELETED)


def deleted_targets(target: cst.BaseExpression) -> list[str]:
    """The names `del target` unbinds (`del x`, `del x, y`, `del (x, [y])`)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in deleted_targets(e.value)]
    return []


def plain_local(lw: "Lowering", name: str) -> bool:
    """Is `name` a local kept as an SSA variable (not a cell, a global or a nonlocal)?"""
    return name in lw.locals and name not in lw.cells


def bind_at_entry(lw: "Lowering") -> None:
    """Give each plain local the function deletes somewhere the sentinel at the entry (parameters keep
    their value): a read before any assignment is then checked at run time, as after a `del`."""
    params = {p.name for p in lw.ir.params}
    for name in sorted(lw.deleted):
        if plain_local(lw, name) and name not in params:
            lw.b.write(name, DELETED_CONST)


def checked_read(lw: "Lowering", name: str, value: Value) -> Value:
    """A read of `name`, a local the function deletes somewhere: checked where it may be unbound."""
    if isinstance(value, (Param, Call)):
        return value  # assigned on every path that reaches here (a phi may bring DELETED)
    if value is UNDEFINED:
        value = DELETED_CONST
    lw.b.call(stmt_ops.check_bound, [value, Const(name)])
    return value


def lower_del(lw: "Lowering", s: cst.Del) -> None:
    _delete(lw, s.target)


def _delete(lw: "Lowering", t: cst.BaseExpression) -> None:
    if isinstance(t, (cst.Tuple, cst.List)):
        for e in t.elements:  # left to right, as Python deletes them
            _delete(lw, e.value)
    elif isinstance(t, cst.Subscript):
        lw.b.call(operator.delitem, [lw.expr(t.value), lw.index(t)])
    elif isinstance(t, cst.Attribute):
        lw.b.call(delattr, [lw.expr(t.value), Const(t.attr.value)])
    elif isinstance(t, cst.Name):
        _delete_name(lw, t.value, t)
    else:
        lw.unsupported(t, f"del of {type(t).__name__}")


def _delete_name(lw: "Lowering", name: str, node: cst.Name) -> None:
    if name in lw.globals_declared:
        lw.b.call(stmt_ops.delete_global, [lw.ir.self_ref, Const(name)])  # type: ignore[attr-defined]
        from .global_writes import deleted

        deleted(lw, name)
    elif name in lw.nonlocals:
        lw.b.call(stmt_ops.delete_cell, [lw.freevars[name], Const(name)])
    elif name in lw.cells:
        lw.b.call(stmt_ops.delete_cell, [lw.cells[name], Const(name)])
    else:
        checked_read(lw, name, lw.b.read(name))  # `del x` of an unbound x raises too
        lw.b.write(name, DELETED_CONST)
