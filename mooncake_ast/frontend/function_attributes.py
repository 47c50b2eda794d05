"""Values kept as attributes of function objects (`h.k = x`, `h.total = h.total + t`) are refused (both modes).

Neither transform keeps a derivative for an attribute of a function: a function's tangent is what it captures, and
its `__dict__` is not part of it, so `h.k = x; h.k * a` gave x's derivative 0 in reverse mode and a wrong tangent in
forward mode (found by hunt's random family `flow`).  Refused here, naming the line, for the functions the
function defines and the module's functions it names; literals (a counter's `h.calls += 1`, solve_ivp's
`event.terminal = True`, `event.direction = -1`) carry no derivative and stay allowed.
"""
from __future__ import annotations

import re
import types
from typing import TYPE_CHECKING

import libcst as cst

from .cst_queries import nodes_of
from .source import LazyPattern

if TYPE_CHECKING:  # pragma: no cover
    from .statements import Lowering


_STORE = re.compile(r"^[ \t]*(\w+)\.\w+\s*(?:[-+*/@%|&^]|//|\*\*|<<|>>)?=(?!=)", re.MULTILINE)
_DEF = LazyPattern(r"\bdef\s+(\w+)")


def check(lw: "Lowering", node: cst.CSTNode) -> None:
    """Refuse a store into an attribute of a function object, other than of a literal."""
    glob = getattr(lw.pyfn, "__globals__", {})
    text = getattr(lw.src, "text", None)
    if isinstance(text, str):
        # (on the text first, microseconds: the walk below costs milliseconds; a superset of what it finds)
        owners = set(_STORE.findall(text))
        if not owners or not owners & (set(_DEF.findall(text)) | {n for n in owners if isinstance(glob.get(n), types.FunctionType)}):
            return
    defined: set = set()
    stores: list = []

    class Finder(cst.CSTVisitor):
        def visit_FunctionDef(self, n: cst.FunctionDef) -> None:
            if n is not node:
                defined.add(n.name.value)

        def visit_Assign(self, n: cst.Assign) -> None:
            for t in n.targets:
                if isinstance(t.target, cst.Attribute):
                    stores.append((n, t.target, n.value, False))

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            if isinstance(n.target, cst.Attribute):
                stores.append((n, n.target, n.value, True))

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            if isinstance(n.target, cst.Attribute) and n.value is not None:
                stores.append((n, n.target, n.value, False))

    node.visit(Finder())
    if not stores:
        return
    for stmt, target, value, _ in stores:
        owner = target.value
        if not isinstance(owner, cst.Name):
            continue
        name = owner.value
        is_function = name in defined or (name not in defined and isinstance(glob.get(name), types.FunctionType) and
                                          not _assigned(node, name))
        if not is_function or _literal(value):
            continue  # (a literal, `event.terminal = True` as solve_ivp asks, a counter's `+= 1`: no derivative)
        lw.unsupported(stmt, f"`{lw.src.line_text(lw.src.where(stmt)[0]).strip()}`: an attribute of the function "
                             f"object `{name}` keeps a value; mooncake_ast keeps no derivative for a function's "
                             "attributes. Keep the value in a variable, a list or an object of a class of yours")


def _assigned(node: cst.CSTNode, name: str) -> bool:
    """Is `name` bound in node as a variable (so that it is not the module's function of that name)?"""
    for n in nodes_of(node, cst.CSTNode):
        if isinstance(n, cst.AssignTarget) and isinstance(n.target, cst.Name) and n.target.value == name:
            return True
        if isinstance(n, cst.Param) and n.name.value == name:
            return True
    return False


def _literal(e: cst.BaseExpression) -> bool:
    """A literal number, string, True/False/None, or a negated number: a value with no derivative."""
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, (cst.Minus, cst.Plus)):
        e = e.expression
    return isinstance(e, (cst.Integer, cst.Float, cst.SimpleString)) or \
        (isinstance(e, cst.Name) and e.value in ("True", "False", "None"))
