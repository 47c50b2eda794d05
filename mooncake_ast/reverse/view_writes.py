"""Writes through a view of a float array, made writes of the array itself: `v = a[::2]; v *= s` is `a[::2] = v * s`.

A basic index (ints and slices) of a float array is a view: an in-place update of it (`v *= s`), or a write of all
of it (`mid[:] = x`), writes the array's memory.  Without this module the array goes to identity-keyed storage
and its whole pullback to the generic helpers (`inplace_reverse`, `getitem_reverse`, `setitem_reverse`, `acc`).  A
person reads both lines as writes of the array by that index, and they are, slot for slot:

* `u = iop(v, w)` with u read by nothing (the name's later uses read another value) becomes `u = op(v, w)` then
  `a[idx] = u`: the same values land in the same memory (NumPy buffers overlapping operands, and the update of a
  float view by a real w of no more axes fails exactly where writing `v op w` back does: slot_updates.py's
  conditions); v is still the view, so whatever reads it later sees what it saw;
* `v[:] = x` (or `v[...] = x`) of a view with at least one axis becomes `a[idx] = x`: the same slots, broadcast
  the same way.

Then the array is read and written by basic indices, and reverse/buffers.py gives it a plain adjoint array.  Only
a basic index (a fancy one copies: writing the copy leaves the array as it was), a float array, and a view that is
an array (an int index of a vector gives a NumPy float, which `v *= s` rebinds without writing anything).
"""
from __future__ import annotations

import operator
from typing import Any, Callable

from ..ir.analysis import uses
from ..ir.nodes import Call, Const
from ..ir.types import NOT_LITERAL, UNKNOWN, Num, basic_index, is_float_array, literal
from .prepare import _PLAIN_OF_INPLACE
from .slot_updates import _type
from .special import hashable


def plain_view_writes(ir: Any, types: dict, param_types: dict, callee: Callable) -> bool:
    """Rewrite each qualifying update or whole write of a view (see the module docstring); True if any was."""
    count = uses(ir)
    changed = False
    for b in ir.blocks:
        for s in list(b.stmts):
            fn = callee(s)[0]
            if not hashable(fn) or s.kwargs:
                continue
            plain = _PLAIN_OF_INPLACE.get(fn)
            if plain is not None and len(s.args) == 2 and not count.get(s):
                view, w = s.args
                found = _view_of(view, types, param_types, callee)
                if found is None or not _real_operand(_type(w, types, param_types), types.get(view, UNKNOWN)):
                    continue
                a, idx = found
                s.fn, s.args = Const(plain), [view, w]
                s.plain_inplace = True  # type: ignore[attr-defined]
                write = Call(Const(operator.setitem), [a, idx, s], loc=s.loc)
                write.block = b  # type: ignore[attr-defined]
                write.fills_slot = True  # type: ignore[attr-defined]  # (it succeeds only where the shapes are equal)
                b.stmts.insert(b.stmts.index(s) + 1, write)
                changed = True
            elif fn is operator.setitem and len(s.args) == 3 and _whole(s.args[1]):
                view, _, x = s.args
                found = _view_of(view, types, param_types, callee)
                tv = types.get(view, UNKNOWN)
                if found is None or not (tv.axes if is_float_array(tv) else False) or \
                        not _real_operand(_type(x, types, param_types), tv):
                    continue
                whole = s.args[1]
                s.args = [found[0], found[1], x]
                if count.get(whole) == 1 and isinstance(whole, Call) and whole in b.stmts:
                    b.stmts.remove(whole)  # (the `:` nothing else reads)
                changed = True
    return changed


def _view_of(view: Any, types: dict, param_types: dict, callee: Callable) -> Any:
    """(the array, the index) if `view` is a basic index of a float array that gives an array, else None."""
    if not (isinstance(view, Call) and callee(view)[0] is operator.getitem and len(view.args) == 2 and
            not view.kwargs):
        return None
    a, idx = view.args
    if not is_float_array(_type(a, types, param_types)) or not is_float_array(types.get(view, UNKNOWN)):
        return None
    if basic_index(_type(idx, types, param_types), idx) is None:
        return None
    return a, idx


def _real_operand(tw: Any, tv: Any) -> bool:
    """A real number, or a float array of no more axes than the view (what slot_updates.py asks of `t op= v`)."""
    return isinstance(tw, Num) and tw.kind in ("float", "int", "bool") or \
        is_float_array(tw) and is_float_array(tv) and tw.axes is not None and tv.axes is not None and \
        len(tw.axes) <= len(tv.axes)


def _whole(idx: Any) -> bool:
    """`:` or `...`: every slot of what is indexed."""
    if isinstance(idx, Call) and idx.callee() is slice and not idx.kwargs:
        return len(idx.args) == 3 and all(literal(a) is None for a in idx.args)
    value = literal(idx)
    return value is not NOT_LITERAL and (value is Ellipsis or value == slice(None, None, None))
