"""Helpers of tests/typed_ir_cases.py kept in a module of their own: a call of a function of another module stays a
call (reverse/inline.py inlines only the caller's own module's), so the cases test how calls are typed."""
import numpy as np


def ratio_stats(x):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] ** 2
    zero = len(x) - len(x)
    return s, s / zero


def counted_stats(x):
    s = 0.0
    for v in x:
        s += v * v  # (in-place on a number: typed like `s = s + v * v`)
    n = len(x) - len(x)
    return s / n, s, n


def mean_var(x):
    m = np.mean(x)
    return m, np.mean((x - m) ** 2)
