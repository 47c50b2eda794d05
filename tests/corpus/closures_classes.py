"""Closures, lambdas, higher-order functions, *args/**kwargs and classes."""
import dataclasses
import math

import numpy as np

from tests.corpus import Case


def closure_captures_input(x):
    """Nested def capturing a value computed from the input."""
    k = 3.0 * x

    def inner(t):
        return t * k + math.sin(t)

    return inner(x) + inner(2.0)


def closure_in_loop(x, n):
    """A closure called repeatedly in a loop."""
    decay = math.exp(-x)

    def step(v):
        return v * decay + x

    v = 1.0
    for _ in range(n):
        v = step(v)
    return v


def make_scaler(s):
    """Factory returning a closure that scales its argument."""
    def scale(v):
        return s * v
    return scale


def factory_closure(x, s):
    """Use a closure created by a module-level factory."""
    f = make_scaler(s * s)
    g = make_scaler(2.0)
    return f(x) + g(f(x)) ** 2


def apply(f, x, times=1):
    """Apply a function repeatedly (higher-order helper)."""
    for _ in range(times):
        x = f(x)
    return x


def higher_order_apply(x):
    """Pass lambdas and math functions to a higher-order helper."""
    a = apply(math.sin, x)
    b = apply(lambda t: 0.5 * t + 1.0, x, times=3)
    c = apply(make_scaler(x), 1.5)
    return a * b + c


def lambda_sort_and_map(xs, temp):
    """Lambdas used with map and a keyed sort (sort key fixed at the point)."""
    scaled = list(map(lambda v: v / temp, xs))
    ordered = sorted(scaled, key=lambda v: -v)
    return sum(w * v for w, v in zip([3.0, 2.0, 1.0, 0.5], ordered))


def varargs_sum(*values, power=2.0):
    """Sum of powers of arbitrarily many positional arguments."""
    return sum(v ** power for v in values)


def kwargs_model(x, **coeffs):
    """Polynomial whose coefficients come in as **kwargs."""
    return coeffs.get("c0", 0.0) + coeffs.get("c1", 0.0) * x + coeffs.get("c2", 0.0) * x * x


def star_call_forwarding(x, y, z):
    """Forward *args / **kwargs to helpers."""
    args = (x, y, z)
    opts = {"c0": y, "c1": z, "c2": 0.5}
    return varargs_sum(*args, power=3.0) + kwargs_model(x, **opts) + varargs_sum(x, y)


def keyword_defaults_helper(x, scale=1.0, shift=0.0, *, squash=True):
    """Helper with defaults and a keyword-only argument."""
    y = scale * x + shift
    return math.tanh(y) if squash else y


def call_with_keywords(x, y):
    """Call a helper with various keyword combinations."""
    a = keyword_defaults_helper(x)
    b = keyword_defaults_helper(x, shift=y)
    c = keyword_defaults_helper(y, scale=x, squash=False)
    return a + b * c


def nested_closures_counter(x):
    """Two levels of nesting with nonlocal state."""
    total = 0.0

    def outer(t):
        def inner(u):
            return u * t + x
        return inner(t) + inner(x)

    def add(v):
        nonlocal total
        total += v

    for k in range(3):
        add(outer(x + k))
    return total


def compose(f, g):
    """Return the composition f(g(x))."""
    return lambda t: f(g(t))


def composed_functions(x, a):
    """Compose closures and lambdas, including one capturing the input."""
    h = compose(math.exp, lambda t: -a * t * t)
    k = compose(h, make_scaler(x))
    return h(x) + k(0.5)


class Polynomial:
    """Polynomial with coefficient list stored on the instance."""

    def __init__(self, coeffs):
        self.coeffs = coeffs

    def __call__(self, x):
        acc = 0.0
        for c in reversed(self.coeffs):
            acc = acc * x + c
        return acc

    def derivative(self):
        return Polynomial([i * c for i, c in enumerate(self.coeffs)][1:])


def polynomial_class(x, c0, c1):
    """Evaluate a Polynomial object and its derivative."""
    p = Polynomial([c0, c1, 0.5, -0.2])
    dp = p.derivative()
    return p(x) + dp(x) ** 2


class LinearLayer:
    """Dense layer storing weight / bias arrays."""

    def __init__(self, W, b):
        self.W = W
        self.b = b

    def forward(self, x):
        return np.tanh(self.W @ x + self.b)

    def l2(self):
        return np.sum(self.W ** 2) + np.sum(self.b ** 2)


def linear_layer_loss(W, b, x):
    """Forward a LinearLayer object and add weight decay."""
    layer = LinearLayer(W, b)
    y = layer.forward(x)
    return np.sum(y ** 2) + 0.01 * layer.l2()


@dataclasses.dataclass
class Particle:
    """Simple particle state."""
    x: float
    v: float
    mass: float = 1.0

    def kinetic(self):
        return 0.5 * self.mass * self.v ** 2


def dataclass_particle(x0, v0, k, dt):
    """Integrate a dataclass particle on a spring, updating its attributes."""
    p = Particle(x0, v0, mass=2.0)
    for _ in range(20):
        p.v = p.v - dt * k * p.x / p.mass
        p.x = p.x + dt * p.v
    return p.kinetic() + 0.5 * k * p.x ** 2


class RunningStats:
    """Exponential moving average with a method that updates attributes."""

    def __init__(self, alpha):
        self.alpha = alpha
        self.mean = 0.0
        self.var = 1.0

    def update(self, value):
        delta = value - self.mean
        self.mean += self.alpha * delta
        self.var = (1.0 - self.alpha) * (self.var + self.alpha * delta * delta)


def running_stats_class(xs, alpha):
    """Feed a stream of floats into a RunningStats object."""
    rs = RunningStats(alpha)
    for x in xs:
        rs.update(x)
    return rs.mean + math.sqrt(rs.var)


@dataclasses.dataclass
class GaussianPrior:
    """Gaussian prior over an array of weights."""
    mu: np.ndarray
    log_std: float

    def log_prob(self, w):
        std = math.exp(self.log_std)
        z = (w - self.mu) / std
        return -0.5 * float(np.sum(z * z)) - w.size * self.log_std


def dataclass_prior(w, mu, log_std):
    """Evaluate a dataclass log-prior with array fields."""
    prior = GaussianPrior(mu, log_std)
    return prior.log_prob(w)


class Counter2D:
    """Class with a static method and a property."""

    def __init__(self, a, b):
        self.a = a
        self.b = b

    @property
    def norm(self):
        return math.sqrt(self.a ** 2 + self.b ** 2)

    @staticmethod
    def combine(u, v):
        return u * v + u

    def scaled(self, s):
        return Counter2D(self.a * s, self.b * s)


def property_and_staticmethod(a, b, s):
    """Use a property, a staticmethod and a method returning a new instance."""
    c = Counter2D(a, b).scaled(s)
    return Counter2D.combine(c.norm, a) + c.a


def recursive_closure(x, n):
    """A nested recursive function capturing the input."""
    def f(k):
        if k == 0:
            return x
        return math.sin(f(k - 1)) + 0.1 * x
    return f(n)


def lambdas_in_comprehension(x, n):
    """Build a list of lambdas with default-bound loop variables and sum them."""
    basis = [lambda t, k=k: math.cos(k * t) / (k + 1) for k in range(n)]
    return sum(f(x) for f in basis)


class Vec2:
    """A 2-vector value class with arithmetic operators (Python dispatches to these methods)."""

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __add__(self, o):
        return Vec2(self.x + o.x, self.y + o.y)

    def __sub__(self, o):
        return Vec2(self.x - o.x, self.y - o.y)

    def __mul__(self, k):
        return Vec2(self.x * k, self.y * k)

    __rmul__ = __mul__

    def __neg__(self):
        return Vec2(-self.x, -self.y)

    def __abs__(self):
        return math.sqrt(self.x ** 2 + self.y ** 2)

    def __iter__(self):
        return iter((self.x, self.y))


def vector_class_operators(px, py, vx, dt):
    """Integrate a point with operator-overloading vectors."""
    p = Vec2(px, py)
    v = Vec2(vx, 0.5)
    g = Vec2(0.0, -9.8)
    for _ in range(5):
        v = v + dt * g
        p += v * dt
    x, y = p
    return abs(p - Vec2(1.0, 0.0)) + x * y + (-v).y


class Affine:
    """A callable layer object (the layer/module pattern)."""

    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return np.tanh(self.W @ x + self.b)


def callable_layers(W1, W2, x):
    """Compose callable layer objects held in a list."""
    layers = [Affine(W1, np.zeros(3)), Affine(W2, np.ones(2) * 0.1)]
    for layer in layers:
        x = layer(x)
    return np.sum(x ** 2)


@dataclasses.dataclass
class History:
    """A dataclass with a default_factory field."""
    rate: float
    values: list = dataclasses.field(default_factory=list)

    def push(self, v):
        self.values.append(v * self.rate)


def dataclass_default_factory(rate, x):
    """Append to a dataclass list field created by default_factory."""
    h = History(rate)
    for k in range(3):
        h.push(x * k + rate)
    return sum(h.values) * h.values[-1]


CASES = [
    Case(closure_captures_input, lambda: (0.7,), tags=("closure", "nested_def")),
    Case(closure_in_loop, lambda: (0.4, 6), tags=("closure", "loop")),
    Case(factory_closure, lambda: (0.9, 1.1), tags=("closure", "factory")),
    Case(higher_order_apply, lambda: (0.6,), tags=("higher_order", "lambda", "closure", "kwargs", "defaults")),
    Case(lambda_sort_and_map, lambda: ([0.3, 1.2, -0.5, 0.8], 0.7), tags=("lambda", "map", "sorted", "higher_order")),
    Case(varargs_sum, lambda: (0.5, -1.2, 0.8), tags=("varargs", "generator", "defaults")),
    Case(varargs_sum, lambda: (0.5, 1.2), kwargs=lambda: {"power": 3.0}, tags=("varargs", "kwargs")),
    Case(kwargs_model, lambda: (1.3,), kwargs=lambda: {"c0": 0.2, "c1": -0.5, "c2": 0.7}, tags=("varkwargs", "kwargs")),
    Case(star_call_forwarding, lambda: (0.5, 1.1, -0.4), tags=("varargs", "varkwargs", "star_call", "helper")),
    Case(call_with_keywords, lambda: (0.4, 0.9), tags=("kwargs", "defaults", "kwonly", "ternary")),
    Case(nested_closures_counter, lambda: (0.35,), tags=("closure", "nonlocal", "nested_def", "loop")),
    Case(composed_functions, lambda: (0.8, 0.6), tags=("closure", "lambda", "higher_order")),
    Case(polynomial_class, lambda: (0.9, 0.3, -0.7), tags=("class", "call", "method", "reversed", "comprehension")),
    Case(linear_layer_loss, lambda: (np.random.default_rng(60).normal(size=(3, 4)) * 0.5, np.random.default_rng(61).normal(size=3) * 0.1,
                                     np.random.default_rng(62).normal(size=4)), tags=("class", "method", "numpy")),
    Case(dataclass_particle, lambda: (1.0, 0.2, 3.0, 0.05), tags=("class", "dataclass", "attribute", "loop", "mutation")),
    Case(running_stats_class, lambda: ([0.5, 1.3, -0.2, 0.9, 1.1], 0.3), tags=("class", "method", "attribute", "mutation", "loop")),
    Case(dataclass_prior, lambda: (np.random.default_rng(63).normal(size=5), np.random.default_rng(64).normal(size=5) * 0.2, 0.3),
         tags=("class", "dataclass", "numpy")),
    Case(property_and_staticmethod, lambda: (0.6, -0.8, 1.5), tags=("class", "property", "staticmethod")),
    Case(recursive_closure, lambda: (0.8, 5), tags=("closure", "recursion", "nested_def")),
    Case(lambdas_in_comprehension, lambda: (0.9, 5), tags=("lambda", "closure", "comprehension", "generator")),
    Case(vector_class_operators, lambda: (0.3, 1.2, 0.8, 0.1), tags=("class", "operators", "reflected", "inplace", "iter")),
    Case(callable_layers, lambda: (np.random.default_rng(65).normal(size=(3, 2)), np.random.default_rng(66).normal(size=(2, 3)),
                                   np.random.default_rng(67).normal(size=2)), tags=("class", "call", "numpy", "loop")),
    Case(dataclass_default_factory, lambda: (0.7, 1.3), tags=("class", "dataclass", "default_factory", "method")),
]
