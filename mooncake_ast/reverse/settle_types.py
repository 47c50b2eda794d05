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
import types
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from .. import ops
from ..frontend import global_ops
from ..forward.object_flow import current_kinds
from ..forward.resolver import StaticResolver
from ..ir.analysis import used_only_by
from ..ir.inference import infer_types
from ..ir.nodes import Call, Const, FreeVar, Function, Global, Param
from ..ir.typed_methods import only_read, resolve_methods
from ..ir.types import _BOTTOM, FLOAT, UNKNOWN, AVal, Arr, Dct, Lst, Num, Obj, Tup, type_of_argument
from . import (call_types, closed_cells, local_dicts, local_lists, local_objects, prepare, reversed_loops, slot_updates,
               star_lists, typed_lists, view_writes)

if TYPE_CHECKING:
    from .transform import ReverseTransform

_ROUNDS = 8


def settle(rt: "ReverseTransform", ir: Function, user_globals: dict) -> dict:
    """The types of ir's values; sets rt.typed_calls, rt.list_aliases and rt.resolver (with its plain calls)."""
    rt.typed_calls = {}  # call of a user function -> (the function, its result's type)
    rt.list_aliases = {}
    rt.typing_calls = True
    # A dict parameter's type names its items' types as the call passed them; a function that writes the dict
    # (`params["a"] = Box(x)`) may change them, so it is typed only when the function just reads it.
    for p in ir.params:
        if isinstance(rt.param_types.get(p.name), Dct) and not only_read(p, ir) and \
                not local_dicts.param_only_read(rt, ir, p):
            rt.param_types[p.name] = UNKNOWN
    rt.local_objects = local_objects.find(ir, rt.resolver)
    rt.closed_cells = closed_cells.closed_cells(ir)
    reversed_loops.walk_reversed(rt, ir)
    local_lists.rewrite_appends(ir, frozenset(p for p in ir.params if rt.param_types.get(p.name) == Lst(FLOAT)))
    rt.star_parts = star_lists.find(ir)
    rt.local_lists, rt.run_lists = local_lists.candidates(ir, {p for p in rt.star_parts if star_lists.is_rest(rt, p)})
    rt.dict_roles = local_dicts.candidates(rt, ir)
    types: dict = {}
    hoped = False  # (one round on the calls typed on the way, once: `_hopeful`)
    for attempt in range(_ROUNDS):
        if attempt == _ROUNDS - 1:  # (no fixpoint: nothing typed from callees or lists)
            rt.typing_calls = False
            rt.local_objects = {}
            rt.local_lists = set()
            rt.dict_roles, rt.dict_int_keys = {}, set()
            rt.param_types = {k: (UNKNOWN if isinstance(t, Lst) else t) for k, t in rt.param_types.items()}
            rt.resolver = _resolver(rt, user_globals)
        types = rt.types = _rewrites_settled(rt, ir)
        # Lists the function does more with than read lose their type (typed_lists.py): type again without it.
        dropped, rt.list_aliases = typed_lists.keep_only_read(rt)
        if dropped:
            continue
        reads = _plain_reads(rt, ir, types)
        plain = frozenset(st for st, (_, t) in rt.typed_calls.items() if t is not UNKNOWN) | reads
        if plain == rt.resolver.plain_calls and not hoped and attempt < _ROUNDS - 2 and \
                not rt.hoped_calls <= plain and rt.typing_calls:
            hoped = True  # (a fixpoint, but calls typed on the way may hold: try them, as `_hopeful` says)
            rt.resolver = _resolver(rt, user_globals)
            rt.resolver.plain_calls = plain | rt.hoped_calls
            continue
        if plain == rt.resolver.plain_calls:
            # Settled; the fields of the function's own objects keep their types only if every write agrees.
            bad = local_objects.writes_keep_types(ir, rt.local_objects, types, rt.type_of)
            bad_lists = local_lists.appends_keep_type(rt, ir)
            rt.local_lists -= bad_lists
            bad_lists = bad_lists | local_dicts.values_keep_type(rt)
            bad_params = _param_fields_rewritten(rt, ir)
            for name in bad_params:
                rt.param_types[name] = UNKNOWN
            rt.untyped_params = set(getattr(rt, "untyped_params", ())) | set(bad_params)
            if not bad and not bad_lists and not bad_params:
                break
            rt.local_objects = {s: v for s, v in rt.local_objects.items() if s not in bad}  # (a field written otherwise)
            plain = frozenset()
        rt.resolver = _resolver(rt, user_globals)
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
                    local_dicts.plain_read(rt, s) or  # (a float read of a dict of floats: local_dicts.py)
                    local_objects.method_of(rt.local_objects, s) is not None or
                    isinstance(s, Call) and s.callee() is getattr and len(s.args) == 2 and s.args[0] in rt.local_objects):
                out.add(s)
    return frozenset(out) | local_lists.array_lists(rt)


def _resolver(rt: "ReverseTransform", user_globals: dict) -> StaticResolver:
    """A resolver for another round; an object parameter whose fields the function rewrites is an object of no
    known fields to it too, "obj" (its field reads are no longer numbers or arrays: ObjectFlow._field_read)."""
    kinds = current_kinds()
    untyped = getattr(rt, "untyped_params", ())
    if kinds is not None and untyped:
        kinds = {k: ("obj" if k in untyped else v) for k, v in kinds.items()}
    return StaticResolver(user_globals, kinds)


def _param_fields_rewritten(rt: "ReverseTransform", ir: Function) -> list:
    """Object parameters typed by field (`obj:fields:a=num`) that the function writes a field of with a value of
    another type, or one the type does not name (`p.a = Box(x)`), or hands to code that may (a method call, an
    argument of a call): their reads are not what the call passed any more."""
    out = []
    for p in ir.params:
        t = rt.param_types.get(p.name)
        if isinstance(t, Obj) and not _fields_kept(rt, ir, p, t):
            out.append(p.name)
    return out


def _fields_kept(rt: "ReverseTransform", ir: Function, p: Param, t: Obj) -> bool:
    """Is every use of p a read of one of its typed fields, or a write of one with a value of the field's type?"""
    def kept(st: Call) -> bool:
        name = st.args[1].value if len(st.args) >= 2 and isinstance(st.args[1], Const) else None
        if not (st.args and st.args[0] is p and t.get(name) is not None):
            return False
        if st.callee() is getattr and len(st.args) == 2:
            return True
        return st.callee() is setattr and len(st.args) == 3 and st.args[2] is not p and \
            rt.type_of(st.args[2]) == t.get(name)

    return used_only_by(ir, p, kept)


def _typed_item(rt: "ReverseTransform", s: Any) -> bool:
    """`d["k"]` / `t[0]` of a dict or tuple parameter whose item types the call's kinds give (numbers, float
    arrays): the item is what its type says, never an object."""
    if not (isinstance(s, Call) and s.callee() is operator.getitem and len(s.args) == 2 and isinstance(s.args[0], Param)
            and isinstance(s.args[1], Const)):
        return False
    return isinstance(rt.param_types.get(s.args[0].name), (Dct, Tup)) and only_read(s.args[0], rt.ir)


def infer(rt: "ReverseTransform", ir: Function) -> dict:
    """One round of inference; rt.typed_calls holds the calls of user functions it typed (their final types),
    rt.hoped_calls those it typed on the way, whatever their final types (`_hopeful`)."""
    rt.typed_calls = {}
    types = infer_types(ir, rt.param_types, rt.resolver.callee, rt._constant, lambda s, args, of: _call_type(rt, s, args, of))
    rt.hoped_calls = frozenset(rt.typed_calls)
    rt.typed_calls = {st: (callee, types.get(st, UNKNOWN)) for st, (callee, _) in rt.typed_calls.items()
                      if types.get(st, UNKNOWN) is not UNKNOWN}
    return types


# _hopeful: a call of the user's function inside a loop whose result comes back to it through the loop
# (`total = total + f(total, k)`) is typed on the first pass, while the loop's phi holds the value from before
# the loop; then `total + f(...)`, an operator on a value the resolver does not know to be a number yet, is
# dispatched, its type unknown, the phi's too, and so the call's: the round's fixpoint types nothing, and the
# next round, on what it typed, is the same.  So, once, the next round takes the calls typed on the way as
# plain too (operators on their results static): if that round's types agree (every such call typed in the
# end), they are a fixpoint and hold; if not, its own result is what the following round starts from, as
# for any round that did not settle.

def _rewrites_settled(rt: "ReverseTransform", ir: Function) -> dict:
    """Types, with the rewrites they allow (methods of arrays resolved, in-place updates made plain) to a fixpoint."""
    types = infer(rt, ir)

    def param_type(v: Any) -> Any:
        return rt.param_types.get(v.name, UNKNOWN) if isinstance(v, Param) else UNKNOWN

    for _ in range(6):  # (each step can type what the next one needs: a.copy(), then a *= s, then a.sum())
        methods = resolve_methods(ir, types, param_type, callee=rt.resolver.callee)
        if methods:
            types = infer(rt, ir)  # (np.sum(x) has a type; x.sum() had none)
        inplace = prepare.plain_inplace(ir, types, rt.param_types, rt.resolver.callee)
        inplace = slot_updates.plain_slot_updates(ir, types, rt.param_types, rt.resolver.callee) or inplace
        inplace = view_writes.plain_view_writes(ir, types, rt.param_types, rt.resolver.callee) or inplace
        if inplace:
            types = infer(rt, ir)  # (`a = a * s` has a type)
        if not (methods or inplace):
            break
    return types


def _global_number(rt: "ReverseTransform", g: Global) -> Optional[AVal]:
    """The type of a module-level number the function reads (prepare.global_numbers_read_once reads each into a
    variable: `t1 = N`), where nothing the function runs can rebind it: no store of a global, every call one of a
    library rule (no user function, no callable of the user's handed to one, no call decided when the code runs).
    The name is recorded as a binding: rebound (to a number of another type, or to an array), the derivative is
    stale, and a cached one is taken again only while the name holds a value of the type it was made for."""
    value = rt.resolver.g.get(g.name, _NO_GLOBAL)
    if type(value) not in (float, int, bool):
        return None
    safe = rt.__dict__.get("_globals_unwritten")
    if safe is None:
        safe = rt._globals_unwritten = _nothing_rebinds_globals(rt)
    if not safe:
        return None
    rt.resolver.bindings[g.name] = value
    return type_of_argument(value)


_NO_GLOBAL = object()
# (a store of a global; an attribute of a module set or deleted -- the function's own module among them; a function
# made here, whose code runs where it is handed)
_REBINDS = (global_ops.store_global, global_ops.delete_global, setattr, delattr, ops.make_function)


def _nothing_rebinds_globals(rt: "ReverseTransform") -> bool:
    """Does the function store no global, and call only library rules, handing them nothing of the user's code?"""
    for b in rt.ir.blocks:
        for st in b.stmts:
            fn, rule = rt.resolver.callee(st)
            if fn is None or rule is None or rule.user_frule is not None or rule.user_rrule is not None or \
                    fn in _REBINDS:
                return False
            for a in (st.fn, *st.args, *st.kwargs.values()):
                if isinstance(a, Global) and not isinstance(rt.resolver.g.get(a.name, _NO_GLOBAL),
                                                            (float, int, bool, complex, np.ndarray, types.ModuleType)) \
                        and a.name in rt.resolver.g:
                    return False  # (a function, class or object of the user's: its code may rebind a global)
                if isinstance(a, FreeVar) or type(a) is Param and \
                        rt.param_kinds.get(a.name, "").split(":")[0] not in ("num", "arr"):
                    return False  # (a captured value or an argument that may be a callable of the user's)
    return True


def _call_type(rt: "ReverseTransform", s: Call, args: list, of: Any) -> Optional[AVal]:
    """The type of a call of one of the user's functions, from its code (call_types.py), of a constructor of an
    object the function makes, or of a method of one (local_objects.py); None otherwise."""
    if s.callee() is ops.cell_get and s.args and s.args[0] in rt.closed_cells:
        return closed_cells.cell_type(rt, s.args[0], of)
    if s.callee() is ops.identity and len(s.args) == 1 and isinstance(s.args[0], Global):
        return _global_number(rt, s.args[0])
    if rt.star_parts.get(s) is not None:
        return star_lists.part_type(rt, s, of)
    if s in rt.local_lists:
        return local_lists.made_type(rt, s, of)
    if s in rt.dict_roles:
        t = local_dicts.call_type(rt, s)
        if t is not None:
            return t
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
              call_types.local_function(s, rt.resolver.g, lambda c: closed_cells.cell_type(rt, c, of), cells)) \
        if rt.typing_calls else None
    if callee is None:
        return None
    t = call_types.result_of_call(callee, s, args, cells=cells)
    if t is not UNKNOWN:
        rt.typed_calls[s] = (callee, t)
    return t
