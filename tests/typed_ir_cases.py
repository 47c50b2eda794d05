"""Functions for tests/test_typed_ir.py: tuple shuffles, typed builtins and constants, views of arrays in
functions that write nothing (and ones that do), whole and fractional powers."""
import math

import numpy as np

# (helpers of another module: reverse/inline.py keeps them calls, so the mechanisms of calls are what these test)
from tests.typed_ir_callees import counted_stats, mean_var, ratio_stats  # noqa: F401


def swap_chain(x, y):
    a, b = x, y
    a, b = b, a + b
    a, b = b, a * b
    (c, d), e = (a, b), x - y
    return c + d * e


def swap_in_loop(x, n):
    a, b = x, 1.0
    for _ in range(n):
        a, b = b, a + 0.5 * b
    return a * b


def constants_by_name(theta):
    g, l, m = 9.81, 1.3, 0.7
    return m * g * l * (1.0 - math.cos(theta)) + math.pi * theta ** 2


def builtins_of_numbers(x, y):
    big = max(x, y, 0.5)
    small = min(x * y, 2.0)
    return big * small + sum((x, y, 1.0)) + abs(x - y) ** 1.5


def augmented_numbers(x, y):
    acc = x
    acc += y
    acc *= x
    acc -= 0.5 * y
    acc /= 1.0 + y * y
    acc **= 2
    return acc


def powers(x):
    return x ** 1.5 + x ** 3 + x ** -2 + x ** 2.5


def powers_array(x):
    return np.sum(x ** 1.5 + x ** 3 + x ** 0.5)


def rows_unpacked(A):
    r0, r1, r2 = A
    return np.sum(r0 * r1) + np.sum(np.tanh(r2))


def views_read_only(x):
    M = x.reshape(3, 4)
    G = M @ M.T
    T = np.transpose(M).reshape(-1)
    return np.trace(G) + T[::2].sum() + np.sum(M.ravel()[1:] ** 2)


def views_and_writes(x):
    M = x.reshape(3, 4)
    T = M.T
    s = np.sum(T * T)
    M[0, 1] = 2.0 * M[1, 2]
    return s + np.sum(T ** 3) + np.sum(M)


def view_written_in_place(x):
    M = x.reshape(2, 3)
    row = M[0]
    before = np.sum(row ** 2)
    row *= 3.0
    return before + np.sum(M * M)


def norms_and_inverses(A, v):
    n = np.linalg.norm(v)
    B = np.linalg.inv(A) @ A.T
    w = np.linalg.solve(A, v)
    return np.linalg.det(A) + n * np.sum(B) + np.sum(np.outer(w, v)) + np.clip(v, -0.5, 0.5).sum()


def where_and_cumsum(x):
    y = np.where(x > 0, x * x, -x)
    c = np.cumsum(y)
    return np.sum(np.expand_dims(c, 0) * 2.0) + np.sum(np.sort(x) * np.flip(x))


def fancy_reads(x, idx):
    return np.sum(x[idx] ** 2) + 3.0 * np.sum(x[x > 0.0]) + np.sum(x[np.array([True, False, True, False, True, True])])


def fancy_rows(A, idx, w):
    return np.sum(np.tanh(A[idx]) * w) + np.sum(A[idx[::-1]] ** 2)


def uses_first_of_pair(x):
    a, b = ratio_stats(x)
    return a


def uses_second_of_triple(x):
    res = counted_stats(x)
    return res[1] + 0.0 * res[2]


def pair_index_reads(X, rows, cols):
    """x[rows, cols] with repeated pairs: np.add.at with the index tuple."""
    picked = X[rows, cols]
    return np.sum(picked * picked) + np.sum(np.tanh(X))


def joins(a, b):
    C = np.concatenate([a, b * b], axis=0)
    S = np.stack([a, b, a * b], axis=1)
    return np.sum(C * C) + np.sum(np.sin(S)) + np.sum(np.concatenate((a, b)) * 2.0)


def pair_reads_of_written(X, rows, cols):
    A = X * 2.0
    A[0] = np.sin(A[1])
    v = A[rows, cols]
    A[1, 2] = v[0] * 3.0
    return np.sum(v * v) + np.sum(A * A)

def pair_accumulate_then_read(X, rows, cols):
    A = np.zeros_like(X)
    for k in range(len(rows)):
        A[rows[k], cols[k]] += X[rows[k], cols[k]] ** 2
    w = A[rows, cols]
    return np.sum(w) + np.sum(A[rows][:, cols])

def pair_copy_written(X, rows, cols):
    B = X[rows, cols]
    B[0] = 5.0
    return np.sum(B * X[rows, cols])

def pair_write_of_copy(X, rows, cols):
    t = X[rows, cols]
    X2 = X.copy()
    X2[rows, cols] = t * t
    return np.sum(X2 ** 2) + np.sum(X2[rows, cols])


def standardised_first(x):
    mean, var = mean_var(x)  # (a tuple of numbers from a user function: its items' adjoints are variables)
    return (x[0] - mean) / math.sqrt(var)


def tuple_items_by_index(x):
    res = mean_var(x)
    return res[1] * 2.0 + res[0] * res[1]


def tuple_passed_on(x):
    res = mean_var(x)
    return sum(res)  # (the tuple used whole: storage as before)
