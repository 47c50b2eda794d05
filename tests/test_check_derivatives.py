"""check_derivatives catches what the transforms assume (issue 8: "check_derivatives must catch each of these").

Each test registers a deliberately wrong rule (mc.frule / mc.rrule) on a function of its own and asserts
that DerivativeCheckError names the check and the argument; the same functions with right rules pass."""
import math

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import DerivativeCheckError, check_derivatives


@pytest.fixture(autouse=True)
def _forget_the_rules_registered_here():
    """Rules registered on this file's functions leave the registry after each test (the registry is global:
    `mooncake-ast rules` and docs/rules.md list what is in it)."""
    from mooncake_ast.rules import registry

    before = set(registry._RULES)
    yield
    for key in set(registry._RULES) - before:
        del registry._RULES[key]
    registry.bump_version()


def _rules(fn, fwd, rev):
    """Register `fwd(x, y, dx, dy) -> dy_out` and `rev(x, y, g) -> (x_bar, y_bar)` for fn(x, y)."""
    @mc.frule(fn)
    def _f(primals, tangents):
        return fn(*primals), fwd(*primals, *tangents)

    @mc.rrule(fn)
    def _r(x, y):
        return fn(x, y), lambda g: rev(x, y, g)


def right_product(x, y):
    return x * y


def wrong_adjoint_of_y(x, y):
    return x * y


def test_right_rules_pass_in_both_modes():
    _rules(right_product, lambda x, y, dx, dy: dx * y + x * dy, lambda x, y, g: (g * y, g * x))
    report = check_derivatives(right_product, 0.7, -1.3)
    assert "finite differences" in str(report) and "reverse ok" in str(report)


def test_a_wrong_adjoint_is_named_by_argument():
    _rules(wrong_adjoint_of_y, lambda x, y, dx, dy: dx * y + x * dy, lambda x, y, g: (g * y, 1.5 * g * x))
    with pytest.raises(DerivativeCheckError, match=r"\[reverse vs forward\] argument 1 \(y\)"):
        check_derivatives(wrong_adjoint_of_y, 0.7, -1.3)
    with pytest.raises(DerivativeCheckError, match=r"argument 1 \(y\)"):
        check_derivatives(wrong_adjoint_of_y, 0.7, -1.3, modes=("reverse",))


def wrong_tangent_of_x(x, y):
    return x * y


def test_a_wrong_tangent_is_named_by_argument():
    _rules(wrong_tangent_of_x, lambda x, y, dx, dy: 2.0 * dx * y + x * dy, lambda x, y, g: (g * y, g * x))
    with pytest.raises(DerivativeCheckError, match=r"\[forward vs finite differences\] with a tangent in argument 0 "
                                                   r"\(x\) only"):
        check_derivatives(wrong_tangent_of_x, 0.7, -1.3, modes=("forward",))
    # Reverse alone: the right adjoint disagrees with the wrong forward rule, for x only.
    with pytest.raises(DerivativeCheckError, match=r"\[reverse vs forward\] argument 0 \(x\)"):
        check_derivatives(wrong_tangent_of_x, 0.7, -1.3, modes=("reverse",))


def hidden_in_a_large_term(x, y):
    return 1e6 * x + y


def test_a_bug_shared_by_both_modes_is_caught_by_finite_differences_per_argument():
    # Both rules agree (so reverse matches forward; the old check passed this) and are 10% off in y, which is lost in the tolerance of the
    # large x term along a random direction; per-number finite differences in reverse catch it.
    _rules(hidden_in_a_large_term, lambda x, y, dx, dy: 1e6 * dx + 1.1 * dy, lambda x, y, g: (1e6 * g, 1.1 * g))
    check_derivatives(hidden_in_a_large_term, 0.5, 0.25, modes=("forward",))  # the blind spot being covered
    with pytest.raises(DerivativeCheckError, match=r"\[reverse vs finite differences\] argument 1 \(y\): number 0"):
        check_derivatives(hidden_in_a_large_term, 0.5, 0.25)


def cancels_in_the_sum(x, y):
    return 1e5 * x + y


def test_an_error_in_one_argument_cannot_hide_in_the_dot_product_of_all():
    # The joint dot-product test over both arguments (the old check) passes this: 0.5 g y_dot is within the
    # tolerance of the 1e5 x term.
    _rules(cancels_in_the_sum, lambda x, y, dx, dy: 1e5 * dx + dy, lambda x, y, g: (1e5 * g, 1.5 * g))
    with pytest.raises(DerivativeCheckError, match=r"\[reverse vs forward\] argument 1 \(y\)"):
        check_derivatives(cancels_in_the_sum, 0.5, 0.25, fd_max=0)


def two_outputs(x, y):
    return 1e4 * x, x * y


def test_a_wrong_adjoint_of_one_output_is_named_by_output():  # the old check passed this
    @mc.frule(two_outputs)
    def _f(primals, tangents):
        (x, y), (dx, dy) = primals, tangents
        return two_outputs(x, y), (1e4 * dx, dx * y + x * dy)

    @mc.rrule(two_outputs)
    def _r(x, y):
        def pb(g):
            g0, g1 = g
            return 1e4 * g0 + 1.5 * g1 * y, g1 * x  # wrong: 1.5 on output 1's part of x
        return two_outputs(x, y), pb

    with pytest.raises(DerivativeCheckError, match=r"\[reverse vs forward\] argument 0 \(x\), output 1 of the result"):
        check_derivatives(two_outputs, 0.5, 0.25, fd_max=0)


def wrong_primal(x, y):
    return x * y


def test_the_primal_of_jvp_and_vjp_must_be_the_plain_call():
    @mc.frule(wrong_primal)
    def _f(primals, tangents):
        (x, y), (dx, dy) = primals, tangents
        return x * y + 1.0, dx * y + x * dy

    with pytest.raises(DerivativeCheckError, match=r"\[jvp primal\]"):
        check_derivatives(wrong_primal, 0.5, 0.25, modes=("forward",))

    @mc.rrule(wrong_primal)
    def _r(x, y):
        return x * y + 1.0, lambda g: (g * y, g * x)

    with pytest.raises(DerivativeCheckError, match=r"\[vjp primal\]"):
        check_derivatives(wrong_primal, 0.5, 0.25, modes=("reverse",))


def leaves_argument_changed(a, s):
    return np.sum(a) * s


def test_a_pullback_must_restore_the_arguments():
    @mc.frule(leaves_argument_changed)
    def _f(primals, tangents):
        (a, s), (da, ds) = primals, tangents
        return leaves_argument_changed(a, s), np.sum(da) * s + np.sum(a) * ds

    @mc.rrule(leaves_argument_changed)
    def _r(a, s):
        def pb(g):
            grads = (np.full(a.shape, g * s), g * np.sum(a))
            a[0] = 100.0  # a pullback must leave arguments as it found them
            return grads
        return leaves_argument_changed(a, s), pb

    with pytest.raises(DerivativeCheckError, match=r"\[pullback restores\] argument 0 \(a\)"):
        check_derivatives(leaves_argument_changed, np.array([1.0, 2.0]), 0.5)


def updates_its_result(a):
    u = a * 2.0
    u[1] += 1.0
    return 0.0, u


def test_the_result_and_arguments_after_the_pullback_are_checked(monkeypatch):
    # Issue 16 item 3: the pullback rolls back a returned array updated in place; vjp puts it back.
    check_derivatives(updates_its_result, np.array([0.3, 0.3, 0.1]))
    from mooncake_ast.reverse import shadows

    monkeypatch.setattr(shadows, "put_back", lambda post, ctx: None)  # without that, the check must fail
    with pytest.raises(DerivativeCheckError, match=r"\[result after the pullback\]"):
        check_derivatives(updates_its_result, np.array([0.3, 0.3, 0.1]))


def in_place(a, s):
    a *= s
    return np.sum(a)


def test_argument_state_after_the_pullback_is_checked(monkeypatch):
    check_derivatives(in_place, np.array([0.3, 0.5]), 2.0)
    from mooncake_ast.reverse import shadows

    monkeypatch.setattr(shadows, "put_back", lambda post, ctx: None)
    with pytest.raises(DerivativeCheckError, match=r"\[state after the pullback\] argument 0 \(a\)"):
        check_derivatives(in_place, np.array([0.3, 0.5]), 2.0)


def bad_structure(x, y):
    return x * y


def test_gradients_have_the_structure_of_their_argument():
    _rules(bad_structure, lambda x, y, dx, dy: dx * y + x * dy, lambda x, y, g: (g * y, np.array([g * x, 0.0])))
    with pytest.raises(DerivativeCheckError, match=r"\[gradient structure\] argument 1 \(y\) is a float"):
        check_derivatives(bad_structure, 0.5, 0.25)


def dot_self(a, b):
    return np.sum(a * b)


def wrong_when_aliased(a, b):
    return np.sum(a * b)


def test_aliased_arguments_are_one_input():
    a = np.array([1.0, -2.0, 0.5])
    report = check_derivatives(dot_self, a, a)
    assert "argument 0 (a) and argument 1 (b) (sharing objects)" in str(report)
    check_derivatives(dot_self, [a, 1.0][0], a)
    # A rule that is right for two arrays but double counts when they are one object.
    _rules(wrong_when_aliased, lambda a, b, da, db: np.sum(da * b + a * db),
           lambda a, b, g: (g * b * (2.0 if a is b else 1.0), g * a))
    check_derivatives(wrong_when_aliased, a, a.copy())
    with pytest.raises(DerivativeCheckError, match=r"argument 0 \(a\) and argument 1 \(b\) \(sharing objects\)"):
        check_derivatives(wrong_when_aliased, a, a)


def in_a_list_and_alone(xs, a):
    return np.sum(xs[0] * a) + xs[1] * np.sum(a)


def test_an_array_inside_a_list_and_passed_alone_is_counted_once():
    a = np.array([0.5, -1.0])
    check_derivatives(in_a_list_and_alone, [a, 2.0], a)
    gx, ga = mc.grad(in_a_list_and_alone, argnums=(0, 1))([a, 2.0], a)
    # d/da of sum(a*a) + 2 sum(a) = 2a + 2, reported for the one object in both places
    assert np.allclose(gx[0], 2 * a + 2.0) and np.allclose(ga, 2 * a + 2.0) and gx[1] == pytest.approx(np.sum(a))


def big(x):
    return np.sum(np.sin(x))


def test_finite_differences_in_reverse_only_for_small_inputs():
    assert "finite differences" in str(check_derivatives(big, np.linspace(0.0, 1.0, 5)))
    assert "finite differences" not in str(check_derivatives(big, np.linspace(0.0, 1.0, 25)))
    assert "finite differences" in str(check_derivatives(big, np.linspace(0.0, 1.0, 25), fd_max=30))


def keyword_scale(x, *, s):
    return math.sin(x) * s


def wrong_keyword_rule(x, *, s):
    return x * s


def test_keyword_arguments_are_checked_and_named():
    check_derivatives(keyword_scale, 0.4, s=1.5)

    @mc.frule(wrong_keyword_rule)
    def _f(primals, tangents, s):
        return wrong_keyword_rule(*primals, s=s), tangents[0] * s  # forgets the keyword's tangent

    with pytest.raises(DerivativeCheckError, match=r"with a tangent in keyword argument 's' only"):
        check_derivatives(wrong_keyword_rule, 0.4, s=1.5, modes=("forward",))
