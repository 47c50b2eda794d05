"""A @property of a NamedTuple (typing.NamedTuple, a collections.namedtuple subclass) read in differentiated code.

Forward mode gave it tangent 0, silently: a namedtuple's tangent is a plain tuple, and getattr_tangent
(rules/builtin_attributes.py) looked the name up in `_fields` only, so a property fell through to NoTangent.  Its
getter is now differentiated, as for objects.  Found by hunt13.  At second order the read is refused (never a number).
"""
import collections
import dataclasses
from typing import NamedTuple

import numpy as np
import pytest

import mooncake_ast as mc

class NT(NamedTuple):
    a: float
    b: float
    @property
    def prod(self): return self.a * self.b
    def meth(self): return self.prod + self.a
CT = collections.namedtuple("CT", "a b")
class CT2(CT):
    @property
    def prod(self): return self.a * self.b
@dataclasses.dataclass(frozen=True)
class FD:
    a: float
    b: float
    @property
    def prod(self): return self.a * self.b
class Sl:
    __slots__ = ("a", "b")
    def __init__(self, a, b): self.a, self.b = a, b
    @property
    def prod(self): return self.a * self.b
def f1(x): return NT(x[0], x[1]).prod
def f2(x): return NT(x[0], x[1]).meth()
def f3(x): return CT2(x[0], x[1]).prod
def f4(x): return FD(x[0], x[1]).prod
def f5(x): return getattr(NT(x[0], x[1]), "prod")
def f6(x): return Sl(x[0], x[1]).prod
def f7(x):
    t = NT(x[0], x[1])
    return t._replace(a=x[1] * 2).prod


FUNCTIONS = [f1, f2, f3, f4, f5, f6, f7]


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_property_of_immutable_object(f, mode):
    mc.testing.check_derivatives(f, np.array([0.3, -0.7]), modes=(mode,))


@pytest.mark.parametrize("f", [f1, f3, f5], ids=lambda f: f.__name__)
def test_property_second_order_refused(f):
    with pytest.raises(mc.MooncakeError, match="prod"):
        mc.hessian(lambda x: f(x) ** 2 * x[0])(np.array([0.3, -0.7]))
