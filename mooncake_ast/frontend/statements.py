"""Lowering of a function's statements into basic blocks (expressions.py: expressions; loops.py: loops
and comprehensions; scopes.py: which names are local; try_stmt.py, with_stmt.py, match.py, ...: those
statements).

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
from ..ir.nodes import Block, Const, FreeVar, Function, Global, Loc, Param, Stmt, Value
from .expressions import AUGMENTED, ExpressionLowering
from .loops import LoopLowering
from . import generator_ops, generators, global_writes, try_stmt
from ..lazy_imports import lazy_module
del_stmt = lazy_module(globals(), ".del_stmt")  # (`del` and `import` inside a function: imported when lowered)
imports = lazy_module(globals(), ".imports")
from . import callback_effects, function_attributes, lazy_values, overlapping_writes, stmt_ops
from .scopes import _captured_names, _scope_names
from .source import FunctionSource, function_source


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


class Lowering(LoopLowering, ExpressionLowering):
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
        if isinstance(node, cst.FunctionDef) and not self.src.line_text(1).startswith("# mooncake_ast-key"):
            # (the user's code only: generated code differentiated again holds what was checked at first order)
            lazy_values.check(self, node)  # (iterators and views read after what may change them: refused)
            overlapping_writes.check(self, node)  # (`b[::2] = b[:3]`: refused)
            function_attributes.check(self, node)  # (`h.k = x` of a function h: refused)
            callback_effects.check(self, node)  # (`map(h, a)` of an h that writes what it captures)
        entry = self.b.new_block()
        self.b.seal(entry)
        self.b.position_at(entry)
        self.b.loc = self.ir.loc
        self._params(node.params)
        global_writes.enter(self)
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
            if name in self.globals_declared:
                return global_writes.read_declared(self, name)
            return global_writes.read_module_global(self, name)
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
            global_writes.write(self, name, value)
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
            name = global_writes.globals_item(self, target)
            if name is not None:  # `globals()["N"] = v`: as `global N; N = v` (global_ops.store_global)
                global_writes.write(self, name, value, track=name in self.globals_declared)
                return
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
            value = self.expr(s.value)
            if op is operator.iadd and _makes_iterator(s.value):
                # `lst += map(...)`: what += takes from an iterator is its items; as a list, both modes' rules for
                # list `+=` apply (an iterator's tangent or adjoint is no list to add)
                value = self.b.call(list, [value])
            self.assign_name(t.value, self.b.call(op, [current, value], hint=t.value))
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

    def stmt_ClassDef(self, s: cst.ClassDef) -> None:
        from .local_classes import lower_class  # (imported by the first local class)

        lower_class(self, s)

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
        pass  # the names were made module-global writes when the scope was analysed (global_writes.py)

    def stmt_Nonlocal(self, s: cst.Nonlocal) -> None:
        pass  # the names were made cell writes when the scope was analysed


def _describe(s: cst.CSTNode) -> str:
    names = {
        "Try": "try statement", "TryStar": "try/except* statement", "With": "with statement",
        "ClassDef": "class definition inside a function", "Match": "match statement",
    }
    return names.get(type(s).__name__, f"{type(s).__name__} statement")


_ITERATOR_MAKERS = frozenset({"map", "filter", "zip", "reversed", "iter", "enumerate"})


def _makes_iterator(e: cst.BaseExpression) -> bool:
    """Is e, as written, an iterator (a generator expression, `map(...)`, `zip(...)`, ...)?"""
    return isinstance(e, cst.GeneratorExp) or (isinstance(e, cst.Call) and isinstance(e.func, cst.Name)
                                               and e.func.value in _ITERATOR_MAKERS)
