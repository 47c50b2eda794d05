"""Builtins that consume an instance of the user's class with `__iter__`: `sum(b)`, `max(b)`, `list(b)`, `map(f, b)`.

The builtin runs the object's `__iter__` in C, out of the transforms' sight. Reverse mode put the items' adjoints
where the object's field adjoints belong and they were dropped: `sum(Buf([x, x * x]))` gave 0 for 2.4, and so did
max, min, math.fsum, functools.reduce, sorted, statistics.fmean and map over such an object; forward mode failed
with a TypeError. A consumer of a possible user object now reads its items first through the dispatched
`ops.sequence` (forward/object_iteration.py), as a `for` loop over it does; map() and filter() do the same when
they run. Where an object's items still go through code that is not differentiated (itertools, zip outside a
loop), both modes refuse instead of dropping the derivative (reverse/shadows.add_into, rules/builtin_iteration)."""
import functools
import itertools
import math
import statistics

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.errors import UnsupportedDerivativeError
from mooncake_ast.testing import check_derivatives


class Bag:
    def __init__(self, vals):
        self.vals = vals

    def __iter__(self):
        return iter(self.vals)


class Buffer:
    """Items yielded by a generator method over an array field written item by item."""

    def __init__(self, n):
        self.data = np.zeros(n)

    def __setitem__(self, i, v):
        self.data[i] = v

    def __iter__(self):
        for v in self.data:
            yield v


def summed(x):
    return sum(Bag([x, x * x]))


def summed_start(x):
    return sum(Bag([x, 3.0 * x]), 1.0) * 2.0


def generator_items(x):
    b = Buffer(3)
    for i in range(3):
        b[i] = x * (i + 1.0)
    return sum(b) + max(b)


def extrema(x):
    b = Bag([x, x * x, -2.0 * x])
    return max(b) + min(b) + max(b, key=abs)


def fsum_prod(x):
    b = Bag([x, x * x])
    return math.fsum(b) + math.prod(b)


def reduced(x):
    return functools.reduce(lambda a, c: a * c + 1.0, Bag([x, x * x, 2.0]))


def sorted_listed(x):
    b = Bag([x, 3.0 * x])
    return sum(sorted(b)) + list(b)[1] * tuple(b)[0]


def mapped(x):
    return sum(map(lambda v: v * v, Bag([x, 2.0 * x])))


def mapped_pairs(x):
    return sum(map(lambda u, v: u * v, Bag([x, x * x]), Bag([3.0, x])))


def filtered(x):
    return sum(filter(lambda v: v > 0, Bag([x, -x * x, 3.0 * x]))) * 2.0


def statistics_and_arrays(x):
    b = Bag([x, x * x])
    return statistics.fmean(b) + np.sum(np.fromiter(b, float) ** 2) + np.sum(np.array(list(b)))


def through_helper(x):
    return _total(Bag([x, x * x]))


def _total(b):
    return sum(b) * 2.0


WORKS = [summed, summed_start, generator_items, extrema, fsum_prod, reduced, sorted_listed, mapped, mapped_pairs,
         filtered, statistics_and_arrays, through_helper]


@pytest.mark.parametrize("fn", WORKS, ids=lambda f: f.__name__)
def test_consumers_of_user_iterables(fn):
    check_derivatives(fn, 0.7)


def accumulated(x):
    return list(itertools.accumulate(Bag([x, 3.0 * x])))[-1]


def zipped_list(x):
    return sum(u * v for u, v in list(zip(Bag([x, x * x]), Bag([2.0, x]))))


@pytest.mark.parametrize("fn", [accumulated, zipped_list], ids=lambda f: f.__name__)
def test_items_through_untraced_code_refused(fn):
    with pytest.raises(UnsupportedDerivativeError, match="read by code that is not differentiated|read as its items"):
        mc.grad(fn)(0.7)
    with pytest.raises(UnsupportedDerivativeError, match="read by code that is not differentiated|read as its items"):
        mc.jvp(fn, (0.7,), (1.0,))


class AsArray:
    """An object NumPy reads through `__array__` (in C, not differentiated)."""

    def __init__(self, v):
        self.v = v

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.v, dtype=dtype)


def numpy_sum_of_object(x):
    return np.sum(AsArray(np.array([x, 2.0 * x])))


def numpy_ufunc_of_object(x):
    return np.exp(AsArray(np.array([x, 1.0]))).sum()


@pytest.mark.parametrize("fn", [numpy_sum_of_object, numpy_ufunc_of_object], ids=lambda f: f.__name__)
def test_object_read_by_numpy_refused(fn):
    """Both gave a zero gradient in reverse mode, and forward mode handed back the object's tangent as the result's."""
    with pytest.raises(UnsupportedDerivativeError, match="not differentiated"):
        mc.grad(fn)(0.7)
    with pytest.raises(UnsupportedDerivativeError, match="not differentiated"):
        mc.jvp(fn, (0.7,), (1.0,))


def asarray_of_own_field(x):
    """`__array__` returning the field itself: np.asarray gives that very array, whose adjoint is the field's."""
    a = AsArray(np.array([x, 2.0 * x]))
    return np.sum(np.asarray(a) ** 2)


def test_asarray_of_own_field_reverse():
    g = mc.grad(asarray_of_own_field)(0.7)
    assert abs(g - 10.0 * 0.7) < 1e-9


class Countdown:
    """An iterator of the user's: `__iter__` returns self, `__next__` raises StopIteration at the end."""

    def __init__(self, vals):
        self.vals = vals
        self.i = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.i >= len(self.vals):
            raise StopIteration
        self.i += 1
        return self.vals[self.i - 1]


def loop_over_iterator(x):
    s = 0.0
    for v in Countdown([x, x * x]):
        s += v * v
    return s


def sum_of_iterator(x):
    return sum(Countdown([x, 3.0 * x, x * x])) * x


@pytest.mark.parametrize("fn", [loop_over_iterator, sum_of_iterator], ids=lambda f: f.__name__)
def test_iterator_objects(fn):
    """Iterating it dispatched to `ops.sequence` of what `__iter__` returned, itself: a RecursionError."""
    check_derivatives(fn, 0.7)


def next_of_iterator(x):
    it = Countdown([x, x * x, 2.0])
    first = next(it)
    return first * sum(it)


def test_next_of_iterator_object_refused():
    with pytest.raises(mc.MooncakeError, match="reverse mode of next"):
        mc.grad(next_of_iterator)(0.7)
    with pytest.raises(UnsupportedDerivativeError):
        mc.jvp(next_of_iterator, (0.7,), (1.0,))
