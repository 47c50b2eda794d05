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

import builtins
import operator
import sys

import numpy as np
from typing import Any, Callable, Optional

from .. import ops
from ..errors import MooncakeError
from ..forward.activity import Activity, read_shared_through_items
from ..forward.object_iteration import read_items_first
from ..forward.transform import StaticResolver
from ..ir.analysis import dominators
from ..ir.builder import UNDEFINED, Builder
from ..ir.types import INT, UNKNOWN, Lst, Num, Tup, decode, differentiable, is_float_array, is_real, type_of_argument
from ..ir.nodes import Block, Branch, Call, Const, FreeVar, Function, Global, LoopInfo, Param, Phi, Return, Stmt, Value
from ..ir.ufunc_out import single_out_tuples
from ..ir.regions import Edge, If, Loop, Seq, Stmts, body_values, build_regions
from . import adjoints as adj
from . import (buffers, call_types, constant_args, dict_keys, local_dicts, local_lists, object_fields, part_reads, prepare,
               quiet_items, row_lists, scalar_objects, settle_types, shadows, typed_dicts, typed_lists, view_reads,
               unbound, walked_loops, written_params)
from .plainer import make_plainer
from .cleanup import NUM_ZERO, ZERO, fold_zero_additions, remove_redundant_phis, substitute
from .cleanup import is_zero as _is_zero
from .spread import Spreads
from .prepare import hashable as _hashable
from ..rules import builtin_rules, call_binding, registry
from .special import INPLACE, SAVE_ARGS, SPECIAL
from .templates import PH, TemplateBuilder



_SETS = {ops.set_of, builtins.set, builtins.frozenset, set.add}


class ReverseUnsupported(MooncakeError):
    """A construct reverse mode does not handle yet; raised with the source line."""


class ReverseTransform:
    def __init__(self, ir: Function, user_globals: dict, param_kinds: dict[str, str], not_dense: frozenset = frozenset(),
                 quiet: tuple = ()) -> None:
        self.ir = ir
        # Items of the returned tuples that the caller gives no adjoint (rcall's `quiet`): their adjoints stay the
        # symbolic zero here, never 0.0 times a partial derivative that may be infinite.
        self.quiet = frozenset(quiet)
        self.returned_tuples = {b.term.value for b in ir.blocks if isinstance(b.term, Return)
                                and isinstance(b.term.value, Call) and b.term.value.callee() is ops.tuple_of}
        self.quiet_of: dict = {}  # dispatched call -> positions of its tuple result this function never reads
        _modules_as_constants(ir, param_kinds)
        # Adjoint variables (by creation order) whose loop phis were assumed real and turned out not to be.
        self.not_dense = not_dense
        self.assumed_dense: dict = {}  # phi -> its variable's number
        self.var_number: dict[str, int] = {}
        inactive_names = {k for k, v in param_kinds.items() if v.endswith(":inactive")}
        param_kinds_in = dict(param_kinds)
        self.param_types = {k: decode(v, k) for k, v in param_kinds.items()}
        param_kinds = {k: v.split(":")[0] for k, v in param_kinds.items()}
        self.param_kinds = param_kinds
        self.resolver = StaticResolver(user_globals)
        single_out_tuples(ir, self.resolver.raw_resolve)
        # Small helpers and methods of the function's own objects, in line (inline.py): names they were read by.
        self.inlined_bindings: dict = {}
        make_plainer(ir, user_globals, self.inlined_bindings,
                     frozenset(k for k, t in self.param_types.items() if isinstance(t, Num)))
        read_items_first(ir, self.resolver)  # (`sum(b)` of an object with `__iter__`: its items, differentiated)
        prepare.deletes_as_pops(self)
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

        def dense(v: Value, assumed: set) -> bool:
            v = self.b.resolve(v)
            if v in self.dense_values or (v is self.y_bar and self.result_real):
                return True
            return isinstance(v, Phi) and v in live and v in assumed

        assumed = {q for q in (self.b.resolve(p) for p in self.assumed_dense) if isinstance(q, Phi) and q in live}
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
            if self.active(r):
                buf = buffers.start(self, r) if r in self.buffers else self.b.call(np.zeros_like, [self.primal(r)])
                self.dense_values.add(buf)
                self.write_adj(r, buf)
        for p in [*self.ir.params, *(s for b in self.ir.blocks for s in b.stmts)]:  # (list parameters, lists it builds)
            if self.typed_lists.get(p) is p and self.active(p) and p not in self.run_lists:
                self.write_adj(p, typed_lists.new_adjoint(self, p))
        local_dicts.start(self)
        object_fields.start_dense(self)
        written_params.start(self)
        self.rev_seq(self.regions.items)
        unbound.bind_unassigned(self.unbound_records)
        grads = [typed_dicts.adjoint(self, p) if p in self.typed_dicts else
                 self.read_adj(p) if self.is_num(p) or p not in self.stored else
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

    def rev_stmt(self, s: Call) -> None:
        dict_keys.emit_key_checks(self, s)  # (a key that depends on the inputs, refused when the code runs)
        if s in self.dict_roles:
            local_dicts.reverse(self, s)
            return
        fn, rule = self.resolver.callee(s)
        if _hashable(fn) and fn in _SETS:
            self._rev_set(s, fn)
            return
        if typed_lists.handles(self, s, fn):
            typed_lists.reverse_read(self, s, fn)
            return
        if written_params.exempt(self, s):
            written_params.reverse(self, s, fn)
            return
        if s.args and s.args[0] in self.typed_dicts and typed_dicts.exempt(self, s, fn):
            typed_dicts.reverse_read(self, s)
            return
        if object_fields.exempt(self, s, fn):
            object_fields.reverse(self, s, fn)
            return
        if s.args and buffers.root_of(self, s.args[0]) is not None and fn in (operator.getitem, operator.setitem):
            (buffers.reverse_read if fn is operator.getitem else buffers.reverse_write)(self, s)
            return
        if fn is operator.getitem and view_reads.handles(self, s):
            view_reads.reverse_read(self, s)
            return
        if fn is operator.setitem and len(s.args) == 3 and s.args[1] in self.act.active:
            check = self.b.call(builtin_rules.check_dict_keys, [self.primal(s.args[1])])  # (`d[x * 3.0] = v`)
            check.keep = True  # type: ignore[attr-defined]
        special = SPECIAL.get(fn) if _hashable(fn) else None
        if fn is getattr and len(s.args) == 3:  # (with a default: its adjoint too, when it was the value)
            special = (None, part_reads.getattr_default_reverse, (0, 2))
        if fn is operator.getitem and registry.is_index_builder(self.resolver.resolve(s.args[0])):
            special = None  # np.r_[x, y], np.c_[...]: the items are operands (the getitem rule's adjoint of the index)
        if fn in INPLACE and all(self.is_num(a) or isinstance(a, Const) and type(a.value) in (int, float, bool) for a in s.args):
            fn, rule = INPLACE[fn], registry.lookup(INPLACE[fn])  # numbers: `x += y` is `x = x + y`
        elif special is not None:
            self._rev_special(s, fn, *special)
            return
        elif rule is not None and rule.mutates and rule.user_rrule is None:  # (a run-time rule undoes its own write)
            raise ReverseUnsupported(
                f"{_where(s)}: reverse mode of {_name(fn)} (an in-place update) is not supported yet: "
                + ("take the items with a `for` loop over the iterator (and `break`), or index a list of them; "
                   if fn is next else "")
                + "use forward mode (mc.jvp, mc.jacfwd), or register a reverse rule (@mc.rrule) for a function of "
                  "yours that makes this call")
        if "out" in s.kwargs and s.kwargs.keys() == {"out"} and isinstance(fn, np.ufunc):
            self._rev_ufunc_out(s, fn)
            return
        if s in self.typed_dicts:  # (a user function's tuple of numbers, read item by item: its items' adjoints)
            g = typed_dicts.adjoint(self, s) if self.active(s) else None
        else:
            g = self.take_adj(s, keep_spread=True)  # (templates broadcast spreads; the dispatched path below does not)
        if rule is not None and rule.zero:
            return
        if rule is not None and rule.vjp is not None and rule.user_rrule is None and "out" not in s.kwargs:
            if g is None:
                return
            if self.is_num(s):
                self.dense_values.add(g)  # a number's adjoint is a number (its zero is 0.0)
            t = TemplateBuilder(self, self.is_num(s), self.types.get(s), stmt=s, stmt_fn=fn)
            t.refuse_complex_unless_safe(rule, fn, s)  # (cplx: real-only templates never see complex values)
            t.receive(g)
            t.keyword_adjoints = True  # type: ignore[attr-defined]  # adjoints of keyword operands come back as a KwAdj
            contribs = rule.vjp(t, g, PH(s), *[PH(a) for a in s.args], **{k: PH(v) for k, v in s.kwargs.items()})
            pos, named = call_binding.split_adjoints(contribs)
            quiet = self.quiet if s in self.returned_tuples else ()
            for k, (a, c) in enumerate(zip(s.args, pos)):
                if k not in quiet:
                    self.accumulate(a, c)
            for k, c in named.items():
                self.accumulate(s.kwargs[k], c)
            return
        # Dispatched when the code runs: the forward pass kept the call's pullback.
        rc = self._dispatch(s)
        g = self.spreads.materialize(g)
        pb = self.primal(rc)
        grads = self.b.call(adj.call_pullback, [pb, g if g is not None else ZERO])
        grads.tuple_size = 3  # type: ignore[attr-defined]  # (f_bar, args_bar, kwargs_bar)
        f_bar = self.b.call(operator.getitem, [grads, Const(0)])
        args_bar = self.b.call(operator.getitem, [grads, Const(1)])
        kwargs_bar = self.b.call(operator.getitem, [grads, Const(2)])
        if s.callee() is ops.apply:
            f, args, kwargs = s.args
            for v, gv in ((f, f_bar), (args, args_bar), (kwargs, kwargs_bar)):
                if self.active(v):
                    self.accumulate(v, gv)
            return
        if s in self.field_method_calls:
            if self.active(self.field_method_calls[s]):
                object_fields.method_adjoint(self, s, f_bar)
        elif self.active(s.fn):
            self.accumulate(s.fn, f_bar)
        for i, a in enumerate(s.args):
            if self.active(a):
                self.accumulate(a, self.b.call(adj.item_of, [args_bar, Const(i)]))
        for k, v in s.kwargs.items():
            if self.active(v):
                self.accumulate(v, self.b.call(adj.item_of, [kwargs_bar, Const(k)]))

    def _rev_set(self, s: Call, fn: Any) -> None:
        """Sets keep no adjoints of their items (equal items merge): refuse where one would be dropped, that is
        where the set gets an adjoint (`sum({x, 2 * x})`) or an item that needs one is added to it."""
        if fn is set.add:
            if len(s.args) == 2 and self.active(s.args[1]):
                check = self.b.call(builtin_rules.check_set_item, [self.primal(s.args[1])])
                check.keep = True  # type: ignore[attr-defined]
            return self._rev_special(s, fn, *SPECIAL[fn])
        if self.take_adj(s) is not None:  # (a set that depends on the inputs: checked when the pullback runs)
            check = self.b.call(builtin_rules.check_set_items, [self.primal(s)])
            check.keep = True  # type: ignore[attr-defined]

    def _rev_special(self, s: Call, fn: Any, save: Any, helper: Any, adjoint_args: tuple) -> None:
        """Reads of parts and writes: a run-time helper undoes the write and routes adjoints through storage.

        `adjoint_args` are the positions of the arguments whose (value) adjoints the helper updates and returns.
        """
        if fn is operator.getitem and s.args and isinstance(s.args[0], Call) and s.args[0].callee() is ops.tuple_of \
                and all(isinstance(a, Const) for a in s.args[0].args):
            self.take_adj(s)  # (an item of a display of constants, `m, v = 0.0, 0.0`: its adjoint goes nowhere)
            return
        if helper is shadows.append_reverse and len(s.args) == 2 and not s.kwargs:
            # (`lst.append(x)` returns None: no value of its own to record, no adjoint of its own to take)
            x = s.args[1]
            bar = self.read_adj(x) if self.active(x) else ZERO
            out = self.b.call(shadows.undo_append, [self.primal(s.args[0]), self.primal(x), bar])
            if self.active(x):
                self.write_adj(x, out)
            return
        writes = save is not None and helper is not shadows.inplace_reverse
        g = self.take_adj(s) if s in self.act.active and not writes else ZERO  # a write's own value is None
        old = []
        if save is not None:
            saved = self.saves.get(s)
            if saved is None:
                saved = self.saves[s] = Call(Const(save), [s.args[i] for i in SAVE_ARGS[save]], loc=s.loc)
                self.home[saved] = self.home[s]
            old = [self.primal(saved)]
        extra = [Const(INPLACE[fn])] if helper is shadows.inplace_reverse else []
        args = [self.primal(a) for a in s.args]
        # One value in two positions (`v -= v`): its adjoint goes in once, the parts come out added.
        firsts = [k for k, i in enumerate(adjoint_args) if s.args[i] not in [s.args[j] for j in adjoint_args[:k]]]
        bars = [self.read_adj(s.args[i]) if self.active(s.args[i]) and k in firsts else ZERO
                for k, i in enumerate(adjoint_args)]
        if writes and helper in shadows.UNDO:  # (a write returns None: no value of its own, no adjoint of its own)
            out = self.b.call(shadows.UNDO[helper], [*old, *extra, *args, *bars])
        else:
            y = Const(None) if writes else self.primal(s)
            out = self.b.call(helper, [g if g is not None else ZERO, y, *old, *extra, *args, *bars])
        if not adjoint_args:
            return
        if len(adjoint_args) == 1:
            if self.active(s.args[adjoint_args[0]]):
                self.write_adj(s.args[adjoint_args[0]], out)
            return
        out.tuple_size = len(adjoint_args)  # type: ignore[attr-defined]
        new: dict = {}
        for k, i in enumerate(adjoint_args):
            v = s.args[i]
            if not self.active(v):
                continue
            part = self.b.call(operator.getitem, [out, Const(k)])
            if v in new:
                part = self.b.call(operator.add if self.is_num(v) else adj.accumulate, [new[v], part])
            new[v] = part
        for v, value in new.items():
            self.write_adj(v, value)

    def _rev_ufunc_out(self, s: Call, fn: Any) -> None:
        """`fn(a, b, out=c)` writes c: save it, undo it, route c's adjoint to the inputs."""
        if fn is None or registry.lookup(fn) is None or registry.lookup(fn).vjp is None or s.kwargs.keys() != {"out"}:
            raise ReverseUnsupported(f"{_where(s)}: reverse mode of {_name(fn)} with out= is not supported: write "
                                     f"`y = {_name(fn)}(...)` without out=, or use forward mode (mc.jvp)")
        out_v = s.kwargs["out"]
        saved = self.saves.get(s)
        if saved is None:
            saved = self.saves[s] = Call(Const(shadows.save_inplace), [out_v], loc=s.loc)
            self.home[saved] = self.home[s]
        self.take_adj(s)
        args = [self.primal(a) for a in s.args]
        bars = [self.read_adj(a) if self.active(a) else ZERO for a in s.args]
        out = self.b.call(shadows.ufunc_out_reverse, [ZERO, self.primal(s), self.primal(saved), Const(fn), self.primal(out_v),
                                                      self.b.call(ops.tuple_of, args), self.b.call(ops.tuple_of, bars)])
        out.tuple_size = len(s.args)  # type: ignore[attr-defined]
        for k, a in enumerate(s.args):
            if self.active(a):
                self.write_adj(a, self.b.call(operator.getitem, [out, Const(k)]))

    def _dispatch(self, s: Call) -> Call:
        """In the forward pass, `y = f(*args)` becomes `y, pb = rcall(f, args, kwargs)`."""
        rc = self.dispatched.get(s)
        if rc is None:
            rc = Call(Const(adj.rcall_marker), [], loc=s.loc)  # patched in the forward IR later
            rc.hint = None
            self.dispatched[s] = rc
            quiet = quiet_items.unread_numbers(self, s)
            if quiet:
                self.quiet_of[s] = quiet
            self.home[rc] = self.home[s]
        return rc

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


def anchor(block: Any) -> None:  # marker, removed before emission
    raise AssertionError("unresolved record anchor")


def _primal_ref(v: Any) -> Any:  # placeholder, replaced before emission
    raise AssertionError("unresolved primal reference")


def _stack_ref(i: int) -> Any:  # placeholder, replaced before emission
    raise AssertionError("unresolved stack reference")


def _where(s: Call) -> str:
    return f"{s.loc.file}:{s.loc.line}: {s.loc.text}" if s.loc else "<unknown>"


def _name(fn: Any) -> str:
    from ..errors import qualified_name

    return qualified_name(fn)
