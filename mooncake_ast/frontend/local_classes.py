"""Lowering of a `class` statement inside the differentiated function.

The class body runs as Python runs it (stmt_ops.build_class), not differentiated; its methods are
differentiated when they are called, like any Python function.  The body is given the cells of the
function's variables that it or its methods read (`k = 2 * x; class A: def get(self): return k * 3`), so
methods read them as Python's own class would.  Their derivatives follow the cells as they follow a nested
`def`'s: reverse mode keeps a cell's adjoint in storage kept by the cell's identity, which the method's
derived code adds to and the function's `k = ...` reads back (build_class is a call with a derivative, so
calls through the class are differentiated); forward mode hands the cells' tangent cells to this forward
computation (stmt_ops.share_cells, rules/python_local_classes.py), where the methods' closures find them.

Refused when the code runs, by name: the class body itself (a class attribute, a default value, a decorator)
reading a variable of the function that can carry a derivative (a number, an array, a function closing over
one, ...; stmt_ops.build_class).  The body runs plainly, so what it computes from them has no derivative.  A
decorator defined in the function (`@logged`) or a constant is read as Python reads it.
"""
from __future__ import annotations

import dis
from typing import TYPE_CHECKING

import libcst as cst

from .. import ops
from ..ir.nodes import Const, Value
from . import stmt_ops

if TYPE_CHECKING:
    from .statements import Lowering

_BODY_READS = frozenset({"LOAD_CLASSDEREF", "LOAD_DEREF", "STORE_DEREF", "DELETE_DEREF"})


def lower_class(lw: "Lowering", s: cst.ClassDef) -> None:
    name = s.name.value
    line = lw.src.where(s.decorators[0] if s.decorators else s)[0]
    nth = lw._nested_seen.get((name, line), 0)
    lw._nested_seen[(name, line)] = nth + 1
    code = ops.nested_code(lw.pyfn, name, line, nth)
    outer = set(code.co_freevars) - {"__class__"}
    body_reads = {i.argval for i in dis.get_instructions(code) if i.opname in _BODY_READS and i.argval in outer}
    cells = lw.b.call(ops.tuple_of, [lw._cell_for(v) for v in code.co_freevars])
    if outer:
        cells.closure_of = True  # type: ignore[attr-defined]  # (reverse/settle_types.closed_cells: cells that escape)
    decorators = [lw.expr(d.decorator) for d in s.decorators]
    bases = [lw.expr(a.value) for a in s.bases if a.keyword is None and not a.star]
    if any(a.star for a in (*s.bases, *s.keywords)):
        lw.unsupported(s, "a class definition with *bases or **keywords")
    kw: list[Value] = []
    for a in s.keywords:
        kw += [Const(a.keyword.value), lw.expr(a.value)]  # type: ignore[union-attr]
    cls = lw.b.call(stmt_ops.build_class, [lw.ir.self_ref, Const(name), Const(line), Const(nth),  # type: ignore[attr-defined]
                                           lw.b.call(ops.tuple_of, bases), lw.b.call(ops.dict_of, kw), cells,
                                           Const(tuple(i for i, v in enumerate(code.co_freevars) if v in body_reads))],
                    hint=name)
    if outer:
        cls = lw.b.call(stmt_ops.share_cells, [cls, *[lw._cell_for(v) for v in code.co_freevars if v in outer]], hint=name)
    for d in reversed(decorators):
        cls = lw.b.call(d, [cls], hint=name)
    lw.assign_name(name, cls)
