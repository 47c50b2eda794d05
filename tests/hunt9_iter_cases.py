"""hunt9 probes: iterators read in parts (next in reverse mode), itertools, generators."""
from __future__ import annotations

import functools
import itertools
import math
import numpy as np


def take_two(it):
    a = next(it)
    b = next(it)
    return a * b


def helper_consumes(x):
    it = iter(x)
    head = take_two(it)
    s = head
    for v in it:
        s = s + v * v
    return s


def two_iterators_interleaved(x):
    lst = list(x)
    it1 = iter(lst)
    it2 = iter(lst[::-1])
    s = 0.0
    for _ in range(3):
        s = s + next(it1) * next(it2)
    return s


def next_of_zip(x):
    it = zip(x[:-1], x[1:])
    a, b = next(it)
    s = a * b
    for c, d in it:
        s = s + (d - c) ** 2
    return s


def next_of_enumerate(x):
    it = enumerate(x)
    i0, v0 = next(it)
    s = v0 ** 2
    for i, v in it:
        s = s + i * v * v0
    return s


def next_of_map(x):
    it = map(math.sin, x)
    first = next(it)
    return first * sum(it)


def next_default_loop(x):
    it = iter(x)
    s = 0.0
    v = next(it, None)
    while v is not None:
        s = s + v ** 3
        v = next(it, None)
    return s


def rows_next_then_write(x):
    m = x.reshape(3, 2).copy()
    it = iter(m)
    r0 = next(it)
    m[1] *= r0[0]  # (the next row read is this written row)
    s = np.sum(r0 ** 2)
    for r in it:
        s = s + np.sum(r ** 2)
    return s


def array_iter_written(x):
    y = x.copy()
    it = iter(y)
    first = next(it)
    y[1] = first * 3.0
    return first + sum(v * v for v in it)


def dict_values_iter(x):
    d = {"a": x[0], "b": x[1] * 2.0, "c": x[2]}
    it = iter(d.values())
    first = next(it)
    return first * sum(it)


def islice_sum(x):
    return sum(v * v for v in itertools.islice(x, 1, 4))


def chain_loop(x):
    s = 0.0
    for v in itertools.chain(x[:2], x[3:]):
        s = s + math.exp(v)
    return s


def accumulate_list(x):
    acc = list(itertools.accumulate(x))
    return sum(a * a for a in acc)


def pairwise_loop(x):
    s = 0.0
    for a, b in itertools.pairwise(x):
        s = s + (b - a) ** 2 * a
    return s


def reduce_mul(x):
    return functools.reduce(lambda a, b: a * b + 0.1, x)


def product_loop(x):
    s = 0.0
    for a, b in itertools.product(x[:2], x[2:4]):
        s = s + a * b ** 2
    return s


def zip_longest_loop(x):
    s = 0.0
    for a, b in itertools.zip_longest(x[:3], x[3:5], fillvalue=1.0):
        s = s + a * b
    return s


def starmap_sum(x):
    return sum(itertools.starmap(lambda a, b: a * math.cos(b), zip(x, x[::-1])))


def list_of_iter_after_next(x):
    it = iter(x)
    next(it)
    rest = list(it)
    return sum(v * v for v in rest) + rest[0]


def tuple_unpack_iter(x):
    it = iter(x)
    a, b, *rest = it
    return a * b + sum(rest)


def sorted_enumerate(x):
    order = sorted(enumerate(x), key=lambda p: p[1])
    s = 0.0
    for rank, (i, v) in enumerate(order):
        s = s + rank * v
    return s


def max_of_zip(x):
    return max(zip(x, x[::-1]), key=lambda p: p[0] * p[1])[1] * 2.0


def any_early_exit(x):
    s = 0.0
    for v in x:
        if v > 1.0:
            break
        s = s + v * v
    else:
        s = s * 2.0
    return s


def yield_from_gen(x):
    def inner(xs):
        for v in xs:
            yield v * 2.0
    def outer(xs):
        yield from inner(xs[:3])
        yield from inner(xs[3:])
    return sum(t * t for t in outer(x))


def gen_send_state(x):
    def running(xs):
        tot = 0.0
        for v in xs:
            tot = tot + v
            yield tot
    return math.fsum(t * t for t in running(x))
