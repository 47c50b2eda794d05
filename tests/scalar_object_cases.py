"""Functions whose objects reverse/scalar_objects.py replaces by their fields, and ones it must leave as objects
(tests/test_scalar_objects.py).  Classes are module globals, as the pass requires."""
import dataclasses
import math

import numpy as np


class State:
    def __init__(self, x, v):
        self.x = x
        self.v = v


class Point:
    def __init__(self, x, y=2.0):
        self.x = x
        self.y = y
        self.w = 1.5  # (a constant field)


@dataclasses.dataclass
class Pair:
    a: float
    b: float = 0.25


class Box:
    def __init__(self, lo, hi):
        self.lo = lo
        self.hi = hi

    def width(self):
        return self.hi - self.lo


def oscillator(x0, v0, k):
    """A state object carried by a loop: the fields become two loop-carried floats."""
    s = State(x0, v0)
    for _ in range(6):
        s = State(s.x + 0.1 * s.v, s.v - 0.1 * k * s.x)
    return s.x * s.v + s.x


def branch_objects(x, y):
    """Objects made in either branch of an `if`, joined."""
    if x > 0.0:
        p = Point(x * y)
    else:
        p = Point(y, y=x)
    return p.x * p.y + p.w * p.x


def keyword_construction(x, y):
    """Keyword arguments, defaults and a dataclass."""
    p = Pair(b=y * x, a=math.sin(x))
    q = Pair(x)
    return p.a * p.b + q.a * q.b


def while_state(x, k):
    """A while loop carrying an object whose trips depend on the data."""
    s = State(x, 0.0)
    n = 0
    while s.x > 0.05 and n < 20:
        s = State(s.x * k, s.v + s.x)
        n += 1
    return s.v + s.x ** 2


def array_fields(a, b):
    """Fields that are arrays."""
    s = State(a, b)
    for _ in range(3):
        s = State(s.x * 0.5 + s.v, np.tanh(s.v))
    return np.sum(s.x * s.v)


def escapes_to_call(x, y):
    """An object handed to a function the pass cannot see into: stays an object."""
    s = State(x, y)
    t = _consume(s)
    return t + s.x


def _consume(s):
    return s.x * s.v + _fail_if_inline()


def _fail_if_inline():
    try:
        return 0.0
    finally:
        pass


def escapes_by_write(x, y):
    """A field written after construction: stays an object."""
    s = State(x, y)
    s.v = s.v * x
    return s.x + s.v


def escapes_by_return(x, y):
    """An object returned in a tuple with a number: stays an object, its number read."""
    s = State(x * y, y)
    pair = (s, s.x + s.v)
    return pair[1] * pair[0].x


def method_in_line(x, y):
    """A method put in line by inline.py reads fields only: then the object is its fields."""
    b = Box(x, x + y * y)
    for _ in range(3):
        b = Box(b.lo * 0.5, b.hi + b.width())
    return b.width() * b.lo


def identity_compared(x, y):
    """`is` on the object: stays an object."""
    s = State(x, y)
    t = s
    if t is s:
        return s.x * s.v
    return s.x


class Vec:
    """A value class with operators (Python dispatches `a + b` and `k * a` to these methods)."""

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __add__(self, o):
        return Vec(self.x + o.x, self.y + o.y)

    def __sub__(self, o):
        return Vec(self.x - o.x, self.y - o.y)

    def __mul__(self, k):
        return Vec(self.x * k, self.y * k)

    __rmul__ = __mul__

    def __truediv__(self, k):
        return Vec(self.x / k, self.y / k)

    def __neg__(self):
        return Vec(-self.x, -self.y)

    def __abs__(self):
        return math.sqrt(self.x * self.x + self.y * self.y)

    def __matmul__(self, o):
        return self.x * o.x + self.y * o.y

    def __iter__(self):
        return iter((self.x, self.y))


class Picky(Vec):
    """A subclass whose reflected addition Python calls before Vec.__add__."""

    def __radd__(self, o):
        return Picky(10.0 * (self.x + o.x), self.y + o.y)


class Guarded:
    """`__add__` that may return NotImplemented: Python then tries the other operand."""

    def __init__(self, x):
        self.x = x

    def __add__(self, o):
        if isinstance(o, Guarded):
            return Guarded(self.x + o.x)
        return NotImplemented

    def __radd__(self, o):
        return Guarded(2.0 * self.x + o)


class Counter:
    """`__iadd__` that changes the object itself."""

    def __init__(self, total):
        self.total = total

    def __iadd__(self, v):
        self.total = self.total + v * v
        return self


def projectile(px, py, vx, dt):
    """Operators of a value class in a loop, reflected `dt * g`, `+=`, unary minus, abs and unpacking."""
    p = Vec(px, py)
    v = Vec(vx, 0.5)
    g = Vec(0.0, -9.8)
    for _ in range(4):
        v = v + dt * g
        p += v * dt
    x, y = p
    return abs(p - Vec(1.0, 0.0)) + x * y + (-v).y + (p @ v) / 2.0 + (v / 4.0).x


def subclass_reflected(x, y):
    """Vec + Picky: Picky.__radd__ runs first (a subclass's reflected method), not Vec.__add__."""
    a = Vec(x, y)
    b = Picky(y, x)
    c = a + b
    return c.x * c.y


def guarded_add(x, y):
    """`g + 1.5` is Guarded.__add__ giving NotImplemented, then float has no way: `1.5 + g` is __radd__."""
    g = Guarded(x * y)
    h = 1.5 + g
    k = g + Guarded(y)
    return h.x * k.x


def inplace_method(x, y):
    """`c += v` with `__iadd__` of the class's own: it changes c."""
    c = Counter(x)
    for _ in range(3):
        c += y * x
    return c.total


def array_operand(a, x):
    """An array times an object is NumPy's elementwise product over an object array: never the class's method."""
    v = Vec(x, 2.0 * x)
    w = v * 3.0
    return float(np.sum(a * w.x)) + w.y


class Acc:
    def __init__(self):
        self.total = 0.0
        self.count = 0


def _feed(acc, value):
    acc.total += value
    acc.count += 1


def written_fields(xs, k):
    """Fields written in a loop by a helper put in line, a new field written then read."""
    acc = Acc()
    for x in xs:
        _feed(acc, x * k)
        if x > 0.0:
            acc.total = acc.total * 0.9
    acc.mean = acc.total / acc.count
    return acc.mean * acc.total + acc.count


def written_in_branch_only(x, y):
    """A field the constructor does not store, written on one path and read where the other may reach: stays."""
    s = State(x, y)
    if x > 0.0:
        s.extra = x * y
    else:
        s.extra = y
    if y > 5.0:
        s.extra2 = 1.0
    out = s.extra * s.x + s.v
    if y > 5.0:
        out = out + s.extra2 * x
    return out


def built_in_loop(x, y):
    """An object made and written in each trip of a loop."""
    out = 0.0
    for i in range(3):
        s = State(x * i, y)
        s.v = s.v + s.x * x
        s.x = math.sin(s.v)
        out = out + s.x * s.v
    return out


def written_then_escapes(x, y):
    """Written, then handed to a helper that is not put in line: stays an object."""
    s = State(x, y)
    s.v = s.v * x
    return _consume(s) + s.v


class Polar:
    def __init__(self, a, b):
        self.a = a
        self.b = b

    @property
    def norm(self):
        return math.sqrt(self.a ** 2 + self.b ** 2)

    @property
    def angle(self):
        return math.atan2(self.b, self.a)

    @angle.setter
    def angle(self, t):
        r = self.norm
        self.a = r * math.cos(t)
        self.b = r * math.sin(t)

    @staticmethod
    def combine(u, v):
        return u * v + u

    def scaled(self, s):
        return Polar(self.a * s, self.b * s)


def property_and_static(a, b, s):
    """A property read, a static method and a method returning a new instance: all in line, the object its
    fields."""
    c = Polar(a, b).scaled(s)
    return Polar.combine(c.norm, a) + c.a


def property_setter(a, b, t):
    """Writing a property with a setter runs the setter, not a field write."""
    c = Polar(a, b)
    c.angle = t * a
    return c.a * 2.0 + c.b + c.norm


ALL = [property_and_static, property_setter, written_fields, written_in_branch_only, built_in_loop, written_then_escapes, projectile, subclass_reflected, guarded_add, inplace_method, array_operand, oscillator, branch_objects, keyword_construction, while_state, array_fields, escapes_to_call,
       escapes_by_write, escapes_by_return, method_in_line, identity_compared]
