"""Derivatives that came out nan (or finite garbage) where the true derivative is finite (helper nan11).

* a value an `if` / conditional expression leaves unread: its adjoint is exactly 0 on that path and meets exp's
  overflow, a quotient's pole, log(0), x ** -1 at 0 (rules/unread_adjoints.py);
* an infinite tangent or adjoint meeting a weight that is exactly 0 inside a matrix product (rules/strong_products.py);
* scipy.linalg.polar at repeated singular values (rules/scipy_linalg_polar.py);
* eigen- and singular values equal up to rounding: nan like an exact tie, never finite garbage (numpy_linalg._gaps);
* NaN-skipping reductions (np.nansum(w * x) with a NaN in w) and hypot at 0.
Every family in both modes, and at the second order where the Hessian is finite.  docs/nan-derivatives.md."""
import math
import warnings

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
F64 = np.float64


def _all(f, x, grad, hess=None):
    """grad, jvp along ones and (if given) the Hessian of f at x, against the true values."""
    np.testing.assert_allclose(mc.grad(f)(x), grad, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(mc.jvp(f, (x,), (np.ones_like(x),))[1], np.sum(grad), rtol=1e-12, atol=1e-12)
    if hess is not None:
        np.testing.assert_allclose(mc.hessian(f)(x), hess, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- values an if leaves unread
def exp_ternary(x):
    e = np.exp(x)
    return e if x < 50 else x


def exp_if_statement(x):
    e = np.exp(x)
    if x < 50:
        r = e
    else:
        r = x * 2.0
    return r


def exp_times_x_ternary(x):
    e = np.exp(x)
    p = x * e
    return p if x < 50 else x


def exp_early_return(x):
    e = np.exp(x)
    if x < 50:
        return e * 2.0
    return x


def exp_reassigned(x):
    e = np.exp(x)
    r = e
    if x >= 50:
        r = x
    return r


def sigmoid_ternary(x):
    e = np.exp(x)
    z = e / (1.0 + e)  # (inf / inf = nan where unread)
    return z if x < 50 else 1.0 + 0.0 * x


def reciprocal_ternary(x):
    y = 1.0 / x
    return y if x != 0 else 0.0


def log_ternary(x):
    l = np.log(x)
    return l if x > 0 else 2.0 * x


def negative_power_ternary(x):
    p = x ** -1
    return p if x != 0 else x


def sqrt_ternary(x):
    y = np.sqrt(x)
    return y if x > 0 else 3.0 * x


@pytest.mark.parametrize("f, x, grad, hess", [
    (exp_ternary, 1000.0, 1.0, 0.0), (exp_ternary, 1.0, math.e, math.e),
    (exp_if_statement, 1000.0, 2.0, 0.0), (exp_times_x_ternary, 1000.0, 1.0, 0.0),
    (exp_times_x_ternary, 1.0, 2 * math.e, 3 * math.e), (exp_early_return, 1000.0, 1.0, 0.0),
    (exp_reassigned, 1000.0, 1.0, 0.0), (sigmoid_ternary, 1000.0, 0.0, 0.0),
    (reciprocal_ternary, 0.0, 0.0, 0.0), (reciprocal_ternary, 2.0, -0.25, 0.25), (log_ternary, 0.0, 2.0, 0.0),
    (negative_power_ternary, 0.0, 1.0, 0.0), (sqrt_ternary, 0.0, 3.0, 0.0), (sqrt_ternary, -1.0, 3.0, 0.0),
])
@pytest.mark.parametrize("kind", [float, F64])
def test_value_an_if_leaves_unread(f, x, grad, hess, kind):
    if kind is float and f in (reciprocal_ternary, negative_power_ternary) and x == 0:
        pytest.skip("Python's float raises ZeroDivisionError in the function itself")
    if kind is float and f is log_ternary and x == 0:
        # (forward code's dx / x of a Python float 0.0 raises where NumPy's 0.0 gives inf: docs/nan-derivatives.md)
        np.testing.assert_allclose(mc.grad(f)(x), grad)
        return
    _all(f, kind(x), grad, hess)


def exp_ternary_in_a_loop(v):
    s = 0.0
    for i in range(v.shape[0]):
        e = np.exp(v[i])
        s += e if v[i] < 50 else v[i]
    return s


def exp_array_under_if(x):
    e = np.exp(x)
    if x[0] < 50:
        return np.sum(e)
    return np.sum(x)


def last_exp_of_a_loop(xs):
    last = 0.0
    for i in range(xs.shape[0]):
        last = np.exp(xs[i])  # (overwritten: only the last run's is read)
    return last


def last_exp_of_items(xs):
    last = 0.0
    for v in xs:
        last = np.exp(v) * 2.0
    return last


@pytest.mark.parametrize("f, x, grad", [
    (last_exp_of_a_loop, np.array([1000.0, 1.0]), [0.0, math.e]),
    (last_exp_of_a_loop, np.array([1000.0, 800.0, -1.0]), [0.0, 0.0, math.exp(-1.0)]),
    (last_exp_of_items, np.array([1000.0, 1.0]), [0.0, 2 * math.e]),
    (exp_ternary_in_a_loop, np.array([1.0, 1000.0, -2.0]), [math.e, 1.0, math.exp(-2.0)]),
    (exp_ternary_in_a_loop, np.array([800.0, 900.0]), [1.0, 1.0]),
    (exp_array_under_if, np.array([1000.0, 1.0]), [1.0, 1.0]),
])
def test_value_an_if_leaves_unread_arrays(f, x, grad):
    _all(f, x, grad)


def test_value_an_if_leaves_unread_against_differences():
    check_derivatives(exp_ternary_in_a_loop, np.array([0.3, 1000.0, -0.7]))
    check_derivatives(exp_ternary_in_a_loop, np.array([0.3, 1.0, -0.7]))


# ---------------------------------------------------------------- matrix products meeting an infinite slope
A0 = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 0.0], [3.0, 0.0, 1.0]])  # (row 1 and column 1 zero)


def sqrt_through_zero_column(x):
    return np.sum(A0 @ np.sqrt(x))  # (x[1] == 0: sqrt's tangent inf, its weights 0)


def sqrt_through_zero_column_dot(x):
    return np.sum(np.dot(A0, np.sqrt(x)) ** 2)


def sqrt_of_zero_row(x):
    return np.sum(np.sqrt(A0 @ x))  # ((A0 @ x)[1] == 0 whatever x: sqrt's adjoint inf)


def sqrt_of_zero_row_vector_first(x):
    return np.sum(np.sqrt(x @ A0.T))


def sqrt_of_zero_row_dot(x):
    return np.sum(np.sqrt(np.dot(A0, x)))


def sqrt_of_zero_row_matrices(X):
    return np.sum(np.sqrt(A0 @ X))


def _column_gradient(x):
    return A0.sum(axis=0) * np.where(x > 0, 0.5 / np.sqrt(np.where(x > 0, x, 1.0)), 0.0)


@pytest.mark.parametrize("x", [np.array([1.0, 0.0, 4.0]), np.array([0.25, 0.0, 9.0])])
def test_infinite_tangent_meets_a_zero_weight(x):
    _all(sqrt_through_zero_column, x, _column_gradient(x))
    g = mc.grad(sqrt_through_zero_column_dot)(x)
    assert np.isfinite(g).all() and g[1] == 0.0
    np.testing.assert_allclose(mc.jvp(sqrt_through_zero_column_dot, (x,), (np.ones(3),))[1], np.sum(g), rtol=1e-12)
    H = mc.hessian(sqrt_through_zero_column)(x)
    np.testing.assert_allclose(H, np.diag(np.where(x > 0, -0.25 * A0.sum(axis=0) / np.where(x > 0, x, 1.0) ** 1.5, 0.0)),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("f", [sqrt_of_zero_row, sqrt_of_zero_row_vector_first, sqrt_of_zero_row_dot])
@pytest.mark.parametrize("x", [np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0])])
def test_infinite_adjoint_meets_a_zero_weight(f, x):
    check_derivatives(f, x)  # (finite differences see (A0 @ x)[1] == 0 stay put)
    H = mc.hessian(f)(x)
    assert np.isfinite(H).all()


def test_infinite_adjoint_meets_a_zero_weight_matrices():
    check_derivatives(sqrt_of_zero_row_matrices, np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))


def _strong_reference(a, b):
    """a @ b for 2-D a, b with each term a * b exactly 0 where either factor is 0."""
    out = np.zeros((a.shape[0], b.shape[1]))
    for i in range(a.shape[0]):
        for k in range(b.shape[1]):
            terms = [0.0 if a[i, j] == 0 or b[j, k] == 0 else a[i, j] * b[j, k] for j in range(a.shape[1])]
            out[i, k] = sum(terms)
    return out


@pytest.mark.parametrize("shapes", [((3, 4), (4, 2)), ((1, 3), (3, 3)), ((4, 1), (1, 3))])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_strong_matmul_against_term_by_term(shapes, seed):
    from mooncake_ast.rules.strong_products import strong_matmul, strong_matmul_adjoint

    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=shapes[0]), rng.normal(size=shapes[1])
    a[rng.random(a.shape) < 0.3] = 0.0
    b[rng.random(b.shape) < 0.3] = 0.0
    a.flat[rng.integers(a.size)] = np.inf
    b.flat[rng.integers(b.size)] = -np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = _strong_reference(a, b)
        np.testing.assert_allclose(strong_matmul(a, b), want, rtol=1e-14, atol=1e-15)
        g = rng.normal(size=want.shape)
        g.flat[0] = np.inf
        # a's adjoint g b^T and b's a^T g, term by term
        np.testing.assert_allclose(strong_matmul_adjoint(g, a, b, 0), _strong_reference(g, b.T), rtol=1e-14, atol=1e-15)
        np.testing.assert_allclose(strong_matmul_adjoint(g, a, b, 1), _strong_reference(a.T, g), rtol=1e-14, atol=1e-15)
        v = b[:, 0].copy()
        np.testing.assert_allclose(strong_matmul(a, v), want[:, 0], rtol=1e-14, atol=1e-15)


# ---------------------------------------------------------------- polar at repeated singular values
def _q3():
    return np.linalg.qr(np.array([[1.0, 2.0, 0.0], [0.5, 1.0, 1.0], [0.0, 1.0, 3.0]]))[0]


def polar_read(a):
    import scipy.linalg as sl

    u, p = sl.polar(a)
    return np.sum(u * np.cos(np.arange(u.size).reshape(u.shape))) + np.sum(np.sin(p))


def polar_left_read(a):
    import scipy.linalg as sl

    u, p = sl.polar(a, "left")  # (by position: a Hessian of a keyword call of a rule is refused, forward_code_rules)
    return np.sum(u * np.cos(np.arange(u.size).reshape(u.shape))) + np.sum(p * p)


@pytest.mark.parametrize("f, a", [
    (polar_read, np.eye(3)), (polar_read, 2.0 * _q3()), (polar_read, _q3() @ np.diag([2.0, 2.0, 5.0]) @ _q3().T),
    (polar_read, np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]])), (polar_left_read, 3.0 * _q3()),
    (polar_left_read, _q3() @ np.diag([1.0, 4.0, 4.0]) @ _q3().T),
])
def test_polar_at_repeated_singular_values(f, a):
    pytest.importorskip("scipy")
    check_derivatives(f, a)
    rng = np.random.default_rng(3)
    E = rng.normal(size=a.shape)
    g = mc.grad(f)
    hvp = np.tensordot(mc.hessian(f)(a), E, axes=2)
    want = (g(a + 1e-5 * E) - g(a - 1e-5 * E)) / 2e-5
    np.testing.assert_allclose(hvp, want, rtol=1e-5, atol=1e-6)


def test_polar_refuses_a_rank_deficient_matrix():
    pytest.importorskip("scipy")
    with pytest.raises(mc.MooncakeError, match="rank-deficient"):
        mc.grad(polar_read)(np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]]))


# ---------------------------------------------------------------- eigenvalues equal up to rounding
def exp_through_eigh(a):
    w, V = np.linalg.eigh(a)
    return np.sum((V @ np.diag(np.exp(w)) @ V.T) * np.array([[1.0, 2.0, 0.5], [2.0, 1.0, 0.3], [0.5, 0.3, 3.0]]))


def sqrt_through_eigh(a):
    w, V = np.linalg.eigh(a)
    return np.sum((V * np.sqrt(w)) @ V.T)


def cubes_of_eigenvalues(a):
    return np.sum(np.linalg.eigvalsh(a) ** 3)


def _tie():
    return _q3() @ np.diag([2.0, 2.0, 5.0]) @ _q3().T


@pytest.mark.parametrize("f", [exp_through_eigh, sqrt_through_eigh])
def test_rounding_ties_give_no_finite_garbage(f):
    """At eigenvalues equal up to rounding the eigenvector terms were 1 / rounding error: a finite gradient 0.3-8%
    off.  Right or nan (like an exact tie), never finite and wrong."""
    a = 0.5 * (_tie() + _tie().T)
    E = np.array([[0.3, 0.1, 0.35], [0.1, 0.4, 0.05], [0.35, 0.05, 0.1]])
    fd = (f(a + 1e-6 * E) - f(a - 1e-6 * E)) / 2e-6
    for got in (np.sum(mc.grad(f)(a) * E), mc.jvp(f, (a,), (E,))[1]):
        assert np.isnan(got) or abs(got - fd) < 1e-6 * max(1.0, abs(fd)), (got, fd)


def test_rounding_ties_second_order_gives_no_finite_garbage():
    a = 0.5 * (_tie() + _tie().T)
    E = np.array([[0.3, 0.1, 0.35], [0.1, 0.4, 0.05], [0.35, 0.05, 0.1]])
    g = mc.grad(cubes_of_eigenvalues)
    want = (g(a + 1e-5 * E) - g(a - 1e-5 * E)) / 2e-5
    got = np.tensordot(mc.hessian(cubes_of_eigenvalues)(a), E, axes=2)
    assert np.all(np.isnan(got) | np.isclose(got, want, rtol=1e-5, atol=1e-6)), (got, want)
    check_derivatives(cubes_of_eigenvalues, a)  # (the first order stays right)


# ---------------------------------------------------------------- NaN-skipping reductions, hypot at 0
W_NAN = np.array([1.0, np.nan, 2.0])


def nansum_of_a_product(x):
    return np.nansum(W_NAN * x)


def nanmean_of_a_product(x):
    return np.nanmean(W_NAN * x) * 3.0


def nan_to_num_of_a_product(x):
    return np.sum(np.nan_to_num(W_NAN * x))


def nanmax_of_a_product(x):
    return np.nanmax(W_NAN * x)


@pytest.mark.parametrize("f, grad", [(nansum_of_a_product, [1.0, 0.0, 2.0]), (nanmean_of_a_product, [1.5, 0.0, 3.0]),
                                     (nan_to_num_of_a_product, [1.0, 0.0, 2.0]), (nanmax_of_a_product, [0.0, 0.0, 2.0])])
def test_nan_skipping_reductions(f, grad):
    _all(f, np.array([1.0, 2.0, 3.0]), grad, np.zeros((3, 3)))


def hypot_squared(x):
    return np.hypot(x[0], x[1]) ** 2 + x[2]


def math_hypot_squared(x):
    return math.hypot(x[0], x[1]) ** 2 + x[2]


@pytest.mark.parametrize("f", [hypot_squared, math_hypot_squared])
def test_hypot_at_zero(f):
    _all(f, np.array([0.0, 0.0, 1.0]), [0.0, 0.0, 1.0])
    check_derivatives(f, np.array([0.3, -0.4, 1.0]))


# ---------------------------------------------------------------- an infinite adjoint a helper sends back
def _sqrt_helper_with_an_if(u, flag):
    if flag:
        return np.sqrt(u)
    return u


class _SqrtObject:
    def __call__(self, u):
        return np.sqrt(u)


_SQRT_OBJECT = _SqrtObject()


def _sqrt_helper_in_a_loop(u):
    s = u
    for _ in range(1):
        s = np.sqrt(s)
    return s


def _half_power_helper(u):
    return u ** 0.5


def _calls_a_sqrt_helper(u):
    return _sqrt_helper_in_a_loop(u) * 1.0


def distances_through_an_if_helper(x):
    d = x - x[0]  # (d[0] == 0 whatever x: its distance is constant)
    return np.sum(_sqrt_helper_with_an_if(d * d, True))


def distances_through_a_callable_object(x):
    d = x - x[0]
    return np.sum(_SQRT_OBJECT(d * d))


def distances_through_a_loop_helper(x):
    d = x - x[0]
    return np.sum(_sqrt_helper_in_a_loop(d * d))


def distances_through_a_power_helper(x):
    d = x - x[0]
    return np.sum(_half_power_helper(d * d))


def distances_through_two_helpers(x):
    d = x - x[0]
    return np.sum(_calls_a_sqrt_helper(d * d))


@pytest.mark.parametrize("f", [distances_through_an_if_helper, distances_through_a_callable_object,
                               distances_through_a_loop_helper, distances_through_a_power_helper,
                               distances_through_two_helpers])
@pytest.mark.parametrize("x", [np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 4.0])])
def test_infinite_adjoint_from_a_helper(f, x):
    want = np.sign(x - x[0])
    want[0] = -np.sum(want[1:])
    _all(f, x, want, np.zeros((3, 3)))
