"""Loops whose variables rotate (`a, b = b, a * b`): on the latch edge a header phi takes the value of another
phi of the same header, so reverse mode must move every phi's adjoint before adding any to a source
(reverse/transform._transfer).  Added one after the other, `b, a = a * b, b` gave 0.936 for 1.2, silently;
found by scripts/audit_issue13.py through the Hessian of `a, b = b, a * b`, whose forward code rotates."""
import numpy as np
import pytest

import mooncake_ast as mc


def ident(v):
    return v


def rotate_two(x):
    a = x
    b = 2.0 * x
    for _ in range(2):
        b, a = a * b, b
    return a


def rotate_three(x):
    a, b, c = x, 2.0 * x, 3.0 * x
    for _ in range(2):
        a, b, c = b, c, a * b
    return a + b * c


def fibonacci_like(x):
    a, b = x, 1.0
    for _ in range(5):
        a, b = b, a + b * x
    return a * b


def two_chains(x):
    a, da, b, db = x, 1.0 * x, 2.0 * x, 2.0 * x
    for _ in range(2):
        t = a * b
        dt = da * b + a * db
        a, b, da, db = b, t, db, dt
    return da


def rotate_arrays(x):
    a = np.array([x, 1.0])
    b = np.array([2.0 * x, 1.0])
    for _ in range(2):
        b, a = a * b, b
    return np.sum(a)


def rotate_untyped(x, g):
    a = g(x)  # (a value of a call of an argument: the general, untyped path)
    b = 2.0 * g(x)
    for _ in range(2):
        b, a = a * b, b
    return a


@pytest.mark.parametrize("f", [rotate_two, rotate_three, fibonacci_like, two_chains, rotate_arrays])
def test_rotating_loop_variables(f):
    mc.testing.check_derivatives(f, 0.3)


def test_rotating_loop_variables_on_the_untyped_path():
    mc.testing.check_derivatives(rotate_untyped, 0.3, ident)
    assert mc.grad(rotate_untyped)(0.3, ident) == pytest.approx(4.0 * 0.3)  # a = 2 x^2 at the end


def test_second_derivative_of_a_rotation():
    def f(x):
        a, b = x, 2.0 * x
        for _ in range(2):
            a, b = b, a * b
        return a  # 2 x^2

    assert mc.hessian(f)(0.3) == pytest.approx(4.0)
    assert mc.grad(mc.grad(f))(0.3) == pytest.approx(4.0)
