"""Type inference: a fixpoint over the IR from the parameters' types (ir/types.py has the lattice,
ir/op_types.py what each operation returns).

Values start at "nothing known yet" and only move up the lattice (joins at phis), so loops
converge; whatever is still unknown at the end is UNKNOWN.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from .nodes import Call, Const, Function, Param, Phi, Value
from .op_types import result_type
from .types import _BOTTOM, NONE, UNKNOWN, AVal, join, type_of_argument


def infer_types(fn: Function, param_types: dict[str, AVal], resolve: Callable[[Call], tuple[Any, Any]],
                constant: Optional[Callable[[Value], Any]] = None) -> dict[Value, AVal]:
    """The type of every statement and phi of fn.  `resolve(s)` gives a call's callee (and rule);
    `constant(v)` (optional) what a module attribute denotes, or raises LookupError."""
    types: dict[Value, AVal] = {}

    def of(v: Value) -> AVal:
        if isinstance(v, Const):
            x = v.value
            if x is None:
                return NONE
            if type(x) in (float, int, bool):
                return type_of_argument(x)
            return UNKNOWN
        if isinstance(v, Param):
            return param_types.get(v.name, UNKNOWN)
        if isinstance(v, (Call, Phi)):
            return types.get(v, _BOTTOM)
        return UNKNOWN  # globals and closure cells: whatever they hold when the code runs

    def result(s: Call) -> AVal:
        args = [of(a) for a in s.args]
        if _BOTTOM in args:
            return _BOTTOM
        return result_type(resolve(s)[0], s, args, constant)

    changed = True
    while changed:
        changed = False
        for b in fn.blocks:
            for phi in b.phis:
                t = _BOTTOM
                for v in phi.incoming.values():
                    if isinstance(v, Const) and type(v.value).__name__ == "_Undefined":
                        continue
                    t = join(t, of(v))
                new = join(types.get(phi, _BOTTOM), t)
                if new != types.get(phi, _BOTTOM):
                    types[phi], changed = new, True
            for s in b.stmts:
                new = join(types.get(s, _BOTTOM), result(s))
                if new != types.get(s, _BOTTOM):
                    types[s], changed = new, True
    return {v: (UNKNOWN if t is _BOTTOM else t) for v, t in types.items()}
