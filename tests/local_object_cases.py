"""Functions that make objects of their own classes and read, write and call them (reverse/local_objects.py):
the typed cases, and the near misses that must stay untyped (and right)."""
import dataclasses
import math

import numpy as np

from tests.corpus.closures_classes import LinearLayer as Layer  # (a layer of W, b; forward, l2)


@dataclasses.dataclass
class Body:
    x: float
    v: float
    mass: float = 1.0

    def kinetic(self):
        return 0.5 * self.mass * self.v ** 2

    def energy(self, k):
        return self.kinetic() + 0.5 * k * self.x ** 2


def spring(x0, v0, k, dt):
    b = Body(x0, v0, mass=2.0)
    for _ in range(12):
        b.v = b.v - dt * k * b.x / b.mass
        b.x = b.x + dt * b.v
    return b.energy(k)


class Account:
    """A plain class: `__init__` stores its parameters and a constant."""

    def __init__(self, balance, rate):
        self.balance = balance
        self.rate = rate
        self.years = 0

    def interest(self):
        return self.balance * self.rate

    def grown(self, n):
        return self.balance * (1.0 + self.rate) ** n


def compound(balance, rate):
    a = Account(balance, rate)
    while a.years < 5:
        a.balance = a.balance + a.interest()
        a.years = a.years + 1
    return a.grown(2) + math.log(a.balance)


def per_iteration(x, y):
    """A new object each iteration."""
    total = 0.0
    for k in range(4):
        b = Body(x * k, y + k)
        total = total + b.kinetic() * b.x
    return total


def default_field(x):
    b = Body(x, 2.0 * x)
    return b.mass * b.v + b.x


def int_field_becomes_float(x):
    """The constant 0 field later holds a float: the object keeps no type (and the derivative stays right)."""
    a = Account(x, 0.1)
    a.years = a.years + x
    return a.years * a.balance


def array_field(x, w):
    a = Account(w, x)  # (balance is an array: not typed, still right)
    a.balance = a.balance * a.rate
    return np.sum(a.interest())


class Mutating:
    def __init__(self, x):
        self.x = x

    def double(self):
        self.x = 2.0 * self.x
        return self.x


def method_writes(x):
    m = Mutating(x)
    y = m.double()
    return y * m.x + m.x


def escapes(x):
    b = Body(x, x * x)
    keep = [b]
    keep[0].v = 3.0 * keep[0].v
    return b.kinetic() + b.v


def helper_scales(body, s):
    body.x = body.x * s


def passed_to_function(x, s):
    b = Body(x, 1.0)
    helper_scales(b, s)
    return b.x * b.v


class WithProperty:
    def __init__(self, x):
        self.x = x

    @property
    def twice(self):
        return 2.0 * self.x


def property_read(x):
    w = WithProperty(x)
    return w.twice * w.x


class Child(Account):
    def interest(self):
        return 2.0 * self.balance * self.rate


def subclass(balance, rate):
    c = Child(balance, rate)
    return c.interest() + c.balance


class Slotted:
    __setattr__ = object.__setattr__

    def __init__(self, x):
        self.x = x


def own_setattr(x):
    s = Slotted(x)
    s.x = s.x * s.x
    return s.x


def bound_method_kept(x):
    b = Body(x, 2.0)
    f = b.kinetic
    b.v = x
    return f() + b.v


def layer_loss(W, b, x):
    layer = Layer(W, b)
    y = layer.forward(x)
    return np.sum(y ** 2) + 0.01 * layer.l2()


def field_and_parameter(W, b, x):
    """The same array read as a parameter and as a field."""
    layer = Layer(W, b)
    return np.sum(layer.W * W) + np.sum(layer.forward(x)) + np.sum(W @ layer.b)


def field_written_in_place(W, b, x):
    layer = Layer(W.copy(), b)
    layer.W[0, 0] = 2.0 * layer.b[0]
    layer.W *= 1.5
    return np.sum(layer.forward(x) * layer.W[0])


def parameter_written_after(W, b, x):
    W = W.copy()
    layer = Layer(W, b)
    y = layer.forward(x)
    W[1] = 0.0
    return np.sum(y) + np.sum(layer.W * layer.W)


def field_replaced(W, b, x):
    layer = Layer(W, b)
    layer.W = layer.W * 2.0 + 1.0
    layer.b = np.sin(layer.b)
    return np.sum(layer.forward(x)) + np.sum(layer.W)


def field_view(W, b, x):
    layer = Layer(W, b)
    row = layer.W[0]
    t = layer.W.T
    return np.sum(row * x) + np.sum(t @ b) + np.sum(layer.forward(x))


def two_bodies(x, y):
    a = Body(x, y)
    b = Body(y, x, mass=x)
    a.v = a.v * b.kinetic()
    b.x = a.energy(b.v) + b.x
    return a.kinetic() * b.x + b.mass


def same_argument_twice(x):
    b = Body(x, x)
    b.x = b.x * b.v
    return b.energy(x) + b.kinetic()


def method_twice_between_writes(x, k):
    b = Body(x, 0.5)
    e1 = b.energy(k)
    b.v = e1 * b.x
    e2 = b.energy(k)
    b.x = e2
    return b.energy(e1) + e2


def in_a_branch(x, y):
    b = Body(x, y)
    if x > 0.0:
        b.v = b.v * 3.0
    else:
        b.x = b.x - 1.0
    while b.x < 2.0:
        b.x = b.x + 0.5 * b.v * b.v + 0.1
    return b.kinetic() + b.x


class Counter:
    calls = 0
    def __init__(self, x, y):
        self.x = x
        self.y = y
    def energy(self, k):
        Counter.calls += 1
        return self.x * self.y * k
    def scale_into(self, arr):
        arr *= self.x
        return np.sum(arr)

def aug(x, y):
    c = Counter(x, y)
    c.x += 1.0
    c.y *= c.x
    return c.energy(2.0) + c.x

def scale_arg(x, w):
    c = Counter(x, 2.0)
    a = w.copy()
    s = c.scale_into(a)
    return s + np.sum(a * w) + c.x

def two_counters(x, y):
    a = Counter(x, y)
    b = Counter(y, x)
    b.x = a.energy(b.y)
    a.y = b.energy(a.x)
    return a.x * a.y + b.x * b.y

def float64_fields(x, w):
    c = Counter(np.sum(w) * x, x)
    c.x = c.x * np.float64(2.0)
    return c.energy(1.5)
