"""Builder verbs for the IR, with SSA built on the fly (Braun et al. 2013).

The frontend walks the syntax tree once and calls `write`/`read` for source
variables; phis are created lazily and trivial ones removed, so no separate
dominance-frontier pass is needed.  Blocks are *sealed* once all their
predecessors are known (loop headers after the back edge is added).
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator, Optional

from .nodes import Block, Branch, Call, Const, Function, Goto, Loc, Phi, Raise, Return, Stmt, Terminator, Value


class _Undefined:
    """The value of a variable on a path where it was never assigned."""

    def __repr__(self) -> str:
        return "UNDEFINED"


UNDEFINED = Const(_Undefined())


class Builder:
    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.block: Optional[Block] = None
        self._defs: dict[str, dict[Block, Value]] = {}
        self._sealed: set[Block] = set()
        self._incomplete: dict[Block, dict[str, Phi]] = {}
        self._forward: dict[Value, Value] = {}  # removed trivial phis -> replacement
        self._live_phis: set[Phi] = set()  # phis placed and not (yet) removed as trivial
        self._users: dict[Phi, list[Phi]] = {}  # phi -> the phis that have it as an operand
        self._written: set[str] = set()  # variables assigned somewhere (by `write`)
        self._sites: dict[str, Optional[Block]] = {}  # variable -> the one block assigning it (None: several)
        self._closed: set[Block] = set()  # blocks whose every ancestor is sealed (never changes once true)
        # block -> an unsealed block above it, found by the last walk: while that one stays unsealed,
        # the answer for `block` is still no (reads inside a loop body, whose header is sealed last,
        # would otherwise walk back to the header each time)
        self._open: dict[Block, Block] = {}
        self._write_sites: dict[str, set[Block]] = {}  # variable -> the blocks `write` assigned it in
        self._write_mask: dict[str, int] = {}  # variable -> the bits of those blocks, the entry left out
        self._bit: dict[Block, int] = {}  # block -> its bit in the ancestor masks
        self._anc: dict[Block, int] = {}  # closed block -> mask of the blocks with a path to it
        self._roots = 0  # mask of closed blocks without predecessors other than the entry (dead code)
        self._jump: dict[Block, Block] = {}  # sealed single-predecessor block -> a block higher up its chain
        self.loc: Optional[Loc] = None
        # Variables each SSA value was bound to, for readable names.
        self.var_of: dict[Value, str] = {}
        # Inside a `try` (frontend/try_stmt.py): lowers a call that can raise, with its exception edge.
        self.guard: Optional[Callable[..., Value]] = None
        self.safe: frozenset = frozenset()  # callees the guard leaves alone
        self._unguarded = 0

    @contextmanager
    def unguarded(self) -> Iterator[None]:
        """Calls made meanwhile are not guarded (structure: loop counters, the guard's own calls)."""
        self._unguarded += 1
        try:
            yield
        finally:
            self._unguarded -= 1

    # ------------------------------------------------------------ blocks
    def new_block(self) -> Block:
        return self.fn.new_block()

    def position_at(self, block: Block) -> None:
        self.block = block

    @property
    def terminated(self) -> bool:
        return self.block is None or self.block.term is not None

    def _terminate(self, term: Terminator) -> None:
        assert self.block is not None and self.block.term is None, "block already terminated"
        term.loc = term.loc or self.loc
        self.block.term = term
        for s in term.successors():
            s.preds.append(self.block)
        self.block = None

    def goto(self, target: Block) -> None:
        if not self.terminated:
            self._terminate(Goto(target))

    def branch(self, cond: Value, then: Block, orelse: Block) -> None:
        self._terminate(Branch(cond, then, orelse))

    def ret(self, value: Value) -> None:
        self._terminate(Return(value))

    def raise_(self, exc: Optional[Value]) -> None:
        self._terminate(Raise(exc))

    def seal(self, block: Block) -> None:
        for var, phi in self._incomplete.pop(block, {}).items():
            self._add_phi_operands(var, phi)
        self._sealed.add(block)

    # ------------------------------------------------------------ statements
    def call(self, fn: Any, args: list[Value], kwargs: Optional[dict[str, Value]] = None, hint: Optional[str] = None) -> Call:
        """Append `fn(*args, **kwargs)`; `fn` may be a Value or a known callable."""
        assert self.block is not None, "emitting into a terminated block"
        if self.guard is not None and not self._unguarded and (isinstance(fn, Value) or fn not in self.safe):
            return self.guard(fn, args, kwargs, hint)  # type: ignore[return-value]
        callee = fn if isinstance(fn, Value) else Const(fn)
        stmt = Call(callee, args, kwargs, hint=hint, loc=self.loc)
        stmt.block = self.block
        self.block.stmts.append(stmt)
        return stmt

    # ------------------------------------------------------------ variables
    def write(self, var: str, value: Value, block: Optional[Block] = None) -> None:
        block = block or self.block
        assert block is not None
        self._defs.setdefault(var, {})[block] = value
        self._written.add(var)
        self._write_sites.setdefault(var, set()).add(block)
        if block is not self.fn.entry:
            self._write_mask[var] = self._write_mask.get(var, 0) | self._bit_of(block)
        if self._sites.get(var, block) is not block:
            self._sites[var] = None
        else:
            self._sites[var] = block
        if isinstance(value, Stmt) and value not in self.var_of:
            self.var_of[value] = var

    def read(self, var: str, block: Optional[Block] = None) -> Value:
        block = block or self.block
        assert block is not None
        v = self._defs.get(var, {}).get(block)
        if v is not None:
            return self.resolve(v)
        if self._all_sealed_above(block):
            val = self._closed_value(var, block)
            if val is not None:
                return val
        else:
            sites = self._write_sites.get(var)
            if sites is None or (len(sites) == 1 and self.fn.blocks[0] in sites):
                # Assigned in the entry at most: the value is the one at the top of the chain of single
                # predecessors above `block` (an adjoint first read deep in a loop's body, whose header
                # is still open: no walk up the chain per variable, quadratic in a long elif chain).
                block = self._chain_top(block)
                v = self._defs.get(var, {}).get(block)
                if v is not None:
                    return self.resolve(v)
        val = self._probe(var, block)
        if val is not None:
            return val
        created: list[Phi] = []
        val = self._lookup(var, block, created)
        self._complete(var, created)
        return self.resolve(val)

    def _closed_value(self, var: str, block: Block) -> Optional[Value]:
        """var's value in `block`, all of whose ancestors are sealed, where no assignment but the entry's
        can reach it (else None): a test of sets and masks, no walk."""
        if var not in self._written:
            return UNDEFINED  # never assigned, and no loop header left open that could bring a value
        if self._sites.get(var) is self.fn.entry:
            return self.resolve(self._defs[var][self.fn.entry])  # assigned only in the entry, which dominates all
        return self._entry_value(var, block)

    def _operand(self, var: str, pred: Block, created: list) -> Value:
        """var's value at the end of `pred`, for a phi's operand: the value known there, else the masks'
        answer where pred is closed, else a walk (`_lookup`) that may place phis (into `created`).

        The masks matter when a loop header is sealed: its phis' operands are looked up from the
        block before the loop, and an adjoint that the pullback's entry initialised and a loop far
        down first reads would otherwise be walked back to the entry, one walk per adjoint (each
        through other variables' blocks): quadratic in a long function with many loops."""
        v = self._defs[var].get(pred) if var in self._defs else None
        if v is not None:
            return v
        if self._all_sealed_above(pred):
            v = self._closed_value(var, pred)
            if v is not None:
                return v
        return self._lookup(var, pred, created)

    def _chain_top(self, block: Block) -> Block:
        """The first block at or above `block`, following single predecessors of sealed blocks, that is
        not sealed or has no or several predecessors.  The links found are kept, shortened to point at
        the top found (a sealed block's predecessors never change; a top sealed later is passed through)."""
        jump = self._jump
        path = []
        b = block
        while True:
            j = jump.get(b)
            if j is not None:
                path.append(b)
                b = j
            elif b in self._sealed and len(b.preds) == 1:
                path.append(b)
                b = b.preds[0]
            else:
                break
        for p in path:
            jump[p] = b
        return b

    def _all_sealed_above(self, block: Block) -> bool:
        """Are `block` and all the blocks that lead to it sealed?  Memoised when true (a sealed
        block gets no new predecessors), so each block is walked through about once."""
        closed = self._closed
        if block in closed:
            return True
        open_ = self._open
        w = open_.get(block)
        if w is not None and w not in self._sealed:
            return False
        stack, seen = [block], {block}
        order = []
        while stack:
            b = stack.pop()
            if b not in self._sealed:
                open_[block] = b
                return False
            w = open_.get(b)
            if w is not None and w not in self._sealed:
                open_[block] = w  # an unsealed block above b is above `block` too (preds only grow)
                return False
            order.append(b)
            for p in b.preds:
                if p not in closed and p not in seen:
                    seen.add(p)
                    stack.append(p)
        closed.update(order)
        return True

    def _entry_value(self, var: str, block: Block) -> Optional[Value]:
        """var's value in the closed `block` when no block assigning it leads there except the
        entry: then every path brings the entry's value (or none).  A test of masks, where a walk
        back to the entry would cost each such read the distance (an adjoint initialised at the
        entry and first read far away, once per value: quadratic in a long function).  None
        when some other assignment may reach the block, or dead code does (the walks decide)."""
        entry = self.fn.entry
        anc = self._ancestors(block)
        if anc & self._roots:
            return None
        if anc & self._write_mask.get(var, 0):
            return None  # some assignment other than the entry's has a path here
        if block is not entry and block in self._write_sites.get(var, ()):
            return None
        if block is entry or anc & self._bit_of(entry):
            v = self._defs.get(var, {}).get(entry)
            return UNDEFINED if v is None else self.resolve(v)
        return None

    def _bit_of(self, b: Block) -> int:
        bit = self._bit.get(b)
        if bit is None:
            bit = self._bit[b] = 1 << len(self._bit)
        return bit

    def _ancestors(self, block: Block) -> int:
        """The mask of blocks with a path to the closed `block` (itself only through a cycle).
        Memoised (a closed block's ancestors never change): each block is computed once, from
        its predecessors' masks; a loop's blocks by iterating to a fixed point."""
        anc = self._anc
        if block in anc:
            return anc[block]
        # The blocks not computed yet, each after its predecessors (a depth-first postorder over
        # predecessors): one pass where there is no cycle, a few more around a loop.
        order: list[Block] = []
        seen = {block}
        stack = [(block, iter(block.preds))]
        while stack:
            b, it = stack[-1]
            for p in it:
                if p not in anc and p not in seen:
                    seen.add(p)
                    stack.append((p, iter(p.preds)))
                    break
            else:
                stack.pop()
                order.append(b)
        region = order
        masks = {b: 0 for b in region}
        changed = True
        while changed:
            changed = False
            for b in order:
                m = 0
                for p in b.preds:
                    m |= self._bit_of(p) | (anc[p] if p in anc else masks[p])
                if m != masks[b]:
                    masks[b] = m
                    changed = True
        for b in region:
            anc[b] = masks[b]
            if not b.preds and b is not self.fn.entry:
                self._roots |= self._bit_of(b)
        return anc[block]

    def _probe(self, var: str, block: Block) -> Optional[Value]:
        """var's value in `block` when every path into it brings the same one: found by walking the
        (sealed) blocks back from `block` to the nearest definitions, without placing any phi.

        This is the common case (an adjoint first read far from where it was set, a variable not
        assigned in the branches since): Braun's algorithm would place a phi at every join on
        the way and remove each as trivial, a cost per read that grows with the distance.  The
        blocks walked remember the value.  None when the paths disagree or a block on the way is
        not sealed yet (a loop header): then phis are placed as usual."""
        defs = self._defs.setdefault(var, {})
        region = [block]
        seen = {block}
        found: Optional[Value] = None
        i = 0
        while i < len(region):
            b = region[i]
            i += 1
            if b not in self._sealed:
                return None
            if not b.preds:
                v: Value = UNDEFINED
                if found is None:
                    found = v
                elif found is not v:
                    return None
            for p in b.preds:
                if p in seen:
                    continue
                d = defs.get(p)
                if d is not None:
                    d = self.resolve(d)
                    if found is None:
                        found = d
                    elif found is not d:
                        return None
                    continue
                seen.add(p)
                region.append(p)
        if found is None:  # only cycles without definitions: no path from the entry
            found = UNDEFINED
        for b in region:
            defs[b] = found
        return found

    def _lookup(self, var: str, block: Block, created: list) -> Value:
        """var's value in `block`, without recursion: a chain of single-predecessor blocks is walked
        in a loop, and a phi placed at a join gets its operands later (`_complete`), so neither a
        long elif chain nor a long run of ifs deepens the Python stack.  Every block walked through
        remembers the value (later reads stop there: each block is visited once per variable)."""
        defs = self._defs.setdefault(var, {})
        walked = []
        while True:
            v = defs.get(block)
            if v is not None:
                val = v
                break
            walked.append(block)
            if block not in self._sealed:
                phi = self._new_phi(block, var)
                self._incomplete.setdefault(block, {})[var] = phi
                val = phi
                break
            if len(block.preds) == 1:
                block = block.preds[0]
                continue
            if not block.preds:
                val = UNDEFINED
                break
            phi = self._new_phi(block, var)
            created.append(phi)
            val = phi
            break
        for b in walked:
            defs[b] = val
        return val

    def _complete(self, var: str, created: list) -> None:
        """Give the phis `_lookup` placed their operands (which may place more), then drop the trivial ones."""
        i = 0
        while i < len(created):
            phi = created[i]
            i += 1
            for pred in phi.block.preds:  # type: ignore[union-attr]
                self._set_incoming(phi, pred, self._operand(var, pred, created))
        for phi in reversed(created):
            if phi.block is not None and phi in self._live_phis:
                self._try_remove_trivial(phi)

    def _new_phi(self, block: Block, var: str) -> Phi:
        phi = Phi(hint=var)
        phi.block = block
        phi.loc = self.loc
        block.phis.append(phi)
        self._live_phis.add(phi)
        self.var_of[phi] = var
        return phi

    def _set_incoming(self, phi: Phi, pred: Block, value: Value) -> None:
        value = self.resolve(value)
        phi.incoming[pred] = value
        if isinstance(value, Phi):
            self._users.setdefault(value, []).append(phi)

    def _add_phi_operands(self, var: str, phi: Phi) -> Value:
        created: list[Phi] = []
        for pred in phi.block.preds:  # type: ignore[union-attr]
            self._set_incoming(phi, pred, self._operand(var, pred, created))
        self._complete(var, created)
        return self._try_remove_trivial(phi) if phi in self._live_phis else self.resolve(phi)

    def _try_remove_trivial(self, phi: Phi) -> Value:
        """Replace a phi whose operands are all one value (or itself) by that value; the phis that
        used it may become trivial in turn (a work list over the users index, no scan of the function)."""
        work = [phi]
        while work:
            p = work.pop()
            if p not in self._live_phis:
                continue
            same: Optional[Value] = None
            trivial = True
            for op in p.incoming.values():
                op = self.resolve(op)
                if op is same or op is p:
                    continue
                if same is not None:
                    trivial = False
                    break
                same = op
            if not trivial:
                continue
            if same is None:
                same = UNDEFINED
            self._forward[p] = same
            self._live_phis.discard(p)
            p.block.phis.remove(p)  # type: ignore[union-attr]
            users = self._users.pop(p, [])
            for u in users:
                if u in self._live_phis:
                    u.incoming = {b: (same if v is p else v) for b, v in u.incoming.items()}
                    if isinstance(same, Phi):
                        self._users.setdefault(same, []).append(u)
                    work.append(u)
        return self.resolve(phi)

    def resolve(self, v: Value) -> Value:
        while v in self._forward:
            v = self._forward[v]
        return v

    def finish(self) -> None:
        """Apply phi replacements everywhere and recompute predecessor lists."""
        for b in self.fn.blocks:
            for phi in b.phis:
                phi.incoming = {p: self.resolve(v) for p, v in phi.incoming.items()}
            for s in b.stmts:
                for op in s.operands():
                    r = self.resolve(op)
                    if r is not op:
                        s.replace_operand(op, r)
            if b.term is not None:
                for op in b.term.operands():
                    r = self.resolve(op)
                    if r is not op:
                        b.term.replace_operand(op, r)
            if b.loop is not None:
                for attr in ("counter", "seq", "length", "item"):
                    v = getattr(b.loop, attr)
                    if v is not None:
                        setattr(b.loop, attr, self.resolve(v))
        self.fn.remove_unreachable()
        simplify_cfg(self.fn)


def simplify_cfg(fn: Function) -> None:
    """Thread jumps through empty blocks and merge straight-line chains.

    Blocks that the emitter needs to see (loop headers and latches) are kept.

    The changes are those of a scan that makes the first change it finds in block order and then starts
    again from the first block, until none applies; but each change updates the predecessor lists of
    the blocks it touches (in block order, as `recompute_preds` makes them), and the next scan starts at
    the first block whose test can have changed (the changed blocks and their predecessors two steps
    back: a jump is threaded through its target to the target's target), not at the entry.  Scanning from
    the entry after every change, with the predecessors and reachability recomputed each time, made the
    pass quadratic: half of lowering a 600-line function.
    """
    keep = {fn.entry}
    latches = {b.loop.latch for b in fn.blocks if b.loop is not None and b.loop.latch is not None}
    for b in fn.blocks:
        if b.loop is not None:
            keep.add(b)
            keep.update(x for x in (b.loop.latch, b.loop.exit, b.loop.orelse) if x is not None)
    fn.recompute_preds()  # (every block is reachable: finish() removed the others)
    blocks = fn.blocks
    order = {b: i for i, b in enumerate(blocks)}  # (blocks are only removed: their relative order stays)
    alive = set(blocks)

    def link(src: Block, dst: Block) -> None:
        """src now jumps to dst: dst's predecessors in block order."""
        preds = dst.preds
        if src in preds:
            return
        k = len(preds)
        while k > 0 and order[preds[k - 1]] > order[src]:
            k -= 1
        preds.insert(k, src)

    def unlink(src: Block, dst: Block) -> None:
        """src may no longer jump to dst."""
        if dst not in src.successors() and src in dst.preds:
            dst.preds.remove(src)

    i = 0
    while i < len(blocks):
        b = blocks[i]
        t = b.term
        changed: list = []  # blocks whose successors, predecessors, phis or statements changed
        # Merge a block into its only predecessor when that one just jumps here.
        if isinstance(t, Goto) and t.target not in keep and len(t.target.preds) == 1 and t.target is not b:
            nxt = t.target
            assert not nxt.phis
            for st in nxt.stmts:
                st.block = b
            b.stmts.extend(nxt.stmts)
            b.term = nxt.term
            for succ in nxt.successors():
                for phi in succ.phis:
                    if nxt in phi.incoming:
                        phi.incoming[b] = phi.incoming.pop(nxt)
                if nxt in succ.preds:
                    succ.preds.remove(nxt)
                link(b, succ)
                changed.append(succ)
            nxt.stmts, nxt.term = [], None
            blocks.remove(nxt)
            alive.discard(nxt)
            changed.append(b)
        else:
            # Skip an empty block: jump straight to where it goes.
            for attr in ("target", "then", "orelse"):
                mid = getattr(t, attr, None)
                if mid is None or mid in keep or mid.phis or mid.stmts or not isinstance(mid.term, Goto):
                    continue
                dest = mid.term.target
                if dest is mid or (dest.phis and b in dest.preds):
                    continue
                if getattr(mid, "preheader", False) and isinstance(t, Branch):
                    continue  # a loop's pre-header under a branch (a `try`'s guarded call before a loop) stays
                if dest.phis and dest in latches and isinstance(t, Branch):
                    continue  # no edge from a branch straight into a latch's phis: reverse mode records there
                if dest.phis and len(mid.preds) != 1:
                    continue
                for phi in dest.phis:
                    phi.incoming[b] = phi.incoming.pop(mid)
                setattr(t, attr, dest)
                unlink(b, mid)
                link(b, dest)
                changed += [b, mid, dest]
                if not mid.preds:  # nothing reaches it now (only b did: every other block is still reached)
                    if mid in dest.preds:
                        dest.preds.remove(mid)
                    for phi in dest.phis:
                        phi.incoming.pop(mid, None)
                    blocks.remove(mid)
                    alive.discard(mid)
                break
            if isinstance(b.term, Branch) and b.term.then is b.term.orelse:
                b.term = Goto(b.term.then)  # both arms were empty: the test decides nothing
                changed.append(b)
        if not changed:
            i += 1
            continue
        # Start again at the first block whose test may give another answer now.
        near = set(changed)
        for c in changed:
            near.update(c.preds)
            for p in c.preds:
                near.update(p.preds)
        first = min((x for x in near if x in alive), key=order.__getitem__)  # (b is among them)
        i = blocks.index(first)
    for k, b in enumerate(blocks):
        b.id = k
    fn.recompute_preds()
