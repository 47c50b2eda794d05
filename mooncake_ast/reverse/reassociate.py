"""Products in the pullback, ordered so that arrays are touched as few times as possible.

Rule templates are written one factor at a time, so the pullback of
`100.0 * (a - b ** 2) ** 2` first reads `g * 100.0 * (2.0 * a)`: three passes over `a`'s
elements where a person writes one, `g * 200.0 * a`, with the scalars multiplied first; and
`-(-(g * p / q) * r)` where a person writes `g * p / q * r`.  This pass flattens each
product (a chain of `*`, `/` and unary `-` whose inner results are used nowhere else) into
its sign, numerator and denominator factors, folds the constants, and writes it again as

    (scalar factors, constant folded in) * array factors / array denominators

when that takes fewer operations on arrays than the original.  Factors are reordered only
when each is known to be a number or a NumPy array (a primal of known type, a real adjoint
of one, a constant), so `*` is NumPy's commutative, broadcasting product; anything else
(objects with their own `__mul__`, the symbolic zero) leaves the chain as it is.
"""
from __future__ import annotations

import math
import operator
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from .. import ops
from ..ir.analysis import uses
from .cleanup import writes_nothing
from ..ir.nodes import Call, Const, Function, Phi, Return, Value
from ..ir.types import Arr, Num

if TYPE_CHECKING:
    from .transform import ReverseTransform

_PRODUCT = {operator.mul: 2, operator.truediv: 2, operator.neg: 1}
_ELEMENTWISE = {operator.mul, operator.truediv, operator.neg, operator.add, operator.sub, operator.pos, ops.identity}


class _Chain:
    __slots__ = ("sign", "num", "den", "cost")

    def __init__(self, sign: float, num: list, den: list, cost: int) -> None:
        self.sign, self.num, self.den, self.cost = sign, num, den, cost


def reassociate(rt: "ReverseTransform", fn: Function) -> None:
    """Rewrite the products of fn (the pullback under construction) in place; dead factors are swept after."""
    count = uses(fn)
    kinds = _Kinds(rt)
    chains: dict[Call, _Chain] = {}
    for blk in fn.blocks:
        out: list = []
        epoch: dict = {}  # statement -> how many statements that may change an object came before it
        now = 0
        for s in blk.stmts:
            epoch[s] = now
            chain = _chain_of(s, blk, count, chains, kinds, epoch)
            if chain is not None:
                chains[s] = chain
                plan = _plan(chain, kinds)
                if plan is not None and plan[1] < chain.cost:
                    _rewrite(s, blk, plan[0], out, count, epoch)
            else:
                _factor_sum(s, blk, count, chains, kinds, epoch, out)
            out.append(s)
            if not writes_nothing(s):
                now += 1
        blk.stmts = out


def _factor_sum(s: Any, blk: Any, count: dict, chains: dict, kinds: "_Kinds", epoch: dict, out: list) -> None:
    """`a + b` of two array products with a scalar factor f in common, written `f * (a' + b')` when that
    touches arrays fewer times: the two contributions of a loss's terms to one adjoint,
    `-s * t3 / t4 + s * y / p`, become `s * (y / p - t3 / t4)`.  (The products a and b are used only here
    and made since the last statement that may have changed an object; their planned operations move down
    to just before s.)"""
    if not isinstance(s, Call) or s.kwargs or s.callee() not in (operator.add, operator.sub) or len(s.args) != 2:
        return
    a, b = s.args
    if a is b or kinds.of(s) != "array":
        return
    parts = []
    for x in (a, b):
        ch = chains.get(x) if isinstance(x, Call) and x.block is blk and count.get(x, 0) == 1 else None
        if ch is None or epoch.get(x) != epoch[s] or x not in out or kinds.of(x) != "array":
            return
        parts.append(ch)
    ca, cb = parts
    common = next((_root(f, blk) for f in ca.num if not isinstance(f, Const) and kinds.of(f) == "scalar"
                   and any(_root(f, blk) is _root(g, blk) for g in cb.num)), None)
    if common is None:
        return

    def without(ch: _Chain) -> _Chain:
        k = next(i for i, g in enumerate(ch.num) if _root(g, blk) is common)
        return _Chain(1.0, ch.num[:k] + ch.num[k + 1:], ch.den, 0)

    sa = ca.sign
    k = sa * cb.sign * (1.0 if s.callee() is operator.add else -1.0)
    if k > 0 and _same(without(ca), without(cb), blk):
        # `f*A + f*A` (the pullback of `x * x`): one product, 2*f*A
        twice = _Chain(sa, [Const(2.0), *ca.num], ca.den, 0)
        f = common
        inner = chains.get(f)
        if inner is not None and f.block is blk and epoch.get(f) == epoch[s] and count.get(f, 0) <= 2:
            # (the factor is itself a product, `out_bar * 0.5`: its factors join, and the constants fold; not when
            # something else reads it too: its factors would be read in two places, and a temporary read only by
            # it must stay where it is, not move down to the sum: `math.tanh(a @ a - x)`, random programs)
            rest = without(ca)
            twice = _Chain(sa * inner.sign, [Const(2.0), *inner.num, *rest.num], inner.den + rest.den, 0)
        plan = _plan(twice, kinds)
        if plan is not None and plan[1] < ca.cost + cb.cost + 1:
            _rewrite(s, blk, plan[0], out, count, epoch)
        return
    plan_a, plan_b = _plan(without(ca), kinds), _plan(without(cb), kinds)
    if plan_a is None or plan_b is None or plan_a[1] + plan_b[1] + 2 >= ca.cost + cb.cost + 1:
        return
    # s = sa*f*A (+/-) sb*f*B = sa*f*(A + k*B) with k = sa*(+/-1)*sb; -(A - B) is B - A
    if sa < 0 and k < 0:
        inner_args, sign = [b, a], 1.0
    else:
        inner_args, sign = [a, b], sa
    plans = {id(a): plan_a[0], id(b): plan_b[0]}
    for x in inner_args:  # (made in the order the sum reads them: each prints inline)
        out.remove(x)
        kinds.rt.adjoint_of.pop(x, None)  # (a part of an adjoint now, not the adjoint: named as a temporary)
        _rewrite(x, blk, plans[id(x)], out, count, epoch)
        out.append(x)
    inner = Call(Const(operator.add if k > 0 else operator.sub), inner_args, loc=s.loc)
    inner.block = blk
    out.append(inner)
    for x in (a, b, inner):
        epoch[x] = epoch[s]
    factor: Any = common
    if sign < 0:
        factor = Call(Const(operator.neg), [common], loc=s.loc)
        factor.block = blk
        out.append(factor)
    s.fn, s.args = Const(operator.mul), [factor, inner]
    count[inner] = 1  # (s is no chain for the product that reads it to take in: `p_bar` keeps its line)


def _root(f: Any, blk: Any) -> Any:
    """f, or the value it is a second name of (a spread's alias, spread.Spreads.new) made in this block."""
    while isinstance(f, Call) and f.callee() is ops.identity and len(f.args) == 1 and f.block is blk:
        f = f.args[0]
    return f


def _same(a: _Chain, b: _Chain, blk: Any) -> bool:
    """Are two chains the same product (the same factors, constants by value, in the same order)?"""
    def key(fs: list) -> list:
        return [("c", f.value) if isinstance(f, Const) else ("v", id(_root(f, blk))) for f in fs]
    return a.sign == b.sign and key(a.num) == key(b.num) and key(a.den) == key(b.den)


def _chain_of(s: Any, blk: Any, count: dict, chains: dict, kinds: "_Kinds", epoch: dict) -> Optional[_Chain]:
    """s as one product, with the single-use products it reads taken in (made since the last statement that
    may have changed an object: its factors are read again where s is)."""
    if not isinstance(s, Call) or s.kwargs or _PRODUCT.get(s.callee()) != len(s.args):
        return None
    parts = []
    for a in s.args:
        inner = (chains.get(a) if isinstance(a, Call) and a.block is blk and count.get(a, 0) == 1
                 and epoch.get(a) == epoch[s] else None)
        if inner is not None:
            parts.append(inner)
        elif kinds.of(a) is None:
            return None
        else:
            parts.append(_Chain(1.0, [a], [], 0))
    array = kinds.of(s) == "array"
    step = 1 if array else 0
    fn = s.callee()
    if fn is operator.neg:
        (a,) = parts
        return _Chain(-a.sign, a.num, a.den, a.cost + step)
    a, b = parts
    if fn is operator.mul:
        return _Chain(a.sign * b.sign, a.num + b.num, a.den + b.den, a.cost + b.cost + step)
    return _Chain(a.sign * b.sign, a.num + b.den, a.den + b.num, a.cost + b.cost + step)


def _plan(chain: _Chain, kinds: "_Kinds") -> Optional[tuple[list, int]]:
    """(the operations, in order, as (fn, operands) with -1 for the previous result; how many touch arrays)."""
    c = chain.sign
    scalars, arrays, scalar_den, array_den = [], [], [], []
    for f in chain.num:
        if isinstance(f, Const):
            c *= f.value
        else:
            (scalars if kinds.of(f) == "scalar" else arrays).append(f)
    for f in chain.den:
        if isinstance(f, Const):
            if f.value == 0:
                return None
            c /= f.value
        else:
            (scalar_den if kinds.of(f) == "scalar" else array_den).append(f)
    if not math.isfinite(c):
        return None
    steps: list = []
    acc: Any = None  # the running value: None (nothing yet), a factor, or _PREV (the last step's result)
    is_array = False
    cost = 0

    def apply(fn: Any, *operands: Any, array: bool = False) -> None:
        nonlocal acc, is_array, cost
        steps.append((fn, operands))
        acc = _PREV
        is_array = is_array or array
        cost += is_array

    def times(f: Any, array: bool) -> None:
        nonlocal acc, is_array
        if acc is None:
            acc, is_array = f, array
        else:
            apply(operator.mul, acc, f, array=array)

    def scale() -> None:
        nonlocal c
        if c == -1.0:
            apply(operator.neg, acc)
        elif c != 1.0:
            apply(operator.mul, acc, Const(float(c)))
        c = 1.0

    for f in scalars:  # the scalars first, the constant folded in after the first of them
        times(f, False)
        scale()
    for f in scalar_den:
        if acc is None:
            acc, c = Const(float(c)), 1.0
        apply(operator.truediv, acc, f)
    negate = False
    if acc is None:  # no scalar factor to carry the constant: it leads, or a minus sign ends
        if c == -1.0 and arrays:
            negate = True
        elif c != 1.0 or not arrays:
            acc = Const(float(c))
        c = 1.0
    for f in arrays:
        times(f, True)
    for f in array_den:
        if acc is None:
            acc = Const(1.0)
        apply(operator.truediv, acc, f, array=True)
    if negate:
        apply(operator.neg, acc)
    if acc is not _PREV:
        steps.append((ops.identity, (acc,)))
    return steps, cost


_PREV = object()  # in a planned step: the result of the step before


def _rewrite(s: Call, blk: Any, steps: list, out: list, count: dict, epoch: dict) -> None:
    prev: Any = None
    for k, (fn, operands) in enumerate(steps):
        args = [prev if o is _PREV else o for o in operands]
        for a in args:  # a pure temporary read only here moves down to where it is read: it prints inline
            if (isinstance(a, Call) and a.block is blk and count.get(a, 0) == 1 and _pure(a) and a in out
                    and epoch.get(a) == epoch[s]):
                out.remove(a)
                out.append(a)
        if k == len(steps) - 1:
            s.fn, s.args = Const(fn), args
            s.alias = fn is ops.identity  # type: ignore[attr-defined]  # (the product came down to one factor)
        else:
            prev = Call(Const(fn), args, loc=s.loc)
            prev.block = blk
            out.append(prev)


def _pure(c: Call) -> bool:
    fn = c.callee()
    if getattr(c, "primal", None) is not None or c.kwargs:
        return False  # (placeholders for the tape move to their anchors later)
    if fn is getattr:
        return len(c.args) == 2 and isinstance(c.args[1], Const) and c.args[1].value in ("size", "shape", "ndim", "T")
    return fn in _ELEMENTWISE


class _Kinds:
    """Which pullback values are certainly numbers ("scalar") or NumPy arrays ("array")."""

    def __init__(self, rt: "ReverseTransform") -> None:
        self.rt = rt
        self.memo: dict = {}
        returned = [b.term.value for b in rt.ir.blocks if isinstance(b.term, Return)]
        self.result = _common([self._type_kind(rt.type_of(v)) for v in returned]) if returned else None

    def of(self, v: Any) -> Optional[str]:
        if isinstance(v, Const):
            return "scalar" if type(v.value) in (int, float) else None
        key = id(v)
        if key not in self.memo:
            self.memo[key] = None  # (cycles through phis: unknown)
            self.memo[key] = self._of(v)
        return self.memo[key]

    def _of(self, v: Value) -> Optional[str]:
        rt = self.rt
        if v is rt.y_bar:
            return self.result if rt.result_real else None
        primal = getattr(v, "primal", None)
        if primal is not None:
            return self._type_kind(rt.type_of(primal))
        if isinstance(v, Call):
            fn = v.callee()
            if fn is getattr and len(v.args) == 2 and isinstance(v.args[1], Const) and v.args[1].value in ("size", "ndim"):
                return "scalar"
            if fn is np.full:
                return "array"
            if fn in _ELEMENTWISE and not v.kwargs and v in rt.dense_values:
                return _common([self.of(a) for a in v.args], any_array=True)
        if isinstance(v, (Call, Phi)) and v in rt.dense_values:
            p = rt.adjoint_of.get(v)
            if p is not None:
                return self._type_kind(rt.type_of(p))
        return None

    @staticmethod
    def _type_kind(t: Any) -> Optional[str]:
        if isinstance(t, Num):
            return "scalar"
        if isinstance(t, Arr):
            return "array"
        return None


def _common(kinds: list, any_array: bool = False) -> Optional[str]:
    if not kinds or None in kinds:
        return None
    if any_array:
        return "array" if "array" in kinds else "scalar"
    return kinds[0] if all(k == kinds[0] for k in kinds) else None
