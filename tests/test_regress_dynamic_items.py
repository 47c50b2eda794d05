"""Writes through an item read by run-time dispatch (the container's type is not known when the code is
generated: it comes out of a branch), with the index held in a variable.

Regression family for a silently wrong forward derivative: an index variable's tangent was the float
0.0, so the getitem template added the index's (symbolic zero) contribution at run time, and that sum
copied the item's tangent -- the write `c[j][0] = ...` then went into the copy, not into the storage
the container's tangent shares with `orig`.  Every case is checked in both modes.
"""
import copy

import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives

FLAG = True
X = np.array([0.3, -1.2, 0.8])


def list_or_method_copy(x):
    orig = [x * 1.0, x[0] * 2.0]
    j = 0 if FLAG else 1
    c = list(orig) if FLAG else orig.copy()
    c[j][0] = x[2] * 5.0
    return np.sum(c[j] * orig[j])


def copy_module_or_alias(x):
    orig = [x * 1.0, x * x]
    if FLAG:
        c = copy.copy(orig)
    else:
        c = orig
    k = 1
    c[k][2] = c[k][2] * x[0]
    return np.sum(c[0] * orig[1]) + np.sum(c[k])


def dict_or_list(x):
    if FLAG:
        d = {"a": x * 1.0, "b": x * 3.0}
        key = "a"
    else:
        d = [x * 1.0, x * 3.0]
        key = 0
    e = d.copy()
    e[key][1] = x[0] * x[2]
    return np.sum(d["a"] * e["b"]) + np.sum(e[key])


def row_of_nested_lists(x):
    if FLAG:
        grid = [[x[0], x[1]], [x[2], x[0] * x[1]]]
    else:
        grid = ([x[0], x[1]], [x[2], x[0]])
    i = 1 if FLAG else 0
    row = grid[i]
    row[0] = row[0] * x[1]
    return grid[1][0] * grid[0][1] + row[1]


def index_from_a_loop(x):
    orig = [x * 1.0, x * 2.0]
    c = list(orig) if FLAG else orig.copy()
    for j in range(2):
        c[j][j] = x[2] * (j + 1.0)
    return np.sum(c[0] * orig[1])


CASES = [list_or_method_copy, copy_module_or_alias, dict_or_list, row_of_nested_lists, index_from_a_loop]


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_write_through_a_dispatched_item(fn, mode):
    check_derivatives(fn, X, modes=(mode,))
