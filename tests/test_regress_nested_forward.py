"""Regressions of forward mode over forward mode (issue 10), each found by scripts/random_nested.py and checked
against central differences of a first derivative that check_derivatives checks first."""
import numpy as np

import mooncake_ast as mc

X = np.array([-0.388, -0.264, -0.557])
T = np.array([-1.179, -0.743, 0.621])
V = np.array([0.3, 1.0, -0.4])


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _dir_fd(d1, x, v, h=1e-5):
    return (np.asarray(d1(x + h * v)) - np.asarray(d1(x - h * v))) / (2 * h)


def scale_item_by_another(a):
    a[2] = a[2] * a[0]
    return np.sum(a * a)


def writes_both_arguments(a, b):
    b[0] = b[0] * a[1]
    a[2] = a[2] * b[1]
    return np.sum(a * a) + np.sum(b * b)


def test_forward_over_forward_of_an_update_in_place():
    """jvp(jvp(f)) of a function that updates its argument in place was wrong (inplace seeds 6000058, 5000013): the
    jvp's tangent is a fresh copy whose outer tangent was the symbolic zero, and the forward code's in-place write of
    the tangent (`da[2] = ...`) into it was dropped."""
    f = scale_item_by_another
    mc.testing.check_derivatives(f, X.copy())

    def inner(x):
        return mc.jvp(f, (x,), (T,))[1]

    _close(mc.jvp(inner, (X.copy(),), (V,))[1], _dir_fd(inner, X, V))
    H = np.stack([_dir_fd(lambda z: mc.grad(f)(z.copy()), X, e) for e in np.eye(3)], axis=-1)
    _close(mc.jacfwd(mc.jacfwd(f))(X.copy()), H)


Y = np.array([0.3, 0.5, 0.9])


def tangent_of_first(x):
    return mc.jvp(writes_both_arguments, (x, Y.copy()), (T, None))[1]


def tangent_of_second(x):
    return mc.jvp(writes_both_arguments, (Y.copy(), x), (None, T))[1]


def test_forward_over_forward_with_a_zero_tangent_argument():
    """The same through an argument whose inner tangent is None (a symbolic zero made dense inside the plan); the
    inner functions are module-level (a closure took another path, which was right)."""
    mc.testing.check_derivatives(writes_both_arguments, X.copy(), Y.copy())
    for inner in (tangent_of_first, tangent_of_second):
        _close(mc.jvp(inner, (X.copy(),), (V,))[1], _dir_fd(inner, X, V))


def sgd_step_on_list(xs, lr):
    for i in range(len(xs)):
        g = 2.0 * xs[i] - 1.0
        xs[i] = xs[i] - lr * g
    return sum(v * v for v in xs)


def fresh_arguments():
    return ([0.3, -1.2, 0.8], 0.1)


def loss_of_rate(lr):
    a = fresh_arguments()
    return sgd_step_on_list(a[0], lr)


def tangent_of_loss(lr):
    return mc.jvp(loss_of_rate, (lr,), (1.0,))[1]


def test_forward_over_forward_of_a_list_read_from_a_tuple():
    """jvp(jvp(f)) was zero where f updates in place a list it read from a tuple without tangent storage (corpus
    mutation.list_setitem_update): the outer tangents of the list and of its tangent were symbolic zeros, and the
    forward code's writes into them were dropped.  fcall's forward rule gives them storage now."""
    mc.testing.check_derivatives(loss_of_rate, 0.1)
    h = 1e-5
    want = (tangent_of_loss(0.1 + h) - tangent_of_loss(0.1 - h)) / (2 * h)
    _close(mc.jvp(tangent_of_loss, (0.1,), (1.0,))[1], want)
    _close(mc.jacfwd(mc.jacfwd(loss_of_rate))(0.1), want)


XS = np.array([-1.0, 0.0, 0.5])
COEFFS = np.array([1.0, -0.5, 0.3, 0.2])


def polyval_at(coeffs, x):
    powers = np.arange(coeffs.shape[0])
    return np.sum((x[:, None] ** powers[None, :]) @ coeffs)


def polyval_in_x(x):
    return polyval_at(np.array([1.0, -0.5, 0.3, 0.2]), x)  # (not COEFFS: a third order over module state is refused)


def polyval_in_coeffs(c):
    return polyval_at(c, XS.copy())


def test_nested_integer_powers_at_zero():
    """Second derivatives of `x ** np.arange(n)` at x = 0 were nan (corpus numpy_funcs.polyval_vec): the
    derivative of pow_deriv, p * pow_deriv(base, p - 1), was 0 * inf where p == 0."""
    mc.testing.check_derivatives(polyval_in_x, XS.copy())
    g = lambda z: mc.grad(polyval_in_x)(z.copy())  # noqa: E731
    H = np.stack([_dir_fd(g, XS, e) for e in np.eye(3)], axis=-1)
    _close(mc.hessian(polyval_in_x)(XS.copy()), H)
    _close(mc.jacfwd(mc.jacfwd(polyval_in_x))(XS.copy()), H)
    assert np.all(mc.jacfwd(mc.jacfwd(polyval_in_coeffs))(COEFFS.copy()) == 0.0)


def array_of_its_float(x, a):
    v = np.sin(x + np.array([0.2, -0.4, 0.6]))
    return v + 0.1 * np.sum(v)


def ignores_its_array(a):
    return np.sum(np.array([0.1, 0.2, 0.3]) * array_of_its_float(0.552, a))


def constant_in_its_array(a):
    v = np.sin(0.5 + np.array([0.2, -0.4, 0.6]))
    return np.sum(v + 0.1 * np.sum(v))


def test_second_derivatives_where_the_argument_does_not_reach_the_result():
    """hessian(f) crashed where f calls a helper whose array result depends on a float it is given as a constant (the
    helper's forward code summed a symbolic zero tangent, whose adjoint had the wrong shape: randprog numpy seed
    3000100), and was refused (NonScalarOutputError) for a function whose result does not depend on its argument."""
    for f in (ignores_its_array, constant_in_its_array):
        mc.testing.check_derivatives(f, X.copy())
        H = np.stack([_dir_fd(lambda z: mc.grad(f)(z.copy()), X, e) for e in np.eye(3)], axis=-1)
        _close(mc.hessian(f)(X.copy()), H)
        _close(mc.jvp(mc.grad(f), (X.copy(),), (V,))[1], H @ V)
