"""After the pullback is built: decide what the forward pass records, and patch both passes.

The pullback was built with placeholders for primal values (`_primal_ref`)
and for stacks (`_stack_ref`).  Dead code is swept first, so only values a
surviving reverse statement reads are recorded.  Then:

* values defined once (in blocks that run once, or parameters) travel in the
  tape directly; values of blocks in loops or branches go on a stack per block,
  pushed at the end of the block and popped where its reverse starts;
* branch conditions, loop trip counts and early-exit flags are pushed on the
  edges where they are decided (edges are split where needed);
* every `return v` returns `(v, tape)`.
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .. import ops
from ..ir.dce import sweep
from ..ir.nodes import Block, Call, Const, Function, Phi, Return, Value
from ..ir.types import INT
from . import adjoints as adj
from .runtime import rcall as _dispatch
from .number_calls import rcall_numbers
from .cleanup import drop_aliases, share_repeats, substitute
from .dead_restores import drop_dead_restores
from .empty_loops import drop_empty_loops, drop_unread_pops
from .reassociate import reassociate
from . import record_edges
from .record_edges import _append, _find_item, _on_edge, _record_item_exits, _record_loop_exits, begin_patching, \
    end_patching
from .transform import ReverseTransform, _stack_ref, anchor


def sweep_pullback(fn: Function) -> None:
    """Remove pullback code nothing needs; calls with effects (pops, storage updates) stay."""
    sweep(fn, lambda s: isinstance(s, Call) and (s.callee() in EFFECTS or getattr(s, "keep", False)))


from . import part_reads, shadows

EFFECTS = {anchor, adj.call_pullback, list.pop, shadows.acc, part_reads.getitem_reverse, part_reads.getattr_reverse,
           shadows.setitem_reverse, shadows.setattr_reverse, shadows.cell_set_reverse, shadows.cell_get_reverse,
           shadows.append_reverse, shadows.inplace_reverse, shadows.transfer, shadows.set_add_reverse,
           shadows.ufunc_out_reverse, shadows.delitem_reverse, *shadows.UNDO.values(), shadows.undo_append}


def _place_attributes(rt: ReverseTransform) -> None:
    """`t.size` next to t in the forward pass, for each one the pullback still reads (ReverseTransform.primal_attr)."""
    if not rt.attrs:
        return
    rev = rt.rev
    read = {id(getattr(s, "primal", None)) for b in rev.blocks for s in b.stmts}
    operands = {id(o) for b in rev.blocks for s in b.stmts for o in s.operands()}
    operands.update(id(o) for b in rev.blocks for o in b.term.operands())  # type: ignore[union-attr]
    read.update(id(v) for v, ref in rt.global_refs.items() if id(ref) in operands)
    for (v, _), a in rt.attrs.items():
        if id(a) in read:
            blk = rt.home[v]
            blk.stmts.insert(0 if isinstance(v, Phi) else blk.stmts.index(v) + 1, a)
            a.block = blk


def finalize(rt: ReverseTransform) -> tuple[Function, list[Value], Function]:
    rev, fwd = rt.rev, rt.ir
    sweep_pullback(rev)
    anchored = {blk for blk, refs in rt.refs.items() if any(r.block is not None and r in r.block.stmts for r in refs)}
    control = {sref for _, sref in _all_stacks(rt)}
    if drop_empty_loops(rev, control, anchor, anchored):
        sweep_pullback(rev)  # (what only the loops read)
        drop_unread_pops(rev, control)  # (the ranges they walked)
    reassociate(rt, rev)
    sweep_pullback(rev)  # (before share_repeats: a factor it replaced may sit where its operands are not yet made)
    drop_aliases(rev)
    share_repeats(rev)
    sweep_pullback(rev)
    _place_attributes(rt)
    _call_pullbacks_directly(rev)
    _patch_dispatch(rt)
    drop_dead_restores(rt)
    sweep_pullback(rev)  # (the placeholders only dropped restores read)
    methods_of_arrays(rev)
    _patch_saves(rt)
    # ---------------------------------------------------------------- records per block
    surviving: dict[Any, list[Call]] = {}
    for blk, refs in rt.refs.items():
        alive = [r for r in refs if r.block is not None and r in r.block.stmts]
        if alive:
            surviving[blk] = alive
    # The references move to their anchors: take them all out first, so anchor positions hold.
    all_refs = {id(r) for refs in surviving.values() for r in refs}
    for b in rev.blocks:
        b.stmts = [s for s in b.stmts if id(s) not in all_refs]
    walked = _read_walked_items(rt, surviving)
    anchors: dict[Any, tuple[Block, int]] = {}
    for b in rev.blocks:
        for i, s in enumerate(b.stmts):
            if s.callee() is anchor:
                anchors[s.args[0].value] = (b, i)  # type: ignore[union-attr]
    used = _operand_ids(rev)  # one pass, not one per reference (issue 11: linear in the function's size)
    live_globals = {k: r for k, r in rt.global_refs.items() if id(r) in used}

    tape_values: list[Value] = []  # forward values, in tape order
    tape_refs: list[Call] = []  # the pullback placeholders they become
    for key, ref in live_globals.items():
        if isinstance(key, tuple):
            continue  # stacks, below
        tape_values.append(key)
        tape_refs.append(ref)

    # Stacks are created in the forward entry block.
    entry_stmts: list[Call] = []
    stack_vals: dict[Any, Call] = {}

    def new_stack(key: Any, hint: str) -> Call:
        s = Call(Const(ops.list_of), [], hint=hint, loc=fwd.loc)
        entry_stmts.append(s)
        stack_vals[key] = s
        return s

    inserts: dict[Block, list[tuple[int, list[Call]]]] = {}
    # A block may be undone at more than one site (a while loop's last test): every site pops
    # the same per-block stack, so the record holds what any of its sites reads.
    sites_of: dict[Block, list[Any]] = {}
    for key in surviving:
        sites_of.setdefault(_block_of(key), []).append(key)
    for blk, keys in sites_of.items():
        needs: list[Value] = []
        for key in keys:
            for r in surviving[key]:
                if not any(r.args[0].value is n for n in needs):  # type: ignore[union-attr]
                    needs.append(r.args[0].value)  # type: ignore[union-attr]
        loc = blk.stmts[-1].loc if blk.stmts else fwd.loc
        derived = _recomputable(rt, needs, walked) if blk not in rt.top else {}
        if derived:
            needs = [n for n in needs if id(n) not in derived]
        if blk not in rt.top and len(needs) <= 2:
            # A block that may run many times and records one or two values: a stack per value
            # (`i_stack.append(i)`, popped as `i = i_stack.pop()`).  A tuple per run would cost 56 bytes
            # and more per loop trip, more than the values' own list slots (issue 14: a scalar loop's
            # tape).  More values travel as one tuple: one push, one pop and one name per run.
            pushes, srefs = [], []
            for j, n in enumerate(needs):
                hint = _stack_hint([n])
                stack = new_stack(("rec", blk, j), hint)
                pushes.append(Call(Const(list.append), [stack, n], loc=loc))
                srefs.append(Call(Const(_stack_ref), [Const(("rec", blk, j))], hint=hint))
                tape_values.append(stack)
                tape_refs.append(srefs[-1])
            for push in pushes:
                _append(blk, push)
            for key in keys:
                rb, idx = anchors[key]
                pops = []
                read = {id(r.args[0].value): r for r in surviving[key]}  # type: ignore[union-attr]
                later = [r for r in surviving[key] if id(r.args[0].value) in derived]  # type: ignore[union-attr]
                for j, n in enumerate(needs):
                    ref = read.get(id(n))
                    pop = ref if ref is not None else Call(Const(list.pop), [srefs[j]])
                    pop.fn, pop.args = Const(list.pop), [srefs[j]]
                    pops.append(pop)
                base = {**walked, **{id(n): pops[j] for j, n in enumerate(needs)}}
                inserts.setdefault(rb, []).append((idx, pops + _recompute(later, derived, base)))
            continue
        rec = Call(Const(ops.tuple_of), list(needs), hint=None, loc=loc)
        _append(blk, rec)
        if blk in rt.top:
            assert len(keys) == 1
            tape_values.append(rec)
        else:
            stack = new_stack(("rec", blk), _stack_hint(needs))
            _append(blk, Call(Const(list.append), [stack, rec], loc=rec.loc))
            sref = Call(Const(_stack_ref), [Const(("rec", blk))], hint=_stack_hint(needs))
            tape_values.append(stack)
            tape_refs.append(sref)
        for key in keys:
            refs = surviving[key]
            rb, idx = anchors[key]
            if blk in rt.top:
                load = Call(Const(_tape_item), [], hint=None)
                tape_refs.append(load)
            else:
                load = Call(Const(list.pop), [sref])
            load.tuple_size = len(needs)  # type: ignore[attr-defined]
            later = [r for r in refs if id(r.args[0].value) in derived]  # type: ignore[union-attr]
            refs = [r for r in refs if id(r.args[0].value) not in derived]  # type: ignore[union-attr]
            base = {}
            for r in refs:
                j = next(i for i, n in enumerate(needs) if n is r.args[0].value)  # type: ignore[union-attr]
                base[id(needs[j])] = r
                r.fn, r.args = Const(operator.getitem), [load, Const(j)]
            for j, n in enumerate(needs):
                if later and id(n) not in base:  # (read only to recompute a value from it)
                    base[id(n)] = Call(Const(operator.getitem), [load, Const(j)])
                    refs.append(base[id(n)])
            refs += _recompute(later, derived, {**walked, **base})
            inserts.setdefault(rb, []).append((idx, [load, *refs] if blk not in rt.top else refs))
            if blk in rt.top:
                inserts.setdefault(rev.entry, []).append((0, [load]))

    # ---------------------------------------------------------------- control decisions
    used = _operand_ids(rev)  # nothing below changes the pullback's statements before they are inserted
    begin_patching(fwd)  # (only edges are split below: predecessors and dominators kept up to date, not remade)
    for (kind, item), sref in _all_stacks(rt):
        if id(sref) not in used:
            continue
        stack = new_stack((kind, id(item) if not isinstance(item, tuple) else item), sref.hint or kind)
        tape_values.append(stack)
        tape_refs.append(sref)
        if kind == "flag":
            blk = item
            _append(blk, Call(Const(list.append), [stack, blk.term.cond], loc=blk.term.loc))  # type: ignore[union-attr]
        elif kind in ("count", "normal"):
            _record_loop_exits(fwd, rt, item, kind, stack)
        elif kind == "range":  # (walked_loops.walked_range: a loop that always runs to its end)
            _on_edge(fwd, item, item.term.orelse, [Call(Const(list.append), [stack, rt.walked_ranges[item]])])
        elif kind == "edge":
            src, dst = item
            vals = rt.edge_records[(src, dst)]
            rec = Call(Const(ops.tuple_of), list(vals))
            _on_edge(fwd, src, dst, [rec, Call(Const(list.append), [stack, rec])])
        elif kind == "exit":
            _record_item_exits(fwd, _find_item(rt.regions, item, fwd), stack)
    end_patching(fwd)

    # ---------------------------------------------------------------- the tape
    for s in entry_stmts:
        s.block = fwd.entry
    fwd.entry.stmts[0:0] = entry_stmts
    for b in list(fwd.blocks):
        if isinstance(b.term, Return):
            tape = Call(Const(ops.tuple_of), list(tape_values), hint="tape", loc=b.term.loc)
            out = Call(Const(ops.tuple_of), [b.term.value, tape], loc=b.term.loc)
            _append(b, tape)
            _append(b, out)
            b.term.value = out
    # The pullback unpacks the tape on entry: `x, n, t_stack = tape`, each slot named as the forward pass names it.
    rt.tape_slots = list(zip(tape_values, tape_refs))
    # (the tape's positions of the stacks the pullback pops: a pullback called again pops copies of them, so the
    # tape stays whole -- generate.py's `reusable`)
    stacks = {id(s) for s in stack_vals.values()}
    rt.stack_slots = tuple(j for j, v in enumerate(tape_values) if id(v) in stacks)
    rt.pullback_places = _pullback_places(fwd, rt, tape_values, stacks)
    unpack = Call(Const(ops.identity), [rt.tape], hint=None)
    unpack.tuple_size = len(tape_refs)  # type: ignore[attr-defined]
    for j, r in enumerate(tape_refs):
        r.fn, r.args = Const(operator.getitem), [unpack, Const(j)]
    inserts.setdefault(rev.entry, []).append((0, [unpack, *tape_refs]))
    for rb, items in inserts.items():
        # Later anchors first so earlier indices stay valid; entry unpack goes first of all.
        for idx, stmts in sorted(items, key=lambda x: (x[0], x[1][0] is not unpack), reverse=True):
            for s in stmts:
                s.block = rb
            rb.stmts[idx:idx] = stmts
    for b in rev.blocks:
        b.stmts = [s for s in b.stmts if s.callee() is not anchor]
        _recomputed_where_read(b)
        if b is rev.entry:
            # the tape unpack must come before the entry-block record loads
            refs = set(tape_refs)  # (sets: tests against lists cost the square of a long function's size)
            first = [s for s in b.stmts if s is unpack or s in refs]
            moved = set(first)
            b.stmts = first + [s for s in b.stmts if s not in moved]
    fwd.recompute_preds()
    rev.recompute_preds()
    from ..forward.transform import _verify_if_asked

    _verify_if_asked(fwd)
    _verify_if_asked(rev)
    params = list(fwd.params)
    if rt.uses_self:
        params = [fwd.self_ref] + params  # type: ignore[attr-defined]
    return fwd, params, rev


def _pullback_places(fwd: Function, rt: ReverseTransform, tape_values: list, stacks: set) -> Any:
    """Where the tape holds the pullbacks of the calls dispatched at run time: `[slot, item, stacked]` per place --
    `tape[slot]` (item None) or `tape[slot][item]`, or with `stacked` every record of the stack `tape[slot]` (or its
    `[item]`) -- so that a pullback called again can ask each of them whether it may be too (derived_rules).  None
    where one may sit elsewhere (a join of pullbacks, a record of a record): such a tape is not kept."""
    pbs = {id(pb) for pb in rt.dispatched.values()}
    if not pbs:
        return []
    tainted = set(pbs) | {id(pb.args[0]) for pb in rt.dispatched.values() if pb.args}  # (and the (value, pb) pairs)
    changed = True
    while changed:
        changed = False
        for b in fwd.blocks:
            for phi in b.phis:
                if id(phi) not in tainted and any(id(v) in tainted for v in phi.operands()):
                    tainted.add(id(phi))
                    changed = True
    pushed: dict = {}
    for b in fwd.blocks:
        for st in b.stmts:
            if isinstance(st, Call) and st.callee() is list.append and len(st.args) == 2 and id(st.args[0]) in stacks:
                pushed.setdefault(id(st.args[0]), []).append(st.args[1])
    places: list = []

    def record(v: Any, slot: int, stacked: bool) -> bool:
        if id(v) in pbs:
            places.append([slot, None, stacked])
            return True
        if isinstance(v, Call) and v.callee() is ops.tuple_of and not v.kwargs:
            for i, a in enumerate(v.args):
                if id(a) in pbs:
                    places.append([slot, i, stacked])
                elif id(a) in tainted:
                    return False
            return True
        return id(v) not in tainted

    for j, v in enumerate(tape_values):
        for item in pushed.get(id(v), ()) if id(v) in stacks else (v,):
            if not record(item, j, id(v) in stacks):
                return None
    return places


_INT_ARITHMETIC = (operator.add, operator.sub, operator.mul)


def _read_walked_items(rt: ReverseTransform, surviving: dict) -> dict:
    """The pullback's references to the items of loops it walks backwards (walked_loops.py) become the
    pullback loop's own item: nothing recorded.  Returns {id of the primal item: the pullback's item}."""
    walked: dict = {}
    replace: dict = {}
    for key in list(surviving):
        keep = []
        for r in surviving[key]:
            item = rt.walked_items.get(r.args[0].value)  # type: ignore[union-attr]
            if item is None:
                keep.append(r)
            else:
                replace[r] = item
        if keep:
            surviving[key] = keep
        else:
            del surviving[key]
    for v, item in rt.walked_items.items():
        walked[id(v)] = item
    if replace:
        substitute(rt.rev, replace)
    return walked


def _recomputable(rt: ReverseTransform, needs: list, walked: dict) -> dict:
    """The values a loop body's record need not keep: integer arithmetic on other values it keeps, on the items
    of loops the pullback walks backwards (`walked`) and on integer constants (`i - 1` next to `i`), computed
    again where the pullback pops the record (`y_bar[i - 1]`), as a person would; by id.  (Python integers:
    the same operands give the same result.)"""
    kept = {id(n) for n in needs} | set(walked)
    out = {}
    for n in needs:
        if not (isinstance(n, Call) and n.callee() in _INT_ARITHMETIC and len(n.args) == 2 and not n.kwargs
                and rt.type_of(n) == INT):
            continue
        var = [a for a in n.args if not isinstance(a, Const)]
        if var and all(type(a.value) is int for a in n.args if isinstance(a, Const)) and all(
                id(a) in kept and rt.type_of(a) == INT and not (isinstance(a, Call) and a.callee() in _INT_ARITHMETIC)
                for a in var):
            out[id(n)] = n
    return out


def _recompute(refs: list, derived: dict, base: dict) -> list:
    """The pullback's references to derived values (_recomputable), made into the arithmetic itself on the
    references to what the record keeps (`base`: id of a kept value -> its reference at this site)."""
    out = []
    for r in refs:
        n = derived.get(id(r.args[0].value))
        if n is not None:
            r.fn, r.args = Const(n.callee()), [a if isinstance(a, Const) else base[id(a)] for a in n.args]
            r.recomputed = True  # type: ignore[attr-defined]
            out.append(r)
    return out


def _recomputed_where_read(b: Block) -> None:
    """A recomputed index moves down to just before its first reader in the block, where it prints
    inline (`y_bar[i - 1] += ...`): integer arithmetic on popped values, it reads no object."""
    for s in [s for s in b.stmts if getattr(s, "recomputed", False)]:
        k = b.stmts.index(s)
        first = next((j for j in range(k + 1, len(b.stmts)) if any(o is s for o in b.stmts[j].operands())), None)
        if first is not None and first > k + 1:
            b.stmts.insert(first, s)
            del b.stmts[k]


def _stack_hint(needs: list) -> str:
    for v in needs:
        h = getattr(v, "hint", None)
        if h and not h.startswith("%") and h.isidentifier():
            return f"{h}_stack"
    if len(needs) == 1 and isinstance(needs[0], Call):  # (an unnamed result: after its function, `tanh_stack`)
        fn = needs[0].fn
        callee = needs[0].callee()
        name = (fn.args[1].value if isinstance(fn, Call) and fn.callee() is getattr and len(fn.args) == 2
                and isinstance(fn.args[1], Const) else None if getattr(callee, "__module__", None) in (None, "_operator")
                else getattr(callee, "__name__", None))
        if isinstance(name, str) and name.isidentifier() and not name.startswith("_"):
            return f"{name}_stack"
    return "stack"


def _block_of(key: Any) -> Block:
    """The forward block of a reverse site: the block itself, or (site name, block)."""
    return key[1] if isinstance(key, tuple) else key


def _tape_item() -> Any:  # placeholder of a top-block record, replaced by a getitem of the tape
    raise AssertionError


def _operand_ids(fn: Function) -> set[int]:
    """The ids of every value some statement, phi or terminator of fn reads (is a reference used?)."""
    out: set[int] = set()
    for b in fn.blocks:
        for s in b.stmts:
            out.update(map(id, s.operands()))
        for phi in b.phis:
            out.update(map(id, phi.operands()))
        out.update(map(id, b.term.operands()))  # type: ignore[union-attr]
    return out


def _all_stacks(rt: ReverseTransform):
    for key, sref in rt._keyed_stacks.items():
        yield key, sref


def _patch_dispatch(rt: ReverseTransform) -> None:
    """`y = f(*args)` dispatched at run time becomes `r = rcall(f, args, kwargs); y = r[0]; pb = r[1]`.

    (Each block's statements are rebuilt once, with every call of it in place: a long straight-line function is
    one block holding hundreds of them, and a splice per call made the pass grow with the square of its length.)"""
    in_place: dict = {}  # {s: the statements that take its place}
    blocks: dict = {}  # (the blocks touched, in order)
    for s, pb in rt.dispatched.items():
        b = s.block
        assert b is not None
        if s.callee() is ops.apply:
            f, args, kwargs = s.args
        else:
            f = s.fn
            args = Call(Const(ops.tuple_of), list(s.args), loc=s.loc)
            kwargs = Call(Const(ops.dict_of), [x for k, v in s.kwargs.items() for x in (Const(k), v)], loc=s.loc)
        quiet = rt.quiet_of.get(s)
        dispatch = rcall_numbers if s in rt.number_calls else _dispatch
        call = Call(Const(dispatch), [f, args, kwargs] + ([Const(None), Const(quiet)] if quiet else []), loc=s.loc)
        call.tuple_size = 2  # type: ignore[attr-defined]
        pre = [x for x in (args, kwargs) if isinstance(x, Call) and x.block is None]
        for x in pre + [call]:
            x.block = b
        s.fn, s.args, s.kwargs = Const(operator.getitem), [call, Const(0)], {}
        pb.fn, pb.args, pb.kwargs = Const(operator.getitem), [call, Const(1)], {}
        pb.block = b
        pb.hint = None
        if record_edges.INCREMENTAL:
            in_place[s] = pre + [call, s, pb]
            blocks[b] = None
        else:
            b.stmts[b.stmts.index(s):b.stmts.index(s) + 1] = pre + [call, s, pb]
    for b in blocks:
        stmts = []
        for x in b.stmts:
            stmts.extend(in_place.pop(x, (x,)))
        b.stmts = stmts
    if in_place:
        raise ValueError(f"dispatched calls not in their blocks: {list(in_place)}")  # (as list.index said)


def methods_of_arrays(rev: Function) -> None:
    """`np.sum(g, axis=0)` of an adjoint known to be an array (specialise._array_sum marks it) becomes
    `g.sum(axis=0)`, as a person writes it: NumPy's function is a Python layer over the method.  (Last,
    after the passes that know np.sum as a call that writes nothing.)"""
    for b in rev.blocks:
        out = []
        for s in b.stmts:
            if getattr(s, "array_method", False) and s.callee() is np.sum and len(s.args) == 1:
                method = Call(Const(getattr), [s.args[0], Const("sum")], loc=s.loc)
                method.block = b
                out.append(method)
                s.fn, s.args = method, []
            out.append(s)
        b.stmts = out


def _call_pullbacks_directly(rev: Function) -> None:
    """`call_pullback(pb, g)` becomes `pb(g)`: one Python frame less per level of the user's recursion
    (the pullback of a recursive call is reached through a chain of these calls)."""
    for b in rev.blocks:
        for s in b.stmts:
            if s.callee() is adj.call_pullback:
                s.fn, s.args = s.args[0], list(s.args[1:])
                s.keep = True  # type: ignore[attr-defined]  (a call with effects: never swept)


def _patch_saves(rt: ReverseTransform) -> None:
    """Insert `old = save_*(...)` right before each write whose pullback restores what it overwrote."""
    for s, save in rt.saves.items():
        b = s.block
        assert b is not None
        save.block = b
        save.hint = "old"
        i = b.stmts.index(s)
        b.stmts.insert(i, save)


