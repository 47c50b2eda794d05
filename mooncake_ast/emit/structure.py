"""From the CFG back to structured Python: `if`/`while`/`for`, never a goto.

Blocks are emitted by walking the dominator tree (after Ramsey, "Beyond
Relooper", ICFP 2022): a branch becomes `if`/`else` followed by its merge
block; a loop header (marked by the frontend with `LoopInfo`) becomes
`while cond:` or `for x in xs:`; an edge to the innermost loop's header is
`continue`, to its exit `break`.  Phi nodes become parallel assignments on
the edges (`a, b = b, a` is parallel in Python).  Single-use temporaries are
folded back into the expression that uses them when evaluation order allows,
so `t = x * i; y = sin(t)` with `t` used once prints as `y = sin(x * i)`.

Which index loops print as `for` lines, and which values must keep a name, are decided
first (planning.py); the `If`/`Loop` tree this module builds becomes lines in layout.py.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Optional, Union

from .. import ops
from ..errors import ControlFlowError, block_loc
from ..ir.analysis import immediate_dominators, uses
from ..ir.builder import UNDEFINED
from ..ir.nodes import Block, Branch, Call, Const, FreeVar, Function, Global, Goto, Phi, Raise, Return, Stmt, Value
from ..ir.regions import merge_points
from .layout import If, Loop
from .planning import _tuple_size, _unpacked_item, _user_named, plan_for_loops
from .render import ATOM, INPLACE_SYNTAX, CallRenderer, Expr, literal, slice_text


class EmitError(ControlFlowError):
    """The CFG has a shape the structured emitter does not handle."""


class _Frame:
    """A loop being printed: where `continue` and `break` go."""

    __slots__ = ("header", "exit", "latch", "kind")

    def __init__(self, header: Block, exit: Optional[Block], latch: Optional[Block], kind: str) -> None:
        self.header, self.exit, self.latch, self.kind = header, exit, latch, kind


_Next = tuple  # (block, loops, follows, out): a block still to print, and where


class StructuredEmitter:
    def __init__(
        self,
        fn: Function,
        names: dict[Value, str],
        qualify: Callable[[Any], str],
        inlinable: Callable[[Stmt], bool] = lambda s: True,
        comment: Callable[[Any], Optional[str]] = lambda loc: None,
        reserved: frozenset = frozenset(),
    ) -> None:
        self.fn = fn
        self.reserved = set(reserved)
        self.names = names
        self.renderer = CallRenderer(qualify)
        self.qualify = qualify
        self.comment = comment
        self.use_count = uses(fn)
        self.idom: dict[Block, Optional[Block]] = immediate_dominators(fn)
        # Blocks by immediate dominator, in block order (what `_merge_child` looks through).
        self._dom_children: dict[Block, list[Block]] = {}
        for c in fn.blocks:
            d = self.idom.get(c)
            if d is not None:
                self._dom_children.setdefault(d, []).append(c)
        loops = plan_for_loops(fn, self.use_count)  # (planning.py: which loops print as `for`)
        self.skip: set[Stmt] = loops.skip
        self.no_copy: set[Phi] = loops.no_copy  # loop counters: Python's `for` updates them
        self.deferred: set[Stmt] = loops.deferred  # iterables printed in their `for` line
        self.loop_items: set[Stmt] = loops.loop_items  # extra `for` targets (zip form): always named
        self.inlined: set[Stmt] = set()
        self.rendered: dict[Value, Expr] = {}
        self._user_block: dict[Value, Block] = {}
        self._inlinable_pred = inlinable
        self._last_loc: Optional[tuple] = None
        self._for_forms: dict[Block, tuple] = loops.forms
        self._taken: set = set()  # what _temp_name keeps: the names in use when names and reserved had
        self._taken_sizes: tuple = (-1, -1)  # these sizes
        self._temp_from = 1  # the first index _temp_name tries (those below are in use)
        self._plan_inlining()

    # ------------------------------------------------------------ planning
    def _plan_inlining(self) -> None:
        for b in self.fn.blocks:
            for s in b.stmts:
                for v in s.operands():
                    self._user_block.setdefault(v, b)
            for v in b.term.operands():  # type: ignore[union-attr]
                self._user_block.setdefault(v, b)

    def _floating(self, s: Stmt) -> bool:
        """A single-use lookup `module.attr` (or a chain of them), or a slice of constants: printed where
        it is used.

        Python would evaluate it a little earlier; looking up a module attribute
        has no effects, and it is still looked up when the code runs.
        """
        if isinstance(s, Call) and s.callee() is slice and all(isinstance(a, Const) for a in s.args) and not s.kwargs:
            return not _user_named(s) and self.use_count.get(s, 0) == 1  # `a[1:-1]`: a constant index
        if not (isinstance(s, Call) and s.callee() is getattr and len(s.args) == 2 and isinstance(s.args[1], Const)):
            return False
        base = s.args[0]
        ok_base = isinstance(base, Global) or (isinstance(base, Call) and self._floating(base))
        return ok_base and not _user_named(s) and self.use_count.get(s, 0) == 1 and self._user_block.get(s) is s.block

    def _can_inline(self, s: Stmt) -> bool:
        return (
            isinstance(s, Call)
            and not _user_named(s)
            and not _unpacked_item(s)
            and s not in self.loop_items
            and s not in self.skip
            and s not in self.names
            and self.use_count.get(s, 0) == 1
            and self._user_block.get(s) is s.block
            and self._inlinable_pred(s)
        )

    # ------------------------------------------------------------ values
    def value(self, v: Value) -> Expr:
        if v in self.rendered:
            return self.rendered[v]
        if isinstance(v, Const):
            if v is UNDEFINED:
                raise EmitError("use of an undefined value", getattr(v, "loc", None))
            text = literal(v.value)
            if text is None:
                return self.qualify(v.value), ATOM
            return text, (ATOM if not text.startswith("-") else 12)
        if isinstance(v, Global):
            return v.name, ATOM
        if isinstance(v, FreeVar):
            return f"{self.names[self.fn.self_ref]}.__closure__[{v.index}]", ATOM  # type: ignore[attr-defined]
        if v in self.names:
            return self.names[v], ATOM
        raise EmitError(f"value {v!r} has no name", getattr(v, "loc", None))

    def index_text(self, v: Value) -> str:
        if v in self.inlined and isinstance(v, Call):
            fn = v.callee()
            if fn is slice:
                return slice_text([self.value(a) for a in v.args])
            if fn is ops.tuple_of and v.args:
                parts = [self.index_text(a) for a in v.args]
                return ", ".join(parts) + ("," if len(parts) == 1 else "")
        return self.value(v)[0]

    def call_expr(self, s: Call) -> Expr:
        fn = s.callee()
        args = [self.value(a) for a in s.args]
        kwargs = {k: self.value(v) for k, v in s.kwargs.items()}
        raw = [a.value if isinstance(a, Const) else a for a in s.args]
        if fn in _INDEXING and len(s.args) >= 2:
            raw[1] = _IndexText(self.index_text(s.args[1]))
        fn_text = None if fn is not None else self.value(s.fn)
        return self.renderer.expression(fn, fn_text, args, kwargs, raw)

    # ------------------------------------------------------------ statements
    def emit_stmts(self, b: Block, out: list) -> None:
        pending: list[Call] = []
        stmts = [s for s in b.stmts if s not in self.skip]
        i = 0
        while i < len(stmts):
            s = stmts[i]
            if s in self.skip:  # consumed by a tuple assignment just printed
                i += 1
                continue
            if self._floating(s):
                self.inlined.add(s)
                self.rendered[s] = self.call_expr(s)
                i += 1
                continue
            if self._can_inline(s):
                self._absorb(s, pending, out, keep_rest=True)
                pending.append(s)
                i += 1
                continue
            self._absorb(s, pending, out)
            i = self._emit_one(s, stmts, i, out)
        self._flush_for_terminator(b, pending, out)

    def _absorb(self, s: Union[Call, Any], pending: list, out: list, operands=None, keep_rest: bool = False) -> None:
        """Inline the pending temporaries `s` uses if they are exactly the last ones pending, in order."""
        ops_ = [v for v in (operands if operands is not None else s.operands()) if v in pending and v not in self.rendered]
        exprs = [self.call_expr(v) for v in ops_] if ops_ and pending[-len(ops_):] == ops_ else None
        if exprs is not None and isinstance(s, Call) and s.callee() is ops.add_to_item and \
                any(self._pops(v) for v in ops_):
            exprs, keep_rest = None, False  # (`a[i] += a.pop()`: Python reads a[i] before the pop, the IR after)
        if exprs is not None and any(_nesting(e[0]) > _MAX_NESTING for e in exprs):
            exprs, keep_rest = None, False  # (a chain of a few hundred calls, one inside the next: Python's parser
            # refuses more than 200 nested parentheses, so the pending values get names here)
        if exprs is not None:
            for v, e in zip(ops_, exprs):
                self.inlined.add(v)
                self.rendered[v] = e
            del pending[-len(ops_):]
        elif ops_ and keep_rest:
            keep_rest = False  # s needs values out of order: evaluate everything pending now
        if pending and not keep_rest:
            for v in pending:
                self._emit_named(v, out, force_name=True)
            pending.clear()

    def _pops(self, v: Any, depth: int = 0) -> bool:
        """Does the expression v would be written as take an item out of a container (`stack.pop()`)?"""
        if not isinstance(v, Call) or depth > 50:
            return False
        if v.callee() in _TAKES_ITEMS:
            return True
        return any(self._pops(a, depth + 1) for a in v.args if a in self.inlined)

    def _flush_for_terminator(self, b: Block, pending: list, out: list) -> None:
        self._absorb(None, pending, out, operands=list(b.term.operands()))  # type: ignore[union-attr]

    def _emit_named(self, s: Call, out: list, force_name: bool = False) -> None:
        if force_name and s not in self.names:
            self.names[s] = self._temp_name()
        self._loc_comment(s, out)
        text = self.call_expr(s)[0]
        out.append(f"{self.names[s]} = {text}" if s in self.names else text)

    def _temp_name(self) -> str:
        """The first of `t1`, `t2`, ... that no value's name and no reserved name is.  The names in use are
        kept in a set, rebuilt only when `names` or `reserved` grew otherwise than by the name returned
        here (rebuilding it for every temporary cost a long function the square of its size)."""
        sizes = (len(self.names), len(self.reserved))
        if self._taken_sizes != sizes:
            taken = set(self.names.values()) | self.reserved
            if not self._taken <= taken:
                self._temp_from = 1  # (a name in use before is free again: search from the start)
            self._taken = taken
        taken = self._taken
        i = self._temp_from  # (t1 ... below it are in use: the names in use only grew since it was found)
        while f"t{i}" in taken:
            i += 1
        name = f"t{i}"
        taken.add(name)
        self._temp_from = i + 1
        self._taken_sizes = (sizes[0] + 1, sizes[1])  # (the caller names a value with it)
        return name

    def _emit_one(self, s: Call, stmts: list, i: int, out: list) -> int:
        self._loc_comment(s, out)
        fn = s.callee()
        # `a, b = value`: an unpack (or a pair-returning call) read by getitems right after.
        targets = self._tuple_targets(s, stmts, i)
        if targets is not None:
            names, consumed = targets
            source = s.args[0] if fn in (ops.unpack, ops.unpack_star) else s
            text = self.value(source)[0] if source is not s else self.call_expr(s)[0]
            if fn is ops.unpack_star:
                before = s.args[1].value  # type: ignore[union-attr]
                names[before] = "*" + names[before]
            lhs = ", ".join(names) + ("," if len(names) == 1 else "")
            out.append(f"{lhs} = {text}")
            for c in consumed:
                self.skip.add(c)
            return i + 1
        if fn is not None and s not in self.names:
            args = [self.value(a) for a in s.args]
            raw = [a.value if isinstance(a, Const) else a for a in s.args]
            if fn in _STORING:
                raw[1] = _IndexText(self.index_text(s.args[1]))
            elif fn is ops.add_to_item:
                raw[2] = _IndexText(self.index_text(s.args[2]))
            st = self.renderer.statement(fn, args, raw)
            if st is not None:
                out.append(st)
                return i + 1
        if fn in INPLACE_SYNTAX and s in self.names and len(s.args) == 2 and self.value(s.args[0])[0] == self.names[s]:
            out.append(f"{self.names[s]} {INPLACE_SYNTAX[fn]} {self.value(s.args[1])[0]}")
            return i + 1
        text = self.call_expr(s)[0]
        if s in self.names:
            out.append(f"{self.names[s]} = {text}")
        else:
            out.append(text)
        return i + 1

    def _tuple_targets(self, s: Call, stmts: list, i: int) -> Optional[tuple[list[str], list[Call]]]:
        n_uses = self.use_count.get(s, 0)
        if n_uses == 0:
            return None
        fn = s.callee()
        getters: dict[int, Call] = {}
        j = i + 1
        while j < len(stmts) and len(getters) < n_uses:
            g = stmts[j]
            if g.callee() is operator.getitem and g.args[0] is s and isinstance(g.args[1], Const) and isinstance(g.args[1].value, int) and not g.kwargs:
                if g not in self.names or g.args[1].value in getters:
                    return None
                getters[g.args[1].value] = g
                j += 1
            else:
                break
        if len(getters) != n_uses or not getters:
            return None
        size = _tuple_size(s)
        if size is None:
            return None
        if any(k >= size for k in getters):
            return None
        if size > len(getters) and self._underscore_taken():
            return None  # (a throwaway `_` would overwrite the function's own `_`: `x, _, rank, _ = y`)
        names = [self.names[getters[k]] if k in getters else "_" for k in range(size)]
        if fn is ops.unpack_star and "_" == names[s.args[1].value]:  # type: ignore[union-attr]
            return None
        return names, list(getters.values())

    def _underscore_taken(self) -> bool:
        """Does the code name one of its values `_` (a variable of the user's)?  Then `_` is no throwaway target."""
        taken = getattr(self, "_underscore", None)
        if taken is None:
            taken = self._underscore = "_" in self.names.values()
        return taken

    def _loc_comment(self, s: Any, out: list) -> None:
        loc = getattr(s, "loc", None)
        if loc is None:
            return
        key = (loc.file, loc.line, loc.via)  # (a function put in line on its caller's line is a frame of its own)
        if key != self._last_loc:
            self._last_loc = key
            text = self.comment(loc)
            if text:
                out.append(text)

    # ------------------------------------------------------------ edges
    def copies(self, src: Block, dst: Block, out: list) -> None:
        lhs, rhs = [], []
        for phi in dst.phis:
            if phi in self.skip or phi in self.no_copy or phi not in self.names:
                continue
            v = phi.incoming.get(src)
            if v is None or v is UNDEFINED:
                continue
            text = self.value(v)[0]
            if text != self.names[phi]:
                lhs.append(self.names[phi])
                rhs.append(text)
        if lhs:
            out.append(f"{', '.join(lhs)} = {', '.join(rhs)}")

    # ------------------------------------------------------------ blocks
    def emit_function_body(self) -> list:
        out: list = []
        self.block(self.fn.entry, [], set(), out)
        return out

    def block(self, b: Block, loops: list[_Frame], follows: set[Block], out: list) -> None:
        """Print b and what follows it in the same statement list.

        What follows a block (an `if`'s join, a loop's exit, the one successor of a block) is printed by this
        loop, not by a call inside the call for the block: a recursive walk went one call deeper for every
        `if` or loop in sequence, as deep as the function is long.  Calls nest only as the syntax does."""
        step: Optional[_Next] = (b, loops, follows, out)
        while step is not None:
            step = self._block_step(*step)

    def _block_step(self, b: Block, loops: list[_Frame], follows: set[Block], out: list) -> Optional[_Next]:
        """Print b; return the block that follows it in the same list (with its context), if one does."""
        if b.loop is not None and not any(f.header is b for f in loops):
            return self.loop(b, loops, follows, out)
        self.emit_stmts(b, out)
        t = b.term
        if isinstance(t, Return):
            self._loc_comment(t, out)
            out.append(f"return {self.value(t.value)[0]}")
        elif isinstance(t, Raise):
            out.append(f"raise {self.value(t.exc)[0]}" if t.exc is not None else "raise")
        elif isinstance(t, Goto):
            return self.jump(b, t.target, loops, follows, out)
        elif isinstance(t, Branch):
            return self.branch(b, t, loops, follows, out)
        else:
            raise EmitError(f"{b} has no terminator", block_loc(b))
        return None

    def _merge_child(self, b: Block, loops: list[_Frame]) -> Optional[Block]:
        kids = merge_points(b, loops, self._dom_children, self.idom)
        if len(kids) > 1:
            raise EmitError(f"{b} has several merge points", block_loc(b))
        return kids[0] if kids else None

    def branch(self, b: Block, t: Branch, loops: list[_Frame], follows: set[Block], out: list) -> Optional[_Next]:
        join = self._merge_child(b, loops)
        inner_follows = follows | ({join} if join else set())
        then: list = []
        orelse: list = []
        self._go_on(self.jump(b, t.then, loops, inner_follows, then))
        self._go_on(self.jump(b, t.orelse, loops, inner_follows, orelse))
        cond = self.value(t.cond)
        if not then and orelse:
            out.append(If(_negate(cond), orelse, []))
        elif then or orelse:
            out.append(If(cond[0], then, orelse))
        return (join, loops, follows, out) if join is not None else None

    def _go_on(self, step: Optional[_Next]) -> None:
        """Print the block a jump leads to (and what follows it), if it leads into one."""
        if step is not None:
            self.block(*step)

    def jump(self, src: Block, dst: Block, loops: list[_Frame], follows: set[Block], out: list) -> Optional[_Next]:
        """Print the edge src -> dst into `out`: its copies, then `continue`/`break`, nothing (a join that
        follows), or -- returned, for the caller to print -- the block dst starts in the same list."""
        inner = loops[-1] if loops else None
        if inner is not None and inner.kind == "for" and dst is inner.latch:
            self.copies(src, dst, out)
            self.copies(dst, inner.header, out)
            out.append("continue")
            return None
        if inner is not None and inner.latch is not None and dst is inner.latch:
            self.copies(src, dst, out)
            self.emit_stmts(dst, out)
            self.copies(dst, inner.header, out)
            out.append("continue")
            return None
        self.copies(src, dst, out)
        if inner is not None and dst is inner.header:
            out.append("continue")
        elif inner is not None and dst is inner.exit:
            out.append("break")
        elif dst in follows:
            pass
        elif any(dst is f.header or dst is f.exit or dst is f.latch for f in loops):
            raise EmitError("jump out of several loops at once", block_loc(src))
        elif len(dst.preds) == 1 or (dst.loop is not None):
            return (dst, loops, follows, out)
        else:
            raise EmitError(f"unstructured jump {src} -> {dst}", block_loc(src))
        return None

    def loop(self, h: Block, loops: list[_Frame], follows: set[Block], out: list) -> Optional[_Next]:
        """Print the loop headed by h; return its exit block, which follows it in `out`, if it is not a join
        the caller prints."""
        info = h.loop
        assert info is not None
        form = self._for_forms.get(h)
        # A for loop printed as `while` keeps its latch special too: each jump to it prints the latch's
        # statements (the counter's increment, records reverse mode put there) before `continue`.
        frame = _Frame(h, info.exit, info.latch if form or info.kind == "for" else None, "for" if form else "while")
        body: list = []
        t = h.term
        if form is not None:
            simple, k, seq, n, item, latch, extras = form
            assert isinstance(t, Branch)
            self._loc_comment(info, out)
            # (a sequence consumed by this loop prints as its argument; one taken out of a dispatched
            # call's result pair, or named for other uses, prints as itself)
            iterable = seq.args[0] if seq in self.skip and seq.callee() is ops.sequence else seq
            it_text = self.call_expr(iterable)[0] if iterable in self.deferred else self.value(iterable)[0]
            if item is not None:
                targets = ", ".join(self.names[x] for x in [item, *extras])
                srcs = [x.args[0].args[0] if x.args[0] in self.skip and x.args[0].callee() is ops.sequence else x.args[0]
                        for x in extras]
                sources = f"zip({', '.join([it_text] + [self.value(v)[0] for v in srcs])})" if extras else it_text
                if simple:
                    head = f"for {targets} in {sources}"
                else:
                    head = f"for {self.names[k]}, {'(' + targets + ')' if extras else targets} in enumerate({sources})"
            elif n.block is h:
                unused = self._temp_name()
                self.reserved.add(unused)
                head = f"for {self.names[k]}, {unused} in enumerate({it_text})"
            else:
                head = f"for {self.names[k]} in range({self.value(n)[0]})"
            self.block(t.then, loops + [frame], follows, body)
            exit_edge = t.orelse
        else:
            head_stmts: list = []
            self.emit_stmts(h, head_stmts)
            if isinstance(t, Branch) and not head_stmts:
                self._loc_comment(info, out)
                head = f"while {self.value(t.cond)[0]}"
                self._go_on(self.jump(h, t.then, loops + [frame], follows, body))
                exit_edge = t.orelse
            else:
                self._loc_comment(info, out)
                head = "while True"
                body += head_stmts
                if isinstance(t, Branch):
                    leave: list = []
                    self.copies(h, t.orelse, leave)
                    self._else_into(h, t.orelse, info, leave, follows | ({info.exit} if info.exit else set()), loops)
                    leave.append("break")
                    body.append(If(_negate(self.value(t.cond)), leave, []))
                    self._go_on(self.jump(h, t.then, loops + [frame], follows, body))
                else:
                    self.block_after_header(h, t, loops + [frame], follows, body)
                exit_edge = None
        orelse: list = []
        if exit_edge is not None:
            self.copies(h, exit_edge, orelse)
            self._else_into(h, exit_edge, info, orelse, follows | ({info.exit} if info.exit else set()), loops)
        _drop_tail_continue(body)
        out.append(Loop(head, body or ["pass"], orelse))
        if info.exit is not None and info.exit not in follows:
            return (info.exit, loops, follows, out)
        return None

    def _else_into(self, h: Block, target: Block, info: Any, out: list, follows: set, loops: list) -> None:
        if target is info.exit:
            return
        self.block(target, loops, follows, out)

    def block_after_header(self, h: Block, t: Any, loops: list, follows: set, out: list) -> None:
        if isinstance(t, Goto):
            self._go_on(self.jump(h, t.target, loops, follows, out))
        elif isinstance(t, Return):
            out.append(f"return {self.value(t.value)[0]}")
        elif isinstance(t, Raise):
            out.append(f"raise {self.value(t.exc)[0]}" if t.exc is not None else "raise")


_INDEXING = (operator.getitem, operator.setitem, operator.delitem)
_STORING = (operator.setitem, operator.delitem)


def _drop_tail_continue(body: list) -> None:
    """`continue` as the last thing a loop body does is implied."""
    while body and body[-1] == "continue":
        body.pop()
    if body and isinstance(body[-1], If):
        last = body[-1]
        _drop_tail_continue(last.then)
        _drop_tail_continue(last.orelse)
        if not last.then and not last.orelse:
            body.pop()
        elif not last.then:
            body[-1] = If(f"not ({last.cond})", last.orelse, [])


class _IndexText(str):
    @property
    def _render_slice(self) -> str:
        return str(self)


def _negate(cond: Expr) -> str:
    text, prec = cond
    if text.startswith("not "):
        return text[4:] if prec > 3 else f"({text})"
    return f"not {text}" if prec > 4 else f"not ({text})"


_MAX_NESTING = 60  # brackets one inside another in an expression put together from single-use values
_TAKES_ITEMS = frozenset([list.pop, dict.pop, set.pop, dict.popitem])


def _nesting(text: str) -> int:
    """How deep brackets nest in the text (string literals' brackets counted too: an upper bound)."""
    depth = deepest = 0
    for ch in text:
        if ch in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in ")]}":
            depth -= 1
    return deepest
