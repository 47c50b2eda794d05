"""Third derivatives through module-level state (issue 10): a function reading module-level arrays, numbers and dicts,
or a module-level object whose methods it calls.

Forward mode three times over code that keeps tangent storage of module-level state was refused ('a third order of
forward mode over code that keeps the derivative of module-level state'); each order keeps storage of its own level
(forward/state.module_tangent), and the third level is allowed now.  Reverse mode over a second forward order was
refused where the state held a dict: a module-level dict of numbers and arrays is kept as it is while the code runs
(its arrays read-only, its items checked after the call: nested_calls._freezable), a change refused by name."""
import math

import numpy as np
import pytest

import mooncake_ast as mc
from nested_lifted_kit import check_second, check_third

POINTS = [(0.37, np.array([0.3, -0.2, 0.5])), (-0.6, np.array([1.1, 0.4, -0.7]))]

W = np.array([0.5, -1.0, 2.0])
C = 1.7
TABLE = {"k": 0.3, "w": np.array([1.0, 0.5, -0.25]), "n": 2}
NESTED = {"inner": {"s": 1.5}, "pair": (0.2, np.array([0.1, 0.2, 0.3]))}


def reads_array_number_dict(x, a):
    return np.sum(np.sin(W * x) * a) * C + TABLE["k"] * x ** 3


def reads_dict_of_arrays(x, a):
    w = TABLE["w"]
    return np.sum(np.tanh(w * a * x)) * TABLE["n"] + np.dot(W, a) * math.sin(x * TABLE["k"])


def reads_nested_dict(x, a):
    s = NESTED["inner"]["s"]
    c, v = NESTED["pair"]
    return np.sum(np.exp(-s * (a - x) ** 2) * v) + c * x * x * np.sum(a)


class Scaler:
    def __init__(self):
        self.w = np.array([0.2, -0.4, 0.6])
        self.c = 1.25

    def apply(self, v):
        return np.sin(self.w * v) * self.c


SCALER = Scaler()


def calls_module_object(x, a):
    return np.sum(SCALER.apply(a * x) ** 2) + x * np.sum(SCALER.apply(a))


FUNCS = [reads_array_number_dict, reads_dict_of_arrays, reads_nested_dict, calls_module_object]


@pytest.mark.parametrize("f", FUNCS)
@pytest.mark.parametrize("x,a", POINTS)
def test_module_state_second_order(f, x, a):
    check_second(f, x, a)


@pytest.mark.parametrize("f", FUNCS)
@pytest.mark.parametrize("x,a", POINTS)
def test_module_state_third_order(f, x, a):
    """grad(grad(grad(f))), jvp(grad(grad(f))) and jvp(jvp(jvp(f))) against differences of grad(grad(f))."""
    check_third(f, x, a)
    assert W.flags.writeable and TABLE["w"].flags.writeable and SCALER.w.flags.writeable
    assert set(TABLE) == {"k", "w", "n"}


class Counts:
    def __init__(self):
        self.seen = {"calls": 0}

    def scaled(self, v):
        self.seen["calls"] = self.seen["calls"] + 1  # (a count, no derivative: allowed at first order)
        return v * 1.5


COUNTS = Counts()


def counts_calls(x, a):
    return np.sum(np.sin(COUNTS.scaled(a * x)) ** 2)


def test_a_module_dict_changed_is_refused_in_reverse_mode():
    """A module-level dict changed (a count, by a method) while reverse mode runs over a second forward order: refused
    by name, as a module-level object's fields are.  (Forward mode three times follows it: levels of storage.)"""
    x, a = POINTS[0]
    check_second(counts_calls, x, a)
    with pytest.raises(mc.NestingError, match="changes a module-level object"):
        mc.grad(mc.grad(mc.grad(counts_calls)))(x, a.copy())
    assert set(COUNTS.seen) == {"calls"}
