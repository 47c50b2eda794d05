"""Operators of a user's value class whose result is used at once: `(p + q).norm2()`, `(2.0 * p - p * x).dot(-p)`.

Reverse mode puts a plain class's dunder methods and the methods called on its instances in line (reverse/inline.py).
Both calls were found in one round; once `p + q` was in line, the method call still named the `+` it had replaced as
`self`, and the reverse module could not be emitted ("cannot structure this control flow ... has no name"). A
method whose object is a call put in line in the same round now waits for the next round."""
import numpy as np
import pytest

from mooncake_ast.testing import check_derivatives

class V:
    def __init__(self, a, b):
        self.a = a; self.b = b
    def __add__(self, o):
        return V(self.a + o.a, self.b + o.b)
    def __sub__(self, o):
        return V(self.a - o.a, self.b - o.b)
    def __mul__(self, s):
        return V(self.a * s, self.b * s)
    __rmul__ = __mul__
    def __neg__(self):
        return V(-self.a, -self.b)
    def dot(self, o):
        return self.a * o.a + self.b * o.b
    def norm2(self):
        return self.dot(self)
    @property
    def sq(self):
        return self.a * self.a
def f1(x):
    return (V(x, 2.0) + V(3.0, x * x)).norm2()
def f2(x):
    p = V(x, 1.0)
    return (2.0 * p - p * x).dot(-p)
def f3(x):
    p = V(x, 1.0)
    for i in range(3):
        p = p + p * (0.1 * x)
    return p.norm2()
def f4(x):
    p = V(x, 1.0)
    q = (p + p).dot(p + V(1.0, x))
    return q + (p - p * 2.0).sq
def f5(x):
    ps = [V(x, 1.0), V(2.0, x)]
    s = ps[0] + ps[1]
    return s.norm2() + (ps[0] * x).sq
def f6(x):
    p = V(x, 2.0)
    q = p
    p = p + V(x, x)
    return p.dot(q) + q.sq
class A:
    def __init__(self, w):
        self.w = w
    def __call__(self, x):
        return self.w * x * x
    def __add__(self, o):
        return A(self.w + o.w)
def f7(x):
    m = A(x) + A(2.0)
    return m(x) + (A(3.0) + m)(1.5)
class W:
    def __init__(self, arr):
        self.arr = arr
    def __add__(self, o):
        return W(self.arr + o.arr)
    def __mul__(self, s):
        return W(self.arr * s)
    def total(self):
        return np.sum(self.arr ** 2)
def f8(a):
    w = W(a) + W(a * 2.0) * 0.5
    return (w * a[0]).total()


CASES = [f1, f2, f3, f4, f5, f6, f7]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_operator_results_used_at_once(fn):
    check_derivatives(fn, 0.7)


def test_operator_results_of_arrays():
    check_derivatives(f8, np.array([0.3, 0.9, 1.4]))


class Summable:
    """`sum(objects)` starts from 0: `0 + v` runs `v.__radd__(0)`, inside sum() in C."""

    def __init__(self, a, b):
        self.a = a
        self.b = b

    def __add__(self, o):
        if isinstance(o, (int, float)):
            return Summable(self.a + o, self.b + o)
        return Summable(self.a + o.a, self.b + o.b)

    def __radd__(self, o):
        return self.__add__(o)


def sum_of_objects(x):
    s = sum([Summable(x, 1.0), Summable(2.0, x * x)])
    return s.a * s.b


def sum_of_objects_with_start(x):
    s = sum([Summable(x, 1.0), Summable(2.0, x * x)], Summable(0.0, x))
    return s.a * s.b


def sum_of_dict_values(x):
    s = sum({"a": Summable(x, 1.0), "b": Summable(2.0, x * x)}.values())
    return s.a * s.b


@pytest.mark.parametrize("fn", [sum_of_objects, sum_of_objects_with_start, sum_of_dict_values], ids=lambda f: f.__name__)
def test_sum_of_objects(fn):
    """Forward mode added the objects' tangents with `+` (a TypeError); reverse mode was right."""
    check_derivatives(fn, 0.7)
