"""Array indexes as the pullback must read them: the positions the forward pass read, even if the code writes
the index array afterwards.

`v = M[idx]` is reversed as `np.add.at(M_bar, idx, v_bar)`, and the pullback runs after the whole forward
pass: if the function writes `idx` (or the array it is a view of) after the read, `idx` then names other
positions, and the gradient goes to the wrong ones.  An index part nothing writes is read as it is; one that
may be written is copied right before the read (a save, record._patch_saves) and the pullback reads the copy.
"""
from __future__ import annotations

import builtins
import operator
from typing import TYPE_CHECKING

import numpy as np

from .. import ops
from ..errors import UnsupportedDerivativeError
from ..ir.nodes import Call, Const, Param, Value
from ..ir.op_types import makes_new_array
from . import buffers

if TYPE_CHECKING:
    from .transform import ReverseTransform

_DEPTH = 4


def unwritten(rt: "ReverseTransform", v: Value, uses: dict, depth: int = 0) -> bool:
    """Does nothing write the index part v, nor the array it is a view of (`np.argsort(x)[::-1][:k]`)?  A constant, a
    parameter, a display, or an array made here, read only (`_read_only`), through views of such arrays read only
    as well."""
    if isinstance(v, Const):
        return True
    if depth > _DEPTH or not _read_only(rt, v, uses, depth):
        return False
    if isinstance(v, Param):
        return True
    if not isinstance(v, Call):
        return False  # (a phi, a global, a cell: whatever it is when the code runs)
    fn = rt.resolver.callee(v)[0]
    if fn is ops.list_of or fn is slice or fn is builtins.sorted:
        return True  # (a display, a slice, `sorted(...)`: a new object, read only)
    if fn is operator.getitem and len(v.args) == 2 and buffers.is_basic_index(rt, v.args[1]):
        return unwritten(rt, v.args[0], uses, depth + 1)  # (a view: its base must stay as it is too)
    return makes_new_array(fn) and not {"out", "copy"} & set(v.kwargs)


def _read_only(rt: "ReverseTransform", v: Value, uses: dict, depth: int) -> bool:
    """Is every use of v an index (of a read or a write), a part of an index tuple, a view read only in turn, or a
    use that makes a new value?"""
    for r, p in uses.get(v, []):
        if not isinstance(r, Call):
            return False
        fn = rt.resolver.callee(r)[0]
        if fn in (operator.getitem, operator.setitem, operator.delitem) and p == 1:
            continue  # (an index reads its parts: `y[mask] = v` writes y, not mask)
        if p == 1 and buffers.scatter_ufunc(rt, r) is not None:
            continue  # (`np.add.at(y, idx, v)` writes y, not idx)
        if fn is operator.getitem and p == 0 and len(r.args) == 2 and buffers.is_basic_index(rt, r.args[1]):
            if depth > _DEPTH or not _read_only(rt, r, uses, depth + 1):
                return False
            continue
        if fn is ops.tuple_of and all(q == 1 and isinstance(u, Call) and
                                      rt.resolver.callee(u)[0] in (operator.getitem, operator.setitem)
                                      for u, q in uses.get(r, [])):
            continue
        if not buffers.reads_only_use(rt, r, p, None):
            return False
    return True


def index_of_read(rt: "ReverseTransform", s: Call) -> Value:
    """The index of the read `s = a[idx]` for its pullback: as buffers.index_in_pullback rebuilds it, with the one
    array part that may be written since replaced by its copy made before the read."""
    idx = s.args[1]
    if buffers.array_index(rt, idx) is None or buffers.writes_nothing(rt):
        return buffers.index_in_pullback(rt, idx)  # (ints and slices are values: nothing can change them)
    uses = buffers.uses_of(rt)
    parts = list(idx.args) if isinstance(idx, Call) and idx.callee() is ops.tuple_of else [idx]
    written = [k for k, part in enumerate(parts) if not unwritten(rt, part, uses)]
    if not written:
        return buffers.index_in_pullback(rt, idx)
    if len(written) > 1:
        raise UnsupportedDerivativeError(
            f"{s.loc or 'this function'}: an array read by an index of several arrays that the code writes after "
            f"the read is not supported in reverse mode; copy the index arrays first (`rows = rows.copy()`)")
    saved = rt.saves.get(s)
    if saved is None:
        saved = rt.saves[s] = Call(Const(np.copy), [parts[written[0]]], loc=s.loc)
        rt.home[saved] = rt.home[s]
    if len(parts) == 1 and parts[0] is idx:
        return rt.primal(saved)
    return rt.b.call(ops.tuple_of, [rt.primal(saved) if k == written[0] else buffers.index_in_pullback(rt, part)
                                    for k, part in enumerate(parts)])
