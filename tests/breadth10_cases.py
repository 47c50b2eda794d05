"""Realistic functions using itertools, filter, `yield from`, shuffles and permutations (helper breadth10, issue 12):
the probes of tests/test_regress_breadth10.py."""
import itertools
import math

import numpy as np


# ---- itertools: pairs, running values, grids ----------------------------------------------------------------------
def moving_average_pairwise(x):
    s = 0.0
    for a, b in itertools.pairwise(x):
        m = 0.5 * (a + b)
        s = s + m * m * math.cos(a)
    return s


def pairwise_rows(x):
    rows = x.reshape(3, 2)
    return sum(float(np.sum(a * b ** 2)) for a, b in itertools.pairwise(rows))


def running_sum(x):
    total = 0.0
    for c in itertools.accumulate(x):
        total = total + math.log(1.0 + c * c)
    return total


def smoothed(x):
    ema = list(itertools.accumulate(x, lambda s, v: 0.7 * s + 0.3 * v * v))
    return ema[-1] + sum(e ** 3 for e in ema)


def accumulate_rows(x):
    acc = list(itertools.accumulate([x[:2], x[2:4], x[4:]]))
    return float(np.sum(acc[-1] ** 2) + np.sum(acc[1] * acc[0]) + np.sum(acc[0] ** 3))


def accumulate_initial(x):
    acc = list(itertools.accumulate(x[1:], lambda a, b: a * b + 0.5, initial=x[0]))
    return acc[-1] + acc[1] ** 2


def grid_energy(x):
    s = 0.0
    for a, b in itertools.product(x[:3], x[3:]):
        s = s + a * b * math.exp(-(a - b) ** 2)
    return s


def pair_interactions(x):
    s = 0.0
    for a, b in itertools.product(x[:4], repeat=2):
        s = s + math.sin(a * b) * a
    return s


def product_of_arrays(x):
    s = 0.0
    for u, v in itertools.product([x[:2], x[2:4]], [x[4:], x[:2] * 2.0]):
        s = s + float(np.dot(u, v)) ** 2
    return s


def chained(x):
    s = 0.0
    for v in itertools.chain(x[:2], x[4:], [x[2] * x[3]]):
        s = s + math.exp(v) * v
    return s


def chained_rows(x):
    rows = [x[:2], x[2:4] * 2.0, x[4:]]
    return sum(v ** 3 for v in itertools.chain.from_iterable(rows))


def every_other(x):
    return sum(v * v * v for v in itertools.islice(x, 1, None, 2))


def head_then_rest(x):
    it = iter(x)
    head = list(itertools.islice(it, 2))  # (it is read on after: its first two items are the head's)
    rest = list(it)
    return head[0] * head[1] + sum(r ** 3 for r in rest)


def exhausted_then_chained(x):
    it = iter(x)
    first = sum(v * v for v in it)  # (it is exhausted here: chain gets nothing from it)
    return first + sum(math.sin(v) for v in itertools.chain(it, x[:3]))


def starmapped(x):
    return sum(itertools.starmap(lambda a, b: a * math.cos(b) + b * b, zip(x, x[::-1])))


def padded_products(x):
    s = 0.0
    for a, b in itertools.zip_longest(x[:4], x[4:], fillvalue=0.5):
        s = s + a * b + a * a
    return s


def padded_with_x(x):
    s = 0.0
    for a, b in itertools.zip_longest(x[:4], x[4:], fillvalue=x[0]):
        s = s + a * b
    return s


def repeated_scale(x):
    s = 0.0
    for v, c in zip(x, itertools.repeat(x[0] * 2.0, 4)):
        s = s + v * c * v
    return s


def selected(x):
    kept = list(itertools.compress(x, [1, 0, 1, 1, 0, 1]))
    lead = list(itertools.takewhile(lambda t: t < 1.0, x))
    tail = list(itertools.dropwhile(lambda t: t < 1.0, x))
    return sum(k ** 3 for k in kept) + sum(a * a for a in lead) + sum(math.sin(b) for b in tail)


# ---- filter and generators --------------------------------------------------------------------------------------
def positive_energy(x):
    s = 0.0
    for v in filter(lambda t: t > 0.0, x):
        s = s + v ** 2 * math.sin(v)
    return s


def nonzero_cubes(x):
    return sum(v * v * v for v in filter(None, x * (x > 0.0)))


def delegating_generators(x):
    def scaled(xs):
        for v in xs:
            yield v * 2.0

    def both(xs):
        yield from scaled(xs[:3])
        yield from scaled(xs[3:])

    return sum(t * t * t for t in both(x))


def yield_from_slices(x):
    def halves(xs):
        yield from xs[:2]
        yield from xs[3:]

    s = 0.0
    for v in halves(x):
        s = s + v ** 3 - v
    return s


# ---- random permutations in place ---------------------------------------------------------------------------------
def shuffled_loss(x):
    y = x ** 2
    np.random.default_rng(6).shuffle(y)
    return float(np.sum(y * np.arange(len(x)) + np.sin(y)))


def shuffled_rows(x):
    a = np.outer(x[:3], x[3:])
    np.random.default_rng(1).shuffle(a, axis=1)
    return float(np.sum(a * np.arange(9.0).reshape(3, 3)) + np.sum(a ** 2))


def global_shuffle(x):
    np.random.seed(3)
    y = x * 2.0
    np.random.shuffle(y)
    return float(np.sum(y ** 2 * np.arange(len(x))))


def permuted_columns(x):
    a = x.reshape(2, 3)
    b = np.random.default_rng(4).permuted(a * a, axis=1)
    return float(np.sum(b * np.arange(6.0).reshape(2, 3)))


def count_numbered(x):
    s = 0.0
    for k, v in zip(itertools.count(1), x):
        s = s + k * v ** 2
    return s


# ---- scipy.sparse: conversions and construction ------------------------------------------------------------------
_STENCIL = np.array([[2.0, -1.0, 0.5, 0.0, 0.0, 0.0], [-1.0, 2.0, -1.0, 0.0, 0.0, 0.25],
                     [0.0, -1.0, 2.0, -1.0, 0.0, 0.0]])  # (module level: a constant, its zeros never differentiated)


def laplacian_energy(x):
    import scipy.sparse as sps

    lap = sps.diags([-np.ones(5), 2.0 * np.ones(6), -np.ones(5)], [-1, 0, 1]).tocsr()
    return float(x @ (lap @ x) + np.sum(np.sin(lap @ x) ** 2))


def stencil_constant(x):
    import scipy.sparse as sps

    m = sps.csr_matrix(_STENCIL)
    return float(np.sum(np.tanh(m @ x)) + np.sum((m.tocsc() @ x) ** 2))


def weighted_graph(x):
    import scipy.sparse as sps

    w = sps.coo_matrix((np.exp(x[:5]), ([0, 1, 2, 3, 3], [1, 2, 3, 0, 0])), shape=(4, 4)).tocsr()
    return float(np.sum((w @ x[2:]) ** 2) + x[:4] @ (w.tocoo() @ x[:4]))


def features_from_x(x):
    import scipy.sparse as sps

    m = sps.csc_matrix(np.outer(x[:3], x[3:]) + 1.5)
    return float(np.sum(np.cos(m @ x[3:])) + np.sum(sps.csr_array(m) @ x[:3]))
