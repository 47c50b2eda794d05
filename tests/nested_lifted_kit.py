"""Checks of second and third derivatives against central differences of the next-lower derivative, in every nesting
the API offers (tests/test_nested_lifted_*.py).

A function f(x, a) (x a float, a an array of 3) is checked at first order by check_derivatives, then:
grad(grad(f)) in x, hessian(f, argnums=1), jvp(grad(f, argnums=1)), jacfwd(jacrev(f, argnums=1), argnums=1) and
grad(x -> jvp(f)(x)) against differences of mc.grad; at the third order grad(grad(grad(f))), jvp(grad(grad(f))) and
jvp(jvp(jvp(f))) against differences of grad(grad(f)), itself checked above."""
import numpy as np

import mooncake_ast as mc

H = 1e-5
T = np.array([0.4, 1.0, -0.6])


def close(a, b):
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-5, atol=1e-6)


def fd_x(d, x, a):
    """Central differences in x of d(x, a)."""
    return (np.asarray(d(x + H, a.copy())) - np.asarray(d(x - H, a.copy()))) / (2 * H)


def fd_a(d, x, a, v):
    """Central differences of d(x, a) in a along v."""
    return (np.asarray(d(x, a + H * v)) - np.asarray(d(x, a - H * v))) / (2 * H)


def check_second(f, x, a, in_a=True):
    """Second derivatives of f(x, a) in every nesting, against differences of the gradient."""
    mc.testing.check_derivatives(f, x, a.copy())
    g0, g1 = mc.grad(f), mc.grad(f, argnums=1)
    want_xx = fd_x(g0, x, a)
    close(mc.grad(mc.grad(f))(x, a.copy()), want_xx)
    close(mc.jvp(g0, (x, a.copy()), (1.0, np.zeros_like(a)))[1], want_xx)
    close(mc.grad(lambda s: mc.jvp(f, (s, a.copy()), (1.0, np.zeros_like(a)))[1])(x), want_xx)
    if not in_a:
        return
    want = fd_a(g1, x, a, T)
    hess = mc.hessian(f, argnums=1)(x, a.copy())
    close(hess @ T, want)
    close(mc.jvp(g1, (x, a.copy()), (0.0, T.copy()))[1], want)
    close(mc.jacfwd(mc.jacrev(f, argnums=1), argnums=1)(x, a.copy()), hess)


def check_third(f, x, a):
    """Third derivatives in x of f(x, a) in three nestings, against differences of grad(grad(f)) (check_second first)."""
    gg = mc.grad(mc.grad(f))
    want = fd_x(gg, x, a)
    close(mc.grad(mc.grad(mc.grad(f)))(x, a.copy()), want)
    close(mc.jvp(gg, (x, a.copy()), (1.0, np.zeros_like(a)))[1], want)

    def first(s):
        return mc.jvp(lambda q: f(q, a.copy()), (s,), (1.0,))[1]

    def second(s):
        return mc.jvp(first, (s,), (1.0,))[1]

    close(mc.jvp(second, (x,), (1.0,))[1], want)
