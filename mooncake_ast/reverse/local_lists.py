"""Lists of floats (or float arrays) the function builds itself: `terms = []`, `terms.append(x ** k / k!)`,
`sum(terms)`.

A person's pullback for that keeps `terms_bar = [0.0] * len(terms)` (the list as it ends), adds each read's
adjoint into its slot, undoes each append by taking the last slot: `v_bar = terms_bar.pop()`, and a display's
items take the slots left at the end: `x_bar += terms_bar[0]`.  Nothing else needs identity-keyed storage,
because nothing else can reach the list.  Which lists:

* made empty (`[]`), by a display of floats (`[x, 2.0 * x]`) or by sorting a list of floats (`sorted(xs)`) where the code runs once per call (not in a
  loop, on every path to a return: the function's first block, or after a loop, as a comprehension or
  generator there makes its list), so its adjoint is made once, at the start of the pullback; or anew in
  each run of a part of the code that holds all its uses (a comprehension in a loop's body: `per_run`);
  or by slicing such a list (`xs[1:]`), or as the starred part of unpacking one (star_lists.py); a list of
  float arrays too, when each array is a new one nothing else holds or writes (`appends_keep_type`);
* only appended to (`terms.append(v)`, rewritten here to `list.append(terms, v)`: a list made by a display
  has the builtin method), every value appended (and every item of the display) of the list's item type;
* otherwise only read as reverse/typed_lists.py reads a list parameter (items by an int index, `len`, a loop
  over it, the reductions that make new values), never returned, stored, aliased by a phi or handed on.

The list is then typed `Lst(FLOAT)` (its items read as floats: plain arithmetic; `Lst(Arr)` for arrays), and
reverse/typed_lists.py treats it as a read-only list parameter whose appends it also undoes.  `settle_types`
drops the type where an appended value turns out not to be of the item type.
"""
from __future__ import annotations

import builtins
import operator
from typing import TYPE_CHECKING, Any, Optional

from .. import ops
from ..ir.analysis import dominators, uses
from ..ir.nodes import Call, Const, Function, Global, Param, Return
from ..ir.op_types import makes_new_array
from ..ir.regions import If, Loop, Seq, Stmts, build_regions
from ..ir.types import _BOTTOM, FLOAT, UNKNOWN, Arr, Lst, is_float_array, join
from . import star_lists
from .buffers import reads_only_use, uses_of

if TYPE_CHECKING:
    from .transform import ReverseTransform

LIST_OF_FLOATS = Lst(FLOAT)


def rewrite_appends(fn: Function, lists: frozenset = frozenset()) -> None:
    """`getattr(xs, "append")(v)` is `list.append(xs, v)` where xs is a list made by `[]` here, or one of the
    parameters `lists` (whose kinds say the call passes a list itself: `any:list:f`, argument_kinds.py)."""
    count = uses(fn)
    for b in fn.blocks:
        for s in b.stmts:
            m = s.fn
            if not (isinstance(m, Call) and m.callee() is builtins.getattr and len(m.args) == 2 and
                    isinstance(m.args[1], Const) and m.args[1].value == "append" and count.get(m) == 1 and
                    len(s.args) == 1 and not s.kwargs):
                continue
            xs = m.args[0]
            if isinstance(xs, Call) and xs.callee() is ops.list_of and not xs.kwargs or xs in lists:
                s.fn, s.args = Const(list.append), [xs, s.args[0]]
                m.block.stmts.remove(m)  # type: ignore[union-attr]


def candidates(fn: Function, extra: set = frozenset()) -> tuple[set, set]:
    """The lists (`[]`, or a display of items: `[x, y]`) that the function only appends to (other uses: typed_lists
    checks), made where the code runs once, or anew in each run of a part of the code that holds every use
    (a comprehension in a loop's body: see `per_run`).  Returns (all of them, those made in each run)."""
    once = once_blocks(fn)
    made = [s for b in fn.blocks for s in b.stmts
            if isinstance(s, Call) and (s.callee() is ops.list_of and not s.kwargs and s not in s.args or is_slice(s)
                                        or is_sorted(s) or s in extra)]  # (extra: the starred parts of unpackings, star_lists.py)
    runs = {s for s in made if s.block not in once and per_run(fn, s)}  # type: ignore[attr-defined]
    return {s for s in made if s.block in once} | runs, runs  # type: ignore[attr-defined]


def is_slice(s: Call) -> bool:
    """`xs[a:b:c]`: a new list of the items (a list's slice is a copy), typed when xs is a list of floats."""
    return s.callee() is operator.getitem and len(s.args) == 2 and not s.kwargs and isinstance(s.args[1], Call) and \
        s.args[1].callee() is builtins.slice and s.args[0] is not s


def is_sorted(s: Call) -> bool:
    """`sorted(xs)` (with `key=` and `reverse=` or not): a new list of xs's items, in another order.  The resolver
    must also say the name is the builtin (`made_type`)."""
    return (s.callee() is builtins.sorted or isinstance(s.fn, Global) and s.fn.name == "sorted") and \
        len(s.args) == 1 and set(s.kwargs) <= {"key", "reverse"} and s.args[0] is not s


def made_type(rt: "ReverseTransform", s: Call, of: Any) -> Any:
    """The type of a list this module keeps: a list of floats, or of float arrays of one rank (the join of what it
    is made of and what is appended to it: `appends_keep_type` checks it after the round); a slice, if what it
    slices is one; a sorted list of floats (None where the items are not floats: what inference says)."""
    if is_slice(s):
        t = of(s.args[0])
        return t if star_lists.kept(t) or t is _BOTTOM else UNKNOWN
    if is_sorted(s):  # (floats only: other items keep the type inference gives them, and the list is dropped)
        t = of(s.args[0])
        return t if (t == LIST_OF_FLOATS and rt.resolver.callee(s)[0] is builtins.sorted) or t is _BOTTOM else None
    ts = [_unsized(t) for t in map(of, _values(rt, s)) if t is not _BOTTOM]
    if not ts:
        return _BOTTOM  # (nothing known yet: a guess here could stick, as a join never forgets)
    item = ts[0]
    for t in ts[1:]:
        item = join(item, t)
    return Lst(item) if star_lists.kept(Lst(item)) else UNKNOWN


def _unsized(t: Any) -> Any:
    """An item's type without size symbols (the items' sizes may differ: `n@x.0` is `n`), so that the list's type does
    not change as more of its items get types (two list types do not join: the change would make it unknown)."""
    if isinstance(t, Arr) and t.axes is not None:
        return Arr(t.dtype, tuple(a.split("@")[0] for a in t.axes))
    return t


def array_lists(rt: "ReverseTransform") -> frozenset:
    """The lists of arrays the function builds, and their slices (settle_types._plain_reads): they hold arrays only
    (`appends_keep_type` checks, and a round without the list follows where it fails), so reading an item gives an
    array and operators on it are plain (forward/objects.py: a plain value holds no object)."""
    roots = {xs for xs in rt.local_lists if not is_slice(xs) and xs not in rt.star_parts and
             any(is_float_array(rt.type_of(v)) for v in _values(rt, xs))}
    return frozenset(roots | {xs for xs in rt.local_lists if is_slice(xs) and rt.list_aliases.get(xs.args[0]) in roots})


def _values(rt: "ReverseTransform", xs: Call) -> list:
    """What the list xs is made of and what is appended to it."""
    found = getattr(rt, "_list_values", None)
    if found is None:
        found = rt._list_values = {}
        for b in rt.ir.blocks:
            for st in b.stmts:
                if isinstance(st, Call) and st.callee() is list.append and len(st.args) == 2:
                    found.setdefault(st.args[0], []).append(st.args[1])
    return [*xs.args, *found.get(xs, [])] if xs.callee() is ops.list_of else []


def per_run(fn: Function, xs: Call) -> bool:
    """Is the list xs made in a block that is one step of a sequence of regions (ir/regions.py), with every use of it
    (and of its loop's `sequence`) in that step or the steps after it?  Then each run of that sequence makes it and
    uses it up, and the pullback makes its adjoint when it starts undoing that run (`start_in_seq`)."""
    users = [s for b in fn.blocks for s in b.stmts if xs in s.operands()]
    users += [u for s in users if s.callee() is ops.sequence for b in fn.blocks for u in b.stmts if s in u.operands()]
    phis = any(xs in p.incoming.values() for b in fn.blocks for p in b.phis)
    terms = any(xs in b.term.operands() for b in fn.blocks)  # type: ignore[union-attr]
    return not phis and not terms and one_run(fn, xs, users)


def one_run(fn: Function, made: Call, users: list) -> bool:
    """Is `made` (a statement) one step of a sequence of regions, with these statements in that step or after it?"""
    found = _step_of(build_regions(fn), made.block)  # type: ignore[attr-defined]
    if found is None:
        return False
    items, k = found
    inside: set = set()
    for item in items[k:]:
        _blocks(item, inside)
    return all(u.block in inside for u in users)  # type: ignore[attr-defined]


def _step_of(r: Any, blk: Any) -> Optional[tuple]:
    """(the items of the Seq that has `Stmts(blk)` as an item, its position), or None."""
    if isinstance(r, Seq):
        for k, item in enumerate(r.items):
            if isinstance(item, Stmts) and item.block is blk:
                return r.items, k
            found = _step_of(item, blk)
            if found is not None:
                return found
    elif isinstance(r, If):
        return _step_of(r.then, blk) or _step_of(r.orelse, blk)
    elif isinstance(r, Loop):
        return _step_of(r.body, blk) or _step_of(r.orelse, blk)
    return None


def _blocks(r: Any, out: set) -> None:
    if isinstance(r, Seq):
        for item in r.items:
            _blocks(item, out)
    elif isinstance(r, Stmts):
        out.add(r.block)
    elif isinstance(r, If):
        out.add(r.block)
        _blocks(r.then, out)
        _blocks(r.orelse, out)
    elif isinstance(r, Loop):
        out.add(r.header)
        _blocks(r.body, out)
        _blocks(r.orelse, out)


def start_in_seq(rt: "ReverseTransform", items: list) -> None:
    """At the start of undoing one run of a sequence: the adjoints of the lists (and dicts, local_dicts.py) made anew
    in each run of it (in a
    step no earlier step can leave the sequence before: the run made them), `xs_bar = [0.0] * len(xs)`.  The
    block's record is loaded here (its anchor), so `xs` is read from it."""
    from .transform import anchor
    from .typed_lists import new_adjoint

    for item in items:
        if rt._may_exit(item):
            return  # (the steps after it are undone in a part of their own: rev_seq)
        if not isinstance(item, Stmts):
            continue
        for s in item.block.stmts:
            is_list = s in rt.run_lists and rt.typed_lists.get(s) is s
            if (is_list or s in rt.run_dicts and s in rt.local_dicts) and rt.active(s):
                prev, key = rt.cur, item.block
                if key not in rt.anchored:
                    rt.b.call(anchor, [Const(key)])
                    rt.anchored.add(key)
                rt.cur, loc, rt.b.loc = key, rt.b.loc, s.loc
                rt.write_adj(s, new_adjoint(rt, s) if is_list else rt.b.call(dict.fromkeys, [rt.primal(s), Const(0.0)]))
                rt.cur, rt.b.loc = prev, loc


def once_blocks(fn: Function) -> set:
    """The blocks that run exactly once whenever the function returns: in no loop (as ReverseTransform.top counts
    loops: ir/regions.py), dominating every return."""
    dom = dominators(fn)
    in_loop: set = set()

    def loops(r: Any) -> None:
        if isinstance(r, Seq):
            for item in r.items:
                loops(item)
        elif isinstance(r, If):
            loops(r.then)
            loops(r.orelse)
        elif isinstance(r, Loop):
            in_loop.add(r.header)
            _blocks(r.body, in_loop)
            loops(r.orelse)

    loops(build_regions(fn))
    returns = [b for b in fn.blocks if isinstance(b.term, Return)]
    return {b for b in fn.blocks if b not in in_loop and b in dom and all(b in dom[r] for r in returns)}


def appends_keep_type(rt: "ReverseTransform", ir: Function) -> set:
    """The candidate lists whose type this round was wrong: something appended (or an item of the display) not of
    the list's item type, or an array that is not a new one only read (its list's items must not change under it:
    something else could write it otherwise); a slice or a starred part of what is no list kept here."""
    bad = {s for s in rt.local_lists if s not in rt.star_parts and is_slice(s) and not star_lists.kept(rt.type_of(s))}
    bad |= {s for s in rt.local_lists if is_sorted(s) and rt.type_of(s) != LIST_OF_FLOATS}
    bad |= star_lists.bad_rests(rt)
    uses = uses_of(rt)
    for xs in rt.local_lists:
        if xs in rt.star_parts or is_slice(xs) or is_sorted(xs):
            continue
        t = rt.type_of(xs)
        if not star_lists.kept(t):
            bad.add(xs)
            continue
        for v in _values(rt, xs):
            tv = rt.type_of(v)
            if t.item == FLOAT and tv != FLOAT or \
                    t.item != FLOAT and not (is_float_array(tv) and _fresh(rt, v, xs, uses)):
                bad.add(xs)
    return bad


def _fresh(rt: "ReverseTransform", v: Any, xs: Call, uses: dict) -> bool:
    """Is the array v a new one (or an array parameter) that nothing but xs holds and nothing writes: every other use
    makes a new array of it?"""
    if isinstance(v, Call):
        if not makes_new_array(rt.resolver.callee(v)[0]):
            return False
    elif not (isinstance(v, Param) and is_float_array(rt.param_types.get(v.name, UNKNOWN))):
        return False
    for s, pos in uses.get(v, []):
        if s is xs or isinstance(s, Call) and s.callee() is list.append and s.args[0] is xs and pos == 1:
            continue
        if not isinstance(s, Call) or not reads_only_use(rt, s, pos, None):
            return False
    return True
