"""User rules: never traced into, used in derived code, and registering one invalidates derivatives."""
import math

import numpy as np
import pytest

import mooncake_ast as mc


def softplus(x):
    return math.log1p(math.exp(x))


def uses_softplus(x):
    return softplus(2.0 * x) * x


def test_frule_and_rrule_are_used_instead_of_tracing():
    calls = {"f": 0, "r": 0}

    def stable(x):
        return softplus(x)

    @mc.frule(stable)
    def stable_jvp(primals, tangents):
        calls["f"] += 1
        (x,), (dx,) = primals, tangents
        return stable(x), dx / (1.0 + math.exp(-x))

    @mc.rrule(stable)
    def stable_vjp(x):
        calls["r"] += 1
        return stable(x), lambda g: (g / (1.0 + math.exp(-x)),)

    def f(x):
        return stable(x) * 3.0

    mc.testing.check_derivatives(f, 0.3)
    assert calls["f"] > 0 and calls["r"] > 0


def test_zero_derivative():
    def noisy(x):
        return x * 0.0 + 1.0

    def f(x):
        return noisy(x) * x

    mc.zero_derivative(noisy)
    assert mc.grad(f)(2.0) == 1.0
    assert mc.jvp(f, (2.0,), (1.0,))[1] == 1.0


def test_registering_a_rule_invalidates_derivatives_that_used_tracing():
    def inner(x):
        return x * x

    def outer(x):
        return inner(x) + 1.0

    assert mc.grad(outer)(3.0) == 6.0
    assert mc.jvp(outer, (3.0,), (1.0,))[1] == 6.0

    @mc.rrule(inner)
    def inner_vjp(x):
        return inner(x), lambda g: (10.0 * g,)  # deliberately not the true derivative

    @mc.frule(inner)
    def inner_jvp(primals, tangents):
        return inner(primals[0]), 10.0 * tangents[0]

    assert mc.grad(outer)(3.0) == 10.0
    assert mc.jvp(outer, (3.0,), (1.0,))[1] == 10.0


def test_forward_only_rule_is_an_error_in_reverse_mode():
    def g(x):
        return x

    @mc.frule(g)
    def g_jvp(primals, tangents):
        return primals[0], tangents[0]

    with pytest.raises(mc.MissingRuleError, match="forward rule only"):
        mc.grad(lambda x: g(x) * 2.0)(1.0)
