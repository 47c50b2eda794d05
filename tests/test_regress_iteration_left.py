"""Iterators read in parts, the cases the lazy iteration left (hunt5): `islice(it, n)` followed by another reader of
`it` (the rest, the next chunk), both modes; and the cases refused honestly rather than computed wrong."""
import itertools

import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives

X4 = np.array([0.7, -1.3, 2.1, 0.4])
X5 = np.array([0.7, -1.3, 2.1, 0.4, 1.6])


# ------------------------------------------------------------------ islice, then another reader of the same iterator
def islice_head_then_list(x):
    it = iter(x)
    head = list(itertools.islice(it, 2))
    return sum(head) * sum(list(it))


def islice_head_then_loop(x):
    it = iter(x)
    head = list(itertools.islice(it, 1))
    s = 0.0
    for v in it:
        s = s + v * v
    return head[0] * s


def islice_with_start_and_step_then_rest(x):
    it = iter(x)
    picked = list(itertools.islice(it, 0, 3, 2))  # items 0 and 2 (3 read)
    return picked[0] * picked[-1] + 2.0 * sum(it)


def islice_twice(x):
    it = iter(list(x))
    a = sum(itertools.islice(it, 2))
    b = sum(itertools.islice(it, 2))
    return a * b + sum(it)


def islice_of_a_map_then_rest(x):
    it = map(lambda v: v * v, x)
    head = list(itertools.islice(it, 2))
    rest = list(it)
    return head[0] - head[1] * sum(rest)


def islice_of_a_map_then_sum_of_the_rest(x):
    it = map(lambda v: v * v, x)
    head = list(itertools.islice(it, 2))
    return head[0] - head[1] * sum(it)


def islice_of_a_generator_then_rest(x):
    g = (v * 3.0 for v in x)
    head = list(itertools.islice(g, 2))
    return head[0] * head[1] + sum(g)


def next_then_islice_then_rest(x):
    it = iter(x)
    first = next(it)
    mid = list(itertools.islice(it, 2))
    return first * sum(mid) + sum(it) ** 2


def chunks_of_two(x):
    it = iter(x)
    out = 0.0
    while True:
        chunk = list(itertools.islice(it, 2))
        if not chunk:
            break
        out = out + chunk[0] * chunk[-1]
    return out


def chunks_of_three_as_tuples(x):
    it = iter(x)
    out = 0.0
    while chunk := tuple(itertools.islice(it, 3)):
        out = out + sum(chunk) * chunk[0]
    return out


def islice_of_a_list_twice(x):
    L = list(x)
    return sum(itertools.islice(L, 2)) * sum(itertools.islice(L, 1, None))


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("f", [islice_head_then_list, islice_head_then_loop, islice_with_start_and_step_then_rest,
                               islice_twice, islice_of_a_map_then_rest, islice_of_a_generator_then_rest,
                               next_then_islice_then_rest, chunks_of_two, chunks_of_three_as_tuples,
                               islice_of_a_list_twice])
@pytest.mark.parametrize("x", [X4, X5], ids=["n4", "n5"])
def test_islice_then_another_reader(f, mode, x):
    check_derivatives(f, x.copy(), modes=(mode,))


def test_islice_of_a_map_then_sum_of_the_rest():
    check_derivatives(islice_of_a_map_then_sum_of_the_rest, X4.copy(), modes=("forward",))
    with pytest.raises(Exception, match="over an iterator that a second call read too"):  # (honest, reverse)
        check_derivatives(islice_of_a_map_then_sum_of_the_rest, X4.copy(), modes=("reverse",))


# ------------------------------------------------------------------ an iterator class of the user's, read in parts
class _Stepper:
    def __init__(self, xs, scale):
        self.xs = xs
        self.scale = scale
        self.i = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.i >= len(self.xs):
            raise StopIteration
        self.i += 1
        return self.xs[self.i - 1] * self.scale


class _Bag:
    """An iterable (not an iterator): each loop gets a fresh _Stepper."""

    def __init__(self, xs):
        self.xs = xs

    def __iter__(self):
        return _Stepper(self.xs, 1.5)


def user_iterator_break_then_sum(x):
    w = _Stepper(x, 2.0)
    s = 0.0
    for a in w:
        s = s + a
        if a < 0:
            break
    return s * sum(w)


def user_iterator_break_then_loop(x):
    w = _Stepper(x, x[0])
    s = 0.0
    for a in w:
        s = s + a * a
        if s > 1.0:
            break
    t = 0.0
    for b in w:
        t = t + b
    return s + t * x[1]


def user_iterator_zip_with_itself(x):
    w = _Stepper(x, 1.0)
    return sum(a * b for a, b in zip(w, w))


def user_iterator_nested_loops(x):
    w = _Stepper(x, 1.0)
    s = 0.0
    for a in w:
        for b in w:
            s = s + a * b
            break
    return s


def user_iterator_next_then_loop(x):
    w = _Stepper(x, 3.0)
    first = next(iter(w)) if False else w.__next__()
    s = 0.0
    for a in w:
        s = s + first * a
    return s


def user_iterable_loops_twice(x):
    b = _Bag(x)
    s = 0.0
    for a in b:
        s = s + a
        break
    for a in b:  # a fresh iterator: all the items again
        s = s + a * a
    return s


def user_iterator_whole(x):
    return sum(_Stepper(x, 0.5)) * max(_Stepper(x, 1.0))


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("f", [user_iterator_break_then_sum, user_iterator_break_then_loop, user_iterator_zip_with_itself,
                               user_iterator_nested_loops, user_iterator_next_then_loop, user_iterable_loops_twice,
                               user_iterator_whole])
@pytest.mark.parametrize("x", [X4, X5], ids=["n4", "n5"])
def test_user_iterator_read_in_parts(f, mode, x):
    check_derivatives(f, x.copy(), modes=(mode,))
