"""Lowering of loops: `while`, `for` and comprehensions, as index loops over basic blocks.

A `for` loop counts an index over `ops.sequence(iterable)`, so reverse mode knows which item each
iteration read; `enumerate`/`zip` of sequences index each sequence in step.  A `while` whose test
makes blocks of its own is lowered with the test inside the body, so the loop header stays one
block.  A mixin of `Lowering` (statements.py), like ExpressionLowering: its methods are the
`stmt_While`/`stmt_For` visitors and what expressions.py calls for comprehensions.
"""
from __future__ import annotations

import operator
from typing import Callable, Optional

import libcst as cst

from .. import ops
from ..attribute_checks import ARRAY_WRITING_METHODS, WRITING_METHODS
from ..ir.nodes import Const, LoopInfo, Phi, Value
from . import generator_ops, generators, try_stmt
from . import stmt_ops
from .cst_queries import names_read, walked_in_step
from .scopes import _target_names
from .source import walk


class LoopLowering:
    """Mixin of `Lowering` (statements.py): loops and comprehensions."""

    def stmt_While(self, s: cst.While) -> None:
        if self.generator and generators.endless(s):
            self.unsupported(s, "an infinite generator (`while True` with no `break`, `return` or `raise`): mooncake_ast "
                                "runs a generator to its end when it is called; give the loop an end (e.g. pass the "
                                "number of items wanted)")
        if _makes_blocks(s.test) or self.b.guard is not None:  # (guarded calls in the test make blocks)
            self._while_test_in_body(s)
            return
        header, body, orelse, exit_ = (self.b.new_block() for _ in range(4))
        loc = self.b.loc
        self.b.goto(header)
        self.b.position_at(header)
        header.loop = LoopInfo("while", loc=loc, exit=exit_, orelse=orelse if s.orelse is not None else None)
        cond = self.expr(s.test)
        self.b.branch(cond, body, orelse)
        self.b.seal(body)
        self.b.position_at(body)
        self.loops.append((header, exit_))
        since = self.fail_points
        self.body(s.body)
        try_stmt.on_failure(self, since, exit_)
        self.loops.pop()
        self.b.goto(header)
        self.b.seal(header)
        self.b.seal(orelse)
        self.b.position_at(orelse)
        if s.orelse is not None:
            self.body(s.orelse.body)
        self.b.goto(exit_)
        self._resume_at(exit_)

    def _while_test_in_body(self, s: cst.While) -> None:
        """`while C: B else: E` where C is itself control flow (`and`, `or`, a chained
        comparison, a ternary, a comprehension) is lowered as

            normal = False
            while True:
                if not C: normal = True; break
                B
            if normal: E

        so the loop's header stays one block ending in the loop test, and the test's own
        blocks are part of each iteration (the last, failing test is a partial iteration,
        which reverse mode undoes like one left by `break`).  E runs after the loop, so a
        `break`/`continue` in it refers to the enclosing loop, as in Python.
        """
        header, body, never, exit_ = (self.b.new_block() for _ in range(4))
        loc = self.b.loc
        normal = self.temp_var("normal") if s.orelse is not None else None
        if normal is not None:
            self.b.write(normal, Const(False))
        self._preheader()
        self.b.goto(header)
        self.b.position_at(header)
        header.loop = LoopInfo("while", loc=loc, exit=exit_, orelse=None)
        self.b.branch(Const(True), body, never)
        self.b.seal(body)
        self.b.position_at(body)
        since = try_stmt.open_scope(self)
        cond_var = self.temp_var("test")
        self.b.write(cond_var, self.expr(s.test))
        try_stmt.close_scope(self)
        try_stmt.on_failure(self, since, exit_)
        cond = self.b.read(cond_var)
        run, fail = self.b.new_block(), self.b.new_block()
        self.b.branch(cond, run, fail)
        self.b.seal(fail)
        self.b.position_at(fail)
        if normal is not None:
            self.b.write(normal, Const(True))
        self.b.goto(exit_)
        self.b.seal(run)
        self.b.position_at(run)
        self.loops.append((header, exit_))
        since = self.fail_points
        self.body(s.body)
        try_stmt.on_failure(self, since, exit_)
        self.loops.pop()
        self.b.goto(header)
        self.b.seal(header)
        self.b.seal(never)
        self.b.position_at(never)
        self.b.goto(exit_)
        self._resume_at(exit_)
        if normal is not None and not self.b.terminated:
            assert s.orelse is not None
            then, join = self.b.new_block(), self.b.new_block()
            ended = self.b.read(normal)
            if isinstance(ended, Phi):
                ended.hint = "test_failed"  # printed under a readable name
            self.b.branch(ended, then, join)
            self.b.seal(then)
            self.b.position_at(then)
            self.b.loc = self.loc_of(s.orelse)
            self.body(s.orelse.body)
            self.b.goto(join)
            self.b.seal(join)
            self.b.position_at(join)

    def stmt_For(self, s: cst.For) -> None:
        written = _reversed_and_written(s, self)
        if written is not None:
            self.unsupported(s, f"a `for` loop over reversed({written}) whose body writes {written}: the loop reads "
                             f"the items of {written} as they are when it starts, where Python reads each one when it "
                             f"gets there; walk the indices instead (`for i in reversed(range(len({written}))): "
                             f"v = {written}[i]`)")
        self.for_loop(s.target, _without_iter(s.iter, self), lambda: self.body(s.body), s.orelse.body if s.orelse else None)

    def for_loop(self, target: cst.BaseExpression, iterable: cst.BaseExpression, body: Callable[[], None], orelse=None) -> None:
        """`for target in iterable` as an index loop over `ops.sequence(iterable)`.

        Reverse mode needs to know which element each iteration read, so the
        loop counts `k` over a sequence that can be indexed; the emitter
        prints it back as `for target in ...`.
        """
        loc = self.b.loc
        parallel = self._parallel_iteration(iterable)
        consumed: list[Value] = []  # iterables that may be generators: checked when the loop ends
        if parallel is not None:
            # enumerate/zip of sequences, nested as written (`enumerate(zip(y, z))`): index each sequence in step,
            # so every iteration reads its elements when it runs (as Python's lazy iterators do), not up front.
            plan, leaves = parallel
            seqs = [q for q, _ in leaves]
            consumed = [generators.sequenced(q) for q, node in leaves if generators.may_generate(node)]
        else:
            it = self.expr(iterable)
            seqs = [self.b.call(ops.sequence, [it])]
            consumed = [it] if generators.may_generate(iterable) else []
        seq = seqs[0]
        header, body_blk, latch, orelse_blk, exit_ = (self.b.new_block() for _ in range(5))
        counter_var = self.temp_var("k")
        self.b.write(counter_var, Const(0))
        self._preheader()
        self.b.goto(header)
        self.b.position_at(header)
        k = self.b.read(counter_var)
        self.b.loc = loc
        # The length is read at every test, as Python's list iterator does: a list the body
        # appends to is iterated to its new end.
        with self.b.unguarded():  # (the loop's own structure: indexing a sequence within its length)
            lengths = [self.b.call(len, [q]) for q in seqs]
            n = lengths[0] if len(lengths) == 1 else self.b.call(min, lengths)
            more = self.b.call(operator.lt, [k, n])
        self.b.branch(more, body_blk, orelse_blk)
        self.b.seal(body_blk)
        self.b.position_at(body_blk)
        with self.b.unguarded():
            item = self.b.call(operator.getitem, [seq, k])
        header.loop = LoopInfo("for", loc=loc, counter=k, seq=seq, length=n, item=item, latch=latch,
                               exit=exit_, orelse=orelse_blk if orelse is not None else None)
        since = try_stmt.open_scope(self)  # (the target's unpacking and the body: one scope, left by `break`)
        if parallel is None:
            self.assign(target, item)
        else:
            with self.b.unguarded():
                reads = [item] + [self.b.call(operator.getitem, [q, k]) for q in seqs[1:]]
            self._assign_walked(target, plan, reads, k)
        self.loops.append((latch, exit_))
        body()
        try_stmt.close_scope(self)
        try_stmt.on_failure(self, since, exit_)  # an exception raised in the body leaves the loop
        self.loops.pop()
        self.b.goto(latch)
        self.b.seal(latch)
        self.b.position_at(latch)
        self.b.loc = loc
        with self.b.unguarded():
            self.b.write(counter_var, self.b.call(operator.add, [self.b.read(counter_var), Const(1)]))
        self.b.goto(header)
        self.b.seal(header)
        self.b.seal(orelse_blk)
        self.b.position_at(orelse_blk)
        try_stmt.open_scope(self)  # (inside a `try`: the else part's failure paths meet before the exit)
        for it in consumed:
            # (the loop asked for the item after the last: a generator's deferred exception comes out here)
            self.b.call(generator_ops.exhausted, [it, n])
        if orelse is not None and not self.b.terminated:
            self.body(orelse)
        try_stmt.close_scope(self)
        self.b.goto(exit_)
        self._resume_at(exit_)
        if consumed and not self.b.terminated:
            with self.b.unguarded():
                for it in consumed:
                    # (a generator's items were computed when it was called: its inputs must not have changed since)
                    self.b.call(generator_ops.consumed, [it])

    def _assign_walked(self, target: cst.BaseExpression, plan: tuple, reads: list, k: Value) -> None:
        """Bind `target` to the item `plan` (from _parallel_iteration) makes of this iteration's `reads` (the
        sequences' items at k): a tuple target that matches a level is bound part by part, without a tuple made."""
        if plan[0] == "leaf":
            self.assign(target, reads[plan[1]])
            return
        elts = target.elements if isinstance(target, (cst.Tuple, cst.List)) else None
        parts = self._walked_parts(plan, k)
        if elts is not None and len(elts) == len(parts) and not any(isinstance(e, cst.StarredElement) for e in elts):
            for e, part in zip(elts, parts):
                if isinstance(part, tuple):
                    self._assign_walked(e.value, part, reads, k)
                else:
                    self.assign(e.value, part)
        else:
            self.assign(target, self._walked_value(plan, reads, k, parts))

    def _walked_parts(self, plan: tuple, k: Value) -> list:
        """The parts of an enumerate/zip level: sub-plans, and enumerate's index (a Value)."""
        if plan[0] == "enumerate":
            start = plan[2]
            with self.b.unguarded():
                index = k if start is None else self.b.call(operator.add, [k, start])
            return [index, plan[1]]
        return list(plan[1])

    def _walked_value(self, plan: tuple, reads: list, k: Value, parts: Optional[list] = None) -> Value:
        """The item as one value (a tuple made of the parts); `parts`: this level's _walked_parts, if made already
        (made again, enumerate's index would be computed twice per iteration)."""
        if plan[0] == "leaf":
            return reads[plan[1]]
        if parts is None:
            parts = self._walked_parts(plan, k)
        return self.b.call(ops.tuple_of, [p if isinstance(p, Value) else self._walked_value(p, reads, k) for p in parts])

    def _lazy_builtin(self, node: cst.BaseExpression) -> Optional[str]:
        """"enumerate" or "zip" when node calls that builtin (not a name of the function's or its module's)."""
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name)):
            return None
        name = node.func.value
        if name not in ("enumerate", "zip") or self._var_key(name) is not None or name in self.freevars:
            return None
        if name in self.pyfn.__globals__:
            return None  # the module defines its own
        if any(a.star for a in node.args):
            return None
        return name

    def _parallel_iteration(self, iterable: cst.BaseExpression) -> Optional[tuple]:
        """For `enumerate(xs[, start])` or `zip(xs, ys, ...)` of the builtins, nested as written (`enumerate(zip(y,
        z))`, `zip(x, enumerate(y))`): (plan, leaves), where leaves are (`ops.sequence` of each sequence, its node)
        in the order Python evaluates them and plan says how an iteration's item is made of their items at k:
        ("leaf", i), ("enumerate", plan, start or None), ("zip", [plans]).  Else None.

        Python's enumerate and zip read their sequences' items when the loop asks for them, so a body writing an
        item the loop reads later (`y[i + 1] += a[0]`) is read written: indexing the innermost sequences at every
        iteration does the same, where taking the zip or enumerate object as a value would read its items up front."""
        if self._lazy_builtin(iterable) is None:
            return None
        leaves: list = []
        plan = self._walk_plan(iterable, leaves)
        return None if plan is None else (plan, leaves)

    def _walk_plan(self, node: cst.BaseExpression, leaves: list, top: bool = True) -> Optional[tuple]:
        name = self._lazy_builtin(node)
        if name is None:
            leaves.append((self.b.call(ops.sequence, [self.expr(node)]), node))
            return ("leaf", len(leaves) - 1)
        args = node.args
        if name == "enumerate":
            pos = [a for a in args if a.keyword is None]
            kw = [a for a in args if a.keyword is not None]
            if len(pos) == 2 and not kw:
                start_node = pos[1].value
            elif len(pos) == 1 and len(kw) == 1 and kw[0].keyword.value == "start":  # type: ignore[union-attr]
                start_node = kw[0].value
            elif len(pos) == 1 and not kw:
                start_node = None
            else:
                return self._walk_leaf(node, leaves, top)
            inner = self._walk_plan(pos[0].value, leaves, top=False)
            start = self.expr(start_node) if start_node is not None else None
            self.ir.globals_read.add(name)  # the derivative assumed the builtin: a module global of that name is a new key
            return ("enumerate", inner, start)
        strict = [a for a in args if a.keyword is not None]
        if len(strict) == len(args) or len(strict) > 1 or (strict and strict[0].keyword.value != "strict"):  # type: ignore[union-attr]
            return self._walk_leaf(node, leaves, top)  # zip() or other keywords: as written
        items = [a.value for a in args if a.keyword is None]
        if strict and any(self._lazy_builtin(x) is not None for x in items):
            return self._walk_leaf(node, leaves, top)  # (zip(enumerate(a), b, strict=True): a zip object, as written)
        first = len(leaves)
        parts = [self._walk_plan(x, leaves, top=False) for x in items]
        self.ir.globals_read.add(name)
        if strict:  # zip(..., strict=s): unequal lengths raise ValueError, checked before the loop
            self.b.call(stmt_ops.zip_strict, [self.expr(strict[0].value), *[q for q, _ in leaves[first:]]])
        return ("zip", parts)

    def _walk_leaf(self, node: cst.BaseExpression, leaves: list, top: bool) -> Optional[tuple]:
        if top:
            return None  # (the whole iterable as written: for_loop takes it as one value)
        leaves.append((self.b.call(ops.sequence, [self.expr(node)]), node))
        return ("leaf", len(leaves) - 1)

    def comprehension(self, for_in: cst.CompFor, innermost: Callable[[], None]) -> None:
        targets = {n for level in _comp_levels(for_in) for n in _target_names(level.target)}
        if names_read(for_in.iter) & targets:
            # The first iterable reads a name the comprehension binds (`v = [v * 2 for v in v]`): Python evaluates it
            # in the enclosing scope, before the comprehension's names exist; so here, held under a name of our own.
            holder = self.temp_var("iterable")
            self.b.write(holder, self.expr(for_in.iter))
            alias = "mc_iterable_" + holder.lstrip("%")
            for_in = for_in.with_changes(iter=cst.Name(alias))
            self.scopes.append({alias: holder})
        else:
            self.scopes.append({})
        # A comprehension variable a closure inside it captures lives in a cell, one per
        # evaluation of the comprehension, as in Python: `[lambda t: t * k for k in range(3)]`
        # makes three functions that all see the last k.
        wanted = {n for level in _comp_levels(for_in) for n in _target_names(level.target)} & self.captured
        saved = self._comp_cells_made
        self._comp_cells_made = {n: self.b.call(ops.new_cell, [], hint=f"{n}_cell") for n in sorted(wanted)}
        self._comp_level(for_in, innermost)
        self._comp_cells_made = saved
        self.scopes.pop()

    def _comp_level(self, for_in: cst.CompFor, innermost: Callable[[], None]) -> None:
        if for_in.asynchronous is not None:
            self.unsupported(for_in, "async comprehension")
        scope = self.scopes[-1]
        for name in _target_names(for_in.target):
            scope[name] = self.temp_var(name)
            if name in self._comp_cells_made:
                self.comp_cells[scope[name]] = self._comp_cells_made[name]

        def body() -> None:
            skip = self.loops[-1][0]
            for cond in for_in.ifs:
                ok = self.b.new_block()
                self.b.branch(self.expr(cond.test), ok, skip)
                self.b.seal(ok)
                self.b.position_at(ok)
            if for_in.inner_for_in is not None:
                self._comp_level(for_in.inner_for_in, innermost)
            else:
                innermost()

        # The first iterable is evaluated in the enclosing scope, as in Python.
        self.for_loop(for_in.target, for_in.iter, body)


def _makes_blocks(test: cst.BaseExpression) -> bool:
    """Does lowering this expression create blocks (short-circuits, ternaries, chained
    comparisons, comprehensions), rather than straight-line calls?"""
    found = False

    class V(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            nonlocal found
            if isinstance(node, cst.Lambda):
                return False  # its body is another function
            if isinstance(node, (cst.BooleanOperation, cst.IfExp, cst.ListComp, cst.SetComp, cst.DictComp,
                                 cst.GeneratorExp)) or (isinstance(node, cst.Comparison) and len(node.comparisons) > 1):
                found = True
                return False
            return True

    walk(test, V())
    return found


def _comp_levels(for_in: Optional[cst.CompFor]) -> list[cst.CompFor]:
    out = []
    while for_in is not None:
        out.append(for_in)
        for_in = for_in.inner_for_in
    return out


# (the writing methods of containers and arrays attribute_checks knows, and `__iadd__`)
_WRITING_METHODS = WRITING_METHODS | ARRAY_WRITING_METHODS | {"__iadd__"}


def _without_iter(it: cst.BaseExpression, lw: object) -> cst.BaseExpression:
    """X for `iter(X)` (the builtin, one argument): a `for` loop calls iter() on what it walks, and iter() of an
    iterator is that iterator, so `for v in iter(X)` is `for v in X` -- which the loop reads item by item, as Python
    does (the iterator itself would be taken whole when the loop starts: a body writing X's later items was lost)."""
    if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "iter" and len(it.args) == 1 \
            and not it.args[0].star and it.args[0].keyword is None and "iter" not in lw.pyfn.__globals__ \
            and lw._var_key("iter") is None:  # type: ignore[attr-defined]
        return it.args[0].value
    return it


def _reversed_and_written(s: cst.For, lw: object) -> Optional[str]:
    """The name X of `for v in reversed(X):` (the builtin) when the loop's body writes X's items or calls a method
    of X that changes them (syntactically: `X[i] = ...`, `X[i] += ...`, `del X[i]`, `X.append(...)`, ...); else None.
    The loop takes X's items when it starts (ops.sequence materialises the reverse iterator) while Python's reads
    them one at a time, so such a write would be read differently: refused rather than silently wrong."""
    reversing = [it for it in walked_in_step(s.iter) if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and
                 it.func.value == "reversed" and len(it.args) == 1 and isinstance(it.args[0].value, cst.Name)]
    if not reversing:
        return None
    if "reversed" in lw.pyfn.__globals__ or lw._var_key("reversed") is not None:  # type: ignore[attr-defined]
        return None  # (the module's or the function's own `reversed`)
    for it in reversing:
        name = _written_in(s.body, it.args[0].value.value)
        if name is not None:
            return name
    return None


def _written_in(body: cst.CSTNode, name: str) -> Optional[str]:
    """name when body writes its items (a store into an item, an augmented assignment, `del`, a writing method)."""
    found: list = []

    def names(e: cst.BaseExpression) -> bool:
        return isinstance(e, cst.Name) and e.value == name

    class Writes(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for t in node.targets:
                if isinstance(t.target, cst.Subscript) and names(t.target.value):
                    found.append(t)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            if isinstance(node.target, cst.Subscript) and names(node.target.value) or names(node.target):
                found.append(node)

        def visit_Del(self, node: cst.Del) -> None:
            if isinstance(node.target, cst.Subscript) and names(node.target.value):
                found.append(node)

        def visit_Call(self, node: cst.Call) -> None:
            f = node.func
            if isinstance(f, cst.Attribute) and names(f.value) and f.attr.value in _WRITING_METHODS:
                found.append(node)

    walk(body, Writes())
    return name if found else None

