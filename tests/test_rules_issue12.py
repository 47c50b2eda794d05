"""The rules added for issue 12's second round: their cases (tests/rule_cases_issue12.py) run through
test_rules.py's CASES; here, what a case table cannot say: refusals and the values that must match NumPy."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives


def test_ufunc_at_primal_matches_numpy_with_repeats():
    def f(a, b):
        a = a * 1.0
        np.multiply.at(a, [0, 0, 1], b)
        return a

    a, b = np.array([2.0, 3.0, 5.0]), np.array([1.5, 2.0, 4.0])
    y, dy = mc.jvp(f, (a, b), (np.zeros(3), np.array([1.0, 0.0, 0.0])))
    np.testing.assert_allclose(y, [6.0, 12.0, 5.0])
    np.testing.assert_allclose(dy, [4.0, 0.0, 0.0])  # d(2 * b0 * b1)/db0 = 2 * b1


def test_ufunc_at_refuses_complex_where_not_holomorphic():
    def f(a, b):
        a = a * 1.0
        np.maximum.at(a, [0], b)
        return a

    z = np.array([1.0 + 1.0j, 2.0])
    with pytest.raises(Exception, match="not holomorphic"):
        mc.jvp(f, (z, 0.5 + 0j), (np.ones(2, dtype=complex), 1.0 + 0j))


def test_complex_eigenvectors_refused_off_lapacks_phase_convention():
    """A block-diagonal Hermitian matrix: eigenvectors with a zero in the row LAPACK keeps real, so the
    phase convention cannot be followed; the values' derivative is still given."""
    a = np.zeros((3, 3), dtype=complex)
    a[:2, :2] = [[2.0, 1.0j], [-1.0j, 3.0]]
    a[2, 2] = 7.0
    da = np.ones((3, 3), dtype=complex)
    with pytest.raises(NotImplementedError, match="phase convention"):
        mc.jvp(lambda m: np.linalg.eigh(m)[1] * 2.0, (a,), (da,))
    _, dv = mc.jvp(lambda m: np.linalg.eigh(m)[1], (a,), (da,))  # returned as is: a tangent that refuses any use
    with pytest.raises(NotImplementedError, match="phase convention"):
        np.asarray(dv)
    w, dw = mc.jvp(lambda m: np.linalg.eigh(m)[0], (a,), (da,))
    assert np.all(np.isfinite(dw))


def test_frozen_distribution_parameters_refused_where_not_carried():
    st = pytest.importorskip("scipy.stats")

    def f(k, mu):
        return np.sum(st.poisson(mu).logpmf(k)) * mu

    k = np.array([1.0, 2.0])
    with pytest.raises(NotImplementedError, match="poisson.logpmf"):
        mc.jvp(f, (k, 2.5), (np.zeros(2), 1.0))
    with pytest.raises(NotImplementedError, match="poisson.logpmf"):
        mc.grad(f, argnums=1)(k, 2.5)
    # a shape parameter of a cdf-like method (by quadrature: scipy_special_params.py), through the frozen object too
    check_derivatives(lambda x, df: st.t(df).cdf(x), np.array([0.2, 0.4]), 3.0)
    # with the parameters constant, x's derivative is given
    assert mc.grad(lambda x: np.sum(st.t(3.0).cdf(x)))(np.array([0.2, 0.4])).shape == (2,)


def test_deque_in_both_modes():
    import collections

    from mooncake_ast.testing import check_derivatives

    def made_of(x):
        d = collections.deque([x, 2.0 * x])
        return d[0] * 3.0  # (a read of an item returns its adjoint to the deque's storage)

    def appended(x):
        d = collections.deque()
        d.append(x * 2.0)
        return d[0]

    for f in (made_of, appended):
        check_derivatives(f, 0.7)

    def queue_of_indices(x):
        q = collections.deque([0])
        s = 0.0
        while q:
            i = q.popleft()
            s = s + x[i] * x[i]
            if i + 1 < len(x):
                q.append(i + 1)
        return s

    x = np.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(mc.grad(queue_of_indices)(x), 2.0 * x)
