"""Writing a list or a tuple of numbers into an array (`a[0:2] = [x, y]`, `A[:, 0] = (x, y)`, a row from a list, a
nested list into a block, one item broadcast over a slice) in reverse mode: each item's adjoint is its entry of the
written region.  On the trunk the region's adjoint was summed into one number: `A[:, 0] = (x, 2 * x)` gave a
silently wrong gradient (0 for 1.52) and the others crashed."""
import math

import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives


def arr_list(x):
    a = np.ones(3)
    a[0:2] = [x, x * x]
    return np.sum(a * a)
def arr_tuple_col(x):
    A = np.ones((2, 3))
    A[:, 0] = (x, 2 * x)
    return np.sum(A * A) * A[1, 0]
def arr_row_list(x):
    A = np.ones((2, 3))
    A[1] = [x, math.sin(x), 3.0]
    return np.sum(A ** 3)
def arr_nested(x):
    A = np.zeros((3, 2))
    A[0:2] = [[x, 1.0], [2.0, x * x]]
    return np.sum(np.tanh(A))
def arr_bcast(x):
    a = np.zeros(3)
    a[:] = [x]
    return np.sum(a * np.arange(3.0))
def arr_list_of_arrays(x, w):
    A = np.zeros((2, 2))
    A[0:2] = [w * x, w + x]
    return np.sum(A ** 2)
def arr_single(x):
    a = np.ones(3)
    a[1:2] = [x * 3]
    return np.sum(a ** 2)
def arr_loop(x):
    a = np.zeros(4)
    for i in range(2):
        a[2 * i:2 * i + 2] = [x * i, x + i]
    return np.sum(a ** 2)

CASES = [(arr_list, (0.7,)), (arr_tuple_col, (0.7,)), (arr_row_list, (0.7,)), (arr_nested, (0.7,)), (arr_bcast, (0.7,)),
         (arr_list_of_arrays, (0.7, np.array([0.3, -1.2]))), (arr_single, (0.7,)), (arr_loop, (0.7,))]


@pytest.mark.parametrize("fn,args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_items_written_into_an_array(fn, args):
    check_derivatives(fn, *args)


def list_slice_from_iterator(x):
    lst = [x, 2.0]
    lst[1:1] = iter([x * 3.0])
    return lst[0] * lst[1] + lst[2]


def list_slice_from_generator(x):
    lst = [x, 2.0, 1.0]
    lst[0:2] = (v * 2 for v in [x, x * x])
    return lst[0] * lst[1] + lst[2]


@pytest.mark.parametrize("fn", [list_slice_from_iterator, list_slice_from_generator], ids=lambda f: f.__name__)
def test_a_list_slice_written_from_an_iterator(fn):
    """`lst[1:1] = iter(...)` grew the list by a count the pullback could not see (the iterator is spent): it
    gave 2.1 for 4.2, silently.  The saved slice now carries the list's length before the write."""
    check_derivatives(fn, 0.7)


def list_extended_by_an_iterator(x):
    lst = [x]
    lst += map(np.sin, [x, 2 * x])
    lst += (v * v for v in [x, 1.5])
    return sum(lst) * lst[1]


def test_a_list_extended_by_an_iterator():
    """`lst += map(...)` and `lst += (generator)`: both modes crashed (a list plus an iterator's tangent or
    adjoint); what `+=` takes from an iterator is its items, a list to both modes' rules."""
    check_derivatives(list_extended_by_an_iterator, 0.7)
