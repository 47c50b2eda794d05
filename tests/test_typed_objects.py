"""Objects whose fields are float arrays and floats (layers, models): reverse mode reads their fields
as plain values and returns their tangent built from one adjoint variable per field (issue 9).

Every case is checked in both modes, typed or not: the ones that must fall back to identity-keyed
storage (a field written, viewed or passed on, a method called on the object, a property, the same
object twice, fields sharing an array, a custom __getattribute__) are as right as the typed ones.
"""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.reverse.runtime import kinds_of
from mooncake_ast.testing import check_derivatives

R = np.random.default_rng(3)


class Layer:
    def __init__(self, W, b, s=0.7):
        self.W, self.b, self.s = W, b, s

    def loss(self, x):
        z = np.tanh(self.W @ x + self.b) * self.s
        return np.sum(z * z) + self.s ** 2

    def loss_in_a_loop(self, x):
        total = 0.0
        for k in range(3):
            total = total + np.sum(np.sin(self.W * k) @ x) * self.s
        return total

    def act(self, z):
        return np.tanh(z)

    def with_a_method(self, x):
        return np.sum(self.act(self.W @ x) * self.b)

    def writes_a_field(self, x):
        self.b = self.b * 2.0
        return np.sum((self.W @ x) * self.b)

    def views_a_field(self, x):
        top = self.W[0]
        top *= 1.0  # an in-place write through a view of a field
        return np.sum(self.W @ x) + np.sum(top)


class Scaled:
    factor = 2.0  # a class attribute: `self.factor` is not a field

    def __init__(self, W):
        self.W = W

    def loss(self, x):
        return np.sum((self.W @ x) ** 2) * self.factor


class WithProperty:
    def __init__(self, W):
        self._W = W

    @property
    def W(self):
        return self._W * 2.0

    def loss(self, x):
        return np.sum(np.cos(self.W @ x))


class Odd:
    def __init__(self, W):
        self.W = W

    def __getattribute__(self, name):
        return object.__getattribute__(self, name)

    def loss(self, x):
        return np.sum(np.exp(0.1 * (self.W @ x)))


def two_layers(a, b, x):
    return a.loss(x) * b.loss(x)


def layer_and_function(layer, x):
    h = np.tanh(layer.W @ x + layer.b)
    return np.sum(h ** 3) + layer.s * np.sum(layer.W)


def fresh_layer():
    return Layer(R.normal(size=(3, 4)), R.normal(size=3))


X = R.normal(size=4)
CASES = {
    "method": (Layer.loss, lambda: (fresh_layer(), X), True),
    "method_in_a_loop": (Layer.loss_in_a_loop, lambda: (fresh_layer(), X), True),
    "function_of_a_layer": (layer_and_function, lambda: (fresh_layer(), X), True),
    "calls_a_method": (Layer.with_a_method, lambda: (fresh_layer(), X), False),
    "writes_a_field": (Layer.writes_a_field, lambda: (fresh_layer(), X), False),
    "views_a_field": (Layer.views_a_field, lambda: (fresh_layer(), X), False),
    "class_attribute": (Scaled.loss, lambda: (Scaled(R.normal(size=(2, 4))), X), False),
    "property": (WithProperty.loss, lambda: (WithProperty(R.normal(size=(2, 4))), X), False),
    "custom_getattribute": (Odd.loss, lambda: (Odd(R.normal(size=(2, 4))), X), False),
}


@pytest.mark.parametrize("mode", ["forward", "reverse"])
@pytest.mark.parametrize("name", CASES)
def test_object_fields(name, mode):
    fn, make, _ = CASES[name]
    check_derivatives(fn, *make(), modes=(mode,))


@pytest.mark.parametrize("name", CASES)
def test_plain_pullback_exactly_when_the_fields_are_only_read(name):
    fn, make, plain = CASES[name]
    mc.grad(fn)(*make())
    pullback = mc.source(fn, "reverse").split("__pullback(", 1)[1]
    generic = any(h in pullback for h in ("_mc.acc(", "_mc.take(", "getattr_reverse", "_mc.rcall"))
    assert generic is not plain, pullback


def test_the_same_object_twice_and_shared_arrays_stay_generic_and_right():
    layer = fresh_layer()
    assert kinds_of((layer, layer, X))[0] == "obj"
    check_derivatives(two_layers, layer, layer, X)
    shared = Layer(R.normal(size=(3, 3)), None)
    shared.b = shared.W[0]  # a view of W: the fields overlap
    assert kinds_of((shared, X[:3]))[0] == "obj"
    check_derivatives(layer_and_function, shared, X[:3])


def test_two_layers_of_the_same_class():
    check_derivatives(two_layers, fresh_layer(), fresh_layer(), X)


def test_gradient_is_the_objects_tangent():
    layer = fresh_layer()
    g = mc.grad(Layer.loss)(layer, X)
    assert set(g.fields) == {"W", "b", "s"} and g.W.shape == (3, 4) and isinstance(g.s, float)
