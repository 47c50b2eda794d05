"""Forward mode specialised on float arrays' rank (kinds `arr:f:n`): what the typed transform leaves out.

Elements read from a float array are numbers, so writing one into an array slot needs no tangent
storage (`_mc.storage_of`), and a tangent that is new storage of the result's shape already needs
no `runtime.conform` copy.  Each case checks the derivatives against finite differences (both
modes), including the cases where the copy or the storage must stay: a value written in place
later whose operand's tangent is read again, an array kept in a list and then written to.
"""
import numpy as np

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives


def recurrence(x):
    y = np.zeros_like(x)
    y[0] = np.tanh(x[0])
    for i in range(1, x.shape[0]):
        y[i] = 0.5 * y[i - 1] + np.tanh(x[i])
    return np.sum(y * y)


def negated_then_written(x):
    t = 1.0 - x
    t[0] = 5.0
    u = -x
    u[1] = 2.0
    return t * x + u


def passed_through_then_written(x):
    u = np.exp(x)
    v = 1.0 + u  # u's tangent is new storage and u has no other use: v may take it
    v[0] = 3.0
    return v * x


def shared_operand_then_written(x):
    u = np.exp(x)
    v = 1.0 + u  # u is read again below: v's tangent must be a copy
    v[0] = 3.0
    return u + v


def operand_written_later(x):
    u = np.exp(x)
    v = 1.0 + u  # u is written below: v's tangent must not be u's
    u[0] = 3.0
    return u * v


def array_in_a_list_written_later(x):
    b = x * 2.0
    items = [np.sum(x), b]
    b[0] = 7.0  # the list holds b itself: its tangent must see the write
    return items[0] + np.sum(items[1] * x)


def logs_and_inverse_trig(x):
    return np.log(x) + np.log2(x) + np.log10(x) + np.log1p(x) + np.arctan(x) + np.arcsinh(x) + np.cbrt(x) \
        + np.arcsin(x / 4.0) + np.arccos(x / 4.0) + np.arctanh(x / 4.0)


def math_logs_and_inverse_trig(a):
    import math

    return math.log(a) + math.log2(a) + math.log10(a) + math.log1p(a) + math.atan(a) + math.asinh(a) \
        + math.asin(a / 4.0) + math.acos(a / 4.0) + math.atanh(a / 4.0) + math.acosh(a + 1.0)


X = np.array([0.3, -0.7, 1.1, 0.5, -0.2])
POS = np.array([0.3, 0.7, 1.1, 0.5, 2.0])


def test_typed_forward_derivatives():
    for f, x in [(recurrence, X), (negated_then_written, X), (passed_through_then_written, X),
                 (shared_operand_then_written, X), (operand_written_later, X), (array_in_a_list_written_later, X), (logs_and_inverse_trig, POS)]:
        check_derivatives(f, x)
        # the fast path (a repeated plain call) against central differences, along one direction
        d = np.linspace(-1.0, 1.0, x.size)
        for _ in range(2):
            y, dy = mc.jvp(f, (x,), (d,))
        fd = (f(x + 1e-6 * d) - f(x - 1e-6 * d)) / 2e-6
        np.testing.assert_allclose(dy, fd, rtol=1e-5, atol=1e-7)
    check_derivatives(math_logs_and_inverse_trig, 0.6)


def test_numbers_written_into_array_slots_need_no_storage():
    mc.jvp(recurrence, (X,), (np.ones_like(X),))
    mc.jvp(recurrence, (X,), (np.ones_like(X),))
    src = mc.source(recurrence, "forward")
    assert "storage_of" not in src and "conform" not in src
    mc.jvp(shared_operand_then_written, (X,), (np.ones_like(X),))
    assert "conform" in mc.source(shared_operand_then_written, "forward")  # (the copy stays where it is needed)


def writes_a_constant_argument(x, buf):
    buf[0] = x[0] * 2.0
    return np.sum(buf * x)


def uses_a_constant_matrix(w, A):
    return np.sum(np.tanh(A @ w) * w)


def calls_with_constants(x):
    return np.sum(_helper(x, np.linspace(0.5, 1.5, x.shape[0]), 2.0))


def _helper(a, c, k):
    return np.tanh(a * c) + k * a


def test_zero_tangent_arguments_get_no_tangent_code():
    """fast_forward_rule(..., zero=...): arguments passed with the NoTangent zero (kind `...:inactive`) have no
    tangent code, and one written with active data gets storage of its own at the entry."""
    from mooncake_ast.forward.runtime import fast_forward_rule
    from mooncake_ast.tangents import NoTangent

    A = np.linspace(-1.0, 1.0, 25).reshape(5, 5)
    w = X
    d = np.linspace(-1.0, 1.0, 5)
    for f, args in [(writes_a_constant_argument, (X, np.ones(5))), (uses_a_constant_matrix, (w, A))]:
        rule = fast_forward_rule(f, args, (False, True))
        y, dy = rule.call_bound(f, NoTangent, tuple(a.copy() for a in args), (d, NoTangent))
        fd = (f(args[0] + 1e-6 * d, args[1].copy()) - f(args[0] - 1e-6 * d, args[1].copy())) / 2e-6
        np.testing.assert_allclose(dy, fd, rtol=1e-6, atol=1e-8)
        assert "dA @" not in mc.source(f, "forward") and "@ dA" not in mc.source(f, "forward")
    check_derivatives(calls_with_constants, X)  # (the helper's number argument: a NoTangent, so inactive)
