"""Local classes under library decorators keep working in forward mode, and keep the class attributes their
classmethods write (forward/runtime.fcall runs dataclasses/functools/... decorators of a class plainly, the class's
tangent kept by identity; forward/transform._decorates_a_local_class).  With plain2's class-attribute storage the
decorator's own Python code was differentiated (a SyntaxError from dataclasses' exec), and without it a decorated
class's `cls.total = ...` read back with a zero tangent (1.0 for 2.4)."""
import dataclasses

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

A = np.array([0.3, -0.45, 0.8])


def frozen_local_dataclass(x, a):
    @dataclasses.dataclass(frozen=True)
    class P:
        u: float
        v: float

        def n(self):
            return self.u * self.v
    return P(x, a[0]).n() + x


def plain_local_dataclass(x, a):
    @dataclasses.dataclass
    class P:
        u: float
        v: float = 2.0

        def n(self):
            return self.u * self.v + 0.5
    return P(x).n() * P(a[2], x).n()


def decorated_class_written_by_a_classmethod(x, a):
    @dataclasses.dataclass
    class C:
        w: float
        total = 0.0

        @classmethod
        def add(cls, v):
            cls.total = cls.total + v * v
    C.add(x)
    C.add(a[0])
    return C.total + C(x).w


@pytest.mark.parametrize("f", [frozen_local_dataclass, plain_local_dataclass, decorated_class_written_by_a_classmethod],
                         ids=lambda f: f.__name__)
def test_local_decorated_classes(f):
    check_derivatives(f, 0.7, A.copy())


def test_forward_tangent_of_a_class_attribute_of_a_decorated_local_class():
    _, dy = mc.jvp(decorated_class_written_by_a_classmethod, (0.7, A.copy()), (1.0, np.zeros(3)))
    assert dy == pytest.approx(2 * 0.7 + 1.0)
