"""Which values are numbers comes from the inferred types alone (ir/kinds.py retired, issue 9).

Both transforms write plain arithmetic for a value only when its inferred type is a number.  These families
check the operations whose typing changed with that: `%` and `//` of numbers (and `n //= 2`, `k %= 3`), math's
functions of values of unknown type (a number whatever the argument, `math.sqrt(x * x + math.pi)`), and the ones
that give what the operand's own method gives (`math.floor` calls `__floor__`, `math.prod` multiplies): those
are numbers only for numbers; for an object whose `__floor__` returns an array, or a list of arrays, the
result is an array, and typing it a number gave a float argument an array gradient.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.ir.types import FLOAT, INT, UNKNOWN, Arr, Lst, Num
from mooncake_ast.ir.op_types import result_type
from mooncake_ast.ir.nodes import Call, Const


def mod_and_floordiv(x, y, n):
    s = x % 1.3 * y + (x // 0.7) * y + y % x
    while n > 1:
        n //= 2
        s = s * 0.9 + x
    k = 7
    k %= 3
    return s * k + math.sqrt(x * x + math.pi)


def math_of_item(a, x):
    t = a[0] * x
    return math.exp(math.sin(t)) + math.hypot(t, a[1]) + math.log1p(x * x)


class Floored:
    def __init__(self, v):
        self.v = v

    def __floor__(self):
        return np.floor(self.v) + 0.5


def floor_of_object(x, a):
    f = math.floor(Floored(a))
    return np.sum(f * x) + x


def prod_of_arrays(a, b, x):
    p = math.prod([a * x, b])
    return np.sum(p * p) * x


def prod_of_numbers(x, y):
    return math.prod([x, y, 2.0]) + math.floor(x) * y + math.trunc(y * 3.0) * x


_CASES = [
    (mod_and_floordiv, (2.05, 0.4, 9)),
    (mod_and_floordiv, (-1.05, 2.3, 1)),
    (mod_and_floordiv, (0.45, -0.8, 40)),
    (math_of_item, (np.array([0.3, -1.2]), 0.8)),
    (math_of_item, (np.array([[0.3, 0.1], [0.4, 0.5]])[0], -0.6)),
    (floor_of_object, (0.6, np.array([1.3, 2.7]))),
    (floor_of_object, (-1.4, np.array([[0.2, -2.6], [3.1, 0.7]]))),
    (prod_of_arrays, (np.array([1.0, 2.0]), np.array([0.5, -1.5]), 0.7)),
    (prod_of_arrays, (np.array([[1.0], [2.0]]), np.array([0.5, -1.5, 0.25]), -0.3)),
    (prod_of_numbers, (1.7, -2.45)),
    (prod_of_numbers, (-0.35, 0.9)),
]


@pytest.mark.parametrize("fn,args", _CASES, ids=[f"{f.__name__}-{k}" for k, (f, _) in enumerate(_CASES)])
def test_both_modes(fn, args):
    mc.testing.check_derivatives(fn, *args)


def _call(fn):
    return Call(Const(fn), [])


@pytest.mark.parametrize("fn,args,expected", [
    (math.sin, [UNKNOWN], FLOAT),  # (converts its argument with __float__)
    (math.fsum, [UNKNOWN], FLOAT),
    (math.floor, [FLOAT], FLOAT),
    (math.floor, [UNKNOWN], UNKNOWN),  # (__floor__ may return anything)
    (math.ceil, [UNKNOWN], UNKNOWN),
    (math.trunc, [UNKNOWN], UNKNOWN),
    (math.prod, [Lst(FLOAT)], FLOAT),
    (math.prod, [UNKNOWN], UNKNOWN),  # (multiplies the items: arrays give an array)
    (math.prod, [Lst(Arr("f", ("n",)))], UNKNOWN),
])
def test_math_result_types(fn, args, expected):
    assert result_type(fn, _call(fn), args, None) == expected


@pytest.mark.parametrize("op,a,b,expected", [
    (__import__("operator").mod, FLOAT, FLOAT, FLOAT),
    (__import__("operator").floordiv, FLOAT, INT, FLOAT),
    (__import__("operator").mod, INT, INT, INT),
    (__import__("operator").ifloordiv, INT, INT, INT),
    (__import__("operator").imod, FLOAT, INT, FLOAT),
    (__import__("operator").mod, Arr("f", ("n",)), FLOAT, UNKNOWN),  # (float arrays stay generic)
    (__import__("operator").ifloordiv, Arr("f", ("n",)), FLOAT, UNKNOWN),
])
def test_mod_and_floordiv_types(op, a, b, expected):
    t = result_type(op, _call(op), [a, b], None)
    assert t == expected and (not isinstance(expected, Num) or isinstance(t, Num))
