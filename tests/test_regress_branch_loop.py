"""Regression (found at the end of this session, also on e9b61b1): an `if` whose body begins with a `while` loop
(`if k is not None: while True: ...`, as in inspect.get_annotations) failed in both modes with "L0 has several
merge points": the loop's header, entered once from the branch and reached again by its own back edges, was
taken for a second place where the branches meet (ir/regions.merge_points)."""
import math

import pytest

from mooncake_ast.testing import check_derivatives


def leading_while(x, n):
    k = n
    if x > 0:
        while k > 0:
            k = k - 1
            x = x * 1.1
        x = x + 1
    return x


def leading_while_true_continue_break(x, n):
    k = n
    if k is not None:
        while True:
            if k > 3:
                k = k - 1
                x = x * math.sin(x + 1.0)
                continue
            if k > 1:
                k = k - 1
                continue
            break
        x = x + 1
    return x


def both_branches_loop(x, n):
    k = n
    if x > 0.3:
        while k > 0:
            k = k - 1
            x = x * 1.1
    else:
        while k > 1:
            k = k - 2
            x = x * x + 0.1
    return x * 2.0


def loop_then_elif(x, n):
    k = n
    if x > 1.0:
        x = -x
    elif x > 0:
        while k > 0:
            k = k - 1
            x = math.tanh(x) + x
            if x > 5.0:
                break
        x = x * 3.0
    return x


def nested_ifs_with_loops(x, n):
    k = n
    if x > 0:
        if n > 2:
            while k > 0:
                k = k - 1
                x = x * 1.05
        x = x + 0.5
    return x * x


@pytest.mark.parametrize("fn", [leading_while, leading_while_true_continue_break, both_branches_loop, loop_then_elif,
                                nested_ifs_with_loops])
@pytest.mark.parametrize("x", [0.5, -0.4])
def test_branch_whose_body_starts_with_a_loop(fn, x):
    check_derivatives(fn, x, 6)
