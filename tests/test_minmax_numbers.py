"""max/min of two numbers: plain conditionals in the pullback, Python's choice kept on ties (the first
argument) and NaNs, checked against finite differences away from the kinks."""
import math

import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives
from tests import minmax_number_cases as c

CASES = [
    (c.clip_between, (0.3,)), (c.clip_between, (1.7,)), (c.clip_between, (-2.5,)),
    (c.relu_sum, (0.4, -0.7)), (c.relu_sum, (-0.4, 0.7)), (c.relu_sum, (2.0, 3.0)),
    (c.int_and_float, (0.4, 1)), (c.int_and_float, (2.4, 1)),
    (c.in_a_loop, (0.7,)), (c.in_a_loop, (-1.3,)),
    (c.three_arguments, (0.2, -0.3)), (c.three_arguments, (0.9, 0.05)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(CASES)])
def test_minmax_of_numbers(fn, args):
    check_derivatives(fn, *args)


def test_the_pullback_is_a_conditional():
    mc.vjp(c.clip_between, 0.3)
    src = mc.source(c.clip_between, "reverse")
    assert " if " in src and "minmax_adjoint" not in src and "_mc." not in src.split("def clip_between__pullback")[1]


def test_ties_go_to_the_first_argument_as_python_chooses():
    # At (0, 0) every max/min of relu_sum ties: max(x, 0.0) gives x (dx 2), min(0.0, y) gives the constant
    # (dy 0), max(x*y, x+y) gives x*y, whose derivative is 0 there; had the second argument been chosen, x+y
    # would add 1 to both.
    assert mc.grad(c.relu_sum, argnums=(0, 1))(0.0, 0.0) == (2.0, 0.0)
    assert mc.grad(c.tie)(0.8) == pytest.approx(2.0)


def test_nan_keeps_pythons_choice():
    g = mc.grad(lambda_free_max)(float("nan"))
    assert math.isnan(g) or g == 0.0


def lambda_free_max(x):
    return max(1.0, x)  # NaN > 1.0 is False: Python returns 1.0, so x gets nothing
