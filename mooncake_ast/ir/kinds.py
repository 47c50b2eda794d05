"""A tiny static type inference: which values are certainly plain numbers.

Reverse mode gives a number's adjoint plain arithmetic (`x_bar = x_bar + g`,
no broadcasting to undo) and everything else structural helpers.  Derived
rules are specialised on which arguments are numbers (float/int/bool), so
this only needs to propagate: literals, arithmetic of numbers, `math.*`,
`len`, `abs`/`min`/`max`/`float`/`int`/`round` of numbers, and phis whose
inputs are all numbers.  Anything else is "any".
"""
from __future__ import annotations

import builtins
import math
import operator
from typing import Any, Callable

from .. import ops
from ..ir.nodes import Call, Const, Function, Param, Phi, Value

NUM, ANY, RANGE = "num", "any", "range"

_ARITH = {
    operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod, operator.pow,
    operator.neg, operator.pos, operator.abs, operator.iadd, operator.isub, operator.imul, operator.itruediv,
    operator.ipow, operator.ifloordiv, operator.imod,
}
_NUM_RESULT = {builtins.len, builtins.float, builtins.int, operator.not_, builtins.bool, builtins.isinstance}
# (comparisons and `round` of arrays are arrays: `x * (a < b)` is an array for a float x)
_NUM_OF_NUMS = {builtins.abs, builtins.min, builtins.max, builtins.pow, builtins.round, operator.lt, operator.le,
                operator.gt, operator.ge, operator.eq, operator.ne}
_MATH_NOT_NUMBER = {math.frexp, math.modf}  # they return pairs


def infer_kinds(fn: Function, param_kinds: dict[str, str], resolve: Callable[[Call], tuple[Any, Any]]) -> dict[Value, str]:
    kinds: dict[Value, str] = {}

    def kind(v: Value) -> str:
        if isinstance(v, Const):
            return NUM if isinstance(v.value, (int, float, bool)) else ANY
        if isinstance(v, Param):
            return param_kinds.get(v.name, ANY)
        if not isinstance(v, (Call, Phi)):
            return ANY  # a global or a closure variable: whatever it holds when the code runs
        return kinds.get(v, NUM)  # optimistic for not-yet-seen statements inside loops (fixpoint)

    changed = True
    while changed:
        changed = False
        for b in fn.blocks:
            for phi in b.phis:
                k = NUM if all(kind(v) == NUM or (isinstance(v, Const) and v.value is not None and
                                                   type(v.value).__name__ == "_Undefined") for v in phi.incoming.values()) else ANY
                if kinds.get(phi) != k:
                    kinds[phi], changed = k, True
            for s in b.stmts:
                fnv, _ = resolve(s)
                k = ANY
                if fnv in _ARITH or fnv in _NUM_OF_NUMS:
                    k = NUM if s.args and all(kind(a) == NUM for a in s.args) and not s.kwargs else ANY
                elif fnv in _NUM_RESULT:
                    k = NUM
                elif getattr(fnv, "__module__", None) == "math" and fnv not in _MATH_NOT_NUMBER:
                    k = NUM
                elif fnv is builtins.range:
                    k = RANGE
                elif fnv in (ops.identity, ops.sequence) and s.args:
                    k = kind(s.args[0])
                elif fnv is operator.getitem and kind(s.args[0]) == RANGE and kind(s.args[1]) == NUM:
                    k = NUM
                if kinds.get(s) != k:
                    kinds[s], changed = k, True
    return kinds
