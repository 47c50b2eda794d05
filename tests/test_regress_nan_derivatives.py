"""No nan derivative where the function is smooth and finite differences agree (docs/nan-derivatives.md).

An exact zero tangent or adjoint times an infinite local slope is 0 (rules/strong_zeros.py): exact zeros under
sqrt / cbrt / fractional powers / entr, the unselected side of np.where, an empty bin of a normalised histogram,
eigh with repeated eigenvalues whose coupling is exactly zero.  Where the true derivative is infinite (sqrt at 0
with a non-zero tangent) it stays infinite.  Both modes, and second order (mc.hessian) where it applies."""
import numpy as np
import pytest

import mooncake_ast as mc

X = np.array([0.7, -1.3, 2.1])


def _fd(f, x, h=1e-6):
    with np.errstate(all="ignore"):
        return np.array([(f(x + e * h) - f(x - e * h)) / (2 * h) for e in np.eye(x.size)])


def _grad(f, x):
    with np.errstate(all="ignore"):
        return mc.grad(f)(x.copy())


def _jvps(f, x):
    with np.errstate(all="ignore"):
        return np.array([mc.jvp(f, (x.copy(),), (e,))[1] for e in np.eye(x.size)])


def _both(f, x, rtol=1e-5, atol=1e-7):
    want = _fd(f, x)
    assert np.all(np.isfinite(want))
    np.testing.assert_allclose(_grad(f, x), want, rtol=rtol, atol=atol)
    np.testing.assert_allclose(_jvps(f, x), want, rtol=rtol, atol=atol)


# ---------------------------------------------------------------- exact zeros with a zero tangent
def _bins(x):
    return np.array([0.0, x[1] ** 2, x[2] ** 2, 0.0])  # two empty bins


def sqrt_bins(x):
    return np.sum(np.sqrt(_bins(x)) * np.array([1.0, 2.0, 3.0, 4.0]))


def cbrt_bins(x):
    return np.sum(np.cbrt(_bins(x)))


def half_power_bins(x):
    return np.sum(_bins(x) ** 0.5)


def small_power_bins(x):
    return np.sum(np.power(_bins(x), 0.3))


def runtime_power_bins(x):
    return np.sum(_bins(x) ** (0.4 + 0.0 * x[0]))  # an exponent only the run time knows


def power_of_x_bins(x):
    return np.sum(_bins(x) ** (x[0] ** 2))  # the exponent differentiated too (x[0]^2 < 1)


def arcsin_at_one(x):
    return np.sum(np.arcsin(np.array([1.0, np.tanh(x[0]), -1.0])) * x[2])


def arccos_at_one(x):
    return np.sum(np.arccos(np.array([1.0, np.tanh(x[1]), -1.0])) * x)


def sqrt_bins_2d(x):
    m = _bins(x).reshape(2, 2)
    return np.sum(np.sqrt(m) @ np.array([1.0, -2.0])) * x[0]


def math_sqrt_bins(x):
    import math
    c = _bins(x)
    return math.sqrt(c[0]) * x[0] + math.sqrt(c[1]) + math.cbrt(c[3]) + math.cbrt(c[2])


def math_asin_acos_at_one(x):
    import math
    c = _bins(x)
    return math.asin(c[0] + 1.0) * x[1] + math.acos(1.0 - c[3]) + math.acos(math.tanh(x[2]))


@pytest.mark.parametrize("f", [sqrt_bins, cbrt_bins, half_power_bins, small_power_bins, runtime_power_bins,
                               power_of_x_bins, arcsin_at_one, arccos_at_one, sqrt_bins_2d, math_sqrt_bins,
                               math_asin_acos_at_one])
def test_exact_zero_with_zero_tangent(f):
    _both(f, X)


def entr_bins(x):
    import scipy.special as sp
    return np.sum(sp.entr(_bins(x) / 10.0))


def rel_entr_bins(x):
    import scipy.special as sp
    return np.sum(sp.rel_entr(_bins(x), np.array([0.1, 0.2, 0.3, 0.4]) + x[0] ** 2))


def kl_div_bins(x):
    import scipy.special as sp
    return np.sum(sp.kl_div(_bins(x), np.array([0.1, 0.2, 0.3, 0.4]) * np.exp(x[0])))


def stats_entropy_bins(x):
    import scipy.stats as st
    return st.entropy(_bins(x))


def stats_entropy_bins_base2(x):
    import scipy.stats as st
    return st.entropy(_bins(x) + np.array([0.0, 0.0, 0.0, 0.0]), base=2.0)


def stats_entropy_bins_qk(x):
    import scipy.stats as st
    return st.entropy(_bins(x), np.abs(np.array([1.0, x[0], x[1], 0.5])) + 0.1)


@pytest.mark.parametrize("f", [entr_bins, rel_entr_bins, kl_div_bins, stats_entropy_bins, stats_entropy_bins_base2,
                               stats_entropy_bins_qk])
def test_entropy_family_with_empty_bins(f):
    _both(f, X)


# ---------------------------------------------------------------- normalised histograms (the quotient's strong zero)
def normalised_power(x):
    c = _bins(x)
    p = c / c.sum()
    return np.log(np.sum(p ** 0.6))


def normalised_sqrt(x):
    c = _bins(x)
    p = np.divide(c, np.sum(c))
    return np.sum(np.sqrt(p) * np.array([1.0, 2.0, 3.0, 4.0]))


def renyi_entropy(x):
    c = _bins(x) + np.array([0.0, 0.0, 0.0, 0.0])
    p = c / np.sum(c)
    alpha = 0.5 + 0.1 * np.tanh(x[0])
    return np.log(np.sum(p ** alpha)) / (1.0 - alpha)


@pytest.mark.parametrize("f", [normalised_power, normalised_sqrt, renyi_entropy])
def test_normalised_histogram_with_empty_bins(f):
    _both(f, X)


# ---------------------------------------------------------------- np.where's unselected side
def where_sqrt(x):
    with np.errstate(all="ignore"):
        return np.sum(np.where(x > 0, np.sqrt(x), x ** 2))


def where_sqrt_at_zero(x):
    y = np.array([x[0], 0.0, x[2]]) - np.array([0.0, 0.0, 0.0])
    with np.errstate(all="ignore"):
        return np.sum(np.where(y > 0, np.sqrt(y), 3.0 * y) * x)


def where_arcsin(x):
    with np.errstate(all="ignore"):
        return np.sum(np.where(np.abs(x) < 1, np.arcsin(x), x))


def where_arccos(x):
    with np.errstate(all="ignore"):
        return np.sum(np.where(np.abs(x / 2.0) < 1, np.arccos(x / 2.0), 0.5 * x))


def where_fractional_power(x):
    with np.errstate(all="ignore"):
        return np.sum(np.where(x > 0, x ** 0.7, -x))


def where_cbrt_entr(x):
    import scipy.special as sp
    with np.errstate(all="ignore"):
        return np.sum(np.where(x > 0, sp.entr(x), np.sin(x)))


@pytest.mark.parametrize("f", [where_sqrt, where_sqrt_at_zero, where_arcsin, where_arccos, where_fractional_power,
                               where_cbrt_entr])
def test_where_unselected_side(f):
    _both(f, X)


# ---------------------------------------------------------------- eigh with repeated eigenvalues
def eigh_values_only(x):
    w, V = np.linalg.eigh(np.outer(x, x) + 2.0 * np.eye(3))
    return np.sum(np.sin(w))


def eigh_top_vector(x):
    w, V = np.linalg.eigh(np.outer(x, x) + 2.0 * np.eye(3))
    return np.sum(V[:, -1] ** 2 * np.array([1.0, 2.0, 3.0])) + w[-1]


def eigh_of_scaled_identity(x):
    w, V = np.linalg.eigh(np.eye(4) * x[1] ** 2)
    return np.sum(w ** 3)


def eigh_of_constant_degenerate(x):
    w, V = np.linalg.eigh(np.diag([1.0, 1.0, 3.0]))  # constant: its tangent is zero
    return np.sum((V.T @ x) ** 2 / w)


@pytest.mark.parametrize("f", [eigh_values_only, eigh_top_vector, eigh_of_scaled_identity,
                               eigh_of_constant_degenerate])
def test_eigh_repeated_eigenvalues(f):
    _both(f, X, rtol=1e-5, atol=1e-6)


def multivariate_t_identity(x):
    import scipy.stats as st
    return st.multivariate_t.logpdf(x, loc=np.ones(3), shape=2.0 * np.eye(3), df=3.0)


def test_multivariate_t_with_equal_eigenvalues():
    _both(multivariate_t_identity, X)


# ---------------------------------------------------------------- infinite stays infinite (never invented)
def test_sqrt_at_a_zero_that_moves_stays_infinite():
    x = np.array([0.0, 1.0, 2.0])
    f = lambda v: np.sum(np.sqrt(v))  # noqa: E731
    with np.errstate(all="ignore"):
        g = mc.grad(f)(x.copy())
        jv = mc.jvp(f, (x.copy(),), (np.array([1.0, 0.0, 0.0]),))[1]
        jv0 = mc.jvp(f, (x.copy(),), (np.array([0.0, 1.0, 0.0]),))[1]
    assert np.isinf(g[0]) and np.isfinite(g[1:]).all()
    assert np.isinf(jv)
    assert jv0 == pytest.approx(0.5)


def test_math_sqrt_at_a_zero_that_moves_is_infinite_not_an_error():
    import math
    f = lambda v: math.sqrt(v)  # noqa: E731
    assert mc.grad(f)(0.0) == math.inf and mc.jvp(f, (0.0,), (1.0,))[1] == math.inf
    assert mc.grad(f)(4.0) == 0.25


def test_arcsin_at_one_with_a_moving_input_stays_infinite():
    f = lambda v: np.sum(np.arcsin(v))  # noqa: E731
    with np.errstate(all="ignore"):
        g = mc.grad(f)(np.array([1.0, 0.5]))
    assert np.isinf(g[0]) and g[1] == pytest.approx(1.0 / np.sqrt(0.75))


# ---------------------------------------------------------------- second order
def _fd_grad(f, x, h=1e-5):
    g = mc.grad(f)
    with np.errstate(all="ignore"):
        return np.array([(g(x + e * h) - g(x - e * h)) / (2 * h) for e in np.eye(x.size)])


@pytest.mark.parametrize("f", [sqrt_bins, half_power_bins, small_power_bins, cbrt_bins, where_sqrt, where_arcsin,
                               where_arccos, where_fractional_power, arcsin_at_one, entr_bins,
                               normalised_sqrt])
def test_hessian_finite_where_fd_is(f):
    with np.errstate(all="ignore"):
        H = mc.hessian(f)(X.copy())
    want = _fd_grad(f, X)
    assert np.all(np.isfinite(want))
    np.testing.assert_allclose(H, want, rtol=1e-4, atol=1e-5)


def sqrt_misfit(x):
    return (np.sum(np.sqrt(x)) - 3.0) ** 2  # at x = [1, 4] the outer adjoint is exactly 0


def test_hessian_where_the_cotangent_is_exactly_zero():
    """The strong zero must not drop d(adjoint) * slope: here the adjoint reaching sqrt is exactly 0 but its
    tangent is not, and the Hessian is 2 s s^T with s = 0.5 / sqrt(x) (a masked np.where would give 0)."""
    x = np.array([1.0, 4.0])
    s = 0.5 / np.sqrt(x)
    np.testing.assert_allclose(mc.hessian(sqrt_misfit)(x.copy()), 2.0 * np.outer(s, s), rtol=1e-12)


def eigh_degenerate_block_split(x):
    """At x[0] = 0.7 the eigenvalue 1 is double and x[0] splits it: the eigenvectors jump, no derivative."""
    A = np.diag([1.0, 1.0, 3.0]) + np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]) * (x[0] - 0.7)
    w, V = np.linalg.eigh(A)
    return np.sum(V[:, 0] ** 2 * np.array([1.0, 2.0, 3.0]))


def test_eigh_nonzero_coupling_between_equal_eigenvalues_is_not_invented():
    with np.errstate(all="ignore"):
        g = mc.grad(eigh_degenerate_block_split)(X.copy())
        jv = mc.jvp(eigh_degenerate_block_split, (X.copy(),), (np.array([1.0, 0.0, 0.0]),))[1]
    assert not np.isfinite(g[0]) and not np.isfinite(jv)


def sum_of_roots(x):
    return np.sum(np.sqrt(x) * 2.0 + x ** 0.5)


def test_typed_pullback_keeps_the_spread_adjoint_a_number():
    """The adjoint of np.sum's argument is one number standing for an array (reverse/spread.py): the strong zero
    takes it as it is (it broadcasts as that array would) rather than making the array with np.full."""
    x = np.array([0.5, 1.5, 2.5])
    np.testing.assert_allclose(mc.grad(sum_of_roots)(x), 1.5 / np.sqrt(x), rtol=1e-12)
    src = mc.source(sum_of_roots, "reverse")
    assert "_mc.strong_mul(out_bar * 2.0, _mc.sqrt_slope(" in src and "np.full" not in src


def where_power_above_one(x):
    with np.errstate(all="ignore"):
        return np.sum(np.where(x > 0, x ** 1.5, np.sin(x)))  # x ** 1.5 is nan below 0, where it is not selected


def math_pow_of_an_empty_bin(x):
    import math
    c = _bins(x)
    return math.pow(c[0], 0.5) * x[0] + math.pow(c[1], 0.25) + math.pow(c[3], 0.7)


@pytest.mark.parametrize("f", [where_power_above_one, math_pow_of_an_empty_bin])
def test_more_powers(f):
    _both(f, X)
