"""The exponent's term of d(a ** b), db * a**b * log(a), where db is a zero that is only a number.

log(a) is nan below 0.  A constant float exponent (`v ** 2.0`) has the symbolic zero as its tangent at first
order, but an outer derivative may make it a dense 0.0, and 0.0 * nan = nan spoilt third derivatives.  A
differentiated exponent at a negative base with an integer value (where a ** p is defined) has an undefined
partial derivative in p (nan is right there), but directions with dp == 0 must stay finite and right: the
log is computed as helpers.log_for_pow(a, db), finite where db == 0 (rules/helpers.py).
"""
import builtins
import math

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

X = np.array([0.3, -0.7, 1.1])
EPS = 1e-5


def _central(h, x, directions):
    """Central differences of h at x along each direction (stacked on a last axis)."""
    return np.stack([(np.asarray(h(x + EPS * d)) - np.asarray(h(x - EPS * d))) / (2 * EPS) for d in directions], -1)


class Lin:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return np.tanh(self.w * x)


def power_operator(x):
    return np.sum(Lin(x[0])(x) ** 2.0)


def power_numpy(x):
    return np.sum(np.power(Lin(x[0])(x), 2.0))


def power_float_power(x):
    return np.sum(np.float_power(Lin(x[0])(x), 2.0))


def power_math(x):
    return math.pow(math.tanh(x[0] * x[1]), 2.0) + math.pow(math.tanh(x[0] * x[2]), 3.0)


def power_builtin(x):
    return builtins.pow(math.tanh(x[0] * x[1]), 2.0) * x[2]


@pytest.mark.parametrize("f", [power_operator, power_numpy, power_float_power, power_math, power_builtin],
                         ids=lambda f: f.__name__)
def test_third_derivative_of_a_constant_float_power_of_negative_values(f):
    want = _central(mc.hessian(f), X, np.eye(3))
    T = mc.jacfwd(mc.hessian(f))(X)
    assert not np.isnan(T).any()  # (** 2.0: 18 of the 27 entries were nan)
    np.testing.assert_allclose(T, want, rtol=1e-5, atol=1e-5)


def test_other_nestings_of_a_constant_float_power():
    v = np.array([0.5, -1.0, 2.0])
    want = _central(mc.hessian(power_operator), X, np.eye(3)) @ v
    np.testing.assert_allclose(mc.jvp(mc.hessian(power_operator), (X,), (v,))[1], want, rtol=1e-5, atol=1e-5)
    # the gradient of v . (H v), H v computed as jvp of grad
    vhv = lambda x: mc.jvp(mc.grad(power_operator), (x,), (v,))[1] @ v  # noqa: E731
    np.testing.assert_allclose(mc.grad(vhv)(X), _central(vhv, X, np.eye(3)), rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- a differentiated exponent


def power_of_sines(z):  # z = (x0, x1, x2, p)
    return np.sum(np.sin(z[:3]) ** z[3])


def power_of_sines_numpy(z):
    return np.sum(np.power(np.sin(z[:3]), z[3] * 1.0))


POSITIVE = np.array([0.4, 1.1, 0.8, 1.7])
NEGATIVE = np.array([0.4, -1.1, 0.8, 2.0])  # sin(-1.1) < 0, p an integer value: defined, d/dp undefined there


@pytest.mark.parametrize("f", [power_of_sines, power_of_sines_numpy], ids=lambda f: f.__name__)
def test_differentiated_exponent_at_first_second_and_third_order(f):
    check_derivatives(f, POSITIVE)
    check_derivatives(mc.grad(f), POSITIVE)
    check_derivatives(mc.hessian(f), POSITIVE, modes=("forward",))  # (reverse over a Hessian: not supported)
    np.testing.assert_allclose(mc.jacfwd(mc.hessian(f))(POSITIVE), _central(mc.hessian(f), POSITIVE, np.eye(4)),
                               rtol=1e-5, atol=1e-5)


def test_differentiated_exponent_below_zero_along_the_base():
    f = power_of_sines
    along_x = np.eye(4)[:3]  # directions with dp == 0
    v = np.array([0.3, -0.5, 0.9, 0.0])
    g = mc.grad(f)(NEGATIVE)
    np.testing.assert_allclose(g[:3], _central(f, NEGATIVE, along_x), rtol=1e-6, atol=1e-8)
    assert np.isnan(g[3])  # d/dp below 0: undefined
    H = mc.hessian(f)(NEGATIVE)
    np.testing.assert_allclose(H[:3, :3], _central(mc.grad(f), NEGATIVE, along_x)[:3], rtol=1e-5, atol=1e-6)
    assert np.isnan(H[3, 1]) and np.isnan(H[3, 3])
    # x0, x2 > 0: d2/dp dx defined (grad's x0 and x2 entries do not read the negative base)
    np.testing.assert_allclose(H[[0, 2], 3], _central(lambda z: mc.grad(f)(z)[[0, 2]], NEGATIVE, [np.eye(4)[3]])[:, 0],
                               rtol=1e-5, atol=1e-6)
    T = mc.jacfwd(mc.hessian(f))(NEGATIVE)[:3, :3, :3]
    assert not np.isnan(T).any()
    np.testing.assert_allclose(T, _central(mc.hessian(f), NEGATIVE, along_x)[:3, :3], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mc.jvp(mc.hessian(f), (NEGATIVE,), (v,))[1][:3, :3],
                               _central(mc.hessian(f), NEGATIVE, [v])[:3, :3, 0], rtol=1e-5, atol=1e-5)
    # forward over forward along v, and first order with p a separate argument whose tangent is a dense 0.0
    jvp_along_v = lambda z: mc.jvp(f, (z,), (v,))[1]  # noqa: E731
    np.testing.assert_allclose(mc.jvp(jvp_along_v, (NEGATIVE,), (v,))[1], _central(jvp_along_v, NEGATIVE, [v])[0],
                               rtol=1e-6)
    two_args = lambda x, p: np.sum(np.sin(x) ** p)  # noqa: E731
    dx = np.array([0.3, -0.5, 0.9])
    _, dy = mc.jvp(two_args, (NEGATIVE[:3], 2.0), (dx, 0.0))
    np.testing.assert_allclose(dy, (two_args(NEGATIVE[:3] + EPS * dx, 2.0) - two_args(NEGATIVE[:3] - EPS * dx, 2.0))
                               / (2 * EPS), rtol=1e-6)
