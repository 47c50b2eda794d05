"""Functions of tests/test_nested_protocols.py: the user's objects used through Python's protocols (`__iter__`,
generators, `__next__`), builtins that call a function or read an iterable whole (map, functools.reduce,
np.fromiter, statistics), `try` bodies, fields by name, and closures over differentiated values -- differentiated
twice and three times.  (In a module of their own, so their source is read from a file.)"""
import dataclasses
import functools
import math
import statistics

import numpy as np


class Bag:
    def __init__(self, vals):
        self.vals = vals

    def __iter__(self):
        return iter(self.vals)


class GenBag:
    def __init__(self, vals):
        self.vals = vals

    def __iter__(self):
        for v in self.vals:
            yield v * 1.0


class ItBag:
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


class Poly:
    def __init__(self, c):
        self.c = c

    def __call__(self, t):
        return self.c[0] + self.c[1] * t + self.c[2] * t * t

    def ev(self, t):
        return self(t) * 2.0


@dataclasses.dataclass
class Fields:
    w: float
    b: float


def _loop_and_sum(B, x):
    b = B([x * x, math.sin(x), x * 0.5])
    s = 0.0
    for t in b:
        s = s + math.sin(t) * t
    return s + sum(B([x, x * x]))


def loop_over_bag(x):
    return _loop_and_sum(Bag, x)


def loop_over_generator_method(x):
    return _loop_and_sum(GenBag, x)


def loop_over_own_iterator(x):
    return _loop_and_sum(ItBag, x)


def unpack_bag(x):
    a, b = Bag([x * x, math.cos(x)])
    return a * b


def map_lambda_over_bag(x):
    return sum(map(lambda t: t * t, Bag([x * x, math.sin(x), x * 0.5])))


def map_bound_method(x):
    p = Poly([0.5, x, 0.25])
    return sum(map(p.ev, [x * x, x]))


def map_callable_object_two_lists(x):
    products = sum(map(lambda a, b: a * b, [x, x * x, 1.0], (math.sin(x), x, 3.0)))
    p = Poly(np.array([0.5, x, 0.25]))
    return products + sum(map(lambda t: p(t), [x]))


C23 = np.arange(6.0).reshape(2, 3) / 5


def map_of_a_callable_object(x):
    p = Poly([0.5, x, 0.25])
    v = sum(map(p, [math.tanh(x), 0.3]))
    return float(np.sum(np.tanh(C23 * v) ** 2))


def reduce_over_bag(x):
    return functools.reduce(lambda p, q: p * 0.5 + q, ItBag([x * x, math.sin(x), x * 0.5]))


def reduce_with_initial(x):
    return functools.reduce(lambda p, q: p * q + 1.0, [x, math.cos(x)], x * 0.3)


def statistics_of_bag(x):
    return statistics.fmean(Bag([x * x, math.sin(x), x * 0.5])) * statistics.mean([x, 2.0])


def fromiter_of_bag(x):
    return float(np.sum(np.fromiter(GenBag([x * x, math.sin(x)]), float) ** 2))


def try_body(x):
    s = 0.0
    for c in (0.5, 3.0):
        try:
            y = math.log(x * c - 1.0)
        except ValueError:
            y = x * x * c
        s = s + y * x
    return s


def astuple_and_asdict(x):
    o = Fields(x * x, math.sin(x))
    d = dataclasses.asdict(o)
    return sum(dataclasses.astuple(o)) * x + d["w"] * d["b"]


def closure_over_value(x):
    k = 3.0 * x

    def inner(t):
        return math.sin(t * k)
    return inner(x) + inner(0.5)


def closure_over_array_in_loop(x):
    a = np.array([x, x * x, 1.0])

    def inner(t):
        return np.sum(np.sin(a * t))
    s = 0.0
    for i in range(2):
        s = s + inner(x + i)
    return s


def closure_of_closure(x):
    k = math.sin(x)

    def h(t):
        return t * k

    def g(t):
        return h(t) * k + t
    return g(x * x)


def closure_writing_a_list(x):
    acc = [x]

    def push(t):
        acc.append(t * acc[0])
        return t
    push(x * x)
    push(math.sin(x))
    return acc[1] * acc[2]


def map_closure(x):
    return sum(map(lambda t: math.sin(t * x), [x, 2.0 * x]))


def primitives_in_variables(x):
    s = 0.0
    for h in [math.sin, math.exp, np.tanh]:
        s = s + h(x * s + x)
    return s + sum(map(math.sin, [x, x * x]))


def _writes_then_raises(acc, t):
    acc.append(t * t)
    if t > 1.0:
        raise ValueError("big")
    return t


def try_around_a_partial_write(x):
    acc = [x]
    try:
        _writes_then_raises(acc, x * 3)
    except ValueError:
        pass
    return sum(acc) * x


LOG = []
BUF = np.zeros(3)


def _note(log, x):
    if x > 100.0:
        return
    log.append(math.sin(x) * x)


def _bump(buf, x):
    if x > 100.0:
        return
    buf[0] = buf[0] * x + x * x


def module_log_cleared(x):
    LOG.clear()
    _note(LOG, x)
    _note(LOG, x * x)
    return sum(LOG) * x


def module_buffer_filled(x):
    BUF.fill(0.25)
    _bump(BUF, x * 2.0)
    return float(np.sum(BUF * BUF)) * x


def dict_update_by_keywords(x):
    d = {"b": x * 2.0}
    d.setdefault("a", x * x)
    d.update(c=math.sin(x), b=d["b"] * x)
    return d["a"] * d["b"] + d["c"] * x


def _kw(x, s=1.0, *, squash=True):
    y = s * x
    return math.tanh(y) if squash else y


def _kw_required(x, *, w, b=0.5):
    return math.sin(x * w) + b * x


def keyword_only_parameters(x):
    return (_kw(x, s=math.sin(x), squash=False) * _kw(x * x, 0.5) + _kw(x, squash=False) * _kw(x * x)
            + _kw_required(x, w=x * x) + _kw_required(x * 0.3, b=math.cos(x), w=2.0))


C3 = np.array([0.2, -0.4, 0.6])


def try_reading_an_array(x, a):
    v2 = np.dot(a, a) * 0.5 + ((x + C3) * (np.ones(3) + x))
    try:
        t3 = v2 * 2.0  # noqa: F841  (dead: its adjoint is zero)
    except IndexError:
        t3 = 1.0  # noqa: F841
    return v2 + 0.1 * np.sum(a)


def try_reading_an_array_loss(a):
    return np.sum(np.array([0.187, 1.323, -0.158]) * try_reading_an_array(-0.746, a))
