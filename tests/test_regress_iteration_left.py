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
    check_derivatives(islice_of_a_map_then_sum_of_the_rest, X4.copy())  # (reverse too: islice reads map's items as asked)


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


# ------------------------------------------------------------------ lazy iterators that escape a name: refused honestly
def _changes_then_sums(it, L, v):
    L[0] = v
    return sum(it)


def _sums_only(it, scale):
    return sum(it) * scale


def _squares_of(L):
    return map(lambda v: v * v, L)


def _genexp_of(L, k):
    return (v * k for v in L)


def escapes_handed_with_its_source(x):
    L = [x[0], x[1]]
    return _changes_then_sums(map(lambda v: v * 3.0, L), L, x[2])


def escapes_iter_handed_with_its_source(x):
    L = [x[0], x[1], x[3]]
    return _changes_then_sums(iter(L), L, x[2] * 2.0)


def escapes_returned_map(x):
    L = [x[0], x[1]]
    m = _squares_of(L)
    L[1] = x[2]
    return sum(m)


def escapes_returned_genexp(x):
    L = [x[0], x[1]]
    g = _genexp_of(L, 2.0)
    L.append(x[2])
    return sum(g)


def escapes_in_a_tuple(x):
    L = [x[0], x[1]]
    pair = (iter(L), x[2])
    L[0] = x[3] * 2.0
    return sum(pair[0]) * pair[1]


def escapes_in_a_dict(x):
    L = [x[0], x[1]]
    box = {"m": map(lambda v: v + 1.0, L)}
    L[1] = x[2]
    return sum(box["m"])


def escapes_on_an_object(x):
    class Box:
        pass
    b = Box()
    d = {"a": x[0], "b": x[1]}
    b.vals = d.values()
    d["a"] = x[2] * 3.0
    return sum(b.vals)


def escapes_in_a_comprehension_of_views(x):
    d = {"a": x[0], "b": x[1]}
    vs = [d.values() for _ in range(3)]
    d["b"] = x[3]
    return sum(sum(v) for v in vs)


def late_variable_in_a_genexp_comprehension(x):
    gens = [(v + k for v in x) for k in (1.0, 2.0, 3.0)]
    return sum(sum(g) for g in gens)


def late_variable_in_a_lambda_of_map(x):
    ms = [map(lambda v: v * k, x) for k in (1.0, 2.0)]
    return sum(sum(m) for m in ms)


def late_variable_in_a_set_comprehension_filter(x):
    gens = {k: (v for v in x if v > k) for k in (0.0, 1.0)}
    return sum(sum(g) for g in gens.values())


REFUSED = [escapes_handed_with_its_source, escapes_iter_handed_with_its_source, escapes_returned_map,
           escapes_returned_genexp, escapes_in_a_tuple, escapes_in_a_dict, escapes_on_an_object,
           escapes_in_a_comprehension_of_views, late_variable_in_a_genexp_comprehension,
           late_variable_in_a_lambda_of_map, late_variable_in_a_set_comprehension_filter]


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("f", REFUSED)
def test_escaping_lazy_iterator_refused(f, mode):
    import mooncake_ast as mc

    with pytest.raises(mc.UnsupportedSyntaxError, match="may change what it reads|is handed a lazy iterator|"
                                                        "read its variable") as info:
        check_derivatives(f, X4.copy(), modes=(mode,))
    assert "test_regress_iteration_left.py" in str(info.value)  # (the user's file and line)


# ------------------------------------------------------------------ their neighbours that are right: not refused
def kept_in_a_list_no_change(x):
    L = [x[0], x[1]]
    holder = [map(lambda v: v * 2.0, L)]
    return sum(holder[0]) * x[2]


def handed_to_a_helper_without_its_source(x):
    L = [x[0], x[1], x[2]]
    return _sums_only(map(lambda v: v * v, L), x[3])


def returned_map_read_at_once(x):
    L = [x[0], x[1]]
    m = _squares_of(L)
    total = sum(m)
    L[0] = x[2]
    return total + L[0]


def lists_made_in_a_comprehension(x):
    rows = [list(v * k for v in x) for k in (1.0, 2.0)]
    return sum(sum(r) for r in rows)


def consumed_in_the_comprehension(x):
    return sum([sum(v * k for v in x) for k in (1.0, 2.0, 3.0)])


def genexps_over_rows_of_a_comprehension(x):
    rows = [x[:2], x[2:]]
    gens = [(v * v for v in row) for row in rows]  # (the first iterable is read at once: no late variable)
    return sum(sum(g) for g in gens)


def lambda_with_a_default_in_a_comprehension(x):
    ms = [map(lambda v, k=k: v * k, x) for k in (1.0, 2.0)]
    return sum(sum(m) for m in ms)


def zips_made_in_a_comprehension(x):
    pairs = [zip(x, x[i:]) for i in (1, 2)]
    return sum(sum(a * b for a, b in p) for p in pairs)


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("f", [kept_in_a_list_no_change, handed_to_a_helper_without_its_source,
                               returned_map_read_at_once, lists_made_in_a_comprehension, consumed_in_the_comprehension,
                               genexps_over_rows_of_a_comprehension, lambda_with_a_default_in_a_comprehension,
                               zips_made_in_a_comprehension])
@pytest.mark.parametrize("x", [X4, X5], ids=["n4", "n5"])
def test_escaping_lazy_iterator_right(f, mode, x):
    check_derivatives(f, x.copy(), modes=(mode,))
