"""Lowering of a function's statements into basic blocks (see expressions.py for expressions).

Scoping follows Python: a name assigned anywhere in the function is local;
locals captured by nested functions live in explicit cells (`ops.new_cell`),
so closures see later assignments as Python's do; names free in the function
read its own closure cells; everything else is a late-bound `Global`.
Comprehension variables get their own scope, as in Python 3.
"""
from __future__ import annotations

import inspect
import operator
import os
import types
from typing import Callable, Optional, Union

import libcst as cst

from .. import ops
from ..errors import UnsupportedSyntaxError
from ..ir.fold_tuples import fold_tuple_reads
from ..ir.builder import UNDEFINED, Builder
from ..ir.nodes import Block, Const, FreeVar, Function, Global, Loc, LoopInfo, Param, Phi, Stmt, Value
from .expressions import AUGMENTED, ExpressionLowering
from . import del_stmt, generator_ops, generators, imports, try_stmt
from . import stmt_ops
from .source import FunctionSource, function_source, walk


class SelfRef(Param):
    """The function object being differentiated (its closure and nested code live there)."""

    def __init__(self, name: str) -> None:
        super().__init__(name, -1, "SELF")

    def __repr__(self) -> str:
        return "SelfRef()"


def lower_function(fn: types.FunctionType, src: Optional[FunctionSource] = None) -> Function:
    """Lower a Python function to IR."""
    src = src or function_source(fn)
    ir = Lowering(fn, src).run()
    fold_tuple_reads(ir)
    if os.environ.get("MOONCAKE_AST_VERIFY"):
        from ..ir.verifier import verify

        verify(ir)
    return ir


class Lowering(ExpressionLowering):
    def __init__(self, fn: types.FunctionType, src: FunctionSource) -> None:
        self.pyfn = fn
        self.src = src
        node = src.node
        line, col = src.where(node)
        name = fn.__code__.co_name
        self.ir = Function(name, [], [FreeVar(n, i) for i, n in enumerate(fn.__code__.co_freevars)], self.loc_of(node))
        self.ir.self_ref = SelfRef(name if name.isidentifier() else "fn")  # type: ignore[attr-defined]
        self.b = Builder(self.ir)
        self.b.safe = try_stmt.SAFE
        self.loops: list[tuple[Block, Block]] = []  # (continue target, break target)
        self.withs: list = []  # the `with` statements (WithFrame) and `finally` bodies (try_stmt.FinallyFrame) being lowered, outermost first
        self.try_targets: list = []  # where an exception raised here goes (try_stmt.TryTarget), innermost last
        self.handling: list[Value] = []  # the exceptions the `except` clauses being lowered handle (a bare `raise`)
        self.pending: list[list[Block]] = [[]]  # per scope, the joins its failure points go to (try_stmt.py)
        self.fail_points = 0  # failure points lowered so far (try_stmt.py)
        # A generator function: lowered as one collecting what it yields (generator_ops.py).
        self.generator = bool(fn.__code__.co_flags & inspect.CO_GENERATOR)
        self.gen_items: Optional[Value] = None
        self.gen_state: Optional[Value] = None
        self.scopes: list[dict[str, str]] = []  # comprehension scopes: name -> builder var
        self._temps = 0
        self._nested_seen: dict[tuple[str, int], int] = {}
        self.freevars = {v.name: v for v in self.ir.freevars}
        self.deleted: set[str] = set()  # names the function `del`s (del_stmt.py)
        local_names, self.nonlocals, self.globals_declared = _scope_names(node, src.text, self.deleted)
        self.locals = local_names - self.nonlocals - self.globals_declared
        self.cells: dict[str, Value] = {}
        self.captured = _captured_names(fn.__code__)
        self.cellnames = self.locals & self.captured
        self.comp_cells: dict[str, Value] = {}  # comprehension variables closures capture -> their cell
        self._comp_cells_made: dict[str, Value] = {}

    # ------------------------------------------------------------ helpers
    def loc_of(self, node: cst.CSTNode) -> Loc:
        line, col = self.src.where(node)
        return Loc(self.src.file, line, col, self.src.line_text(line).strip())

    def unsupported(self, node: cst.CSTNode, what: str) -> None:
        line, col = self.src.where(node)
        raise UnsupportedSyntaxError(what, self.src.file, line, col, self.src.line_text(line))

    def _resume_at(self, blk: Block) -> None:
        """Go on lowering at a join or loop exit; if nothing reaches it (every path returned,
        broke out or continued), what follows is unreachable, as Python would never run it."""
        self.b.seal(blk)
        if blk.preds:
            self.b.position_at(blk)
        else:
            self.b.block = None

    def _preheader(self) -> None:
        """Inside a `try`, the block entering a loop may be an empty arm of a guarded call's branch: kept
        (ir/builder.simplify_cfg), so the loop is entered from a block of its own and the CFG stays nested."""
        if self.b.guard is not None and self.b.block is not None:
            self.b.block.preheader = True  # type: ignore[attr-defined]

    def temp_var(self, kind: str) -> str:
        self._temps += 1
        return f"%{kind}{self._temps}"

    # ------------------------------------------------------------ entry
    def run(self) -> Function:
        node = self.src.node
        if isinstance(node, cst.FunctionDef) and node.asynchronous is not None:
            self.unsupported(node, "async function")
        if self.generator and isinstance(node, cst.Lambda):
            self.unsupported(node, "yield in a lambda")
        entry = self.b.new_block()
        self.b.seal(entry)
        self.b.position_at(entry)
        self.b.loc = self.ir.loc
        self._params(node.params)
        self.ir.local_names = set(self.locals)
        if self.deleted:
            del_stmt.bind_at_entry(self)
        if self.generator:
            self.gen_items = self.b.call(ops.list_of, [], hint="items")
            self.gen_state = self.b.call(generator_ops.snapshot, [self.ir.self_ref, *self.ir.params], hint="inputs")  # type: ignore[attr-defined]
        if isinstance(node, cst.Lambda):
            self.b.loc = self.loc_of(node.body)
            self.b.ret(self.expr(node.body))
        elif self.generator:
            generators.lower_body(self, node.body)
        else:
            self.body(node.body)
            if not self.b.terminated:
                self.b.ret(Const(None))
        self.b.finish()
        return self.ir

    def _params(self, params: cst.Parameters) -> None:
        groups = [
            (params.posonly_params, "POSITIONAL_ONLY"),
            (params.params, "POSITIONAL_OR_KEYWORD"),
        ]
        ordered: list[tuple[cst.Param, str]] = [(p, k) for ps, k in groups for p in ps]
        if isinstance(params.star_arg, cst.Param):
            ordered.append((params.star_arg, "VAR_POSITIONAL"))
        ordered += [(p, "KEYWORD_ONLY") for p in params.kwonly_params]
        if params.star_kwarg is not None:
            ordered.append((params.star_kwarg, "VAR_KEYWORD"))
        for cell in sorted(self.cellnames):
            self.cells[cell] = self.b.call(ops.new_cell, [], hint=f"{cell}_cell")
        for i, (p, kind) in enumerate(ordered):
            param = Param(p.name.value, i, kind)
            self.ir.params.append(param)
            self.assign_name(p.name.value, param)

    def _leave_for_jump(self, all_frames: bool) -> None:
        """with_stmt.leave_for_jump, where a `with` or a `finally` is being left (imported only then)."""
        if self.withs:
            from .with_stmt import leave_for_jump

            leave_for_jump(self, all_frames)

    # ------------------------------------------------------------ names
    def _var_key(self, name: str) -> Optional[str]:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return name if name in self.locals else None

    def read_name(self, name: str, node: cst.CSTNode) -> Value:
        key = self._var_key(name)
        if key is None:
            if name in self.freevars:
                return self.b.call(ops.cell_get, [self.freevars[name]], hint=name)
            self.ir.globals_read.add(name)
            return Global(name)
        if key == name and name in self.cells:
            if name in self.deleted:
                self.b.call(stmt_ops.check_cell, [self.cells[name], Const(name)])
            return self.b.call(ops.cell_get, [self.cells[name]], hint=name)
        if key in self.comp_cells:
            return self.b.call(ops.cell_get, [self.comp_cells[key]], hint=name)
        value = self.b.read(key)
        if key == name and name in self.deleted:
            return del_stmt.checked_read(self, name, value)
        if value is UNDEFINED:
            self.unsupported(node, f"name {name!r} may be used before it is assigned")
        return value

    def assign_name(self, name: str, value: Value, function_scope: bool = False) -> Value:
        if name in self.globals_declared and self._var_key(name) is None:
            if isinstance(value, Stmt) and value.hint == name:
                value.hint = None  # a local of that name would hide the global in generated code
            self.b.call(stmt_ops.store_global, [self.ir.self_ref, Const(name), value])  # type: ignore[attr-defined]
            return value
        if name in self.nonlocals and self._var_key(name) is None:
            self.b.call(ops.cell_set, [self.freevars[name], value])
            return value
        key = name if function_scope else (self._var_key(name) or name)
        if key == name and name in self.cells:
            self.b.call(ops.cell_set, [self.cells[name], value])
            return value
        if key in self.comp_cells:
            self.b.call(ops.cell_set, [self.comp_cells[key], value])
            return value
        if isinstance(value, Param) and value.name == name:
            self.b.write(key, value)
            return value
        if not isinstance(value, Stmt) or value in self.b.var_of or value.hint is not None and value.hint != name:
            # A second name for an existing value: an explicit copy keeps each
            # SSA value bound to one variable, so emitted names never clash.
            value = self.b.call(ops.identity, [value], hint=name)
        else:
            value.hint = name
        self.b.write(key, value)
        return value

    def assign(self, target: cst.BaseExpression, value: Value) -> None:
        if isinstance(target, cst.Name):
            self.assign_name(target.value, value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            self._unpack(target, value)
        elif isinstance(target, cst.Attribute):
            obj = self.expr(target.value)
            self.b.call(setattr, [obj, Const(target.attr.value), value])
        elif isinstance(target, cst.Subscript):
            obj = self.expr(target.value)
            self.b.call(operator.setitem, [obj, self.index(target), value])
        else:
            self.unsupported(target, f"assignment to {type(target).__name__}")

    def _unpack(self, target: Union[cst.Tuple, cst.List], value: Value) -> None:
        elts = [e for e in target.elements]
        stars = [i for i, e in enumerate(elts) if isinstance(e, cst.StarredElement)]
        if not stars:
            items = self.b.call(ops.unpack, [value, Const(len(elts))])
        else:
            i = stars[0]
            items = self.b.call(ops.unpack_star, [value, Const(i), Const(len(elts) - i - 1)])
        for k, e in enumerate(elts):
            with self.b.unguarded():  # (within the length unpack checked)
                item = self.b.call(operator.getitem, [items, Const(k)])
            self.assign(e.value, item)

    # ------------------------------------------------------------ statements
    def body(self, body: Union[cst.BaseSuite, list]) -> None:
        stmts = body.body if isinstance(body, (cst.IndentedBlock, cst.SimpleStatementSuite)) else body
        try_stmt.open_scope(self)
        self._statements(stmts)
        try_stmt.close_scope(self)

    def _statements(self, stmts) -> None:
        for s in stmts:
            if self.b.terminated:
                return  # unreachable code after return/break/continue/raise
            if isinstance(s, cst.SimpleStatementLine):
                for small in s.body:
                    if self.b.terminated:
                        return
                    self.b.loc = self.loc_of(small)
                    self.small(small)
            else:
                self.b.loc = self.loc_of(s)
                since = self.fail_points
                self.compound(s)
                try_stmt.on_failure(self, since)  # an exception raised inside goes on: skip the rest

    def small(self, s: cst.BaseSmallStatement) -> None:
        method: Optional[Callable] = getattr(self, "stmt_" + type(s).__name__, None)
        if method is None:
            self.unsupported(s, _describe(s))
        method(s)  # type: ignore[misc]

    def compound(self, s: cst.BaseCompoundStatement) -> None:
        if getattr(s, "asynchronous", None) is not None:
            self.unsupported(s, "async")
        method: Optional[Callable] = getattr(self, "stmt_" + type(s).__name__, None)
        if method is None:
            self.unsupported(s, _describe(s))
        method(s)  # type: ignore[misc]

    def stmt_Expr(self, s: cst.Expr) -> None:
        if isinstance(s.value, cst.Yield) and self.generator:
            generators.lower_yield(self, s.value)
            return
        self.expr(s.value)

    def stmt_Pass(self, s: cst.Pass) -> None:
        pass

    def stmt_Assign(self, s: cst.Assign) -> None:
        value = self.expr(s.value)
        for t in s.targets:
            self.assign(t.target, value)

    def stmt_AnnAssign(self, s: cst.AnnAssign) -> None:
        if s.value is not None:
            self.assign(s.target, self.expr(s.value))

    def stmt_AugAssign(self, s: cst.AugAssign) -> None:
        op = AUGMENTED[type(s.operator)]
        t = s.target
        if isinstance(t, cst.Name):
            current = self.read_name(t.value, t)
            self.assign_name(t.value, self.b.call(op, [current, self.expr(s.value)], hint=t.value))
        elif isinstance(t, cst.Attribute):
            obj = self.expr(t.value)
            name = Const(t.attr.value)
            current = self.b.call(getattr, [obj, name])
            new = self.b.call(op, [current, self.expr(s.value)])
            self.b.call(setattr, [obj, name, new])
        elif isinstance(t, cst.Subscript):
            obj = self.expr(t.value)
            idx = self.index(t)
            current = self.b.call(operator.getitem, [obj, idx])
            new = self.b.call(op, [current, self.expr(s.value)])
            self.b.call(operator.setitem, [obj, idx, new])
        else:
            self.unsupported(t, "augmented assignment target")

    def stmt_Return(self, s: cst.Return) -> None:
        generators.refuse_return_value(self, s)
        value = self.expr(s.value) if s.value is not None else Const(None)
        self._leave_for_jump(all_frames=True)
        if not self.b.terminated:  # (a `finally` run on the way may have returned itself)
            self.b.ret(generators.returned(self, value))

    def stmt_Raise(self, s: cst.Raise) -> None:
        exc = self.expr(s.exc) if s.exc is not None else None
        if s.cause is not None and exc is not None:
            exc = self.b.call(stmt_ops.raise_from, [exc, self.expr(s.cause.item)])
        self.raise_value(exc)

    def raise_value(self, exc: Optional[Value]) -> None:
        """`raise exc` (None: a bare `raise`): into the innermost `try`, else out of the function."""
        if exc is None and self.handling:
            exc = self.handling[-1]  # a bare `raise` in a handler re-raises what it handles
        if exc is not None and self.try_targets:
            try_stmt.raise_value(self, exc)
            return
        if self.withs:
            from .with_stmt import leave_for_raise

            exc = leave_for_raise(self, exc)
        self.b.raise_(exc)

    def stmt_Assert(self, s: cst.Assert) -> None:
        cond = self.expr(s.test)
        ok, fail = self.b.new_block(), self.b.new_block()
        self.b.branch(cond, ok, fail)
        self.b.seal(fail)
        self.b.position_at(fail)
        msg = [self.expr(s.msg)] if s.msg is not None else []
        self.raise_value(self.b.call(ops.assert_failed, msg))
        self.b.seal(ok)
        self.b.position_at(ok)

    def stmt_Break(self, s: cst.Break) -> None:
        target = self.loops[-1][1]
        self._leave_for_jump(all_frames=False)
        self.b.goto(target)

    def stmt_Continue(self, s: cst.Continue) -> None:
        target = self.loops[-1][0]
        self._leave_for_jump(all_frames=False)
        self.b.goto(target)

    def stmt_Del(self, s: cst.Del) -> None:
        del_stmt.lower_del(self, s)

    def stmt_Import(self, s: cst.Import) -> None:
        imports.lower_import(self, s)

    def stmt_ImportFrom(self, s: cst.ImportFrom) -> None:
        imports.lower_import_from(self, s)  # (relative imports resolved against the function's package)

    # ------------------------------------------------------------ control flow
    def stmt_If(self, s: cst.If) -> None:
        # An elif chain is walked in a loop (each elif an If nested in the previous one's else),
        # so a chain of any length costs no Python stack; the joins close innermost first.
        joins = []
        node: cst.If = s
        while True:
            cond = self.expr(node.test)
            then, orelse, join = self.b.new_block(), self.b.new_block(), self.b.new_block()
            joins.append(join)
            self.b.branch(cond, then, orelse)
            self.b.seal(then)
            self.b.position_at(then)
            self.body(node.body)
            self.b.goto(join)
            self.b.seal(orelse)
            self.b.position_at(orelse)
            if not isinstance(node.orelse, cst.If):
                break
            self.b.loc = self.loc_of(node.orelse)
            node = node.orelse
            try_stmt.open_scope(self)  # (the elif's test is in the else arm: inside a `try`, its failures meet there)
        if isinstance(node.orelse, cst.Else):
            self.body(node.orelse.body)
        for level in reversed(range(len(joins))):
            self.b.goto(joins[level])
            self._resume_at(joins[level])
            if level:
                try_stmt.close_scope(self)

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
        self.for_loop(s.target, s.iter, lambda: self.body(s.body), s.orelse.body if s.orelse else None)

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
            # enumerate/zip of sequences: index each sequence in step, so every iteration reads
            # its elements when it runs (as Python's lazy iterators do), not up front.
            kind, seqs, start = parallel
            consumed = [generators.sequenced(q) for q, node in zip(seqs, self._parallel_nodes(iterable)) if generators.may_generate(node)]
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
            kind, seqs, start = parallel
            with self.b.unguarded():
                parts: list[Value] = [item] + [self.b.call(operator.getitem, [q, k]) for q in seqs[1:]]
            if kind == "enumerate":
                index = k if start is None else self.b.call(operator.add, [k, start])
                parts = [index, item]
            elts = target.elements if isinstance(target, (cst.Tuple, cst.List)) else None
            if elts is not None and len(elts) == len(parts) and not any(isinstance(e, cst.StarredElement) for e in elts):
                for e, v in zip(elts, parts):
                    self.assign(e.value, v)
            else:
                self.assign(target, self.b.call(ops.tuple_of, parts))
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

    def _parallel_nodes(self, iterable: cst.Call) -> list:
        args = [a.value for a in iterable.args if a.keyword is None]
        return args[:1] if isinstance(iterable.func, cst.Name) and iterable.func.value == "enumerate" else args

    def _parallel_iteration(self, iterable: cst.BaseExpression) -> Optional[tuple[str, list[Value], Optional[Value]]]:
        """`enumerate(xs[, start])` or `zip(xs, ys, ...)` of the builtins: ("enumerate"|"zip", the
        sequences (`ops.sequence` of each argument), the start or None); else None."""
        if not (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name)):
            return None
        name = iterable.func.value
        if name not in ("enumerate", "zip") or self._var_key(name) is not None or name in self.freevars:
            return None
        if name in self.pyfn.__globals__:
            return None  # the module defines its own
        args = iterable.args
        if any(a.star for a in args):
            return None
        start_node: Optional[cst.BaseExpression] = None
        strict: list = []  # zip's `strict=` argument
        if name == "enumerate":
            pos = [a for a in args if a.keyword is None]
            kw = [a for a in args if a.keyword is not None]
            if len(pos) == 2 and not kw:
                start_node = pos[1].value
            elif len(pos) == 1 and len(kw) == 1 and kw[0].keyword.value == "start":  # type: ignore[union-attr]
                start_node = kw[0].value
            elif not (len(pos) == 1 and not kw):
                return None
            items = [pos[0].value]
        else:
            strict = [a for a in args if a.keyword is not None]
            if len(strict) == len(args) or len(strict) > 1 or (strict and strict[0].keyword.value != "strict"):  # type: ignore[union-attr]
                return None  # zip() or other keywords: as written
            items = [a.value for a in args if a.keyword is None]
        values = [self.expr(x) for x in items]
        start = self.expr(start_node) if start_node is not None else None
        self.ir.globals_read.add(name)  # the derivative assumed the builtin: a module global of that name is a new key
        seqs = [self.b.call(ops.sequence, [v]) for v in values]
        if name == "zip" and strict:  # zip(..., strict=s): unequal lengths raise ValueError, checked before the loop
            self.b.call(stmt_ops.zip_strict, [self.expr(strict[0].value), *seqs])
        return name, seqs, start

    def comprehension(self, for_in: cst.CompFor, innermost: Callable[[], None]) -> None:
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

    # ------------------------------------------------------------ nested functions
    def stmt_FunctionDef(self, s: cst.FunctionDef) -> None:
        # Decorator expressions are evaluated first, then applied innermost first, as in Python.
        decorators = [self.expr(d.decorator) for d in s.decorators]
        fn = self.make_function(s, s.name.value)
        for d in reversed(decorators):
            fn = self.b.call(d, [fn], hint=s.name.value)
        self.assign_name(s.name.value, fn)

    def make_function(self, node: Union[cst.FunctionDef, cst.Lambda], name: str) -> Value:
        line, _ = self.src.where(node if isinstance(node, cst.Lambda) else node)
        if isinstance(node, cst.FunctionDef):
            line = self.src.where(node.decorators[0] if node.decorators else node)[0]
        nth = self._nested_seen.get((name, line), 0)
        self._nested_seen[(name, line)] = nth + 1
        code = self.b.call(ops.nested_code, [self.ir.self_ref, Const(name), Const(line), Const(nth)], hint=f"{name if name.isidentifier() else 'lambda'}_code")  # type: ignore[attr-defined]
        params = node.params
        defaults = [self.expr(p.default) for p in (*params.posonly_params, *params.params) if p.default is not None]
        kwdefaults: list[Value] = []
        for p in params.kwonly_params:
            if p.default is not None:
                kwdefaults += [Const(p.name.value), self.expr(p.default)]
        code_obj = ops.nested_code(self.pyfn, name, line, nth)
        closure = [self._cell_for(v) for v in code_obj.co_freevars]
        cells = self.b.call(ops.tuple_of, closure)
        cells.closure_of = True  # type: ignore[attr-defined]  # (reverse/settle_types.closed_cells)
        args = [
            code,
            self.ir.self_ref,  # type: ignore[attr-defined]
            self.b.call(ops.tuple_of, defaults),
            self.b.call(ops.dict_of, kwdefaults),
            cells,
        ]
        made = self.b.call(ops.make_function, args, hint=name if name != "<lambda>" else "lam")
        made.code_object = code_obj  # type: ignore[attr-defined]  # (reverse/call_types.local_function types its calls)
        return made

    def _cell_for(self, name: str) -> Value:
        key = self._var_key(name)
        if key is not None and key in self.comp_cells:
            return self.comp_cells[key]
        if name in self.cells:
            return self.cells[name]
        if name in self.freevars:
            return self.freevars[name]
        raise AssertionError(f"free variable {name!r} of a nested function is not a cell here")

    def stmt_Match(self, s: cst.Match) -> None:
        if self.try_targets:
            self.unsupported(s, "a match statement inside a try statement (move the match into a helper function)")
        from .match import lower_match  # (imported by the first `match` statement: most functions have none)

        lower_match(self, s)

    def stmt_With(self, s: cst.With) -> None:
        from .with_stmt import lower_with  # (imported by the first `with` statement)

        lower_with(self, s)

    def stmt_Try(self, s: cst.Try) -> None:
        try_stmt.lower_try(self, s)

    def stmt_Global(self, s: cst.Global) -> None:
        pass  # the names were made module-global writes when the scope was analysed (stmt_ops.store_global)

    def stmt_Nonlocal(self, s: cst.Nonlocal) -> None:
        pass  # the names were made cell writes when the scope was analysed


def _describe(s: cst.CSTNode) -> str:
    names = {
        "Try": "try statement", "TryStar": "try/except* statement", "With": "with statement",
        "ClassDef": "class definition inside a function", "Match": "match statement",
    }
    return names.get(type(s).__name__, f"{type(s).__name__} statement")


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


def _target_names(t: cst.BaseExpression) -> list[str]:
    if isinstance(t, cst.Name):
        return [t.value]
    if isinstance(t, (cst.Tuple, cst.List)):
        return [n for e in t.elements for n in _target_names(e.value)]
    if isinstance(t, cst.StarredElement):
        return _target_names(t.value)
    return []


class _LocalNames(cst.CSTVisitor):
    """Names bound in a function's own scope (not in nested functions or comprehensions)."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.nonlocal_names: set[str] = set()  # declared `nonlocal` in this scope
        self.global_names: set[str] = set()  # declared `global` in this scope
        self.deleted: set[str] = set()  # names `del` unbinds in this scope (del_stmt.py)
        self.depth = 0

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.nonlocal_names.update(a.name.value for a in node.names)

    def visit_Global(self, node: cst.Global) -> None:
        self.global_names.update(a.name.value for a in node.names)

    def visit_Del(self, node: cst.Del) -> None:
        from .del_stmt import deleted_targets

        names = deleted_targets(node.target)
        self.names.update(names)  # (`del x` makes x local, as an assignment does)
        self.deleted.update(names)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.names.update(_target_names(node.asname.name))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if self.depth:
            self.names.add(node.name.value)
            return False
        self.depth += 1
        return True

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        if self.depth:
            return False
        self.depth += 1
        return True

    def visit_Param(self, node: cst.Param) -> None:
        self.names.add(node.name.value)

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.names.add(node.name.value)
        return False

    def visit_CompFor(self, node: cst.CompFor) -> None:
        pass  # comprehension targets are local to the comprehension

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.names.update(_target_names(node.target))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.names.update(_target_names(node.target))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.names.update(_target_names(node.target))

    def visit_For(self, node: cst.For) -> None:
        self.names.update(_target_names(node.target))

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.names.update(_target_names(node.target))

    def visit_MatchCase(self, node: cst.MatchCase) -> None:
        from .match import bound_names

        self.names.update(bound_names(node.pattern))

    def visit_Import(self, node: cst.Import) -> None:
        for a in node.names:
            self.names.add(a.asname.name.value if a.asname else cst.Module([]).code_for_node(a.name).split(".")[0])  # type: ignore[union-attr]

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if not isinstance(node.names, cst.ImportStar):
            for a in node.names:
                self.names.add(a.asname.name.value if a.asname else a.name.value)  # type: ignore[union-attr]


def _scope_names(node: Union[cst.FunctionDef, cst.Lambda], text: Optional[str] = None,
                 deleted: Optional[set] = None) -> tuple[set[str], set[str], set[str]]:
    """(names bound in the function's own scope, names it declares nonlocal, names it declares
    global), and the names it deletes added to `deleted`: one walk of its tree.  Inside an
    expression only `:=` binds a name of this scope (a lambda's and a comprehension's own names
    are theirs), so where the function's text has none, the walk leaves expressions out: two
    thirds of the nodes of a numeric function."""
    v = _LocalNames()
    v.depth = 1
    prune = cst.BaseExpression if text is not None and ":=" not in text else None
    walk(node.params, v, prune)  # (source.walk: libcst's own walk copies every node it passes)
    walk(node.body, v, prune)
    if deleted is not None:
        deleted.update(v.deleted)
    return v.names, v.nonlocal_names, v.global_names


def _captured_names(code: types.CodeType) -> set[str]:
    """Names that nested functions (not comprehensions, which we inline) take from this scope."""
    out: set[str] = set()
    for c in ops._walk_code(code):
        if c.co_name.startswith("<") and c.co_name != "<lambda>":
            continue
        out.update(c.co_freevars)
    return out
