"""Array default arguments at second and third order (issue 10), and the zero tangents of constant defaults.

An array default was refused ('call it with all its parameters given positionally'): it is state the function may
change between calls.  It is now passed to the nested call as a read-only copy (nested_calls.frozen_default): a
function that only reads it is differentiated, one that writes it (or a view of it) is refused by name.  A float
default's zero tangent reached forward code typed for a number as NoTangent, and a write through a view of an array
made from it was dropped: grad(grad(f)) was 0.0 for 1.44 (use_float_default_view)."""
import math

import numpy as np
import pytest

import mooncake_ast as mc
from nested_lifted_kit import check_second, check_third

POINTS = [(0.37, np.array([0.3, -0.2, 0.5])), (-0.8, np.array([1.1, 0.4, -0.7]))]

W = np.array([1.0, -2.0, 0.5])


def top_array_default(x, a, w=np.array([1.0, -2.0, 0.5])):
    return np.sum(np.sin(a * x) * w) + x * w[1]


def _weighted(p, w=np.array([0.5, 1.5, -1.0])):
    v = w[1:]  # (a view of the default, only read)
    return np.sum(np.tanh(p * w)) + np.dot(v, p[1:]) * p[0]


def helper_array_default(x, a):
    return _weighted(a * x) + _weighted(np.cos(a) * x * x)


def _scaled(p, scale=2.0, w=W):
    b = np.ones(3) * scale
    b[1:] *= p[:2] * w[:2]
    return np.sum(b * b) + math.sin(p[2] * scale)


def helper_keywords(x, a):
    return _scaled(a * x, scale=1.5) + _scaled(a + x, w=np.array([0.2, 0.3, 0.4]))


def helper_in_loop(x, a):
    t = 0.0
    for i in range(3):
        t = t + _scaled(a * (x + i))
    return t


def _float_default_view(p, scale=2.0):
    b = np.ones(3) * scale
    v = b[1:]
    v *= p
    return np.sum(b * b)


def use_float_default_view(x, a):
    return _float_default_view(x * a[0]) + x


FUNCS = [top_array_default, helper_array_default, helper_keywords, helper_in_loop, use_float_default_view]


@pytest.mark.parametrize("f", FUNCS)
@pytest.mark.parametrize("x,a", POINTS)
def test_defaults_second_order(f, x, a):
    check_second(f, x, a)


@pytest.mark.parametrize("f", [top_array_default, helper_array_default, use_float_default_view])
def test_defaults_third_order(f):
    x, a = POINTS[0]
    check_third(f, x, a)


def _writes_default(p, acc=np.zeros(3)):
    acc += p
    return np.sum(acc * p)


def writes_default(x, a):
    return _writes_default(a * x)


def _writes_default_view(p, acc=np.zeros(3)):
    v = acc[:2]
    v[0] = p[0]
    return np.sum(acc * p)


def writes_default_view(x, a):
    return _writes_default_view(a * x)


@pytest.mark.parametrize("f", [writes_default, writes_default_view])
def test_a_default_written_is_refused(f):
    x, a = POINTS[0]
    for nested in (lambda: mc.grad(mc.grad(f))(x, a.copy()), lambda: mc.hessian(f, argnums=1)(x, a.copy()),
                   lambda: mc.jvp(mc.grad(f), (x, a.copy()), (1.0, np.zeros(3)))):
        with pytest.raises(mc.NestingError, match="default"):
            nested()


# ---------------------------------------------------------------- closures over differentiated cells, with defaults


def closure_literal_defaults(x, a):
    k = x * 2.0

    def inner(s, m=2.0, v=np.array([1.0, 2.0, 3.0])):
        return np.sum(np.sin(s * k * v * m))

    return inner(x) + np.sum(a) * k


def closure_input_default(x, a):
    k = np.tanh(x)

    def inner(s, v=a * 1.5):
        return np.sum(np.sin(s * k * v)) + k * s

    return inner(x * x) + inner(a[0], a * a)


def closure_lambda_default(x, a):
    k = a * x
    g = lambda s, c=0.5: np.dot(k, k) * s * c + math.cos(s * c)  # noqa: E731
    return g(x) + g(a[1], 2.0)


def closure_in_loop(x, a):
    k = math.sin(x)

    def term(s, w=np.array([0.5, 1.0, 1.5]), p=2):
        return np.sum(w * s ** p) * k

    t = 0.0
    for i in range(3):
        t = t + term(a * (x + i))
    return t


def closure_reads_default_view(x, a):
    scale = x * x

    def inner(s, w=np.array([1.0, -1.0, 0.5, 2.0])):
        v = w[1:]
        return np.dot(v, s) * scale

    return inner(np.sin(a * x))


CLOSURES = [closure_literal_defaults, closure_input_default, closure_lambda_default, closure_in_loop,
            closure_reads_default_view]


@pytest.mark.parametrize("f", CLOSURES)
@pytest.mark.parametrize("x,a", POINTS)
def test_closure_with_cells_and_defaults_second_order(f, x, a):
    """A closure capturing differentiated cells that leaves parameters to its defaults was refused ('call it with all
    its parameters given positionally'): the defaults used are passed as arguments (their tangents the closure's
    tangent's), the cells as for a closure called positionally (nested_defaults.defaults_plan)."""
    check_second(f, x, a)


def closure_writes_default(x, a):
    k = x * 2.0

    def inner(s, acc=np.zeros(3)):
        acc[0] = s
        return np.sum(acc * k)

    return inner(x)


def test_closure_writing_its_default_is_refused():
    x, a = POINTS[0]
    with pytest.raises(mc.NestingError, match="default"):
        mc.grad(mc.grad(closure_writes_default))(x, a.copy())


def test_closure_with_defaults_third_order_stays_refused():
    """The third order through such a closure (its cells made by an enclosing derivative): refused by name."""
    x, a = POINTS[0]
    with pytest.raises(mc.NestingError):
        mc.grad(mc.grad(mc.grad(closure_literal_defaults)))(x, a.copy())
