"""Derivatives of derivatives (issue 10) through objects, containers and in-place updates.

Hessians, Jacobians of gradients (forward and reverse), Hessian-vector products and nested scalar
derivatives of functions that build objects (a callable object, a method, a dataclass, a property), copy
and write arrays in place (items, slices, views, `a *= s`), and keep values in lists and dicts: checked
against central differences of mc.grad.  The run-time helpers generated forward code calls are
differentiated through their plain-Python twins (rules/nested_helpers.py) and the calls it dispatches
through plans (rules/nested_plans.py).  What has no twin stays a NestingError.
"""
from dataclasses import dataclass

import numpy as np
import pytest

import mooncake_ast as mc

X = np.array([0.3, -0.7, 1.1, 0.5])
V = np.array([0.5, -1.0, 2.0, 0.3])
T0 = 0.7


# ---------------------------------------------------------------- functions of a vector


class Lin:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return np.tanh(self.w * x)


def obj_callable(x):
    m = Lin(x[0])
    return np.sum(m(x) ** 2)


def copy_then_write(x):
    y = x.copy()
    y[0] = y[0] * y[1]
    return np.sum(y ** 3)


def slices_into_zeros(x):
    y = np.zeros(4)
    y[1:3] = x[:2] ** 2
    y[0] += x[2] * x[0]
    return np.sum(np.sin(y))


class Model:
    def __init__(self, a):
        self.a = a

    def loss(self, x):
        return np.sum(self.a * x ** 3)


def method_of_new_object(x):
    return Model(2.0).loss(x)


def dict_values(x):
    d = {"a": x[0] * x[1], "b": x ** 2}
    d["c"] = np.sin(d["b"])
    return d["a"] * np.sum(d["c"])


def list_appends(x):
    parts = []
    for i in range(len(x)):
        parts.append(x[i] ** 2 * x[(i + 1) % len(x)])
    return sum(parts) + parts[0] * parts[-1]


def augmented_array(x):
    a = x * 1.0
    a *= x[0]
    a += np.sin(x)
    return np.sum(a ** 2)


def item_updates_in_loop(x):
    a = np.zeros(3)
    for i in range(len(x)):
        a[i % 3] += x[i] * x[(i + 1) % len(x)]
    return np.sum(np.exp(a))


def view_update(x):
    y = x * 1.0
    y[1:] += y[:-1] * 0.5
    return np.sum(np.sin(y))


class Acc:
    def __init__(self):
        self.total = 0.0

    def add(self, v):
        self.total = self.total + v * v
        return self


def method_changes_its_object(x):
    acc = Acc()
    for i in range(len(x)):
        acc.add(x[i] * x[0])
    return acc.total


@dataclass
class Pt:
    a: float
    b: np.ndarray


def dataclass_fields(x):
    p = Pt(x[0], x[1:] ** 2)
    return p.a * np.sum(p.b) + np.sum(np.cos(p.b))


def object_chosen_by_branch(x):
    m = Lin(x[1]) if x[0] > 0 else Lin(2.0)
    out = 0.0
    for i in range(2):
        out = out + np.sum(m(x * (i + 1.0)))
    return out


def array_methods(x):
    y = x.reshape(2, 2)
    return np.sum(y.sum(axis=0) ** 2) + x.dot(x) * x[0]


class Scaled:
    def __init__(self, a):
        self._a = a

    @property
    def a(self):
        return self._a

    @a.setter
    def a(self, v):
        self._a = v * 2.0


def property_get_set(x):
    o = Scaled(x[0])
    o.a = x[1] * x[0]
    return o.a * x[2] + np.sum(x ** 2) * o.a


class Inner:
    def __init__(self, s):
        self.s = s

    def f(self, x):
        return np.sin(self.s * x)


class Outer:
    def __init__(self, s):
        self.inner = Inner(s)
        self.buf = np.zeros(4)

    def run(self, x):
        self.buf[:] = self.inner.f(x)
        self.buf[0] += x[1] * x[2]
        return np.sum(self.buf ** 2)


def objects_inside_objects(x):
    o = Outer(x[3])
    return o.run(x) + o.inner.s * x[0]


class Stateful:
    def __init__(self, W):
        self.W = W

    def step(self, x):
        self.W[0] += x[0] * x[1]
        return np.sum(self.W * x)


def array_field_updated_in_place(x):
    s = Stateful(np.array([1.0, 2.0, 3.0, 4.0]) * x[2])
    return s.step(x) * s.step(x * 2.0)


def arrays_in_containers(x):
    rows = [x * 1.0, x ** 2]
    rows[0][1] = x[2] * x[3]
    rows[1] *= x[0]
    d = {"w": np.ones(4)}
    d["w"][1:] = x[:3] * x[1:]
    d["w"] += rows[1]
    return np.sum(rows[0] * rows[1]) + np.sum(np.tanh(d["w"]))


class Vec:
    __array_ufunc__ = None  # (so that `number * Vec` reaches __rmul__)

    def __init__(self, v):
        self.v = v

    def __add__(self, o):
        return Vec(self.v + o.v)

    def __rmul__(self, s):
        return Vec(self.v * s)

    def __mul__(self, o):
        return Vec(self.v * o.v)

    def norm2(self):
        return np.sum(self.v ** 2)


def operators_of_objects(x):
    a = Vec(x)
    c = a + x[0] * Vec(x ** 2)
    return (c * a).norm2()


def object_in_a_while_loop(x):
    m = Lin(x[0] * 0.5)
    k = 0
    acc = 0.0
    while k < 3:
        acc = acc + np.sum(m(x)) * x[k]
        if acc > 0:
            m.w = m.w * 1.1
        k += 1
    return acc


class Layer:
    scale = 0.5  # (a class attribute: a constant)

    def __init__(self, w):
        self.w = w

    def __call__(self, h):
        return np.tanh(self.w * h) * self.scale + h


class Shifted(Layer):
    def __init__(self, w, b):
        super().__init__(w)
        self.b = b

    def __call__(self, h):
        return super().__call__(h) + self.b


def layers_with_inheritance(x):
    h = x * 1.0
    for layer in [Layer(x[0]), Shifted(x[1], x[2]), Layer(0.3)]:
        h = layer(h)
    return np.sum(h ** 2)


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a = a
        self.b = b


def slotted_object(x):
    s = Slotted(x[1], x[2] ** 2)
    s.a = s.a * x[3]
    return (s.a * np.sum(x) + s.b * x[0]) ** 2


class RNN:
    def __init__(self, w, n):
        self.w = w
        self.h = np.zeros(n)

    def run(self, xs):
        for i in range(len(xs)):
            prev = self.h[i - 1] if i > 0 else 0.0
            self.h[i] = np.tanh(self.w * prev + xs[i])
        return self.h


def recurrence_in_an_object(x):
    r = RNN(x[0], len(x))
    return np.sum(r.run(x) ** 2) + r.h[-1] * x[1]


VECTOR = [obj_callable, copy_then_write, slices_into_zeros, method_of_new_object, dict_values, list_appends,
          augmented_array, item_updates_in_loop, view_update, method_changes_its_object, dataclass_fields,
          object_chosen_by_branch, array_methods, property_get_set, objects_inside_objects,
          array_field_updated_in_place, arrays_in_containers, operators_of_objects, object_in_a_while_loop,
          layers_with_inheritance, slotted_object, recurrence_in_an_object]

_FD: dict = {}


def fd_hessian(f, x=X, eps=1e-6):
    """Central differences of mc.grad(f), column by column (kept per function: each is used four times)."""
    if f not in _FD:
        g = mc.grad(f)
        _FD[f] = np.array([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(len(x))]).T
    return _FD[f]


MODES = {
    "hessian": lambda f: mc.hessian(f)(X),
    "jacfwd_grad": lambda f: mc.jacfwd(mc.grad(f))(X),
    "jacrev_grad": lambda f: mc.jacrev(mc.grad(f))(X),
    "hvp": lambda f: np.column_stack([mc.hvp(f, (X,), (e,)) for e in (V, np.eye(4)[2])]),
}


# (mc.hessian is jacfwd of grad: jacfwd_grad runs the same path, so it is checked on the four patterns only)
CASES = [(f, m) for f in VECTOR for m in MODES if m != "jacfwd_grad" or f in VECTOR[:4]]


@pytest.mark.parametrize("f, mode", CASES, ids=[f"{f.__name__}-{m}" for f, m in CASES])
def test_second_derivatives(f, mode):
    H = fd_hessian(f)
    want = H if mode != "hvp" else np.column_stack([H @ V, H[:, 2]])
    np.testing.assert_allclose(MODES[mode](f), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("f", [obj_callable, slices_into_zeros, method_changes_its_object], ids=lambda f: f.__name__)
def test_jvp_of_grad_gives_gradient_and_product(f):
    g, hv = mc.jvp(mc.grad(f), (X,), (V,))
    np.testing.assert_allclose(g, mc.grad(f)(X), rtol=1e-12)
    np.testing.assert_allclose(hv, fd_hessian(f) @ V, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("f", [obj_callable, copy_then_write, slices_into_zeros, method_of_new_object],
                         ids=lambda f: f.__name__)
def test_grad_of_jvp(f):
    got = mc.grad(lambda x: mc.jvp(f, (x,), (V,))[1])(X)
    np.testing.assert_allclose(got, fd_hessian(f) @ V, rtol=1e-5, atol=1e-5)


def _same(v):
    return v


def dispatched_power(x):
    # (`_same` hides the operands' types: forward code dispatches `**` at run time)
    return _same(x[0]) ** _same(x[1]) + _same(x[2]) ** 2


def test_dispatched_power_with_an_exponent_whose_tangent_is_zero_in_one_direction():
    # (the exponent is differentiated: its tangent is 0.0 in direction e0, not the symbolic zero of a constant)
    x = np.array([1.3, 0.7, -0.4])
    g, hv = mc.jvp(mc.grad(dispatched_power), (x,), (np.array([1.0, 0.0, 0.0]),))
    np.testing.assert_allclose(g, mc.grad(dispatched_power)(x), rtol=1e-12)
    np.testing.assert_allclose(mc.hessian(dispatched_power)(x), fd_hessian(dispatched_power, x), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- functions that write their argument


def writes_its_argument(x):
    x[0] = x[0] * x[1]
    x[1:] += x[:-1] ** 2
    return np.sum(x ** 3)


def test_second_derivatives_of_a_function_that_writes_its_argument():
    # (each derivative at the argument's entry values; the argument left as one plain call leaves it)
    after = X.copy()
    writes_its_argument(after)
    H = fd_hessian(lambda z: writes_its_argument(z.copy()))
    vg = mc.value_and_grad(writes_its_argument)
    for J in (lambda x: mc.hessian(writes_its_argument)(x), lambda x: mc.jacrev(mc.grad(writes_its_argument))(x),
              lambda x: mc.jacfwd(vg)(x)[1]):
        x = X.copy()
        np.testing.assert_allclose(J(x), H, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(x, after, rtol=1e-12)


# ---------------------------------------------------------------- an object passed as an argument


class Net:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def loss(self, x):
        h = np.tanh(self.W @ x + self.b)
        return np.sum(h ** 2) + x[0] * x[1] ** 2


def net_loss(model, x):
    return model.loss(x)


def test_hessian_with_respect_to_x_of_an_object_argument():
    rng = np.random.default_rng(3)
    net = Net(rng.normal(size=(3, 4)), rng.normal(size=3))
    W0 = net.W.copy()
    g = mc.grad(net_loss, argnums=1)
    eps = 1e-6
    want = np.array([(g(net, X + eps * e) - g(net, X - eps * e)) / (2 * eps) for e in np.eye(4)]).T
    np.testing.assert_allclose(mc.hessian(net_loss, argnums=1)(net, X), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mc.jacrev(g, argnums=1)(net, X), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mc.jvp(g, (net, X), (None, V))[1], want @ V, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(net.W, W0)


# ---------------------------------------------------------------- functions of a number


class Cube:
    def __init__(self, c):
        self.c = c

    def __call__(self, t):
        return self.c * t ** 3


def s_object(t):
    m = Cube(t)
    return m(t) + np.sin(m.c)


def s_in_place(t):
    a = np.zeros(3)
    a[0] = t
    a[1:] += a[0] * t
    a *= t
    a[2] += np.cos(t)
    return np.sum(np.sin(a))


def s_copy(t):
    a = np.array([t, 2.0 * t, t * t])
    b = a.copy()
    b[1] = b[0] * b[2]
    return np.sum(b ** 2)


def s_containers(t):
    d = {"a": t * t}
    d["b"] = d["a"] * t
    xs = [d["a"]]
    xs.append(np.sin(d["b"]))
    return xs[0] * xs[1] + d["b"]


def s_mutating(t):
    acc = Acc()
    acc.add(t)
    acc.add(t * t)
    return acc.total


SCALAR = [s_object, s_in_place, s_copy, s_containers, s_mutating]


def fd(h, t, eps=1e-5):
    return (h(t + eps) - h(t - eps)) / (2 * eps)


@pytest.mark.parametrize("f", SCALAR, ids=lambda f: f.__name__)
def test_scalar_second_derivatives(f):
    want = fd(mc.grad(f), T0)
    assert mc.grad(mc.grad(f))(T0) == pytest.approx(want, rel=1e-5, abs=1e-6)
    assert mc.grad(lambda s: mc.jvp(f, (s,), (1.0,))[1])(T0) == pytest.approx(want, rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("f", SCALAR, ids=lambda f: f.__name__)
def test_scalar_third_derivative(f):
    d2 = mc.grad(mc.grad(f))
    assert mc.grad(d2)(T0) == pytest.approx(fd(d2, T0), rel=1e-5, abs=1e-6)


def test_jacobian_of_a_hessian():
    # (third derivatives through a Hessian function: the Jacobian of Hessian-vector products)
    x = X[:3].copy()
    f = slices_into_zeros
    T = mc.jacfwd(mc.hessian(f))(x)
    eps = 1e-5
    want = np.stack([(mc.hessian(f)(x + eps * e) - mc.hessian(f)(x - eps * e)) / (2 * eps) for e in np.eye(3)], -1)
    np.testing.assert_allclose(T, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mc.jvp(mc.hessian(f), (x,), (V[:3],))[1], want @ V[:3], rtol=1e-5, atol=1e-5)


class _TanhLayer:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return np.tanh(self.w * x)


def squared_layer_output(x):
    return np.sum(_TanhLayer(x[0])(x) ** 2)


def test_third_derivative_through_an_integer_power_of_negative_values():
    # `** 2` of values below 0, dispatched at run time: the exponent is an int, constant at every order, so no
    # term reads log(base) (nan there; nan times zero spoilt 18 of the 27 entries before)
    x = np.array([0.3, -0.7, 1.1])
    T = mc.jacfwd(mc.hessian(squared_layer_output))(x)
    eps = 1e-5
    H = mc.hessian(squared_layer_output)
    want = np.stack([(H(x + eps * e) - H(x - eps * e)) / (2 * eps) for e in np.eye(3)], -1)
    assert not np.isnan(T).any()
    np.testing.assert_allclose(T, want, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- what stays refused


def nonlinear_array_method(x):
    return x.prod() + np.sum(x ** 2)


def test_a_nonlinear_array_method_of_a_typed_array_is_differentiated_twice():
    # (was refused: forward code dispatched x.prod() at run time; forward mode now calls np.prod for a float array,
    # forward/transform._resolve_typed_methods, whose rule reverse mode differentiates)
    eps = 1e-5
    g = mc.grad(nonlinear_array_method)
    want = np.array([(g(X + eps * e) - g(X - eps * e)) / (2 * eps) for e in np.eye(len(X))])
    np.testing.assert_allclose(mc.hessian(nonlinear_array_method)(X), want, rtol=1e-5, atol=1e-6)
