"""Which callable a call statement names, decided when the code is generated (both modes read it).

StaticResolver resolves only bindings that do not change in practice -- builtins the user's module does not
shadow, attributes of modules (`math.sin`, `np.linalg.norm`) -- and records each binding it used, so the
derived rule checks them whenever it runs (late binding, DESIGN.md §2); operators on the user's objects are
left to the run-time dispatcher (forward/object_flow.py)."""
from __future__ import annotations

import builtins
import types
from typing import Any, Optional

from ..ir.nodes import Call, Const, Global, Value
from ..rules.registry import Rule, lookup


class StaticResolver:
    """Decides, when the code is generated, which callable a callee expression denotes.

    Only bindings that do not change in practice are resolved: builtins that
    the user's module does not shadow, and attributes of modules
    (`math.sin`, `np.linalg.norm`).  The bindings used are recorded so the
    derived rule can check them each time it runs (late binding).
    """

    def __init__(self, user_globals: dict, param_kinds: Optional[dict] = None) -> None:
        from .object_flow import current_kinds

        self.g = user_globals
        self.bindings: dict[str, Any] = {}
        self._memo: dict[Value, Any] = {}
        # statement -> (its callee operand, `callee`'s answer), once the function is analysed: the transforms ask
        # about the same statement dozens of times (some 70,000 calls over the corpus tests), and the answer
        # depends only on the operand (memoised by `resolve`), the rule table and the analysis, which no longer change.
        self._callees: dict[Call, tuple] = {}
        # The argument kinds (num/arr/obj/objs/any) of the rule being made; None: generic.
        self.param_kinds = param_kinds if param_kinds is not None else current_kinds()
        self._objects: Optional[tuple] = None  # (statements analysed, those left to run-time dispatch)
        self.plain_calls: frozenset = frozenset()  # calls of user functions known to return numbers or arrays

    def resolve(self, v: Value) -> Any:
        if v in self._memo:
            return self._memo[v]
        out = self._resolve(v)
        self._memo[v] = out
        return out

    _NOTHING = object()

    def _resolve(self, v: Value) -> Any:
        if isinstance(v, Const):
            return v.value
        if isinstance(v, Global):
            if v.name in self.g:
                obj = self.g[v.name]
                if isinstance(obj, types.ModuleType):
                    self.bindings[v.name] = obj
                    return obj
                return self._NOTHING
            obj = getattr(builtins, v.name, self._NOTHING)
            if obj is not self._NOTHING:
                self.bindings[v.name] = obj
            return obj
        if isinstance(v, Call) and v.callee() is getattr and len(v.args) == 2 and isinstance(v.args[1], Const):
            base = self.resolve(v.args[0])
            if isinstance(base, types.ModuleType):
                return getattr(base, v.args[1].value, self._NOTHING)
        return self._NOTHING

    def callee(self, s: Call) -> tuple[Any, Optional[Rule]]:
        known = self._callees.get(s)
        if known is not None and known[0] is s.fn:
            return known[1]
        found = self._callee(s)
        if self._objects is not None:
            self._callees[s] = (s.fn, found)
        return found

    def _callee(self, s: Call) -> tuple[Any, Optional[Rule]]:
        if self._objects is None and getattr(s, "block", None) is not None:
            from .object_flow import function_values

            # The first statement asked about belongs to the user's function (the transforms run
            # activity analysis first): analyse that function before anything changes it.
            self.analyse(function_values(s.block))
        fn = self.resolve(s.fn)
        if fn is self._NOTHING:
            return None, None
        if self._dispatched_operator(s, fn):
            return None, None  # an operator that may reach a user object's method: decided when the code runs
        rule = lookup(fn)
        if rule is not None and rule.key.__class__ is tuple and _bound_to_an_instance(fn):
            # (a method's rule found through the object it is bound to, `np.random.normal` of NumPy's global
            # RandomState: its templates take that object first, which the call does not pass; the run-time
            # dispatch passes it.  Statically the draw's scale was taken for its loc: a zero location derivative)
            return fn, None
        return fn, rule

    def raw_resolve(self, v: Value) -> Any:
        """The callable value v denotes when the code is generated, or None."""
        fn = self.resolve(v)
        return None if fn is self._NOTHING else fn

    def raw_callee(self, s: Call) -> Any:
        fn = self.resolve(s.fn)
        return None if fn is self._NOTHING else fn

    def _dispatched_operator(self, s: Call, fn: Any) -> bool:
        # (objects.dispatches kept by `analyse`: a function-level import in each of the ~800 calls a small
        # derivation makes cost it about a millisecond)
        if self._objects is None or not self._dispatches(fn) or fn is builtins.getattr:
            return False
        return s in self._objects[1]

    def analyse(self, values: tuple) -> None:
        """Find, once and before any transform changes the IR, the operator statements on possible user objects."""
        from . import objects
        from .object_flow import ObjectFlow

        stmts, phis = values
        flow = ObjectFlow(stmts, phis, self.param_kinds, self.g, self.raw_callee, self.plain_calls)
        gated = set()
        for st in stmts:
            fn = self.raw_callee(st)
            if not objects.dispatches(fn) or fn is builtins.getattr:
                continue
            # Items, iteration and attributes run the container's own methods; operators any operand's.
            own = fn in objects.ITEMS or fn in objects.ITERATION or fn in (builtins.setattr, builtins.delattr)
            if any(flow.may_be_object(v) for v in (st.args[:1] if own else (*st.args, *st.kwargs.values()))):
                gated.add(st)
        self._dispatches = objects.dispatches
        self._objects = (set(stmts), gated)
        self._callees = {}  # (answers given before this analysis may differ now)


def _bound_to_an_instance(fn: Any) -> bool:
    owner = getattr(fn, "__self__", None)
    return owner is not None and not isinstance(owner, (type, types.ModuleType))
