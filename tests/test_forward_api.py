"""Forward mode through the public API: tangent structures, late binding, recursion, closures, views, mutation."""
import dataclasses
import math

import numpy as np
import pytest

import mooncake_ast as mc


def helper(x):
    return x * x


def uses_helper(x):
    return helper(x) + 1.0


def test_helper_redefined_after_first_derivative_is_seen():
    global helper
    assert mc.jvp(uses_helper, (3.0,), (1.0,)) == (10.0, 6.0)
    original = helper

    def helper(x):  # noqa: F811 - rebinding the module global on purpose
        return x * x * x

    try:
        globals()["helper"] = helper
        assert mc.jvp(uses_helper, (3.0,), (1.0,)) == (28.0, 27.0)
    finally:
        globals()["helper"] = original


def fact_like(x, n):
    return 1.0 if n == 0 else x * fact_like(x, n - 1)


def is_even_poly(x, n):
    return x if n == 0 else x * is_odd_poly(x, n - 1)


def is_odd_poly(x, n):
    return 1.0 + x if n == 0 else x * is_even_poly(x, n - 1)


def test_recursion_and_mutual_recursion():
    assert mc.jvp(fact_like, (2.0, 5), (1.0, None)) == pytest.approx((32.0, 80.0))
    mc.testing.check_derivatives(is_even_poly, 1.3, 4, modes=("forward",))


def test_tangent_of_none_is_zero_and_structures_are_kept():
    def f(d, xs, t):
        return {"a": d["w"] * xs[0], "b": [t[0] * 2.0, xs[1]]}

    y, dy = mc.jvp(f, ({"w": 2.0}, [3.0, 4.0], (5.0, 1)), ({"w": 1.0}, None, (0.5, None)))
    assert y == {"a": 6.0, "b": [10.0, 4.0]}
    assert dy == {"a": 3.0, "b": [1.0, 0.0]}


def test_arrays_and_int_arguments():
    def f(x, n):
        return np.sum(np.sin(x) ** n)

    x = np.linspace(0.1, 1.0, 5)
    y, dy = mc.jvp(f, (x, 2), (np.ones(5), None))
    assert dy == pytest.approx(np.sum(2 * np.sin(x) * np.cos(x)))


@dataclasses.dataclass
class Params:
    w: float
    b: float


class Model:
    def __init__(self, scale):
        self.scale = scale

    def __call__(self, x):
        return self.scale * x

    def energy(self, x):
        return self.scale * x * x


def test_objects_and_methods_and_callable_objects():
    def f(p, x):
        m = Model(p.w)
        return m(x) + m.energy(x) + p.b

    y, dy = mc.jvp(f, (Params(2.0, 1.0), 3.0), (None, 1.0))
    assert y == 2.0 * 3.0 + 2.0 * 9.0 + 1.0
    assert dy == 2.0 + 2.0 * 2.0 * 3.0
    mc.testing.check_derivatives(f, Params(2.0, 1.0), 3.0, modes=("forward",))


def test_closure_sees_tangent_of_captured_value():
    def f(x):
        k = 3.0 * x

        def inner(t):
            return t * k

        return inner(x)

    assert mc.jvp(f, (2.0,), (1.0,)) == (12.0, 12.0)


def test_write_through_view_reaches_base_tangent():
    def f(a, x):
        v = a[1:3]
        v[:] = x * v
        return a

    a = np.array([1.0, 2.0, 3.0, 4.0])
    y, dy = mc.jvp(f, (a.copy(), 2.0), (np.zeros(4), 1.0))
    assert np.allclose(y, [1.0, 4.0, 6.0, 4.0])
    assert np.allclose(dy, [0.0, 2.0, 3.0, 0.0])


def test_mutated_argument_state_matches_plain_call():
    def normalise(a):
        a /= np.sum(a)
        return float(a[0])

    mc.testing.check_derivatives(normalise, np.array([1.0, 2.0, 3.0]), modes=("forward",))


def test_keyword_arguments_to_user_functions():
    def scaled(x, scale=1.0, *, shift=0.0):
        return scale * x + shift

    def f(x, s):
        return scaled(x, scale=s, shift=x) + scaled(s, shift=2.0)

    mc.testing.check_derivatives(f, 1.5, 0.5, modes=("forward",))
    y, dy = mc.jvp(f, (1.5, 0.5), (0.0, 1.0))
    assert dy == pytest.approx(1.5 + 1.0)


def test_differentiate_wrapper_and_ir():
    @mc.differentiate
    def f(x):
        return math.exp(x) * 2.0

    assert f(0.0) == 2.0
    assert f.jvp((0.0,), (1.0,)) == (2.0, 2.0)
    text = f.ir()
    assert "L0:" in text and "return" in text
    assert "def f__jvp" in f.source("forward")
    path = f.source_path("forward")
    assert path is not None and open(path).read().endswith(f.source("forward").split("\n", 2)[2])


class History:
    def __init__(self, order):
        self.values = [0.0] * order  # tangent of [0.0] * int is zero, yet it is written later

    def push(self, v):
        self.values[1:] = self.values[:-1]
        self.values[0] = v
        return self.values[-1]


def test_writes_into_containers_created_with_zero_tangent_are_kept():
    def f(x, n):
        h = History(n)
        out = 0.0
        for k in range(4):
            out = out + h.push(x * (k + 1))
        return out

    mc.testing.check_derivatives(f, 0.7, 2, modes=("forward",))

    def g(x, n):
        buf = [0.0] * n
        grid = [[0.0] * 2 for _ in range(2)]
        buf[0] = x
        grid[1][0] = x * x
        pair = [buf, 1.0]
        pair[0][1] = 3.0 * x
        return buf[0] + buf[1] + grid[1][0]

    assert mc.jvp(g, (2.0, 3), (1.0, None)) == (2.0 + 6.0 + 4.0, 1.0 + 3.0 + 4.0)


def test_abs_of_numpy_scalar_and_unknown_callables_without_tangents():
    def f(y, p):
        rng = np.random.default_rng(0)
        noise = rng.random(3)  # no rule needed: nothing differentiable flows in
        return sum(abs(v - p[i]) for i, v in enumerate(y)) + float(noise.sum()) * 0.0

    mc.testing.check_derivatives(f, np.array([1.0, 2.0, 3.0]), np.array([0.5, 2.5, 2.0]), modes=("forward",))


def test_a_function_without_source_says_where_to_define_it():
    ns: dict = {}
    exec("def typed_in(x):\n    return x * x\n", ns)
    with pytest.raises(mc.MooncakeError, match=r"typed_in.*define it in a \.py file.*register one with"):
        mc.jvp(ns["typed_in"], (1.0,), (1.0,))
