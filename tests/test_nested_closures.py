"""Nested derivatives through closures over differentiated values (issue 10): a function that calls mc.grad /
mc.value_and_grad / mc.jvp of a closure capturing `k = 3 x`, differentiated again, in both modes
(rules/nested_closures.py, nested_cells.owned_cells); and third derivatives of code that hands a module-level array
to a class's constructor (rules/nested_calls._refuse_reverse_over_nested_state).

check_derivatives of such a function checks its forward mode (jvp over the inner derivative) against finite
differences and its reverse mode (grad over it) against forward mode and finite differences: second derivatives of
the closure, through its captured values too."""
import math

import numpy as np
import pytest

import mooncake_ast as mc

X0 = 0.37
A = np.array([0.3, -0.2, 0.5])
H = 1e-5


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _fd(d, x):
    return (np.asarray(d(x + H)) - np.asarray(d(x - H))) / (2 * H)


def grad_of_lambda(x):
    k = 3.0 * x
    return mc.grad(lambda s: math.sin(s * k))(x * x)


def value_and_grad_over_array(x):
    K = np.cos(x * A)
    v, g = mc.value_and_grad(lambda s: np.dot(s, K) ** 2)(A + x)
    return v + np.sum(g * A)


def grad_in_a_loop_with_rebinding(x):
    total = 0.0
    for i in range(3):
        k = x * (i + 1)
        total = total + mc.grad(lambda s: math.sin(s * k) * s)(x)
    k = k * k  # (rebound after the closures were made: their cell holds the last value)
    return total + k


def grad_through_a_captured_function(x):
    k = x * x

    def h(s):
        return math.cos(s * k)

    def f(s):
        return h(s) * s

    return mc.grad(f)(x + 1.0)


class Box:
    def __init__(self, k):
        self.k = k


def grad_two_arguments_of_an_object(x):
    box = Box(math.sin(x))
    a, b = mc.grad(lambda s, t: s * t * box.k + t * t, argnums=(0, 1))(x, 2.0 * x)
    return a * b


def jvp_of_lambda_over_array(x):
    K = x * A
    return mc.jvp(lambda s: np.sum(np.sin(s * K)), (A * x,), (A,))[1]


@pytest.mark.parametrize("f", [grad_of_lambda, value_and_grad_over_array, grad_in_a_loop_with_rebinding,
                               jvp_of_lambda_over_array])
def test_derivative_of_a_derivative_of_a_closure(f):
    """Was a NestingError ('captures values (closure variables or defaults)', 'a function whose captured variables are
    differentiated'): forward mode over mc.grad of the closure carries its captured values' tangents (ClosureTangent),
    reverse mode routes their adjoints into the cells the enclosing computation made and reads."""
    mc.testing.check_derivatives(f, X0)
    _close(mc.jacrev(f)(X0), _fd(f, X0))


def test_closure_over_a_captured_function_and_an_object():
    """The closure captures a function that captures k (reverse mode only: forward mode over it stays refused), or an
    object whose field is differentiated."""
    _close(mc.grad(grad_through_a_captured_function)(X0), _fd(grad_through_a_captured_function, X0))
    with pytest.raises(mc.NestingError):
        mc.jvp(grad_through_a_captured_function, (X0,), (1.0,))
    mc.testing.check_derivatives(grad_two_arguments_of_an_object, X0)


def test_closures_still_refused():
    """A third order through such a closure (the closure then belongs to an enclosing derivative's computation) and a
    closure capturing through a default stay NestingErrors, never a derivative missing the captured values' part."""
    with pytest.raises(mc.NestingError):
        mc.hessian(grad_of_lambda)(X0)
    with pytest.raises(mc.NestingError):
        mc.grad(mc.grad(grad_of_lambda))(X0)

    def through_default(x):
        k = 3.0 * x
        return mc.grad(lambda s, k=k: math.sin(s * k))(x)

    with pytest.raises(mc.NestingError):
        mc.grad(through_default)(X0)


# ---------------------------------------------------------------- closures made and called by the function


def calls_a_closure(x):
    k = math.sin(x)
    sq = lambda t: t * t * k + x * x  # noqa: E731
    return sq(x ** 2) + sq(0.5)


def closure_updates_a_list(x):
    acc = [0.0]

    def add(t):
        acc[0] = acc[0] + t * x

    for e in [x, 2.0 * x]:
        add(e)
    return acc[0] * x


def closure_over_an_int(x):
    n = 0
    while n < 2:
        n += 1

    def g(t):
        return t * n

    return g(x * x) * x


def closure_over_an_array(a):
    K = np.sqrt(1.0 + a * a)

    def g(t):
        return np.sum(t * K) + np.sum(np.sin(K))

    return g(a) * a[0]


@pytest.mark.parametrize("f,x", [(calls_a_closure, X0), (closure_updates_a_list, X0), (closure_over_an_int, X0),
                                 (closure_over_an_array, A)])
def test_second_derivatives_of_a_function_calling_its_closure(f, x):
    """Reverse mode over forward code that calls a closure over differentiated values was refused ('differentiating
    with respect to the variables the function captures'; randprog closures): the closure's tangent is taken along,
    the adjoints of both's cells read back by the code that made them (grad over jvp, jvp over grad, hessian); a
    closure over an int crashed there (its cell had no storage for the adjoint of the int's read)."""
    g = mc.grad(f)
    v = np.ones_like(x) if isinstance(x, np.ndarray) else 1.0
    want = (np.asarray(g(x + H * v)) - np.asarray(g(x - H * v))) / (2 * H)
    _close(mc.jvp(g, (x,), (v,))[1], want)
    _close(mc.grad(lambda z: np.sum(mc.jvp(f, (z,), (v,))[1]))(x), want)
    _close(np.asarray(mc.hessian(f)(x)) @ v if isinstance(x, np.ndarray) else mc.hessian(f)(x), want)


# ---------------------------------------------------------------- a module-level array handed to a constructor

W = np.array([0.5, -1.2, 0.8])
B = np.array([[1.0, 0.2, 0.0], [0.1, 0.7, -0.3], [0.0, 0.4, 1.1]])


class Model:
    def __init__(self, w, b):
        self.w = w
        self.b = b

    def energy(self, x):
        v = self.b @ (self.w * x)
        return np.sum(np.sin(v) * v) * x


def model_energy(x):
    return Model(W, B).energy(x)


class Holder:
    def __init__(self, w):
        self.w = w

    def bump(self, x):
        self.w[1] = self.w[1] + x * x


KEPT = np.array([0.1, 0.2, 0.3])


def writes_through_holder(x):
    KEPT[:] = np.array([0.1, 0.2, 0.3])
    h = Holder(KEPT)
    h.bump(x)
    return np.sum(np.sin(h.w) * x)


def test_third_derivatives_with_a_module_array_in_a_constructor():
    """`Model(W, B)` with module-level arrays: forward code keeps tangent storage of W and B (the object could write
    them), and reverse mode over its second forward order was refused ('keeps the derivative of module-level
    state'); the arrays are read-only meanwhile instead, and a write through an object holding one stays refused."""
    gg = mc.grad(mc.grad(model_energy))
    _close(gg(X0), _fd(mc.grad(model_energy), X0))
    third = _fd(gg, X0)
    _close(mc.grad(mc.grad(mc.grad(model_energy)))(X0), third)
    _close(mc.jvp(mc.hessian(model_energy), (X0,), (1.0,))[1], third)
    from mooncake_ast.forward.activity import GlobalWriteError

    with pytest.raises((mc.NestingError, GlobalWriteError)):  # (bump in line: the write to KEPT is seen as such)
        mc.grad(mc.grad(mc.grad(writes_through_holder)))(X0)
    assert KEPT.flags.writeable
