"""Second derivatives of realistic array code (regressions: each stopped on a refusal before).

Forward code read `s.max(axis=1, keepdims=True)` as a method dispatched when the code runs, and reverse mode over it
(a Hessian) refused array methods with keywords; forward mode now resolves methods of typed float arrays to NumPy
functions as reverse mode does (forward/transform._resolve_typed_methods), literal matrices are typed
(ir/op_types.literal_array), reverse-over-forward plans use forward mode's argument kinds, and draws given only
shapes (`rng.normal(size=(4, 3))`) are constants at every order (rules/api_rules._constant_call).
"""
import numpy as np
import pytest

import mooncake_ast as mc
from tests.realistic_second_order_cases import CASES, softmax_cross_entropy

X0 = np.array([0.3, -0.7, 1.1, 0.45])


def _hessian_by_differences(f, x, eps=1e-5):
    g = mc.grad(f)
    return np.array([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(len(x))])


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("how", ["hessian", "jacfwd_grad", "jacrev_grad"])
def test_second_derivatives_agree_with_differences_of_the_gradient(f, how):
    x = X0.copy()
    H = {"hessian": mc.hessian(f), "jacfwd_grad": mc.jacfwd(mc.grad(f)), "jacrev_grad": mc.jacrev(mc.grad(f))}[how](x)
    np.testing.assert_allclose(H, _hessian_by_differences(f, x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_first_derivatives_both_modes(f):
    mc.testing.check_derivatives(f, X0.copy())


def test_forward_code_calls_numpy_for_array_methods_with_keywords():
    mc.jvp(softmax_cross_entropy, (X0,), (np.ones(4),))
    source = mc.source(softmax_cross_entropy, "forward")
    assert "np.max(logits, axis=1, keepdims=True)" in source
    assert "_mc.fcall" not in source, source
