"""NumPy outputs given positionally (`np.add(a, x, b)`, `np.dot(A, v, b)`, `np.sum(M, 1, None, b)`): the write into b
is differentiated as with `out=b` (ir/ufunc_out.py).  Both modes took the output for an operand before: a zero
derivative (found by hunt's random family `fancy`)."""
import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives

A = np.array([0.3, -0.45, 0.8])
M = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])


def add_out(x, a):
    b = np.zeros(3)
    np.add(a, x, b)
    return np.sum(b * b)


def multiply_in_place(x, a):
    b = a * 1.0
    np.multiply(b, x, b)
    return np.sum(b * b)


def sin_out(x, a):
    b = np.zeros(3)
    np.sin(a * x, b)
    return np.sum(b * b)


def matmul_out(x, a):
    b = np.zeros(2)
    np.matmul(M * x, a, b)
    return np.sum(b ** 3)


def dot_out(x, a):
    b = np.zeros(2)
    np.dot(np.outer([1.0, x], a), a, b)
    return np.sum(b * b)


def clip_out(x, a):
    b = np.zeros(3)
    np.clip(a * x, -5.0, 5.0, b)
    return np.sum(b * b)


def sum_out(x, a):
    b = np.zeros(2)
    np.sum(np.outer([1.0, x], a), 1, None, b)
    return np.sum(b * b)


def mean_out(x, a):
    b = np.zeros(3)
    np.mean(M * x + a, 0, None, b)
    return np.sum(b ** 2)


def max_out(x, a):
    b = np.zeros(2)
    np.max(M * x + a, 1, b)
    return np.sum(b ** 2)


def cumsum_out(x, a):
    b = np.zeros(3)
    np.cumsum(a * x, 0, None, b)
    return np.sum(b * a)


def take_out(x, a):
    b = np.zeros(2)
    np.take(a * x, [2, 0], None, b)
    return np.sum(b ** 2)


def out_none_positionally(x, a):
    return np.sum(np.sum(np.outer([1.0, x], a), 1, None, None) ** 2)


CASES = [add_out, multiply_in_place, sin_out, matmul_out, dot_out, clip_out, sum_out, mean_out, max_out, cumsum_out,
         take_out, out_none_positionally]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_output_given_positionally(f):
    check_derivatives(f, 0.7, A.copy())
