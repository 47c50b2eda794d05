"""Calls of the user's own functions with numbers only (reverse/number_calls.py): the caller's pullback reads the
callee's adjoints as plain numbers (`x_bar, n_bar = t3(out_bar)`), with no `number_adjoint` / `item_of` helper,
and the derivatives stay right in both modes: callees that ignore a parameter, that get ints, that run plainly
because every argument is an int, recursive and mutually recursive ones, literals as arguments; calls in loops whose
results come back to them (settle_types._hopeful), and tuples of numbers a call makes in each trip of a loop
(typed_dicts.adjoint: each trip's items start from zero -- the trunk gave pair_each_trip's gradient 8.0 for 3.2)."""
from __future__ import annotations

import ast
import math

import pytest

import mooncake_ast as mc
from mooncake_ast.api import _vjp


# (each callee branches or loops, so the caller dispatches it rather than inlining it)
def _square_plus(x, n):
    if n > 100:
        return x
    return x * x + n


def _ignores_second(x, y):
    out = 0.0
    for _ in range(3):
        out = out + x
    return out


def _ignores_all(x, y):
    if x > 1e9:
        return 1.0
    return 2.0


def _int_power(x, k):
    out = 1.0
    for _ in range(k):
        out = out * x
    return out


def _even(x, n):
    if n <= 0:
        return 1.0
    return x * _odd(x, n - 1)


def _odd(x, n):
    if n <= 0:
        return x
    return math.sin(_even(x, n - 1)) + 0.5 * x


def calls_twice(x, n):
    return _square_plus(x, n) * _square_plus(2.0 * x, n)


def ignored_parameter(x, y):
    return _ignores_second(x, y) + y * _ignores_second(y, x)


def constant_callee(x, y):
    return _ignores_all(x, y) * x + _ignores_all(y, y)


def literal_arguments(x):
    return _int_power(x, 3) + _square_plus(1.5, 2) * x


def ints_only_call(x, k):
    return x * _int_power(2, k) + _square_plus(x, k)  # (_int_power(2, k): run plainly, no adjoint at all)


def mutual(x, n):
    return _even(x, n) + _odd(x, n) * x


def in_a_loop(x, n):
    total = 0.0
    for k in range(n):
        total = total + _int_power(x, k) * _square_plus(total, k)
    return total


def _newton_step(v, a):
    if v == 0.0:
        return 0.0
    return (v * v - a) / (2.0 * v)


def _pair(a, b):
    if a > b:
        return b, a + 0.1 * b
    return a + 0.1 * b, b


class _Box:
    def __init__(self, value):
        self.value = value


def newton_while(a):
    v = a
    steps = 0
    while abs(_newton_step(v, a)) > 1e-12 and steps < 50:
        v = v - _newton_step(v, a)
        steps += 1
    return v


def pair_loop(x, y):
    a, b = x, y
    for _ in range(4):
        a, b = _pair(a, b)
    return a * b


def pair_each_trip(x, y):
    s = 0.0
    for _ in range(4):
        a, b = _pair(x, y)  # (a new tuple each trip: its items' adjoints start from zero each trip; trunk kept them)
        s = s + a * b
    return s


def pair_while(x, y):
    a, b = x, y
    k = 0
    while k < 3:
        a, b = _pair(a, b)
        k += 1
    return a + 2.0 * b


def pair_nested(x, y):
    s = 0.0
    for i in range(2):
        m, v = _pair(x * (i + 1), y)
        for j in range(3):
            s = s + m * v * (j + 1)
    return s


def sometimes_boxed(x):
    v = x
    for k in range(4):
        v = _square_plus(v, 1.0) * 0.5 if k < 2 else _Box(v).value + 0.25 * v  # (a field read: not typed)
    return v


def joined_number(x, flag):
    v = x if flag > 0 else 2  # (an int or a float: a number either way)
    return _square_plus(v, 1.0) + _ignores_second(x, v)


CASES = [
    (calls_twice, (0.7, 3)),
    (ignored_parameter, (0.4, 1.3)),
    (constant_callee, (0.4, 1.3)),
    (literal_arguments, (0.9,)),
    (ints_only_call, (1.1, 3)),
    (mutual, (0.8, 5)),
    (in_a_loop, (0.3, 4)),
    (joined_number, (0.6, 1)),
    (joined_number, (0.6, -1)),
    (newton_while, (2.0,)),
    (pair_loop, (0.3, 0.8)),
    (pair_loop, (0.9, 0.2)),
    (sometimes_boxed, (0.4,)),
    (pair_each_trip, (0.3, 0.8)),
    (pair_each_trip, (0.9, 0.2)),
    (pair_while, (0.3, 0.8)),
    (pair_nested, (0.3, 0.8)),
    (pair_nested, (0.9, 0.2)),
]


@pytest.mark.parametrize("f,args", CASES, ids=lambda c: getattr(c, "__name__", None))
def test_derivatives_both_modes(f, args):
    mc.testing.check_derivatives(f, *args)


def _pullback_helpers(f, args) -> list:
    _vjp(f, args, {})
    src = mc.source(f, "reverse")
    names = []
    for node in ast.parse(src).body:
        if isinstance(node, ast.FunctionDef) and node.name.endswith("__pullback"):
            names += [n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                      and n.value.id == "_mc"]
    return names


@pytest.mark.parametrize("f,args", [c for c in CASES if c[0] not in (sometimes_boxed, pair_loop, pair_while, pair_nested)],
                         ids=lambda c: getattr(c, "__name__", None))
def test_pullback_reads_plain_numbers(f, args):
    helpers = _pullback_helpers(f, args)
    assert "number_adjoint" not in helpers and "item_of" not in helpers, helpers


@pytest.mark.parametrize("f,args", [(in_a_loop, (0.3, 4)),
                                    (newton_while, (2.0,))], ids=lambda c: getattr(c, "__name__", None))
def test_call_in_a_loop_typed(f, args):
    # the call's result comes back to it through the loop (settle_types._hopeful): every operator on it is plain,
    # no storage, no dispatched operator
    helpers = _pullback_helpers(f, args)
    assert helpers == [], helpers


def test_zero_pullback_of_ints_gives_zero():
    # `_int_power(2, k)` gets ints only: it runs plainly and its pullback has no adjoints; x's gradient is 2 ** k + 2x
    g = mc.grad(ints_only_call, argnums=(0, 1))(1.1, 3)
    assert g[0] == pytest.approx(2 ** 3 + 2 * 1.1)
