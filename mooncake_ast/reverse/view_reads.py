"""Slices of a float array nothing writes, read to compute new values: `u[2:] - 2 * u[1:-1] + u[:-2]`.

A basic index (ints and slices) of a float array returns a view, and without this module every view read sends
its array's adjoint to identity-keyed storage (a write through the view, or to the array, would change what
the other sees).  Arrays that are read element by element and written are adjoint buffers (buffers.py) when
they are parameters or made once at the top of the function; what is left is the array made afresh in each
trip of a loop (a stencil's `u` after carried_inplace.py made `u += ...` plain, a temporary inside the body).
When nothing writes the array or any array sharing its storage (activity analysis keeps it out of storage) and
the view is only read by operations that make new arrays, the view is as good as a copy, and its reverse is
what a person writes: `t = np.zeros_like(u); t[2:] += g; u_bar = u_bar + t`.
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING

import numpy as np

from .. import ops
from ..ir.nodes import Call, Value
from ..ir.types import is_float_array, is_real
from . import adjoints as adj
from . import kept_indexes
from .buffers import array_index, index_in_pullback, is_basic_index, reads_only, uses_of, writes_nothing
from .cleanup import is_zero

if TYPE_CHECKING:
    from .transform import ReverseTransform


def find(rt: "ReverseTransform") -> set:
    """The reads `v = a[idx]` this module may differentiate plainly (if `a` stays out of storage)."""
    uses = uses_of(rt)
    found = set()
    for b in rt.ir.blocks:
        for s in b.stmts:
            if s.kwargs or len(s.args) != 2 or rt.resolver.callee(s)[0] is not operator.getitem:
                continue
            a, idx = s.args
            if is_float_array(rt.type_of(a)) and is_basic_index(rt, idx) and is_real(rt.type_of(s)) and \
                    reads_only(rt, s, uses, None):
                found.add(s)
            elif is_float_array(rt.type_of(a)) and is_float_array(rt.type_of(s)) and _copying_index(rt, idx, uses) \
                    and reads_only(rt, s, uses, None):
                found.add(s)  # (`x[idx]`, `x[rows, [2, 0]]`: a copy, read to make new values)
    return found


def _copying_index(rt: "ReverseTransform", idx: Value, uses: dict) -> bool:
    """Is idx an index of int arrays (NumPy copies what it reads) that nothing writes, so the pullback's
    `np.add.at(t, idx, g)` reads the positions the forward pass read?"""
    if array_index(rt, idx) != "int":
        return False
    if writes_nothing(rt):
        return True
    if isinstance(idx, Call) and idx.callee() is ops.tuple_of:
        return all(p == 1 and isinstance(r, Call) and rt.resolver.callee(r)[0] is operator.getitem
                   for r, p in uses.get(idx, [])) and all(kept_indexes.unwritten(rt, part, uses) for part in idx.args)
    return kept_indexes.unwritten(rt, idx, uses)


def exempt(rt: "ReverseTransform", s: Call) -> bool:
    """Does the read s need no identity-keyed storage?"""
    return s in rt.view_reads


def handles(rt: "ReverseTransform", s: Call) -> bool:
    """Is s a read this module reverses (its array kept out of storage)?"""
    return s in rt.view_reads and s.args[0] not in rt.stored and s not in rt.stored


def reverse_read(rt: "ReverseTransform", s: Call) -> None:
    """`v = a[idx]`: `t = np.zeros_like(a); t[idx] += v_bar; a_bar = a_bar + t`."""
    a = s.args[0]
    g = rt.take_adj(s, keep_spread=True)
    if g is None or is_zero(g) or not rt.active(a):
        return
    whole = rt.b.call(np.zeros_like, [rt.primal(a)])
    if array_index(rt, s.args[1]) == "int":  # (positions may repeat: each adds its part)
        idx = kept_indexes.index_of_read(rt, s)
        add_at = np.add.at if rt.is_dense(g) else adj.add_at_unless_zero  # (g may be the symbolic zero)
        st = rt.b.call(add_at, [whole, idx, g])
    else:
        add = ops.add_to_item if rt.is_dense(g) else adj.add_to_item_unless_zero  # (g may be the symbolic zero)
        st = rt.b.call(add, [whole, g, index_in_pullback(rt, s.args[1])])
    st.keep = True  # type: ignore[attr-defined]
    rt.dense_values.add(whole)
    rt.accumulate(a, whole)
