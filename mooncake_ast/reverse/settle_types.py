"""The types reverse mode writes its pullback on, settled to one fixpoint (ir/inference.py does each round).

Three things feed each other: rewrites the types allow (methods of float arrays resolved to NumPy
functions, in-place updates of typed arrays made plain: ir/typed_methods.py, prepare.plain_inplace), lists
of floats that keep their type only while the function just reads them (typed_lists.py), and calls of the
user's own functions typed from the callee's code (call_types.py), whose results, once known to be numbers
or arrays, let operators on them resolve statically (the resolver's `plain_calls`, forward/objects.py),
which types more.  `settle` repeats until the resolver's plain calls are what the final types say; if
that does not happen in a few rounds, nothing is typed from callees or lists, which is always sound.
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, Optional

from .. import ops
from ..forward.transform import StaticResolver
from ..ir.inference import infer_types
from ..ir.nodes import Call, Const, Function, Global, Param
from ..ir.typed_methods import resolve_methods
from ..ir.types import _BOTTOM, UNKNOWN, AVal, Arr, Dct, Lst, Num, Obj, Tup, join
from . import call_types, local_lists, local_objects, prepare, typed_lists

if TYPE_CHECKING:
    from .transform import ReverseTransform

_ROUNDS = 8


def settle(rt: "ReverseTransform", ir: Function, user_globals: dict) -> dict:
    """The types of ir's values; sets rt.typed_calls, rt.list_aliases and rt.resolver (with its plain calls)."""
    rt.typed_calls = {}  # call of a user function -> (the function, its result's type)
    rt.list_aliases = {}
    rt.typing_calls = True
    rt.local_objects = local_objects.find(ir, rt.resolver)
    rt.closed_cells = closed_cells(ir)
    walk_reversed(rt, ir)
    local_lists.rewrite_appends(ir)
    rt.local_lists = local_lists.candidates(ir)
    types: dict = {}
    for attempt in range(_ROUNDS):
        if attempt == _ROUNDS - 1:  # (no fixpoint: nothing typed from callees or lists)
            rt.typing_calls = False
            rt.local_objects = {}
            rt.local_lists = set()
            rt.param_types = {k: (UNKNOWN if isinstance(t, Lst) else t) for k, t in rt.param_types.items()}
            rt.resolver = StaticResolver(user_globals)
        types = rt.types = _rewrites_settled(rt, ir)
        # Lists the function does more with than read lose their type (typed_lists.py): type again without it.
        dropped, rt.list_aliases = typed_lists.keep_only_read(rt)
        if dropped:
            continue
        plain = frozenset(st for st, (_, t) in rt.typed_calls.items() if t is not UNKNOWN) | _plain_reads(rt, ir, types)
        if plain == rt.resolver.plain_calls:
            # Settled; the fields of the function's own objects keep their types only if every write agrees.
            bad = local_objects.writes_keep_types(ir, rt.local_objects, types, rt.type_of)
            bad_lists = local_lists.appends_keep_type(rt, ir)
            rt.local_lists -= bad_lists
            if not bad and not bad_lists:
                break
            rt.local_objects = {s: v for s, v in rt.local_objects.items() if s not in bad}  # (a field written otherwise)
            plain = frozenset()
        rt.resolver = StaticResolver(user_globals)
        rt.resolver.plain_calls = plain
    for st, (callee, _) in rt.typed_calls.items():
        if isinstance(st.fn, Global):
            rt.resolver.bindings[st.fn.name] = callee  # (the derivative is stale once the name is rebound)
    for st, (shape, _) in rt.local_objects.items():
        rt.resolver.bindings[st.fn.name] = shape.cls
    return types


def _plain_reads(rt: "ReverseTransform", ir: Function, types: dict) -> frozenset:
    """Field reads and method calls of the function's own objects that give numbers, arrays or tuples of those:
    operators on them are plain.  (Not the items of typed lists: a plain call marks its operands as holding objects,
    which would make the list's items possible objects.)"""
    out = set()
    for b in ir.blocks:
        for s in b.stmts:
            if isinstance(types.get(s), (Num, Arr, Tup)) and types[s] is not UNKNOWN and (
                    s.callee() is ops.cell_get and s.args[0] in rt.closed_cells or  # (a captured variable's value)
                    _typed_item(rt, s) or  # (an item of a dict or tuple parameter of known item types)
                    local_objects.method_of(rt.local_objects, s) is not None or
                    isinstance(s, Call) and s.callee() is getattr and len(s.args) == 2 and s.args[0] in rt.local_objects):
                out.add(s)
    return frozenset(out)


def _typed_item(rt: "ReverseTransform", s: Any) -> bool:
    """`d["k"]` / `t[0]` of a dict or tuple parameter whose item types the call's kinds give (numbers, float
    arrays): the item is what its type says, never an object."""
    if not (isinstance(s, Call) and s.callee() is operator.getitem and len(s.args) == 2 and isinstance(s.args[0], Param)
            and isinstance(s.args[1], Const)):
        return False
    return isinstance(rt.param_types.get(s.args[0].name), (Dct, Tup))


def infer(rt: "ReverseTransform", ir: Function) -> dict:
    """One round of inference; rt.typed_calls holds the calls of user functions it typed (their final types)."""
    rt.typed_calls = {}
    types = infer_types(ir, rt.param_types, rt.resolver.callee, rt._constant, lambda s, args, of: _call_type(rt, s, args, of))
    rt.typed_calls = {st: (callee, types.get(st, UNKNOWN)) for st, (callee, _) in rt.typed_calls.items()
                      if types.get(st, UNKNOWN) is not UNKNOWN}
    return types


def _rewrites_settled(rt: "ReverseTransform", ir: Function) -> dict:
    """Types, with the rewrites they allow (methods of arrays resolved, in-place updates made plain) to a fixpoint."""
    types = infer(rt, ir)

    def param_type(v: Any) -> Any:
        return rt.param_types.get(v.name, UNKNOWN) if isinstance(v, Param) else UNKNOWN

    for _ in range(6):  # (each step can type what the next one needs: a.copy(), then a *= s, then a.sum())
        methods = resolve_methods(ir, types, param_type)
        if methods:
            types = infer(rt, ir)  # (np.sum(x) has a type; x.sum() had none)
        inplace = prepare.plain_inplace(ir, types, rt.param_types, rt.resolver.callee)
        if inplace:
            types = infer(rt, ir)  # (`a = a * s` has a type)
        if not (methods or inplace):
            break
    return types


def walk_reversed(rt: "ReverseTransform", ir: Function) -> None:
    """`for c in reversed(xs)` over a list or array parameter becomes `for i in range(len(xs) - 1, -1, -1):
    c = xs[i]`: the same reads in the same order (reversed() reads xs by index as it goes), now reads of xs by an
    int index, which typed lists and buffers differentiate plainly, and a loop over a range, which the pullback
    walks without recording its items."""
    from .cleanup import substitute

    for b in ir.blocks:
        for seq in list(b.stmts):
            if not (seq.callee() is ops.sequence and len(seq.args) == 1 and isinstance(seq.args[0], Call)):
                continue
            rev = seq.args[0]
            if not (rt.resolver.resolve(rev.fn) is reversed and len(rev.args) == 1 and not rev.kwargs and
                    isinstance(rev.args[0], Param) and isinstance(rt.param_types.get(rev.args[0].name), (Lst, Arr))):
                continue
            xs = rev.args[0]
            if not _only_read(rt, ir, xs):
                continue  # (a list the function changes: reversed() and indexing could part ways)
            users = [st for blk in ir.blocks for st in blk.stmts if rev in st.operands() or seq in st.operands()]
            items = [st for st in users if st.callee() is operator.getitem and st.args[0] is seq]
            if any(st is not seq and st not in items and not (st.callee() is len and st.args == [seq]) for st in users) \
                    or len(items) != 1 or any(rev in blk.term.operands() or seq in blk.term.operands() for blk in ir.blocks) \
                    or any(seq in phi.incoming.values() for blk in ir.blocks for phi in blk.phis):
                continue
            rb = rev.block if rev.block is not None else b
            n = Call(Const(len), [xs], loc=rev.loc)
            last = Call(Const(operator.sub), [n, Const(1)], loc=rev.loc)
            for st in (n, last):
                st.block = rb
            rb.stmts[rb.stmts.index(rev):rb.stmts.index(rev)] = [n, last]
            rev.fn, rev.args = Const(range), [last, Const(-1), Const(-1)]
            item = items[0]
            value = Call(Const(operator.getitem), [xs, item], hint=item.hint, loc=item.loc)
            item.hint = "i"
            substitute(ir, {item: value})
            value.args = [xs, item]
            value.block = item.block
            item.block.stmts.insert(item.block.stmts.index(item) + 1, value)


def _only_read(rt: "ReverseTransform", ir: Function, xs: Param) -> bool:
    """Is every use of xs in ir a read that changes nothing (an item, its length, a loop over it, reversed(), a
    reduction typed_lists knows)?"""
    for blk in ir.blocks:
        if xs in blk.term.operands() or any(xs in phi.incoming.values() for phi in blk.phis):  # type: ignore[union-attr]
            return False
        for st in blk.stmts:
            if xs not in st.operands():
                continue
            fn = rt.resolver.callee(st)[0] if st.fn is not xs else None
            if not (st.args and st.args[0] is xs and xs not in st.args[1:] and not st.kwargs and
                    (fn in (operator.getitem, len, ops.sequence, reversed) or fn in typed_lists.READERS)):
                return False
    return True


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


def _call_type(rt: "ReverseTransform", s: Call, args: list, of: Any) -> Optional[AVal]:
    """The type of a call of one of the user's functions, from its code (call_types.py), of a constructor of an
    object the function makes, or of a method of one (local_objects.py); None otherwise."""
    if s.callee() is ops.cell_get and s.args and s.args[0] in rt.closed_cells:
        return cell_type(rt, s.args[0], of)
    if s in rt.local_lists:
        return local_lists.LIST_OF_FLOATS
    if s in rt.local_objects:
        return local_objects.object_type(rt.local_objects, s, of)
    method = local_objects.method_of(rt.local_objects, s)
    if method is not None:
        self_type = of(method[0])
        if not isinstance(self_type, Obj):
            return self_type if self_type is _BOTTOM else None
        t = call_types.result_of_call(method[1], s, [self_type, *args], owner=rt.local_objects[method[0]][0].cls)
        return t if t is not UNKNOWN else None
    cells: dict = {}
    callee = (call_types.user_function(rt.resolver, s) or
              call_types.local_function(s, rt.resolver.g, lambda c: cell_type(rt, c, of), cells)) \
        if rt.typing_calls else None
    if callee is None:
        return None
    t = call_types.result_of_call(callee, s, args, cells=cells)
    if t is not UNKNOWN:
        rt.typed_calls[s] = (callee, t)
    return t
