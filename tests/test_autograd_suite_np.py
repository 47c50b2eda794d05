"""A lean family of autograd's derivative tests rewritten as plain NumPy/SciPy (the full audit is
scripts/autograd_suite_audit.py): one case per rule added or fixed while closing that gap, each
checked against finite differences in both modes, and the refusals that stand in for derivatives
that do not exist."""
import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

r = np.random.RandomState(7)
x5, x23, x234 = r.randn(5), r.randn(2, 3), r.randn(2, 3, 4)


# ---------------------------------------------------------------- NumPy
def cross_axes(a, b):
    return np.cross(a, b, axisa=0, axisb=1, axisc=0)


def cross_axis(a, b):
    return np.cross(a, b, axis=0)


def eig_stack(x):
    w, v = np.linalg.eig(x)
    return np.abs(w), np.abs(v)


def eigvals_stack(x):
    return np.abs(np.linalg.eigvals(x))


def pinv_fixed_rank(x):
    return np.linalg.pinv(x.T @ x)  # 4x4 of rank 3: every perturbation of x keeps the rank


def divmod_both(x, y):
    q, m = np.divmod(x, y)
    return m * 2.0 + q


def ldexp_around(x):
    return np.ldexp(x, np.array([1, 2, 3])) + np.around(x, 1) * x


def resize_both(x):
    return np.sum(np.resize(x, 7)) + np.resize(x, (2, 2))


def ediff_ends(x, b):
    return np.ediff1d(x, to_begin=b, to_end=[1.0])


def choose_wrap(x, y):
    return np.choose(np.array([[0, 3], [1, 2]]), (x, y, x * y, 2.0), mode="wrap")


def place_values(x, v):
    y = x * 1.0
    np.place(y, np.array([True, False, True, True, False]), v)
    return y * x


def piecewise_three(x, c):
    return np.piecewise(x, [x < 0, x > -0.3], [lambda v: c * v ** 2, lambda v: np.sin(v) * c, 1.5])


def slice_stats(v, c):
    return np.array([np.sum(v * c), np.prod(v)])


def along_axis(x, c):
    return np.apply_along_axis(slice_stats, 0, x, c)


def branchy(v):
    return v ** 2 + np.sin(v) if v > 0 else 3.0 * v


def vectorized(x, y):
    return np.vectorize(branchy)(x) * np.vectorize(lambda a, b: a * b)(x, y)


def sign_complex(z):
    return np.sign(z)


def comparisons(x, y):
    return np.sum(x <= y) + np.sum(x != y) * x


NUMPY_CASES = [
    (cross_axes, (r.randn(3, 2), r.randn(2, 3))),
    (cross_axis, (r.randn(3, 2), r.randn(3, 2))),
    (eig_stack, (r.randn(2, 3, 3),)),
    (eigvals_stack, (r.randn(2, 3, 3),)),
    (pinv_fixed_rank, (r.randn(3, 4),)),
    (divmod_both, (r.rand(3, 2) * 3, r.rand(2) + 0.5)),
    (ldexp_around, (r.randn(3),)),
    (resize_both, (r.randn(3),)),
    (ediff_ends, (r.randn(2, 3), r.randn(2))),
    (choose_wrap, (r.randn(2, 2), r.randn(2))),
    (place_values, (r.randn(5), r.randn(2))),
    (piecewise_three, (r.randn(6), 1.3)),
    (along_axis, (r.randn(3, 2, 2), 0.7)),
    (vectorized, (r.randn(4), r.randn(4))),
    (comparisons, (np.array([0.3, -1.2]), np.array([0.5, -1.5]))),
]


@pytest.mark.parametrize("f, args", NUMPY_CASES, ids=[f.__name__ for f, _ in NUMPY_CASES])
def test_numpy_rule(f, args):
    check_derivatives(f, *args)


def test_sign_of_complex_in_both_modes():
    """np.sign(z) = z / |z| for complex z (NumPy 2): its derivative is not 0 (it used to be taken as 0)."""
    z = np.array([0.6 + 0.3j, -1.0 + 0.5j])
    check_derivatives(sign_complex, z)  # (reverse: tests/test_complex_reverse.py)
    _, dy = mc.jvp(sign_complex, (z,), (1j * z,))  # turning z changes its phase by the same turn
    np.testing.assert_allclose(dy, 1j * z / np.abs(z))
    g = mc.grad(lambda z: np.real(np.sum(np.sign(z) * np.conj(z))))(z)  # = sum |z|: its gradient z / |z|
    np.testing.assert_allclose(g, z / np.abs(z))


def test_pinv_refuses_a_direction_changing_the_rank():
    s = np.diag([1.0, 2.0, 0.0])
    with pytest.raises(NotImplementedError, match="changing its rank"):
        mc.jvp(np.linalg.pinv, (s,), (np.ones((3, 3)),))
    _, ds = mc.jvp(np.linalg.pinv, (s,), (np.diag([1.0, 1.0, 0.0]),))  # keeps the rank: exact
    np.testing.assert_allclose(ds, np.diag([-1.0, -0.25, 0.0]))


def test_vectorize_refuses_a_closure_over_differentiated_values():
    def f(x, c):
        return np.vectorize(lambda v: v * c)(x)

    with pytest.raises(NotImplementedError, match="closing over"):
        mc.jvp(f, (x5[:2], 0.5), (np.ones(2), 1.0))
    with pytest.raises(NotImplementedError, match="closing over"):
        mc.grad(lambda x, c: np.sum(f(x, c)), argnums=1)(x5[:2], 0.5)


# ---------------------------------------------------------------- SciPy
def poisson_cdfs(mu):
    import scipy.stats as st

    k = np.array([0.0, 1.0, 3.0, 2.5])
    return st.poisson.cdf(k, mu) + st.poisson.logsf(k, mu, 0.5)


def poisson_logcdf(mu):
    import scipy.stats as st

    return st.poisson.logcdf(np.array([1.0, 4.0]), mu) * st.poisson.sf(2.0, mu)


def mvn_flag_and_entropy(x, c):
    import scipy.stats as st

    cov = c @ c.T + np.eye(3)
    return st.multivariate_normal.logpdf(x, np.zeros(3), cov, allow_singular=False) + st.multivariate_normal.entropy(cov=cov)


BETA_A, BETA_B = np.array([1.5, 2.0, 2.5]), np.array([2.5, 3.0, 3.5])


def beta_cdf_constant_shapes(x):
    import scipy.stats as st

    return st.beta.cdf(x, BETA_A, BETA_B)  # (only x differentiated: the shapes' cdf derivative has no closed form)


def convolve_modes(a, b):
    import scipy.signal as sig

    return np.sum(sig.convolve(a, b, mode="valid")) + sig.correlate(a, b, "same")


def convolve_2d(a, b):
    import scipy.signal as sig

    return sig.convolve(a, b)


def sqrtm_psd(a):
    import scipy.linalg as la

    return la.sqrtm(a @ a.T + np.eye(3))


def sylvester(a, b, q):
    import scipy.linalg as la

    return la.solve_sylvester(a + 3.0 * np.eye(3), b + 3.0 * np.eye(3), q)


SCIPY_CASES = [
    (poisson_cdfs, (np.array([1.3, 2.0, 0.7, 4.1]),)),
    (poisson_logcdf, (1.7,)),
    (mvn_flag_and_entropy, (r.randn(3), r.randn(3, 3))),
    (beta_cdf_constant_shapes, (np.array([0.2, 0.5, 0.7]),)),
    (convolve_modes, (r.randn(6), r.randn(3))),
    (convolve_2d, (r.randn(3, 2), r.randn(2, 2))),
    (sqrtm_psd, (r.randn(3, 3),)),
    (sylvester, (r.randn(3, 3), r.randn(3, 3), r.randn(3, 3))),
]


@pytest.mark.parametrize("f, args", SCIPY_CASES, ids=[f.__name__ for f, _ in SCIPY_CASES])
def test_scipy_rule(f, args):
    pytest.importorskip("scipy.signal")
    check_derivatives(f, *args)


def test_mvn_singular_covariance_refused():
    st = pytest.importorskip("scipy.stats")
    cov = np.diag([1.0, 1.0, 0.0])

    def f(x):
        return st.multivariate_normal.logpdf(x, np.zeros(3), cov, allow_singular=True)

    with pytest.raises(NotImplementedError, match="singular covariance"):
        mc.grad(f)(np.array([0.3, -0.2, 0.0]))
