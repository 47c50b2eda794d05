"""Functions of tests/test_nested_closures_forward.py: closures over differentiated values, made and called inside the
function (in a module of their own, so their source is read from a file)."""
import math

import numpy as np


def closure_scalar(x):
    k = 3.0 * x
    def inner(t):
        return t * k + math.sin(t)
    return inner(x) * x


def closure_writes_cell(x):
    acc = 0.0
    def add(v):
        nonlocal acc
        acc = acc + v * x
    add(x)
    add(math.cos(x) * x)
    return acc * acc


def closure_array(a):
    k = a * 2.0
    def inner(t):
        return np.sum(t * k)
    return inner(np.sin(a))


def nested_def_array_argument(a):
    k = a * 2.0
    def inner(t, k):
        return np.sum(t * k * t[0])
    return inner(np.sin(a), k)


def closure_over_list(a):
    store = [a * 1.0]
    def step(t):
        store[0] = store[0] * t
        return np.sum(store[0] ** 2)
    return step(a[0]) + step(a[1])


def closure_of_closure(a):
    s = np.sum(a ** 2)
    def outer(t):
        def inner(u):
            return u * s + t
        return inner(t * a[0])
    return outer(a[1]) * a[2]


def closure_over_loop_counter(x):
    k = 0
    while k < 2:
        k += 1
    def g(t):
        return t * k + math.sin(t)
    sq = lambda t: t * t + g(x)
    return sq(g(x * x)) + sq(0.5)


def lambdas_in_loop(x):
    fs = []
    for i in range(3):
        c = x * (i + 1)
        fs.append(lambda t, c=c: t * c)
    return fs[0](x) + fs[2](math.sin(x))


def two_defaults_one_given(x):
    def h(t, a=x * x, b=math.cos(x)):
        return t * a + b
    return h(x, 2.0) + h(0.5)


def array_lambdas(a):
    fs = []
    for i in range(2):
        c = a[i] * 2.0
        fs.append(lambda t, c=c: np.sum(t * c))
    return fs[0](a) + fs[1](a * a)


def default_array_written(a):
    w = a * 2.0
    def g(t, w=w):
        w *= t[0]
        return np.sum(t * w)
    return g(np.sin(a)) + g(a)


SCALAR = [closure_scalar, closure_writes_cell, closure_over_loop_counter]
ARRAY = [closure_array, nested_def_array_argument, closure_over_list, closure_of_closure]
DEFAULTS = [lambdas_in_loop, two_defaults_one_given, array_lambdas]
