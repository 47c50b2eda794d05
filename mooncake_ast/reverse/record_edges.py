"""Where the forward pass records which path it took: statements put on CFG edges, loop exits and trip counts.

The pullback finds its way back by what the forward pass recorded on the way: a flag or a count appended to a
stack on the edge a loop or an iteration left by (`_record_loop_exits`, `_record_item_exits`), the loop's
counter (`_counter`), statements put on an edge of their own (`split_edge`, `_on_edge`: a block inserted
between src and dst).  record.finalize (reverse/record.py) places them while it builds the forward pass."""
from __future__ import annotations

import operator
from typing import Any

from ..ir.nodes import Block, Branch, Call, Const, Function, Goto, Phi, Value
from ..ir.regions import If, Loop, Seq
from .prepare import own_exits, own_exits_loop
from .transform import ReverseTransform


def _append(b: Block, s: Call) -> None:
    s.block = b
    b.stmts.append(s)


def _prepend(b: Block, s: Call) -> None:
    s.block = b
    b.stmts.insert(0, s)


def _splits(fn: Function) -> dict[tuple[Block, Block], Block]:
    """The edges of `fn` split so far, and the blocks put on them.

    Kept on the function being patched, never in a module-level table: generations run
    concurrently in threads (and one may start inside another), and a shared table let
    one generation find or clear another's split blocks, dropping loop-exit records.
    """
    found = fn.__dict__.get("_edge_splits")
    if found is None:
        found = fn.__dict__["_edge_splits"] = {}
    return found


# Off: every split recomputes all predecessors, every while loop's counter builds the dominator tree anew and
# record._patch_dispatch splices each call's statements in one by one, as before the shortcuts
# (tests/test_scale_inline_records.py compares the modules made both ways).
INCREMENTAL = True


class _Patching:
    """What record.finalize's control decisions know of the forward pass's CFG while they patch it (between
    `begin_patching` and `end_patching`), so that each split and each loop counter costs what it touches, not
    the whole function (issue 11): in that stretch the CFG changes only by `split_edge`.

    `canonical`: predecessors are as `Function.recompute_preds` makes them (set by the first full recompute);
    from then on a split updates the two blocks it touches to the same lists.  `tree`: the dominator tree made
    after that; a block split off since dominates what its one predecessor dominates, its source, so the
    tree answers for it too (splitting an edge changes no dominance between the other blocks)."""

    def __init__(self) -> None:
        self.canonical = False
        self.tree: Any = None
        self.source_of: dict[Block, Block] = {}
        self.regions: Any = None  # (the region tree `found` was made from)
        self.found: dict = {}  # {id of a region item: the first item of that id _find_item's walk meets}
        self.loops: dict = {}  # {header: the first loop of that header _find_loop's walk meets}


def begin_patching(fn: Function) -> None:
    if INCREMENTAL:
        fn.__dict__["_patching"] = _Patching()


def end_patching(fn: Function) -> None:
    fn.__dict__.pop("_patching", None)


def _recompute_preds(fn: Function) -> None:
    state = fn.__dict__.get("_patching")
    if state is None or not state.canonical:
        fn.recompute_preds()
        if state is not None:
            state.canonical = True


def split_edge(fn: Function, src: Block, dst: Block) -> Block:
    """A block on the edge src -> dst (for code that runs only when that edge is taken); made once per edge."""
    splits = _splits(fn)
    if (src, dst) in splits:
        return splits[(src, dst)]
    mid = fn.new_block()
    splits[(src, dst)] = mid
    mid.term = Goto(dst)
    t = src.term
    for attr in ("target", "then", "orelse"):
        if getattr(t, attr, None) is dst:
            setattr(t, attr, mid)
            break
    for phi in dst.phis:
        if src in phi.incoming:
            phi.incoming[mid] = phi.incoming.pop(src)
    state = fn.__dict__.get("_patching")
    if state is not None and state.canonical:
        # (what recompute_preds makes: mid, the last block, comes last among dst's predecessors; src stays one
        # if its other edge still goes to dst)
        mid.preds = [src]
        if not any(s is dst for s in src.successors()):
            dst.preds = [p for p in dst.preds if p is not src]
        dst.preds.append(mid)
        state.source_of[mid] = src
    else:
        _recompute_preds(fn)
    return mid


def _on_edge(fn: Function, src: Block, dst: Any, stmts: list[Call]) -> None:
    """Run `stmts` when control goes from src to dst (dst None: src returns)."""
    splits = _splits(fn)
    if dst is not None and (src, dst) in splits:
        for s in stmts:
            _append(splits[(src, dst)], s)
        return
    if dst is None or len(src.successors()) == 1:
        for s in stmts:
            _append(src, s)
        return
    mid = split_edge(fn, src, dst)
    for s in stmts:
        _append(mid, s)


def _record_loop_exits(fn: Function, rt: ReverseTransform, header: Block, kind: str, stack: Call) -> None:
    loop = _find_loop(rt.regions, header, fn)
    info = header.loop
    counter = _counter(fn, header)
    t = header.term
    assert isinstance(t, Branch)
    loc = info.loc if info else None
    before: list[Call] = []
    if kind == "count":
        # A for loop ran len(seq) times when it ends normally (its index stops one short of that).
        value_normal: Value = info.length if info.kind == "for" and info.length is not None else counter
        if info.kind == "for" and isinstance(value_normal, Call) and value_normal.block is header:
            before, value_normal = _length_again(value_normal, loc)  # the header's own test reads it
    else:
        value_normal = Const(True)
    _on_edge(fn, header, t.orelse, before + [Call(Const(list.append), [stack, value_normal], loc=loc)])
    for e in own_exits_loop(loop):
        if e.kind == "raise":
            continue
        if kind == "count":
            plus = Call(Const(operator.add), [counter, Const(1)], loc=loc)
            _on_edge(fn, e.src, e.dst, [plus, Call(Const(list.append), [stack, plus], loc=loc)])
        else:
            _on_edge(fn, e.src, e.dst, [Call(Const(list.append), [stack, Const(False)], loc=loc)])


def _length_again(n: Call, loc: Any) -> tuple[list[Call], Call]:
    """`len(seq)` (or `min(len(a), len(b))`) computed anew where a for loop has just ended."""
    if n.callee() is min:
        lens = [Call(Const(len), list(x.args), loc=loc) for x in n.args]  # type: ignore[union-attr]
        total = Call(Const(min), list(lens), loc=loc)
        return lens + [total], total
    again = Call(Const(len), list(n.args), loc=loc)
    return [again], again


def _counter(fn: Function, header: Block) -> Value:
    """The number of completed iterations, at the loop header (added for while loops)."""
    info = header.loop
    assert info is not None
    if info.counter is not None:
        return info.counter
    c = Phi(hint=None)
    c.block = header
    header.phis.append(c)
    back = [p for p in header.preds if _dominated_by(fn, p, header)]
    for p in header.preds:
        if p in back:
            nxt = Call(Const(operator.add), [c, Const(1)], loc=info.loc)
            if len(p.successors()) == 1:
                _append(p, nxt)
                c.incoming[p] = nxt
            else:
                mid = split_edge(fn, p, header)
                _append(mid, nxt)
                c.incoming[mid] = nxt
        else:
            c.incoming[p] = Const(0)
    _recompute_preds(fn)
    info.counter = c
    return c


def _dominated_by(fn: Function, b: Block, h: Block) -> bool:
    from ..ir.analysis import DominatorTree, dominators

    state = fn.__dict__.get("_patching")
    if state is None or not state.canonical:
        return h in dominators(fn)[b]
    if state.tree is None:
        state.tree = DominatorTree(fn)
    while b not in state.tree.idom and b in state.source_of:
        if b is h:
            return True
        b = state.source_of[b]
    if b not in state.tree.idom:
        return h in dominators(fn)[b]  # (a block no walk from the entry reaches: as it always answered)
    return state.tree.dominates(h, b)


def _regions_walked(fn: Any, r: Any) -> Any:
    """The patching state, with the region tree r walked once (in the order _find_loop and _find_item walk it,
    keeping the first of each: what they find), or None outside record.finalize's patching."""
    state = fn.__dict__.get("_patching") if fn is not None else None
    if state is None:
        return None
    if state.regions is not r:
        state.regions, state.found, state.loops = r, {}, {}
        stack = [r]
        while stack:
            x = stack.pop()
            state.found.setdefault(id(x), x)
            if isinstance(x, Loop):
                state.loops.setdefault(x.header, x)
                stack += [x.body, x.orelse]
            elif isinstance(x, Seq):
                stack += x.items
            elif isinstance(x, If):
                stack += [x.then, x.orelse]
    return state


def _find_loop(r: Any, header: Block, fn: Any = None) -> Loop:
    state = _regions_walked(fn, r)
    if state is not None and header in state.loops:
        return state.loops[header]
    stack = [r]
    while stack:
        x = stack.pop()
        if isinstance(x, Loop):
            if x.header is header:
                return x
            stack += [x.body, x.orelse]
        elif isinstance(x, Seq):
            stack += x.items
        elif isinstance(x, If):
            stack += [x.then, x.orelse]
    raise AssertionError(f"no loop with header {header}")


def _record_item_exits(fn: Function, item: Any, stack: Call) -> None:
    """Push True where control leaves `item` early, False where it completes normally."""
    if isinstance(item, If):
        exits = [e for e in own_exits(item) if e.kind in ("continue", "break", "return")]
        done = item.join
    else:
        # returns from inside the loop, and from its else clause (which runs after the last test)
        exits = [e for e in own_exits_loop(item) + item.orelse.exits() if e.kind == "return"]
        done = item.exit
    for e in exits:
        _on_edge(fn, e.src, e.dst if e.kind != "return" else None, [Call(Const(list.append), [stack, Const(True)])])
    if done is not None:
        _prepend(done, Call(Const(list.append), [stack, Const(False)]))


def _find_item(r: Any, item_id: int, fn: Any = None) -> Any:
    """The item of id item_id in the region tree r (`fn`: the function being patched, if it is)."""
    state = _regions_walked(fn, r)
    if state is not None and item_id in state.found:
        return state.found[item_id]
    stack = [r]
    while stack:
        x = stack.pop()
        if id(x) == item_id:
            return x
        if isinstance(x, Loop):
            stack += [x.body, x.orelse]
        elif isinstance(x, Seq):
            stack += x.items
        elif isinstance(x, If):
            stack += [x.then, x.orelse]
    raise AssertionError("exit-capable region not found")
