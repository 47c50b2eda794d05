"""Iteration as Python does it: each iteration reads its element when it runs, so a loop
whose body mutates the iterated container sees the mutation (8-rp1); zip stops at the
shortest input (16-cr5).  Both modes, and finite differences."""
import numpy as np
import pytest

import mooncake_ast as mc
from test_regress_control_util import check_both


def it_enumerate_mutate(a):
    for i, e in enumerate(a):
        w = a[1:]
        w[1] *= 0.5 + 0.4 * np.tanh(w[0] / (2 + np.tanh(e)))
    return np.sum(a)


def it_plain_mutate(a):
    t = 0.0
    for e in a:
        a[-1] = a[-1] * 1.5 + e
        t = t + e * e
    return t + np.sum(a)


def it_enumerate_start(a):
    t = 0.0
    for i, e in enumerate(a, start=2):
        a[min(i, len(a) - 1)] += e * 0.5
        t = t + i * e
    return t + np.sum(a * a)


def it_zip_mutate(a, b):
    t = 0.0
    for u, v in zip(a, b):
        b[-1] = b[-1] + u
        t = t + u * v
    return t


def it_zip_shorter(a, x0, x1):
    xs = [x0, x1]
    t = 0.0
    for u, v in zip(a, xs):
        t = t + u * v
    return t


def it_zip_three(a, b, c):
    t = 0.0
    for u, v, w in zip(a, b, c):
        t = t + u * v * w
    return t


def it_zip_target_tuple(a, b):
    t = 0.0
    for pair in zip(a, b):
        t = t + pair[0] * pair[1]
    return t


def it_enumerate_rows(A):
    t = 0.0
    for i, row in enumerate(A):
        row *= 1.0 + 0.1 * i  # writes through the view
        t += row[0] * row[1]
    return t + np.sum(A)


def it_enumerate_list_grows(x):
    xs = [x, 2.0 * x]
    t = 0.0
    for i, v in enumerate(xs):
        if i == 0:
            xs[1] = xs[1] * v  # the next iteration sees it
        t = t + v
    return t


def it_list_appended_while_iterated(x):
    xs = [x, 2.0 * x]
    t = 0.0
    for v in xs:  # Python's list iterator sees the items appended below
        if len(xs) < 5:
            xs.append(v * 1.5)
        t = t + v
    return t


def it_enumerate_list_appended(x):
    xs = [x]
    t = 0.0
    for i, v in enumerate(xs):
        if i < 3:
            xs.append(v * 1.5 + i)
        t = t + i * v
    return t


def it_list_shrinks(x):
    xs = [x, 2.0 * x, 3.0 * x, 4.0 * x]
    t = 0.0
    for v in xs:
        xs.pop()
        t = t + v * v
    return t


def it_comprehension_enumerate(a):
    return sum([i * e * e for i, e in enumerate(a)])


def it_nested_zip_enumerate(a, b):
    t = 0.0
    for i, (u, v) in enumerate(zip(a, b)):
        t = t + i * u * v
    return t


CASES = [
    (it_enumerate_mutate, (np.array([0.3, 0.5, 0.7, 0.9]),)), (it_plain_mutate, (np.array([0.3, 0.5, 0.7]),)),
    (it_enumerate_start, (np.array([0.3, 0.5, 0.7]),)), (it_zip_mutate, (np.array([0.3, 0.5]), np.array([1.0, 2.0]))),
    (it_zip_shorter, (np.array([0.3, 0.5, 0.7]), 2.0, 3.0)),
    (it_zip_three, (np.array([0.3, 0.5]), np.array([1.0, 2.0, 3.0]), np.array([1.5, 0.5]))),
    (it_zip_target_tuple, (np.array([0.3, 0.5]), np.array([1.0, 2.0]))),
    (it_enumerate_rows, (np.arange(6.0).reshape(3, 2) / 5.0,)), (it_enumerate_list_grows, (1.5,)),
    (it_comprehension_enumerate, (np.array([0.3, 0.5, 0.7]),)), (it_list_appended_while_iterated, (1.0,)),
    (it_enumerate_list_appended, (1.0,)), (it_list_shrinks, (1.0,)),
    (it_nested_zip_enumerate, (np.array([0.3, 0.5]), np.array([1.0, 2.0]))),
]


@pytest.mark.parametrize("f,args", CASES, ids=lambda x: getattr(x, "__name__", ""))
def test_iteration(f, args):
    check_both(f, *args)


def test_appended_list_is_iterated_to_its_new_end():
    assert mc.value_and_grad(it_list_appended_while_iterated)(1.0) == (9.75, 9.75)
    assert mc.jvp(it_list_appended_while_iterated, (1.0,), (1.0,)) == (9.75, 9.75)


def test_mutated_iteration_primal_is_the_plain_call():
    a = np.array([0.3, 0.5, 0.7, 0.9])
    expected = it_enumerate_mutate(a.copy())
    assert mc.jvp(it_enumerate_mutate, (a.copy(),), (np.ones(4),))[0] == expected
    assert mc.value_and_grad(it_enumerate_mutate)(a.copy())[0] == expected
