"""Variables assigned on some paths only and read only where they are bound.

Regression family: reverse mode put such a variable in the tape at every return, so a run that
took a path where it was never assigned failed with UnboundLocalError in the forward pass.  Each
function runs down both kinds of path, in both modes.
"""
import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives


def read_under_the_same_test(x):
    if x > 0:
        y = x * 2.0
    if x > 0:
        return y * x
    return x


def assigned_in_a_loop_that_may_not_run(x):
    for _ in range(0):
        w = x
    if x > 0:
        w = 2.0 * x
    return w * x if x > 0 else x


def flag_guards_the_read(x):
    found = False
    for k in range(3):
        if x * k > 1.0:
            hit = np.sin(x * k)
            found = True
    if found:
        return hit * x
    return x ** 2


def three_returns(x):
    if x > 1.0:
        a = np.exp(x)
    elif x > 0.0:
        b = x ** 3
    if x > 1.0:
        return a * x
    if x > 0.0:
        return b + a if x > 5.0 else b
    return -x


def arrays_on_one_branch(v):
    if v[0] > 0:
        m = np.outer(v, v)
    total = np.sum(v ** 2)
    if v[0] > 0:
        total = total + np.sum(m @ v)
    return total


def while_sets_on_last_trip(x):
    n = 0
    while n < 4:
        if n == 3 and x > 0:
            last = x * n
        n += 1
    return last * x if x > 0 else x * 2.0


SCALAR = [read_under_the_same_test, assigned_in_a_loop_that_may_not_run, flag_guards_the_read, three_returns,
          while_sets_on_last_trip]


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("x", [1.7, 0.4, -0.6])
@pytest.mark.parametrize("fn", SCALAR, ids=lambda f: f.__name__)
def test_scalar(fn, x, mode):
    check_derivatives(fn, x, modes=(mode,))


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_arrays_on_one_branch(sign, mode):
    check_derivatives(arrays_on_one_branch, np.array([0.5, -0.3, 0.9]) * sign, modes=(mode,))
