"""Issue 9: objects a function makes of its own classes are typed by field (reverse/local_objects.py), so the
arithmetic on what is read from them is plain; near misses (writes of another type, methods that write, objects
that escape, properties, subclasses, a class's own `__setattr__`, a bound method kept) stay untyped, and every
derivative stays right."""
import linecache

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.forward.generate import class_digest
from mooncake_ast.testing import check_derivatives
from tests import local_object_cases as c

R = np.random.default_rng(5)
W, B, X = R.normal(size=(3, 3)) / 2, R.normal(size=3), R.normal(size=3)

CASES = [
    (c.spring, (0.5, 0.1, 2.0, 0.05)),
    (c.compound, (100.0, 0.05)),
    (c.per_iteration, (0.3, 0.7)),
    (c.default_field, (0.4,)),
    (c.int_field_becomes_float, (1.5,)),
    (c.array_field, (0.3, np.array([1.0, 2.0, 3.0]))),
    (c.method_writes, (0.6,)),
    (c.escapes, (0.7,)),
    (c.passed_to_function, (0.8, 1.5)),
    (c.property_read, (0.9,)),
    (c.subclass, (10.0, 0.2)),
    (c.own_setattr, (1.2,)),
    (c.bound_method_kept, (0.4,)),
    (c.layer_loss, (W, B, X)),
    (c.field_and_parameter, (W, B, X)),
    (c.field_written_in_place, (W, B, X)),
    (c.parameter_written_after, (W, B, X)),
    (c.field_replaced, (W, B, X)),
    (c.field_view, (W, B, X)),
    (c.two_bodies, (0.6, 0.3)),
    (c.same_argument_twice, (0.7,)),
    (c.method_twice_between_writes, (0.4, 1.3)),
    (c.in_a_branch, (0.4, 0.9)),
    (c.in_a_branch, (-0.4, 0.9)),
    (c.aug, (0.4, 0.7)),
    (c.scale_arg, (0.5, X)),
    (c.two_counters, (0.3, 0.8)),
    (c.float64_fields, (0.5, X)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_objects_made_inside(fn, args):
    check_derivatives(fn, *args)


@pytest.mark.parametrize("fn,args", CASES[:4], ids=[f.__name__ for f, _ in CASES[:4]])
def test_arithmetic_on_fields_is_plain(fn, args):
    mc.vjp(fn, *args)
    src = mc.source(fn, "reverse")
    assert "_mc.rcall(operator" not in src


FIELD_VARIABLES = [c.spring, c.compound, c.per_iteration, c.two_bodies, c.same_argument_twice,
                   c.method_twice_between_writes, c.in_a_branch]


@pytest.mark.parametrize("fn", FIELD_VARIABLES, ids=[f.__name__ for f in FIELD_VARIABLES])
def test_number_fields_have_adjoint_variables(fn):
    """The object is made and written plainly; its fields' adjoints are local variables (reverse/object_fields.py)."""
    args = next(a for f, a in CASES if f is fn)
    mc.vjp(fn, *args)
    src = mc.source(fn, "reverse")
    for helper in ("getattr_reverse", "rcall(setattr", "_mc.take(", "_mc.acc("):
        assert helper not in src, helper


def test_the_key_follows_the_class_code():
    before = class_digest(c.Account)
    g: dict = {}
    exec("class Account:\n    def __init__(self, balance, rate):\n        self.balance = balance\n"
         "        self.rate = rate\n        self.years = 0.0\n", g)
    assert class_digest(g["Account"]) != before


def _define(g: dict, name: str, src: str) -> None:
    """exec with a source file linecache knows, as a module's code would have."""
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    exec(compile(src, name, "exec"), g)


def test_rebinding_the_class_remakes_the_derivative():
    g = {"np": np, "__name__": "local_objects_test"}
    _define(g, "<local_objects_a>", "class P:\n    def __init__(self, x):\n        self.x = x\n"
            "    def sq(self):\n        return self.x * self.x\n\n\ndef f(x):\n    p = P(x)\n    return p.sq()\n")
    assert mc.grad(g["f"])(3.0) == pytest.approx(6.0)
    _define(g, "<local_objects_b>", "class P:\n    def __init__(self, x):\n        self.x = x\n"
            "    def sq(self):\n        return 3.0 * self.x\n")
    assert mc.grad(g["f"])(3.0) == pytest.approx(3.0)


def test_second_derivative_through_a_dataclass_with_defaults():
    """grad(grad(f)) where f makes a dataclass leaving a field to its default (an IndexError in the nested plan)."""
    g2 = mc.grad(mc.grad(lambda x: c.default_field(x) ** 2))(0.4)
    assert np.isclose(g2, 18.0)
    h = mc.hessian(lambda x: c.default_field(x) * c.default_field(x))(0.7)
    assert np.isclose(h, 18.0)
