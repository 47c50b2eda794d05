"""`a.flat[i] = v` (and reads through `.flat`) at second order (issue 10): refused before ('the tangent of attribute
'flat' of a differentiated object'); the tangent's flat iterator is written alike (nested_helpers.attr_flat,
nested_plans._setitem_plan), and reverse mode follows a flat iterator's writes into its array's storage."""
import math

import numpy as np
import pytest

from nested_lifted_kit import check_second, check_third

POINTS = [(0.37, np.array([0.3, -0.2, 0.5])), (-0.8, np.array([1.1, 0.4, -0.7]))]


def flat_item(x, a):
    b = a * x
    b.flat[1] = x * x
    b.flat[2] = np.sin(b[0])
    return np.sum(b * b)


def flat_slice(x, a):
    b = np.outer(a, a) * x
    b.flat[2:5] = np.tanh(a * x)
    b.flat[-1] = b.flat[0] * x
    return np.sum(np.sin(b)) + b[1, 1] * x


def flat_fancy(x, a):
    b = np.zeros((2, 3)) + x
    b.flat[[0, 4]] = a[:2] * x
    b.flat[5] = a[2] * b.flat[4]
    return np.sum(b * b * a[1]) + b[1, 2]


def flat_in_loop(x, a):
    b = np.ones(3) * x
    for i in range(3):
        b.flat[i] = b.flat[i] * a[i] + math.cos(x * i)
    return np.dot(b, b)


@pytest.mark.parametrize("f", [flat_item, flat_slice, flat_fancy, flat_in_loop])
@pytest.mark.parametrize("x,a", POINTS)
def test_flat_writes_second_order(f, x, a):
    check_second(f, x, a)


@pytest.mark.parametrize("f", [flat_item, flat_in_loop])
def test_flat_writes_third_order(f):
    x, a = POINTS[0]
    check_third(f, x, a)
