"""Regression (random programs, seed 10700): the pullback's products were reordered so that a temporary moved below
a statement reading it (`math.tanh(a @ a - x)`: `x_bar = -(g * t3)` before `t3 = 1.0 - t4`), when the adjoint the
self-product `a @ a` doubles is read elsewhere too (reverse/reassociate.py)."""
import math

import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives


def self_matmul(x, a):
    return math.tanh(a @ a - x)


def self_dot(x, a):
    return math.tanh(np.dot(a, a) - x)


def self_product_used_twice(x, a):
    g = np.sin(np.sum(a * a) * x)
    return g + x * g


def self_inner_and_square(x, a):
    return math.exp(-np.inner(a, a) * x) + np.sum(a) * x


A = np.array([0.094, 0.358, 0.329])


@pytest.mark.parametrize("fn", [self_matmul, self_dot, self_product_used_twice, self_inner_and_square])
def test_self_products(fn):
    check_derivatives(fn, -0.75, A)
