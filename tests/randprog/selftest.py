"""Fixtures that show the checker is not vacuous: a function with deliberately wrong
registered rules (so both modes agree with each other and disagree with finite
differences), one whose derivative crashes, one that is refused, one that is right.

Only tests/test_random_programs.py registers the wrong rules (register_wrong_rules), on a
function nobody else calls.
"""
import math

import numpy as np

import mooncake_ast as mc


def randprog_selftest_square(x):
    return x * x


def randprog_selftest_fails(x):
    return x * 2.0


_registered = []


def register_wrong_rules():
    """Rules for randprog_selftest_square that are off by a factor 1.5 in both modes (3x, not 2x);
    rules for randprog_selftest_fails that raise an ordinary exception."""
    if _registered:
        return

    @mc.frule(randprog_selftest_square)
    def _square_jvp(primals, tangents):
        (x,), (dx,) = primals, tangents
        return x * x, 3.0 * x * dx

    @mc.rrule(randprog_selftest_square)
    def _square_vjp(x):
        return x * x, lambda y_bar: (3.0 * x * y_bar,)

    @mc.frule(randprog_selftest_fails)
    def _fails_jvp(primals, tangents):
        raise KeyError("deliberate failure in a rule")

    @mc.rrule(randprog_selftest_fails)
    def _fails_vjp(x):
        raise KeyError("deliberate failure in a rule")

    _registered.append(True)


def wrong(x, a):
    return math.sin(randprog_selftest_square(x)) + np.sum(a * x)


def crashes(x, a):
    return randprog_selftest_fails(x) + np.sum(a)


def refused(x, a):
    try:
        t = x * 2.0
    except* ValueError:  # (refused: try/except*; plain try/except is differentiated now)
        t = 0.0
    return t + np.sum(a)


def right(x, a):
    b = a.copy()
    b[1:] *= np.tanh(x)
    return math.sin(x) * np.sum(b * b), np.tanh(b)
