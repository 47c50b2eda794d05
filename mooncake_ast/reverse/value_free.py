"""The forward pass without the value: what `mc.grad` runs when it does not return the value.

A gradient needs the tape, not the function's value; for a loss like
`-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))` the logarithms, the products and the mean feed
only the value, and the pullback never reads them (it needs p and y).  A person writing the gradient
by hand skips them.  `strip` turns the finished forward IR into `<f>__forward_tape`: the same code less
every statement whose result reaches only the returned value, returning `(None, tape)`.

Only pure statements go: arithmetic, comparisons and NumPy / math functions with a non-mutating rule,
on operands typed as numbers or arrays (so no user `__mul__` can run and nothing is written).
Everything else -- calls to user code, writes, pushes on the tape's stacks, branch conditions -- stays,
with whatever it reads.  It applies only when every return is typed a real scalar (`grad` checks the
value's type otherwise, and it needs the value for that).
"""
from __future__ import annotations

import builtins
import operator
import types
from typing import TYPE_CHECKING, Any

import numpy as np

from ..ir.nodes import Branch, Call, Const, Function, Phi, Return, Value
from ..ir.types import FLOAT, Arr, Num, size_symbol
from ..rules import registry

if TYPE_CHECKING:
    from .transform import ReverseTransform

_PURE_OPERATORS = {operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
                   operator.pow, operator.neg, operator.pos, operator.matmul, operator.lt, operator.le, operator.gt,
                   operator.ge, operator.eq, operator.ne, operator.getitem, abs}


def strip(rt: "ReverseTransform", fwd: Function) -> bool:
    """Make `fwd` the value-free forward pass (in place); False, and fwd unchanged, when nothing would go."""
    returns = [b for b in fwd.blocks if isinstance(b.term, Return)]
    pairs = [b.term.value for b in returns]
    if not returns or not all(isinstance(p, Call) and len(p.args) == 2 for p in pairs):
        return False
    if not all(rt.type_of(p.args[0]) == FLOAT or _is_float_const(p.args[0]) for p in pairs):  # type: ignore[union-attr]
        return False
    values = [*(s for b in fwd.blocks for s in b.stmts), *(p for b in fwd.blocks for p in b.phis)]
    pure = {id(v) for v in values if _pure(rt, v)}
    # `t.size` (recorded for a mean's adjoint) needs t's shape, not t: read it off an array of the same
    # type the pass keeps anyway (a parameter, or a value computed before it in its block).
    shapes = {id(s): s for s in values if _shape_read(rt, s)}
    redirected: set = set()
    needed = _needed(fwd, pure, pairs, shapes)
    for a in shapes.values():
        if id(a) in needed and id(a.args[0]) not in needed and id(a.args[0]) in pure:
            same = _same_shape(rt, fwd, a, needed)
            if same is not None:
                a.args[0] = same
                redirected.add(id(a))
    needed = _needed(fwd, pure, pairs, {k: v for k, v in shapes.items() if k in redirected})
    gone = [v for v in values if id(v) in pure and id(v) not in needed]
    work = [v for v in gone if isinstance(v, Call) and not _module_function(rt, v)]
    if len(work) < _WORTH and not any(v.block in rt.in_loop for v in work):
        return False  # (a third function in the module for a pass or two saved is not worth reading)
    drop = {id(v) for v in gone}
    for b in fwd.blocks:
        b.stmts = [s for s in b.stmts if id(s) not in drop]
        b.phis = [p for p in b.phis if id(p) not in drop]
    for p in pairs:
        p.args[0] = Const(None)  # type: ignore[union-attr]
    return True


def _needed(fwd: Function, pure: set, pairs: list, soft: dict) -> set:
    """Ids of what the value-free pass must compute: everything impure, branch conditions, the tape, and
    what they read (a `soft` shape read does not need its array)."""
    needed: set = set()
    work: list = []

    def need(v: Any) -> None:
        if isinstance(v, (Call, Phi)) and id(v) not in needed:
            needed.add(id(v))
            work.append(v)

    for b in fwd.blocks:
        for s in b.stmts:
            if id(s) not in pure and s not in pairs:
                need(s)
        if isinstance(b.term, Branch):
            need(b.term.cond)
        elif isinstance(b.term, Return):
            need(b.term.value.args[1])  # type: ignore[union-attr]  # the tape
        else:
            for v in b.term.operands():
                need(v)
    while work:
        v = work.pop()
        if id(v) in soft:
            continue
        operands = list(v.incoming.values()) if isinstance(v, Phi) else [v.fn, *v.args, *v.kwargs.values()]
        for o in operands:
            need(o)
    return needed


def _shape_read(rt: "ReverseTransform", s: Any) -> bool:
    if not (isinstance(s, Call) and s.callee() is builtins.getattr and len(s.args) == 2 and isinstance(s.args[1], Const)
            and s.args[1].value in ("shape", "size", "ndim")):
        return False
    t = rt.type_of(s.args[0])
    return isinstance(t, Arr) and t.axes is not None and all(d == "1" or size_symbol(d) is not None for d in t.axes)


def _same_shape(rt: "ReverseTransform", fwd: Function, a: Call, needed: set) -> Any:
    """A parameter, or a value computed before `a` in its block that the pass keeps, of a's array's type
    (every axis of known size: equal types mean equal shapes)."""
    t = rt.type_of(a.args[0])
    for p in fwd.params:
        if rt.type_of(p) == t:
            return p
    block = a.block
    for s in block.stmts[:block.stmts.index(a)] if block is not None else []:
        if id(s) in needed and rt.type_of(s) == t:
            return s
    return None


_WORTH = 3  # operations the value-free pass must save (outside loops) to be emitted


def _module_function(rt: "ReverseTransform", v: Call) -> bool:
    return v.callee() is builtins.getattr and len(v.args) == 2 and isinstance(rt.resolver.resolve(v.args[0]), types.ModuleType)


def _is_float_const(v: Value) -> bool:
    return isinstance(v, Const) and type(v.value) is float


def _pure(rt: "ReverseTransform", v: Any) -> bool:
    if isinstance(v, Phi):
        return True
    if not isinstance(v, Call) or v.kwargs:
        return False
    if v.callee() is builtins.getattr and len(v.args) == 2 and isinstance(v.args[1], Const):
        return _module_function(rt, v)  # `np.mean`: the function itself
    fn = rt.resolver.callee(v)[0]
    if fn is None or not all(_plain_operand(rt, a) for a in v.args):
        return False
    if fn in _PURE_OPERATORS or isinstance(fn, np.ufunc):
        return True
    rule = registry.lookup(fn) if getattr(fn, "__module__", "") in ("numpy", "math") or \
        str(getattr(fn, "__module__", "")).startswith("numpy.") else None
    return rule is not None and not rule.mutates and rule.user_rrule is None and rule.user_frule is None


def _plain_operand(rt: "ReverseTransform", a: Value) -> bool:
    if isinstance(a, Const):
        return type(a.value) in (int, float, bool, type(None)) or isinstance(a.value, (tuple, slice))
    t = rt.type_of(a)
    return isinstance(t, (Num, Arr))
