"""A class defined inside the differentiated function whose methods read the function's variables (issue 12;
frontend/local_classes.py, rules/python_local_classes.py).  Refused before; now the methods read them through
the function's cells, with their derivatives, in both modes.  A class body that reads them itself (a class
attribute computed from them) is still refused by name: the body runs as plain Python."""
import dataclasses

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

W = np.array([[0.3, 0.2], [-0.4, 0.9]])


def method_reads_float(x):
    k = x * 2
    class A:
        def get(self):
            return k * 3 + np.sin(k)
    return A().get()


def init_and_call_read_arrays(x, w):
    scale = np.sin(x)
    class Layer:
        def __init__(self, b):
            self.b = b * scale
        def __call__(self, v):
            return np.tanh(w @ v * scale + self.b)
    layer = Layer(x)
    return np.sum(layer(np.array([0.5, -0.3])) * layer(w[0]))


def nonlocal_accumulator(x):
    total = 0.0
    class Acc:
        def add(self, v):
            nonlocal total
            total = total + v * x
    a = Acc()
    for i in range(3):
        a.add(x * i)
    return total


def rebound_after_the_class(x):
    k = x
    class A:
        def get(self):
            return k * k
    a = A()
    first = a.get()
    k = np.exp(x)
    return first + a.get()


def decorated_methods(x):
    c = x * x
    class P:
        def __init__(self, v):
            self.v = v
        @property
        def scaled(self):
            return self.v * c
        @staticmethod
        def offset(t):
            return t + c
        @classmethod
        def make(cls, t):
            return cls(t * c)
    p = P.make(x)
    return p.scaled + P.offset(x) + p.v


def with_super(x):
    k = np.cos(x)
    class Base:
        def f(self, t):
            return t * 2.0
    class Child(Base):
        def f(self, t):
            return super().f(t) * k + k
    return Child().f(x)


def lambda_attribute_and_helper(x):
    k = x + 1.0
    def helper(v):
        return v * k
    class A:
        twice = lambda self, v: 2.0 * v * k  # noqa: E731  (a closure the class body makes, not a read)
        def go(self, v):
            return helper(v) + self.twice(v)
    return A().go(x)


def dataclass_with_captures(x, w):
    bias = w[1]
    @dataclasses.dataclass
    class Point:
        u: float
        v: float
        def score(self):
            return self.u * bias[0] + self.v * bias[1] + x
    pts = [Point(x, w[0, 0]), Point(w[0, 1], x * x)]
    return sum(p.score() for p in pts)


def instances_returned_and_used(x):
    k = x * 0.5
    class Acc:
        def __init__(self):
            self.items = []
        def push(self, v):
            self.items.append(v * k)
            return self
        def total(self):
            return sum(self.items) * k
    return Acc().push(x).push(x * x).total()


CASES = [(method_reads_float, (1.5,)), (method_reads_float, (-0.3,)), (init_and_call_read_arrays, (0.7, W)),
         (nonlocal_accumulator, (0.8,)), (rebound_after_the_class, (0.6,)), (decorated_methods, (1.3,)),
         (decorated_methods, (-0.9,)), (with_super, (0.4,)), (lambda_attribute_and_helper, (0.9,)),
         (dataclass_with_captures, (0.7, W)), (instances_returned_and_used, (1.1,))]


@pytest.mark.parametrize("fn, args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_methods_read_the_functions_variables(fn, args):
    check_derivatives(fn, *args)


def class_attribute_from_a_variable(x):
    scale = np.sin(x)
    class Layer:
        factor = scale * 2.0
        def __call__(self, v):
            return v * self.factor
    return Layer()(x)


def default_from_a_variable(x):
    k = x * 2
    class A:
        def get(self, t=k):
            return t
    return A().get()


@pytest.mark.parametrize("fn", [class_attribute_from_a_variable, default_from_a_variable])
@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_class_body_reading_the_functions_variables_is_refused(fn, mode):
    with pytest.raises(mc.MooncakeError, match="reads its variable .* in its body"):
        if mode == "forward":
            mc.jvp(fn, (0.7,), (1.0,))
        else:
            mc.grad(fn)(0.7)


@pytest.mark.parametrize("order2", [lambda f: mc.hessian(f), lambda f: mc.jacfwd(mc.grad(f)), lambda f: mc.grad(mc.grad(f))])
def test_second_order_is_refused_by_name(order2):
    with pytest.raises(mc.MooncakeError, match="derivative of a derivative"):
        order2(method_reads_float)(0.7)


def plain_local_class(x):
    class A:
        def __init__(self, v):
            self.v = v

        def get(self):
            return self.v ** 3

    return A(x).get()


def test_second_order_of_a_class_reading_nothing_of_the_function():
    assert float(mc.hessian(plain_local_class)(0.7)) == pytest.approx(6 * 0.7)


def decorator_from_the_function(x):
    def logged(fn):
        def inner(self, v):
            return fn(self, v) + 1.0
        return inner
    label = "m"

    class Model:
        name = label * 2  # (a string: read by the body as Python reads it)

        @logged
        def predict(self, v):
            return v * x

    return Model().predict(x * x)


def test_class_body_reading_values_without_derivatives():
    check_derivatives(decorator_from_the_function, 0.7)


def decorator_closing_over_a_number(x):
    k = x * 2.0

    def scaled(fn):
        fn.factor = k
        return fn

    class Model:
        @scaled
        def predict(self, v):
            return v * self.predict.factor

    return Model().predict(x)


def test_class_body_reading_a_function_over_a_number_is_refused():
    for run in (lambda: mc.grad(decorator_closing_over_a_number)(0.7),
                lambda: mc.jvp(decorator_closing_over_a_number, (0.7,), (1.0,))):
        with pytest.raises(mc.MooncakeError, match="`scaled` in its body"):
            run()
