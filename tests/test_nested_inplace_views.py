"""Forward mode over forward mode through views written in place (issue 10; random nested program `inplace`,
seed 8300000094).

`w = b[1:]; w *= 0.7; w[0] += a[0] * a[0]`: the forward code updates the view's tangent in place
(`dw = _mc.update(dw, dw * 0.7)`).  Differentiated again, nothing differentiated reaches that update (its
tangent's tangent is zero), and its rule returned a new symbolic zero for the result instead of the view's own
(zero) storage, so the later write `dw[0] = ...` went nowhere and the second derivative of `a[0] * a[0]` was lost:
a silently wrong jvp∘jvp, jacfwd∘jacfwd and jacrev∘jacfwd.  Each case is checked with check_derivatives on the
function `x -> jvp(f)(x)` (forward: jvp∘jvp, reverse: vjp∘jvp, both against finite differences), and its
jacfwd∘jacfwd and jacrev∘jacfwd against central differences of mc.grad.  (`list_grown_in_place`: the tangent kept
must take the new value's length, `xs += [v]`: an IndexError of the first fix, random nested containers 50000000038.)
"""
import numpy as np
import pytest

import mooncake_ast as mc

from tests import nested_view_cases as cases

X = np.array([0.3, -0.7, 1.1, 0.5])
T = np.array([0.5, -1.0, 2.0, 0.3])


def _hessian_fd(f, x, h=1e-5):
    g = mc.grad(f)
    cols = [(g(x + h * e) - g(x - h * e)) / (2 * h) for e in np.eye(x.size)]
    return np.stack(cols, axis=-1)


@pytest.mark.parametrize("f", cases.CASES, ids=lambda f: f.__name__)
def test_forward_over_forward_through_views_written_in_place(f):
    mc.testing.check_derivatives(f, X.copy())

    def tangent(x):
        return mc.jvp(f, (x,), (T,))[1]

    mc.testing.check_derivatives(tangent, X.copy())
    H = _hessian_fd(lambda x: f(x.copy()), X)
    for nested in (mc.jacfwd(mc.jacfwd(f)), mc.jacrev(mc.jacfwd(f))):
        np.testing.assert_allclose(nested(X.copy()), H, rtol=1e-5, atol=1e-6)
