"""Forward mode, line by line (seeds 002/003): tangents beside primals.

Control flow is unchanged (a branch tests its primal condition); every active
phi gets a tangent phi; every active call gets tangent statements right after
it (before it, for calls that mutate their arguments, since the tangent needs
the old values).  A call whose callee is known when the code is generated
(an operator, a builtin, a function of a module such as `math.sin`) has its
rule's template inlined; any other call is dispatched when the code runs by
`_mc.fcall`, which finds a rule or differentiates the callee's source.

The result is a new IR function whose parameters are the primal parameters
followed by their tangents, returning `(y, dy)`.
"""
from __future__ import annotations

import operator

import numpy as np

import types
from typing import Any, Optional

from .. import ops
from ..frontend import stmt_ops
from ..ir.builder import UNDEFINED
from ..ir.smooth_squares import smooth_kink_squares
from ..ir.ufunc_out import single_out_tuples
from .object_iteration import read_items_first
from ..ir.nodes import Call, Const, Function, Global, Param, Phi, Return, Stmt, Value
from ..rules.registry import Rule, zero_derivative
from ..tangents import FunctionTangent, NoTangent, zero_tangent
from ..ir.inference import infer_types
from ..ir.typed_methods import has_methods_to_resolve, resolve_methods
from ..ir.types import FLOAT, UNKNOWN, Arr, Num, decode
from ..tangents import storage
from .activity import Activity
from .state import _module_tangent_level, active_globals, module_state_level, module_tangent, untracked_store
from .resolver import StaticResolver
from .template_builder import IRTemplateBuilder, literal_zero
from .finishing import _hoist_math_functions, _verify_if_asked, primal_first, remove_dead_derived


def fcall(*a: Any, **k: Any) -> Any:  # placeholder resolved lazily to avoid an import cycle
    from .runtime import fcall as real

    return real(*a, **k)


_SUMS = frozenset([operator.add, operator.sub, np.add, np.subtract])


_INACTIVE = ":inactive"
_FRESH_ARITHMETIC = frozenset([operator.add, operator.sub, operator.mul, operator.truediv, operator.neg, operator.pos])


def _param_type(param_kinds: dict, p: Param) -> Any:
    """A parameter's type from its kind (ir/types.decode), or None."""
    from ..ir.types import decode

    kind = param_kinds.get(p.name)
    return decode(kind, p.name) if kind else None


def _returned_globals_as_statements(ir: Function) -> None:
    """`return LOG` of module-level state as `t = identity(LOG); return t`: the tangent of module-level state is
    the storage this computation keeps for it (state.module_tangent), found for statements' operands only, so a
    list that callees appended to, returned as it is, had a zero tangent (its `v = LOG; return v` was right)."""
    for b in ir.blocks:
        t = b.term
        if isinstance(t, Return) and isinstance(t.value, Global):
            s = Call(Const(ops.identity), [t.value], loc=t.loc)
            s.block = b
            b.stmts.append(s)
            t.value = s


def _resolve_typed_methods(ir: Function, resolver: "StaticResolver", param_kinds: dict) -> None:
    """`s.max(axis=1)` of a float array as `np.max(s, axis=1)` (ir/typed_methods.py, as reverse mode does), so the
    tangent line is the rule's plain NumPy instead of a method dispatched when the code runs, and a derivative of
    this forward code (a Hessian's reverse over forward) meets a NumPy function with a rule, not a bound method."""
    if not has_methods_to_resolve(ir):
        return
    params = {k: decode(v, k) for k, v in param_kinds.items()}

    def param_type(v: Any) -> Any:
        return params.get(v.name, UNKNOWN) if isinstance(v, Param) else UNKNOWN

    for _ in range(4):  # (a resolved method's result is typed in the next round: `x.T.sum()`)
        try:
            types = infer_types(ir, params, resolver.callee)
        except Exception:  # noqa: BLE001 - no types: methods stay dispatched when the code runs
            return
        if not resolve_methods(ir, types, param_type, attribute_t=False):
            return


class ForwardTransform:
    def __init__(self, ir: Function, user_globals: dict, param_kinds: Optional[dict] = None) -> None:
        self.ir = ir
        # `num:inactive`, `arr:f:n:inactive`: an argument whose tangent is the zero (NoTangent) when the code runs
        self.inactive_params = frozenset(k for k, v in (param_kinds or {}).items() if v.endswith(_INACTIVE))
        self.param_kinds = {k: v[:-len(_INACTIVE)] if v.endswith(_INACTIVE) else v for k, v in (param_kinds or {}).items()}
        self.resolver = StaticResolver(user_globals, self.param_kinds)
        single_out_tuples(ir, self.resolver.raw_resolve, zero_derivative)
        smooth_kink_squares(ir, self.resolver.raw_resolve)  # (norm(x) ** 2 and kin: ir/smooth_squares.py)
        _returned_globals_as_statements(ir)
        # The reverse transform's clean-ups first (loops over displays written out, dicts and objects as their
        # values; helpers stay calls here, reverse/plainer.py says why), so forward code is as plain for them.
        from ..reverse.plainer import make_plainer  # (the IR passes live with reverse mode, which needed them first)

        make_plainer(ir, user_globals, self.resolver.bindings,
                     frozenset(k for k, v in self.param_kinds.items() if v.split(":")[0] == "num"), in_line=False)
        read_items_first(ir, self.resolver)  # (`sum(b)` of an object with `__iter__`: its items, differentiated)
        _resolve_typed_methods(ir, self.resolver, self.param_kinds)
        self.resolver.analyse(([st for b in ir.blocks for st in b.stmts], [p for b in ir.blocks for p in b.phis]))
        self.tangent: dict[Value, Optional[Value]] = {}
        self.tangent_of: dict[Value, Value] = {}
        self.uses_self = bool(ir.freevars) or _uses(ir, ir.self_ref)  # type: ignore[attr-defined]
        self.writes_captured: Optional[str] = None  # the function's name, where it writes what it captures
        self.types: Optional[dict] = None  # inferred when a sum's operands are asked about (_adds_a_number)
        self._uses: Optional[dict] = None  # uses of each value in the user's code (run() counts them first)

    def _infer_types(self) -> dict:
        """The inferred types of the user's values (ir/inference.py), once, before the transform adds tangents;
        {} where inference fails (then only parameters of kind `num` and literals are numbers: conservative)."""
        if self.types is None:
            from ..ir.inference import infer_types
            from ..ir.types import decode

            try:
                self.types = infer_types(self.ir, {k: decode(v, k) for k, v in self.param_kinds.items()},
                                         self.resolver.callee, self._constant)
            except Exception:  # noqa: BLE001 - no types: nothing but `num` parameters and literals is a number
                self.types = {}
        return self.types

    def _constant(self, v: Value) -> Any:
        """What a module attribute (`math.pi`) denotes, for types; LookupError when it is not one."""
        out = self.resolver.resolve(v)
        if out is self.resolver._NOTHING:
            raise LookupError(v)
        return out

    def number(self, v: Value) -> bool:
        """Is v certainly a number (a Python or NumPy scalar: immutable) when the code runs?  A literal by its value,
        a parameter by its kind, any other value by its inferred type."""
        if isinstance(v, Const):
            return type(v.value) in (int, float, bool)
        if isinstance(v, Param):
            return self.param_kinds.get(v.name, "").split(":")[0] == "num"
        return isinstance(self._infer_types().get(v), Num)

    def _decorates_a_local_class(self, s: Call, fn: Any) -> bool:
        """Is s a library decorator (`@dataclasses.dataclass`, `functools.total_ordering`) applied to a class made
        here?  It runs plainly and the class it returns keeps the class's tangent storage (kept by identity, as
        build_class's is): differentiated, the decorator's Python code exec's generated text, and with no tangent a
        classmethod's `cls.total = ...` read back as 0 (1.0 for 2.4)."""
        module = (getattr(fn, "__module__", None) or "").split(".")[0]
        return module in ("dataclasses", "functools", "typing", "enum", "abc") and any(
            isinstance(a, Call) and a.callee() is stmt_ops.build_class for a in s.args)

    def _fresh_and_private(self, dv: Any, v: Value) -> bool:
        """Is dv, v's tangent, an arithmetic result of the tangent code (new storage: `-dz * t`) and v used once in
        the user's code (so no other statement reads dv, and a later write to the result's tangent reaches no one)?"""
        if self._uses is None:
            return False
        return (isinstance(dv, Call) and getattr(dv, "derived", False) and dv.callee() in _FRESH_ARITHMETIC
                and self._uses.get(v) == 1)

    def _float_array(self, v: Value) -> bool:
        """Is v a float array by the inferred types (or its parameter's kind)?"""
        from ..ir.types import is_float_array

        t = _param_type(self.param_kinds, v) if isinstance(v, Param) else self._infer_types().get(v)
        return t is not None and is_float_array(t)

    def _adds_a_number(self, s: Call) -> bool:
        """Is the sum s an array and one of its operands with a tangent a number?  Then that tangent plus one
        that is a bare zero when the code runs (a number argument's NoTangent, passed through `np.ones(3) + n`)
        is a number, and `np.sum` of it counts it once (runtime.fit gives it the sum's shape)."""
        from ..ir.types import Num

        self._infer_types()
        if isinstance(self.types.get(s), Num):
            return False
        return any(self.tangent.get(a) is not None and
                   (self._number_type(a) is FLOAT or isinstance(self.types.get(a), Num)) for a in s.args)

    def _number_type(self, v: Value) -> Any:
        """FLOAT for a value certainly a number (`number`), else UNKNOWN."""
        return FLOAT if self.number(v) else UNKNOWN

    def run(self) -> tuple[Function, list[Value]]:
        ir = self.ir
        from .runtime import fcall as runtime_fcall

        self.fcall = runtime_fcall
        self._infer_types()  # (of the user's code as it is: before tangent statements join it)
        from ..reverse.scalar_objects import drop_dead_arithmetic

        drop_dead_arithmetic(ir, self._number_type)  # (`-self.x` of a `__neg__` in line whose `.y` alone is read)
        from ..ir.analysis import uses

        self._uses = uses(ir)
        inactive = frozenset(p for p in ir.params if p.name in self.inactive_params)
        self.act = Activity(ir, self.resolver.callee, self.uses_self, user_globals=self.resolver.g, inactive=inactive)
        self._held = _values_held(ir, self.resolver.callee, lambda v: isinstance(self._infer_types().get(v), Arr))
        # Parameters and their tangents.
        tparams: list[Value] = []
        for p in ir.params:
            dp = Param("d" + p.name, len(ir.params) + p.index, p.kind)
            dp.hint = None
            # A parameter whose tangent is the zero (kind `...:inactive`) has none, so nothing is computed from it;
            # unless data with a derivative is written into it (it is active all the same): then its tangent is
            # storage of its own, made at the entry (`storage(p, dp)`: zeros for an array, as the zero dp stands for).
            self._set(p, None if p in inactive else dp)
            tparams.append(dp)
        written_inactive = [p for p in ir.params if p in inactive and p in self.act.active]
        params: list[Value] = []
        if self.uses_self:
            dself = Param("d" + ir.self_ref.name, -1, "SELF")  # type: ignore[attr-defined]
            self._set(ir.self_ref, dself)  # type: ignore[attr-defined]
            params += [ir.self_ref, dself]  # type: ignore[attr-defined]
        params += list(ir.params) + tparams
        entry_extra: list[Call] = []
        for p in written_inactive:
            s = Call(Const(storage), [p, tparams[ir.params.index(p)]], loc=ir.loc)
            entry_extra.append(s)
            self._set(p, s)
        for fv in ir.freevars:
            extra = [Const(self.writes_captured)] if self.writes_captured else []
            s = Call(Const(cell_tangent), [self.tangent[ir.self_ref], Const(fv.index), *extra], loc=ir.loc)  # type: ignore[attr-defined]
            entry_extra.append(s)
            self._set(fv, s)
        self.state_level = module_state_level(ir, self.resolver.raw_callee)
        level = [Const(self.state_level)] if self.state_level else []
        for g in active_globals(ir, self.act.active, self.resolver.g):
            # Module-level state a callee may write data with a derivative into (activity.py): its tangent is
            # the storage this forward computation keeps for it (runtime.module_tangent), shared with callees.
            s = Call(Const(module_tangent), [g, *level], loc=ir.loc)
            entry_extra.append(s)
            self._set(g, s)
        # Tangent phis first (their incoming values are filled at the end).
        tphis: list[tuple[Phi, Phi]] = []
        for b in ir.blocks:
            for phi in list(b.phis):
                if phi in self.act.active:
                    dphi = Phi()
                    dphi.derived = True  # type: ignore[attr-defined]
                    dphi.block = b
                    b.phis.append(dphi)
                    self._set(phi, dphi)
                    tphis.append((phi, dphi))
        for b in ir.blocks:
            out: list[Call] = entry_extra if b is ir.entry else []
            for s in b.stmts:
                self._statement(s, out)
            for s in out:
                s.block = b
            b.stmts = out
            t = b.term
            if isinstance(t, Return):
                dv = self.tangent.get(t.value)
                ret = Call(Const(ops.tuple_of), [t.value, dv if dv is not None else self._zero_of(t.value)], loc=t.loc)
                ret.derived = True  # type: ignore[attr-defined]
                ret.block = b
                b.stmts.append(ret)
                t.value = ret
        for phi, dphi in tphis:
            for pred, v in phi.incoming.items():
                if v is UNDEFINED:
                    dphi.incoming[pred] = UNDEFINED
                    continue
                dv = self.tangent.get(v)
                dphi.incoming[pred] = dv if dv is not None else self._zero_of(v)
        remove_dead_derived(ir)
        for b in ir.blocks:
            b.stmts = primal_first(b.stmts, self.resolver)
        _hoist_math_functions(ir)
        _verify_if_asked(ir)
        return ir, params

    # ------------------------------------------------------------ helpers
    def _set(self, v: Value, dv: Optional[Value]) -> None:
        self.tangent[v] = dv
        if dv is not None and isinstance(dv, (Stmt, Param)) and dv not in self.tangent_of:
            self.tangent_of[dv] = v

    def _zero_of(self, v: Value) -> Value:
        return literal_zero(v)

    def _statement(self, s: Call, out: list) -> None:
        if s not in self.act.active:
            out.append(s)
            return
        if self.state_level and _module_tangent_level(s, self.resolver.raw_callee) is not None:
            # storage that the forward code differentiated keeps for module-level state: its tangent is storage
            # of this level for that object, kept by identity like the state's own (forward/state.py)
            out.append(s)
            b = IRTemplateBuilder(self, [], s.loc)
            self._set(s, b.call(module_tangent, s, Const(self.state_level)))
            out += b.out
            return
        fn, rule = self.resolver.callee(s)
        operands = [v for v in s.operands() if v is not s.fn or fn is None]
        any_active = any(v in self.act.active for v in operands)
        b = IRTemplateBuilder(self, [], s.loc, effect=bool(rule is not None and rule.mutates))
        if fn is stmt_ops.build_class or self._decorates_a_local_class(s, fn):
            # A class defined here whose methods write data with a derivative into it (`cls.total = cls.total +
            # v * v` in a classmethod): its attributes are state, whose tangents this forward computation keeps by
            # the class's identity, as it does for a module-level class (state.module_tangent); a zero tangent
            # here dropped what its methods wrote (the class attribute read after had a zero tangent).
            out.append(s)
            level = [Const(self.state_level)] if self.state_level else []
            self._set(s, b.call(module_tangent, s, *level))
            out += b.out
            return
        if not any_active and s not in self.act.stateful_calls:
            # Active only because it is written later with active data: start from zero.
            out.append(s)
            if fn is ops.identity and isinstance(s.args[0], Const):
                self._set(s, literal_zero(s))  # `s = 0.0` later updated in place: floats are immutable
            elif fn is ops.sequence:
                # a loop's items, one tangent each (a string's or a tuple of strings' zero tangent is NoTangent, which
                # the loop cannot iterate: `for i, k in enumerate("pqrs"): d[k] = x[i]` crashed)
                from ..rules.builtin_iteration import sequence_tangent

                self._set(s, b.call(sequence_tangent, s.args[0], s, Const(NoTangent)))
            else:
                self._set(s, b.call(ops.new_cell) if fn is ops.new_cell else b.call(zero_tangent, s))
            out += b.out
            return
        if "out" in s.kwargs and rule is not None and rule.jvp is not None:
            self._dispatch(s, fn, out)  # ufunc(..., out=o): the run-time rule writes o's tangent
            return
        if rule is not None and rule.user_frule is None and (rule.jvp is not None or rule.zero):
            if rule.zero:
                out.append(s)
                self._set(s, None)
            else:
                y = None if rule.mutates else s
                dy = rule.jvp(b, y, *s.args, **s.kwargs)  # type: ignore[misc]
                dy = self._conform(s, rule, b, dy)
                if rule.mutates and dy is None and not b.out:
                    self._guard_untracked_store(s, rule, out)
                if rule.mutates:
                    out += b.out
                    out.append(s)
                else:
                    out.append(s)
                    out += b.out
                self._set(s, dy)
            self._ensure_storage(s, fn, out, rule)
            return
        self._dispatch(s, fn, out)

    def _guard_untracked_store(self, s: Call, rule: Rule, out: list) -> None:
        """A write of active data into an object with no tangent here (`type(self).total = v`: a class, from
        a call without a derivative) would drop v's tangent: checked when the code runs (runtime.untracked_store)."""
        pos = rule.mutates[0]
        if pos >= len(s.args):
            return
        dvs = [self.tangent[v] for i, v in enumerate(s.args) if i != pos and self.tangent.get(v) is not None]
        if self.tangent.get(s.args[pos]) is None and dvs:
            g = Call(Const(untracked_store), [s.args[pos], *dvs], loc=s.loc)
            g.derived = True  # type: ignore[attr-defined]
            g.effect = True  # type: ignore[attr-defined]
            out.append(g)

    def _conform(self, s: Call, rule: Rule, b: IRTemplateBuilder, dy: Any) -> Any:
        """A tangent a template passes through from one operand gets the result's shape, in fresh storage.

        `np.ones(3) + x` passes x's tangent through (the constant adds nothing); the result's
        tangent must still have the result's shape and dtype (one tangent type per primal
        type), and must not be x's tangent object, which a later in-place write to x changes.
        """
        if not isinstance(dy, Value) or not s.args:
            return dy
        import operator

        if s.callee() in _SUMS and not rule.mutates and "out" not in s.kwargs and not self.number(s) and \
                self._adds_a_number(s):
            from .runtime import fit

            return b.call(fit, s, dy)  # (`x * 0.5 + (c + n)`: a number's tangent plus one that may be a bare zero)
        source, inner = dy, None
        if isinstance(dy, Call) and dy in b.out and dy.callee() in (operator.neg, operator.pos) and len(dy.args) == 1:
            source, inner = dy.args[0], dy
        operand = next((a for a in s.args if self.tangent.get(a) is source), None)
        if operand is None:
            return dy
        result = s.args[0] if rule.mutates else s
        if not isinstance(result, Const) and self.number(result):
            return dy  # a number: immutable, and of the same shape as any number
        if not rule.mutates and self._float_array(operand) and all(
                a is operand or (isinstance(a, Const) and type(a.value) in (int, float)) for a in s.args) and (
                inner is not None or self._fresh_and_private(dy, operand)):
            # `-z`, `1.0 - y`: the operand's tangent negated is new storage already, of the result's shape and dtype
            # (a float array with Python numbers only: no broadcasting, and NumPy keeps the array's dtype); `1.0 + t`
            # where t's tangent is new storage that nothing else reads (t has no other use) may pass it on as well
            return dy
        from .runtime import conform

        return b.call(conform, result, operand, dy)

    def _ensure_storage(self, s: Call, fn: Any, out: list, rule: Optional[Rule] = None) -> None:
        """A value written in place later needs tangent storage even when its tangent is zero now."""
        if s not in self.act.targets and not self.number(s) and self._makes_written_object(s, fn, rule):
            # `out = np.full_like(x, 0.5)` / `x.astype(int) * 1.0`, written only through a view or alias later
            # (`w = out[1]; w += v`, `for row in out: ...`): out's tangent must be storage from the start (a
            # symbolic zero, now or at run time, would leave the views' tangents fresh storage the writes
            # cannot reach dout through).  A tangent that is storage already is kept as it is.
            ds = self.tangent.get(s)
            b = IRTemplateBuilder(self, out, s.loc)
            self._set(s, b.call(zero_tangent, s) if ds is None else b.call(array_storage, s, ds))
            return
        if s not in self.act.targets or self.number(s) or fn in (ops.identity, getattr):
            if s in self.act.targets and self.tangent.get(s) is None and fn is not ops.identity:
                self._set(s, IRTemplateBuilder(self, out, s.loc).call(zero_tangent, s))
            return
        b = IRTemplateBuilder(self, out, s.loc)
        ds = self.tangent.get(s)
        import operator

        if fn is operator.getitem and self.tangent.get(s.args[0]) is not None:
            # An item of a container: materialise it inside the container's tangent, so later reads see it.
            self._set(s, b.call(item_storage, s.args[0], self.tangent[s.args[0]], s.args[1], s))
        elif ds is None:
            self._set(s, b.call(zero_tangent, s))
        elif any(ds is self.tangent.get(a) for a in s.args):
            # `a = a + 0.0` passes the operand's tangent through; the new value is written in place
            # later, so its tangent must be new storage too, or the write would reach the operand's.
            self._set(s, b.call(fresh_storage, s, ds))
        else:
            self._set(s, b.call(storage, s, ds))

    def _makes_written_object(self, s: Call, fn: Any, rule: Optional[Rule]) -> bool:
        """Is s a value of an alias class written with active data (activity.mutated_classes) that makes an
        object rather than naming part of one (an item, attribute, `x += y` or a store: their tangents come
        from the container's, item_storage)?"""
        from .activity import ALIASES_FIRST_ARG, STORES

        if s not in self._held or self.act.find(s) not in self.act.mutated_classes:
            return False
        raw = s.callee()
        try:
            if raw in ALIASES_FIRST_ARG or fn in ALIASES_FIRST_ARG or raw in STORES:
                return False
        except TypeError:  # (an unhashable callee)
            return False
        return not (rule is not None and rule.mutates) and "out" not in s.kwargs

    def _dispatch(self, s: Call, fn: Any, out: list) -> None:
        """`y, dy = _mc.fcall(f, df, args, dargs[, kwargs, dkwargs])`, decided when the code runs."""
        b = IRTemplateBuilder(self, out, s.loc, effect=True)
        callee = s.fn
        dcallee = self.tangent.get(callee) or Const(NoTangent)
        if s.callee() is ops.apply:
            f, args, kwargs = s.args
            dcallee = self.tangent.get(f) or Const(NoTangent)
            call = b.call(self.fcall, f, dcallee, args, b.dz(args), kwargs, b.dz(kwargs))
        else:
            args = b.call(ops.tuple_of, *s.args)
            dargs = b.call(ops.tuple_of, *[b.dz(a) for a in s.args])
            if s.kwargs:
                kw = b.call(ops.dict_of, *[x for k, v in s.kwargs.items() for x in (Const(k), v)])
                dkw = b.call(ops.dict_of, *[x for k, v in s.kwargs.items() for x in (Const(k), b.dz(v))])
                call = b.call(self.fcall, callee, dcallee, args, dargs, kw, dkw)
            else:
                call = b.call(self.fcall, callee, dcallee, args, dargs)
        call.tuple_size = 2  # type: ignore[attr-defined]
        # The original statement now takes the primal out of the pair; identity and name are kept.
        import operator

        s.fn, s.args, s.kwargs = Const(operator.getitem), [call, Const(0)], {}
        out.append(s)
        ds = Call(Const(operator.getitem), [call, Const(1)], loc=s.loc)
        ds.derived = True  # type: ignore[attr-defined]
        out.append(ds)
        if not self.number(s) and (s in self.act.targets or self._makes_written_object(s, fn, None)):
            # (`out = make_buffer(3)` then written through a view: the callee's symbolic zero becomes storage,
            # so the views' tangents are views of it)
            ds = IRTemplateBuilder(self, out, s.loc).call(array_storage, s, ds)
        self._set(s, ds)


def _values_held(ir: Function, callee: Any, is_array: Any) -> set:
    """The values some statement may keep a reference to, or take a view or part of: every operand except those of
    calls returning fresh values (`np.sum(out)`, `x * 2`) and the value an item write copies into an array (`row[:] =
    t` with row known to be an array: t is copied, never held; into a list it is held).  Only these can have writes reach them through another name
    (_makes_written_object); a value merely copied keeps the tangent its rule gave it."""
    from .activity import returns_fresh

    held: set = set()
    for b in ir.blocks:
        for phi in b.phis:
            held.update(phi.incoming.values())
        for st in b.stmts:
            fn, rule = callee(st)
            if fn is not None and returns_fresh(fn, rule) and "out" not in st.kwargs:
                continue
            copied = 2 if st.callee() is operator.setitem and len(st.args) == 3 and is_array(st.args[0]) else None
            held.update(v for k, v in enumerate(st.args) if k != copied)
            held.update(st.kwargs.values())
            held.add(st.fn)
        held.update(b.term.operands())
    return held


def array_storage(value: Any, d: Any) -> Any:
    """d, or zero storage where value is a NumPy array whose tangent is the symbolic zero (a value written through a
    view later: transform._makes_written_object).  Anything else is kept as it is (a list's or an iterator's
    tangent may be a lazy sequence, which must not be read here)."""
    if d is NoTangent and type(value) is np.ndarray:
        return zero_tangent(value)
    return d


def fresh_storage(value: Any, d: Any) -> Any:
    """Tangent storage for a new value, sharing nothing with the tangent `d` it was computed from."""
    from ..tangents import fresh

    return storage(value, fresh(d))


def item_storage(container: Any, dcontainer: Any, index: Any, item: Any) -> Any:
    """`dcontainer[index]`, made storage (and kept in the container's tangent) if the item is mutable."""
    d = dcontainer[index]
    if d is NoTangent:
        from ..tangents import is_mutable

        if is_mutable(item):
            d = zero_tangent(item)
            from ..lazy_iteration import Zeros

            if isinstance(dcontainer, (list, dict)) and not isinstance(dcontainer, Zeros):  # (Zeros holds no items)
                dcontainer[index] = d
    return d


def cell_tangent(dfn: Any, index: int, writer: Optional[str] = None) -> Any:
    """The tangent cell of closure cell `index` of a function whose tangent is `dfn`.

    A function entered with the zero tangent (forward code differentiated again: the nested plans pass the
    constant zero) reads zero from its cells; that is its derivative only if it never changes what it
    captures (a write there would keep its tangent in storage this zero does not have): refused otherwise
    (`writer`: the closure's name, given where its source writes what it captures)."""
    if isinstance(dfn, FunctionTangent) and type(dfn.cells) is tuple and dfn.cells[index] is not None:
        return dfn.cells[index]
    if writer is not None and not isinstance(dfn, FunctionTangent):
        from ..rules.forward_code_rules import NestingError

        raise NestingError(f"nested derivative of {writer}: forward mode over the forward code of a closure "
                           "that changes what it captures (a list or counter it keeps between calls) is not "
                           "supported; pass that state as an argument")
    return types.CellType()


def _uses(ir: Function, v: Value) -> bool:
    for b in ir.blocks:
        for s in b.stmts:
            if any(o is v for o in s.operands()):
                return True
    return False
