"""CFG analyses shared by the transforms and the emitter: dominators, orders, uses.

(Liveness, which only the naming pass asks for, is in emit/interference.py, as bit masks.)"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable, Iterator, Optional

from .nodes import Block, FreeVar, Function, Param, Stmt, Value


def reverse_postorder(fn: Function) -> list[Block]:
    seen: set[Block] = set()
    order: list[Block] = []

    def visit(b: Block) -> None:
        stack = [(b, iter(b.successors()))]
        seen.add(b)
        while stack:
            node, it = stack[-1]
            for s in it:
                if s not in seen:
                    seen.add(s)
                    stack.append((s, iter(s.successors())))
                    break
            else:
                stack.pop()
                order.append(node)

    visit(fn.entry)
    return order[::-1]


def immediate_dominators(fn: Function) -> dict[Block, Optional[Block]]:
    """Each reachable block's immediate dominator (None for the entry), by the iterative
    two-finger method over reverse postorder (Cooper, Harvey and Kennedy): near-linear, where
    dominator *sets* grow with the square of a long function's length (an elif chain of n
    branches nests n deep)."""
    order = reverse_postorder(fn)
    index = {b: i for i, b in enumerate(order)}
    idom: dict[Block, Block] = {fn.entry: fn.entry}
    changed = True
    while changed:
        changed = False
        for b in order[1:]:
            new: Optional[Block] = None
            for p in b.preds:
                if p not in idom:
                    continue
                if new is None:
                    new = p
                    continue
                x, y = p, new
                while x is not y:
                    while index[x] > index[y]:
                        x = idom[x]
                    while index[y] > index[x]:
                        y = idom[y]
                new = x
            if new is not None and idom.get(b) is not new:
                idom[b] = new
                changed = True
    out: dict[Block, Optional[Block]] = dict(idom)
    out[fn.entry] = None
    return out


class DominatorTree:
    """The dominator tree with an O(1) "does a dominate b" test (pre/post numbers of a depth-first
    walk of the tree), built in time linear in the function."""

    def __init__(self, fn: Function) -> None:
        self.idom = immediate_dominators(fn)
        self.children: dict[Block, list[Block]] = {b: [] for b in self.idom}
        for b, d in self.idom.items():  # (reverse postorder: children in a stable order)
            if d is not None:
                self.children[d].append(b)
        self.pre: dict[Block, int] = {}
        self.post: dict[Block, int] = {}
        clock = 0
        stack = [(fn.entry, iter(self.children[fn.entry]))]
        self.pre[fn.entry] = clock
        while stack:
            node, it = stack[-1]
            for c in it:
                clock += 1
                self.pre[c] = clock
                stack.append((c, iter(self.children[c])))
                break
            else:
                stack.pop()
                clock += 1
                self.post[node] = clock

    def dominates(self, a: Block, b: Block) -> bool:
        """Does `a` dominate `b` (every block dominates itself; unreachable blocks only themselves)?"""
        if a is b:
            return True
        pa, pb = self.pre.get(a), self.pre.get(b)
        if pa is None or pb is None:
            return False
        return pa <= pb and self.post[b] <= self.post[a]


class _DominatorsOf:
    """The dominators of one block, as a read-only set answering `in` in O(1)."""

    __slots__ = ("tree", "block")

    def __init__(self, tree: DominatorTree, block: Block) -> None:
        self.tree, self.block = tree, block

    def __contains__(self, a: object) -> bool:
        return isinstance(a, Block) and self.tree.dominates(a, self.block)

    def __iter__(self) -> Iterator[Block]:
        b: Optional[Block] = self.block
        while b is not None:
            yield b
            b = self.tree.idom.get(b)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class Dominators(Mapping):
    """`dominators(fn)[b]`: the blocks that dominate b, made on demand from the dominator tree
    (the sets themselves would be quadratic in a deeply nested function).  Keys: the reachable
    blocks."""

    def __init__(self, fn: Function) -> None:
        self.tree = DominatorTree(fn)

    def __getitem__(self, b: Block) -> _DominatorsOf:
        if b not in self.tree.idom:
            raise KeyError(b)
        return _DominatorsOf(self.tree, b)

    def __contains__(self, b: object) -> bool:
        return b in self.tree.idom

    def __iter__(self) -> Iterator[Block]:
        return iter(self.tree.idom)

    def __len__(self) -> int:
        return len(self.tree.idom)


def dominators(fn: Function) -> Dominators:
    """For each reachable block, the set of blocks that dominate it (itself included)."""
    return Dominators(fn)


def uses(fn: Function) -> dict[Value, int]:
    """How many times each SSA value is used (statements, phis, terminators, loop info)."""
    count: dict[Value, int] = {}
    for b in fn.blocks:
        for phi in b.phis:
            for v in phi.incoming.values():
                count[v] = count.get(v, 0) + 1
        for s in b.stmts:
            for v in s.operands():
                count[v] = count.get(v, 0) + 1
        for v in b.term.operands():  # type: ignore[union-attr]
            count[v] = count.get(v, 0) + 1
    return count


def used_value(fn: Function, v: Value) -> Optional[Value]:
    """The named value an operand reads: itself (a statement or parameter), or for a closure
    variable the function object that holds the closure (printed `f.__closure__[i]`)."""
    if isinstance(v, (Stmt, Param)):
        return v
    if isinstance(v, FreeVar):
        return getattr(fn, "self_ref", None)
    return None


def used_only_by(fn: Function, v: Value, ok: Callable[[Any], bool]) -> bool:
    """Is v read only by statements `ok` accepts (never by a phi or a terminator)?  How the typed passes ask
    "does the function just read this parameter?" (ir/typed_methods, reverse/reversed_loops, settle_types)."""
    for b in fn.blocks:
        if (b.term is not None and v in b.term.operands()) or any(v in phi.incoming.values() for phi in b.phis):
            return False
        for st in b.stmts:
            if v in st.operands() and not ok(st):
                return False
    return True
