"""Which data written into a module-level object comes from the inputs (for forward/activity.py's refusal of such
writes, GlobalWriteError).

Activity itself is an over-approximation through alias classes: a call whose callee is not known when the code is
generated (`x[0] * t` with t read from a module-level cache: `t.__mul__` might write t) counts as writing its operands,
which joins the cache's class to the inputs' and makes a constant stored into the cache look input-dependent.  A
module-level cache filled with constants (`_CACHE[n] = np.diag(...)` keyed by `len(x)`, quadrature nodes,
scipy.integrate.fixed_quad's `_cached_roots_legendre`) was refused so, though nothing from the inputs reaches it.

Here a value carries input data if it depends on the inputs by data flow (parameters, then phis and calls with such an
operand), or if it belongs to an alias class that a write stored input data into -- a write that is more than such a
speculative one (an arithmetic operator whose operands' types are unknown).  A write into a module-level object is
refused only where what it stores carries input data so.
"""
from __future__ import annotations

import operator
from typing import Any, Callable

from ..ir.nodes import Call, Const, Function, Value

# Operators that compute a new value; with unknown operand types a user's dunder method might write an operand, so
# activity counts them as writes, but they are no evidence of input data stored anywhere.
SPECULATIVE_WRITERS = frozenset({
    operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod, operator.pow,
    operator.neg, operator.pos, operator.abs, operator.matmul, operator.lt, operator.le, operator.gt, operator.ge,
    operator.eq, operator.ne,
})


def data_flow(fn: Function, seeds: frozenset, flowing: Callable[[Call], tuple], no_derivative: Callable[[Call], bool],
              is_source: Callable[[Call], bool]) -> set:
    """The values of fn that depend on the inputs by data flow alone: the seeds, phis with such an incoming value, and
    calls with such a flowing operand (but calls without a derivative) or that is_source names (a callee reading state
    the inputs may have written)."""
    found: set[Value] = set(seeds)
    changed = True
    while changed:
        changed = False
        for b in fn.blocks:
            for phi in b.phis:
                if phi not in found and any(v in found for v in phi.incoming.values()):
                    found.add(phi)
                    changed = True
            for s in b.stmts:
                if s in found or no_derivative(s):
                    continue
                if any(v in found for v in flowing(s) if not isinstance(v, Const)) or is_source(s):
                    found.add(s)
                    changed = True
    return found


def speculative(raw: Any, rule: Any) -> bool:
    """Is a call of `raw` (no rule known) counted as a write only because its operands' types are unknown?"""
    try:
        return rule is None and raw in SPECULATIVE_WRITERS
    except TypeError:
        return False
