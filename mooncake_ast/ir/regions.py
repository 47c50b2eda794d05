"""The structured regions of a function's CFG: sequences, ifs, loops, exits.

Reverse mode reverses *structure* (DESIGN.md §5): an `if` is undone by
testing its recorded condition, a loop by running the reversed body as many
times as the loop ran.  This module recovers that structure from the CFG the
same way the emitter does (dominator tree plus the frontend's `LoopInfo`):

    Seq([...])                       statements and nested regions, in order
    Stmts(block)                     the statements of one block
    If(block, then, orelse, join)    `block` ends in a branch; the arms are Seqs
    Loop(header, body, orelse, exit) a while/for loop; body and else are Seqs
    Edge(src, dst, kind)             a CFG edge: "next" (fall through to a join),
                                     "enter" (into a loop), "continue", "break",
                                     "exit" (a loop's test failed), "return", "raise"

Every Edge names the CFG edge it stands for, so phi nodes (edge copies in the
forward pass, adjoint transfers in the reverse pass) can be placed on it.
"""
from __future__ import annotations

from typing import Optional, Union

from ..errors import ControlFlowError, block_loc
from .analysis import immediate_dominators
from .nodes import Block, Branch, Function, Goto, Raise, Return


class _Record:
    """What `@dataclasses.dataclass` gave these classes (field-wise `==`, unhashable, a repr), written out:
    making six dataclasses cost every first derivation ~0.5 ms."""

    _FIELDS: tuple = ()  # (no __slots__: as a dataclass's, an instance takes other attributes)

    def _fields(self) -> tuple:
        return tuple(getattr(self, f) for f in self._FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._fields() == other._fields()  # type: ignore[attr-defined]
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}({', '.join(f'{f}={getattr(self, f)!r}' for f in self._FIELDS)})"


class Stmts(_Record):
    _FIELDS = ("block",)

    def __init__(self, block: Block) -> None:
        self.block = block


class Edge(_Record):
    _FIELDS = ("src", "dst", "kind")

    def __init__(self, src: Block, dst: Optional[Block], kind: str) -> None:
        self.src, self.dst = src, dst
        self.kind = kind  # next | enter | continue | break | exit | return | raise


class If(_Record):
    _FIELDS = ("block", "then", "orelse", "join")

    def __init__(self, block: Block, then: "Seq", orelse: "Seq", join: Optional[Block]) -> None:
        self.block, self.then, self.orelse, self.join = block, then, orelse, join


class Loop(_Record):
    _FIELDS = ("header", "body", "orelse", "exit")

    def __init__(self, header: Block, body: "Seq", orelse: "Seq", exit: Optional[Block]) -> None:
        self.header = header
        self.body = body  # starts with the header's statements (Stmts(header)) for while loops
        self.orelse, self.exit = orelse, exit


Region = Union[Stmts, Edge, If, Loop, "Seq"]


class Seq(_Record):
    _FIELDS = ("items",)

    def __init__(self, items: list) -> None:
        self.items = items

    def exits(self) -> list[Edge]:
        """Every Edge inside, in order (nested regions included)."""
        return _exits(self)


def _exits(r: Region) -> list[Edge]:
    """The Edges inside r in order, by one walk with an explicit stack: linear in r's size (a
    concatenation per level would be quadratic in a deep elif chain, recursion too deep)."""
    out: list[Edge] = []
    stack: list = [r]
    while stack:
        x = stack.pop()
        if isinstance(x, Edge):
            out.append(x)
        elif isinstance(x, Seq):
            stack.extend(reversed(x.items))
        elif isinstance(x, If):
            stack += (x.orelse, x.then)
        elif isinstance(x, Loop):
            stack += (x.orelse, x.body)
    return out


def body_values(loop: Loop) -> list:
    """The statements and phis of a loop's body that each run of the body defines anew: those of its
    blocks other than loop headers (a header's run once more than the body, or carries values across
    runs), nested regions included.  One walk with an explicit stack (a long elif chain is deep)."""
    out: list = []
    stack: list = [loop.body]
    while stack:
        x = stack.pop()
        if isinstance(x, Stmts):
            if x.block.loop is None:
                out += x.block.phis
                out += x.block.stmts
        elif isinstance(x, Seq):
            stack.extend(x.items)
        elif isinstance(x, If):
            stack += (x.then, x.orelse)
            if x.join is not None and x.join.loop is None:
                out += x.join.phis
        elif isinstance(x, Loop):
            stack += (x.body, x.orelse)
    return out


class RegionError(ControlFlowError):
    """The CFG is not the structured shape this builder knows (no such CFG comes from Python source)."""


class _Frame(_Record):
    _FIELDS = ("header", "exit", "latch")

    def __init__(self, header: Block, exit: Optional[Block], latch: Optional[Block]) -> None:
        self.header, self.exit, self.latch = header, exit, latch


def merge_points(b: Block, loops: list, dom_children: dict, idom: dict) -> list:
    """The blocks b immediately dominates where its branches meet again (the regions builder's and the emitter's).

    A merge point has two ways in from outside itself: a loop's header, entered once and reached again by its own
    back edges, is no merge point of b's branches (`if c:` whose body starts with a `while` loop); nor are the
    headers, exits and latches of the loops b is in."""
    special = {f.exit for f in loops} | {f.header for f in loops} | {f.latch for f in loops}
    return [c for c in dom_children.get(b, ()) if len(c.preds) >= 2 and c not in special
            and (c.loop is None or sum(1 for p in c.preds if not _dominates(idom, c, p)) >= 2)]  # (back edges reach
    # only loop headers: the others are counted as they are, in constant time -- a chain of elifs stays linear)


def _dominates(idom: dict, a: Block, b: Optional[Block]) -> bool:
    while b is not None:
        if b is a:
            return True
        b = idom.get(b)
    return False


class RegionBuilder:
    """Builds the region tree by one walk with an explicit stack of tasks, not by recursion: the walk goes on
    from an `if`'s join or a loop's exit to the rest of the function, so a recursive walk went as deep as the
    function is long (a realistic function of 1000 lines was past 1000 frames).  Each task is ("block", b, ...)
    or ("jump", src, dst, ...) and appends to the list `out` it names; a region's own list is made before its
    parts are filled in, and the tasks run in the order the recursive walk made its calls (the `then` arm with
    all it contains, then the `else` arm, then what follows), so the tree and the first error found are the
    same."""

    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.idom: dict[Block, Optional[Block]] = immediate_dominators(fn)
        # Blocks by immediate dominator, in block order: what `_merge_child` looks through,
        # without a scan of every block at every branch.
        self._dom_children: dict[Block, list[Block]] = {}
        for c in fn.blocks:
            d = self.idom.get(c)
            if d is not None:
                self._dom_children.setdefault(d, []).append(c)
        self._todo: list[tuple] = []

    def build(self) -> Seq:
        out: list = []
        todo = self._todo
        todo.append(("block", self.fn.entry, [], set(), out))
        while todo:
            task = todo.pop()
            if task[0] == "block":
                self.block(*task[1:])
            else:
                self.jump(*task[1:])
        return Seq(out)

    def block(self, b: Block, loops: list[_Frame], follows: set[Block], out: list) -> None:
        if b.loop is not None and not any(f.header is b for f in loops):
            self.loop(b, loops, follows, out)
            return
        out.append(Stmts(b))
        self.terminator(b, loops, follows, out)

    def terminator(self, b: Block, loops: list[_Frame], follows: set[Block], out: list) -> None:
        t = b.term
        if isinstance(t, Return):
            out.append(Edge(b, None, "return"))
        elif isinstance(t, Raise):
            out.append(Edge(b, None, "raise"))
        elif isinstance(t, Goto):
            self.jump(b, t.target, loops, follows, out)
        elif isinstance(t, Branch):
            join = self._merge_child(b, loops)
            inner = follows | ({join} if join else set())
            then, orelse = Seq([]), Seq([])
            out.append(If(b, then, orelse, join))  # (its arms are filled in below, before anything follows it)
            todo = self._todo
            if join is not None:
                todo.append(("block", join, loops, follows, out))
            todo.append(("jump", b, t.orelse, loops, inner, orelse.items))
            todo.append(("jump", b, t.then, loops, inner, then.items))
        else:
            raise RegionError(f"{b} has no terminator", block_loc(b))

    def _merge_child(self, b: Block, loops: list[_Frame]) -> Optional[Block]:
        kids = merge_points(b, loops, self._dom_children, self.idom)
        if len(kids) > 1:
            raise RegionError(f"{b} has several merge points", block_loc(b))
        return kids[0] if kids else None

    def jump(self, src: Block, dst: Block, loops: list[_Frame], follows: set[Block], out: list) -> None:
        inner = loops[-1] if loops else None
        if inner is not None and (dst is inner.header or dst is inner.latch):
            out.append(Edge(src, dst, "continue"))
        elif inner is not None and dst is inner.exit:
            out.append(Edge(src, dst, "break"))
        elif dst in follows:
            out.append(Edge(src, dst, "next"))
        elif any(dst in (f.header, f.exit, f.latch) for f in loops):
            raise RegionError("jump out of several loops at once", block_loc(src))
        elif len(dst.preds) == 1 or dst.loop is not None:
            if dst.loop is not None:
                out.append(Edge(src, dst, "enter"))  # the edge into a loop header (its phis)
            self._todo.append(("block", dst, loops, follows, out))
        else:
            raise RegionError(f"unstructured jump {src} -> {dst}", block_loc(src))

    def loop(self, h: Block, loops: list[_Frame], follows: set[Block], out: list) -> None:
        info = h.loop
        assert info is not None
        # A for loop's latch (counter increment) runs after the body; paths reach it via "continue".
        latch = info.latch if info.kind == "for" else None
        frame = _Frame(h, info.exit, latch)
        t = h.term
        if not isinstance(t, Branch):
            raise RegionError(f"loop header {h} does not end in a branch", block_loc(h))
        body = Seq([Stmts(h)])
        orelse = Seq([Edge(h, t.orelse, "exit")])
        out.append(Loop(h, body, orelse, info.exit))  # (body and else filled in below, before what follows)
        todo = self._todo
        if info.exit is not None and info.exit not in follows:
            todo.append(("block", info.exit, loops, follows, out))
        if t.orelse is not info.exit:
            todo.append(("block", t.orelse, loops, follows | ({info.exit} if info.exit else set()), orelse.items))
        todo.append(("jump", h, t.then, loops + [frame], follows, body.items))


def build_regions(fn: Function) -> Seq:
    return RegionBuilder(fn).build()


def format_regions(r: Region, depth: int = 0) -> str:
    """A compact text form, for tests and debugging."""
    pad = "  " * depth
    if isinstance(r, Seq):
        return "".join(format_regions(i, depth) for i in r.items)
    if isinstance(r, Stmts):
        return f"{pad}{r.block} ({len(r.block.stmts)} stmts)\n"
    if isinstance(r, Edge):
        return f"{pad}{r.kind} {r.src}->{r.dst}\n"
    if isinstance(r, If):
        return f"{pad}if {r.block}:\n{format_regions(r.then, depth + 1)}{pad}else:\n{format_regions(r.orelse, depth + 1)}{pad}join {r.join}\n"
    if isinstance(r, Loop):
        return f"{pad}loop {r.header}:\n{format_regions(r.body, depth + 1)}{pad}loop-else:\n{format_regions(r.orelse, depth + 1)}{pad}exit {r.exit}\n"
    return f"{pad}?{r!r}\n"
