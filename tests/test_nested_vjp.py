"""mc.vjp called inside differentiated code (issue 10): forward mode over it, through `higher_traced.vjp_plain`
(the pullback is the gradient of <cotangent, f(x)>, so differentiable again).  It traced mooncake_ast's own
internals before (a GlobalWriteError about reverse/shadows.py).  Reverse mode over it is refused by name
(a first attempt counted the primals' adjoints several times: never a wrong number)."""
import numpy as np
import pytest

import mooncake_ast as mc

from tests import nested_vjp_cases as cases

X = np.array([0.3, -0.7, 1.1])


@pytest.mark.parametrize("f", cases.CASES, ids=lambda f: f.__name__)
def test_forward_mode_over_mc_vjp(f):
    mc.testing.check_derivatives(f, X.copy(), modes=("forward",))
    h = 1e-6
    fd = np.array([(f(X + h * e) - f(X - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(mc.jacfwd(f)(X.copy()), fd, rtol=1e-5, atol=1e-6)


def test_reverse_mode_over_mc_vjp_is_refused():
    with pytest.raises(mc.NestingError, match="mc.vjp"):
        mc.grad(cases.pullback_times_input)(X.copy())
