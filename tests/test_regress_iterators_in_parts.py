"""Iterators read item by item (mooncake_ast/lazy_iteration.py): one iterator shared by several readers, `next()`
in both modes, consumers of map/filter/zip/enumerate, star-unpacked iterators, and generators changing an item
after yielding it.  Each case is checked in both modes against finite differences, over several inputs.

Before: a `for` loop over an iterator took all its items when it started (a loop left by `break` left nothing for
the next reader: wrong values and derivatives), reverse mode refused next(), sorted(map(...)) had a zero tangent,
math.prod(map(...)) a zero gradient, statistics.stdev(map(...)) crashed, [*map(...)] a zero gradient."""
import itertools
import math
import statistics

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

INPUTS = [np.array([0.7, -1.3, 2.1, 0.4]), np.array([-0.5, 0.9, 1.7, -2.2, 0.3, 1.1]),
          np.array([1.2, 0.8, -0.6, 0.45])]


# ------------------------------------------------------------------ one iterator, several readers
def break_then_list(x):
    it = iter(x)
    s = 0.0
    for a in it:
        s = s + a * a
        if a < 0:
            break
    return s * sum(list(it)) + s


def break_then_second_loop(x):
    it = iter(x)
    s = 1.0
    for a in it:
        s = s * (1.0 + a)
        if a > 0.5:
            break
    for b in it:
        s = s + 2.0 * b * b
    return s


def nested_loops_one_iterator(x):
    it = iter(x)
    s = 0.0
    for a in it:
        for b in it:
            s = s + a * b
            break
    return s


def zip_of_one_iterator(x):
    it = iter(x)
    return sum(a * b - b for a, b in zip(it, it))


def enumerate_then_rest(x):
    it = iter(x)
    s = 0.0
    for i, a in enumerate(it):
        s = s + (i + 1) * a
        if i == 1:
            break
    return s * sum(it)


def reversed_then_rest(x):
    r = reversed(list(x))
    a = 0.0
    for v in r:
        a = a + v * v
        break
    return a * sum(r)


def map_loop_break_then_rest(x):
    m = map(lambda v: v * v + v, x)
    s = 0.0
    for a in m:
        s = s + a
        if a > 1.0:
            break
    return s + 3.0 * sum(m)


def next_then_sum(x):
    it = iter(x)
    first = next(it)
    second = next(it)
    return first * 3.0 + second * first + sum(it)


def next_then_loop(x):
    it = iter(x * 2.0)
    head = next(it)
    s = 0.0
    for v in it:
        s = s + v * head
    return s


def next_with_default(x):
    it = iter(x[:2])
    a = next(it)
    b = next(it)
    c = next(it, x[0] * 5.0)
    return a * b + c


def first_match(x):
    return next(v for v in x if v < 0.5) * x[2] + next((v * v for v in x if v > 99.0), x[1])


def generator_expression_then_rest(x):
    g = (v * 2.0 for v in x)
    first = next(g)
    return first * sum(g)


def _doubled(v):
    for a in v:
        yield a * 2.0


def generator_next_then_sum(x):
    g = _doubled(x)
    a = next(g)
    return a * sum(g)


def generator_zipped_with_itself(x):
    g = _doubled(x)
    return sum(a * b for a, b in zip(g, g))


PARTS = [break_then_list, break_then_second_loop, nested_loops_one_iterator, zip_of_one_iterator,
         enumerate_then_rest, reversed_then_rest, map_loop_break_then_rest, next_then_sum, next_then_loop,
         next_with_default, first_match, generator_expression_then_rest, generator_next_then_sum,
         generator_zipped_with_itself]


@pytest.mark.parametrize("x", INPUTS[:2], ids=["n4", "n6"])
@pytest.mark.parametrize("f", PARTS, ids=lambda f: f.__name__)
def test_one_iterator_several_readers(f, x):
    check_derivatives(f, x.copy())


# ------------------------------------------------------------------ consumers of lazy builtins
def sorted_of_map(x):
    return sum(sorted(map(lambda v: v * v, x))[:2])


def sorted_of_filter_reversed(x):
    return sorted(filter(lambda v: v > -1.0, x), reverse=True)[0] * x[0]


def argsort_by_enumerate(x):
    order = sorted(enumerate(x), key=lambda t: t[1])
    return order[0][1] * 2.0 + order[-1][1]


def argmax_by_enumerate(x):
    i, v = max(enumerate(x), key=lambda t: t[1])
    return v * (i + 1.0)


def sort_values_by_keys(x):
    keys = list(range(len(x)))[::-1]
    return sum(v * i for i, (k, v) in enumerate(sorted(zip(keys, x))))


def prod_of_map(x):
    return math.prod(map(lambda v: v + 1.5, x))


def prod_of_filter(x):
    return math.prod(filter(lambda v: v > 0, x))


def statistics_of_maps(x):
    return statistics.stdev(map(lambda v: v * 2.0, x)) + statistics.fmean(map(abs, x)) + \
        statistics.median(map(lambda v: v * v, x))


def statistics_imported_inside(x):
    import statistics as st
    import math as m
    return st.fmean(map(lambda v: v * v, x)) * m.prod(map(lambda v: v + 2.0, x))


CONSUMERS = [sorted_of_map, sorted_of_filter_reversed, argsort_by_enumerate, argmax_by_enumerate,
             sort_values_by_keys, prod_of_map, prod_of_filter, statistics_of_maps, statistics_imported_inside]


@pytest.mark.parametrize("x", INPUTS, ids=["a", "b", "c"])
@pytest.mark.parametrize("f", CONSUMERS, ids=lambda f: f.__name__)
def test_consumers_of_lazy_builtins(f, x):
    check_derivatives(f, x.copy())


# ------------------------------------------------------------------ star-unpacked iterators
def _pairs(x):
    for v in x:
        yield v, v * 2.0


def unzip_map(x):
    a, b = zip(*map(lambda v: (v, v * v), x))
    return sum(a) * sum(b)


def unzip_generator(x):
    a, b = zip(*_pairs(x))
    return sum(a) * sum(b)


def list_display_of_map(x):
    L = [*map(lambda v: v * v, x), x[0]]
    return sum(L) * L[0]


def call_with_starred_map(x):
    return max(*map(lambda v: v * v, x)) + math.hypot(*map(lambda v: v * 2.0, x))


def stack_of_starred_map(x):
    return np.sum(np.stack([*map(lambda v: np.array([v, v * v]), x)]) ** 2)


def tuple_after_next(x):
    it = iter(x)
    head = next(it)
    rest = (*it,)
    return head * sum(rest)


STARS = [unzip_map, unzip_generator, list_display_of_map, call_with_starred_map, stack_of_starred_map,
         tuple_after_next]


@pytest.mark.parametrize("x", INPUTS[:2], ids=["n4", "n6"])
@pytest.mark.parametrize("f", STARS, ids=lambda f: f.__name__)
def test_star_unpacked_iterators(f, x):
    check_derivatives(f, x.copy())


# ------------------------------------------------------------------ honest refusals
def two_readers_to_the_end(x):
    m = map(lambda v: v * v, x)
    a = list(m)
    return sum(a) + sum(m)  # (sum reads nothing: Python's 0.0)


def _refilled(x):
    buf = np.zeros(2)
    for i in range(2):
        buf[0] = x[i]
        buf[1] = x[i + 1]
        yield buf


def refilled_buffer(x):
    return sum(np.sum(b * b) for b in _refilled(x))


def _grown(x):
    L = []
    for v in x:
        L.append(v)
        yield L


def grown_list(x):
    s = 0.0
    for L in _grown(x):
        s = s + sum(L)
    return s


@pytest.mark.parametrize("f", [refilled_buffer, grown_list], ids=lambda f: f.__name__)
def test_generator_changing_a_yielded_item_is_refused(f):
    with pytest.raises(mc.UnsupportedDerivativeError, match="after yielding it"):
        mc.grad(f)(INPUTS[0].copy())


def test_two_readers_to_the_end_forward_and_reverse():
    """The second reader finds nothing: forward mode follows; reverse mode cannot tell which read what: refused."""
    x = INPUTS[0].copy()
    check_derivatives(two_readers_to_the_end, x, modes=("forward",))
    with pytest.raises(mc.MooncakeError, match="a second call read too"):
        mc.grad(two_readers_to_the_end)(x)


def test_loop_break_reads_only_what_python_reads():
    """The value each mode computes is the plain call's: the loop left by break pulls no item after it."""
    x = INPUTS[1].copy()
    for f in PARTS:
        want = f(x.copy())
        assert np.allclose(mc.jvp(f, (x.copy(),), (np.ones_like(x),))[0], want), f.__name__
        assert np.allclose(mc.vjp(f, x.copy())[0], want), f.__name__


# ------------------------------------------------------------------ zip() of iterators, outside a loop
def list_of_zip_of_one_iterator(x):
    it = iter(x)
    return sum(a * b for a, b in list(zip(it, it)))


def grouper_idiom(x):
    return sum(a * b + a for a, b in zip(*[iter(x)] * 2))


def zip_iterator_with_a_shorter_list(x):
    it = iter(x)
    pairs = list(zip(it, [1.0, 2.0]))
    return sum(a * w for a, w in pairs) * sum(it)  # (zip pulled a third item it then dropped: Python's rule)


def zip_after_next(x):
    it = iter(x)
    head = next(it)
    return head * sum(a - b for a, b in list(zip(it, x)))


ZIPS = [list_of_zip_of_one_iterator, grouper_idiom, zip_after_next]


@pytest.mark.parametrize("x", INPUTS[:2], ids=["n4", "n6"])
@pytest.mark.parametrize("f", ZIPS, ids=lambda f: f.__name__)
def test_zip_of_iterators(f, x):
    check_derivatives(f, x.copy())


def test_zip_then_another_reader():
    """Forward mode follows zip's pulls (a third item pulled and dropped); reverse mode cannot tell where zip
    started once another reader called iter() too: refused, not guessed."""
    x = INPUTS[0].copy()
    check_derivatives(zip_iterator_with_a_shorter_list, x, modes=("forward",))
    with pytest.raises(mc.MooncakeError, match="zip"):
        mc.grad(zip_iterator_with_a_shorter_list)(x)


def map_over_one_iterator_twice(x):
    it = iter(x)
    return sum(map(lambda a, b: a * b + b, it, it))


def map_of_iterator_and_list(x):
    it = iter(x)
    head = next(it)
    return head * sum(map(lambda a, w: a * w, it, [1.0, -2.0, 0.5]))


@pytest.mark.parametrize("x", INPUTS[:2], ids=["n4", "n6"])
@pytest.mark.parametrize("f", [map_over_one_iterator_twice, map_of_iterator_and_list], ids=lambda f: f.__name__)
def test_map_of_iterators(f, x):
    check_derivatives(f, x.copy())
