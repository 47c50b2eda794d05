"""types.SimpleNamespace made with keyword arguments (and subclasses without their own __init__), both modes.

It was refused in both modes ("no rule for types.SimpleNamespace (a class without a Python __init__)"; found by
hunt13): an attribute bag (argparse.Namespace alike) is now made field by field like a Python class's object
(forward/runtime._construct, reverse/runtime._construct).  Second order refuses keyword arguments honestly.
"""
import types

import numpy as np
import pytest

import mooncake_ast as mc

def n1(x):
    ns = types.SimpleNamespace()
    ns.a = x[0]; ns.b = x[1:3]
    ns.c = ns.a * ns.b
    return ns.c.sum()
def n2(x):
    ns = types.SimpleNamespace(a=x[0], b=x[1:3])
    ns.c = ns.a * ns.b
    return ns.c.sum()
class Cfg(types.SimpleNamespace):
    def scaled(self): return self.a * self.b
def n3(x):
    ns = Cfg(a=x[0], b=x[1:3])
    return ns.scaled().sum() + x[2]
def n4(x):
    ns = types.SimpleNamespace(w=x.copy(), lr=0.1)
    for _ in range(3):
        ns.w = ns.w - ns.lr * np.sin(ns.w)
    ns.w[0] = ns.w[0] ** 2
    return np.sum(ns.w ** 2)
def n5(x):
    buf = np.zeros(2)
    ns = types.SimpleNamespace(buf=buf, s=x[0])
    ns.buf[1] = x[1] * ns.s
    return buf.sum() + ns.s


FUNCTIONS = [n1, n2, n3, n4, n5]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_simple_namespace(f, mode):
    mc.testing.check_derivatives(f, np.array([0.3, -0.7, 1.1]), modes=(mode,))


def test_simple_namespace_second_order_refused():
    with pytest.raises(mc.MooncakeError, match="SimpleNamespace"):
        mc.hessian(n2)(np.array([0.3, -0.7, 1.1]))
