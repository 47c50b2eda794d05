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

from .. import ops
from ..ir.nodes import Branch, Call, Const, Function, Phi, Return, Value
from ..ir.types import FLOAT, Arr, Dct, Num, Tup, size_symbol
from .prepare import hashable

if TYPE_CHECKING:
    from .transform import ReverseTransform

# What may go: nothing that can raise (the plain call would then fail where the value-free pass goes on
# and returns a gradient).  Arithmetic on arrays follows NumPy (a warning, never an error); on numbers
# only the operations that cannot raise for floats; ufuncs; the reductions that have a value for every
# array.  (math functions raise on domain errors, `/` on zero, np.max on an empty array, np.linalg on
# singular matrices, `@` on mismatched shapes: they stay.)
_SAFE_ON_NUMBERS = {operator.add, operator.sub, operator.mul, operator.neg, operator.pos, operator.lt, operator.le,
                    operator.gt, operator.ge, operator.eq, operator.ne, abs}
_SAFE_ON_ARRAYS = _SAFE_ON_NUMBERS | {operator.truediv, operator.pow}
_SAFE_REDUCTIONS = {np.sum, np.mean, np.prod}


def strip(rt: "ReverseTransform", fwd: Function) -> bool:
    """Make `fwd` the value-free forward pass (in place); False when too little would go (fwd is then
    not to be emitted again: a shape read may have been moved onto another array of its shape)."""
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
    returned = {id(p) for p in pairs}
    gone = [v for v in values if id(v) in pure and id(v) not in needed and id(v) not in returned]
    work = [v for v in gone if isinstance(v, Call) and not _module_function(rt, v)]
    if len(work) < _WORTH and not any(v.block in rt.in_loop or rt.resolver.callee(v)[0] in _SAFE_REDUCTIONS for v in work):
        return False  # (a third function in the module for a pass or two saved is not worth reading; a NumPy
        # reduction is: `np.mean` alone costs microseconds of Python around its one pass)
    drop = {id(v) for v in gone}
    if not _shape_checks(rt, fwd, drop):
        return False
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
    if fn is ops.identity or fn is ops.tuple_of:
        return True  # (a name for a value, a tuple display: nothing runs that could raise)
    if fn is builtins.getattr and len(v.args) == 2 and isinstance(v.args[1], Const) and \
            v.args[1].value in ("shape", "size", "ndim") and isinstance(rt.type_of(v.args[0]), Arr):
        return True  # (a typed array's layout)
    if fn is operator.getitem and len(v.args) == 2 and isinstance(v.args[1], Const) and type(v.args[1].value) is int:
        t = rt.type_of(v.args[0])
        if isinstance(t, Tup) and -len(t.items) <= v.args[1].value < len(t.items):
            return True  # (an item of a tuple of known length: `x.shape[0]`)
    if fn is operator.getitem and len(v.args) == 2 and isinstance(v.args[1], Const) and \
            isinstance(rt.type_of(v.args[0]), Dct) and rt.type_of(v.args[0]).get(v.args[1].value) is not None:
        return True  # (a key the dict's type names: the derivative is specialised on its keys, and it is only read)
    if fn is None or not hashable(fn) or not all(_plain_operand(rt, a) for a in v.args):
        return False
    types_ = [rt.type_of(a) for a in v.args]
    if any(isinstance(t, Arr) for t in types_):
        if fn is operator.getitem:  # slices never raise; an int index may be out of range
            return len(v.args) == 2 and _slices(v.args[1])
        if fn in _SAFE_REDUCTIONS:
            return isinstance(types_[0], Arr)
        # (NumPy raises only where operands do not broadcast: `_shape_checks` keeps that check)
        return isinstance(fn, np.ufunc) or fn in _SAFE_ON_ARRAYS
    return isinstance(fn, np.ufunc) or fn in _SAFE_ON_NUMBERS


def _shape_checks(rt: "ReverseTransform", fwd: Function, drop: set) -> bool:
    """Where a dropped operation combined arrays whose types do not show that they broadcast, put NumPy's
    own check in its place: `_mc.broadcast_check(a.shape, b.shape)` raises where `a + b` would (the plain
    call fails there, so must the gradient).  Shapes of dropped values are built from their operands'.
    False if a needed shape is not known (the pass is then not made)."""
    shapes: dict = {}  # id of a dropped value -> its shape: Const(()), ("of", kept value), or a check

    def shape_of(v: Any) -> Any:
        if isinstance(v, Const) or isinstance(rt.type_of(v), Num):
            return Const(())
        if id(v) in drop:
            return shapes.get(id(v))
        while isinstance(v, Call) and id(v) not in drop and _pure(rt, v):
            # a kept `1.0 - y` has y's shape: a check of it is a check of y (made once: `seen` below)
            fn = rt.resolver.callee(v)[0]
            arrays = [a for a in v.args if isinstance(rt.type_of(a), Arr)]
            if not ((isinstance(fn, np.ufunc) or fn in _SAFE_ON_ARRAYS) and len(arrays) == 1
                    and all(a is arrays[0] or isinstance(rt.type_of(a), Num) and not isinstance(a, Const)
                            or isinstance(a, Const) and type(a.value) in (int, float, bool) for a in v.args)):
                break
            v = arrays[0]
            if id(v) in drop:  # (not so: what a kept value reads is kept)
                return shapes.get(id(v))
        return ("of", v)

    def key(p: Any) -> Any:
        return ("of", id(p[1])) if isinstance(p, tuple) else id(p)

    rewritten: list = []  # (block, its statements with the checks): applied once all are known
    for b in fwd.blocks:
        out: list = []
        seen: dict = {}  # the shapes checked in this block -> the check
        for st in b.stmts:
            if id(st) in drop and isinstance(st, Call):
                fn = rt.resolver.callee(st)[0]
                if fn in _SAFE_REDUCTIONS:
                    shapes[id(st)] = Const(()) if len(st.args) == 1 else None
                elif fn is not None and fn not in (builtins.getattr, operator.getitem):
                    parts = [shape_of(a) for a in st.args]
                    if any(p is None for p in parts):
                        return False
                    arrays = [p for a, p in zip(st.args, parts) if isinstance(rt.type_of(a), Arr)]
                    if len(arrays) <= 1 or _broadcast([rt.type_of(a) for a in st.args]):
                        shapes[id(st)] = arrays[0] if arrays else Const(())
                    elif tuple(key(p) for p in arrays) in seen:
                        shapes[id(st)] = seen[tuple(key(p) for p in arrays)]
                    else:
                        operands = []
                        for p in arrays:
                            if isinstance(p, tuple):
                                p = Call(Const(builtins.getattr), [p[1], Const("shape")], loc=st.loc)
                                p.block = b
                                out.append(p)
                            operands.append(p)
                        check = Call(Const(ops.broadcast_check), operands, loc=st.loc)
                        check.block = b
                        out.append(check)
                        shapes[id(st)] = seen[tuple(key(p) for p in arrays)] = check
            out.append(st)
        rewritten.append((b, out))
    for b, out in rewritten:
        b.stmts = out
    return True


def _slices(index: Value) -> bool:
    if not isinstance(index, Const):
        return False
    parts = index.value if isinstance(index.value, tuple) else (index.value,)
    return all(isinstance(p, slice) or p is Ellipsis for p in parts)


def _broadcast(types_: list) -> bool:
    """Do operands of these types certainly broadcast (aligned axes equal by symbol, or one of size one)?"""
    arrays = [t for t in types_ if isinstance(t, Arr)]
    if any(t.axes is None for t in arrays) or not all(isinstance(t, (Arr, Num)) for t in types_):
        return False
    for k in range(1, max(len(t.axes) for t in arrays) + 1):
        sizes = {t.axes[-k] for t in arrays if len(t.axes) >= k and t.axes[-k] != "1"}
        symbols = {size_symbol(d) for d in sizes}
        if len(sizes) > 1 and (None in symbols or len(symbols) > 1):
            return False
    return True


def _plain_operand(rt: "ReverseTransform", a: Value) -> bool:
    if isinstance(a, Const):
        return type(a.value) in (int, float, bool, type(None)) or isinstance(a.value, (tuple, slice))
    t = rt.type_of(a)
    return isinstance(t, (Num, Arr))
