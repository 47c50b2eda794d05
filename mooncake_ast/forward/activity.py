"""Which values can carry a nonzero tangent (forward activity analysis).

A value is *active* if it may depend on the inputs: parameters are active,
and a call's result is active when any operand (or the callee) is, unless
the callee is known to be non-differentiable.  Mutation makes activity flow
backwards in time: `a = np.zeros(3); a[0] = x` makes `a` active, and with it
every value that may share storage with `a` (its views, the list holding
it, ...).  Those *alias classes* are computed conservatively: only calls
known to return fresh objects (arithmetic, math, ufuncs) break them.

Over-approximation costs only speed; missing an active value would be a
wrong derivative, so every unknown callee is assumed to alias and mutate
all of its arguments.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Optional

import numpy as np

from .. import ops
from ..errors import MooncakeError
from ..frontend.try_ops import guarded_call as _guarded_call
from ..ir.nodes import Call, Const, Function, Global, Phi, Value
from ..rules.registry import Rule
from ..tangents import is_mutable
from .input_writes import data_flow, speculative
from .sparse_operands import sparse_call
from .nested_activity import dispatched_callee, is_module_tangent, reads_identity
from .outside_state import (_HEAPTYPE, _NO_VALUE, _held_elsewhere, _may_be_user_code, _may_reach_module_state,
                            _reads_state)


class GlobalWriteError(MooncakeError):
    """Input-dependent data written into a module-level object: derivatives cannot follow it there."""

FRESH_OPERATORS = {
    operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
    operator.pow, operator.neg, operator.pos, operator.abs, operator.matmul, operator.lt, operator.le,
    operator.gt, operator.ge, operator.eq, operator.ne, operator.not_, operator.is_, operator.is_not,
    operator.contains, len, ops.not_contains, ops.format_value, ops.join_str, ops.new_cell, ops.nested_code,
}


ALIASES_FIRST_ARG = {
    operator.getitem, getattr, ops.identity, ops.sequence, ops.unpack, ops.unpack_star, ops.cell_get,
    operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ipow, operator.imatmul,
    operator.imod, operator.ifloordiv,
}


INPLACE_OPS = {operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ipow, operator.imatmul,
              operator.imod, operator.ifloordiv}

# writes: the position of the value stored into the first argument
STORES = {operator.setitem: 2, setattr: 2, ops.cell_set: 1, list.append: 1, set.add: 1}


MUTATING_METHODS = frozenset({
    "append", "extend", "insert", "pop", "remove", "sort", "reverse", "clear", "update", "setdefault", "popitem",
    "add", "discard", "fill", "put", "resize", "itemset", "partition", "__setitem__", "__delitem__", "__iadd__",
    "__imul__", "__ior__",
})


def _is_store(fn: Any) -> bool:
    try:
        return fn in STORES or fn in INPLACE_OPS or fn is operator.delitem
    except TypeError:
        return False


def _evaluate_path(v: Value, user_globals: dict) -> Any:
    """The current value of `g`, `g.a`, `g.a[k]` (constant names and keys) for a module-level `g`."""
    if isinstance(v, Global):
        return user_globals.get(v.name, _NO_VALUE)
    if isinstance(v, Call) and v.callee() in (getattr, operator.getitem) and len(v.args) == 2 and isinstance(v.args[1], Const):
        base = _evaluate_path(v.args[0], user_globals)
        if base is _NO_VALUE:
            return _NO_VALUE
        try:
            if v.callee() is getattr:
                return getattr(base, v.args[1].value)
            return base[v.args[1].value]
        except Exception:
            return _NO_VALUE
    return _NO_VALUE


_JOINS = (operator.add, operator.mul, operator.iadd, operator.imul)


def _is_sequence(v: Value, depth: int = 4) -> bool:
    """Is v, as the IR shows, a list or tuple: a display, `list(...)`/`tuple(...)`, or a join or repeat of one?
    (`+` and `*` of numbers and arrays make fresh values; of sequences, a new sequence of the same items.)"""
    if depth == 0 or not isinstance(v, Call):
        return False
    fn = v.callee()
    if fn in (ops.list_of, ops.tuple_of, list, tuple):
        return True
    return fn in _JOINS and any(_is_sequence(a, depth - 1) for a in v.args)


def returns_fresh(fn: Any, rule: Optional[Rule]) -> bool:
    """True if fn's result never shares storage with its arguments."""
    if getattr(rule, "fresh", False):  # (a call of a user function whose code shows it: reverse/call_types.py)
        return True
    try:
        if fn in FRESH_OPERATORS:
            return True
    except TypeError:
        return False
    if isinstance(fn, np.ufunc):
        return True
    mod = getattr(fn, "__module__", None)
    if mod == "math":
        return True
    return rule is not None and rule.zero and not rule.mutates


class Activity:
    def __init__(self, fn: Function, static_rule: Callable[[Call], tuple[Any, Optional[Rule]]], self_active: bool,
                 inactive: frozenset = frozenset(), user_globals: Optional[dict] = None,
                 is_sequence: Optional[Callable[[Value], bool]] = None) -> None:
        self.fn = fn
        self.is_sequence = is_sequence  # (types, where the caller knows them: a list or tuple the IR does not show)
        self.static_rule = static_rule
        self.user_globals = user_globals  # to see which module-level objects a method call would change
        self.active: set[Value] = set(p for p in fn.params if p not in inactive)
        if self_active:
            self.active.add(fn.self_ref)  # type: ignore[attr-defined]
            self.active.update(fn.freevars)
        self._seeds = frozenset(self.active)
        self._data: Optional[set] = None  # values depending on the inputs by data flow (input_writes.py)
        self.input_roots: set[Value] = set()  # alias classes a write stored input data into (input_writes.py)
        self.parent: dict[Value, Value] = {}
        self._guarded_views: dict[Call, Call] = {}
        self.mutated_classes: set[Value] = set()  # roots of classes written with active data
        self.targets: set[Value] = set()  # values written in place (their tangents must be storage)
        self.user_written: set[Value] = set()  # roots of values handed, with active data, to user code (_visit)
        self.global_reads: dict[str, int] = {}  # reads of each module-level array, list and dict (_union_global_reads)
        self._union_aliases()
        self.module_level = self._module_level()
        self.opaque_writer = False
        self.stateful_calls: set = set()  # calls without active operands whose callee reads state (see _visit)
        self._stateful: dict = {}
        self._held: Optional[set] = None
        self._refusing = True
        self._fixpoint()
        shared = self._shared_state() if self.opaque_writer else ()
        self.shared_globals: frozenset = frozenset(shared)  # module-level names read here that callees may change
        if shared:
            # A call differentiated from its source (or dispatched at run time) may write data with a
            # derivative into state the function reads from the module (a class attribute changed through
            # `self.items`, a list captured by a closure made at module level): those reads are not
            # constants, they have adjoints/tangents like the function's own objects.  (Refusals of
            # writes into module-level objects were decided above, on the inputs' own activity.)
            self._refusing = False
            self.mutated_classes.update(self.find(g) for g in shared)
            self._fixpoint()
        self._close_targets()

    # ------------------------------------------------------------ alias classes
    def find(self, v: Value) -> Value:
        self.parent.setdefault(v, v)
        while self.parent[v] is not v:
            self.parent[v] = self.parent[self.parent[v]]
            v = self.parent[v]
        return v

    def union(self, a: Value, b: Value) -> None:
        if isinstance(a, Const) or isinstance(b, Const):
            return
        ra, rb = self.find(a), self.find(b)
        if ra is not rb:
            self.parent[rb] = ra

    def _union_aliases(self) -> None:
        self._union_global_reads()
        for b in self.fn.blocks:
            for phi in b.phis:
                for v in phi.incoming.values():
                    self.union(phi, v)
            for s in b.stmts:
                fn, rule = self.static_rule(s)
                if s.callee() in _JOINS and any(_is_sequence(a) or (self.is_sequence is not None and self.is_sequence(a))
                                                for a in s.args):
                    for a in s.args:  # (`[c] * 2`, `l + [c]`, `l += [c]`: the new list holds the operands' items)
                        self.union(s, a)
                    continue
                if fn is not None and returns_fresh(fn, rule):
                    if "out" in s.kwargs:  # (`y = np.exp(a, out=buf)`: NumPy returns buf itself, y is buf)
                        self.union(s, s.kwargs["out"])
                    continue
                roles = sparse_call(self.static_rule, s) if fn is None else None
                if roles is not None:  # (SciPy's operators and methods: forward/sparse_operands.py)
                    for shared in roles[1]:
                        self.union(s, shared)
                    continue
                if s.callee() is operator.getitem and len(s.args) == 2 and self._item_of_constant_list(s.args[0]):
                    continue  # `W[0]` of a module-level list of numbers: a number, no part of W
                if fn in ALIASES_FIRST_ARG and s.args:
                    self.union(s, s.args[0])  # x[i], x.a, x += y: the result is (part of) x
                    continue
                if fn in STORES and len(s.args) > STORES[fn]:
                    self.union(s.args[0], s.args[STORES[fn]])  # x[i] = v: v is now part of x (i is not)
                    continue
                for v in s.operands():
                    if v is not s.fn or fn is None:
                        self.union(s, v)

    def _union_global_reads(self) -> None:
        """Each read of a module-level array, list or dict is a Value of its own in the IR; they are one object.
        A callee handed `BUF` may write it with values that depend on the inputs, and a later `np.sum(BUF)` reads
        what was written: the reads are one alias class, so that read is active too (and the object is state a
        callee may change, _shared_state), instead of a constant whose derivative is silently zero."""
        if self.user_globals is None:
            return
        first: dict = {}
        for b in self.fn.blocks:
            for s in b.stmts:
                for v in s.operands():
                    if isinstance(v, Global) and type(self.user_globals.get(v.name, _NO_VALUE)) in (np.ndarray, list, dict):
                        self.union(first.setdefault(v.name, v), v)
                        self.global_reads[v.name] = self.global_reads.get(v.name, 0) + 1
                if is_module_tangent(s) and s.args and isinstance(s.args[0], Global):  # (one object: nested_activity)
                    self.union(first.setdefault(("module_tangent", s.args[0].name), s), s)

    def _item_of_constant_list(self, v: Value) -> bool:
        """Is v a module-level list or tuple that holds only numbers and arrays of numbers now (reading an item
        makes no alias of the list: a number is immutable, and a write into an array item is a write into
        module-level state, refused as such by _module_level)?  Weights kept at module level (`W = [w1, 0.5]`) are
        then constants with no tangent storage, so every order of nesting works over them (a third order over
        module-level storage is refused).  (As _shared_state, this reads the module's current value.)"""
        if not isinstance(v, Global) or self.user_globals is None:
            return False
        obj = self.user_globals.get(v.name, _NO_VALUE)
        return type(obj) in (list, tuple) and 0 < len(obj) <= 4096 and \
            all(type(e) in (float, int, bool, complex) or (type(e) is np.ndarray and e.dtype.kind in "biufc")
                for e in obj)

    # ------------------------------------------------------------ fixpoint
    def _fixpoint(self) -> None:
        changed = True
        while changed:
            changed = False
            for b in self.fn.blocks:
                for phi in b.phis:
                    if phi not in self.active and any(v in self.active for v in phi.incoming.values()):
                        self.active.add(phi)
                        changed = True
                for s in b.stmts:
                    changed |= self._visit(s)
            for v in list(self.parent):
                if v not in self.active and self.find(v) in self.mutated_classes and not isinstance(v, Const):
                    self.active.add(v)
                    changed = True

    def _visit(self, stmt: Call) -> bool:
        s = self._unguarded(stmt)  # (inside a `try` body: the call guarded_call makes, with its writes)
        fn, rule = self.static_rule(s)
        operands_active = any(v in self.active for v in _flowing_operands(s))
        changed = False
        if rule is not None and rule.zero and not rule.mutates:
            return False
        if operands_active and stmt not in self.active:
            self.active.add(stmt)
            changed = True
        elif not operands_active and rule is None and stmt not in self.active and self._stateful_callee(s):
            # `get()` with no input-dependent operands may still return state written from the inputs (by
            # `acc(x)` before it: a closure, a module-level object, a class kept by the module).
            self.active.add(stmt)
            self.stateful_calls.add(stmt)
            changed = True
        if (s.fn in self.module_level and any(v in self.active for v in (*s.args, *s.kwargs.values()))
                and self._mutating_method_of_global(s.fn)):  # (`BUF.clear()`: nothing from the inputs goes in)
            self._refuse_global_write(s, self.module_level[s.fn])
        inner = dispatched_callee(s, fn, rule, self.user_globals)  # (forward code's fcall(f, ...): f, differentiated again)
        if operands_active and (rule is None or inner is not _NO_VALUE) and \
                _may_reach_module_state(s.callee() if inner is _NO_VALUE else inner):
            self.opaque_writer = True
        if operands_active:
            sparse = None
            if rule is not None and (rule.jvp is not None or rule.zero or rule.user_frule is not None):
                positions = rule.mutates
            elif rule is None and fn is None and (sparse := sparse_call(self.static_rule, s)) is not None:
                positions = sparse[0]  # (SciPy's operators and methods write none of the matrix's operands)
            else:
                positions = tuple(range(len(s.args)))
            targets = [s.args[i] for i in positions if i < len(s.args)]
            if rule is None and sparse is None:
                targets += list(s.kwargs.values()) + [s.fn]  # a bound method writes its self
            elif "out" in s.kwargs:
                targets.append(s.kwargs["out"])  # np.add(a, b, out=c) writes c
            raw = s.callee()  # the callable written in the code (dispatch may hide it from `fn`)
            if _is_store(raw) and s.args:
                written = [s.args[0]]  # `g[k] = v`, `g += v`: the container, not the value stored
            elif rule is not None and (rule.mutates or "out" in s.kwargs):
                written = targets
            else:
                written = []
            # (a key, `CACHE[n] = v`, is never differentiated: dicts keep no derivative of their keys)
            key = s.args[1] if raw is operator.setitem and len(s.args) == 3 else None
            stored_active = any(v in self.active for v in _flowing_operands(s) if v not in written) and \
                any(self._carries_input(v) for v in _flowing_operands(s) if v not in written and v is not key)
            for t in written:
                if t in self.module_level and stored_active:  # (constants written over module state: no derivative)
                    self._refuse_global_write(s, self.module_level[t])
            user_callee = (rule is None and _may_be_user_code(fn)) or (inner is not _NO_VALUE and _may_be_user_code(inner))
            for t in targets:
                if isinstance(t, Const):
                    continue
                if user_callee:
                    self.user_written.add(self.find(t))
                self.targets.add(t)
                root = self.find(t)
                if root not in self.input_roots and not speculative(raw, rule) and \
                        any(v is not t and v is not key and self._carries_input(v) for v in _flowing_operands(s)):
                    self.input_roots.add(root)
                    changed = True
                if root not in self.mutated_classes:
                    self.mutated_classes.add(root)
                    changed = True
        return changed

    def _unguarded(self, s: Call) -> Call:
        """The call a `try` body guards, `guarded_call(f, tuple_of(a...), dict_of(k, v...))`, as the plain call
        `f(a..., k=v...)` (frontend/try_stmt.guard_call lowers every call there so).  Seen as guarded_call, a
        write such as `a[0] = x[0]` or `acc.append(v)` wrote nothing: `a` stayed a constant without derivative
        storage, so reverse mode dropped what was written (gradient 0) and forward mode refused.  Views are
        made once per statement, so callee caches keyed by the statement see one object."""
        if s.callee() is not _guarded_call or len(s.args) != 3:
            return s
        view = self._guarded_views.get(s)
        if view is None:
            packed, packed_kw = s.args[1], s.args[2]
            if not (isinstance(packed, Call) and packed.callee() is ops.tuple_of and not packed.kwargs
                    and isinstance(packed_kw, Call) and packed_kw.callee() is ops.dict_of and not packed_kw.kwargs
                    and len(packed_kw.args) % 2 == 0
                    and all(isinstance(k, Const) and isinstance(k.value, str) for k in packed_kw.args[::2])):
                return s  # (packed some other way: guarded_call's own rule, which writes every operand it may)
            kwargs = {k.value: v for k, v in zip(packed_kw.args[::2], packed_kw.args[1::2])}
            view = self._guarded_views[s] = Call(s.args[0], list(packed.args), kwargs, hint=s.hint, loc=s.loc)
        return view

    def _module_level(self) -> dict:
        """Values that are module-level objects or parts of them (`buf`, `buf[1:]`, `cfg.w`), with the global."""
        found: dict[Value, Global] = {}
        changed = True
        while changed:
            changed = False
            for b in self.fn.blocks:
                for phi in b.phis:
                    for v in phi.incoming.values():
                        if phi not in found and (isinstance(v, Global) or v in found):
                            found[phi] = v if isinstance(v, Global) else found[v]
                            changed = True
                for st in b.stmts:
                    fn, _ = self.static_rule(st)
                    if fn is None:  # (`W[0]` of a module-level list is dispatched at run time: still a part of W)
                        fn = st.callee()
                    if st in found or not st.args or fn not in ALIASES_FIRST_ARG or fn in INPLACE_OPS:
                        continue
                    a = st.args[0]
                    if isinstance(a, Global) or a in found:
                        found[st] = a if isinstance(a, Global) else found[a]
                        changed = True
        for b in self.fn.blocks:
            for st in b.stmts:
                for a in (*st.args, *st.kwargs.values()):
                    if isinstance(a, Global):
                        found[a] = a
        return found

    def _shared_state(self) -> tuple:
        """The module-level names read here whose objects hold state a callee may change in place: user
        classes (their class attributes) and mutable objects (lists, dicts, float arrays, instances)."""
        if self.user_globals is None:
            return ()
        out = []
        held = None
        for v in self.module_level:
            if not isinstance(v, Global):
                continue
            obj = self.user_globals.get(v.name, _NO_VALUE)
            if obj is _NO_VALUE:
                continue
            if isinstance(obj, type) and obj.__flags__ & _HEAPTYPE and not issubclass(obj, BaseException):
                from ..attribute_checks import class_keeps_state

                if class_keeps_state(obj):  # (a class of methods and constants holds no state to follow)
                    out.append(v)
            elif is_mutable(obj):
                if not isinstance(obj, (list, dict, np.ndarray)):
                    out.append(v)  # an instance: its methods change it
                    continue
                # A plain array, list or dict a callee cannot reach but by its name (a write through the name
                # is refused in the callee): only where something else holds it too (a closure's cell, an
                # object's or a class's attribute), through which a callee may change it.
                if held is None:
                    held = _held_elsewhere(self.user_globals)
                if id(obj) in held or (self.find(v) in self.user_written and self.global_reads.get(v.name, 0) > 1):
                    # (or handed to user code that may write it, and read again: `helper(BUF, x); np.sum(BUF)`)
                    out.append(v)
        return tuple(out)

    def _stateful_callee(self, s: Call) -> bool:
        if self.user_globals is None:
            return False
        found = self._stateful.get(s)
        if found is None:
            raw = s.callee()
            obj = raw if raw is not None else _evaluate_path(s.fn, self.user_globals)
            if self._held is None:
                self._held = _held_elsewhere(self.user_globals)
            found = self._stateful[s] = obj is not _NO_VALUE and _reads_state(obj, self._held, 3)
        return found

    def _mutating_method_of_global(self, fn_value: Value) -> bool:
        """Is `fn_value` (e.g. `LOG.append`, `cfg.items.extend`) a method that changes a builtin container
        or array reached from a module-level name, as the module holds it now?"""
        if self.user_globals is None:
            return False
        obj = _evaluate_path(fn_value, self.user_globals)
        owner, name = getattr(obj, "__self__", None), getattr(obj, "__name__", None)
        return isinstance(owner, (list, dict, set, bytearray, np.ndarray)) and name in MUTATING_METHODS

    def _carries_input(self, v: Value) -> bool:
        """Does v hold data from the inputs: by data flow, or in a class written with such data (input_writes.py)?"""
        if isinstance(v, Const):
            return False
        if self._data is None:
            def no_derivative(s: Call) -> bool:
                rule = self.static_rule(s)[1]
                return rule is not None and rule.zero and not rule.mutates

            self._data = data_flow(self.fn, self._seeds, _flowing_operands, no_derivative,
                                   lambda s: self.static_rule(s)[1] is None and self._stateful_callee(s))
        return v in self._data or self.find(v) in self.input_roots

    def _refuse_global_write(self, s: Call, g: Global) -> None:
        if not self._refusing:
            return
        where = f"{s.loc}: " if s.loc is not None else ""
        text = f"\n    {s.loc.text.strip()}" if s.loc is not None and s.loc.text else ""
        raise GlobalWriteError(
            f"{where}the module-level object `{g.name}` is written with values that depend on the inputs (here, or "
            f"by a callee it is handed to); "
            f"derivatives do not flow through module-level state. Pass `{g.name}` to the function as an "
            f"argument, or create it inside the function.{text}")

    def _close_targets(self) -> None:
        """A second name for a written value is written too (`b = a`, phis): walk back to where it was made."""
        work = list(self.targets)
        while work:
            v = work.pop()
            srcs: list[Value] = []
            if isinstance(v, Phi):
                srcs = list(v.incoming.values())
            elif isinstance(v, Call) and v.callee() is ops.identity:
                srcs = [v.args[0]]
            for src in srcs:
                if not isinstance(src, Const) and src not in self.targets:
                    self.targets.add(src)
                    work.append(src)


def _flowing_operands(s: Call) -> tuple:
    """The operands whose tangents can reach s's result.  A nested `def`/`lambda` (ops.make_function) takes
    the function defining it only for its module's globals and its name; what the new function carries is
    its cells and defaults.  Cells are storage a caller may write later (a counter's `nonlocal total`), so
    a function with any of those stays active with the function that makes it (as before); one with none
    carries nothing.  Counting the outer function for those too made `minimize(lambda p: ..., x0)` of
    constants a differentiated call (refused, or its zero tangent met where none was expected)."""
    if s.callee() is ops.make_function and len(s.args) == 5 and all(_empty(a) for a in s.args[2:]):
        return (s.fn, s.args[0], *s.args[2:], *s.kwargs.values())
    return s.operands()


def _empty(v: Value) -> bool:
    """Is v an empty tuple or dict (a function's defaults, kw-defaults or cells, as lowering builds them)?"""
    if isinstance(v, Const):
        return v.value is None or (isinstance(v.value, (tuple, dict)) and not v.value)
    return isinstance(v, Call) and v.callee() in (ops.tuple_of, ops.dict_of) and not v.args and not v.kwargs


_PART_READS = (getattr, operator.getitem, operator.setitem, setattr, operator.delitem, delattr)


def read_shared_through_items(ir: Function, act: "Activity", user_globals: dict) -> bool:
    """Reverse mode gives a module-level name (a Global) no adjoint: where a callee may change the array or list
    it holds (act.shared_globals) and it is read by its bare name as an operand (`sum(BUF)`, `ARR * x`), the
    read becomes one of all its items (`ARR[...]`, a view; `BUF[:]`, a copy), whose adjoint the reverse of
    that read routes into the object's storage -- where the callee's pullback finds it.  True if anything
    changed (the caller then analyses the function again)."""
    changed = False
    for b in ir.blocks:
        out = []
        for st in b.stmts:
            fn = st.callee()
            for i, a in enumerate(st.args):
                if not (isinstance(a, Global) and a in act.shared_globals) or (i == 0 and fn in _PART_READS) or \
                        reads_identity(st, act.static_rule):  # (forward code's storage found by the object's identity)
                    continue
                obj = user_globals.get(a.name)
                if isinstance(obj, np.ndarray):
                    key = Const(Ellipsis)
                elif isinstance(obj, list):
                    _, rule = act.static_rule(st)
                    if rule is None or rule.mutates or fn in (ops.tuple_of, ops.list_of):
                        # (`BUF[:]` is a copy: a callee that may write gets BUF itself, also packed for it as forward
                        # code packs a call's arguments; the pack's adjoint reaches BUF's storage by identity)
                        continue
                    key = Const(slice(None))
                else:
                    continue
                read = Call(Const(operator.getitem), [a, key], loc=st.loc)
                read.block = b  # type: ignore[attr-defined]
                out.append(read)
                st.args[i] = read
                changed = True
            out.append(st)
        b.stmts = out
    return changed
