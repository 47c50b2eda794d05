"""Builtins that consume an iterator made by `reversed(xs)` or `iter(xs)`: `sum`, `sorted`, `math.fsum`, `max`,
`statistics.fmean`.  Reverse mode's pullbacks read the consumed iterable again, and found the iterator exhausted:
`sum(reversed(xs))` gave 0 for 4.4, silently.  Forward mode's `sorted(iter(xs))` raised an IndexError.  The
lowering now hands such a consumer `list(it)` (forward/object_iteration.py); an iterator the lowering cannot see
(through a branch) is refused by the pullback instead of giving zero."""
import functools
import math
import operator
import statistics

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives


def items(x):
    return [x, 2.0 * x, x * x]


def sum_reversed(x):
    return sum(reversed(items(x)))


def sum_iter(x):
    return sum(iter(items(x)))


def sum_iterator_in_a_name(x):
    it = iter(items(x))
    return sum(it)


def sum_reversed_slice(x):
    return sum(reversed(items(x)[:2])) + sum(iter(items(x)[1:]))


def sum_reversed_tuple(x):
    return sum(reversed(tuple(items(x))))


def sum_reversed_array(x):
    return sum(reversed(np.array(items(x))))


def sorted_iterators(x):
    return sorted(reversed(items(x)))[0] + sorted(iter(items(x)))[2]


def extrema(x):
    return max(reversed(items(x))) + min(iter(items(x)))


def fsum_and_fmean(x):
    return math.fsum(reversed(items(x))) + statistics.fmean(reversed(items(x)))


def reduce_reversed(x):
    return functools.reduce(operator.mul, reversed(items(x)))


CASES = [sum_reversed, sum_iter, sum_iterator_in_a_name, sum_reversed_slice, sum_reversed_tuple, sum_reversed_array,
         sorted_iterators, extrema, fsum_and_fmean, reduce_reversed]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_consumed_iterators(fn):
    check_derivatives(fn, 0.7)


def iterator_through_a_branch(x):
    xs = [x, x * x]
    if x > 0:
        it = reversed(xs)
    else:
        it = iter(xs)
    return sum(it)


def reversed_local_arrays(a):
    b = np.outer(a, a) * 1.0
    return sum(reversed(b)).sum() + math.fsum(reversed(a * 1.0)) + sum(reversed(a * 2.0)) * a[0]


def test_reversed_local_arrays():
    """The adjoint of `reversed(b)` for a 1-D array b made in the function was a list, which the typed pullback
    multiplied by a float (TypeError)."""
    check_derivatives(reversed_local_arrays, np.array([-0.871, 0.574, -0.79]))


def test_an_iterator_the_lowering_cannot_see():
    """(was refused: reverse mode's iter() and reversed() now count the items they hand out, so sum() knows them)"""
    for x in (0.7, -0.7):
        check_derivatives(iterator_through_a_branch, x)


def next_after_a_write(x):
    xs = [x, 2.0, 3.0]
    it = iter(xs)
    a = next(it)
    xs[1] = 5.0 * x
    b = next(it)
    return a * b


def rest_after_an_append(x):
    xs = [x, 2.0, 3.0]
    it = iter(xs)
    a = next(it)
    xs.append(x * x)
    return a + sum(it)


@pytest.mark.parametrize("fn", [next_after_a_write, rest_after_an_append], ids=lambda f: f.__name__)
def test_forward_iterator_reads_the_items_as_it_reaches_them(fn):
    """Forward mode's tangent of iter(xs) was a queue of the items' tangents taken when the iterator was made: a write
    or an append before next() was lost (3.5 for 7.0; 1.0 for 2.4).  (Reverse mode refuses next().)"""
    check_derivatives(fn, 0.7, modes=("forward",))


class _Poly:
    def __init__(self, c):
        self.c = c

    def ev(self, t):
        return self.c[0] + self.c[1] * t + self.c[2] * t * t


def squared_sum_of_a_map(x):
    p = _Poly([0.5, x, 0.25])
    return sum(map(p.ev, [x * x, x])) ** 2 + sum(map(math.sin, [x * x, x])) ** 2


def test_second_derivative_through_sum_of_a_map():
    """Nested, map's result (an iterator, `return iter(ys)` in the code differentiated again) was exhausted by `sum`
    when the pullback read its items: the part of the second derivative through the sum's value was lost (32.9 for
    58.3, 0.44 for 8.44).  The iterator of a list now records its items (reverse/runtime._iter_call)."""
    h = 1e-5
    want = (mc.grad(squared_sum_of_a_map)(0.7 + h) - mc.grad(squared_sum_of_a_map)(0.7 - h)) / (2 * h)
    assert mc.grad(mc.grad(squared_sum_of_a_map))(0.7) == pytest.approx(want, rel=1e-6)
    assert mc.hessian(squared_sum_of_a_map)(0.7) == pytest.approx(want, rel=1e-6)
