"""Squares of kinks (ir/smooth_squares.py) whose operand is a list or tuple held in a variable.

The rewrite made `v = list(x); np.linalg.norm(v) ** 2` a refusal ("of a list: give it an array"), though it was
right before it everywhere but at 0; the operand now goes through as_numeric_array (an array of the list, its
tangent and adjoint laid out as NumPy lays it out).  Right at every order, at the kink too.
"""
import numpy as np
import pytest

import mooncake_ast as mc


def norm_of_list_display(x):
    v = [x[0], x[1] * 2, x[2]]
    return np.linalg.norm(v) ** 2


def norm_of_list_by_name(x):
    v = list(x)
    return np.linalg.norm(v) ** 2 + np.abs(x[0]) ** 2


def hypot_of_tuple_items(x):
    t = tuple(x[:2] * 3.0)
    return np.hypot(t[0], t[1]) ** 2 * x[2]


def abs_of_list(x):
    v = [x[0] - x[1], x[2]]
    return np.sum(np.abs(v) ** 2)


def norm_of_complex_list(x):
    v = [x[0] * (1 + 2j), x[1] - 1j * x[2]]
    return np.linalg.norm(v) ** 2


FUNCTIONS = [norm_of_list_display, norm_of_list_by_name, hypot_of_tuple_items, abs_of_list, norm_of_complex_list]
X = np.array([0.3, -0.7, 1.1])


def _fd_hessian(f, x, eps=1e-5):
    g = mc.grad(f)
    return np.array([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(x.size)]).T


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_square_of_kink_of_list(f, mode):
    mc.testing.check_derivatives(f, X.copy(), modes=(mode,))


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_square_of_kink_of_list_hessian(f):
    np.testing.assert_allclose(mc.hessian(f)(X.copy()), _fd_hessian(f, X), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mc.jacfwd(mc.jacrev(f))(X.copy()), _fd_hessian(f, X), rtol=1e-5, atol=1e-6)


def test_hessian_at_the_kink():
    """|v|^2 is smooth: its Hessian at 0 is twice the identity (of the items' scales), not 0."""
    np.testing.assert_allclose(mc.hessian(norm_of_list_by_name)(np.zeros(3)), np.diag([4.0, 2.0, 2.0]))
    np.testing.assert_allclose(mc.hessian(norm_of_list_display)(np.zeros(3)), np.diag([2.0, 8.0, 2.0]))


def _ridge(w, X, y):
    r = X @ w - y
    return np.sum(r ** 2) + 0.1 * np.linalg.norm(w) ** 2


def test_square_of_norm_pullback_is_typed():
    """The rewrite's helpers are typed (ir/types.FLOAT_ELEMENTWISE): a ridge penalty's pullback keeps plain arithmetic,
    not the generic _mc.add_vjp / mul_vjp / sum_adjoint it fell back to when as_numeric_array had no type."""
    w, X, y = np.linspace(0.1, 1.0, 3), np.arange(12.0).reshape(4, 3) / 10, np.ones(4)
    mc.testing.check_derivatives(_ridge, w, X, y)
    mc.grad(_ridge)(w, X, y)
    src = "\n".join(line for line in mc.source(_ridge, "reverse").splitlines() if not line.startswith("# mooncake_ast-"))
    pullback = src[src.index("def _ridge__pullback"):src.index("def _ridge__forward_tape")]
    for generic in ("add_vjp", "mul_vjp", "sum_adjoint", "number_adjoint"):
        assert generic not in pullback, pullback
