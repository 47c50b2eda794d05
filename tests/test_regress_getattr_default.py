"""`getattr(obj, name, default)` in both modes: forward mode dropped the default's tangent when the default was the
value (a silently wrong derivative), and reverse mode crashed on the default."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives


class Bare:
    pass


class Scaled:
    def __init__(self, s):
        self.scale = s


def default_used(x):
    c = Bare()
    return getattr(c, "scale", x) * x


def attribute_used(x):
    d = Scaled(2.0 * x)
    return getattr(d, "scale", 1.0) * x + getattr(d, "other", 3.0)


def both(x, y):
    d = Scaled(x * y)
    return getattr(d, "scale", y) + getattr(d, "missing", y * y) * x


def array_default(w):
    c = Bare()
    a = getattr(c, "weights", w)
    return np.sum(a * w) + np.sum(getattr(Scaled(w), "scale", 2.0 * w))


@pytest.mark.parametrize("fn,args", [(default_used, (0.7,)), (attribute_used, (0.7,)), (both, (0.4, 1.3)),
                                     (array_default, (np.array([0.3, -1.2]),))])
def test_getattr_with_a_default(fn, args):
    check_derivatives(fn, *args)


def test_default_tangent_value():
    _, dy = mc.jvp(default_used, (0.7,), (1.0,))
    assert np.isclose(dy, 2 * 0.7)
    assert np.isclose(mc.grad(default_used)(0.7), 2 * 0.7)
