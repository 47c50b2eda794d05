"""Adjoint buffers: float arrays read and written element by element get a plain `x_bar` array.

`y[i] = 0.5 * y[i - 1] + np.tanh(x[i])` is where a person writes

    x_bar = np.zeros_like(x)           # once, at the start of the pullback
    ...
    y[i] = old                         # undo the write
    t_bar = y_bar[i]; y_bar[i] = 0.0   # the slot's adjoint goes to the value written
    x_bar[i] += t_bar * (1.0 - t * t)
    y_bar[i - 1] += 0.5 * t_bar

and not identity-keyed storage.  A scatter-add into such an array, `np.add.at(buf, idx, v)` (or `np.subtract.at`),
is reversed as a person writes it too: `buf[idx] = old` (restored, if the pullback reads buf afterwards) and
`v_bar += buf_bar[idx]` (summed over what v was broadcast along); buf's adjoint passes through unchanged.
That is right whenever nothing else can reach the array:
it is a parameter the call cannot alias (reverse/argument_kinds.kinds_of) or made once by this
function, every use is a basic index (ints and slices: no repeated positions), a write
of a float or a float array (NumPy copies it in), a NumPy operation that returns a new
array, or a return; and every view taken of it (`x[1:]`) is only read by such
operations.  `find_buffers` says which arrays qualify; the transform then leaves them out
of storage, and `reverse_read` / `reverse_write` emit the lines above.
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import ops
from ..ir.nodes import Call, Const, Param, Return, Value
from ..ir.op_types import makes_new_array
from ..ir.types import (FLOAT, INT, NOT_LITERAL, Arr, Lst, Num, Tup, basic_index, getitem_type, int_list_literal,
                         is_float_array, is_real, literal)
from . import adjoints as adj
from . import kept_indexes, shadows
from .special import INPLACE
from .specialise import unbroadcast
from .templates import PH, TemplateBuilder

if TYPE_CHECKING:
    from .transform import ReverseTransform

_SHAPE_ATTRIBUTES = ("shape", "size", "ndim", "dtype")


def uses_of(rt: "ReverseTransform") -> dict:
    uses: dict = {}
    for b in rt.ir.blocks:
        for phi in b.phis:
            for v in phi.incoming.values():
                uses.setdefault(v, []).append((phi, None))
        for s in b.stmts:
            for k, a in enumerate([s.fn, *s.args]):
                uses.setdefault(a, []).append((s, k - 1))
            for a in s.kwargs.values():
                uses.setdefault(a, []).append((s, "kw"))
        if isinstance(b.term, Return):
            uses.setdefault(b.term.value, []).append(("return", None))
    return uses


def is_basic_index(rt: "ReverseTransform", idx: Value) -> bool:
    """Ints and slices only: no position can repeat, so `a_bar[idx] += g` is right."""
    return bool(basic_index(rt.type_of(idx), idx))


def array_index(rt: "ReverseTransform", idx: Value) -> Any:
    """"int" for an integer array index (positions may repeat: `np.add.at`), "bool" for a mask, else None."""
    t = rt.type_of(idx)
    if int_list_literal(idx) is not None or isinstance(t, Lst) and t.item == INT:
        return "int"  # (`x[[2, 0]]`, a list of ints: NumPy reads the list as an int array)
    if isinstance(t, Arr) and t.axes is not None and len(t.axes) >= 1:
        return "int" if t.dtype in "iu" else "bool" if t.dtype == "b" else None
    if isinstance(t, Tup) and t.items and isinstance(idx, Call) and idx.callee() is ops.tuple_of and all(
            isinstance(i, Arr) and i.dtype in "iu" and i.axes for i in t.items):
        return "int"  # (`x[rows, cols]`: positions may repeat too)
    return None


def distinct_positions(rt: "ReverseTransform", idx: Value, r: Value) -> bool:
    """Is idx a list display of int literals naming distinct rows of array r (`x[[0, 2]] = v`; `0` and `-1` may
    be one row, so negative ones must not meet their positive twins: r's first axis must be long enough to
    tell)?  Then no position is written twice."""
    ks = int_list_literal(idx)
    if ks is None or len(set(ks)) != len(ks):
        return False
    if all(k >= 0 for k in ks) or all(k < 0 for k in ks):
        return True
    return False  # (mixed signs: the array's length decides whether two name one row)


def reads_only(rt: "ReverseTransform", v: Value, uses: dict, root: Value) -> bool:
    """Is every use of v an operation that makes a new array (or a copy into root)?"""
    return all(isinstance(s, Call) and (reads_only_use(rt, s, pos, root) or _joined_item(rt, s, pos, uses, root))
               for s, pos in uses.get(v, []))


_JOINS = {np.concatenate, np.stack, np.vstack, np.hstack, np.array}


def _joined_item(rt: "ReverseTransform", s: Call, pos: Any, uses: dict, root: Value) -> bool:
    """Is s a list or tuple display, read (at position pos) only by joins that copy it into a new array
    (`np.concatenate([u[:1], v, u[-1:]])`)?  Then nothing keeps the item through the display."""
    if not (type(pos) is int and pos >= 0 and not s.kwargs and rt.resolver.callee(s)[0] in (ops.list_of, ops.tuple_of)):
        return False
    users = uses.get(s, [])
    return bool(users) and all(isinstance(r, Call) and p == 0 and rt.resolver.callee(r)[0] in _JOINS and
                               reads_only_use(rt, r, 0, root) for r, p in users)


def reads_only_use(rt: "ReverseTransform", s: Call, pos: Any, root: Value) -> bool:
    """Does statement s, reading a value at position pos, make a new array of it (or copy it into root)?"""
    if pos is None or pos == -1:
        return False
    fn, rule = rt.resolver.callee(s)
    if fn is operator.setitem and pos == 2 and s.args[0] is root:
        # (copied into root: but not root itself, `b[::-1] = b` / `b[:] = b`, whose pullback would add the written
        # slots' adjoint into the buffer and then clear those slots of the same buffer)
        return s.args[2] is not root
    if fn is getattr and pos == 0 and isinstance(s.args[1], Const) and s.args[1].value in _SHAPE_ATTRIBUTES:
        return True
    if fn is len and pos == 0:
        return True  # (an int: no alias, no adjoint)
    return makes_new_array(fn) and rule is not None and (rule.zero or rule.vjp is not None) and not rule.mutates and \
        rule.user_rrule is None and rule.user_frule is None and not {"out", "copy"} & set(s.kwargs)


def writes_nothing(rt: "ReverseTransform") -> bool:
    """Does the function write no object (no item or attribute stores, no in-place arithmetic on arrays, no
    mutating rule, no code we do not see)?  Then views cannot tell their base from a copy: a view's
    adjoint can be a buffer of its own, handed to its base by the view's pullback (`np.reshape`,
    `np.transpose`), as for a new array."""
    for b in rt.ir.blocks:
        for s in b.stmts:
            fn, rule = rt.resolver.callee(s)
            if fn is None or "out" in s.kwargs:
                return False
            if fn in (operator.getitem, getattr):
                continue
            if fn in INPLACE:
                if all(rt.is_num(a) or isinstance(a, Const) for a in s.args):
                    continue  # (`x += y` of numbers makes a new number)
                return False
            if rule is None or rule.mutates or rule.user_frule is not None or rule.user_rrule is not None:
                return False
    return True


def _qualifies(rt: "ReverseTransform", r: Value, uses: dict, quiet: bool = False) -> bool:
    if not is_float_array(rt.type_of(r)):
        return False
    if isinstance(r, Param):
        if not rt.param_is_typed(r):
            return False
    elif not (isinstance(r, Call) and (rt.home.get(r) in rt.top or _block_local(rt, r, uses))
              and (makes_new_array(rt.resolver.callee(r)[0]) or quiet) and not {"out", "copy"} & set(r.kwargs)):
        return False  # (`b = a` or a view would share a's storage, and a write through one would change the other)
    return admitted_parts(rt, r, uses) > 0


def admitted_parts(rt: "ReverseTransform", r: Value, uses: dict) -> int:
    """How many of the uses of array r read or write parts of it (indexes, scatters, loops over it), every use
    being one a plain adjoint array serves (see the module docstring); -1 if one is not."""
    parts = 0
    for s, pos in uses.get(r, []):
        if s == "return":
            continue
        if not isinstance(s, Call) or pos is None or pos == -1:
            return -1
        fn, _ = rt.resolver.callee(s)
        # (a parameter written in place: the caller may hold adjoints of the array as it is after the call, in
        # identity-keyed storage, which undoing the writes must see; its buffer starts from them, `starts`)
        if fn is operator.getitem and pos == 0 and array_index(rt, s.args[1]) is not None and not s.kwargs:
            parts += 1  # (`x[idx]`, `x[mask]`: a copy, its adjoint added back by position)
            continue
        if fn is operator.setitem and pos == 0 and (array_index(rt, s.args[1]) == "bool" or
                                                    distinct_positions(rt, s.args[1], r)) and not s.kwargs and \
                is_real(rt.type_of(s.args[2])):
            parts += 1  # (`x[mask] = v`, `x[[0, 2]] = v`: no position written twice, so undone like a basic index)
            continue
        if fn in (operator.getitem, operator.setitem) and pos == 0 and is_basic_index(rt, s.args[1]) and not s.kwargs:
            parts += 1
            if fn is operator.setitem and not is_real(rt.type_of(s.args[2])):
                return -1
            if fn is operator.getitem and isinstance(rt.type_of(s), Arr) and not (
                    reads_only(rt, s, uses, r) and _read_before_writes(rt, s, uses, r)):
                return -1
            continue
        if pos == 0 and scatter_ufunc(rt, s) is not None and s.args[2] is not r and is_real(rt.type_of(s.args[2])) \
                and _scatter_index(rt, s.args[1], uses):
            parts += 1  # (`np.add.at(buf, idx, v)`: positions may repeat, each adds its part of v)
            continue
        if fn is ops.sequence and pos == 0 and not s.kwargs and _walked_only(rt, s, uses, r):
            parts += 1  # (`for v in x`: the loop reads x[k] of its counter k)
            continue
        if not reads_only(rt, r, {r: [(s, pos)]}, r):
            return -1
    return parts


_SCATTERS = (np.add, np.subtract)


def scatter_ufunc(rt: "ReverseTransform", s: Any) -> Any:
    """np.add or np.subtract if s is `np.add.at(a, idx, v)` (`np.subtract.at`: three operands, no keywords), else
    None.  (The resolver leaves the bound method to run-time dispatch; the ufunc is NumPy's, read from the module.)"""
    f = s.fn if isinstance(s, Call) else None
    if not (isinstance(f, Call) and f.callee() is getattr and len(f.args) == 2 and literal(f.args[1]) == "at" and
            len(s.args) == 3 and not s.kwargs):
        return None
    u = rt.resolver.raw_resolve(f.args[0])
    return u if any(u is x for x in _SCATTERS) else None


def _scatter_index(rt: "ReverseTransform", idx: Value, uses: dict) -> bool:
    """An index of ints and slices, or of an int array nothing writes (the pullback reads the positions the forward
    pass scattered into)."""
    return is_basic_index(rt, idx) or array_index(rt, idx) == "int" and kept_indexes.unwritten(rt, idx, uses)


def scatter_methods(rt: "ReverseTransform") -> set:
    """The statements making the bound method of a scatter into a buffer (`np.add`, then `.at`), read by nothing else:
    they carry no derivative and need no storage."""
    found = getattr(rt, "_scatter_methods", None)
    if found is not None and found[0] == frozenset(rt.buffers):
        return found[1]
    uses = uses_of(rt)
    out: set = set()
    for b in rt.ir.blocks:
        for s in b.stmts:
            if scatter_ufunc(rt, s) is not None and s.args[0] in rt.buffers:
                at = s.fn
                if len(uses.get(at, [])) == 1:
                    out.add(at)
                    base = at.args[0]
                    if isinstance(base, Call) and len(uses.get(base, [])) == 1:
                        out.add(base)
    rt._scatter_methods = (frozenset(rt.buffers), out)
    return out


def _read_before_writes(rt: "ReverseTransform", view: Call, uses: dict, root: Value) -> bool:
    """Is every read of `view` (a basic index of root that is an array: NumPy's view of root's storage) in view's own
    block, before any write to root that comes after view there?

    Read before a write, the view is as good as a copy, and its adjoint can go to root's buffer where the view is
    taken.  Read after one (`v = a[:2]; a[0] = y; v.sum()`), it sees the value written, and its adjoint belongs to
    that value: the write's pullback, which runs first, would not find it in root's buffer."""
    home = rt.home.get(view)
    if home is None:
        return False
    readers = []
    for s, _ in uses.get(view, []):
        if not isinstance(s, Call) or rt.home.get(s) is not home:
            return False
        readers.append(s)
        if rt.resolver.callee(s)[0] in (ops.list_of, ops.tuple_of):  # (a display read by a join: `_joined_item`)
            for r, _ in uses.get(s, []):
                if not isinstance(r, Call) or rt.home.get(r) is not home:
                    return False
                readers.append(r)
    order = {id(s): k for k, s in enumerate(home.stmts)}
    first, last = order[id(view)], max((order[id(s)] for s in readers), default=-1)
    return not any(rt.resolver.callee(s)[0] is operator.setitem and s.args[0] is root
                   for s in home.stmts[first + 1:last + 1])


def _block_local(rt: "ReverseTransform", r: Call, uses: dict) -> bool:
    """Is the array r made, and all of it (and of its views) used, in one block that not every run passes exactly once
    (a loop's trip, a branch)?  Then its buffer starts at zero where the pullback begins to undo that block
    (`local_buffers`), once per run of the block, as the array itself is made afresh in each."""
    home = rt.home.get(r)
    if home is None or home in rt.top:
        return False
    work, seen = [r], {r}
    while work:
        v = work.pop()
        for s, pos in uses.get(v, []):
            if not isinstance(s, Call) or rt.home.get(s) is not home or rt.resolver.callee(s)[0] is ops.sequence:
                return False
            if rt.resolver.callee(s)[0] is operator.getitem and pos == 0 and s not in seen:
                seen.add(s)
                work.append(s)  # (a view's readers: in the block too)
    return True


def local_buffers(rt: "ReverseTransform", block: Any) -> list:
    """The buffers made in block that start at zero where the pullback undoes it (`_block_local`), in order."""
    webs = getattr(rt, "buffer_webs", {})  # (a loop-carried one's adjoint arrives along its phi: buffer_webs.py)
    return [s for s in block.stmts if s in rt.buffers and isinstance(s, Call) and block not in rt.top and s not in webs]


def _walked_only(rt: "ReverseTransform", seq: Call, uses: dict, root: Value) -> bool:
    """Is the loop sequence `seq` of array root (ops.sequence gives the array itself) only read item by item, by an
    int (the loop's counter) and `len`, each item a float or an array only read by operations that make new ones?"""
    for s, pos in uses.get(seq, []):
        if not isinstance(s, Call) or pos != 0 or s.kwargs:
            return False
        fn, _ = rt.resolver.callee(s)
        if fn is len:
            continue
        if fn is not operator.getitem or rt.type_of(s.args[1]) != INT:
            return False
        if isinstance(rt.type_of(s), Arr) and not (reads_only(rt, s, uses, root) and
                                                    _read_before_writes(rt, s, uses, root)):
            return False
    return True


def root_of(rt: "ReverseTransform", v: Value) -> Any:
    """The buffer v is, or the buffer whose items the loop sequence v walks (`for v in x`); None otherwise."""
    if v in rt.buffers:
        return v
    if isinstance(v, Call) and v.callee() is ops.sequence and len(v.args) == 1 and v.args[0] in rt.buffers:
        return v.args[0]
    return None


def start(rt: "ReverseTransform", r: Value) -> Value:
    """The buffer's first value: zeros, or for a parameter the function writes, the adjoint the caller keeps for
    the array after the call (`shadows.claim`; it also remembers the array's state, which the restores roll
    back)."""
    uses = uses_of(rt).get(r, []) if isinstance(r, Param) else []
    written = any(isinstance(s, Call) and pos == 0 and (rt.resolver.callee(s)[0] is operator.setitem or
                                                         scatter_ufunc(rt, s) is not None) for s, pos in uses)
    return rt.b.call(shadows.claim if written else np.zeros_like, [rt.primal(r)])


def find_buffers(rt: "ReverseTransform") -> set:
    """Float arrays whose adjoints are plain arrays updated in place (see the module docstring)."""
    uses = uses_of(rt)
    found = set()
    quiet = writes_nothing(rt)
    for v in list(uses):
        if isinstance(v, (Param, Call)) and _qualifies(rt, v, uses, quiet):
            found.add(v)
    # A loop's sequence of a buffer is that buffer (root_of): its reads add into the buffer's adjoint.
    return {v for v in found if not (isinstance(v, Call) and v.callee() is ops.sequence and v.args[0] in found)}


def exempt(rt: "ReverseTransform", s: Call, fn: Any) -> bool:
    """Does statement s use a buffer in a way that needs no identity-keyed storage?"""
    if s in scatter_methods(rt):
        return True  # (`np.add.at` of a scatter into a buffer: NumPy's method)
    if not s.args or root_of(rt, s.args[0]) is None:
        return False
    if fn in (operator.getitem, operator.setitem) or fn is ops.sequence or fn is len:
        return True
    if fn is None and s.args[0] in rt.buffers and scatter_ufunc(rt, s) is not None:
        return True  # (`np.add.at(buf, idx, v)`: v is copied in, nothing keeps it)
    return fn is getattr and isinstance(s.args[1], Const) and s.args[1].value in _SHAPE_ATTRIBUTES


# ---------------------------------------------------------------- the pullback


def index_in_pullback(rt: "ReverseTransform", idx: Value) -> Value:
    """The index, rebuilt in the pullback when it is made of constants (so `a[1:]` prints as such)."""
    if isinstance(idx, Const):
        return idx
    if type(literal(idx)) is int:
        return Const(literal(idx))  # (`-1` is neg(1) in the IR: `y[-1] = old`, nothing on the tape)
    if isinstance(idx, Call) and idx.callee() is slice and all(literal(a) is not NOT_LITERAL for a in idx.args):
        return rt.b.call(slice, [Const(literal(a)) for a in idx.args])
    if isinstance(idx, Call) and idx.callee() is ops.tuple_of:
        return rt.b.call(ops.tuple_of, [index_in_pullback(rt, a) for a in idx.args])
    return rt.primal(idx)


def save_for(rt: "ReverseTransform", s: Call) -> Call:
    """What the forward pass keeps of the slot `s` (a write) overwrites: the float itself, or a copy."""
    part = part_type(rt, s)
    if part == FLOAT:
        return Call(Const(operator.getitem), [s.args[0], s.args[1]], loc=s.loc)
    return Call(Const(shadows.save_item), [s.args[0], s.args[1]], loc=s.loc)


def reverse_read(rt: "ReverseTransform", s: Call) -> None:
    """`v = a[idx]`: `a_bar[idx] += v_bar` (which broadcasts a spread v_bar in)."""
    g = rt.take_adj(s, keep_spread=True)
    a = root_of(rt, s.args[0])
    if g is None or not rt.active(a):
        return
    buf = rt.read_adj(a)
    idx = kept_indexes.index_of_read(rt, s)  # (an index array the code writes later: its copy)
    if array_index(rt, s.args[1]) == "int":
        st = rt.b.call(np.add.at, [buf, idx, g]) if rt.is_dense(g) else rt.b.call(adj.add_at_unless_zero, [buf, idx, g])
        st.keep = True  # type: ignore[attr-defined]
        return
    # (a float slot takes the symbolic zero too: `a[i] += NoTangent` adds nothing)
    fn = ops.add_to_item if rt.is_dense(g) or rt.type_of(s) == FLOAT else adj.add_to_item_unless_zero
    st = rt.b.call(fn, [buf, g, idx])
    st.keep = True  # type: ignore[attr-defined]


def reverse_write(rt: "ReverseTransform", s: Call) -> None:
    """`a[idx] = v`: restore the slot, hand its adjoint to v, and clear it.

    (The index is built for each use, so each prints inline: `y[i] = old`, `y_bar[i] = 0.0`.)"""
    a, _, v = s.args
    saved = rt.saves.get(s)
    if saved is None:
        saved = rt.saves[s] = save_for(rt, s)
        rt.home[saved] = rt.home[s]
    restore = rt.b.call(operator.setitem, [rt.primal(a), index_in_pullback(rt, s.args[1]), rt.primal(saved)])
    restore.keep = True  # type: ignore[attr-defined]
    restore.restores = (a, s)  # type: ignore[attr-defined]  # (reverse/dead_restores.py may drop it)
    if not rt.active(a):
        return
    buf = rt.read_adj(a)
    part = part_type(rt, s)
    if rt.active(v):
        g = rt.b.call(operator.getitem, [buf, index_in_pullback(rt, s.args[1])])
        if part != FLOAT:
            g = rt.b.call(np.copy, [g])
        rt.dense_values.add(g)
        if not _fills_slot(rt, s):
            g = _unbroadcast(rt, g, part, v)
        rt.accumulate(v, g)
    clear = rt.b.call(operator.setitem, [buf, index_in_pullback(rt, s.args[1]), Const(0.0)])
    clear.keep = True  # type: ignore[attr-defined]


def reverse_scatter(rt: "ReverseTransform", s: Call) -> None:
    """`np.add.at(a, idx, v)`: restore the slots (`a[idx] = old`: repeated positions held one value), and
    `v_bar += a_bar[idx]` summed to v's shape (negated for `np.subtract.at`); a's adjoint passes through."""
    a, idx, v = s.args
    saved = rt.saves.get(s)
    if saved is None:
        fancy = array_index(rt, idx) == "int"  # (NumPy copies what an int array index reads)
        saved = rt.saves[s] = Call(Const(operator.getitem), [a, idx], loc=s.loc) if fancy or part_type(rt, s) == FLOAT \
            else Call(Const(shadows.save_item), [a, idx], loc=s.loc)
        rt.home[saved] = rt.home[s]
    restore = rt.b.call(operator.setitem, [rt.primal(a), index_in_pullback(rt, idx), rt.primal(saved)])
    restore.keep = True  # type: ignore[attr-defined]
    restore.restores = (a, s)  # type: ignore[attr-defined]  # (reverse/dead_restores.py may drop it)
    if not (rt.active(a) and rt.active(v)):
        return
    part = part_type(rt, s)
    g = rt.b.call(operator.getitem, [rt.read_adj(a), index_in_pullback(rt, idx)])
    if part != FLOAT and array_index(rt, idx) != "int":
        g = rt.b.call(np.copy, [g])  # (a view of the buffer, which later steps add into)
    if scatter_ufunc(rt, s) is np.subtract:
        g = rt.b.call(operator.neg, [g])
    rt.dense_values.add(g)
    rt.accumulate(v, _unbroadcast(rt, g, part, v))


def part_type(rt: "ReverseTransform", s: Call) -> Any:
    """The type of `a[idx]` for the read or write s."""
    return getitem_type(rt.type_of(s.args[0]), rt.type_of(s.args[1]), s.args[1])


_ELEMENTWISE = (operator.add, operator.sub, operator.mul, operator.truediv, operator.pow, operator.neg)


def _fills_slot(rt: "ReverseTransform", s: Call) -> bool:
    """Has the value `a[idx] = v` writes the slot's own shape, so that its adjoint is the slot's as it is?  Where
    v is arithmetic of the slot as it was read (`a[idx]`, the same index value) and numbers (an array with numbers keeps
    its shape), or the write is an update of a view made plain (view_writes.py: it succeeded, so the shapes are
    equal)."""
    if getattr(s, "fills_slot", False):
        return True
    a, idx, v = s.args

    def slot_shaped(x: Any, depth: int) -> bool:
        if not isinstance(x, Call) or x.kwargs or depth > 4:
            return False
        fn = rt.resolver.callee(x)[0]
        if fn is operator.getitem:
            return len(x.args) == 2 and x.args[0] is a and x.args[1] is idx
        arrays = [y for y in x.args if not isinstance(rt.type_of(y), Num)]
        return fn in _ELEMENTWISE and bool(arrays) and all(slot_shaped(y, depth + 1) for y in arrays)

    return slot_shaped(v, 0)


def _unbroadcast(rt: "ReverseTransform", g: Value, src: Any, v: Value) -> Any:
    """g (of the slot's type) summed to the shape of the value v that was written (NumPy broadcast it in)."""
    t = TemplateBuilder(rt)
    out = unbroadcast(t, g, src, rt.type_of(v))
    return t.call(adj.unbroadcast, g, PH(v)) if out is NotImplemented else out
