"""Bound methods, partials and methodcallers kept as values and called more than once (reverse mode).

A call's pullback hands back the adjoint of the method's object and of a partial's bound arguments.  When one of
them is (or holds) an array that the call also reached another way (the object's field is the argument), that
adjoint is the array's storage itself.  Kept as values and summed across calls, where the method or partial was
made, those adjoints counted the storage twice (grad 4x+1 for 2x+1), and a field rebound between making the method
and calling it got the adjoint of the old field.  They now go into the objects' storage when each call is reversed
(reverse/runtime._self_adjoint, rules/python_callables._routed)."""
import functools
import operator

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

X = np.array([0.7, -1.3, 2.1])


class Lin:
    def __init__(self, w):
        self.w = w

    def lin(self, v):
        return np.sum(self.w * v)

    def scaled(self, v, s=1.0):
        return np.sum(np.sin(self.w) * v) * s


def kept_in_a_variable(x):
    f = Lin(x).lin
    return f(x) + f(2.0) + f(x * x)


def kept_in_a_list(x):
    m = Lin(x)
    calls = [m.lin, m.scaled]
    return sum(c(x) for c in calls) + calls[0](np.ones(3))


def kept_in_a_dict_three_calls(x):
    m = Lin(x)
    ops = {"a": m.lin, "b": m.scaled}
    return ops["a"](x) * ops["b"](x, 0.5) + ops["a"](m.w[::-1])


def field_rebound_after(x):
    m = Lin(x)
    f = m.lin
    a = f(x)
    m.w = x ** 2
    return a + f(np.ones(3)) + f(x)


def partial_of_the_method(x):
    m = Lin(x)
    p = functools.partial(m.scaled, s=2.0)
    return p(x) + p(np.cos(x))


def partial_binding_the_argument(x):
    p = functools.partial(Lin(x).scaled, x)
    return p(2.0) + p(x[0]) * p(1.0)


def partial_of_a_function_binding_an_object(x):
    def apply(m, v):
        return m.lin(v) * v[0]
    m = Lin(x)
    p = functools.partial(apply, m)
    return p(x) + p(m.w)


def methodcaller_twice(x):
    m = Lin(x)
    call = operator.methodcaller("scaled", x, 3.0)
    return call(m) + call(m) * x[1]


def handed_to_a_helper(x):
    def twice(g, v):
        return g(v) + g(g(v) * v)
    return twice(Lin(x).lin, x)


def method_of_a_row(x):
    W = np.outer(x, x) + np.eye(3)
    f = Lin(W).lin
    return np.sum(f(W[0])) + np.sum(f(np.ones(3))) + f(W[:, 1])


def methods_in_a_loop(x):
    models = [Lin(x), Lin(x * 2.0), Lin(x)]
    fs = [m.lin for m in models]
    s = 0.0
    for k in range(3):
        for f in fs:
            s = s + f(x) * 0.5 ** k
    return s


FAMILY = [kept_in_a_variable, kept_in_a_list, kept_in_a_dict_three_calls, field_rebound_after, partial_of_the_method,
          partial_binding_the_argument, partial_of_a_function_binding_an_object, methodcaller_twice, handed_to_a_helper,
          method_of_a_row, methods_in_a_loop]


@pytest.mark.parametrize("f", FAMILY, ids=lambda f: f.__name__)
def test_method_values_both_modes(f):
    check_derivatives(f, X.copy())


@pytest.mark.parametrize("f", [kept_in_a_variable, field_rebound_after, partial_binding_the_argument],
                         ids=lambda f: f.__name__)
def test_method_values_at_other_points(f):
    for x in (np.array([0.3, 0.2, -0.9]), np.array([1.5, -0.4, 0.05])):
        check_derivatives(f, x)


def test_the_argument_is_left_as_it_was_and_the_gradient_is_exact():
    # field_rebound_after: f(x) with w = x -> sum(x*x): 2x; f(ones) with w = x**2 -> 2x; f(x) with w = x**2 -> 3x**2
    x = X.copy()
    g = mc.grad(field_rebound_after)(x)
    np.testing.assert_array_equal(x, X)
    np.testing.assert_allclose(g, 4 * X + 3 * X ** 2, rtol=1e-12)


# The parts of a partial read back (`p.args`, `p.keywords`, `p.func`) and the object of a bound method
# (`m.lin.__self__`): the bound values got no adjoint in reverse mode, and `__self__` a zero tangent in forward mode.
def partial_args_read(x):
    p = functools.partial(np.multiply, x[0] * 2.0)
    return p.args[0] * x[1] + p(x[2])


def partial_keywords_read(x):
    def scale(v, s=1.0):
        return v * s
    p = functools.partial(scale, s=x[0] ** 2)
    return p.keywords["s"] * x[1] + p(x[2])


def partial_rebuilt_call(x):
    p = functools.partial(Lin(x).scaled, x, s=x[1])
    return p.func(*p.args, **p.keywords) + p.args[0][2] * p.keywords["s"]


def partial_parts_read_twice(x):
    def affine(v, a=1.0, b=0.0):
        return v * a + b
    p = functools.partial(affine, x, a=x[0] * x[1], b=np.sin(x))
    return np.sum(p()) + p.keywords["a"] * p.keywords["a"] + np.sum(p.keywords["b"] * p.args[0]) + p.args[0][1]


def bound_method_self(x):
    m = Lin(x)
    f = m.lin
    return np.sum(f.__self__.w * x) + f.__self__.lin(x[::-1])


@pytest.mark.parametrize("f", [partial_args_read, partial_keywords_read, partial_rebuilt_call,
                                       partial_parts_read_twice, bound_method_self],
                         ids=lambda f: f.__name__)
def test_parts_of_partials_and_methods(f):
    check_derivatives(f, X.copy())
