"""Objects made by alternative constructors (classmethods) and by factories the reverse transform does not put in
line, then read with their class's own `__getitem__` or combined with its own operators.

Reverse mode gave a silent zero gradient for `s = Series.from_array(x); s[i]` (the read was emitted as a plain
item read of an object of unknown type, and the generic pullback dropped what reached a user class), and crashed
on `f * f` with `__mul__` (found by hunt11).  Classmethods called through their class are now put in line like
static methods (reverse/inline.py), and a plain read of an object whose class has a Python `__getitem__` goes
through that method's pullback (reverse/part_reads._user_getitem_reverse)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import mooncake_ast as mc


class Series:
    def __init__(self, v):
        self.v = v

    @classmethod
    def from_array(cls, a):
        return cls(np.asarray(a))

    @classmethod
    def scaled(cls, a, k=2.0):
        return cls(a * k)

    def __getitem__(self, i):
        return self.v[i]

    def __mul__(self, other):
        return Series(self.v * other.v)

    def __add__(self, other):
        return Series(self.v + other.v)


class Shifted(Series):
    def __getitem__(self, i):
        return self.v[i] + 1.0


@dataclasses.dataclass
class Pair:
    a: np.ndarray
    b: float

    @classmethod
    def split(cls, x):
        return cls(x[:2], x[2])

    def __getitem__(self, k):
        return self.a[k] * self.b


FACTORIES = {"series": Series, "shifted": Shifted}


def item_loop(x):
    s = Series.from_array(x)
    return sum(s[i] ** 2 for i in range(3))


def item_product_keyword(x):
    s = Series.scaled(x, k=0.5)
    return s[1] * s[2] + s[0]


def inherited_classmethod(x):
    s = Shifted.from_array(x)
    return s[0] * s[3]


def operator_after_classmethod(x):
    f = Series.from_array(x)
    g = f * f + f
    return np.sum(g.v * np.arange(1.0, 5.0))


def dataclass_classmethod(x):
    p = Pair.split(x)
    return p[0] + p[1] ** 2


def factory_from_dict(x):
    s = FACTORIES["shifted"](x * 2.0)
    return s[1] * s[2] - s[0]


def item_then_field_write(x):
    s = Series.from_array(x.copy())
    a = s[1]
    s.v[1] = 0.0
    return a * s[2] + np.sum(s.v)


FAMILY = [item_loop, item_product_keyword, inherited_classmethod, operator_after_classmethod, dataclass_classmethod,
          factory_from_dict, item_then_field_write]
X = np.array([0.3, -0.7, 1.1, 0.45])


def _fd(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(x.size)])


@pytest.mark.parametrize("f", FAMILY, ids=lambda f: f.__name__)
def test_gradient_matches_finite_differences(f):
    value, g = mc.value_and_grad(f)(X.copy())
    assert np.isclose(value, f(X.copy()))
    np.testing.assert_allclose(g, _fd(f, X), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", FAMILY, ids=lambda f: f.__name__)
def test_vjp_at_a_second_point(f):
    x = X[::-1] * 1.3
    _, pullback = mc.vjp(f, x.copy())
    np.testing.assert_allclose(pullback(1.0)[0], _fd(f, x), rtol=1e-6, atol=1e-8)
