"""Scope analysis of a function being lowered: which names are its locals, nonlocals, globals and cells.

Python decides a name's scope from the whole function before running it (a name assigned anywhere in
it is local), so the lowering asks this first: one walk of the function's tree finds the names it
binds, declares `nonlocal`/`global` and `del`s; its code object tells which locals nested functions
capture (those live in cells).
"""
from __future__ import annotations

import types
from typing import Optional, Union

import libcst as cst

from .. import ops
from .source import walk


def _target_names(t: cst.BaseExpression) -> list[str]:
    if isinstance(t, cst.Name):
        return [t.value]
    if isinstance(t, (cst.Tuple, cst.List)):
        return [n for e in t.elements for n in _target_names(e.value)]
    if isinstance(t, cst.StarredElement):
        return _target_names(t.value)
    return []


class _LocalNames(cst.CSTVisitor):
    """Names bound in a function's own scope (not in nested functions or comprehensions)."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.nonlocal_names: set[str] = set()  # declared `nonlocal` in this scope
        self.global_names: set[str] = set()  # declared `global` in this scope
        self.deleted: set[str] = set()  # names `del` unbinds in this scope (del_stmt.py)
        self.depth = 0

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.nonlocal_names.update(a.name.value for a in node.names)

    def visit_Global(self, node: cst.Global) -> None:
        self.global_names.update(a.name.value for a in node.names)

    def visit_Del(self, node: cst.Del) -> None:
        from .del_stmt import deleted_targets

        names = deleted_targets(node.target)
        self.names.update(names)  # (`del x` makes x local, as an assignment does)
        self.deleted.update(names)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.names.update(_target_names(node.asname.name))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if self.depth:
            self.names.add(node.name.value)
            return False
        self.depth += 1
        return True

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        if self.depth:
            return False
        self.depth += 1
        return True

    def visit_Param(self, node: cst.Param) -> None:
        self.names.add(node.name.value)

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.names.add(node.name.value)
        return False

    def visit_CompFor(self, node: cst.CompFor) -> None:
        pass  # comprehension targets are local to the comprehension

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.names.update(_target_names(node.target))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.names.update(_target_names(node.target))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.names.update(_target_names(node.target))

    def visit_For(self, node: cst.For) -> None:
        self.names.update(_target_names(node.target))

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.names.update(_target_names(node.target))

    def visit_MatchCase(self, node: cst.MatchCase) -> None:
        from .match import bound_names

        self.names.update(bound_names(node.pattern))

    def visit_Import(self, node: cst.Import) -> None:
        for a in node.names:
            self.names.add(a.asname.name.value if a.asname else cst.Module([]).code_for_node(a.name).split(".")[0])  # type: ignore[union-attr]

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if not isinstance(node.names, cst.ImportStar):
            for a in node.names:
                self.names.add(a.asname.name.value if a.asname else a.name.value)  # type: ignore[union-attr]


def _scope_names(node: Union[cst.FunctionDef, cst.Lambda], text: Optional[str] = None,
                 deleted: Optional[set] = None) -> tuple[set[str], set[str], set[str]]:
    """(names bound in the function's own scope, names it declares nonlocal, names it declares
    global), and the names it deletes added to `deleted`: one walk of its tree.  Inside an
    expression only `:=` binds a name of this scope (a lambda's and a comprehension's own names
    are theirs), so where the function's text has none, the walk leaves expressions out: two
    thirds of the nodes of a numeric function."""
    v = _LocalNames()
    v.depth = 1
    prune = cst.BaseExpression if text is not None and ":=" not in text else None
    walk(node.params, v, prune)  # (source.walk: libcst's own walk copies every node it passes)
    walk(node.body, v, prune)
    if deleted is not None:
        deleted.update(v.deleted)
    return v.names, v.nonlocal_names, v.global_names


def _captured_names(code: types.CodeType) -> set[str]:
    """Names that nested functions (not comprehensions, which we inline) take from this scope."""
    out: set[str] = set()
    for c in ops._walk_code(code):
        if c.co_name.startswith("<") and c.co_name != "<lambda>":
            continue
        out.update(c.co_freevars)
    return out
