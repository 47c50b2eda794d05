"""Callables with side effects handed to consumers that call them on their own schedule are refused; pure ones are
differentiated (frontend/callback_effects.py, frontend/lazy_values.py).

map/filter's rules call the function on every item when they are called (Python: when a loop, `any` or `zip` takes
each item), a key function is differentiated as a key (its writes dropped), an ExitStack callback runs plainly at
the block's end: a function that writes what it captures gave wrong values and derivatives (hunt's family `flow`).
A map whose function reads state changed between the map's making and its use is refused like a generator
expression reading it."""
import functools
import itertools

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

A = np.array([0.3, -0.45, 0.8])


def map_of_a_writer_fully_consumed(x, a):
    log = []

    def h(e):
        log.append(e * x)
        return e * e
    return sum(map(h, a)) + sum(log)


def lambda_writer_as_key(x, a):
    seen = []
    return sorted(a * x, key=lambda e: seen.append(e) or e)[0]


def reduce_with_a_writer(x, a):
    acc = [0.0]

    def step(u, v):
        acc[0] += v
        return u + v * x
    return functools.reduce(step, a, 0.0) + acc[0]


def nonlocal_counter_in_filter(x, a):
    total = 0.0

    def keep(e):
        nonlocal total
        total += e * x
        return e > 0
    return sum(filter(keep, a * x)) + total


def map_of_bound_append(x, a):
    log = []
    list(map(log.append, a * x))
    return sum(log)


REFUSED = [map_of_a_writer_fully_consumed, lambda_writer_as_key, reduce_with_a_writer, nonlocal_counter_in_filter,
           map_of_bound_append]


def pure_map(x, a):
    def h(e):
        return e * x + np.sin(e)
    return sum(map(h, a))


def pure_key_and_filter(x, a):
    def big(e):
        return e > 0.1
    s = sorted(a * x, key=lambda e: -e)
    return s[0] * 2.0 + sum(filter(big, a * x)) + max(a * x, key=abs)


def local_list_built_in_a_loop(x, a):
    log = []
    for e in a:
        log.append(e * x)
    return sum(map(lambda v: v * v, log))


def takewhile_pure(x, a):
    return sum(itertools.takewhile(lambda e: e < 10.0, a * x))


DIFFERENTIATED = [pure_map, pure_key_and_filter, local_list_built_in_a_loop, takewhile_pure]


@pytest.mark.parametrize("f", REFUSED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_callback_that_writes_what_it_captures_is_refused(f, mode):
    with pytest.raises(mc.MooncakeError, match="writes what it captures"):
        if mode == "reverse":
            mc.grad(f)(0.7, A.copy())
        else:
            mc.jvp(f, (0.7, A.copy()), (1.0, np.zeros(3)))


@pytest.mark.parametrize("f", DIFFERENTIATED, ids=lambda f: f.__name__)
def test_pure_callbacks_are_differentiated(f):
    check_derivatives(f, 0.7, A.copy())
