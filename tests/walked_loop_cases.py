"""Functions whose `for i in range(...)` loops the pullback walks backwards (reverse/transform._walked_range)
and their near misses: loops left by break or return, items with adjoints, ranges made in other loops."""
import math

import numpy as np


def recurrence(x):
    y = np.zeros_like(x)
    y[0] = np.tanh(x[0])
    for i in range(1, x.shape[0]):
        y[i] = 0.5 * y[i - 1] + np.tanh(x[i])
    return np.sum(y * y)


def triangle(x, n):
    s = 0.0
    for i in range(n):
        for j in range(i):  # an inner range made anew on every trip of the outer loop
            s = s + math.sin(x * (i - j)) / (1 + j)
    return s


def strided_backwards(x):
    s = 0.0
    for i in range(x.shape[0] - 1, 0, -2):
        s = s * 0.9 + x[i] * x[i - 1]
    return s


def with_continue_and_else(x):
    s = 0.0
    for i in range(6):
        if i % 3 == 1:
            continue
        s = s + x ** i / (1 + i)
    else:
        s = s * 2.0
    return s


def left_by_break(x):
    s = x
    for i in range(10):
        s = s * 1.1 + i * 0.01
        if s > 3.0:
            break
    return s


def returns_inside(x):
    for i in range(5):
        x = x * 1.3 - 0.1 * i
        if x > 2.0:
            return x * i
    return x


def empty_or_not(x, n):
    s = x
    for i in range(n):
        s = s * x + i
    return s


def in_branch_and_while(x):
    s = 0.0
    k = 0
    while k < 3:
        if x > 0.0:
            for i in range(k + 1):
                s = s + x * (i + k)
        else:
            s = s - x
        k = k + 1
    return s


def bound_changed_in_body(x, n):
    s = 0.0
    for i in range(n):
        n = n - 1  # the range was made once: the loop still runs the first n times
        s = s + x * i * n
    return s


def float_item(x):
    s = 0.0
    for t in [0.5, 1.5, 2.5]:  # a list, not a range: recorded as before
        s = s + math.exp(-t * x)
    return s


def helper_with_loop(v, k):
    out = 0.0
    for i in range(k):
        out = out + v[i] * v[i]
    return out


def calls_helper(x):
    return helper_with_loop(x, 3) + helper_with_loop(2.0 * x, 2)


def row_update(A):
    B = A.copy()
    for i in range(1, B.shape[0]):
        B[i, :] = B[i, :] + 0.5 * B[i - 1, :] * B[i, :]
    return np.sum(B ** 2)


def items_of_array(r, delta=0.5):
    total = 0.0
    for ri in r:  # (the loop reads r[k]: the pullback adds into r_bar[k])
        a = abs(ri)
        if a <= delta:
            total = total + 0.5 * ri * ri
        else:
            total = total + delta * (a - 0.5 * delta)
    return total


def rows_of_matrix(A, w):
    s = 0.0
    for row in A:
        s = s + np.tanh(row @ w) * row[0]
    return s


def items_then_written(x):
    y = x.copy()
    s = 0.0
    for v in y:
        s = s + v * v
    y[0] = y[0] * s  # (written after the loop: the restore comes first in the pullback)
    return float(np.sum(y * x))


def items_with_break(x):
    s = 0.0
    for v in x:
        if s > 1.0:
            break
        s = s + v * v
    return s


def enumerate_items(x):
    s = 0.0
    for k, v in enumerate(x):
        s = s + v * (k + 1) * x[k]
    return s


def horner_list(coeffs, x):
    acc = 0.0
    for c in reversed(coeffs):
        acc = acc * x + c
    return acc


def horner_array(coeffs, x):
    acc = 0.0
    for c in reversed(coeffs):
        acc = acc * x + c * c
    return acc + float(np.sum(coeffs))


def reversed_rows(A, w):
    s = 0.0
    for row in reversed(A):
        s = s * 0.5 + np.tanh(row @ w)
    return s


def reversed_with_break(xs, x):
    acc = 0.0
    for c in reversed(xs):
        if acc > 2.0:
            break
        acc = acc * x + c
    return acc


def reversed_of_written_list(xs, x):
    xs.append(x)  # (the list is changed: reversed() kept as it is)
    acc = 0.0
    for c in reversed(xs):
        acc = acc * 0.5 + c * x
    xs.pop()
    return acc
