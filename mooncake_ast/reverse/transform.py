"""Reverse mode (seed 001, DESIGN.md §4-5): a forward pass that records, a pullback that replays backwards.

The primal CFG is first seen as regions (ir/regions.py).  The pullback is a
new IR function built with the SSA builder by walking those regions
backwards; adjoints are builder variables, so joins and loops get their
phis for free, and the structured emitter prints the result:

* a statement becomes its rule's reverse template (`x_bar = x_bar + g * y`),
  or the pullback returned by a run-time dispatched call (`rcall`);
* an `if` is reversed by testing the condition recorded in the forward pass;
* a loop by `for _ in range(count)` over its reversed body, with `count`
  recorded when the loop ended; a path that left an iteration or the loop
  early (`continue`, `break`, `return`) is found again from recorded flags,
  so each reversed iteration undoes exactly the statements that ran;
* a phi becomes adjoint transfers on the edge it came in by.

What the pullback reads of the forward pass is recorded block by block: once
(in the tape) for blocks that run once, on a per-block stack inside loops.
Only values a reverse template actually uses are recorded.
"""
from __future__ import annotations

import operator
import sys

import numpy as np
from typing import Any, Optional

from .. import ops
from ..forward.activity import Activity, read_shared_through_items
from ..forward.object_iteration import read_items_first
from ..forward.resolver import StaticResolver
from ..ir.analysis import dominators
from ..ir.builder import UNDEFINED, Builder
from ..ir.types import INT, UNKNOWN, Lst, Num, Tup, decode, differentiable, is_float_array, is_real, type_of_argument
from ..ir.nodes import Block, Call, Const, FreeVar, Function, Global, Param, Phi, Return, Stmt, Value
from ..ir.smooth_squares import smooth_kink_squares
from ..ir.ufunc_out import single_out_tuples
from ..rules.registry import zero_derivative
from ..ir.regions import build_regions
from . import adjoints as adj
from . import (buffer_webs, buffers, call_types, constant_args, local_dicts, object_fields, prepare, row_lists, scalar_objects,
               settle_types, shadows, typed_dicts, typed_lists, view_reads, unbound, written_params)
from .plainer import make_plainer
from .cleanup import NUM_ZERO, ZERO, fold_zero_additions, remove_redundant_phis, substitute
from .cleanup import is_zero as _is_zero
from .param_adjoints import give_back
from .spread import Spreads
from .prepare import hashable as _hashable
from .control_reverse import ControlReverse
from .placeholders import _primal_ref, _stack_ref, anchor  # noqa: F401  (record.py and local_lists.py read them here)
from .statement_reverse import ReverseUnsupported, StatementReverse  # noqa: F401  (raised by callers, tests)


class ReverseTransform(StatementReverse, ControlReverse):
    def __init__(self, ir: Function, user_globals: dict, param_kinds: dict[str, str], not_dense: frozenset = frozenset(),
                 quiet: tuple = ()) -> None:
        self.ir = ir
        # Items of the returned tuples that the caller gives no adjoint (rcall's `quiet`): their adjoints stay the
        # symbolic zero here, never 0.0 times a partial derivative that may be infinite.
        self.quiet = frozenset(quiet)
        self.returned_tuples = {b.term.value for b in ir.blocks if isinstance(b.term, Return)
                                and isinstance(b.term.value, Call) and b.term.value.callee() is ops.tuple_of}
        self.quiet_of: dict = {}  # dispatched call -> positions of its tuple result this function never reads
        self.number_calls: set = set()  # dispatched calls of numbers whose pullback gives numbers (number_calls.py)
        _modules_as_constants(ir, param_kinds)
        # Adjoint variables (by creation order) whose loop phis were assumed real and turned out not to be.
        self.not_dense = not_dense
        self.assumed_dense: dict = {}  # phi -> its variable's number
        self.var_number: dict[str, int] = {}
        inactive_names = {k for k, v in param_kinds.items() if v.endswith(":inactive")}
        param_kinds_in = dict(param_kinds)
        # (constant data, reverse/constant_args.py: its adjoint still goes back through `take`, the caller's structure)
        self.constant_params = {k for k, v in param_kinds.items() if constant_args.is_constant_kind(v)}
        self.param_types = {k: decode(v, k) for k, v in param_kinds.items()}
        param_kinds = {k: v.split(":")[0] for k, v in param_kinds.items()}
        self.param_kinds = param_kinds
        self.resolver = StaticResolver(user_globals)
        single_out_tuples(ir, self.resolver.raw_resolve, zero_derivative)
        smooth_kink_squares(ir, self.resolver.raw_resolve)  # (norm(x) ** 2 and kin: ir/smooth_squares.py)
        # Small helpers and methods of the function's own objects, in line (inline.py): names they were read by.
        self.inlined_bindings: dict = {}
        make_plainer(ir, user_globals, self.inlined_bindings,
                     frozenset(k for k, t in self.param_types.items() if isinstance(t, Num)))
        read_items_first(ir, self.resolver)  # (`sum(b)` of an object with `__iter__`: its items, differentiated)
        prepare.deletes_as_pops(self)
        prepare.global_numbers_read_once(ir, user_globals)
        self.types = settle_types.settle(self, ir, user_globals)
        scalar_objects.drop_dead_arithmetic(ir, self.type_of)
        self.uses_self = bool(ir.freevars) or any(ir.self_ref in s.operands() for b in ir.blocks for s in b.stmts)  # type: ignore[attr-defined]
        # The function object has an adjoint (its cells') only if it has cells or is read other than for the code
        # and globals of the functions it defines (`lambda` and `def` inside it: ops.nested_code, make_function).
        self_active = bool(ir.freevars) or any(ir.self_ref in _data_operands(s) for b in ir.blocks for s in b.stmts)  # type: ignore[attr-defined]
        # Calls of user functions that write nothing and return a new value: their results are objects of their own.
        self.fresh_calls = {st: callee for st, (callee, _) in self.typed_calls.items()
                            if call_types.returns_fresh(callee, st, [self.type_of(a) for a in st.args])}
        inactive = frozenset(p for p in ir.params if p.name in inactive_names)
        self.act = Activity(ir, self._activity_rule, self_active, inactive=inactive, user_globals=self.resolver.g,
                            is_sequence=self._is_sequence)
        if read_shared_through_items(ir, self.act, self.resolver.g):  # (module-level state read by its bare name)
            self.types = self._infer(ir)
            self.act = Activity(ir, self._activity_rule, self_active, inactive=inactive, user_globals=self.resolver.g,
                                is_sequence=self._is_sequence)
        if constant_args.unsafe(self, inactive, param_kinds_in):  # (a constant argument may be written after all)
            inactive = frozenset(p for p in inactive if not constant_args.is_constant_kind(param_kinds_in[p.name]))
            self.act = Activity(ir, self._activity_rule, self_active, inactive=inactive, user_globals=self.resolver.g,
                                is_sequence=self._is_sequence)
        self.untyped_lists = constant_args.lists_reached_outside(self, param_kinds_in)  # (generate.py types again)
        self.dense_values: set = set()  # pullback values certainly real (never the symbolic zero) when it runs
        self.spreads = Spreads(self)  # scalar adjoints standing for arrays (spread.py)
        returned = [b.term.value for b in ir.blocks if isinstance(b.term, Return)]
        self.result_real = bool(returned) and all(is_real(self.type_of(v)) for v in returned)
        self.regions = build_regions(ir)
        dom = dominators(ir)
        returns = [b for b in ir.blocks if isinstance(b.term, Return)]
        self.in_loop: set[Block] = set()
        prepare.mark_loops(self, self.regions, False)
        self.top = {b for b in ir.blocks if b not in self.in_loop and all(b in dom[r] for r in returns)}
        self.home: dict[Value, Block] = {}
        for b in ir.blocks:
            for s in [*b.phis, *b.stmts]:
                self.home[s] = b
        self.maybe_unbound = unbound.maybe_unbound(ir)
        self.buffers: set = buffers.find_buffers(self)
        self.buffer_webs: dict = buffer_webs.find(self, buffers.uses_of(self))  # (loop-carried buffers)
        self.buffers |= set(self.buffer_webs)
        self.web_pending: dict = {}  # a trip's last block -> web phis whose zero adjoints start there
        self.view_reads: set = {s for s in view_reads.find(self) if buffers.root_of(self, s.args[0]) is None}
        self.typed_dicts: set = typed_dicts.find_typed_dicts(self)
        self.typed_lists: dict = typed_lists.find_typed_lists(self)  # the list or its loop sequence -> the list
        self.local_dicts: set = local_dicts.find(self)  # dicts of floats whose adjoints are plain dicts
        self.item_vars: dict = {}
        self.field_objects, self.field_method_calls = object_fields.find(self)
        self.chain_of: dict = written_params.find(self)  # states of parameters updated in place -> the parameter
        while True:
            while True:
                self.stored = prepare.storage_backed(self)
                reached = {r for r in self.buffers | self.typed_dicts | set(self.typed_lists.values())
                           | self.field_objects | self.local_dicts if r in self.stored} | \
                    object_fields.arrays_reached(self) | {p for m, p in self.chain_of.items() if m in self.stored}
                if not reached:
                    break
                self.field_objects -= reached
                self.field_method_calls = {c: p for c, p in self.field_method_calls.items() if p in self.field_objects}
                self.buffers -= reached  # something else can reach it after all: identity-keyed storage
                self.buffers -= {m for m, web in self.buffer_webs.items() if not web <= self.buffers}
                self.buffer_webs = {m: web for m, web in self.buffer_webs.items() if m in self.buffers}
                self.typed_dicts = {v for v in self.typed_dicts
                                    if typed_dicts.root(self, v) not in reached and v not in reached}
                self.typed_lists = {v: p for v, p in self.typed_lists.items() if p not in reached}
                self.local_dicts = local_dicts.keep(self, self.local_dicts - reached)
                self.chain_of = {m: p for m, p in self.chain_of.items() if p not in reached}
            self.useful = prepare.useful(self)
            if not written_params.drop_inactive(self):
                break
        # Float-array parameters whose adjoints collect contributions inside loops: a zero array from the
        # start, added into in place (what a person writes), so the loop's adjoint is always an array.
        in_loops = {o for b in self.in_loop for st in b.stmts for o in st.operands()}
        self.accumulators = {p for p in ir.params if p in in_loops and self._local_param(p)
                             and is_float_array(self.type_of(p))} - self.buffers - set(self.chain_of.values())
        # The pullback under construction.
        self.rev = Function(f"{ir.name}__pullback", [], [], ir.loc)
        self.b = Builder(self.rev)
        self.y_bar = Param("y_bar", 0)
        self.y_bar.hint = None
        self.tape = Param("tape", 1)
        self.tape.hint = "tape"
        self.rev.params = [self.y_bar, self.tape]
        self.adjoint_of: dict[Value, Value] = {}
        self.adj_vars: dict[str, Value] = {}
        # Records: forward block -> primal values its reverse reads (in order), and the placeholders.
        self.needs: dict[Block, list[Value]] = {}
        self.refs: dict[Block, list[Call]] = {}
        self.global_refs: dict[Value, Call] = {}
        self.cur: Any = None  # the forward block (or (site, block)) being reversed
        self.dispatched: dict[Call, Call] = {}  # forward statement -> its rcall
        self.saves: dict[Call, Call] = {}  # forward write -> the statement saving what it overwrites
        self.anchored: set = set()
        self.edge_records: dict[tuple, list[Value]] = {}  # (src, dst) -> values recorded when the edge is taken
        self.unbound_records: set = set()  # of those, values some path brings to their edge unassigned
        self._keyed_stacks: dict[tuple, Call] = {}
        self.walked_items: dict[Value, Value] = {}  # a primal loop's item -> the pullback loop's (walked_loops.py)
        self.walked_ranges: dict[Block, Value] = {}  # the header of such a loop -> the range it walks
        self.attrs: dict[tuple, Call] = {}  # (primal, "shape"/"size"/"ndim") -> its forward statement (primal_attr)
        self._active_memo: dict = {}  # region id -> (region, has an adjoint to move)
        self._exit_memo: dict = {}  # region id -> (region, kinds of its exits: prepare.exit_kinds)

    def _infer(self, ir: Function) -> dict:
        return settle_types.infer(self, ir)

    def _activity_rule(self, s: Call) -> tuple:
        """The callee and rule activity analysis sees: a fresh user call's result shares nothing with its arguments."""
        callee = self.fresh_calls.get(s)
        return (callee, call_types.FRESH_CALL) if callee is not None else self.resolver.callee(s)

    def _constant(self, v: Value) -> Any:
        """What a module attribute (`math.pi`) denotes, for types; LookupError when it is not one."""
        out = self.resolver.resolve(v)
        if out is self.resolver._NOTHING:
            raise LookupError(v)
        return out

    def _by_storage(self, v: Value) -> bool:
        """Is v's adjoint (possibly) kept in identity-keyed storage rather than in a local variable?"""
        return not self.is_num(v) and (v in self.stored or (isinstance(v, (Param, FreeVar)) and not self._local_param(v)))

    def param_is_typed(self, v: Param) -> bool:
        return is_real(self.param_types.get(v.name, UNKNOWN))

    def _local_param(self, v: Value) -> bool:
        """A float or float-array parameter the call cannot alias (reverse/argument_kinds.kinds_of checked) and this
        function neither writes nor views: its adjoint is a local variable like any value's."""
        return isinstance(v, Param) and self.param_is_typed(v) and v not in self.stored

    def type_of(self, v: Value) -> Any:
        """The abstract value (ir/types.py) of a primal value."""
        if isinstance(v, Param):
            return self.param_types.get(v.name, UNKNOWN)
        if isinstance(v, Const):
            return type_of_argument(v.value)
        return self.types.get(v, UNKNOWN)

    def is_dense(self, g: Value) -> bool:
        """Is the pullback value g certainly a real number or array (never the symbolic zero)?

        A loop's adjoint phi is not complete when the loop body is generated, so a phi of a real-typed
        value's adjoint is assumed real; `unproven_dense` checks every assumption once the pullback
        is built, and the generator builds it again without the ones that failed.
        """
        if g in self.dense_values or (g is self.y_bar and self.result_real):
            return True
        if isinstance(g, Phi):
            var = self.b.var_of.get(g)
            primal = self.adj_vars.get(var) if var is not None else None
            if primal is not None and self.is_num(primal) or var is not None and var in self.item_vars and \
                    object_fields.is_field_var(var):
                return True  # (a number's adjoint variable only ever holds numbers: accumulate sees to it)
            if primal is not None and is_float_array(self.type_of(primal)) and self.var_number[var] not in self.not_dense:
                self.assumed_dense[g] = self.var_number[var]
                return True
            if var is not None and var in self.var_number and object_fields.is_dense_array_var(var) and \
                    self.var_number[var] not in self.not_dense:
                self.assumed_dense[g] = self.var_number[var]  # (an array field's variable: object_fields.start_dense)
                return True
        return False

    def unproven_dense(self) -> set:
        """The variables whose phis `is_dense` assumed real but which may be the symbolic zero after all."""
        if not self.assumed_dense:
            return set()
        live = {p for blk in self.rev.blocks for p in blk.phis}

        def dense(v: Value, assumed: set, depth: int = 0) -> bool:
            v = self.b.resolve(v)
            if v in self.dense_values or (v is self.y_bar and self.result_real):
                return True
            if isinstance(v, Phi) and v not in live and depth < 8:
                # (a trivial phi the builder took out of its block, `phi(x, itself)`: it is x)
                others = {id(w): w for w in map(self.b.resolve, v.incoming.values()) if w is not v}
                return len(others) == 1 and dense(next(iter(others.values())), assumed, depth + 1)
            return isinstance(v, Phi) and v in live and v in assumed

        # (every live phi is a candidate, not only those assumed: a loop's adjoint reaches its header through
        # the phis joining the body's paths, `total = total + w * a`, which no reader asked about; the greatest set
        # is still sound: by induction over the run, each value a phi of it takes came from a real value)
        assumed = set(live)
        changed = True
        while changed:  # the greatest set of phis all of whose inputs are real
            changed = False
            for p in list(assumed):
                if not all(dense(v, assumed) for v in p.incoming.values()):
                    assumed.discard(p)
                    changed = True
        return {n for p, n in self.assumed_dense.items() if not dense(p, assumed)}

    # ------------------------------------------------------------ adjoint variables
    def _var(self, v: Value) -> str:
        v = self.chain_of.get(v, v)  # (the states of a parameter updated in place share one: written_params.py)
        var = f"%adj{id(v)}"
        if var not in self.adj_vars:
            self.adj_vars[var] = v
            self.var_number[var] = len(self.var_number)
            # Defined (as zero) from the entry on, so reads inside loops get their phis.
            self.b.write(var, self.zero(v), self.rev.entry)
        return var

    def zero(self, v: Value) -> Const:
        """The zero adjoint of v: 0.0 for numbers (readable, fast), the symbolic zero otherwise."""
        return NUM_ZERO if self.is_num(v) else ZERO

    def _is_sequence(self, v: Value) -> bool:
        """Is v a list or tuple (its inferred type): `+` and `*` of it make a new sequence of the same items."""
        return isinstance(self.type_of(v), (Lst, Tup))

    def active(self, v: Value) -> bool:
        """Has v an adjoint to compute: does it depend on the inputs and influence the result?"""
        return (v in self.act.active and v in self.useful and not isinstance(v, (Const, Global))
                and differentiable(self.type_of(v)))

    def is_num(self, v: Value) -> bool:
        """Is v certainly a number (a Python or NumPy scalar: immutable, its adjoint plain arithmetic) when the code
        runs?  A parameter by its kind, any other value by its inferred type (ir/inference.py)."""
        if isinstance(v, Param):
            return self.param_kinds.get(v.name) == "num"
        return isinstance(self.types.get(v, UNKNOWN), Num)

    def read_adj(self, v: Value) -> Value:
        val = self.b.read(self._var(v))
        return self.zero(v) if val is UNDEFINED else val

    def write_adj(self, v: Value, value: Value) -> None:
        self.b.write(self._var(v), value)
        if isinstance(value, Stmt) and value not in self.adjoint_of:
            self.adjoint_of[value] = v

    def accumulate(self, v: Value, g: Optional[Value]) -> None:
        """v_bar += g (into v's shadow storage when v turns out to be mutable)."""
        if g is None or not self.active(v):
            return
        if v in self.typed_lists or row_lists.row_of(self, v) is not None:  # (a reader of a whole list: `sum(xs)`)
            (typed_lists.add_whole if v in self.typed_lists else row_lists.add_whole)(
                self, self.typed_lists.get(v, v), self.spreads.materialize(g))
            return
        cur = self.read_adj(v)
        spreads = self.spreads
        if v in self.buffers or v in self.accumulators:  # an array adjoint of our own, added into in place
            # (`x_bar += g` broadcasts a spread g in)
            new = self.b.call(operator.iadd if self.is_dense(g) else adj.add_into_buffer, [cur, g])
            self.dense_values.add(new)
        elif self.is_num(v):
            g = spreads.materialize(g)
            if _is_zero(cur) and not self.is_dense(g):
                # A number's adjoint is a number (templates of numbers rely on it); `cur + g` is one already.
                g = self.b.call(adj.number_adjoint, [g])
                self.dense_values.add(g)
            new = g if _is_zero(cur) else self.b.call(operator.add, [cur, g])
        elif v not in self.stored and (not isinstance(v, (Param, FreeVar)) or self._local_param(v)):
            if spreads.of(g) is not None and not spreads.keeps(v):
                g = spreads.materialize(g)
            if _is_zero(cur) or getattr(g, "sole_pieces", False):
                new = g  # a plain value: no storage (specialise._pieces: the display's whole adjoint)
                if spreads.of(g) is not None:
                    spreads.mark(g, v)
            elif is_real(self.type_of(v)) and self.is_dense(g):
                new = self.b.call(operator.add, [cur, g])  # (the symbolic zero + g is g: real either way)
                self.dense_values.add(new)
                if spreads.of(cur) is not None and spreads.of(g) is not None:
                    spreads.mark(new, v)
            else:
                new = self.b.call(adj.accumulate, [spreads.materialize(cur), g])
        else:
            new = self.b.call(shadows.acc, [self.primal(v), cur, spreads.materialize(g)])
        self.write_adj(v, new)

    def take_adj(self, v: Value, keep_spread: bool = False) -> Optional[Value]:
        """The adjoint of v, consumed by the reverse of v's definition (reset to zero for loops).

        A number with no contribution so far has a zero adjoint, known statically.  Anything else
        may have collected contributions through an alias (a view, a list slot, a callee), so its
        adjoint is read when the pullback runs.  A spread adjoint (spread.py) is handed on as the
        scalar only to a reader that says it broadcasts it (`keep_spread`).
        """
        cur = self.read_adj(v)
        if self.is_num(v):
            if _is_zero(cur):
                return None
            self.b.write(self._var(v), self.zero(v))
            return cur
        if v not in self.stored and (not isinstance(v, (Param, FreeVar)) or self._local_param(v)):
            if _is_zero(cur):
                return None
            self.b.write(self._var(v), self.zero(v))
            return cur if keep_spread else self.spreads.materialize(cur)
        g = self.b.call(shadows.take, [self.primal(v), cur])
        self.b.write(self._var(v), self.zero(v))
        return g

    # ------------------------------------------------------------ primal values in the pullback
    def primal(self, v: Value) -> Value:
        if isinstance(v, (Const, Global)):
            return v
        home = self.home.get(v)
        if v in self.maybe_unbound or (self.cur is not None and self.cur in self.top):
            # Read in a block every run passes once: v holds there the value it has at the returns
            # (a loop's last value read after the loop), so the tape takes it at the return and
            # the whole pullback can read it -- also the branch that undoes that block's test.
            # A variable assigned on some paths only is bound wherever it is read (the primal raised
            # otherwise), so it is recorded there, never at a return it may not reach bound.
            home = self.cur
        if isinstance(v, (Param, FreeVar)) or home in self.top:
            ref = self.global_refs.get(v)
            if ref is None:
                ref = Call(Const(_primal_ref), [Const(v)], hint=v.hint)
                ref.primal = v  # type: ignore[attr-defined]
                self.global_refs[v] = ref
            return ref
        assert self.cur is not None
        for r in self.refs.setdefault(self.cur, []):
            if r.args[0].value is v:  # type: ignore[union-attr]
                return r
        ref = self.b.call(_primal_ref, [Const(v)], hint=v.hint if v.hint and not v.hint.startswith("%") else None)
        ref.primal = v  # type: ignore[attr-defined]
        self.refs[self.cur].append(ref)
        return ref

    def primal_attr(self, v: Value, attr: str) -> Value:
        """`v.shape` (size, ndim) in the pullback: computed in the forward pass next to v and recorded, so the
        tape keeps a few ints, not v's array, when that is all the pullback reads of v (record.finalize
        places the statement; a parameter is on the tape anyway).  A variable some path leaves unassigned is
        recorded where it is read instead (see primal), the attribute taken there."""
        if not isinstance(v, Stmt) or v not in self.home or v in self.maybe_unbound or v in self._reshaped():
            return self.b.call(getattr, [self.primal(v), Const(attr)])  # (`a.shape = ...` later: read it here)
        a = self.attrs.get((v, attr))
        if a is None:
            named = v.hint and not v.hint.startswith("%")
            a = self.attrs[(v, attr)] = Call(Const(getattr), [v, Const(attr)], hint=f"{v.hint}_{attr}" if named else attr,
                                             loc=v.loc)
            self.home[a] = self.home[v]
            self.types[a] = INT if attr in ("size", "ndim") else UNKNOWN
        return self.primal(a)

    def _reshaped(self) -> set:
        """The values whose shape the function sets in place (`a.shape = (2, 3)`): their shape is not the one
        they were made with."""
        found = getattr(self, "_reshaped_values", None)
        if found is None:
            found = self._reshaped_values = {
                st.args[0] for b in self.ir.blocks for st in b.stmts if isinstance(st, Call) and
                st.callee() is setattr and len(st.args) == 3 and isinstance(st.args[1], Const) and
                st.args[1].value == "shape"}
        return found

    # ------------------------------------------------------------ the walk
    def run(self) -> None:
        self.resolver.bindings.update(self.inlined_bindings)
        entry = self.b.new_block()
        self.b.seal(entry)
        self.b.position_at(entry)
        self.b.loc = self.ir.loc
        owned = self.buffers | self.accumulators
        in_order = [p for p in self.ir.params if p in owned] + \
            [s for b in self.ir.blocks if b in self.top for s in b.stmts if s in owned]  # (others: rev_block)
        for r in in_order:  # (in program order: the generated code must not depend on hashing)
            if self.active(r) and not buffer_webs.moved_in(self, r):
                buf = buffers.start(self, r) if r in self.buffers else self.b.call(np.zeros_like, [self.primal(r)])
                self.dense_values.add(buf)
                self.write_adj(r, buf)
        buffer_webs.start(self)
        for p in [*self.ir.params, *(s for b in self.ir.blocks for s in b.stmts)]:  # (list parameters, lists it builds)
            if self.typed_lists.get(p) is p and self.active(p) and p not in self.run_lists:
                self.write_adj(p, typed_lists.new_adjoint(self, p))
        local_dicts.start(self)
        object_fields.start_dense(self)
        written_params.start(self)
        self.rev_seq(self.regions.items)
        assert not self.web_pending, "a loop-carried buffer's trip was not undone where expected"
        unbound.bind_unassigned(self.unbound_records)
        grads = [typed_dicts.adjoint(self, p) if p in self.typed_dicts else
                 self.b.call(give_back, [self.primal(p), self.read_adj(p)])
                 if self.active(p) and (typed_lists.written(self, p) or local_dicts.written_param(self, p)) else
                 self.b.call(tuple, [self.read_adj(p)]) if typed_lists.tuple_param(self, p) and self.active(p) else
                 self.read_adj(p) if self.is_num(p) or p not in self.stored and p.name not in self.constant_params else
                 self.b.call(shadows.take, [self.primal(p), self.read_adj(p)]) for p in self.ir.params]
        self.b.ret(self.b.call(ops.tuple_of, grads))
        self.b.finish()
        fold_zero_additions(self.rev, self.is_dense)
        remove_redundant_phis(self.rev)
        fold_zero_additions(self.rev, self.is_dense)  # (what the groups of phis stood for may be zero)
        for blk in self.rev.blocks:  # (`undo_append(lst, x)`: x's adjoint starts at the symbolic zero, its default)
            for st in blk.stmts:
                last = shadows.ZERO_LAST.get(st.callee()) if _hashable(st.callee()) else None
                if last is not None and len(st.args) == last + 1 and st.args[last] is ZERO and not st.kwargs:
                    st.args = st.args[:last]
        for blk in self.rev.blocks:
            for phi in blk.phis:
                primal = self.adj_vars.get(self.b.var_of.get(phi, ""))
                if primal is not None:
                    self.adjoint_of.setdefault(phi, primal)





















def _data_operands(s: Any) -> list:
    """The operands of s whose values it reads as data: not the function whose code and globals `ops.nested_code` and
    `ops.make_function` take (they read nothing of it that has a derivative)."""
    fn = s.callee() if isinstance(s, Call) else None
    if fn is ops.nested_code:
        return []
    if fn is ops.make_function and len(s.args) == 5:
        return [s.args[0], *s.args[2:]]
    return s.operands()


def _modules_as_constants(ir: Function, param_kinds: dict) -> None:
    """A module parameter (kind `mod:NAME`, reverse/argument_kinds._module_kind) is the module itself: its uses read
    the constant, so `_mc.pow_deriv(e, 2)` in generated code resolves to the helper and its rule."""
    for p in ir.params:
        kind = param_kinds.get(p.name, "")
        if kind.startswith("mod:"):
            module = sys.modules.get(kind.split(":")[1])
            if module is not None:
                substitute(ir, {p: Const(module)})
