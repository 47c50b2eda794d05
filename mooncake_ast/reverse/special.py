"""Statements whose reverse is a run-time helper rather than a template.

Reads of parts (`x[i]`, `x.a`, a closure cell) add into the storage of what they read
from; writes (`x[i] = v`, `x.a = v`, `x += y` on arrays, `lst.append(v)`, `s.add(k)`)
save in the forward pass what they overwrite and, in the pullback, restore it and hand
the overwritten slot's adjoint to the written value.  For each callable: the forward
save (or None), the reverse helper, and the positions of the arguments whose value
adjoints the helper returns.
"""
from __future__ import annotations

import operator
from typing import Any

from .. import ops
from . import part_reads, shadows

INPLACE = {
    operator.iadd: operator.add, operator.isub: operator.sub, operator.imul: operator.mul,
    operator.itruediv: operator.truediv, operator.ipow: operator.pow, operator.imod: operator.mod,
    operator.imatmul: operator.matmul, operator.ior: operator.or_, operator.ifloordiv: operator.floordiv,
}
# callable -> (forward save or None, reverse helper, positions of arguments whose adjoint values it returns)
SPECIAL: dict = {
    operator.getitem: (None, part_reads.getitem_reverse, (0,)),
    getattr: (None, part_reads.getattr_reverse, (0,)),
    ops.cell_get: (None, shadows.cell_get_reverse, (0,)),
    operator.setitem: (shadows.save_item, shadows.setitem_reverse, (2,)),
    setattr: (shadows.save_attr, shadows.setattr_reverse, (2,)),
    object.__setattr__: (shadows.save_attr, shadows.setattr_reverse, (2,)),  # (a frozen dataclass's __post_init__)
    ops.cell_set: (shadows.save_cell, shadows.cell_set_reverse, (1,)),
    list.append: (None, shadows.append_reverse, (1,)),
    set.add: (shadows.save_membership, shadows.set_add_reverse, ()),
    operator.delitem: (shadows.save_delete, shadows.delitem_reverse, ()),
    **{op: (shadows.save_inplace, shadows.inplace_reverse, (0, 1)) for op in INPLACE},
}
SAVE_ARGS = {shadows.save_item: (0, 1), shadows.save_attr: (0, 1), shadows.save_cell: (0,), shadows.save_inplace: (0,),
             shadows.save_membership: (0, 1), shadows.save_delete: (0, 1)}


def hashable(x: Any) -> bool:
    """Can x be looked up in the tables above (a callable with `__eq__` and no hash cannot)?"""
    try:
        hash(x)
        return True
    except TypeError:
        return False
