"""Variables captured by nested functions, typed: a cell only its own function writes holds what it stores.

`f = lambda x: x * x - c` makes `c` a cell (`ops.new_cell`, `cell_set`, `cell_get`), and reads of a cell were
"anything": every operator on `c`, and on what is computed from it, was dispatched when the code ran.  When no
nested function assigns the variable (no `nonlocal`) and the cell is used only by its function's reads and
writes and by the closures made over it, a read has the type of the values stored (their join).  Calls of the
closure are then typed from its code with the captured variables' types (call_types.local_function).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from .. import ops
from ..ir.nodes import Call, Function
from ..ir.types import _BOTTOM, AVal, Arr, Num, join

if TYPE_CHECKING:
    from .transform import ReverseTransform


def closed_cells(ir: Function) -> dict:
    """The cells this function makes for its variables that nested functions read (`f = lambda x: x * x - c`) and
    only this function writes: cell -> the values it stores in it.  A nested function that assigns the variable
    (`nonlocal c`), or a cell used any other way, is left out.  A read of such a cell has the type of the values
    stored (their join), as a plain variable would."""
    import dis

    cells = {s: [] for b in ir.blocks for s in b.stmts if isinstance(s, Call) and s.callee() is ops.new_cell}
    if not cells:
        return {}
    for b in ir.blocks:
        for s in b.stmts:
            fn = s.callee() if isinstance(s, Call) else None
            for k, a in enumerate(s.operands()):
                if a not in cells:
                    continue
                if fn is ops.cell_set and k == 1 and a is s.args[0]:
                    cells[a].append(s.args[1])
                elif fn is ops.cell_get or (fn is ops.tuple_of and _closure_only(s)):
                    continue
                else:
                    cells.pop(a, None)
            if fn is ops.make_function and getattr(s, "code_object", None) is not None:
                code = s.code_object
                written = {i.argval for c in _codes(code) for i in dis.get_instructions(c)
                           if i.opname in ("STORE_DEREF", "DELETE_DEREF")}
                closure = s.args[4]
                if isinstance(closure, Call):
                    for name, cell in zip(code.co_freevars, closure.args):
                        if name in written:
                            cells.pop(cell, None)
    return {c: v for c, v in cells.items() if v}


def _closure_only(s: Call) -> bool:
    """Is the tuple s only the closure argument of nested functions (ops.make_function's last)?"""
    return getattr(s, "closure_of", False)


def _codes(code: Any) -> list:
    import types as _types

    out = [code]
    for c in code.co_consts:
        if isinstance(c, _types.CodeType):
            out += _codes(c)
    return out


def cell_type(rt: "ReverseTransform", cell: Any, of: Any) -> Optional[AVal]:
    """The type of a read of a closed cell (closed_cells): the join of what is stored in it, if the emitter types
    that (a number or a float array); None otherwise."""
    writes = rt.closed_cells.get(cell)
    if not writes:
        return None
    t = _BOTTOM
    for v in writes:
        t = join(t, of(v))
    if t is _BOTTOM:
        return t
    return t if isinstance(t, Num) or (isinstance(t, Arr) and t.axes is not None and t.dtype == "f") else None
