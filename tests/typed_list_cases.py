"""Functions of lists of floats (reverse/typed_lists.py): read only (typed), and every way a list stops being
only read (written, appended to, aliased, returned, handed on, sliced) which must keep it generic."""
import math
import statistics

import numpy as np


def loop_sum_squares(xs):
    total = 0.0
    for v in xs:
        total = total + v * v
    return total


def index_loop(xs, a):
    s = 0.0
    for i in range(len(xs)):
        s = s + math.sin(a * xs[i]) * xs[len(xs) - 1 - i]
    return s


def enumerate_weights(xs):
    s = 0.0
    for i, v in enumerate(xs):
        s = s + (i + 1.0) * v ** 2
    return s


def zip_two_lists(xs, ys):
    return sum_pairs(xs, ys) + xs[0] * ys[-1]


def sum_pairs(xs, ys):
    s = 0.0
    for x, y in zip(xs, ys):
        s = s + x * y
    return s


def zip_lists_direct(xs, ys):
    s = 0.0
    for x, y in zip(xs, ys):
        s = s + x * math.exp(y)
    return s


def readers(xs):
    return sum(xs) * max(xs) + min(xs) + float(np.mean(xs)) + statistics.fmean(xs) + math.fsum(xs)


def sorted_reader(xs):
    ys = sorted(xs)
    return ys[0] * ys[-1] + sum(xs)


def as_array(xs, w):
    return np.sum(np.array(xs) * w) + xs[1]


def early_exit(xs, t):
    for v in xs:
        if v > t:
            return v * t
    return sum(xs)


def while_newton(xs):
    out = 0.0
    for a in xs:
        y = 1.0
        while abs(y * y - a) > 1e-12:
            y = 0.5 * (y + a / y)
        out = out + y
    return out


def list_and_array(xs, A):
    s = 0.0
    for k in range(len(xs)):
        s = s + xs[k] * np.sum(A[k])
    return s


# ------------------------------------------------------------ the list is more than read: generic storage


def written(xs):
    xs[0] = xs[0] * 2.0
    return xs[0] * xs[1]


def appended(xs):
    xs.append(xs[0] ** 2)
    return sum(xs)


def appended_array(xs):
    xs.append(np.array([1.0, 2.0]) * xs[0])
    return np.sum(xs[-1]) + xs[0]


def aliased_then_written(xs):
    ys = xs
    ys[1] = 3.0 * ys[0]
    return xs[1] + xs[0]


def returned(xs):
    return xs


def handed_on(xs):
    return _scale_first(xs) + xs[0]


def _scale_first(ys):
    ys[0] = ys[0] * 3.0
    return ys[0]


def sliced(xs):
    head = xs[1:]
    return sum(head) * xs[0]


def method_read(xs):
    return xs.index(xs[1]) * xs[1] + xs.count(xs[0]) * xs[0]


def reversed_iteration(xs):
    s = 0.0
    for k, v in enumerate(reversed(xs)):
        s = s + k * v
    return s


def _soft(v):
    return v / (1.0 + abs(v))


def items_to_helper(xs):
    s = 0.0
    for v in xs:
        s = s + _soft(v) * v
    return s


def items_to_helper_then_written(xs):
    s = 0.0
    for v in xs:
        s = s + _soft(v)
    xs[0] = np.array([s, 2.0 * s])
    return s + float(np.sum(xs[0]))
