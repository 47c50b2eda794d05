"""Small questions about libcst trees that the frontend's checks share (lazy_values, overlapping_writes,
function_attributes, callback_effects, loops): which names an expression reads, which nodes of a kind a tree holds,
which name an attribute or item chain starts from."""
from __future__ import annotations

from typing import Optional

import libcst as cst


def names_read(node: cst.CSTNode) -> set:
    """The names node reads (not attributes' names, nor keywords'), less those its comprehensions bind."""
    read: set = set()
    bound: set = set()

    class Names(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            read.add(n.value)

        def visit_CompFor(self, n: cst.CompFor) -> None:
            bound.update(n2.value for n2 in nodes_of(n.target, cst.Name))

        def visit_Attribute(self, n: cst.Attribute) -> bool:
            n.value.visit(self)  # (not the attribute's name)
            return False

        def visit_Arg(self, n: cst.Arg) -> bool:
            n.value.visit(self)  # (not a keyword's name)
            return False

    node.visit(Names())
    return read - bound


def nodes_of(node: cst.CSTNode, kind: type) -> list:
    """Every node of type `kind` in node (node itself included), in visiting order."""
    return [n for n in _every_node(node) if isinstance(n, kind)]


_EVERY: dict[int, tuple] = {}  # id(node) -> (node, every node in it, in visiting order), the newest _EVERY_KEPT


_EVERY_KEPT = 256


def _every_node(node: cst.CSTNode) -> list:
    """Every node in node, in libcst's visiting order, found once per node: the frontend's checks ask about the
    same statements for each kind they look for, and again in each derivation of the function (the parsed text is
    kept, source.py), and libcst's visit makes a new node for every node it passes."""
    known = _EVERY.get(id(node))
    if known is not None and known[0] is node:
        return known[1]
    out: list = []

    class Collect(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            out.append(n)
            return True

    node.visit(Collect())
    if len(_EVERY) >= _EVERY_KEPT:
        _EVERY.pop(next(iter(_EVERY)))
    _EVERY[id(node)] = (node, out)
    return out


def root_name(e: cst.BaseExpression) -> Optional[str]:
    """The name `a.b[i].c` starts from (`a`), or None where it starts from something else."""
    while isinstance(e, (cst.Attribute, cst.Subscript)):
        e = e.value
    return e.value if isinstance(e, cst.Name) else None


def walked_in_step(e: cst.BaseExpression) -> list:
    """e, and what the `enumerate` / `zip` calls e nests walk (a `for` loop indexes those in step, frontend/loops.py:
    `enumerate(reversed(y))` reads reversed(y)'s items, `enumerate(map(f, y))` computes map's items up front as a
    bare `map(f, y)` does)."""
    out = [e]
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Name) and e.func.value in ("enumerate", "zip"):
        for a in e.args:
            if a.keyword is None and not a.star:
                out.extend(walked_in_step(a.value))
    return out
