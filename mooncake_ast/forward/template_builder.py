"""The `t` of rule templates in forward mode: a rule's tangent template written into the IR at transform time.

Operands are IR values and results new statements; a few helpers' templates are specialised here where their
operands are known (`pow_deriv` of a whole power is `2.0 * x`), and numbers (by the inferred types) need no
tangent storage.  ForwardTransform (forward/transform.py) builds one per statement."""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from .. import ops
from ..ir.nodes import Call, Const, Value
from ..rules import helpers
from ..rules.eager import numpy_function
from ..rules.registry import update
from ..tangents import NoTangent, zero_tangent

if TYPE_CHECKING:
    from .transform import ForwardTransform


_NUMERIC = (int, float, complex)


def zero_constant(value: Any) -> Const:
    """The zero tangent of a literal: 0.0 for numbers (readable, and the right zero for floats)."""
    if isinstance(value, _NUMERIC) and not isinstance(value, bool):
        return Const(0.0)
    return Const(NoTangent)


def literal_zero(v: Value) -> Const:
    """The zero tangent of an inactive value: 0.0 for a number literal (also through `y = 2.0`)."""
    while isinstance(v, Call) and v.callee() is ops.identity:
        v = v.args[0]
    return zero_constant(v.value) if isinstance(v, Const) else Const(NoTangent)


def _handles_zero(fn: Any) -> bool:
    """Does fn map the symbolic zero to itself (operators, and NumPy functions that call a method of their argument)?"""
    try:
        return fn in _ZERO_SAFE
    except TypeError:
        return False


def _zero_safe() -> set:
    import numpy as np
    import operator

    return {operator.getitem, operator.matmul, operator.mul, operator.add, operator.neg, operator.truediv, np.sum, np.mean,
            np.cumsum, np.reshape, np.transpose, np.ravel, np.squeeze, np.swapaxes, np.trace, np.diagonal, np.take,
            np.repeat, np.real, np.imag}


_ZERO_SAFE = _zero_safe()


def _op(name: str) -> Any:
    import operator

    return getattr(operator, name)


class IRTemplateBuilder:
    """The `t` of rule templates at transform time: operands are IR values, results new statements."""

    def __init__(self, fwd: "ForwardTransform", out: list, loc: Any, effect: bool = False) -> None:
        self.fwd = fwd
        self.out = out
        self.loc = loc
        self.effect = effect  # statements of a mutating rule write tangent storage: never dead

    def _val(self, x: Any) -> Value:
        return x if isinstance(x, Value) else Const(x)

    def d(self, h: Any) -> Optional[Value]:
        return self.fwd.tangent.get(h) if isinstance(h, Value) else None

    def dz(self, h: Any) -> Value:
        """h's tangent, or the symbolic zero (a strong zero: 0 * nan stays 0) for constants."""
        d = self.d(h)
        return d if d is not None else Const(NoTangent)

    def value(self, x: Any) -> Any:
        return x.value if isinstance(x, Const) else x

    def is_num(self, x: Any) -> bool:
        """Certainly a number (immutable) when the code runs?  (By the inferred types: an element read from a
        float array, `np.tanh` of one, is a NumPy scalar, which needs no tangent storage.)"""
        if isinstance(x, Const) or not isinstance(x, Value):
            v = x.value if isinstance(x, Const) else x
            return isinstance(v, (int, float, complex))
        return self.fwd.number(x)

    def call(self, fn: Any, *args: Any, **kwargs: Any) -> Value:
        if fn is helpers.pow_deriv and len(args) == 2 and not kwargs:
            k = self.value(args[1])
            if type(k) in (int, float) and k == int(k) and 1 <= k <= 64:
                # a whole power: `2.0 * x`, exact, a person's expression (and no helper to call)
                if k == 1:
                    return Const(1.0)
                if k == 2:
                    return self.call(operator.mul, Const(2.0), args[0])
                return self.call(operator.mul, Const(float(k)), self.call(operator.pow, args[0], Const(int(k) - 1)))
        values = [self._val(a) for a in args]
        if numpy_function(fn):  # `np.where(c, dx, 0.0)`: what NumPy makes of the symbolic zero, and CuPy needs
            values = [Const(0.0) if isinstance(v, Const) and v.value is NoTangent else v for v in values]
        s = Call(Const(fn), values, {k: self._val(v) for k, v in kwargs.items()}, loc=self.loc)
        s.derived = True  # type: ignore[attr-defined]
        s.effect = self.effect  # type: ignore[attr-defined]
        self.out.append(s)
        return s

    def lin(self, fn: Any, dx: Any, *args: Any, **kwargs: Any) -> Optional[Value]:
        if dx is None:
            return None
        if _handles_zero(fn):
            return self.call(fn, dx, *args, **kwargs)
        return self.call(helpers.linear, fn, dx, *args, **kwargs)

    def linr(self, fn: Any, x: Any, dy: Any) -> Optional[Value]:
        if dy is None:
            return None
        if _handles_zero(fn):
            return self.call(fn, x, dy)
        return self.call(helpers.linear_right, fn, x, dy)

    def add(self, a: Any, b: Any) -> Any:
        if a is None:
            return b
        if b is None:
            return a
        return self.call(_op("add"), a, b)

    def sub(self, a: Any, b: Any) -> Any:
        if b is None:
            return a
        if a is None:
            return self.call(_op("neg"), b)
        return self.call(_op("sub"), a, b)

    def mul(self, a: Any, b: Any) -> Any:
        if a is None or b is None:
            return None
        return self.call(_op("mul"), a, b)

    def div(self, a: Any, b: Any) -> Any:
        if a is None:
            return None
        return self.call(_op("truediv"), a, b)

    def neg(self, a: Any) -> Any:
        return None if a is None else self.call(_op("neg"), a)

    def zero_like(self, x: Any) -> Value:
        if isinstance(x, Const):
            return zero_constant(x.value)
        return self.call(zero_tangent, x)

    def update(self, dx: Any, new: Any) -> Any:
        if dx is None:
            return new
        return self.call(update, dx, new if new is not None else Const(NoTangent))

    def const(self, v: Any) -> Const:
        return Const(v)
