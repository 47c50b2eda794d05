"""The `t` that reverse rule templates receive while the pullback is being built.

A template (rules/*: `defvjp(fn, lambda t, g, y, *args: ...)`) describes adjoint
contributions with `t.mul`, `t.call`, `t.unb`, ...; here each becomes a statement of the
pullback IR.  Primal operands reach templates as `PH` handles and are recorded in the
forward pass only if a template actually reads them.
"""
from __future__ import annotations

import builtins
import math
import operator
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from .. import ops
from ..ir.nodes import Call, Const, Value
from ..ir.types import (BOOL, FLOAT, FLOAT_ELEMENTWISE, INT, NOT_LITERAL, UNKNOWN, Arr, Lst, Num, Tup, is_float_array, literal, not_one,
                        type_of_argument)
from ..rules.helpers import pow_deriv
from ..rules.strong_zeros import arcsin_slope, cbrt_slope, sqrt_slope, strong_mul, strong_product
from ..tangents import NoTangent
from . import adjoints as adj
from .constant_keys import key_varies
from .handles import PH
from .specialise import Pair, _use_counts, specialised

if TYPE_CHECKING:
    from .transform import ReverseTransform


def _real_type(t: Any) -> bool:
    """A number, a real array, or a list or tuple of those (a list keeps its item type only where typed_lists.py /
    local_lists.py proved that every write keeps it)."""
    if isinstance(t, Lst):
        return t.item == FLOAT or isinstance(t.item, Arr) and t.item.dtype in "fiub"
    if isinstance(t, Tup):
        return bool(t.items) and all(_real_type(i) for i in t.items)
    return isinstance(t, Num) or (isinstance(t, Arr) and t.dtype in "fiub")


class TemplateBuilder:
    """The `t` of reverse templates: builds adjoint code in the pullback."""

    def __init__(self, rt: "ReverseTransform", result_is_num: bool = False, result_type: Any = None,
                 stmt: Any = None, stmt_fn: Any = None) -> None:
        self.rt = rt
        self.result_is_num = result_is_num  # then every operand and adjoint here is a plain number
        self.result_type = result_type  # the abstract value of the statement's result (ir/types.py), if known
        self.stmt = stmt  # the statement reversed (its result's shape is what a spread g stands for)
        # Its operands broadcast into its result (arithmetic, ufuncs): then each one's shape fits in the result's.
        self.broadcasting = stmt_fn in _BROADCASTING or isinstance(stmt_fn, np.ufunc)
        self.shapes: dict = {}  # values built here -> "scalar" / "full" / "part" (see _shape)
        self.incoming: Any = None  # the adjoint of the statement's result, which other code reads too
        self._made: dict = {}  # (block, helper, operand ids) -> (value, operands): one call of a pure helper each

    def receive(self, g: Value) -> None:
        """g, the adjoint of the statement's result: it has the result's shape (a spread keeps its own)."""
        self.incoming = g
        if self.rt.is_dense(g) and self.rt.spreads.of(g) is None:
            shape = "scalar" if self.result_is_num else "full" if is_float_array(self.result_type) else None
            if shape is not None:
                self.shapes[g] = shape

    def type_of(self, h: Any) -> Any:
        """The abstract value of a primal operand (UNKNOWN for anything that is not one)."""
        if isinstance(h, PH):
            return self.rt.type_of(h.v)
        if isinstance(h, Const):
            return type_of_argument(h.value)
        return UNKNOWN

    def certainly_real(self, v: Value) -> bool:
        """Is primal value v certainly not complex when the code runs (a number, a real array, by its type)?"""
        if isinstance(v, Const):
            return not isinstance(v.value, (complex, np.complexfloating)) and \
                not (isinstance(v.value, np.ndarray) and v.value.dtype.kind == "c")
        if self.rt.is_num(v):
            return True
        if isinstance(v, Call) and v.callee() in (ops.list_of, ops.tuple_of) and not v.kwargs and \
                _use_counts(self.rt).get(v) == 1:
            return all(self.certainly_real(a) for a in v.args)  # (a display only this statement reads: its items)
        return _real_type(self.rt.type_of(v))

    def refuse_complex_unless_safe(self, rule: Any, fn: Any, s: Call) -> None:
        """A rule whose reverse template is not marked right for complex values (registry.defcomplex) gets a check
        in the pullback that its result and differentiated operands are not complex, unless their types prove
        it: a real formula must never run on complex numbers (a missing conj is a silently wrong gradient)."""
        if rule.complex_ok:
            if fn in _POW and self.rt.is_num(s) and not _integral(literal(s.args[1]) if len(s.args) > 1 else 1) and \
                    not (len(s.args) > 1 and self.rt.type_of(s.args[1]) in (INT, BOOL)) and \
                    not _never_negative(self.rt, s.args[0]):  # (x ** k of an int k, 2 ** x, abs(z) ** 1.5: real)
                # Python's float ** float is complex for a negative base: the numbers' plain templates after it
                # (typed as real numbers, ir/inference.py) must not see it, so such a result is refused here.
                a, b = s.args[0], s.args[1] if len(s.args) > 1 else Const(1)
                check = self.rt.b.call(adj.refuse_complex_power, [self.rt.primal(a), self.rt.primal(b)])
                check.keep = True  # type: ignore[attr-defined]
            return
        values = [s] + [a for a in (*s.args, *s.kwargs.values()) if self.rt.active(a)]
        doubtful = [v for v in dict.fromkeys(values) if not self.certainly_real(v)]
        if doubtful:
            from ..rules.fingerprints import qualified

            check = self.rt.b.call(adj.refuse_complex_rule, [Const(qualified(fn)), *(self.rt.primal(v) for v in doubtful)])
            check.keep = True  # type: ignore[attr-defined]

    def dense(self, g: Any) -> bool:
        """Is the adjoint g certainly a real value when the pullback runs (never the symbolic zero)?"""
        return isinstance(g, Value) and self.rt.is_dense(g)

    def is_const(self, h: Any) -> bool:
        return (isinstance(h, PH) and isinstance(h.v, Const) or isinstance(h, Const)
                or isinstance(h, (int, float)) and not isinstance(h, bool))

    def _val(self, x: Any) -> Value:
        if isinstance(x, PH):
            return self.rt.primal(x.v)
        return x if isinstance(x, Value) else Const(x)

    def num(self, h: Any) -> bool:
        return isinstance(h, PH) and (isinstance(h.v, Const) and isinstance(h.v.value, (int, float)) or
                                      self.rt.is_num(h.v))

    def literal(self, h: Any) -> Any:
        """The number an operand certainly is when the pullback is made (`-2` included), or NOT_LITERAL."""
        v = h.v if isinstance(h, PH) else h
        if isinstance(v, Value):
            return literal(v)
        return v if type(v) in (int, float) else NOT_LITERAL

    def value(self, h: Any) -> Any:
        v = h.v if isinstance(h, PH) else h
        if isinstance(v, Call):
            k = literal(v)  # (`axis=-1` is neg(1) in the IR)
            return v if k is NOT_LITERAL else k
        return v.value if isinstance(v, Const) else v

    def needs(self, h: Any) -> bool:
        """Does operand h get an adjoint at all?"""
        return isinstance(h, PH) and self.rt.active(h.v)

    def varied(self, h: Any) -> bool:
        """Does operand h depend on the inputs (whether or not its adjoint is wanted: a dict's key)?"""
        return isinstance(h, PH) and key_varies(self.rt, h.v)

    def call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        if fn is operator.getitem and len(args) == 2 and isinstance(args[0], Pair):
            return args[0][args[1]]  # a part of what a specialised helper worked out
        spreads = self.rt.spreads
        if fn in _ARITHMETIC and not kwargs:
            values = [self.value(a) if isinstance(a, (PH, Const)) else a for a in args]
            if all(type(v) in (int, float) for v in values):
                try:
                    return Const(fn(*values))  # constants: `2 - 1.0` is 1.0 when the pullback is made
                except ArithmeticError:
                    pass  # (1.0 / 0: left to the run time, which says what NumPy or Python says)
            shapes = [self._shape(a) for a in args]
            targets = {spreads.of(a) for a in args} - {None}
            if None not in shapes and len(targets) <= 1:
                out = self.rt.b.call(fn, [self._val(a) for a in args])
                self.rt.dense_values.add(out)
                if "full" in shapes:
                    self.shapes[out] = "full"
                elif targets:
                    spreads.mark(out, targets.pop())  # scalar arithmetic on a spread: still a spread
                else:
                    self.shapes[out] = "part" if "part" in shapes else "scalar"
                return out
        if fn is getattr and len(args) == 2 and isinstance(args[0], PH) and args[1] in ("shape", "size", "ndim"):
            out = self.rt.primal_attr(args[0].v, args[1])  # (recorded as it is: the tape need not keep the array)
            self.rt.dense_values.add(out)
            if args[1] != "shape":
                self.shapes[out] = "scalar"
            return out
        if fn is strong_mul and not kwargs and len(args) == 2:
            kept = self._strong_mul_of_spread(args)
            if kept is not None:
                return kept
        plain = specialised(self, fn, args, kwargs)  # (its entries pass spreads only to what broadcasts them)
        if plain is not NotImplemented:
            return plain
        args = tuple(spreads.materialize(a) for a in args)
        kwargs = {k: spreads.materialize(v) for k, v in kwargs.items()}
        operands = [self._val(a) for a in args]
        key = None
        if fn in _PURE_HELPERS and not kwargs:
            # (`px * px`: its two partials are one product, made once: `t = strong_mul(px, g); px_bar = t + t`)
            key = (id(self.rt.b.block), fn, tuple(id(o) for o in operands))
            made = self._made.get(key)
            if made is not None:
                return made[0]
        out = self.rt.b.call(fn, operands, {k: self._val(v) for k, v in kwargs.items()})
        if key is not None:
            self._made[key] = (out, operands)
        if _keeps_dense(fn) and self._dense_inputs(fn, args, kwargs):
            self.rt.dense_values.add(out)
        if fn is getattr and len(args) == 2 and args[1] in ("size", "ndim") or fn is len:
            self.shapes[out] = "scalar"
        elif (isinstance(fn, np.ufunc) and fn.nout == 1 or fn in _ELEMENTWISE_HELPERS) and not kwargs:
            shapes = [self._shape(a) for a in args]  # (np.cos(x) in the pullback of np.sin(x) has x's shape)
            if shapes and None not in shapes:
                self.shapes[out] = "full" if "full" in shapes else "part" if "part" in shapes else "scalar"
        return out

    def _strong_mul_of_spread(self, args: tuple) -> Optional[Value]:
        """strong_mul(g, slope) (or (y, g)) with g a spread of this statement's result and a slope of the
        result's full shape: g stays a number, which broadcasts as the array it stands for (no np.full)."""
        spreads = self.rt.spreads
        for i, a in enumerate(args):
            other = args[1 - i]
            if spreads.of(a) is not None and spreads.of(a) is self.stmt and spreads.of(other) is None and \
                    self._shape(other) == "full" and self._dense_operand(other):
                out = self.rt.b.call(strong_mul, [self._val(x) for x in args])
                self.rt.dense_values.add(out)
                self.shapes[out] = "full"
                return out
        return None

    def plain_numbers(self, g: Any, *operands: Any) -> bool:
        """Are g and the operands certainly real numbers when the pullback runs (by their types), so that a
        template may use Python's own conditional on them?"""
        return self.result_is_num and self.dense(g) and all(
            isinstance(self.type_of(h), Num) and self.type_of(h).kind in ("float", "int", "bool") for h in operands)

    def choose(self, cond: Any, a: Any, b: Any) -> Value:
        """`a if cond else b` in the pullback, for real numbers a and b (plain_numbers)."""
        out = self.rt.b.call(ops.choose, [self._val(cond), self._val(a), self._val(b)])
        self.rt.dense_values.add(out)
        self.shapes[out] = "scalar"
        return out

    def spread(self, g: Value, like: Any) -> Value:
        """g (a real scalar) standing for an array of like's shape, without making the array (spread.py)."""
        if isinstance(like, PH) and g is not self.incoming and self.shapes.get(g) == "scalar":
            return self.rt.spreads.mark(g, like.v)  # (a value made here for this: it may take the meaning)
        return self.rt.spreads.new(g, like.v) if isinstance(like, PH) else g

    def _shape(self, a: Any) -> Optional[str]:
        """How an operand of elementwise adjoint arithmetic fits the statement's result: "scalar", "full" (its
        shape), "part" (broadcasts into it), "spread" (spread.py), or None (not known: spreads are made real)."""
        if isinstance(a, (int, float)) and not isinstance(a, bool) or isinstance(a, Const) and type(a.value) in (int, float):
            return "scalar"
        if self.rt.spreads.of(a) is not None:
            return "spread"
        if isinstance(a, PH):
            ta, tr = self.type_of(a), self.result_type
            if isinstance(ta, Num):
                return "scalar"
            if a.v is self.stmt:
                return "full"
            st = self.stmt
            if self.broadcasting and is_float_array(ta) and st is not None and not st.kwargs and a.v in st.args and \
                    all(x is a.v or isinstance(self.rt.type_of(x), Num) for x in st.args):
                return "full"  # (the statement's only array operand, `c * c`, `x ** 2`: the result has its shape)
            if not (self.broadcasting and is_float_array(ta) and is_float_array(tr)) or len(ta.axes) > len(tr.axes):
                return None
            # (an operand's axis that is not one has the result's size: that is how broadcasting works)
            same = len(ta.axes) == len(tr.axes) and all(not_one(d) or d == e == "1" for d, e in zip(ta.axes, tr.axes))
            return "full" if same else "part"
        if isinstance(a, Value):
            return self.shapes.get(a)
        return None

    def _dense_inputs(self, fn: Any, args: tuple, kwargs: dict) -> bool:
        """Are the operands that decide whether fn gives a real value real?  Every one of an operator's; of an
        adjoint helper that gives an array whenever its adjoint `g` is one (`dense_in_dense`), that one only (its
        other operands are primal values and settings, `axis=None` among them)."""
        pos = _adjoint_position(fn) if getattr(fn, "dense_in_dense", False) else None
        if pos is not None:
            g = args[pos] if pos < len(args) else kwargs.get("g")
            return g is not None and self._dense_operand(g)
        return all(self._dense_operand(a) for a in (*args, *kwargs.values()))

    def _dense_operand(self, a: Any) -> bool:
        if isinstance(a, PH) or not isinstance(a, Value):
            return a is not None
        if isinstance(a, Const):
            return a.value is not NoTangent
        return self.rt.is_dense(a)

    def add(self, a: Any, b: Any) -> Any:
        if a is None:
            return b
        if b is None:
            return a
        return self.call(operator.add, a, b)

    def sub(self, a: Any, b: Any) -> Any:
        if b is None:
            return a
        if a is None:
            return self.call(operator.neg, b)
        return self.call(operator.sub, a, b)

    def mul(self, a: Any, b: Any) -> Any:
        if a is None or b is None:
            return None
        return self.call(operator.mul, a, b)

    def div(self, a: Any, b: Any) -> Any:
        if a is None:
            return None
        return self.call(operator.truediv, a, b)

    def neg(self, a: Any) -> Any:
        return None if a is None else self.call(operator.neg, a)

    def unb(self, g: Any, like: Any) -> Any:
        """Undo broadcasting: sum `g` down to the shape of `like` (nothing to do for numbers)."""
        if g is None:
            return None
        if self.result_is_num or (isinstance(like, PH) and isinstance(like.v, Const)):
            return g
        return self.call(adj.unbroadcast, g, like)  # (plain NumPy where types settle it: specialise.py)

    def lin(self, fn: Any, g: Any, *args: Any, **kwargs: Any) -> Any:
        return None if g is None else self.call(fn, g, *args, **kwargs)


_POW = frozenset([operator.pow, operator.ipow, pow])
# Run-time helpers elementwise in their operands (a result of the operands' broadcast shape), as ufuncs are.
_ELEMENTWISE_HELPERS = frozenset([strong_mul, sqrt_slope, cbrt_slope, arcsin_slope, pow_deriv])
# Of them, those a template may call once for two equal calls (pure functions of their operands).
_PURE_HELPERS = frozenset([strong_mul, strong_product, sqrt_slope, cbrt_slope, arcsin_slope])


def _integral(k: Any) -> bool:
    """Is a literal exponent a whole number (then a ** k of a real a is real)?"""
    return type(k) in (int, float) and float(k).is_integer()


_ARITHMETIC = frozenset([operator.add, operator.sub, operator.mul, operator.truediv, operator.neg, operator.pos])
_BROADCASTING = _ARITHMETIC | {operator.pow, operator.floordiv, operator.mod}


_NON_NEGATIVE = (builtins.abs, operator.abs, math.fabs, math.exp, math.sqrt, math.hypot, math.cosh)


def _never_negative(rt: "ReverseTransform", v: Value) -> bool:
    """Is the base v of a power never a negative real number (a literal >= 0; what abs, math.fabs, math.exp,
    math.sqrt, math.hypot, math.cosh give: a float >= 0, or nan, or they raise)?  Its power of any real exponent
    is real (or nan): no complex result to refuse."""
    if isinstance(v, Const):
        return type(v.value) in (int, float, bool) and v.value >= 0
    if not (isinstance(v, Call) and not v.kwargs):
        return False
    fn = rt.resolver.callee(v)[0]
    return any(fn is f for f in _NON_NEGATIVE)


_ADJOINT_POSITIONS: dict = {}


def _adjoint_position(fn: Any) -> Optional[int]:
    """The position of the parameter `g` (the adjoint) of a helper, or None."""
    if fn not in _ADJOINT_POSITIONS:
        code = getattr(fn, "__code__", None)
        names = code.co_varnames[:code.co_argcount] if code is not None else ()
        _ADJOINT_POSITIONS[fn] = names.index("g") if "g" in names else None
    return _ADJOINT_POSITIONS[fn]


def _keeps_dense(fn: Any) -> bool:
    """Operators and NumPy functions of real values give real values; our run-time helpers may give the
    symbolic zero (except the numeric ones, ir/types.FLOAT_ELEMENTWISE)."""
    return not (getattr(fn, "__module__", None) or "").startswith("mooncake_ast") or fn in FLOAT_ELEMENTWISE or \
        getattr(fn, "dense_in_dense", False)  # (an adjoint helper that gives an array whenever its g is one)
