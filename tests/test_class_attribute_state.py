"""Class attributes written by the class's own methods (classmethods, staticmethods, `type(self)`) are state
whose derivative both modes must keep: for a class defined inside the differentiated function (its tangent is
kept by the class's identity for the computation, forward/transform.py) and for a module-level class the
function resets first.  Forward mode gave a zero tangent for a local class's `cls.total = cls.total + v * v`
(silently wrong); each variant is checked against finite differences in both modes."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

A3 = np.array([0.4, -1.3, 2.1])


def local_classmethod(x, a):
    class C:
        total = 0.0

        @classmethod
        def add(cls, v):
            cls.total = cls.total + v * v
    C.add(x)
    C.add(a[0])
    return C.total


def local_classmethod_augmented_in_loop(x, a):
    class Acc:
        total = 1.0

        @classmethod
        def add(cls, v):
            cls.total *= 1.0 + v

    for i in range(3):
        Acc.add(a[i] * x)
    return Acc.total


def local_classmethod_nested(x, a):
    class C:
        total = 0.0

        @classmethod
        def add(cls, v):
            cls.total = cls.total + np.sin(v)

        @classmethod
        def add_twice(cls, v, w):
            cls.add(v)
            cls.add(v * w)
            return cls.total
    r = C.add_twice(x, a[1])
    return r * C.total + a[2]


def local_class_read_through_instance(x, a):
    class C:
        scale = 2.0

        @classmethod
        def set_scale(cls, v):
            cls.scale = v * 3.0

        def apply(self, t):
            return self.scale * t
    C.set_scale(x)
    c = C()
    return c.apply(a[0]) + c.scale * x


def local_staticmethod_and_classmethod(x, a):
    class C:
        total = 0.0

        @staticmethod
        def square(v):
            return v * v

        @classmethod
        def add(cls, v):
            cls.total = cls.total + cls.square(v)
    C.add(x)
    C.add(np.sum(a))
    return C.total


def local_classmethod_list_attribute(x, a):
    class Log:
        items = []

        @classmethod
        def record(cls, v, w):
            cls.items.append(v * w)
    Log.items = []
    for e in a:
        Log.record(e, x)
    return sum(Log.items)


def local_classmethod_array_attribute(x, a):
    class Buf:
        data = None

        @classmethod
        def fill(cls, v, w):
            cls.data = v * w
    Buf.fill(a, x)
    return np.sum(Buf.data ** 2)


def local_classmethod_two_classes(x, a):
    class P:
        w = 0.0

        @classmethod
        def put(cls, v):
            cls.w = cls.w + v

    class Q(P):
        pass
    P.put(x)
    Q.put(a[0] * x)   # writes Q.w (reads P.w through the base)
    return P.w * 2.0 + Q.w


class Counter:
    total = 0.0

    @classmethod
    def add(cls, v):
        cls.total = cls.total + v * v

    @staticmethod
    def half(v):
        return 0.5 * v

    @classmethod
    def add_half(cls, v):
        cls.add(cls.half(v))


def module_classmethod(x, a):
    Counter.total = 0.0
    Counter.add(x)
    Counter.add(a[0])
    return Counter.total


def module_classmethod_nested(x, a):
    Counter.total = 0.0
    Counter.add_half(x * a[1])
    Counter.add(a[2])
    return Counter.total * x


def module_classmethod_read_after(x, a):
    Counter.total = 0.0
    for e in a:
        Counter.add(e * x)
    c = Counter()
    return c.total + Counter.half(x)


CASES = [local_classmethod, local_classmethod_augmented_in_loop, local_classmethod_nested,
         local_class_read_through_instance, local_staticmethod_and_classmethod, local_classmethod_list_attribute,
         local_classmethod_array_attribute, local_classmethod_two_classes, module_classmethod,
         module_classmethod_nested, module_classmethod_read_after]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [0.7, -1.1])
def test_class_attribute_written_by_methods(f, x):
    check_derivatives(f, x, A3.copy())


def test_local_classmethod_forward_tangent_by_hand():
    # d/dx (x^2 + a0^2) = 2x; d/da0 = 2 a0
    _, dy = mc.jvp(local_classmethod, (0.7, A3.copy()), (1.0, np.zeros(3)))
    assert dy == pytest.approx(1.4)
    _, dy = mc.jvp(local_classmethod, (0.7, A3.copy()), (0.0, np.array([1.0, 0.0, 0.0])))
    assert dy == pytest.approx(0.8)


class Slotted:
    __slots__ = ("w",)
    bias = 0.5

    def __init__(self, w):
        self.w = w


class WithConstant:
    scale = 3.0

    def __init__(self, v):
        self.v = v

    def value(self):
        return self.scale * self.v


def slotted_and_class_constant(x, a):
    s = Slotted(x * a[0])
    return s.w * s.bias + s.w ** 2


def class_constant_read_through_self(x, a):
    c = WithConstant(x * a[1])
    return c.value() + c.scale * a[2]


@pytest.mark.parametrize("f", [slotted_and_class_constant, class_constant_read_through_self], ids=lambda f: f.__name__)
def test_class_constants_and_slots_read_through_instances(f):
    check_derivatives(f, 0.7, A3.copy())


def test_instance_argument_gradient_has_its_own_fields_only():
    # the class constant `scale` is no field of the instance: its gradient has the instance's own field
    g = mc.grad(lambda c: c.value())(WithConstant(1.5))
    assert g.v == pytest.approx(3.0)


HIGHER = {"hessian": mc.hessian, "jvp of grad": None, "jacrev of grad": lambda f: mc.jacrev(mc.grad(f)),
          "jacfwd of jacfwd": lambda f: mc.jacfwd(mc.jacfwd(f))}


@pytest.mark.parametrize("f", [local_classmethod, local_class_read_through_instance, module_classmethod,
                               module_classmethod_read_after], ids=lambda f: f.__name__)
@pytest.mark.parametrize("how", list(HIGHER))
def test_higher_order_through_class_attribute_writes_is_refused(f, how):
    # second derivatives through class attributes that methods write came out 0 (silently) or crashed (KeyError)
    with pytest.raises(mc.NestingError, match="class attribute"):
        if how == "jvp of grad":
            mc.jvp(mc.grad(f), (0.7, A3.copy()), (1.0, np.zeros(3)))
        else:
            HIGHER[how](f)(0.7, A3.copy())


class Stateless:
    scale = 2.0

    @classmethod
    def apply(cls, v):
        return cls.scale * v * v


def stateless_local_and_module_classes(x):
    class Local:
        k = 0.5

        @staticmethod
        def cube(v):
            return v * v * v
    return Local.cube(x) * Local.k + Stateless.apply(x)


def test_higher_order_through_classes_of_constants_still_works():
    # d2/dx2 [0.5 x^3 + 2 x^2] = 3x + 4
    assert mc.hessian(stateless_local_and_module_classes)(0.7) == pytest.approx(6.1)
    assert mc.jacfwd(mc.jacfwd(stateless_local_and_module_classes))(0.7) == pytest.approx(6.1)
    check_derivatives(stateless_local_and_module_classes, 0.7)
