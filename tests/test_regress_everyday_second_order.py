"""Second (and some third) derivatives of everyday code that was refused or crashed (issues 10 and 12, helper
refuse8): np.amax, x.astype / x.item, complex intermediates, np.fft, np.linalg.lstsq, functools.partial,
scipy.stats.multivariate_normal, loops carrying `P = P @ A` from a constant, logging calls, `try` bodies, local
helpers called with keywords, namedtuples, float(), np.shares_memory.

Every function is checked at first order in both modes (check_derivatives, finite differences), and its Hessian by
every nesting (forward over reverse, reverse over reverse, reverse over forward, forward over forward) against
central differences of mc.grad."""
import collections
import functools
import logging
import math
import typing

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

X = np.array([0.3, -0.7, 1.1])
X2 = np.array([0.8, 0.3, 0.5])


def _fd(d1, x, h=1e-6):
    x = np.asarray(x, dtype=float)
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = h
        cols.append((np.asarray(d1(x + e), dtype=float) - np.asarray(d1(x - e), dtype=float)) / (2 * h))
    return np.stack(cols, axis=-1)


NESTINGS = {
    "hessian": lambda f: mc.hessian(f),
    "jacrev_grad": lambda f: mc.jacrev(mc.grad(f)),
    "jacfwd_jacrev": lambda f: mc.jacfwd(mc.jacrev(f)),
    "jacrev_jacfwd": lambda f: mc.jacrev(mc.jacfwd(f)),
    "jacfwd_jacfwd": lambda f: mc.jacfwd(mc.jacfwd(f)),
}


def _second_orders(f, x, nestings=tuple(NESTINGS), tol=1e-5):
    """check_derivatives of f (both modes), then each nesting's Hessian against differences of mc.grad."""
    check_derivatives(f, x.copy())
    ref = _fd(lambda z: mc.grad(f)(z.copy()), x)
    for name in nestings:
        got = NESTINGS[name](f)(x.copy())
        np.testing.assert_allclose(np.asarray(got, dtype=float), ref, rtol=tol, atol=tol, err_msg=name)


# ================================================================ NumPy functions and array methods


def amax_squared(x):
    return np.amax(x) ** 2 * x[0]


def amin_of_squares(x):
    return np.amin(x * x + 0.1) * x[1] + np.amax(x, initial=-5.0)


def amax_along_axis(x):
    A = np.outer(x, x + 1.0)
    return np.sum(np.amax(A, axis=0) ** 2) + np.sum(np.amin(A, axis=1, keepdims=True))


def astype_cube(x):
    return np.sum(x.astype(np.float64) ** 3)


def astype_to_int_and_back(x):
    n = (x * 7.3).astype(int)  # a constant: no derivative
    return np.sum(np.sin(x) * n) + np.sum(x.astype(float, copy=False) ** 2 * x[0])


def item_cube(x):
    return x.item(2) ** 3 * x[0]


def item_of_one(x):
    y = np.sum(x * x, keepdims=True)
    return y.item() * x[1] + (x * 2.0).reshape(3, 1).item(1, 0) ** 2


def float_of_numbers(x):
    s = float(np.sum(x ** 2)) * x[0]
    return s + float(x[1]) ** 3 + float(np.array(x[2])) * float("2.0")


def shares_memory_guard(x):
    y = x * 1.0
    z = y[::2]
    if np.shares_memory(y, z) and np.may_share_memory(y, z):
        z *= x[1]
    return np.sum(y ** 2)


@pytest.mark.parametrize("f", [amax_squared, amin_of_squares, amax_along_axis, astype_cube, astype_to_int_and_back,
                               item_cube, item_of_one, float_of_numbers, shares_memory_guard],
                         ids=lambda f: f.__name__)
def test_numpy_functions_and_methods(f):
    _second_orders(f, X2)


# ================================================================ complex intermediates and np.fft


def complex_modulus(x):
    z = x[0] + 1j * x[1]
    return np.abs(z * z) ** 2 * x[2]


def complex_array_phase(x):
    z = x * np.exp(1j * x[::-1])
    return np.sum(np.real(z * np.conj(z[0]))) + np.sum(np.imag(z) ** 2)


def complex_number_and_array(x):
    w = complex(x[0], x[1])
    return np.sum(np.abs(w + x) ** 2)


def fft_power(x):
    return np.sum(np.abs(np.fft.fft(x)) ** 2 * np.arange(3.0))


def rfft_energy(x):
    return np.sum(np.abs(np.fft.rfft(x * x)) ** 3)


def ifft_of_fft(x):
    y = np.fft.ifft(np.fft.fft(x) * np.array([1.0, 0.5, 0.5]))
    return np.sum(np.real(y) ** 2 * x)


@pytest.mark.parametrize("f", [complex_modulus, complex_array_phase, complex_number_and_array, fft_power, rfft_energy,
                               ifft_of_fft], ids=lambda f: f.__name__)
def test_complex_intermediates_and_fft(f):
    _second_orders(f, X2, tol=1e-4)


# ================================================================ least squares; a variable named `_`

_B32 = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])


def least_squares(x):
    return np.sum(np.linalg.lstsq(_B32, x, rcond=None)[0] ** 2)


def least_squares_matrix_from_x(x):
    A = np.array([[1.0, x[0]], [x[1], 1.0], [0.5, x[2]]])
    sol, res, rank, sv = np.linalg.lstsq(A, np.array([1.0, 2.0, 0.5]), rcond=None)
    return np.sum(sol ** 2) + res[0]


def underscore_variable(x):
    # `_` is a variable here: the pullback's throwaway targets must not overwrite it
    a, _, c, _ = (x * 2.0, x[1] * 3.0, x.reshape(3, 1), x[0])
    return np.sum(a * c.reshape(-1)) * _


@pytest.mark.parametrize("f", [least_squares, least_squares_matrix_from_x, underscore_variable],
                         ids=lambda f: f.__name__)
def test_least_squares_and_underscore(f):
    _second_orders(f, X2, tol=1e-4)


# ================================================================ functools.partial, scipy.stats, keywords


def _tanh_energy(x, w, scale=1.0):
    return np.sum(np.tanh(x * w) ** 2) * scale


PARTIALS = {
    "keyword_array": functools.partial(_tanh_energy, w=np.array([1.0, 2.0, -1.0])),
    "keyword_and_default": functools.partial(_tanh_energy, w=np.array([0.5, 1.0, 1.5]), scale=2.0),
    "first_bound": functools.partial(lambda w, x: np.sum(np.sin(w * x) * x), np.array([1.0, -2.0, 0.5])),
}


@pytest.mark.parametrize("name", list(PARTIALS))
def test_functools_partial(name):
    p = PARTIALS[name]
    check_derivatives(p, X.copy())
    ref = _fd(lambda z: mc.grad(p)(z.copy()), X)
    for nest in ("hessian", "jacrev_grad", "jacfwd_jacrev", "jacfwd_jacfwd"):
        np.testing.assert_allclose(NESTINGS[nest](p)(X.copy()), ref, rtol=1e-5, atol=1e-5, err_msg=nest)


def mvn_logpdf_keywords(x):
    import scipy.stats as st

    return st.multivariate_normal.logpdf(x, mean=np.zeros(3), cov=np.eye(3) * 2.0)


def mvn_logpdf_mean_from_x(x):
    import scipy.stats as st

    cov = np.array([[2.0, 0.3, 0.0], [0.3, 1.0, 0.1], [0.0, 0.1, 1.5]])
    return st.multivariate_normal.logpdf(x * x, mean=x[::-1] * 0.5, cov=cov)


def mvn_pdf_positional(x):
    import scipy.stats as st

    return st.multivariate_normal.pdf(x, np.array([0.1, 0.0, -0.2]), np.array([1.0, 2.0, 0.5]))


def local_helper_with_keyword(x):
    def weighted(a, w):
        return np.sum(a * w)
    return weighted(x, w=np.sin(x)) ** 2


def local_helper_keywords_reordered(x):
    def combine(a, b, c):
        return a * b + np.sum(c * a)
    return combine(x[0], c=x * x, b=np.cos(x[1]))


@pytest.mark.parametrize("f", [mvn_logpdf_keywords, mvn_logpdf_mean_from_x, mvn_pdf_positional,
                               local_helper_with_keyword, local_helper_keywords_reordered],
                         ids=lambda f: f.__name__)
def test_keyword_calls(f):
    _second_orders(f, X2, tol=1e-4)


def test_multivariate_normal_hessian_is_minus_the_precision():
    np.testing.assert_allclose(mc.hessian(mvn_logpdf_keywords)(X.copy()), -np.eye(3) / 2.0, atol=1e-10)


# ================================================================ loops carrying a product from a constant


def matrix_power_by_loop(x):
    A = np.array([[x[0], 1.0], [0.5, -x[1]]])
    P = np.eye(2)
    for _ in range(3):
        P = P @ A
    return np.sum(P) * x[2]


def vector_chain(x):
    v = np.array([1.0, 0.0])
    for th in x:
        R = np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])
        v = R @ v
    return v[0] * 2 + v[1] ** 2


def matrix_from_left(x):
    A = np.outer(x, x) * 0.2 + np.eye(3) * 0.3
    y = np.ones(3)
    for _ in range(4):
        y = A @ y + x
    return np.sum(y ** 2)


def left_and_right(x):
    A = np.diag(x) + 0.1
    P = np.eye(3)
    for _ in range(2):
        P = A @ P @ A.T
    return np.trace(P)


@pytest.mark.parametrize("f", [matrix_power_by_loop, vector_chain, matrix_from_left, left_and_right],
                         ids=lambda f: f.__name__)
def test_loops_carrying_matmul(f):
    _second_orders(f, X2, tol=1e-4)


def test_grad_grad_of_scalar_loop():
    def f(t):
        A = np.array([[t, 1.0], [0.5, -t]])
        P = np.eye(2)
        for _ in range(2):
            P = P @ A
        return np.sum(P)

    np.testing.assert_allclose(mc.grad(mc.grad(f))(0.7), 4.0)


# ================================================================ statements: logging, try bodies


_log = logging.getLogger("mooncake_ast_refuse8")
_adapter = logging.LoggerAdapter(_log, {"run": 1})


def logs_then_cubes(x):
    _log.debug("loss at %s", x.shape)
    _log.info("x = %s", x)
    return np.sum(x ** 3)


def logs_through_module_and_adapter(x):
    logging.debug("value %s", float(x[0]))
    _adapter.warning("shape %s", x.shape) if x[0] > 100 else None
    y = np.sin(x) * x[1]
    logging.getLogger(__name__).debug("y %s", y)
    return np.sum(y ** 2)


def _helper(v, s):
    return v * s + np.sin(v)


def try_with_helper(x):
    v = x * 2.0
    try:
        t = v * 2.0
        w = _helper(v, x[0])
    except IndexError:
        t = 1.0
        w = v
    return np.sum(w * x) + np.sum(t)


def try_in_loop(x):
    acc = 0.0
    for i in range(3):
        try:
            acc = acc + np.log(x[i] ** 2 + 1.0) * x[(i + 1) % 3]
        except ValueError:
            acc = acc + 0.0
    return acc


def try_writes_array(x):
    b = x.copy()
    try:
        b[1] = b[1] * b[0]
        b += x ** 2
        r = np.dot(b, x)
    except ValueError:
        r = 0.0
    return r


def try_handler_taken(x):
    d = {"a": x[0], "b": x * x}
    try:
        r = d["a"] * np.sum(d["b"]) + d["c"]
    except KeyError:
        r = d["a"] ** 3 * np.sum(d["b"])
    return r


def try_reads_list(x):
    xs = [x[0], x[1] * x[2]]
    try:
        s = sum(v * v for v in xs)
        m = np.mean(np.array(xs))
    except ZeroDivisionError:
        s, m = 0.0, 0.0
    return s * m


@pytest.mark.parametrize("f", [logs_then_cubes, logs_through_module_and_adapter, try_with_helper, try_in_loop,
                               try_writes_array, try_handler_taken, try_reads_list], ids=lambda f: f.__name__)
def test_statements(f):
    _second_orders(f, X2)


# ================================================================ namedtuples built inside


class Params(typing.NamedTuple):
    w: np.ndarray
    b: float
    c: float = 2.0


Pair = collections.namedtuple("Pair", ["u", "v"])


def namedtuple_inside(x):
    p = Params(x ** 2, x[1])
    return np.sum(np.exp(p.w * p.b)) + p.w[0] * p.c


def collections_namedtuple_inside(x):
    q = Pair(np.sin(x), x[0] * x[2])
    u, v = q
    return np.sum(q.u * v) + u[1] ** 2


@pytest.mark.parametrize("f", [namedtuple_inside, collections_namedtuple_inside], ids=lambda f: f.__name__)
def test_namedtuples(f):
    _second_orders(f, X2)


# ================================================================ random permutations, choices, draws; partition


def permutation_of_squares(x):
    return np.sum(np.random.default_rng(3).permutation(x * x) * np.arange(3.0)) * x[0]


def permutation_legacy(x):
    return np.sum(np.random.RandomState(0).permutation(np.sin(x)) * np.arange(1.0, 4.0))


def choice_without_replacement(x):
    return np.sum(np.random.default_rng(1).choice(x * x, size=2, replace=False) * np.array([1.0, 2.0]) * x[0])


def choice_rows_with_replacement(x):
    A = np.outer(x, np.array([1.0, -0.5]))
    return np.sum(np.random.default_rng(2).choice(A, 4) ** 2)


def poisson_weights(x):
    np.random.seed(0)
    return np.sum(np.random.poisson(np.abs(x) * 10) * x ** 2)


def python_random_gauss(x):
    import random

    random.seed(0)
    return random.gauss(x[0], abs(x[1])) * x[2] + random.Random(4).uniform(x[1], 2.0)


def partition_in_place(x):
    y = x * 3.0 + np.array([0.0, 0.4, -0.7])
    y.partition(1)
    return y[1] * 2.0 + y[0] ** 2 * x[2]


@pytest.mark.parametrize("f", [permutation_of_squares, choice_without_replacement,
                               choice_rows_with_replacement, poisson_weights, python_random_gauss, partition_in_place],
                         ids=lambda f: f.__name__)
def test_random_draws_and_partition(f):
    nestings = tuple(NESTINGS) if f is not python_random_gauss else ("jacrev_jacfwd", "jacfwd_jacfwd")
    _second_orders(f, X2, nestings)


def test_legacy_random_state_permutation_first_order():
    """RandomState's permutation at first order (its higher orders are refused by name: only a Generator's draws
    have models, nested_draws.py)."""
    check_derivatives(permutation_legacy, X2.copy())
    with pytest.raises(mc.MooncakeError, match="RandomState.permutation"):
        mc.hessian(permutation_legacy)(X2.copy())


def test_permutation_of_equal_rows_is_refused():
    def f(x):
        y = np.array([x[0], x[0], x[1]])
        return np.sum(np.random.default_rng(0).permutation(y) * np.arange(3.0))

    for api in (mc.grad, mc.jacfwd):
        with pytest.raises(mc.MooncakeError, match="equal rows"):
            api(f)(X2.copy())


# ================================================================ module-level caches of constants (hunt5 2018)

_CACHE = {}
_SLOTS = [None, None]


def _matrix_of_size(n):
    if n not in _CACHE:  # a module-level cache of constant matrices, keyed by the input's length
        _CACHE[n] = np.diag(-2.0 * np.ones(n)) + np.diag(np.ones(n - 1), 1) + np.diag(np.ones(n - 1), -1)
    return _CACHE[n]


def cache_of_constant_matrices(x):
    _CACHE.clear()
    return x @ _matrix_of_size(len(x)) @ x


def cache_of_nodes(x):
    _SLOTS[0] = None
    if _SLOTS[0] is None:
        _SLOTS[0] = np.polynomial.legendre.leggauss(4)
    t, w = _SLOTS[0]
    return np.sum(w * np.sin(x[0] * t + x[2])) * x[1]


def cache_of_identity(x):
    _SLOTS[1] = np.eye(len(x))
    return x @ _SLOTS[1] @ x * x[0]


@pytest.mark.parametrize("f", [cache_of_constant_matrices, cache_of_nodes, cache_of_identity], ids=lambda f: f.__name__)
def test_module_cache_of_constants(f):
    # (reverse mode over the forward code of a helper filling the cache with an int parameter n still counts the
    # cache as written with input data: those nestings stay refused for it)
    second = ("jacrev_jacfwd", "jacfwd_jacfwd") if f is cache_of_constant_matrices else \
        ("hessian", "jacrev_grad", "jacfwd_jacfwd")
    _second_orders(f, X2, second)


def _stores_input(x):
    _SLOTS[0] = x * 2


def _stores_list_appended_later(x):
    buf = [0.0]
    _SLOTS[0] = buf
    buf[0] = x[0]
    return x[0] * 2.0


def _stores_array_written_later(x):
    b = np.zeros(3)
    _SLOTS[0] = b
    np.add(b, x, out=b)
    return np.sum(b)


def _scales_cached_part(x):
    _SLOTS[0] = np.polynomial.legendre.leggauss(3)
    y = _SLOTS[0][0]
    y *= x[0]
    return np.sum(y)


@pytest.mark.parametrize("f", [lambda x: (_stores_input(x), np.sum(x))[1], _stores_list_appended_later,
                               _stores_array_written_later, _scales_cached_part], ids=["value", "list", "out", "view"])
@pytest.mark.parametrize("api", [mc.grad, mc.jacfwd], ids=["reverse", "forward"])
def test_module_state_written_with_input_data_stays_refused(f, api):
    with pytest.raises(mc.MooncakeError, match="module-level object"):
        api(f)(X2.copy())


# ================================================================ third orders through linear algebra


def _spd(x):
    return np.outer(x, x) + np.diag([2.0, 3.0, 4.0]) + x[0] * np.eye(3)


def third_slogdet(x):
    return np.linalg.slogdet(_spd(x))[1]


def third_cholesky(x):
    return np.sum(np.linalg.cholesky(_spd(x)) ** 2 * np.arange(9.0).reshape(3, 3))


def third_eigh(x):
    return np.sum(np.linalg.eigh(_spd(x))[0] ** 3)


def third_solve(x):
    return np.sum(np.linalg.solve(_spd(x), x) * x)


@pytest.mark.parametrize("f", [third_slogdet, third_cholesky, third_eigh, third_solve], ids=lambda f: f.__name__)
def test_third_order_through_linear_algebra(f):
    T = _fd(lambda z: mc.hessian(f)(z.copy()), X, h=1e-5)
    np.testing.assert_allclose(mc.jacfwd(mc.hessian(f))(X.copy()), T, rtol=1e-4, atol=1e-4)
