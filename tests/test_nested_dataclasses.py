"""Nested derivatives through dataclasses (issue 10): frozen classes, `__post_init__` (also setting fields with
`object.__setattr__` in a frozen class), `object.__setattr__` in a plain `__init__`, and `dataclasses.replace` with
differentiated keywords (rules/nested_replace.py).  All were refused at the second order; checked in every nesting against central differences
of the gradient, and at the third order against differences of the Hessian."""
import dataclasses

import numpy as np
import pytest

import mooncake_ast as mc
from tests.helpers import fd_jac
from tests.test_regress_nested_hunt import DIRECTIONAL, NESTINGS, T3, X3


@dataclasses.dataclass(frozen=True)
class Point:
    x: float
    y: float

    def norm2(self):
        return self.x ** 2 + self.y ** 2


@dataclasses.dataclass
class Rect:
    w: float
    h: float

    def __post_init__(self):
        self.area = self.w * self.h


@dataclasses.dataclass(frozen=True)
class FrozenRect:
    w: float
    h: float
    scale: float = 2.0

    def __post_init__(self):
        object.__setattr__(self, "area", self.w * self.h * self.scale)


@dataclasses.dataclass(frozen=True)
class Params:
    W: np.ndarray
    b: np.ndarray

    def apply(self, v):
        return np.tanh(self.W @ v + self.b)


class Manual:
    def __init__(self, v):
        object.__setattr__(self, "v", v * 2)


def frozen_points(x):
    points = [Point(x[i], x[i - 1]) for i in range(len(x))]
    return sum(p.norm2() * p.x for p in points)


def post_init(x):
    r = Rect(x[0], x[1])
    return r.area ** 2 + r.w * x[2]


def frozen_post_init(x):
    r = FrozenRect(x[0], x[1])
    s = FrozenRect(x[2], r.area, 0.5)
    return r.area ** 2 + s.area * x[2]


def frozen_arrays(x):
    p = Params(np.outer(x, x)[:2] * 0.5, x[:2])
    return np.sum(p.apply(x) ** 2)


def setattr_in_init(x):
    return Manual(x[0]).v * x[1] ** 2 + Manual(x[2]).v ** 3


def replaced(x):
    p = Point(x[0], x[1])
    q = dataclasses.replace(p, y=x[2] * p.x)
    return q.norm2() * q.y + p.norm2()


def replaced_in_loop(x):
    r = FrozenRect(x[0], 1.0)
    for v in x:
        r = dataclasses.replace(r, h=r.h * v + r.area)
    return r.area + r.h


FUNCS = [frozen_points, post_init, frozen_post_init, frozen_arrays, setattr_in_init, replaced, replaced_in_loop]
IDS = [f.__name__ for f in FUNCS]


@pytest.mark.parametrize("nesting", sorted(NESTINGS))
@pytest.mark.parametrize("f", FUNCS, ids=IDS)
def test_second_order(f, nesting):
    H = fd_jac(lambda y: mc.grad(f)(y), X3)
    got = NESTINGS[nesting](f, X3.copy())
    np.testing.assert_allclose(got, H @ T3 if nesting in DIRECTIONAL else H, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("outer", ["jacfwd", "jacrev"])
@pytest.mark.parametrize("f", FUNCS, ids=IDS)
def test_third_order(f, outer):
    T = fd_jac(lambda y: mc.hessian(f)(y), X3)
    np.testing.assert_allclose(getattr(mc, outer)(mc.hessian(f))(X3), T, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("f", [replaced, replaced_in_loop, frozen_post_init], ids=["replaced", "loop", "post_init"])
def test_third_derivative_of_scalar(f):
    g = lambda t: f(np.array([t, 0.5 * t, t * t]))  # noqa: E731
    ref = fd_jac(lambda t: mc.grad(mc.grad(g))(float(t)), np.array(0.7))
    np.testing.assert_allclose(mc.grad(mc.grad(mc.grad(g)))(0.7), ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mc.jvp(mc.grad(mc.grad(g)), (0.7,), (1.0,))[1], ref, rtol=1e-5, atol=1e-6)
