"""A number's tangent left out (None) in code that writes through `b.flat[i]` or a view of an array made from that
number: mc.jvp(f, (x, a), (None, t)) gave 0.0 for 0.006 (w_flat) and jacfwd in `a` was zero.  The fast paths passed
NoTangent to forward code typed for a number's tangent, whose `db = ones * dx` was then NoTangent and dropped the
writes (api_fast.jvp_fast, higher._columns, and nested plans in api_rules._plan: jvp(jacrev(f)) was zero too)."""
import math

import numpy as np
import pytest

import mooncake_ast as mc

X0 = 0.37
A0 = np.array([0.3, -0.2, 0.5])
T = np.array([0.4, 1.0, -0.6])


def w_flat(x, a):
    b = np.ones(3) * x
    b.flat[1] = a[0] * a[2]
    return np.sum(b * b)


def w_view(x, a):
    b = np.ones(3) * x
    v = b[1:]
    v *= a[0]
    return np.sum(b * b)


def w_flat_loop(x, a):
    b = np.full((2, 2), x)
    for i in range(3):
        b.flat[i] = b.flat[i + 1] * a[i]
    return np.sum(np.sin(b))


def w_item(x, a):
    b = np.ones(3) * x
    b[1] = a[0] * a[2]
    return np.sum(b * b)


FUNCS = [w_flat, w_view, w_flat_loop, w_item]


@pytest.mark.parametrize("f", FUNCS)
def test_left_out_number_tangent_is_zero_not_dropped(f):
    want = mc.grad(f, argnums=1)(X0, A0.copy()) @ T
    fd = (f(X0, A0 + 1e-6 * T) - f(X0, A0 - 1e-6 * T)) / 2e-6
    np.testing.assert_allclose(want, fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(mc.jvp(f, (X0, A0.copy()), (None, T.copy()))[1], want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mc.jacfwd(f, argnums=1)(X0, A0.copy()) @ T, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f", FUNCS)
def test_left_out_number_tangent_nested(f):
    H = mc.hessian(f, argnums=1)(X0, A0.copy())
    np.testing.assert_allclose(mc.jvp(mc.jacrev(f, argnums=1), (X0, A0.copy()), (None, T.copy()))[1], H @ T,
                               rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(mc.jacfwd(mc.jacrev(f, argnums=1), argnums=1)(X0, A0.copy()), H, rtol=1e-8, atol=1e-10)
    g = mc.grad(f, argnums=1)
    fd = (g(X0, A0 + 1e-5 * T) - g(X0, A0 - 1e-5 * T)) / 2e-5
    np.testing.assert_allclose(H @ T, fd, rtol=1e-5, atol=1e-6)


def int_view(x, n):
    b = np.ones(3) * n
    v = b[1:]
    v *= x
    return np.sum(b * b)


def int_flat(x, n):
    b = np.full((2, 2), n)
    b = b * 1.0
    b.flat[1] = x * x
    return np.sum(b * b) * x


@pytest.mark.parametrize("f", [int_view, int_flat])
@pytest.mark.parametrize("n", [2, 3])
def test_an_int_argument_is_inactive_at_every_order(f, n):
    """An int argument (no tangent) reached code typed for a number's tangent as NoTangent: writes into an array made
    from it were dropped, mc.jvp and jacfwd gave 0.0 for 11.2, and mc.hessian 0.0 for 16.0 (int_view); it is inactive
    there now, as the general path makes it (api_fast, higher._columns, api_rules.plan_kinds)."""
    x = 0.7
    g = mc.grad(f)
    want1 = (f(x + 1e-6, n) - f(x - 1e-6, n)) / 2e-6
    np.testing.assert_allclose(g(x, n), want1, rtol=1e-6)
    np.testing.assert_allclose(mc.jvp(f, (x, n), (1.0, None))[1], g(x, n), rtol=1e-10)
    np.testing.assert_allclose(mc.jacfwd(f)(x, n), g(x, n), rtol=1e-10)
    want2 = (g(x + 1e-5, n) - g(x - 1e-5, n)) / 2e-5
    np.testing.assert_allclose(mc.hessian(f)(x, n), want2, rtol=1e-5)
    np.testing.assert_allclose(mc.grad(mc.grad(f))(x, n), want2, rtol=1e-5)
    np.testing.assert_allclose(mc.jvp(g, (x, n), (1.0, None))[1], want2, rtol=1e-5)
