"""What reverse mode decides about the primal IR before it walks it backwards.

`deletes_as_pops` rewrites `del xs[i]` of containers built here into `xs.pop(i)`;
`storage_backed` finds the values whose adjoints need identity-keyed storage (written in
place, read part by part, handed to unknown code), leaving out what reverse/buffers.py and
reverse/typed_dicts.py handle with plain variables; `useful` is backward activity (only
values that may reach the result get adjoint code); `mark_loops` records which blocks run
inside loops (their records go on per-block stacks); `own_exits` and `own_exits_loop` the
edges by which control leaves a region.  Functions of the transform `self`.
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, Callable, Optional

import numpy as np

from .. import ops
from ..ir.analysis import uses
from ..ir.nodes import Call, Const, Global, Param, Phi, Return, Value
from ..ir.regions import Edge, If, Loop, Seq, Stmts
from ..ir.op_types import makes_new_array
from ..ir.types import UNKNOWN, Arr, Num, Tup, differentiable, is_float_array, not_one, type_of_argument
from . import buffers, handed_lists, object_fields, typed_dicts, typed_lists, view_reads, written_params
from .carried_inplace import LoopFacts, carried_type
from .special import INPLACE, SPECIAL, hashable

if TYPE_CHECKING:
    from .transform import ReverseTransform


def deletes_as_pops(self: "ReverseTransform") -> None:
    """`del xs[i]` of a list (or dict) this function built is `xs.pop(i)` with the result unused.

    Rewritten so in the forward pass, reverse mode reuses pop's undo: the pullback puts the
    removed item back where it was (negative indices included) with its adjoint slot, so the
    items after it line up with their adjoints again.  A slice, or a container whose type is
    not certain here, stays a `del` (and is refused below, naming the line).
    """
    for b in self.ir.blocks:
        for s in list(b.stmts):
            if s.callee() is not operator.delitem or len(s.args) != 2 or s.kwargs:
                continue
            obj, index = s.args
            kind = _container_kind(self, obj, set())
            if kind is None or (isinstance(index, Call) and index.callee() is slice):
                continue
            if isinstance(index, Const) and not isinstance(index.value, (int, str, tuple)) or \
                    kind == "list" and isinstance(index, Const) and not isinstance(index.value, int):
                continue
            pop = Call(Const(getattr), [obj, Const("pop")], loc=s.loc)
            pop.block = b
            b.stmts.insert(b.stmts.index(s), pop)
            s.fn, s.args = pop, [index]


def global_numbers_read_once(ir: Any, user_globals: dict) -> None:
    """A module-level number an operation reads (`v * N`) is read into a variable just before it, so the tape keeps
    the value the forward pass used.  The pullback read the global by name when it ran, after later code had
    changed it (`global N; N += 1` in a helper or a loop: grad [3, 3, 3] for [1, 2, 3]).  Numbers only: they
    change by rebinding alone, and arrays, modules and functions read by name stay as they are."""
    for b in ir.blocks:
        for s in list(b.stmts):
            if not isinstance(s, Call) or s.callee() is ops.identity:
                continue
            for a in dict.fromkeys(a for a in (*s.args, *s.kwargs.values()) if isinstance(a, Global)):  # (in order)
                if isinstance(user_globals.get(a.name), (int, float, complex, np.number)):
                    read = Call(Const(ops.identity), [a], loc=s.loc)
                    read.block = b
                    b.stmts.insert(b.stmts.index(s), read)
                    s.args = [read if x is a else x for x in s.args]
                    s.kwargs = {k: read if x is a else x for k, x in s.kwargs.items()}



def _container_kind(self: "ReverseTransform", v: Value, seen: set) -> Optional[str]:
    """"list" or "dict" when v is certainly one (built here by a display, list() or dict())."""
    if v in seen:
        return "cycle"
    seen.add(v)
    if isinstance(v, Call):
        fn = self.resolver.callee(v)[0]
        if fn in (ops.list_of, list):
            return "list"
        if fn in (ops.dict_of, dict):
            return "dict"
        if fn is ops.identity and v.args:
            return _container_kind(self, v.args[0], seen)
        return None
    from ..ir.nodes import Phi

    if isinstance(v, Phi):
        kinds = {_container_kind(self, x, seen) for x in v.incoming.values()} - {"cycle"}
        return kinds.pop() if len(kinds) == 1 and None not in kinds else None
    return None

def storage_backed(self: "ReverseTransform") -> set:
    """Values whose adjoints must live in identity-keyed storage rather than in local variables.

    Those in an alias class that is written in place, read item by item (so each read can add
    into its slot instead of building a whole zero array), or handed to code we do not see.
    """
    roots: set = set()
    for b in self.ir.blocks:
        for s in b.stmts:
            fn, rule = self.resolver.callee(s)
            touched: list = []
            if s in self.dict_roles or buffers.exempt(self, s, fn) or typed_dicts.exempt(self, s, fn) or \
                    typed_lists.exempt(self, s, fn) or \
                    object_fields.exempt(self, s, fn) or _reads_layout(self, s, fn) or view_reads.exempt(self, s) or \
                    written_params.exempt(self, s):
                continue
            if s in self.field_method_calls:
                touched = [*s.args, *s.kwargs.values()]  # (the method's self: object_fields collects its adjoints)
            elif fn is None or (rule is None and fn not in SPECIAL) or (rule is not None and rule.user_frule is not None):
                touched = [s.fn, *s.args, *s.kwargs.values()]  # dispatched: unknown code
            elif hashable(fn) and fn in SPECIAL:
                touched = [s, *s.args]  # the run-time helpers add into storage for every argument
            elif rule is not None and (rule.mutates or "out" in s.kwargs):
                touched = list(s.args) + list(s.kwargs.values())
            elif hashable(fn) and fn in (ops.sequence,):
                touched = [s.args[0]]
            for v in touched:
                if v in self.typed_lists and handed_lists.handed_copy(self, s, v, buffers.uses_of(self)):
                    continue  # (a copy of a list handed to a function that only reads it: its adjoint comes back)
                if not isinstance(v, Const) and differentiable(self.type_of(v)):  # (an int holds no array)
                    t = self.type_of(v)
                    if isinstance(t, Num) or isinstance(t, Tup) and all(isinstance(i, Num) for i in t.items):
                        continue  # (a number, or a tuple of numbers, has no storage, and shares none with what its
                        # class was joined with: `m, v = 0.0, 0.0` and then `out.append(v)`)
                    roots.add(self.act.find(v))
    return {v for v in self.act.parent if self.act.find(v) in roots}

def _reads_layout(self: "ReverseTransform", s: Any, fn: Any) -> bool:
    """`x.shape` (size, ndim, dtype) of a typed array: ints and a dtype, no data, so nothing to keep in storage."""
    return (fn is getattr and len(s.args) == 2 and isinstance(s.args[1], Const) and
            s.args[1].value in ("shape", "size", "ndim", "dtype") and isinstance(self.type_of(s.args[0]), Arr) and
            not differentiable(self.type_of(s)))


def useful(self: "ReverseTransform") -> set:
    """Values that may influence the result (backward activity): only they get adjoint code.

    Roots are returned values and every statement that may have an effect or share storage
    (run-time dispatch, writes, reads of parts, user rules, storage-backed values).  A pure
    statement with a rule is useful only when something useful reads it, so what feeds only
    a branch test (`while abs(y * y - a) > tol`) gets no reverse code, as it needs none.
    """
    useful: set = set()
    work: list = []

    def mark(v: Value) -> None:
        if not isinstance(v, (Const, Global)) and v not in useful:
            useful.add(v)
            work.append(v)

    defs: dict[Value, Any] = {}
    for b in self.ir.blocks:
        for phi in b.phis:
            defs[phi] = phi
        for st in b.stmts:
            defs[st] = st
            if not _prunable(self, st):
                mark(st)
        if isinstance(b.term, Return):
            mark(b.term.value)
    while work:
        v = work.pop()
        d = defs.get(v)
        if d is not None:
            for o in d.operands():
                mark(o)
    return useful

def _prunable(self: "ReverseTransform", s: Call) -> bool:
    """A statement without effects whose adjoint code is needed only if its value is used."""
    fn, rule = self.resolver.callee(s)
    if fn is None or rule is None or not hashable(fn) or fn in SPECIAL or fn in INPLACE:
        return False
    if rule.mutates or rule.user_rrule is not None or rule.user_frule is not None or "out" in s.kwargs:
        return False
    if not (rule.zero or rule.vjp is not None):
        return False
    return s not in self.stored

def mark_loops(self: "ReverseTransform", r: Any, inside: bool) -> None:
    if isinstance(r, Seq):
        for i in r.items:
            mark_loops(self, i, inside)
    elif isinstance(r, Stmts):
        if inside:
            self.in_loop.add(r.block)
    elif isinstance(r, If):
        if inside:
            self.in_loop.add(r.block)
        mark_loops(self, r.then, inside)
        mark_loops(self, r.orelse, inside)
    elif isinstance(r, Loop):
        self.in_loop.add(r.header)
        mark_loops(self, r.body, True)
        mark_loops(self, r.orelse, inside)


_PLAIN_OF_INPLACE = {operator.iadd: operator.add, operator.isub: operator.sub, operator.imul: operator.mul,
                     operator.itruediv: operator.truediv, operator.ipow: operator.pow}


def plain_inplace(ir: Any, types: dict, param_types: dict, callee: Callable) -> bool:
    """`a *= s` as `a = a * s` where nothing can tell the two apart: `a` is a float array this function just
    made (a copy, an arithmetic result) and read by nothing but this update, and `s` broadcasts into it
    (so the update could not have failed or changed its shape).  Then the pullback is the product's, typed
    and plain, and the forward pass keeps no copy of `a` for it.  True if any was rewritten."""
    count = uses(ir)
    readers: dict = {}  # value -> the statements reading it (phis and terminators are in count only)
    for b in ir.blocks:
        for s in b.stmts:
            for o in s.operands():
                readers.setdefault(o, []).append(s)
    changed = False
    facts = None
    for b in ir.blocks:
        position = {s: i for i, s in enumerate(b.stmts)}
        for s in b.stmts:
            fn = callee(s)[0]
            plain = _PLAIN_OF_INPLACE.get(fn) if hashable(fn) else None
            if plain is None or len(s.args) != 2 or s.kwargs:
                continue
            v, w = s.args
            tv = types.get(v)
            if isinstance(v, Phi):  # (`u += alpha * lap` on the array a loop carries: carried_inplace.py)
                if facts is None:
                    facts = LoopFacts(ir, readers)
                tv = carried_type(facts, s, v, types, callee)
                if tv is None:
                    continue
            elif not (isinstance(v, Call) and is_float_array(tv)
                      and (makes_new_array(callee(v)[0]) or getattr(v, "plain_inplace", False))):
                continue
            else:
                # Every other reader of v ran before, in this block, and made a new object of it (`a /= np.sum(a)`):
                # none holds v itself or a view of it, so none can see the difference.
                others = [r for r in readers.get(v, []) if r is not s]
                if count.get(v, 0) != 1 + len(others) or any(
                        position.get(r, len(b.stmts)) >= position[s] or r.fn is v or not makes_new_array(callee(r)[0])
                        for r in others):
                    continue
            tw = param_types.get(w.name, UNKNOWN) if isinstance(w, Param) else \
                type_of_argument(w.value) if isinstance(w, Const) else types.get(w, UNKNOWN)
            if not _fits(tw, tv):
                continue
            s.fn, s.args = Const(plain), [v, w]
            s.plain_inplace = True  # type: ignore[attr-defined]
            types[s] = tv  # (w fits in v: the result is v's type; a chain `a *= s; a += 1` goes on from here)
            changed = True
    return changed


def _fits(tw: Any, tv: Any) -> bool:
    """Does a value of type tw broadcast into an array of type tv without changing its shape or dtype?
    Never into an array of no axes: `s * w` of a 0-d array is a NumPy scalar, which a later `s[...] = v` cannot
    write (`s *= w` keeps the 0-d array)."""
    if not tv.axes:
        return False
    if isinstance(tw, Num):
        return True
    if not is_float_array(tw) or len(tw.axes) > len(tv.axes):
        return False
    # (an axis of w of size one spreads along v's; otherwise v's must not be one, or w would widen it)
    return all(d == "1" or not_one(e) and d[0] in "n?" for d, e in zip(tw.axes, tv.axes[len(tv.axes) - len(tw.axes):]))


def children(x: Any) -> list:
    """The regions directly inside region x."""
    if isinstance(x, Seq):
        return x.items
    if isinstance(x, If):
        return [x.then, x.orelse]
    if isinstance(x, Loop):
        return [x.body, x.orelse]
    return []


def bottom_up(root: Any, memo: dict, leaf: Callable[[Any], Any], join: Callable[[Any, list], Any]) -> Any:
    """`join(x, [values of x's children])` for every region under root, children first, each region once
    (memo, by identity, shared between calls): linear in the region tree, and no recursion, so a chain of a
    thousand elifs is as cheap per branch as one."""
    if id(root) in memo:
        return memo[id(root)][1]
    stack = [(root, False)]
    while stack:
        x, ready = stack.pop()
        if id(x) in memo:
            continue
        kids = children(x)
        if not kids:
            memo[id(x)] = (x, leaf(x))  # (the region is kept so that its id stays its own)
        elif ready:
            memo[id(x)] = (x, join(x, [memo[id(k)][1] for k in kids]))
        else:
            stack.append((x, True))
            stack.extend((k, False) for k in kids if id(k) not in memo)
    return memo[id(root)][1]


_NONE: tuple = (frozenset(), frozenset())


def exit_kinds(r: Any, memo: dict) -> tuple:
    """(the kinds of exit edges in r outside r's loops, the kinds inside them): what own_exits and
    own_exits_loop select, as sets of kinds, computed once per region."""
    def leaf(x: Any) -> tuple:
        return (frozenset([x.kind]), frozenset()) if isinstance(x, Edge) else _NONE

    def join(x: Any, parts: list) -> tuple:
        outer = frozenset().union(*(p[0] for p in parts))
        inner = frozenset().union(*(p[1] for p in parts))
        return (frozenset(), outer | inner) if isinstance(x, Loop) else (outer, inner)

    return bottom_up(r, memo, leaf, join)


def _exits(r: Any, keep: Callable[[Edge, int], bool]) -> list[Edge]:
    """Edges inside r that `keep(edge, depth)` selects (depth: how many loops of r they sit in)."""
    out: list[Edge] = []

    def walk(x: Any, depth: int) -> None:
        if isinstance(x, Edge):
            if keep(x, depth):
                out.append(x)
        elif isinstance(x, Seq):
            for i in x.items:
                walk(i, depth)
        elif isinstance(x, If):
            walk(x.then, depth)
            walk(x.orelse, depth)
        elif isinstance(x, Loop):
            walk(x.body, depth + 1)
            walk(x.orelse, depth + 1)

    walk(r, 0)
    return out


def own_exits_loop(r: Loop) -> list[Edge]:
    """Edges that leave loop r itself: its own breaks, and returns anywhere inside."""
    return _exits(r.body, lambda e, depth: e.kind in ("return", "raise") or (e.kind == "break" and depth == 0))


def own_exits(r: Any) -> list[Edge]:
    """Exits of a region that leave it at this loop level (continue/break of nested loops stay inside)."""
    return _exits(r, lambda e, depth: depth == 0 or e.kind in ("return", "raise"))
