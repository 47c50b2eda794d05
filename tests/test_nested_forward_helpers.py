"""Nested derivatives through what generated forward code calls at run time (rules/forward_code_rules.py).

`mc.hessian` and `mc.jvp(mc.grad(f))` differentiate f's generated forward code, so the helpers it
calls need rules: `np.array(x)` / `np.asarray(x)` become `array_tangent` / `asarray_tangent`, which
are linear in their tangent.  An in-place update of a slice's tangent (`_mc.update`) is differentiated
through its plain-Python twin (rules/nested_helpers.py).
"""
import numpy as np
import pytest

import mooncake_ast as mc

X = np.array([0.3, -0.7, 1.2])


def _hessian_by_differences(f, x, eps=1e-5):
    return np.array([(mc.grad(f)(x + eps * e) - mc.grad(f)(x - eps * e)) / (2 * eps) for e in np.eye(len(x))])


def through_np_array(x):
    y = np.array(x)
    return np.sum(y ** 3) + y[0] * y[2]


def through_np_asarray_of_a_list(x):
    y = np.asarray([x[0] * x[1], x[2] ** 2, x[1]])
    return np.sum(np.sin(y) * y)


def through_np_array_of_rows(x):
    m = np.array([x, x ** 2])
    return np.sum(m[0] * m[1]) + np.sum(m ** 3)


@pytest.mark.parametrize("f", [through_np_array, through_np_asarray_of_a_list, through_np_array_of_rows],
                         ids=lambda f: f.__name__)
def test_hessian_through_array_constructors(f):
    np.testing.assert_allclose(mc.hessian(f)(X), _hessian_by_differences(f, X), rtol=1e-6, atol=1e-6)
    v = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(mc.jvp(mc.grad(f), (X,), (v,))[1], _hessian_by_differences(f, X) @ v,
                               rtol=1e-6, atol=1e-6)


def slice_updated_in_place(x):
    y = x * 1.0
    y[1:] += y[:-1] * 0.5
    return np.sum(np.sin(y))


def test_in_place_slice_update():
    # (`_mc.update` writes into the slice's tangent: nested, through its twin in rules/nested_helpers.py)
    np.testing.assert_allclose(mc.hessian(slice_updated_in_place)(X), _hessian_by_differences(slice_updated_in_place, X),
                               rtol=1e-6, atol=1e-6)


def through_linear_helpers(x):
    # (forward code writes np.outer's and the transpose's tangents through helpers.linear / linear_right)
    m = np.outer(x, x)[:2]
    return np.sum(np.tanh(m @ x) ** 2) + np.sum(np.transpose(m) * 0.5)


def test_hessian_through_linear_helpers():
    f = through_linear_helpers
    np.testing.assert_allclose(mc.hessian(f)(X), _hessian_by_differences(f, X), rtol=1e-6, atol=1e-6)


class Model:
    def __init__(self, W):
        self.W = W

    def loss(self, x):
        return np.sum(np.tanh(self.W @ x) ** 2)


def test_hessian_of_a_method_with_respect_to_its_argument():
    # (the object is not differentiated: it keeps the symbolic zero tangent in the nested pass)
    m = Model(np.array([[0.3, -0.5, 0.2], [0.1, 0.4, -0.7]]))
    expected = _hessian_by_differences(lambda v: Model.loss(m, v), X)
    np.testing.assert_allclose(mc.hessian(Model.loss, argnums=1)(m, X), expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(mc.hessian(m.loss)(X), expected, rtol=1e-6, atol=1e-6)
    v = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(mc.jvp(mc.grad(Model.loss, argnums=1), (m, X), (None, v))[1], expected @ v,
                               rtol=1e-6, atol=1e-6)
