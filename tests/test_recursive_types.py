"""Issue 9: a recursive user function's result is typed by a fixpoint (reverse/call_types._recursive_fixpoint), so
what its caller computes from it is plain code; recursions whose result type changes on the way up (or that
return an argument) must stay right through the generic path."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

X = np.array([0.7, -0.4, 1.2])


def rpow(x, n):
    if n == 0:
        return 1.0
    if n % 2 == 0:
        half = rpow(x, n // 2)
        return half * half
    return x * rpow(x, n - 1)


def rpow_array(x, n):
    if n == 0:
        return np.ones_like(x)
    return x * rpow_array(x, n - 1)


def _ping(x, n):
    if n <= 0:
        return np.tanh(x)
    return _pong(np.sin(x) + 0.3, n - 1)


def _pong(x, n):
    if n <= 0:
        return x * x
    return _ping(x * np.cos(x), n - 1)


def ping_pong_arrays(x, n):
    return np.sum(_ping(x, n) * x)


def _shrink(x, n):  # returns its argument at the bottom: not a fresh value
    if n == 0:
        return x
    return _shrink(0.5 * x + np.sin(x), n - 1)


def shrink_then_write(x, n):
    y = _shrink(x, n)
    z = y * 2.0
    y *= 3.0  # (y may be x itself: the write must be seen)
    return np.sum(z * y) + np.sum(x)


def _int_at_bottom(x, n):
    if n == 0:
        return 1
    return x * _int_at_bottom(x, n - 1) + 0.5


def int_at_bottom(x, n):
    return _int_at_bottom(x, n) * x


def _rank_changes(x, n):  # a float at the bottom, an array above: no type holds for every depth
    if n == 0:
        return np.sum(x * x)
    return _rank_changes(x, n - 1) * x


def rank_changes(x, n):
    return np.sum(_rank_changes(x, n) * x)


CASES = [
    (rpow, (1.1, 11)),
    (rpow_array, (X, 4)),
    (ping_pong_arrays, (X, 5)),
    (shrink_then_write, (X, 3)),
    (shrink_then_write, (X, 0)),  # (y is x)
    (int_at_bottom, (0.8, 4)),
    (rank_changes, (X, 3)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{f.__name__}-{a[-1]}" for f, a in CASES])
def test_recursive_results(fn, args):
    check_derivatives(fn, *args, modes=("reverse",))


def test_typed_recursion_is_plain():
    mc.grad(rpow)(1.1, 11)
    src = mc.source(rpow, "reverse")
    pullback = src[src.index("__pullback("):]
    assert "_mc.acc" not in pullback and "_mc.take" not in pullback and "half * half" in src
