"""Issue 9: a `for i in range(...)` loop that always runs to its end is walked backwards by the pullback
(`for i in i_range[::-1]:`), recording its range once instead of `i` on every trip; loops left early,
loops over other sequences and ranges made inside other loops stay right."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives
from tests import walked_loop_cases as c

CASES = [
    (c.recurrence, (np.array([0.3, -0.4, 1.1, 0.2]),)),
    (c.triangle, (0.7, 5)),
    (c.triangle, (0.7, 0)),
    (c.strided_backwards, (np.array([0.3, -0.4, 1.1, 0.2, 0.9]),)),
    (c.with_continue_and_else, (0.8,)),
    (c.left_by_break, (0.9,)),
    (c.left_by_break, (0.1,)),
    (c.returns_inside, (1.2,)),
    (c.returns_inside, (0.2,)),
    (c.empty_or_not, (0.6, 0)),
    (c.empty_or_not, (0.6, 4)),
    (c.in_branch_and_while, (0.6,)),
    (c.in_branch_and_while, (-0.6,)),
    (c.bound_changed_in_body, (0.5, 4)),
    (c.float_item, (0.3,)),
    (c.calls_helper, (np.array([0.3, -0.4, 1.1]),)),
    (c.row_update, (np.array([[0.3, -0.4], [1.1, 0.2], [0.5, 0.6]]),)),
    (c.items_of_array, (np.array([0.1, -0.9, 0.3, 1.4]),)),
    (c.rows_of_matrix, (np.array([[0.3, -0.4], [1.1, 0.2], [0.5, 0.6]]), np.array([0.7, -0.2]))),
    (c.items_then_written, (np.array([0.3, -0.4, 1.1]),)),
    (c.items_with_break, (np.array([0.3, -0.9, 1.1, 0.2]),)),
    (c.enumerate_items, (np.array([0.3, -0.9, 1.1]),)),
    (c.horner_list, ([1.0, -0.5, 0.25, 0.1], 0.7)),
    (c.horner_list, ([], 0.7)),
    (c.horner_array, (np.array([1.0, -0.5, 0.25, 0.1]), 0.7)),
    (c.reversed_rows, (np.array([[0.3, -0.4], [1.1, 0.2], [0.5, 0.6]]), np.array([0.7, -0.2]))),
    (c.reversed_with_break, ([1.0, 1.5, 0.25, 0.1], 1.7)),
    (c.reversed_of_written_list, ([1.0, -0.5, 0.25], 0.7)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(CASES)])
def test_walked_loops(fn, args):
    check_derivatives(fn, *args)


@pytest.mark.parametrize("fn,args", [CASES[0], CASES[1], CASES[3]], ids=["recurrence", "triangle", "strided"])
def test_the_pullback_walks_the_range_backwards(fn, args):
    mc.vjp(fn, *args)
    src = mc.source(fn, "reverse")
    assert "[::-1]:" in src and "i_stack" not in src and "counts" not in src, src


def test_loops_left_early_keep_their_trip_counts():
    mc.vjp(c.left_by_break, 0.9)
    assert "[::-1]" not in mc.source(c.left_by_break, "reverse")


def test_the_items_of_an_array_parameter_have_a_plain_adjoint_array():
    mc.vjp(c.items_of_array, np.array([0.1, -0.9, 0.3, 1.4]))
    src = mc.source(c.items_of_array, "reverse")
    assert "r_bar = np.zeros_like(r)" in src and "getitem_reverse" not in src and "sequence_adjoint" not in src, src


def test_reversed_list_is_walked_by_index():
    mc.vjp(c.horner_array, np.array([1.0, -0.5, 0.25, 0.1]), 0.7)
    src = mc.source(c.horner_array, "reverse")
    assert "range(len(coeffs) - 1, -1, -1)" in src and "coeffs_bar[i] +=" in src and "reversed_adjoint" not in src, src
