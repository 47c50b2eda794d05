"""Python's own iterators (zip, map, enumerate, reversed objects) read by a loop left by `break`, then by a second loop
or a consumer (`list(it)`, `sum(...)`): reverse mode sent the second reader's adjoints to the iterator's first items
(a wrong gradient, also on the session's starting trunk 3118e67: `zip` then two loops gave [8.46, -1.585, 0, 0] for
[1.2, -2.8, 7.26, 1.215]).  The loops over one iterator now share a count of the items pulled from it
(lazy_iteration._PulledCount), so each item's adjoint goes to its position."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives


def zip_two_loops(x):
    it = zip(x, x * 2.0)
    s = 0.0
    for a, b in it:
        s = s + a * b
        if a < 0:
            break
    for a, b in it:
        s = s + a * a * b
    return s


def zip_loop_then_list(x):
    it = zip(x, x * 2.0)
    s = 0.0
    for a, b in it:
        s = s + a * b
        if a < 0:
            break
    rest = list(it)
    return s + sum(a * a * b for a, b in rest)


def enumerate_zip_two_loops(x):
    it = zip(x, x * 2.0)
    s = 0.0
    for i, (a, b) in enumerate(it):
        s = s + a * b * (i + 1)
        if i == 1:
            break
    for a, b in it:
        s = s + a * a * b
    return s


def map_two_loops(x):
    it = map(lambda v: v * v, x)
    s = 0.0
    for v in it:
        s = s + v
        if v > 0.3:
            break
    for v in it:
        s = s + 3.0 * v
    return s


def map_loop_then_sum(x):
    it = map(np.sin, x)
    s = 0.0
    for v in it:
        s = s + v * v
        if v < 0:
            break
    return s + 2.0 * sum(it)


def reversed_two_loops(x):
    it = reversed(x)
    s = 0.0
    for v in it:
        s = s + v * v
        break
    for v in it:
        s = s + 3.0 * v * v * v
    return s


def enumerate_two_loops(x):
    it = enumerate(x)
    s = 0.0
    for i, v in it:
        s = s + v * v * i
        if i == 1:
            break
    for i, v in it:
        s = s + 3.0 * v * i
    return s


def zip_three_loops(x):
    it = zip(x, x[::-1])
    s = 0.0
    for a, b in it:
        s = s + a * b
        break
    for a, b in it:
        s = s + a * a
        break
    for a, b in it:
        s = s + b * b * b
    return s


def zip_of_lists_loop_then_tuple(x):
    it = zip([x[0], x[1], x[2]], [x[3], x[2], x[1]])
    s = 0.0
    for a, b in it:
        s = s + a * b
        break
    rest = tuple(it)
    return s + rest[0][0] * rest[1][1]


CASES = [zip_two_loops, zip_loop_then_list, enumerate_zip_two_loops, map_two_loops, map_loop_then_sum,
         reversed_two_loops, enumerate_two_loops, zip_three_loops, zip_of_lists_loop_then_tuple]
POINTS = [np.array([0.3, -0.7, 1.1, 0.45]), np.array([0.5, 0.6, -0.2, 0.9, 1.3]), np.array([-0.4, 0.2, 0.8, -1.1])]


@pytest.mark.parametrize("x", POINTS, ids=["a", "b", "c"])
@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_both_modes(f, x):
    check_derivatives(f, x.copy())


def _fd(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


@pytest.mark.parametrize("f", [zip_two_loops, map_two_loops, reversed_two_loops], ids=lambda f: f.__name__)
def test_gradient_against_finite_differences(f):
    x = POINTS[0]
    np.testing.assert_allclose(mc.grad(f)(x.copy()), _fd(f, x), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", [zip_two_loops, enumerate_two_loops], ids=lambda f: f.__name__)
def test_hessian(f):
    x = POINTS[1]
    g = mc.grad(f)
    fd = np.stack([(g(x + 1e-6 * e) - g(x - 1e-6 * e)) / 2e-6 for e in np.eye(len(x))], -1)
    np.testing.assert_allclose(mc.hessian(f)(x.copy()), fd, rtol=1e-5, atol=1e-6)
