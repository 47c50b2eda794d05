"""Functions whose pullbacks keep scalar adjoints as scalars (reverse/spread.py) and write products in
fewer passes (reverse/reassociate.py): full reductions of broadcast results, signs and constants to fold,
values read twice, reductions in loops and branches, arrays changed in place between two reads."""
import numpy as np


def sum_of_product(x, y):
    return np.sum(x * y)


def mean_of_power(x):
    return np.mean(x ** 3)


def sum_of_ufunc(x):
    return np.sum(np.sin(x) * 2.0)


def product_of_sums(x, y):
    return np.sum(x) * np.sum(y)


def sum_of_matmul(A, B):
    return np.sum(A @ B)


def sum_of_outer_broadcast(x, y):
    return np.sum(x[:, None] * y[None, :])


def sum_of_row_broadcast(A, b):
    return np.sum(A + b) + np.sum(A * b)


def signs_and_constants(x, y):
    return np.sum(-x / y) - np.mean(3.0 * x * -y) + np.sum(x / 3.0)


def read_twice(x):
    t = x * x
    return np.sum(t) + np.sum(t * t)


def keepdims_twice(A):
    return np.sum(np.sum(A, keepdims=True) * A)


def reduction_in_loop(x, n):
    total = 0.0
    for i in range(n):
        total = total + np.sum(x * (i + 1.0)) + np.mean(np.tanh(x) ** 2)
    return total


def reduction_in_branch(x):
    if np.sum(x) > 0.0:
        return np.sum(x * x) * 0.5
    return np.mean(-x * 2.0)


def changed_in_place(a, s):
    u = a.copy()
    t = np.sum(u * u)
    u *= s
    return t + np.sum(u * a)


def filled_between(a, x):
    u = a.copy()
    t = np.sum(u * u)
    u.fill(x * 2.0)
    return t + np.sum(u * a)


def _energy(v):
    return np.sum(v * v) / v.size


def through_helper(x, y):
    return _energy(x - y) + _energy(2.0 * x)


def slice_reads(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def where_and_maximum(x):
    return np.sum(np.where(x > 0.0, x, 0.1 * x)) + np.sum(np.maximum(x, 0.0) * x)


def divide_chain(x, y):
    p = 1.0 / (1.0 + np.exp(-x))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def scalar_param_times_array(x, s):
    return np.sum(s * x) + np.sum(x / s) + s * np.sum(x ** 2)


def written_rows(A, x):
    B = np.zeros_like(A)
    for i in range(A.shape[0]):
        B[i] = A[i] * x
    return np.sum(B * 2.0) + np.sum(B[1:] ** 2)


def _helper_numpy_scalar(p, q):
    for _ in range(0):
        pass
    else:
        return p[1] + np.sum(p)  # a NumPy float, whose adjoint below is zero


def result_unused(x, y, a):
    v = _helper_numpy_scalar(a, np.dot(a, a))
    return 0.5 * x + y


def closure_default_unused(x, y, a, A):
    fs = []
    for i in range(3):
        c = A.sum() * 0.5
        fs.append(lambda t, c=c: t)
    return y * x
