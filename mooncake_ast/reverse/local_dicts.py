"""Dicts of floats read by any key and through their views: a plain dict of adjoints, `d_bar[k] += g`.

`scaled = {k: v * s for k, v in values.items()}` then `sum(scaled.values()) + scaled["x"]` is where a
person writes

    scaled_bar = dict.fromkeys(scaled, 0.0)    # once, at the start of the pullback
    scaled_bar["x"] += g                       # a read's adjoint into its key's slot
    for ...:                                   # the comprehension, backwards
        t_bar = scaled_bar[k]                  # a write takes its slot's adjoint
        scaled_bar[k] = 0.0                    # ... and leaves the slot to the value it replaced
        values_bar[k] += t_bar * s

and not identity-keyed storage.  Which dicts:

* a dict the function builds (`{}` or a display `{"a": x, "b": y}`, made where it runs once, or anew in each
  run of a part of the code that holds all its uses: a loop's body), written only by `d[k] = v`; or a dict
  parameter of floats (reverse/argument_kinds.kinds_of types it `any:dict:a=num;...`, its keys strings) that the
  function only reads;
* every value written a float, every key something that carries no derivative (a constant, an int, a key
  of such a dict), so dropping the keys' adjoints drops nothing;
* used only by reads: `d[k]`, `len(d)`, `k in d`, `for k in d`, and the views `d.values()`, `d.items()`, `d.keys()`
  when they are iterated, summed or measured; never returned, stored, aliased by a phi or handed on, so
  nothing else can reach it;
* no write can run after a read of a view (the view saw the final dict: the keys the pullback finds in the
  dict are the keys the view had).

Then every item read is a float (plain arithmetic) and the dict's adjoint is a dict of floats with the
dict's final keys.  A read adds into its key's slot; a write is undone by taking its slot and zeroing it,
so reads before it (of the value it replaced) start afresh.  Anything else and the dict is not typed
here: the generic path (storage) keeps it right.
"""
from __future__ import annotations

import builtins
import operator
from typing import TYPE_CHECKING, Any, Optional

from .. import ops
from ..ir.fold_dicts import distinct_constant_keys
from ..ir.nodes import Call, Const, Function, Param, Value
from ..ir.types import BOOL, FLOAT, INT, UNKNOWN, Dct, Lst, Tup
from . import local_lists
from .int_keys import int_keys
from .list_adjoints import add_to_every_slot
from .param_adjoints import claim_float_dict

if TYPE_CHECKING:
    from .transform import ReverseTransform

_VIEWS = ("values", "items", "keys")

# Roles of the statements that touch a typed dict (rt.dict_roles: statement -> (role, root)).
MAKE, WRITE, READ, VIEW_GET, VIEW, SEQ, VALUE_AT, PAIR, UNPACKED, KEY, VALUE_OF_PAIR, SUM, LEN = (
    "make", "write", "read", "view_get", "view", "seq", "value_at", "pair", "unpacked", "key", "value_of_pair",
    "sum", "len")


def candidates(rt: "ReverseTransform", ir: Function) -> dict:
    """Statement -> (role, root, extra) for the dicts whose uses are all reads and writes this module undoes
    (types are checked afterwards: `values_keep_type`)."""
    uses = _uses(ir)
    roles: dict = {}
    rt.dict_int_keys = set()
    roots = [s for b in ir.blocks for s in b.stmts
             if isinstance(s, Call) and s.callee() is ops.dict_of and not s.kwargs and len(s.args) % 2 == 0]
    roots += [p for p in ir.params if _float_dict_param(rt, p)]
    callee = _Callee(rt)
    for d in roots:
        found: dict = {}
        if _uses_ok(d, uses, found, callee):
            roles.update(found)
            if isinstance(d, Call):
                roles[d] = (MAKE, d, None)
                rt.dict_int_keys.add(d)
            elif int_keys(rt.param_types[d.name]):  # (a parameter keyed by ints: reverse/int_keys.py)
                rt.dict_int_keys.add(d)
    return roles


def param_only_read(rt: "ReverseTransform", ir: Function, p: Param) -> bool:
    """Is p a dict parameter of floats whose every use is a read this module undoes (`len(d)`, `d[k]` by any key,
    its views) or a write `d[k] = v`?  Then settle_types keeps its type while every write puts a float in
    (`values_keep_type`, which makes the parameter untyped otherwise)."""
    return _float_dict_param(rt, p) and _uses_ok(p, _uses(ir), {}, _Callee(rt))


def _float_dict_param(rt: "ReverseTransform", p: Param) -> bool:
    t = rt.param_types.get(p.name)
    return isinstance(t, Dct) and bool(t.items) and all(v == FLOAT for _, v in t.items)


def _uses(ir: Function) -> dict:
    out: dict = {}
    for b in ir.blocks:
        for phi in b.phis:
            for v in phi.incoming.values():
                out.setdefault(v, []).append((phi, None))
        for s in b.stmts:
            for k, a in enumerate([s.fn, *s.args]):
                out.setdefault(a, []).append((s, k - 1))
            for a in s.kwargs.values():
                out.setdefault(a, []).append((s, "kw"))
        for v in b.term.operands():  # type: ignore[union-attr]
            out.setdefault(v, []).append(("term", None))
    return out


def _only(uses: dict, v: Value) -> list:
    return uses.get(v, [])


def _call_at(s: Any, pos: Any, nargs: int) -> bool:
    return isinstance(s, Call) and pos == 0 and not s.kwargs and len(s.args) == nargs


class _Callee:
    """What a statement calls, resolved (`@sum` is builtins.sum), once per statement."""

    def __init__(self, rt: "ReverseTransform") -> None:
        self.rt = rt

    def __call__(self, s: Call) -> Any:
        fn = s.callee()
        if fn is None:
            try:
                fn = self.rt.resolver.callee(s)[0]
            except Exception:  # noqa: BLE001 - an unknown callee is no read of ours
                return None
        return fn


def _uses_ok(d: Value, uses: dict, found: dict, callee: Any) -> bool:
    """Is every use of the dict d one this module undoes?  (Fills `found` with the roles.)"""
    for s, pos in _only(uses, d):
        if not isinstance(s, Call) or s.kwargs:
            return False
        fn = callee(s)
        if fn is operator.setitem and pos == 0 and len(s.args) == 3 and s.args[2] is not d and s.args[1] is not d:
            found[s] = (WRITE, d, None)  # (into a parameter too: `param_writes` says which keys it may write)
        elif fn is operator.getitem and _call_at(s, pos, 2) and s.args[1] is not d:
            found[s] = (READ, d, None)
        elif fn is builtins.len and _call_at(s, pos, 1) or fn in (operator.contains, ops.not_contains) and \
                _call_at(s, pos, 2) and s.args[1] is not d:
            found[s] = (LEN, d, None)  # (`len(d)`, `k in d`: no derivative)
        elif fn is ops.sequence and _call_at(s, pos, 1):  # `for k in d`: its keys
            found[s] = (SEQ, d, "keys")
            if not _seq_ok(s, d, "keys", uses, found, callee):
                return False
        elif fn is builtins.sorted and _call_at(s, pos, 1):  # `for k in sorted(d)`: a new list of its keys, read
            found[s] = (VIEW, d, "keys")  # like the keys view (no write follows a read of the parameter's keys)
            if not _view_ok(s, d, "keys", uses, found, callee):
                return False
        elif fn is builtins.getattr and _call_at(s, pos, 2) and isinstance(s.args[1], Const) and \
                s.args[1].value in _VIEWS:
            calls = _only(uses, s)
            if len(calls) != 1 or not (isinstance(calls[0][0], Call) and calls[0][1] == -1 and not calls[0][0].args
                                       and not calls[0][0].kwargs):
                return False
            view, kind = calls[0][0], s.args[1].value
            found[s] = (VIEW_GET, d, kind)
            found[view] = (VIEW, d, kind)
            if not _view_ok(view, d, kind, uses, found, callee):
                return False
        else:
            return False
    return True


def _view_ok(view: Call, d: Value, kind: str, uses: dict, found: dict, callee: Any) -> bool:
    for s, pos in _only(uses, view):
        if not isinstance(s, Call) or s.kwargs:
            return False
        fn = callee(s)
        if fn is ops.sequence and _call_at(s, pos, 1):
            found[s] = (SEQ, d, kind)
            if not _seq_ok(s, d, kind, uses, found, callee):
                return False
        elif fn is builtins.sum and _call_at(s, pos, 1) and kind == "values":
            found[s] = (SUM, d, view)
        elif fn is builtins.len and _call_at(s, pos, 1):
            found[s] = (LEN, d, None)
        else:
            return False
    return True


def _seq_ok(seq: Call, d: Value, kind: str, uses: dict, found: dict, callee: Any) -> bool:
    """The loop's sequence over a view (or the dict): read by an index (and `len`) only."""
    for s, pos in _only(uses, seq):
        if not isinstance(s, Call) or s.kwargs:
            return False
        fn = callee(s)
        if fn is builtins.len and _call_at(s, pos, 1):
            found[s] = (LEN, d, None)
        elif fn is operator.getitem and _call_at(s, pos, 2) and s.args[1] is not seq:
            if kind == "keys":
                found[s] = (KEY, d, None)
            elif kind == "values":
                found[s] = (VALUE_AT, d, seq)
            else:
                found[s] = (PAIR, d, None)
                if not _pair_ok(s, d, uses, found, callee):
                    return False
        else:
            return False
    return True


def _pair_ok(pair: Call, d: Value, uses: dict, found: dict, callee: Any, depth: int = 0) -> bool:
    """A `(key, value)` item of `d.items()`: unpacked, or read by the constant index 0 or 1."""
    for s, pos in _only(uses, pair):
        if not isinstance(s, Call) or s.kwargs:
            return False
        fn = callee(s)
        if fn is ops.unpack and _call_at(s, pos, 2) and isinstance(s.args[1], Const) and s.args[1].value == 2 \
                and depth == 0:
            found[s] = (UNPACKED, d, None)
            if not _pair_ok(s, d, uses, found, callee, 1):
                return False
        elif fn is operator.getitem and _call_at(s, pos, 2) and isinstance(s.args[1], Const) and \
                type(s.args[1].value) is int and s.args[1].value in (0, 1, -1, -2):
            found[s] = (KEY, d, None) if s.args[1].value in (0, -2) else (VALUE_OF_PAIR, d, pair)
        else:
            return False
    return True


# ---------------------------------------------------------------- types


def call_type(rt: "ReverseTransform", s: Call) -> Optional[Any]:
    """The type of a read of a typed dict (None for statements that are not one)."""
    role = rt.dict_roles.get(s)
    if role is None:
        return None
    r = role[0]
    if r in (READ, VALUE_AT, VALUE_OF_PAIR):
        return FLOAT
    key = INT if role[1] in rt.dict_int_keys else None  # (a dict whose keys are all ints: local ones, until a
    # typing round finds a write with another key, values_keep_type)
    if r == KEY:
        return key
    if r == VIEW:
        return {"values": Lst(FLOAT), "items": Lst(Tup((key or UNKNOWN, FLOAT)))}.get(role[2])
    if r in (SEQ, PAIR, UNPACKED):
        return None  # (sequence and indexing carry the view's type on)
    return None


def plain_read(rt: "ReverseTransform", s: Any) -> bool:
    """Is s a read of a float of a typed dict (operators on it are plain: settle_types._plain_reads)?"""
    role = rt.dict_roles.get(s)
    return role is not None and (role[0] in (READ, VALUE_AT, VALUE_OF_PAIR, SUM) or
                                 role[0] == KEY and role[1] in rt.dict_int_keys)


def values_keep_type(rt: "ReverseTransform") -> set:
    """The dicts whose typing this round was wrong: some write puts something not a float into it, or uses a key
    that may carry a derivative (those are dropped), or a key not an int into a dict whose keys were taken to be
    ints (its keys are typed no more).  Empty when the types hold."""
    bad, not_int = set(), set()
    keys_of = {s for s, role in rt.dict_roles.items() if role[0] == KEY}
    for s, (role, d, _) in rt.dict_roles.items():
        if role == WRITE:
            pairs = [(s.args[1], s.args[2])]
        elif role == MAKE:
            pairs = [(s.args[i], s.args[i + 1]) for i in range(0, len(s.args), 2)]
        else:
            continue
        for k, v in pairs:
            if rt.type_of(v) != FLOAT or not _plain_key(rt, k, keys_of):
                bad.add(d)
            if d in rt.dict_int_keys and not _int_key(rt, k):
                not_int.add(d)
    bad |= _param_writes(rt, keys_of)
    for d in bad:
        if isinstance(d, Param):
            rt.param_types[d.name] = UNKNOWN  # (its items may not be floats: reads of it are typed no more)
    drop(rt, bad)
    rt.dict_int_keys -= bad | not_int
    return bad | not_int


def _param_writes(rt: "ReverseTransform", keys_of: set) -> set:
    """The dict parameters written by a key the pullback cannot tell is there or new; sets rt.new_key_writes.

    A write into a parameter is undone by putting back the value it replaced, so the pullback must know whether
    there was one.  There was for a key of the dict itself (`for k in d: d[k] = ...`: keys are never deleted)
    and for a constant key the call's dict had (its type names them); there was not for a constant key it lacked,
    written once by a statement that runs once (`d["extra"] = v`: undone by deleting it).  Any other key: the
    generic path."""
    rt.new_key_writes = set()
    bad: set = set()
    writes = [(s, d) for s, (role, d, _) in rt.dict_roles.items() if role == WRITE and isinstance(d, Param)]
    if not writes:
        return bad
    once = local_lists.once_blocks(rt.ir)
    for s, d in writes:
        k = s.args[1]
        t = rt.param_types.get(d.name)
        if k in keys_of and rt.dict_roles[k][1] is d:
            continue
        if not (isinstance(k, Const) and isinstance(t, Dct)):
            bad.add(d)
        elif t.get(k.value) is None:
            same = [w for w, e in writes if e is d and isinstance(w.args[1], Const) and w.args[1].value == k.value]
            if len(same) != 1 or s.block not in once:
                bad.add(d)
            else:
                rt.new_key_writes.add(s)
    return bad


def _int_key(rt: "ReverseTransform", k: Value) -> bool:
    if isinstance(k, Const):
        return type(k.value) in (int, bool)
    return rt.type_of(k) in (INT, BOOL)


def _plain_key(rt: "ReverseTransform", k: Value, keys_of: set) -> bool:
    if isinstance(k, Const):
        return type(k.value) in (str, int, bool) or k.value is None
    return rt.type_of(k) in (INT, BOOL) or k in keys_of


def drop(rt: "ReverseTransform", roots: set) -> None:
    rt.dict_roles = {s: role for s, role in rt.dict_roles.items() if role[1] not in roots}


# ---------------------------------------------------------------- which dicts the pullback keeps as plain dicts


def find(rt: "ReverseTransform") -> set:
    """The typed dicts whose adjoints are plain dicts: made where the code runs once, no write after a view."""
    roots = {role[1] for role in rt.dict_roles.values()}
    ok = set()
    rt.run_dicts = set()
    for d in roots:
        if d in rt.typed_dicts:
            continue
        if isinstance(d, Call) and rt.home.get(d) not in rt.top:
            if not local_lists.one_run(rt.ir, d, [s for s, role in rt.dict_roles.items() if role[1] is d]):
                continue
            rt.run_dicts.add(d)  # (made anew in each run of a part of the code: local_lists.start_in_seq)
        writes = [s for s, role in rt.dict_roles.items() if role[1] is d and role[0] == WRITE]
        views = [s for s, role in rt.dict_roles.items() if role[1] is d and role[0] == VIEW]
        if any(_reaches(rt, v, w, rt.home.get(d)) for v in views for w in writes):
            continue
        if d in rt.act.active and not all(w in rt.act.active for w in writes):
            continue  # (every write must be undone, a constant's too: it zeroes its slot)
        ok.add(d)
    drop(rt, roots - ok)
    return ok


def keep(rt: "ReverseTransform", roots: set) -> set:
    """Only these dicts stay typed (something else reaches the others: storage keeps them)."""
    drop(rt, {role[1] for role in rt.dict_roles.values()} - roots)
    return roots


def _reaches(rt: "ReverseTransform", a: Call, b: Call, made: Any = None) -> bool:
    """Can statement b run after statement a (later in its block, or in a block reachable from a's) on the same dict:
    not through the block `made` that makes it (a path through it reaches the next dict it makes)?"""
    ba, bb = rt.home[a], rt.home[b]
    if ba is bb and ba.stmts.index(b) > ba.stmts.index(a):
        return True
    seen: set = set()
    todo = list(ba.successors())
    while todo:
        blk = todo.pop()
        if blk is made:
            continue
        if blk is bb:
            return True
        if blk in seen:
            continue
        seen.add(blk)
        todo.extend(blk.successors())
    return False


def exempt(rt: "ReverseTransform", s: Call) -> bool:
    """Does s touch a typed dict in a way that needs no identity-keyed storage?"""
    return s in rt.dict_roles


# ---------------------------------------------------------------- the pullback


def start(rt: "ReverseTransform") -> None:
    """`d_bar = dict.fromkeys(d, 0.0)` for each typed dict, at the start of the pullback (a dict made anew in each run
    of a part of the code: when the pullback starts undoing that run, local_lists.start_in_seq)."""
    for d in [*rt.ir.params, *(s for b in rt.ir.blocks for s in b.stmts)]:
        if d in rt.local_dicts and d not in rt.run_dicts and rt.active(d):
            if written_param(rt, d):
                rt.write_adj(d, rt.b.call(claim_float_dict, [rt.primal(d)]))  # (the caller's, after the call)
                continue
            zeros = rt.b.call(dict.fromkeys, [rt.primal(d), Const(0.0)])
            rt.write_adj(d, zeros)


def written_param(rt: "ReverseTransform", d: Value) -> bool:
    """Is d a dict parameter kept typed here that the function writes?  Its pullback starts from the caller's adjoint
    (`start`) and hands the entry adjoint back where the caller keeps it (shadows.give_back)."""
    return isinstance(d, Param) and d in rt.local_dicts and any(
        role == WRITE and root is d for role, root, _ in rt.dict_roles.values())


def reverse(rt: "ReverseTransform", s: Call) -> None:
    role, d, extra = rt.dict_roles[s]
    if role == MAKE:
        pairs = [(s.args[i], s.args[i + 1]) for i in reversed(range(0, len(s.args), 2))]
        keys = [k.value if isinstance(k, Const) else k for k, _ in pairs]
        distinct = all(isinstance(k, Const) for k, _ in pairs) and distinct_constant_keys(keys)
        for k, v in pairs:
            _undo_write(rt, d, k, v, reset=not distinct)
        rt.take_adj(s)
        return
    if role == WRITE and isinstance(d, Param):
        _undo_param_write(rt, s)
        return
    if role == WRITE:
        _undo_write(rt, d, s.args[1], s.args[2], reset=True)
        return
    g = rt.take_adj(s)
    if g is None or not rt.active(d):
        return
    if role == READ:
        key = rt.primal(s.args[1])
    elif role == VALUE_AT:
        keys = _keys_list(rt, extra)
        key = rt.b.call(operator.getitem, [keys, rt.primal(s.args[1])])
    elif role == VALUE_OF_PAIR:  # (`for k, v in d.items()`: k, where the loop names it)
        named = [k for k, r in rt.dict_roles.items() if r[0] == KEY and k.args[0] is extra and k in rt.home]
        key = rt.primal(named[0]) if named else rt.b.call(operator.getitem, [rt.primal(extra), Const(0)])
    elif role == SUM:  # `for k in d_bar: d_bar[k] += g`
        bar = rt.read_adj(d)
        add_to_every_slot(rt, bar, g, bar)
        return
    else:
        return  # (keys, lengths, the views and the sequences carry no derivative of their own)
    st = rt.b.call(ops.add_to_item, [rt.read_adj(d), g, key])
    st.keep = True  # type: ignore[attr-defined]


def _undo_write(rt: "ReverseTransform", d: Value, k: Value, v: Value, reset: bool) -> None:
    """`d[k] = v` backwards: v's adjoint is k's slot, and the slot starts again from zero (the value it replaced
    has had no reads since)."""
    if not rt.active(d):
        return
    bar = rt.read_adj(d)
    key = rt.primal(k)
    g = rt.b.call(operator.getitem, [bar, key])
    g.keep = True  # type: ignore[attr-defined]  # (read before the reset below)
    rt.dense_values.add(g)
    if reset:
        st = rt.b.call(operator.setitem, [bar, key, Const(0.0)])
        st.keep = True  # type: ignore[attr-defined]
    if rt.active(v):
        rt.accumulate(v, g)


def _undo_param_write(rt: "ReverseTransform", s: Call) -> None:
    """`d[k] = v` into a parameter, backwards: the value it replaced put back (`d[k] = old`), or the key deleted when
    the write added it (`del d[k]`), so the caller's dict rolls back as the generic path rolls it back; v's
    adjoint is k's slot, which starts again from zero (or goes, with the key)."""
    d, k, v = s.args
    new = s in rt.new_key_writes
    if new:
        undo = rt.b.call(operator.delitem, [rt.primal(d), rt.primal(k)])
    else:
        saved = rt.saves.get(s)
        if saved is None:
            saved = rt.saves[s] = Call(Const(operator.getitem), [d, k], loc=s.loc)  # (a float: kept as it is)
            rt.home[saved] = rt.home[s]
        undo = rt.b.call(operator.setitem, [rt.primal(d), rt.primal(k), rt.primal(saved)])
    undo.keep = True  # type: ignore[attr-defined]
    if not rt.active(d):
        return
    bar = rt.read_adj(d)
    if new:
        g = rt.b.call(operator.getitem, [bar, rt.primal(k)])
        g.keep = True  # type: ignore[attr-defined]  # (read before the slot goes)
        rt.dense_values.add(g)
        gone = rt.b.call(operator.delitem, [bar, rt.primal(k)])
        gone.keep = True  # type: ignore[attr-defined]
        if rt.active(v):
            rt.accumulate(v, g)
        return
    _undo_write(rt, d, k, v, reset=True)


def _keys_list(rt: "ReverseTransform", seq: Call) -> Value:
    """`list(d)` beside the view's sequence in the forward pass (recorded like `x.shape`: ReverseTransform.primal_attr),
    so a position of `d.values()` finds its key."""
    d = rt.dict_roles[seq][1]
    a = rt.attrs.get((seq, "%keys"))
    if a is None:
        a = rt.attrs[(seq, "%keys")] = Call(Const(builtins.list), [d], hint="keys", loc=seq.loc)
        rt.home[a] = rt.home[seq]
        rt.types[a] = UNKNOWN
    return rt.primal(a)
