"""Module-level numbers that change while the function runs (reverse mode reads them when the forward pass did).

The pullback read a module-level number by name when it ran, after later code had changed it: a counter bumped
by `global n; n += 1` and multiplied into the result gave [3, 3, 3] for [1, 2, 3].  A number read by an operation
is now read into a variable first, so the tape keeps the value used (reverse/prepare.global_numbers_read_once)."""
import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives

X = np.array([0.7, -1.3, 2.1])

CALLS = 0
DIVISOR = 2
STEP = 1


def _counted(v):
    global CALLS
    CALLS = CALLS + 1
    return v * CALLS


def counter_in_a_helper(x):
    global CALLS
    CALLS = 0
    return _counted(x[0]) + _counted(x[1]) * _counted(x[2])


def counter_in_a_loop(x):
    global CALLS
    CALLS = 0
    s = 0.0
    for v in x:
        CALLS += 1
        s = s + v * CALLS
    return s


def _double():
    global DIVISOR
    DIVISOR = DIVISOR * 2


def divisor_doubled_between_uses(x):
    global DIVISOR
    DIVISOR = 2
    a = np.sum(x ** 2) / DIVISOR
    _double()
    b = np.sum(np.sin(x)) / DIVISOR
    _double()
    return a + b * DIVISOR + x[0] / DIVISOR


def _advance():
    global STEP
    STEP += 1


def step_indexes(x):
    global STEP
    STEP = 0
    s = 0.0
    while STEP < 3:
        s = s + x[STEP] ** 2 * (STEP + 1)
        _advance()
    return s


FAMILY = [counter_in_a_helper, counter_in_a_loop, divisor_doubled_between_uses, step_indexes]


@pytest.mark.parametrize("f", FAMILY, ids=lambda f: f.__name__)
def test_global_numbers_that_change(f):
    check_derivatives(f, X.copy())
