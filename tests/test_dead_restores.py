"""Restores of arrays the function made and keeps to itself are dropped where nothing reads them after
(reverse/dead_restores.py), and kept wherever the pullback still reads the array or a view of it.

Every function is checked in both modes; the generated pullback shows which restores stayed.
"""
import re

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

X = np.array([0.3, -1.2, 0.8, 0.5, -0.4])


def recurrence(x):  # y is read only at the return, before any restore: all restores dead
    y = np.zeros_like(x)
    y[0] = np.tanh(x[0])
    for i in range(1, x.shape[0]):
        y[i] = 0.5 * y[i - 1] + np.tanh(x[i])
    return np.sum(y * y)


def product_recurrence(x):  # the pullback reads y[i - 1] (a number, kept in the tape): restores dead
    y = np.ones_like(x)
    for i in range(1, x.shape[0]):
        y[i] = y[i - 1] * x[i] + 0.1
    return np.sum(y)


def view_read_after_the_write(x):  # the pullback reads the view v after undoing y[0] = ...: restore kept
    y = x * 2.0
    v = y[:2]
    s1 = np.sum(v * x[:2])
    y[0] = 5.0 * x[2]
    return s1 + np.sum(y * x)


def whole_array_read_in_a_loop(x):  # each trip reads all of y: every restore is read by the next undo
    y = np.zeros_like(x)
    total = 0.0
    for i in range(x.shape[0]):
        y[i] = np.sin(x[i])
        total = total + np.sum(y * y) * x[i]
    return total


def returned_buffer(x):  # the caller gets y: its restores stay
    y = np.zeros_like(x)
    for i in range(x.shape[0]):
        y[i] = x[i] ** 2
    return y


def written_twice(x):
    y = np.zeros(3)
    y[1] = x[0] * x[1]
    y[1] = y[1] * x[2] + y[0]
    y[2] = np.exp(x[3])
    return np.sum(y ** 2)


CASES = [recurrence, product_recurrence, view_read_after_the_write, whole_array_read_in_a_loop, written_twice]


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("fn", CASES + [returned_buffer], ids=lambda f: f.__name__)
def test_derivatives(fn, mode):
    check_derivatives(fn, X.copy(), modes=(mode,))


@pytest.mark.parametrize("fn, kept", [(recurrence, False), (product_recurrence, False),
                                      (view_read_after_the_write, True), (whole_array_read_in_a_loop, True)],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_restores_kept_exactly_where_read(fn, kept):
    mc.grad(fn)(X.copy())
    text = mc.source(fn, "reverse")
    pullback = text[re.search(r"\ndef \w+__pullback\(", text).start():]
    pullback = pullback[:pullback.find("\ndef ", 1)]
    assert ("y[" in pullback and "] = old" in pullback) is kept, pullback
