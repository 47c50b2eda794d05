"""User classes: special methods, properties, callable layers and dataclasses (issue 8).

Python dispatches `a * b`, `2.0 * a`, `a += b`, `-a`, `a[i] = v`, `for v in a`, `a.k = v`
(a property) to the user's own methods; those are differentiated like any other call,
in both modes.  Every case is checked by `check_derivatives` (forward against finite
differences, reverse against forward) and, independently, the gradient against central
finite differences (so both modes being wrong the same way cannot pass).
"""
import dataclasses

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives


def fd_grad(f, args, i, h=1e-6):
    """Central differences of the scalar f with respect to argument i (a float or an array)."""
    x = args[i]
    if isinstance(x, float):
        up = args[:i] + (x + h,) + args[i + 1:]
        dn = args[:i] + (x - h,) + args[i + 1:]
        return (f(*up) - f(*dn)) / (2 * h)
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[idx] += h
        xm[idx] -= h
        g[idx] = (f(*args[:i], xp, *args[i + 1:]) - f(*args[:i], xm, *args[i + 1:])) / (2 * h)
    return g


def check_all(f, *args):
    """check_derivatives in both modes, and every gradient (reverse) and jvp (forward) against finite differences."""
    check_derivatives(f, *args)
    grads = mc.grad(f, argnums=tuple(range(len(args))))(*args)
    for i, g in enumerate(grads):
        np.testing.assert_allclose(g, fd_grad(f, args, i), rtol=1e-5, atol=1e-6)
    rng = np.random.default_rng(1)
    tangents = tuple(float(rng.normal()) if isinstance(a, float) else rng.normal(size=np.shape(a)) for a in args)
    _, dy = mc.jvp(f, args, tangents)
    expect = sum(float(np.sum(fd_grad(f, args, i) * t)) for i, t in enumerate(tangents))
    np.testing.assert_allclose(dy, expect, rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------ a value class with every operator


class V:
    __array_ufunc__ = None  # NumPy hands `array * V` to V.__rmul__

    def __init__(self, v):
        self.v = v

    def _val(self, o):
        return o.v if isinstance(o, V) else o

    def __add__(self, o):
        return V(self.v + self._val(o))

    def __radd__(self, o):
        return V(o + self.v)

    def __sub__(self, o):
        return V(self.v - self._val(o))

    def __rsub__(self, o):
        return V(o - self.v)

    def __mul__(self, o):
        return V(self.v * self._val(o))

    def __rmul__(self, o):
        return V(o * self.v * 1.5)  # deliberately not commutative: the reflected method must be the one run

    def __truediv__(self, o):
        return V(self.v / self._val(o))

    def __rtruediv__(self, o):
        return V(o / self.v)

    def __pow__(self, o):
        return V(self.v ** self._val(o))

    def __rpow__(self, o):
        return V(o ** self.v)

    def __matmul__(self, o):
        return V(self.v @ self._val(o))

    def __rmatmul__(self, o):
        return V(o @ self.v)

    def __neg__(self):
        return V(-self.v * 2.0)

    def __pos__(self):
        return V(self.v * 3.0)

    def __abs__(self):
        return V(abs(self.v) + 1.0)

    def __iadd__(self, o):
        self.v = self.v + 2.0 * self._val(o)
        return self

    def __imul__(self, o):
        self.v = self.v * self._val(o) * self._val(o)
        return self

    def __lt__(self, o):
        return np.all(self.v < self._val(o))

    def __eq__(self, o):
        return np.all(self.v == self._val(o))

    __hash__ = None


class NoIAdd:
    """`a -= b` without __isub__ falls back to __sub__ (a new object)."""

    def __init__(self, v):
        self.v = v

    def __sub__(self, o):
        return NoIAdd(self.v - 3.0 * o.v)


class Base:
    def __init__(self, v):
        self.v = v

    def __mul__(self, o):
        return Base(self.v * o.v)


class Derived(Base):
    def __rmul__(self, o):  # a subclass's reflected method runs before the base's __mul__
        return Derived(self.v * o.v * 5.0)


class NotMine:
    def __init__(self, v):
        self.v = v

    def __add__(self, o):
        return NotImplemented


class Takes:
    def __init__(self, v):
        self.v = v

    def __radd__(self, o):  # reached after NotMine.__add__ says NotImplemented
        return Takes(o.v * self.v + 1.0)


def binary_ops(x, y):
    a, b = V(x), V(y)
    return (a + b).v + (a - b).v * 2.0 + (a * b).v * 3.0 + (a / b).v + (a ** b).v


def reflected_ops(x, y):
    a = V(x)
    return (2.0 * a).v + (y + a).v + (3.0 - a).v * y + (y / a).v + (1.5 ** a).v


class Boxed:
    def __init__(self, v):
        self.v = v

    def __float__(self):
        return self.v * 2.0


def unary_ops(x):
    a = V(x)
    return (-a).v + (+a).v + abs(V(-x)).v * x + float(Boxed(x)) * x


def inplace_ops(x, y):
    a = V(x)
    a += V(y)
    a *= V(y)
    a += y
    c = NoIAdd(x)
    d = c
    c -= NoIAdd(y)
    return a.v + c.v * 0.5 + d.v


def subclass_priority(x, y):
    return (Base(x) * Derived(y)).v


def notimplemented_fallback(x, y):
    return (NotMine(x) + Takes(y)).v


def comparisons(x, y):
    a, b = V(x), V(y)
    t = x * y
    if a < b:
        t = t + x
    if a == V(x):
        t = t * 2.0
    return t


def arrays_inside(x, w):
    a = V(x)
    b = V(w)
    c = (a @ b) * 2.0
    d = w * V(x)  # ndarray * V: NumPy defers (__array_ufunc__ = None) to V.__rmul__
    return np.sum(c.v) + np.sum(d.v)


@pytest.mark.parametrize("f, args", [
    (binary_ops, (1.3, 0.7)),
    (reflected_ops, (1.3, 0.7)),
    (unary_ops, (1.3,)),
    (inplace_ops, (1.3, 0.7)),
    (subclass_priority, (1.3, 0.7)),
    (notimplemented_fallback, (1.3, 0.7)),
    (comparisons, (1.3, 0.7)),
    (comparisons, (0.7, 1.3)),
    (arrays_inside, (np.array([0.5, -1.0, 2.0]), np.array([1.5, 0.3, -0.2]))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_operators_run_user_methods(f, args):
    check_all(f, *args)


def test_no_method_is_pythons_type_error():
    def f(x):
        return (NotMine(x) + NotMine(x)).v

    with pytest.raises(TypeError, match="unsupported operand"):
        mc.grad(f)(1.0)
    with pytest.raises(TypeError, match="unsupported operand"):
        mc.jvp(f, (1.0,), (1.0,))


# ------------------------------------------------------------------ containers: items and iteration


class Seq:
    def __init__(self, xs):
        self.xs = xs

    def __getitem__(self, i):
        return self.xs[i] * 2.0

    def __setitem__(self, i, v):
        self.xs[i] = v * v

    def __iter__(self):
        return iter(self.xs)

    def __len__(self):
        return len(self.xs)


class OldSeq:
    """Iterated through __getitem__ until IndexError (no __iter__)."""

    def __init__(self, xs):
        self.xs = xs

    def __getitem__(self, i):
        return self.xs[i] + 1.0


def items(x, y):
    s = Seq([x, y])
    s[1] = s[0] * y
    return s[0] * s[1] + s.xs[1]


def iterate(x, y):
    t = 0.0
    for v in Seq([x, y, x * y]):
        t = t * 2.0 + v
    a, b = Seq([x, y])
    return t + a * b


def iterate_old_protocol(x, y):
    t = 0.0
    for v in OldSeq([x, y]):
        t = t * 3.0 + v * v
    return t


def iterate_array(w):
    t = 0.0
    for row in Seq(w):
        t = t + np.sum(row * row)
    return t


@pytest.mark.parametrize("f, args", [
    (items, (1.3, 0.7)),
    (iterate, (1.3, 0.7)),
    (iterate_old_protocol, (1.3, 0.7)),
    (iterate_array, (np.array([[0.5, -1.0], [2.0, 0.3]]),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_items_and_iteration(f, args):
    check_all(f, *args)


# ------------------------------------------------------------------ properties


class Temp:
    def __init__(self, k):
        self._k = k
        self.log = 0.0

    @property
    def k(self):
        return self._k * 2.0

    @k.setter
    def k(self, v):
        self._k = v * v

    @k.deleter
    def k(self):
        self.log = self._k
        self._k = 1.0


def property_get_set(x):
    t = Temp(x)
    t.k = t.k * 3.0
    return t.k + t._k


def property_delete(x, y):
    t = Temp(x)
    t.k = y
    del t.k
    return t.log * x + t.k


class Plain:
    def __init__(self, x):
        self.x = x
        self.y = x * 2.0


def plain_attribute_delete(x, y):
    p = Plain(x)
    t = p.y * y
    del p.y
    p.y = x * 3.0
    return p.x * p.y + t


@pytest.mark.parametrize("f, args", [
    (property_get_set, (1.3,)),
    (property_delete, (1.3, 0.7)),
    (plain_attribute_delete, (1.3, 0.7)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_properties(f, args):
    check_all(f, *args)


# ------------------------------------------------------------------ layers with __call__


class Scale:
    def __init__(self, a):
        self.a = a

    def __call__(self, x):
        return self.a * x


class Dense:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return np.tanh(self.W @ x + self.b)


def run_layers(layers, x):
    for layer in layers:
        x = layer(x)
    return np.sum(x * x)


def test_layer_objects_are_data():
    rng = np.random.default_rng(0)
    W1, b1 = rng.normal(size=(3, 2)), rng.normal(size=3)
    W2, b2 = rng.normal(size=(2, 3)), rng.normal(size=2)
    x = rng.normal(size=2)
    layers = [Dense(W1, b1), Scale(0.7), Dense(W2, b2)]
    g_layers, g_x = mc.grad(run_layers, argnums=(0, 1))(layers, x)
    assert isinstance(g_layers, list) and len(g_layers) == 3
    assert all(isinstance(g, mc.Tangent) for g in g_layers)  # objects' gradients: fields by name

    def loss(W1_, b1_, a_, W2_, b2_, x_):
        return run_layers([Dense(W1_, b1_), Scale(a_), Dense(W2_, b2_)], x_)

    args = (W1, b1, 0.7, W2, b2, x)
    expect = [fd_grad(loss, args, i) for i in range(len(args))]
    np.testing.assert_allclose(g_layers[0].W, expect[0], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(g_layers[0].b, expect[1], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(g_layers[1].a, expect[2], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(g_layers[2].W, expect[3], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(g_layers[2].b, expect[4], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(g_x, expect[5], rtol=1e-5, atol=1e-7)
    check_all(loss, *args)
    # Forward mode with a tangent for the layer list (fields of the objects).
    dW1 = rng.normal(size=W1.shape)
    dlayers = [mc.MutableTangent({"W": dW1, "b": np.zeros(3)}), None, None]
    _, dy = mc.jvp(run_layers, (layers, x), (dlayers, None))
    np.testing.assert_allclose(dy, np.sum(expect[0] * dW1), rtol=1e-5, atol=1e-7)


def test_callable_object_gradient_has_its_fields():
    g = mc.grad(lambda_free_scale)(Scale(2.0), 3.0)
    assert g.a == pytest.approx(3.0)
    z = mc.grad(scale_unused)(Scale(2.0), 3.0)
    assert z.a == 0.0  # a field the result does not depend on: a zero, not NoTangent


def lambda_free_scale(s, x):
    return s(x)


def scale_unused(s, x):
    return x * x


# ------------------------------------------------------------------ dataclasses


@dataclasses.dataclass
class Params:
    a: float
    xs: list = dataclasses.field(default_factory=list)
    c: float = 0.5
    n: int = dataclasses.field(default=3, init=False)


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: float
    b: float = 2.0

    def scaled(self, k):
        return self.a * k + self.b


@dataclasses.dataclass
class Post:
    a: float
    scale: dataclasses.InitVar[float] = 1.0
    total: float = dataclasses.field(default=0.0, init=False)

    def __post_init__(self, scale):
        self.total = self.a * scale * scale


def dataclass_factory(x, y):
    p = Params(x)
    q = Params(y, c=x)
    p.xs.append(x * 2.0)
    q.xs.append(y)
    assert p.xs is not q.xs  # one factory call per object
    return p.a * p.xs[0] + q.c * q.xs[0] + p.c * p.n


def dataclass_frozen(x, y):
    f = Frozen(x)
    g = Frozen(a=y, b=x)
    return f.scaled(y) + g.scaled(x) * f.b


def dataclass_post_init(x, y):
    p = Post(x, y)
    q = Post(a=y)
    return p.total + q.total * x


@pytest.mark.parametrize("f, args", [
    (dataclass_factory, (1.3, 0.7)),
    (dataclass_frozen, (1.3, 0.7)),
    (dataclass_post_init, (1.3, 0.7)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_dataclasses(f, args):
    check_all(f, *args)


def iterate_vector(v):
    t = 0.0
    for e in Seq(v):
        t = t * 0.5 + e * e
    return t


def iterate_list_of_arrays(a, b):
    t = 0.0
    for row in Seq([a, b * 2.0]):
        t = t + np.sum(row * row)
    return t


@pytest.mark.parametrize("f, args", [
    (iterate_vector, (np.array([0.5, -1.0, 2.0]),)),
    (iterate_list_of_arrays, (np.array([0.5, -1.0]), np.array([2.0, 0.3]))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_iteration_of_arrays(f, args):
    check_all(f, *args)


class NoDefer:
    """Without `__array_ufunc__ = None`, NumPy applies the reflected method element by element."""

    def __init__(self, v):
        self.v = v

    def __rmul__(self, o):
        return NoDefer(o * self.v)


def array_times_object(w, x):
    return np.sum((w * NoDefer(x)).v)


def test_numpy_left_operand_without_deferral_is_refused():
    from mooncake_ast.errors import MooncakeError

    w = np.array([1.0, 2.0])
    with pytest.raises(MooncakeError, match="__array_ufunc__ = None"):
        mc.grad(array_times_object, argnums=1)(w, 0.5)
    with pytest.raises(MooncakeError, match="__array_ufunc__ = None"):
        mc.jvp(array_times_object, (w, 0.5), (None, 1.0))


# ------------------------------------------------------------------ objects reached every way a value can travel


def make_v(t):
    return V(t * 1.0)


GLOBAL_V = V(0.25)


def via_list(x, y):
    xs = []
    xs.append(V(x))
    xs += [V(y)]
    return (xs[0] * xs[1]).v


def via_dict_and_tuple(x, y):
    d = {"a": V(x)}
    pair = (d["a"], V(y))
    first, second = pair
    return (first - second).v * (d["a"] + 1.0).v


def via_factory_function(x, y):
    return (make_v(x) * make_v(y)).v


def via_branch(x, y):
    a = V(x) if x > 0.0 else V(-x)
    for _ in range(2):
        a = a * V(y)
    return a.v


def via_closure_and_global(x, y):
    w = V(y)

    def scaled(t):
        return (t * w + GLOBAL_V).v

    return scaled(V(x)) + (V(x) * GLOBAL_V).v


def via_argument_list(vs, x):
    return (vs[0] * vs[1]).v * x + (vs[1] - vs[0]).v


@pytest.mark.parametrize("f, args", [
    (via_list, (1.3, 0.7)),
    (via_dict_and_tuple, (1.3, 0.7)),
    (via_factory_function, (1.3, 0.7)),
    (via_branch, (1.3, 0.7)),
    (via_closure_and_global, (1.3, 0.7)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_objects_reached_every_way(f, args):
    check_all(f, *args)


def test_objects_inside_an_argument_list():
    vs = [V(1.3), V(0.7)]
    g_vs, g_x = mc.grad(via_argument_list, argnums=(0, 1))(vs, 0.5)
    # d/dv0 = 0.5 * 1.5 * v1 - 1 (the product runs V.__mul__ of vs[0]); d/dv1 = 0.5 * v0 + 1
    assert g_vs[0].v == pytest.approx(0.5 * 0.7 - 1.0)
    assert g_vs[1].v == pytest.approx(0.5 * 1.3 + 1.0)
    assert g_x == pytest.approx(1.3 * 0.7)
    check_derivatives(via_argument_list, vs, 0.5)
