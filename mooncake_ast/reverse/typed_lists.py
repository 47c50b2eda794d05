"""Lists of floats (or of float arrays) the function only reads: a plain list of adjoints, `xs_bar[i] += v_bar`.

`for v in xs: total += v * v` with `xs` a list of floats is where a person writes

    xs_bar = [0.0] * len(xs)           # once, at the start of the pullback
    ...
    xs_bar[i] += 2.0 * v * total_bar   # each read's adjoint into its slot

and not identity-keyed storage.  The call passes a list of Python floats that no other argument
is (reverse/argument_kinds.kinds_of types it `any:list:f`, ir/types.Lst), and this function only reads it:
items by an int index (also through the loop's `sequence`, which for a list is the list itself),
`len`, and the reductions of `READERS`, which make new values.  Then every item read is a float
(its adjoint a number: plain arithmetic) and nothing else can reach the list.  Any other use (a
write, a method, a return, handing it to a user function, a phi) and the parameter loses its type
before the pullback is built (`keep_only_read`), so nothing relies on the item type the writes
could break; storage keeps those right.

A tuple parameter of floats (`*values`, `any:tuple:num;num;num`) walked by a loop is read the same way
(`values_bar = [0.0] * len(values)`, `values_bar[k] += v_bar`, handed back as `tuple(values_bar)`): nothing can
write a tuple or the floats in it.  One used otherwise keeps its tuple type (its items read by constant indexes
have typed adjoints of their own) and is simply not handled here.
"""
from __future__ import annotations

import builtins
import math
import operator
import sys
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import ops
from ..ir.nodes import Call, Const, Param, Value
from ..ir.types import FLOAT, INT, NOT_LITERAL, UNKNOWN, Arr, Lst, Tup, differentiable, literal
from . import adjoints as adj
from . import handed_lists, layer_lists, local_lists, row_lists, star_lists
from .buffers import reads_only_use, uses_of
from .cleanup import is_zero
from .list_adjoints import (add_layer_adjoint, add_list_adjoint, add_slice, add_sorted, add_to_every_slot, zero_arrays, zero_layers,
                            zero_rows)
from .param_adjoints import claim_floats, pop_float_slot
from .special import hashable

if TYPE_CHECKING:
    from .transform import ReverseTransform

# Functions that read a whole list of floats and return a new value (never the list or a view of it): their
# rules' adjoints for the list arrive as values and are added into the list's adjoint.
class _Readers(frozenset):
    """The set, and the functions of `statistics` among `_STATISTICS` once the user's code has imported it (importing
    it here cost a first derivation 2.5 ms; a function of a module not imported cannot be met)."""

    def __contains__(self, fn: object) -> bool:
        if frozenset.__contains__(self, fn):
            return True
        st = sys.modules.get("statistics")
        return st is not None and any(fn is getattr(st, name, None) for name in _STATISTICS)


_STATISTICS = ("mean", "fmean", "pstdev", "stdev", "pvariance", "variance", "median")
READERS = _Readers({builtins.sum, builtins.max, builtins.min, builtins.sorted, math.fsum, np.array, np.asarray, np.sum,
                    np.mean, np.std, np.var, np.prod, np.max, np.min, np.median})


def _roots(rt: "ReverseTransform") -> list:
    """The list parameters typed `any:list:f`, the tuple parameters of floats, the lists the function builds by
    appending (local_lists.py), and the tuple displays of floats it walks (`_tuple_displays`)."""
    return [p for p in rt.ir.params if isinstance(rt.param_types.get(p.name), Lst) or
            float_tuple(rt.param_types.get(p.name)) and _walked(rt, p)] + \
        [s for b in rt.ir.blocks for s in b.stmts if s in rt.local_lists] + _tuple_displays(rt)


def _tuple_displays(rt: "ReverseTransform") -> list:
    """Tuple displays of floats made where the code runs once (`args = (x, y, z)`, or a call's `*args` inlined:
    local_lists.once_blocks) and walked by a loop or read by an index not constant: read as a tuple parameter of
    floats is (`t_bar = [0.0] * len(t)` made at the start of the pullback, `t_bar[k] += v_bar`, and each item's
    slot handed to it where the display is undone).  A tuple cannot be written; any use but a read (a return, a
    store, handing it on) and keep_only_read leaves it to storage."""
    found = getattr(rt, "_tuple_display_candidates", None)
    if found is None:
        once = local_lists.once_blocks(rt.ir)
        found = rt._tuple_display_candidates = [
            s for b in rt.ir.blocks if b in once for s in b.stmts
            if isinstance(s, Call) and s.callee() is ops.tuple_of and s.args and not s.kwargs and s not in s.args]
    return [s for s in found if float_tuple(rt.type_of(s)) and _walked(rt, s)]


def _walked(rt: "ReverseTransform", p: Param) -> bool:
    """Is the tuple p walked by a loop or read by an index not constant (what typed_dicts.py, which keeps one
    adjoint per item for reads by constant indexes, does not take)?"""
    return any(isinstance(s, Call) and s.args and s.args[0] is p and (
        s.callee() is ops.sequence or s.callee() is operator.getitem and len(s.args) == 2 and
        literal(s.args[1]) is NOT_LITERAL) for b in rt.ir.blocks for s in b.stmts)


def _is_root(rt: "ReverseTransform", p: Value) -> bool:
    return p in _roots(rt) if isinstance(p, Param) else p in rt.local_lists or p in _tuple_displays(rt)


def float_tuple(t: Any) -> bool:
    """A tuple of floats (a parameter's type: `*values`)."""
    return isinstance(t, Tup) and bool(t.items) and all(i == FLOAT for i in t.items)


def tuple_param(rt: "ReverseTransform", p: Value) -> bool:
    """Is p a tuple parameter of floats kept here (its adjoint a list of floats, handed back as a tuple)?"""
    return isinstance(p, Param) and rt.typed_lists.get(p) is p and float_tuple(rt.param_types.get(p.name))


def _reads_only(rt: "ReverseTransform", v: Value, uses: dict, aliases: dict, root: Param) -> bool:
    """Is every use of v (the list or its loop `sequence`) a read that cannot change or leak it?"""
    for s, pos in uses.get(v, []):
        if v is root and isinstance(s, Call) and handed_lists.handed_copy(rt, s, v, uses):
            continue  # (`horner(xs[1:], x)`: a copy handed to a function that only reads it, handed_lists.py)
        if pos == 0 and isinstance(s, Call) and s in rt.local_lists and local_lists.is_sorted(s):
            continue  # (`ys = sorted(xs)`: a new list, local_lists.py, whose adjoint goes into xs_bar's slots: add_sorted)
        if not isinstance(s, Call) or pos != 0 or s.kwargs:
            return False
        fn = rt.resolver.callee(s)[0]
        if fn is operator.getitem and len(s.args) == 2 and rt.type_of(s.args[1]) == INT:
            item_type = _item_type(rt, root)
            if not differentiable(item_type):
                continue  # (an int, or a tuple of ints, of constant data: immutable, nothing to add back)
            if isinstance(item_type, Tup):  # (a list of tuples: the item must be taken apart, layer_lists.py)
                parts = layer_lists.parts_only_read(rt, s, item_type, uses, root)
                if parts is None:
                    return False
                rt.layer_parts.update(parts)
            elif isinstance(item_type, Lst):  # (a list of lists of floats: each row only read, row_lists.py)
                found: dict = {}
                if not row_lists.only_read(rt, s, uses, root, found):
                    return False
                rt.row_parts.update(found)
                rt.row_rows[s] = root
            elif isinstance(item_type, Arr) and not _item_only_read(rt, s, uses):
                return False  # (an array item written, viewed or handed on: storage keeps it right)
            continue
        if float_tuple(rt.type_of(root)) and fn not in (operator.getitem, ops.sequence, builtins.len) and \
                not (hashable(fn) and fn in READERS):
            return False  # (a tuple of floats: its items, its length and the readers of a whole list only)
        if fn is ops.unpack_star and star_lists.reads_only(rt, s, lambda p: _item_only_read(rt, p, uses)) and \
                star_lists.kept(rt.type_of(root)):
            continue  # (`first, *rest = xs`: reads of items and a new list, star_lists.py)
        if fn is operator.getitem and s in rt.local_lists:  # (its type: local_lists.appends_keep_type)
            continue  # (`xs[1:]`: a new list, local_lists.py, whose adjoint goes into xs_bar's slots: add_slice)
        if fn is list.append and v is root and not isinstance(root, Param) and s.args[1] is not root:
            continue  # (a list the function builds: local_lists.py)
        if fn is list.append and v is root and isinstance(root, Param) and len(s.args) == 2 and \
                s.args[1] is not root and _item_type(rt, root) == FLOAT and rt.type_of(s.args[1]) == FLOAT:
            continue  # (a float appended to a list parameter of floats: its slot popped by the pullback)
        if fn is builtins.len and len(s.args) == 1:
            continue
        if _float_write(rt, s, v, root):
            continue  # (`xs[i] = v` of a float: every item stays a float; undone like a buffer's write)
        if fn is ops.sequence and len(s.args) == 1:
            aliases[s] = root
            if not _reads_only(rt, s, uses, aliases, root):
                return False
            continue
        if hashable(fn) and fn in READERS and len(s.args) == 1 and (
                _item_type(rt, root) == FLOAT or not differentiable(_item_type(rt, root))):
            continue  # (a new value made of the items: of floats, or of ints without a derivative)
        return False
    return True


def _float_write(rt: "ReverseTransform", s: Call, v: Value, root: Value) -> bool:
    """Is s `xs[i] = v` into a list parameter of floats, by an int index, of a float that is not the list?

    The list then holds floats only, whatever runs: it held floats on entry (its kind), and each write puts a float
    in (its type, inferred with the list's items floats: an induction over the writes).  The length never changes,
    so `xs_bar[i]` is the slot of `xs[i]` at every point of the pullback, which undoes each write as buffers.py
    undoes an array's: the slot's value put back, its adjoint handed to v and cleared (`_reverse_write`).  The
    pullback starts from the adjoint the caller keeps for the list after the call (`shadows.claim_floats`)."""
    return isinstance(root, Param) and v is root and len(s.args) == 3 and not s.kwargs and \
        rt.resolver.callee(s)[0] is operator.setitem and _item_type(rt, root) == FLOAT and \
        rt.type_of(s.args[1]) == INT and rt.type_of(s.args[2]) == FLOAT and s.args[2] is not root


def _item_only_read(rt: "ReverseTransform", v: Value, uses: dict, depth: int = 0) -> bool:
    """Does every use of the array item v (or of its transpose, `W.T`) make a new array?  Nothing writes the item
    then (the list is only read, and no other argument shares its memory: argument_kinds.kinds_of), so a transposed view
    of it is as good as a copy."""
    for s, pos in uses.get(v, []):
        if isinstance(s, Call) and pos == 0 and depth < 3 and _transposes(rt, s):
            if not _item_only_read(rt, s, uses, depth + 1):
                return False
        elif not isinstance(s, Call) or not reads_only_use(rt, s, pos, None):
            return False
    return True


def _transposes(rt: "ReverseTransform", s: Call) -> bool:
    fn = rt.resolver.callee(s)[0]
    if fn is getattr:
        return len(s.args) == 2 and literal(s.args[1]) == "T"
    return fn is np.transpose and len(s.args) == 1 and not s.kwargs


def keep_only_read(rt: "ReverseTransform") -> tuple[bool, dict]:
    """Drop the list type of parameters the function does more with than read (see the module docstring).
    Returns (whether a type was dropped, the aliases of the lists kept: value -> its list parameter)."""
    uses = uses_of(rt)
    aliases: dict = {}
    dropped = False
    rt.layer_parts = {}
    rt.row_parts, rt.row_rows = {}, {}
    for p in _roots(rt):
        found: dict = {}
        if _reads_only(rt, p, uses, found, p):
            aliases.update(found)
            aliases[p] = p
        elif float_tuple(rt.type_of(p)):
            continue  # (a tuple keeps its type: it is simply not read as a list here)
        elif isinstance(p, Param):
            rt.param_types[p.name] = UNKNOWN
            dropped = True
        else:
            rt.local_lists.discard(p)
            dropped = True
    return dropped, aliases


def find_typed_lists(rt: "ReverseTransform") -> dict:
    """value -> list parameter, for the typed lists and the loop sequences over them."""
    return {v: p for v, p in rt.list_aliases.items() if _is_root(rt, p)}


def exempt(rt: "ReverseTransform", s: Call, fn: Any) -> bool:
    """Does statement s read a typed list in a way that needs no identity-keyed storage?"""
    if rt.typed_lists.get(s) is s or layer_lists.live(rt, s) or star_lists.live(rt, s) or row_lists.live(rt, s):
        return True  # (`terms = []`: a list the function builds; `W, b = item`, `item[0]`: layer_lists.py; rows)
    return bool(s.args) and s.args[0] in rt.typed_lists and (
        fn in (operator.getitem, builtins.len, ops.sequence, list.append) or hashable(fn) and fn in READERS or
        fn is operator.setitem and s.args[0] is rt.typed_lists[s.args[0]])


def handles(rt: "ReverseTransform", s: Call, fn: Any) -> bool:
    """Is s a read of a typed list that `reverse_read` undoes (item reads, appends; the loop's sequence, `len` and
    the making of a list the function builds have nothing to undo)?"""
    if row_lists.live(rt, s):
        return rt.row_parts[s][0] != row_lists.WHOLE  # (`sum(row)`: its rule, whose adjoint `accumulate` routes)
    return rt.typed_lists.get(s) is s or layer_lists.live(rt, s) or star_lists.live(rt, s) or \
        bool(s.args) and s.args[0] in rt.typed_lists and \
        fn in (operator.getitem, builtins.len, ops.sequence, list.append, operator.setitem)


def reverse_read(rt: "ReverseTransform", s: Call, fn: Any) -> None:
    """`v = xs[i]`: `xs_bar[i] += v_bar`; `xs.append(v)`: `v_bar = xs_bar.pop()`."""
    if star_lists.live(rt, s):
        star_lists.reverse(rt, s, add_slice)
        return
    if row_lists.live(rt, s):
        row_lists.reverse(rt, s)
        return
    if fn is operator.setitem:
        _reverse_write(rt, s)
        return
    if fn is list.append and s.args and s.args[0] in rt.typed_lists:
        root = rt.typed_lists[s.args[0]]
        if isinstance(root, Param):
            # (the caller's list put back as it was, with the slot of its identity-keyed storage where it has one)
            undo = rt.b.call(pop_float_slot, [rt.primal(root)])
            undo.keep = True  # type: ignore[attr-defined]
        if not rt.active(root):
            return
        g = rt.b.call(list.pop, [rt.read_adj(root)])
        g.keep = True  # type: ignore[attr-defined]  # (popped even when v needs no adjoint: the slots stay aligned)
        rt.dense_values.add(g)
        if rt.active(s.args[1]):
            rt.accumulate(s.args[1], g)
        return
    if layer_lists.live(rt, s):
        layer_lists.reverse_part(rt, s)
        return
    if rt.typed_lists.get(s) is s and fn in (ops.list_of, ops.tuple_of):  # a display of floats: its items' slots
        if rt.active(s):
            bar = rt.read_adj(s)
            for k, a in enumerate(s.args):
                if rt.active(a):
                    g = rt.b.call(operator.getitem, [bar, Const(k)])
                    rt.dense_values.add(g)
                    rt.accumulate(a, g)
            if s in rt.run_lists:  # (made anew in each run: so is its adjoint, local_lists.start_in_seq)
                rt.b.write(rt._var(s), rt.zero(s))
        return
    if rt.typed_lists.get(s) is s and local_lists.is_sorted(s):  # `ys = sorted(xs)`: ys_bar into xs_bar's slots
        src = rt.typed_lists.get(s.args[0])
        if rt.active(s) and src is not None and rt.active(src):
            st = rt.b.call(add_sorted, [rt.read_adj(src), rt.primal(s.args[0]), rt.primal(s), rt.read_adj(s)])
            st.keep = True  # type: ignore[attr-defined]
        if s in rt.run_lists:
            rt.b.write(rt._var(s), rt.zero(s))
        return
    if rt.typed_lists.get(s) is s and fn is operator.getitem:  # `ys = xs[a:b]`: ys_bar into xs_bar's slots
        src = rt.typed_lists.get(s.args[0])
        if rt.active(s) and src is not None and rt.active(src):
            st = rt.b.call(add_slice, [rt.read_adj(src), rt.primal(s.args[1]), rt.read_adj(s)])
            st.keep = True  # type: ignore[attr-defined]
        if s in rt.run_lists:
            rt.b.write(rt._var(s), rt.zero(s))
        return
    if fn is not operator.getitem or rt.typed_lists.get(s) is s:
        return
    root = rt.typed_lists[s.args[0]]
    item_type = _item_type(rt, root)
    if isinstance(item_type, Lst) or not differentiable(item_type):
        return  # (rows: row_lists.py; ints, tuples of ints: no adjoint)  # (`row = rows[i]`: its reads added into `rows_bar[i]` themselves, row_lists.py)
    g = layer_lists.item_adjoint(rt, s, len(item_type.items)) if isinstance(item_type, Tup) else rt.take_adj(s)
    if g is None or is_zero(g) or not rt.active(root):
        return
    # (a tuple's adjoint is added part by part; an array's into the list's zero array of our own, in place, which
    # the symbolic zero cannot be added to in place: `add_to_item_unless_zero` where g may be it)
    add = add_layer_adjoint if _layers(rt, root) else ops.add_to_item if not isinstance(item_type, Arr) or \
        rt.is_dense(g) else adj.add_to_item_unless_zero
    st = rt.b.call(add, [rt.read_adj(root), g, rt.primal(s.args[1])])
    st.keep = True  # type: ignore[attr-defined]


def _reverse_write(rt: "ReverseTransform", s: Call) -> None:
    """`xs[i] = v` (`_float_write`): `xs[i] = old` (what the pullback reads of xs before it is as it was), then
    `v_bar = xs_bar[i]` and `xs_bar[i] = 0.0` (the slot's adjoint belonged to v; the value v replaced starts afresh)."""
    xs, i, v = s.args
    root = rt.typed_lists[xs]
    saved = rt.saves.get(s)
    if saved is None:
        saved = rt.saves[s] = Call(Const(operator.getitem), [xs, i], loc=s.loc)  # (a float: kept as it is)
        rt.home[saved] = rt.home[s]
    restore = rt.b.call(operator.setitem, [rt.primal(xs), rt.primal(i), rt.primal(saved)])
    restore.keep = True  # type: ignore[attr-defined]
    if not rt.active(root):
        return
    bar = rt.read_adj(root)
    if rt.active(v):
        g = rt.b.call(operator.getitem, [bar, rt.primal(i)])
        rt.dense_values.add(g)
        rt.accumulate(v, g)
    clear = rt.b.call(operator.setitem, [bar, rt.primal(i), Const(0.0)])
    clear.keep = True  # type: ignore[attr-defined]


def add_whole(rt: "ReverseTransform", root: Param, contribution: Value, row: Any = None) -> None:
    """A reader's adjoint for the whole list (`sum(xs)`, `np.mean(xs)`), added slot by slot (`sum(xs)` of floats: the
    same g into every slot, `for k in range(len(xs_bar)): xs_bar[k] += g`).  `row`: the adjoint of one row of a list of
    lists of floats (row_lists.py) to add into instead of root's."""
    c = contribution
    floats = row is not None or _item_type(rt, root) == FLOAT
    if isinstance(c, Call) and getattr(c, "pieces", False) and floats:
        bar = row if row is not None else rt.read_adj(root)  # (specialise._pieces: `np.array(xs)`'s adjoint)
        for k, part in enumerate(c.args):
            st = rt.b.call(ops.add_to_item, [bar, part, Const(k)])
            st.keep = True  # type: ignore[attr-defined]
        return
    if isinstance(c, Call) and c.callee() is adj.sum_items_adjoint and len(c.args) == 2 and not c.kwargs and \
            floats and rt.is_dense(c.args[1]):
        bar = row if row is not None else rt.read_adj(root)  # `for k in range(len(xs_bar)): xs_bar[k] += g`
        add_to_every_slot(rt, bar, c.args[1], rt.b.call(range, [rt.b.call(builtins.len, [bar])]))
        return
    st = rt.b.call(add_list_adjoint, [row if row is not None else rt.read_adj(root), contribution])
    st.keep = True  # type: ignore[attr-defined]


def _item_type(rt: "ReverseTransform", root: Value) -> Any:
    t = rt.type_of(root)
    return t.item if isinstance(t, Lst) else FLOAT if float_tuple(t) else None


def _layers(rt: "ReverseTransform", root: Value) -> bool:
    """Is root a list of tuples (`[(W1, b1), (W2, b2)]`) rather than of floats?"""
    t = rt.type_of(root)
    return isinstance(t, Lst) and isinstance(t.item, Tup)


def written(rt: "ReverseTransform", p: Value) -> bool:
    """Is p a list parameter of floats kept typed that the function writes items of or appends to?  Its pullback
    starts from the caller's adjoint (`new_adjoint`) and hands the entry adjoint back where the caller keeps it
    (shadows.give_back)."""
    return isinstance(p, Param) and rt.typed_lists.get(p) is p and any(
        isinstance(s, Call) and rt.resolver.callee(s)[0] in (operator.setitem, list.append) and s.args and
        s.args[0] is p for b in rt.ir.blocks for s in b.stmts)


def new_adjoint(rt: "ReverseTransform", p: Value) -> Value:
    """`[0.0] * len(xs)`: the list's adjoint, made once at the start of the pullback (zeros of each tuple's parts for
    a list of tuples)."""
    if _layers(rt, p):
        return rt.b.call(zero_layers, [rt.primal(p)])
    if isinstance(_item_type(rt, p), Lst):
        return rt.b.call(zero_rows, [rt.primal(p)])
    if isinstance(_item_type(rt, p), Arr):
        return rt.b.call(zero_arrays, [rt.primal(p)])
    if written(rt, p):
        return rt.b.call(claim_floats, [rt.primal(p)])  # (from the caller's adjoint after the call)
    zeros = rt.b.call(ops.list_of, [Const(0.0)])
    return rt.b.call(operator.mul, [zeros, rt.b.call(builtins.len, [rt.primal(p)])])

