"""np.diff with differentiated prepend= / append= keywords in reverse mode (refused before: found by hunt13).

The rule returns the keywords' adjoints as a KwAdj, as np.trapezoid's does (rules/numpy_shapes._diff_vjp).
"""
import numpy as np
import pytest

import mooncake_ast as mc

def d1(x): return np.sum(np.diff(x, append=x[0]) ** 2)
def d2(x): return np.sum(np.diff(x, prepend=x[-1] * 2, append=x[:2] ** 2) ** 2)
def d3(x): return np.sum(np.diff(x, n=2, prepend=0.5, append=x[1]) ** 3)
def d4(X): return np.sum(np.diff(X, axis=0, append=X[:1] * 3) ** 2)
def d5(x): return np.sum(np.sin(np.diff(x, 1, -1, x[:1], x[-1:])))

X = np.array([0.3, -0.7, 1.1, 0.5])
CASES = [(d1, X), (d2, X), (d3, X), (d4, np.arange(6.0).reshape(2, 3) / 7), (d5, X)]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("f,x", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_diff_keywords(f, x, mode):
    mc.testing.check_derivatives(f, x.copy(), modes=(mode,))


@pytest.mark.parametrize("f", [d1, d2, d3, d5], ids=lambda f: f.__name__)
def test_diff_keywords_hessian(f):
    g, eps = mc.grad(f), 1e-5
    fd = np.array([(g(X + eps * e) - g(X - eps * e)) / (2 * eps) for e in np.eye(X.size)]).T
    np.testing.assert_allclose(mc.hessian(f)(X.copy()), fd, rtol=1e-5, atol=1e-6)
