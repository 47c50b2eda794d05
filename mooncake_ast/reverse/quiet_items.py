"""The items of a returned tuple that a caller never gives an adjoint: derived knowing so, never 0.0 times infinity.

`ssr, sse, sst, r2, mae, msr, mse, f = regression_statistics(...)` keeps six items of eight; the two it drops
(`msr = ssr / 0`, `f = msr / mse`) are infinite.  A pullback typed for numbers turns the symbolic zero those
items get into 0.0, and 0.0 * inf is nan: the whole gradient.  So a dispatched call whose tuple items (numbers)
nothing here depends on passes their positions to rcall (`quiet`), and the callee is derived with those items'
adjoints the symbolic zero (transform.ReverseTransform skips them where its returned tuples are reversed): their
code has no reverse at all, as it would have none if the callee did not return them.  Only numbers: an array item
may still get an adjoint through identity-keyed storage (written in place after the call), which its value's
unused name would not show.
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING

from .. import ops
from ..ir.nodes import Call, Const, Global, Value
from ..ir.types import Num, Tup
from . import call_types
from .buffers import uses_of

if TYPE_CHECKING:
    from .transform import ReverseTransform


def unread_numbers(rt: "ReverseTransform", s: Call) -> tuple:
    """Positions of the tuple the dispatched call s returns that certainly get no adjoint here: numbers this
    function reads only by unpacking or indexing with a constant, where nothing it returns depends on them (or
    not at all)."""
    t = rt.type_of(s)
    if isinstance(t, Tup):
        numbers = tuple(k for k, item in enumerate(t.items) if isinstance(item, Num))
    else:  # (a tuple with items the emitter does not type: which ones are numbers, from the callee's code)
        callee = call_types.user_function(rt.resolver, s) or call_types.local_function(s, rt.resolver.g)
        numbers = call_types.number_items(callee, s, [rt.type_of(a) for a in s.args]) \
            if callee is not None and not s.kwargs else ()
        if numbers and isinstance(s.fn, Global):
            rt.resolver.bindings[s.fn.name] = callee  # (the derivative is stale once the name is rebound)
    if not numbers:
        return ()
    uses = _uses(rt)
    reads: dict = {}
    for st, pos in uses.get(s, []):
        if not (isinstance(st, Call) and pos == 0 and not st.kwargs and len(st.args) == 2):
            return ()
        if st.callee() is ops.unpack:
            for item, k in uses.get(st, []):
                if not (isinstance(item, Call) and item.callee() is operator.getitem and k == 0 and
                        isinstance(item.args[1], Const) and type(item.args[1].value) is int):
                    return ()
                reads.setdefault(item.args[1].value, []).append(item)
        elif st.callee() is operator.getitem and isinstance(st.args[1], Const) and type(st.args[1].value) is int:
            reads.setdefault(st.args[1].value, []).append(st)
        else:
            return ()

    def unused(v: Value) -> bool:  # (only statements that influence nothing read it: no adjoint can reach it)
        return all(isinstance(st, Call) and st not in rt.useful for st, _ in uses.get(v, []))

    return tuple(k for k in numbers if all(unused(v) for v in reads.get(k, ())))


def _uses(rt: "ReverseTransform") -> dict:
    memo = getattr(rt, "_uses_memo", None)
    if memo is None:
        memo = rt._uses_memo = uses_of(rt)  # type: ignore[attr-defined]
    return memo
