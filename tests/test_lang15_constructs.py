"""Constructs added by the lang helper's fourth pass on issue 12, each checked by check_derivatives in both
modes, and the variants that cannot be done right refused by name:

* `yield from it` inside a generator (a list, a generator expression, another generator); the value of
  `yield from` refused;
* `with contextlib.suppress(...)` (lowered as try/except: the derivative follows the path that ran) and
  `with contextlib.nullcontext(v) as t`; a suppress manager made elsewhere and entered by name refused;
* managers made by `@contextlib.contextmanager`: run as Python's own lazy generator, refused where they change
  a differentiable value they can reach or hand one to `as`;
* a class defined inside the differentiated function (its methods reading the function's variables: since the
  sixth pass, tests/test_local_class_captures.py).
"""
import contextlib
import dataclasses
import math
from contextlib import nullcontext, suppress

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

A = np.array([0.3, 0.5, -0.7, 1.1])


# ------------------------------------------------------------------ yield from
def _inner(w):
    for v in w[2:]:
        yield np.sin(v)


def _pieces(w):
    yield w[0]
    yield from (w[i] * 2.0 for i in range(1, 3))
    yield from [w[0] * w[1], 1.0]
    yield from _inner(w)


def loop_over_delegating(w):
    s = 0.0
    for p in _pieces(w):
        s = s + p * p
    return s


def sum_of_delegating(w):
    return sum(_pieces(w)) * w[3]


def _raises_after(w):
    yield w[0] * 2.0
    raise KeyError("done")


def _delegates_to_raising(w):
    yield w[1]
    yield from _raises_after(w)
    yield w[2] * 100.0  # (never reached: the delegate's exception goes on from here)


def catches_delegated_exception(w):
    s = 0.0
    try:
        for p in _delegates_to_raising(w):
            s = s + p * p
    except KeyError:
        s = s + w[3]
    return s


def _uses_value(w):
    got = yield from _inner(w)
    yield got


@pytest.mark.parametrize("f", [loop_over_delegating, sum_of_delegating, catches_delegated_exception])
def test_yield_from(f):
    check_derivatives(f, A)


def test_value_of_yield_from_is_refused():
    with pytest.raises(mc.UnsupportedSyntaxError, match="yield from"):
        mc.grad(lambda w: sum(_uses_value(w)))(A)


# ------------------------------------------------------------------ contextlib.suppress, nullcontext
def suppressing(x, i):
    s = x[0] * 2.0
    with suppress(IndexError, KeyError):
        s = s + np.sin(x[1])
        s = s * x[i]  # (raises for i past the end: the rest of the body is skipped)
        s = s + 1.0
    with contextlib.nullcontext(x * 3.0) as y:
        s = s + y[2] ** 2
    with nullcontext():
        s = s * 1.5
    return s


def suppress_raise_and_reraise(x):
    with suppress(ValueError):
        if x[0] > 0:
            raise ValueError
        x = x * 2.0
    try:
        with suppress(KeyError):
            y = x[9]
    except IndexError:  # (not suppressed: it goes on to the handler)
        y = x[1] * 3.0
    return y + x[2]


@pytest.mark.parametrize("i", [1, 3, 9])
def test_suppress_follows_the_path_that_ran(i):
    check_derivatives(suppressing, A, i)


def test_suppress_raise_and_reraise():
    check_derivatives(suppress_raise_and_reraise, A)
    check_derivatives(suppress_raise_and_reraise, -A)


def _entered_by_name(x):
    m = suppress(IndexError)
    with m:
        x = x * x[7]
    return x[0]


def test_suppress_entered_by_name_is_refused():
    with pytest.raises(mc.UnsupportedDerivativeError, match="swallows exceptions"):
        mc.grad(_entered_by_name)(A)


# ------------------------------------------------------------------ @contextlib.contextmanager
class Model:
    def __init__(self):
        self.w = np.array([1.0, 2.0])
        self.training = True


@contextlib.contextmanager
def evaluating(m):
    m.training = False
    yield
    m.training = True


@contextlib.contextmanager
def scaled(m):
    m.w = m.w * 2.0
    yield m
    m.w = m.w / 2.0


def flag_manager(x, m):
    with evaluating(m):
        y = np.sum(m.w * x) if not m.training else 0.0
    return y + np.sum(m.w * x) * (1.0 if m.training else 5.0)


def test_generator_manager_runs_lazily():
    check_derivatives(flag_manager, A[:2], Model())


def _changes_weights(x, m):
    with scaled(m):
        y = np.sum(m.w * x)
    return y


def _hands_weights(x, m):
    with scaled(m) as mm:
        y = np.sum(mm.w * x)
    return y


@pytest.mark.parametrize("f, match", [(_changes_weights, "changed a differentiable value"),
                                      (_hands_weights, "changed a differentiable value|gave `as`")])
def test_generator_manager_changing_values_is_refused(f, match):
    for mode in (mc.grad, lambda f: lambda x, m: mc.jvp(f, (x, m), (x, None))):
        with pytest.raises(mc.UnsupportedDerivativeError, match=match):
            mode(f)(A[:2], Model())


# ------------------------------------------------------------------ classes defined inside the function
def local_classes(w, x):
    class Layer:
        scale = 2.0

        def __init__(self, w):
            self.w = w

        def __call__(self, x):
            return np.tanh(x @ self.w) * self.scale

    class Twice(Layer):
        def __call__(self, x):
            return super().__call__(x) * 2.0

    @dataclasses.dataclass
    class Pair:
        a: float
        b: float

        def norm(self):
            return math.sqrt(self.a ** 2 + self.b ** 2)

    out = Twice(w)(x)
    return np.sum(out) + np.sum(Layer(w * w)(x)) + Pair(float(out[0]), w[0, 1]).norm()


def test_local_classes():
    check_derivatives(local_classes, np.array([[0.3, 0.5], [-0.2, 0.7]]), np.array([0.4, -1.1]))


def _captures(w, x):
    k = 3.0 * w

    class L:
        def __call__(self, x):
            return x * k

    return L()(x)


def test_local_class_reading_the_functions_variables():
    # (refused before issue 12's sixth pass: the methods now read them through the function's cells;
    # tests/test_local_class_captures.py)
    check_derivatives(_captures, 1.0, 2.0)
