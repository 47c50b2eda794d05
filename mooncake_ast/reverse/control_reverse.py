"""Reverse mode's control flow (DESIGN.md §5): regions walked backwards.

A sequence is reversed item by item; an `if` by testing the condition recorded in the forward pass
(`_if`, `rev_if`); a loop by `for _ in range(count)` over its reversed body, with the trip count (or the
range it walked) recorded when the loop ended, a path that left an iteration or the loop early found
again from recorded flags (`rev_loop`, `_repeat`, `_flag`); a phi by adjoint transfers on the edge it
came in by (`rev_edge`, `_transfer`); a block by its statements backwards (`rev_block`).  A mixin of
ReverseTransform (reverse/transform.py), which reverses the statements themselves (reverse/statement_reverse.py)."""
from __future__ import annotations

import operator
from typing import Any, Callable, Optional

import numpy as np

from .. import ops
from ..ir.builder import UNDEFINED
from ..ir.nodes import Block, Branch, Call, Const, LoopInfo, Return, Value
from ..ir.regions import Edge, If, Loop, Seq, Stmts, body_values
from . import buffer_webs, buffers, local_lists, prepare, shadows, walked_loops
from .placeholders import _stack_ref, anchor


class ControlReverse:
    """The ControlReverse part of ReverseTransform (reverse/transform.py): its methods, moved here as they were."""

    def rev_seq(self, items: list) -> None:
        """Reverse a sequence; an item that may leave early guards the reverse of what follows it."""
        local_lists.start_in_seq(self, items)  # (lists made anew in each run of it)
        for i, item in enumerate(items):
            if self._may_exit(item) and i + 1 < len(items):
                flag = self._exit_flag(item)
                rest = items[i + 1:]
                self._if(flag, lambda: None, lambda rest=rest: self.rev_seq(rest))
                self.rev_item(item)
                for earlier in reversed(items[:i]):
                    self.rev_item(earlier)
                return
        for item in reversed(items):
            self.rev_item(item)

    def rev_item(self, r: Any) -> None:
        if isinstance(r, Stmts):
            self.rev_block(r.block)
        elif isinstance(r, Edge):
            self.rev_edge(r)
        elif isinstance(r, If):
            self.rev_if(r)
        elif isinstance(r, Loop):
            self.rev_loop(r)
        elif isinstance(r, Seq):
            self.rev_seq(r.items)

    def rev_edge(self, e: Edge) -> None:
        if e.kind == "return":
            t = e.src.term
            assert isinstance(t, Return)
            # The block's record is loaded here, before its statements are reversed.
            self.cur = e.src
            if e.src not in self.anchored:  # (already where a list it makes starts: local_lists.start_in_seq)
                self.b.call(anchor, [Const(e.src)])
                self.anchored.add(e.src)
            self.accumulate(t.value, self.y_bar)
            return
        if e.kind == "raise" or e.dst is None:
            return
        if e.kind == "continue" and e.dst.loop is None:
            # Into a for loop's latch, which then goes on to the header: undo that edge first.
            header = e.dst.successors()[0]
            self._transfer(e.dst, header)
        self._transfer(e.src, e.dst)

    def _transfer(self, src: Block, dst: Block) -> None:
        """Phis of dst took their value from src: pass their adjoints back (and clear them).

        A number's adjoint moves as a value.  For anything else the value that crossed the
        edge is recorded when the edge is taken: if it is mutable, phi and source are the
        same object with one storage, and there is nothing to move.
        """
        moves = [(phi, phi.incoming[src]) for phi in dst.phis
                 if src in phi.incoming and self.active(phi) and phi.incoming[src] is not UNDEFINED]
        others = [(phi, v) for phi, v in moves if self._by_storage(phi)]
        record = None
        if others:
            stack = self._stack_for(("edge", (src, dst)), "crossed")
            record = self.b.call(list.pop, [stack])
            record.tuple_size = len(others)  # type: ignore[attr-defined]
            self.edge_records[(src, dst)] = [v for _, v in others]
            self.unbound_records.update(v for _, v in others if v in self.maybe_unbound)
        # The phis move in parallel: every phi's adjoint is taken before any is added to a source, since a
        # source may be another phi of dst (`a, b = b, a * b` in a loop: the latch gives phi a the value of
        # phi b), whose own adjoint must move before a's is added to it.
        j = 0
        taken: list = []
        for phi, v in moves:
            if not self._by_storage(phi):
                taken.append((v, self.take_adj(phi), None))  # an adjoint held as a value moves as a value
                continue
            crossed = self.b.call(operator.getitem, [record, Const(j)], hint=v.hint if v.hint and not v.hint.startswith("%") else None)
            j += 1
            phi_bar = self.read_adj(phi)
            self.b.write(self._var(phi), self.zero(phi))
            taken.append((v, phi_bar, crossed))
        if self.buffer_webs:
            taken = buffer_webs.transfer(self, src, dst, taken)  # (loop-carried buffers: adjoints move)
        for v, g, crossed in taken:
            if crossed is None:
                if g is not None:
                    self.accumulate(v, g)
            elif self.active(v):
                self.write_adj(v, self.b.call(shadows.transfer, [crossed, g, self.read_adj(v)]))

    def rev_block(self, blk: Block, site: Optional[str] = None) -> None:
        """Reverse one block.  `site` names a second place the same block is undone (its records
        are popped from the same stack there, so each run of the block is undone exactly once)."""
        prev = self.cur
        key: Any = blk if site is None else (site, blk)
        self.cur = key
        if key not in self.anchored:
            self.b.call(anchor, [Const(key)])  # where this block's record is loaded
            self.anchored.add(key)
        for s in buffers.local_buffers(self, blk):  # (made afresh in each run of the block: so is the adjoint)
            if self.active(s):
                buf = self.b.call(np.zeros_like, [self.primal(s)])
                self.dense_values.add(buf)
                self.write_adj(s, buf)
        if site is None and blk in self.web_pending:
            buffer_webs.start_trip(self, blk)
        for s in blk.stmts:
            if self.spreads.keeps(s) and self.active(s):
                # Its adjoint lives in this block's reverse only, and starts at zero there: said here, so a
                # loop header's phi does not hide that (a spread needs the known zero, spread.py).
                self.b.write(self._var(s), self.zero(s))
        for s in reversed(blk.stmts):
            if self.active(s):
                self.b.loc = s.loc
                self.rev_stmt(s)
        self.cur = prev

    # ------------------------------------------------------------ control flow
    def _if(self, cond: Value, then_fn: Callable[[], None], else_fn: Callable[[], None]) -> None:
        then, orelse, join = self.b.new_block(), self.b.new_block(), self.b.new_block()
        self.b.branch(cond, then, orelse)
        for blk, fn in ((then, then_fn), (orelse, else_fn)):
            self.b.seal(blk)
            self.b.position_at(blk)
            fn()
            self.b.goto(join)
        self.b.seal(join)
        self.b.position_at(join)

    def rev_if(self, r: If) -> None:
        if not self._region_active(r):
            return
        flag = self._flag(r.block)
        self._if(flag, lambda: self.rev_seq(r.then.items), lambda: self.rev_seq(r.orelse.items))

    def rev_loop(self, r: Loop) -> None:
        if not self._region_active(r):
            return
        # The header test failed once at the end (unless the loop was left by break/return):
        # undo the exit edge and the else clause first.
        if self._leaves_early(r):
            normal = self.b.call(list.pop, [self._stack_for(("normal", r.header), "normal_exits")])
            self._if(normal, lambda: self._rev_normal_exit(r), lambda: None)
        else:
            self._rev_normal_exit(r)
        rng = walked_loops.walked_range(self, r)
        if rng is not None:
            walked_loops.repeat_over(self, rng, r.header.loop.item, lambda: self._rev_body(r))  # type: ignore[union-attr]
            return
        count = self._count(r)
        self._repeat(count, lambda: self._rev_body(r))

    def _rev_body(self, r: Loop) -> None:
        """One run of a loop's reversed body; then the adjoints of the numbers each run of the body defines
        anew are zero again (each was consumed where its definition was undone, in this run, or never
        touched in it): said at the reversed latch, so the reversed header's phi for each is seen to be
        trivial at once.  Otherwise the builder, sealing that header, places a phi for each at every join
        of the body above the latch (an elif chain of N branches in a loop: N^2 phis, all redundant)."""
        self.rev_seq(r.body.items)
        if self.b.terminated:
            return
        for v in body_values(r):
            var = f"%adj{id(v)}"
            if (var in self.adj_vars and v not in self.chain_of and v not in self.stored and v not in self.buffers
                    and v not in self.accumulators and v not in self.typed_lists and self.is_num(v)):
                self.b.write(var, self.zero(v))

    def _rev_normal_exit(self, r: Loop) -> None:
        """Undo a loop's normal end: its else clause, the exit edge, and the last (failed) test.

        A while loop's header runs once more than its body; when the test itself has effects
        that matter (`while (x := f(x)) < c`), that last run is undone here, from its own
        record on the header's stack (a second site of the same block).
        """
        self.rev_seq(r.orelse.items)
        info = r.header.loop
        if info is not None and info.kind == "while" and any(self.active(s) for s in r.header.stmts):
            self.rev_block(r.header, site="last test")

    def _leaves_early(self, r: Loop) -> bool:
        """Has loop r exits of its own (prepare.own_exits_loop)?"""
        outer, inner = prepare.exit_kinds(r.body, self._exit_memo)
        return bool(outer & {"break", "return", "raise"} or inner & {"return", "raise"})

    def _stack_for(self, key: tuple, hint: str) -> Call:
        found = self._keyed_stacks.get(key)
        if found is None:
            found = self._keyed_stacks[key] = self._stack_ref(key, hint)
        return found

    def _region_active(self, r: Any) -> bool:
        """Does any statement or phi inside have an adjoint to move?  (Once per region: prepare.bottom_up.)"""
        def block(b: Block) -> bool:
            return (any(self.active(s) for s in b.stmts) or any(self.active(p) for p in b.phis)
                    or isinstance(b.term, Return) and self.active(b.term.value))

        def leaf(x: Any) -> bool:
            if isinstance(x, Stmts):
                return block(x.block)
            if isinstance(x, Edge):
                if x.kind == "continue" and x.dst is not None and x.dst.loop is None:
                    # into a for loop's latch, which goes on to the header: the header's phis take their
                    # value on this edge (`if c: raise ...` then the rest of the body: a branch whose
                    # other arm is the body's end)
                    return block(x.dst) or any(block(s) for s in x.dst.successors())
                return (x.dst is not None and block(x.dst)) or (x.kind == "return" and block(x.src))
            return False

        def join(x: Any, parts: list) -> bool:
            return any(parts) or (isinstance(x, Loop) and block(x.header))

        return prepare.bottom_up(r, self._active_memo, leaf, join)

    def _repeat(self, count: Value, body: Callable[[], None], over: Optional[Value] = None, item_hint: str = "_",
                primal_item: Optional[Value] = None) -> None:
        """`for _ in range(count): body()` in the pullback (`for i in over:` when `over` is given, its items
        standing for `primal_item`'s in the body)."""
        b = self.b
        loc = b.loc
        seq = over if over is not None else b.call(ops.sequence, [b.call(range, [count])])
        n = b.call(len, [seq])
        header, body_blk, latch, exit_ = (b.new_block() for _ in range(4))
        key = f"%rk{id(header)}"
        b.write(key, Const(0))
        b.goto(header)
        b.position_at(header)
        k = b.read(key)
        more = b.call(operator.lt, [k, n])
        b.branch(more, body_blk, exit_)
        b.seal(body_blk)
        b.position_at(body_blk)
        item = b.call(operator.getitem, [seq, k], hint=item_hint)
        item.keep = True  # type: ignore[attr-defined]  # printed as the `_` of `for _ in range(count)`
        if primal_item is not None:
            self.walked_items[primal_item] = item
            self.types[item] = self.type_of(primal_item)
        header.loop = LoopInfo("for", loc=loc, counter=k, seq=seq, length=n, item=item, latch=latch, exit=exit_)
        body()
        b.goto(latch)
        b.seal(latch)
        b.position_at(latch)
        b.write(key, b.call(operator.add, [b.read(key), Const(1)]))
        b.goto(header)
        b.seal(header)
        b.seal(exit_)
        b.position_at(exit_)

    # ------------------------------------------------------------ recorded control decisions
    def _flag(self, blk: Block) -> Value:
        t = blk.term
        assert isinstance(t, Branch)
        if blk in self.top:
            prev, self.cur = self.cur, blk
            v = self.primal(t.cond)
            self.cur = prev
            return v
        return self.b.call(list.pop, [self._stack_for(("flag", blk), "flags")])

    def _count(self, r: Loop) -> Value:
        return self.b.call(list.pop, [self._stack_for(("count", r.header), "counts")], hint="count")

    def _exit_flag(self, item: Any) -> Value:
        return self.b.call(list.pop, [self._stack_for(("exit", id(item)), "exits")])

    def _stack_ref(self, key: Any, hint: str) -> Call:
        return Call(Const(_stack_ref), [Const(key)], hint=hint)

    def _may_exit(self, item: Any) -> bool:
        """Can control leave `item` other than by falling through to what follows it?"""
        if isinstance(item, If):
            outer, inner = prepare.exit_kinds(item, self._exit_memo)  # (prepare.own_exits, as kinds)
            return bool(outer & {"continue", "break", "return", "raise"} or inner & {"return", "raise"})
        if isinstance(item, Loop):
            return any(e.kind in ("return", "raise") for e in item.body.exits() + item.orelse.exits())
        return False
