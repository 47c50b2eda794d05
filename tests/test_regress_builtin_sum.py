"""builtins.sum over every kind of item it adds or concatenates, in both modes.

Regression family: reverse mode gave every item the whole adjoint of the sum.  For items that
broadcast (a number added to an array) that crashed; for tuples or lists, which sum concatenates,
each item's adjoint was the whole concatenation, cut short by zip -- a silently wrong gradient.
"""
import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives

X = np.array([0.3, -1.2, 0.8])


def number_and_arrays(x):
    return np.sum(sum((x, 2.0 * x, x[0])) * x[0])


def rows_broadcast(x):
    m = np.outer(x, x)
    return np.sum(sum([m, x, x[1]]) ** 2)


def float_start(x):
    return sum([x[0], x[1] * x[2]], x[2] * 0.5) ** 2


def array_start(x):
    return np.sum(sum([x[0], x[1]], x * x) * x)


def tuple_concatenation(x):
    t = sum(((x[0],), (x[1], x[2])), ())
    return t[0] * t[2] + t[1]


def list_concatenation_with_start(x):
    parts = sum([[x[0], x[1] * 2.0], [x[2]]], [x[1] ** 2])
    return parts[0] * parts[1] + parts[3] ** 2 - parts[2]


def generator_of_products(x):
    return sum(x[i] * x[(i + 1) % 3] for i in range(3))


def map_of_squares(x):
    return sum(map(lambda v: v * v, x)) + sum(map(float, x))


def rows_of_a_matrix(x):
    m = np.stack([x, x ** 2])
    return np.sum(sum(m) * x)


def sum_of_tuples_of_arrays(x):
    pairs = sum(((x, x[0]), (x * 2.0,)), ())
    return np.sum(pairs[0] * pairs[2]) * pairs[1]


CASES = [number_and_arrays, rows_broadcast, float_start, array_start, tuple_concatenation,
         list_concatenation_with_start, generator_of_products, map_of_squares, rows_of_a_matrix,
         sum_of_tuples_of_arrays]


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_builtin_sum(fn, mode):
    check_derivatives(fn, X, modes=(mode,))
