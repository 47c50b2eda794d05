"""Derivatives taken at the very array the function holds (a captured variable, a field of its object, a default,
a module-level array, an item of a captured dict).

The derivative is with respect to the argument, what the function holds kept constant, as for any other value.
Reverse mode keeps array adjoints by identity, so the held read's adjoint landed in the argument's:
`mc.grad(f)(x)` with `f(y) = sum(sin(y) * x)` over that x gave cos(x) x + sin(x) for cos(x) x (forward mode and
finite differences of the argument give cos(x) x).  Such arguments are now handed over as copies (mooncake_ast/aliases.py); a function
that writes such an argument is refused, since the plain call would show the write through what it holds."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.errors import UnsupportedInputError

X = np.array([0.5, -1.2, 0.8])
DATA = np.array([0.3, 0.9, -0.4])


def closure_over(x):
    def f(y):
        return np.sum(np.sin(y) * x)
    return f, (lambda y: np.cos(y) * x), (lambda y: np.diag(-np.sin(y) * x))


class Quadratic:
    def __init__(self, W):
        self.W = W

    def loss(self, A):
        return np.sum(self.W * A ** 2)


class TanhSum:
    def __init__(self, w):
        self.params = {"w": w}

    def __call__(self, y):
        return np.sum(np.tanh(self.params["w"] * y))


def with_global(y):
    return np.sum(np.exp(y) * DATA)


def cases():
    x = X.copy()
    f, g, h = closure_over(x)
    yield "closure", f, x, g(x), h(x)
    m = Quadratic(x)
    yield "method", m.loss, x, 2 * x * x, np.diag(2 * x)
    obj = TanhSum(x)
    t = np.tanh(x * x)
    yield "callable_object", obj, x, (1 - t ** 2) * x, np.diag(-2 * t * (1 - t ** 2) * x ** 2)
    d = DATA
    yield "global", with_global, d, np.exp(d) * d, np.diag(np.exp(d) * d)

    def with_default(y, c=x):
        return np.sum(y ** 3 * c)
    yield "default", with_default, x, 3 * x ** 2 * x, np.diag(6 * x * x)


CASES = list(cases())


@pytest.mark.parametrize("name,f,x,grad,hess", CASES, ids=[c[0] for c in CASES])
def test_first_order_entry_points(name, f, x, grad, hess):
    before = x.copy()
    np.testing.assert_allclose(mc.grad(f)(x), grad, rtol=1e-12)
    np.testing.assert_allclose(mc.value_and_grad(f)(x)[1], grad, rtol=1e-12)
    np.testing.assert_allclose(mc.vjp(f, x)[1](1.0)[0], grad, rtol=1e-12)
    np.testing.assert_allclose(mc.jacrev(f)(x), grad, rtol=1e-12)
    np.testing.assert_allclose(mc.jacfwd(f)(x), grad, rtol=1e-12)
    np.testing.assert_allclose(mc.jvp(f, (x,), (np.ones(3),))[1], grad.sum(), rtol=1e-12)
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("name,f,x,grad,hess", CASES[:-1], ids=[c[0] for c in CASES[:-1]])  # (array defaults: nested, refused)
def test_second_order(name, f, x, grad, hess):
    np.testing.assert_allclose(mc.hessian(f)(x), hess, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mc.jvp(mc.grad(f), (x,), (np.ones(3),))[1], hess.sum(1), rtol=1e-10, atol=1e-12)


def value_times_inner_grad(x):
    v, g = mc.value_and_grad(lambda y: np.sum(y ** 3) * x[0])(x)
    return v * np.sum(g)


def test_inner_value_and_grad_at_a_captured_array():
    x = X.copy()
    by_hand = lambda z: 3 * z[0] ** 2 * np.sum(z ** 3) * np.sum(z ** 2)  # noqa: E731
    np.testing.assert_allclose(value_times_inner_grad(x), by_hand(x), rtol=1e-12)
    h = 1e-6
    fd = np.array([(by_hand(x + h * e) - by_hand(x - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(mc.grad(value_times_inner_grad)(x), fd, rtol=1e-6)


def test_writing_a_held_argument_is_refused():
    x = X.copy()

    def scale_in_place(y):
        y *= 2.0
        return np.sum(y * x)

    with pytest.raises(UnsupportedInputError, match="also holds"):
        mc.grad(scale_in_place)(x)
    np.testing.assert_array_equal(x, X)  # (the refused call wrote a copy only)
    np.testing.assert_allclose(mc.grad(scale_in_place)(x.copy()), 2 * x, rtol=1e-12)  # a copy: d/dy sum(2y * x)
