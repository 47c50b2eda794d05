"""The pullback of making a function reads no adjoint of its keyword defaults (or defaults) where they are an empty
display (a lambda or nested function without them: reverse/specialise.function_part_adjoint), and keeps reading
them where they are not; both modes checked against finite differences, and the plainer text checked."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives


def lambdas_in_map_and_sorted(xs, temp):
    scaled = list(map(lambda v: v / temp, xs))
    ordered = sorted(scaled, key=lambda v: -v)
    return sum(w * v for w, v in zip([3.0, 2.0, 1.0, 0.5], ordered))


def keyword_only_default_from_input(x, a):
    def f(t, *, scale=x * 2.0):
        return t * scale
    return f(a[0]) + f(a[1], scale=a[2])


def positional_default_from_input(x, a):
    g = lambda t, s=np.sin(x): t * s   # noqa: E731
    return g(a[0]) * g(a[1], a[2])


def nested_closure_without_defaults(x, a):
    def outer(t):
        def inner(u):
            return u * t + x
        return inner(t) + inner(a[2])
    return outer(x) * outer(a[0])


CASES = [lambdas_in_map_and_sorted, keyword_only_default_from_input, positional_default_from_input,
         nested_closure_without_defaults]


def _args(f, x):
    if f is lambdas_in_map_and_sorted:
        return ([0.3, 1.2, -0.5, 0.8 * x], x)
    return (x, np.array([0.4, -1.3, 2.1]))


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [0.7, -1.6])
def test_function_parts_both_modes(f, x):
    check_derivatives(f, *_args(f, x))


@pytest.mark.parametrize("f", [lambdas_in_map_and_sorted, nested_closure_without_defaults], ids=lambda f: f.__name__)
def test_no_adjoint_of_empty_keyword_defaults(f):
    mc.vjp(f, *_args(f, 0.7))
    text = mc.source(f, "reverse")
    pullback = text[text.index("__pullback("):]
    assert "'kwdefaults'" not in pullback


def test_keyword_defaults_with_a_derivative_keep_their_adjoint():
    # d/dx [a0 * 2x + a1 * a2] = 2 a0
    a = np.array([0.4, -1.3, 2.1])
    assert mc.grad(keyword_only_default_from_input)(0.7, a) == pytest.approx(0.8)
