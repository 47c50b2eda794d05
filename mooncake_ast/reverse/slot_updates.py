"""`a[idx] += v` made `a[idx] = a[idx] + v` where nothing can tell the two apart.

The lowering reads the slot (`t = a[idx]`, a view for a slice), updates it in place (`t += v`) and writes it
back (`a[idx] = t`).  The in-place update writes through the view, so `a` went to identity-keyed storage and
its whole pullback to the generic helpers (`inplace_reverse`, `setitem_reverse`, `getitem_reverse`).  A person
reads the line as the write of a new value, `a[idx] = a[idx] + v`: that is what it is when the slot read is
read by nothing but the update, the update's result by nothing but the write back to the same slot, and the
update cannot change the slot's dtype (a float slot, a real `v`), and `v` has no more axes than the slot (then
the update fails exactly where writing `a[idx] + v` back would; NumPy buffers overlapping operands, so
`a[1:] += a[:-1]` is the same either way).  Then the array is read and
written by basic indices only, and reverse/buffers.py gives it a plain adjoint array: `v_bar += a_bar[idx]`.
"""
from __future__ import annotations

import operator
from typing import Any, Callable

from .. import ops
from ..ir.analysis import uses
from ..ir.nodes import Call, Const, Param, Value
from ..ir.types import FLOAT, NOT_LITERAL as _NOT, UNKNOWN, Num, is_float_array, literal, type_of_argument
from .prepare import _PLAIN_OF_INPLACE
from .special import hashable


def plain_slot_updates(ir: Any, types: dict, param_types: dict, callee: Callable) -> bool:
    """Rewrite each qualifying `t = a[idx]; u = t op= v; a[idx] = u` (see the module docstring); True if any was."""
    count = uses(ir)
    changed = False
    for b in ir.blocks:
        position = {s: k for k, s in enumerate(b.stmts)}
        for s in b.stmts:
            fn = callee(s)[0]
            plain = _PLAIN_OF_INPLACE.get(fn) if hashable(fn) else None
            if plain is None or len(s.args) != 2 or s.kwargs or count.get(s) != 1:
                continue
            slot, w = s.args
            if not (isinstance(slot, Call) and position.get(slot, len(b.stmts)) < position[s] and count.get(slot) == 1
                    and callee(slot)[0] is operator.getitem and len(slot.args) == 2 and not slot.kwargs):
                continue
            a, idx = slot.args
            write = next((r for r in b.stmts[position[s] + 1:] if s in r.operands()), None)
            if write is None or callee(write)[0] is not operator.setitem or write.kwargs or len(write.args) != 3 or \
                    write.args[0] is not a or write.args[2] is not s or not _same_index(idx, write.args[1]):
                continue
            ta, tv = _type(a, types, param_types), types.get(slot, UNKNOWN)
            tw = _type(w, types, param_types)
            if not is_float_array(ta):
                continue
            if tv == FLOAT:
                if not isinstance(tw, Num):
                    continue
            elif not (is_float_array(tv) and (isinstance(tw, Num) or
                                              is_float_array(tw) and len(tw.axes) <= len(tv.axes))):
                continue  # (v of no more axes than the slot: `t op= v` fails exactly where writing `t op v` back does)
            s.fn, s.args = Const(plain), [slot, w]
            s.plain_inplace = True  # type: ignore[attr-defined]
            types[s] = tv
            changed = True
    return changed


def _type(v: Value, types: dict, param_types: dict) -> Any:
    if isinstance(v, Param):
        return param_types.get(v.name, UNKNOWN)
    if isinstance(v, Const):
        return type_of_argument(v.value)
    return types.get(v, UNKNOWN)


def _same_index(i: Value, j: Value) -> bool:
    """Do two index values certainly denote the same slots (the same value, or displays of the same parts:
    `B[i, :]` is lowered twice)?"""
    if i is j:
        return True
    if isinstance(i, Const) and isinstance(j, Const):
        return type(i.value) is type(j.value) and type(i.value) in (int, str) and i.value == j.value
    if not (isinstance(i, Call) and isinstance(j, Call)) or i.kwargs or j.kwargs or len(i.args) != len(j.args):
        return False
    if i.callee() is not j.callee() or i.callee() not in (ops.tuple_of, slice):
        return False
    return all(_same_part(x, y) for x, y in zip(i.args, j.args))


def _same_part(x: Value, y: Value) -> bool:
    if x is y:
        return True
    lx, ly = literal(x), literal(y)
    if lx is not _NOT and type(lx) is type(ly) and (lx is None or type(lx) is int) and lx == ly:
        return True
    return _same_index(x, y)

