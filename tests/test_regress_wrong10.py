"""wrong10: derivatives that were silently wrong on the trunk of 2026-11-28 11:15, now right or honestly refused.

1. A `for` loop over enumerate / zip nested in each other (`enumerate(zip(y))`, `zip(x, enumerate(y))`,
   `zip(zip(y, x), x)`) whose body writes an item of y the loop reads later: Python's enumerate and zip read
   their sequences' items when the loop asks for them, the lowering took the inner zip or enumerate object
   whole (its items as they were when the loop started).  Both modes were wrong; now every sequence is indexed
   in step (frontend/loops.py).  Where the items really are computed up front (reversed, map, filter, a
   generator expression nested in enumerate / zip) a body writing what they read is refused, naming the line.
2. Reverse mode's 0 * inf where an infinite adjoint (sqrt, cbrt, a fractional power at 0) meets a product's
   partial that is exactly 0: hand-written pairwise distances (the diagonal), math.sqrt(d[0] * d[0] + ...) at
   d == 0, np.sqrt(d @ d), sqrt(x * 0.0) were nan where forward mode and finite differences give 0
   (rules/strong_zeros.py times_partial).
3. An overflowed value on np.where's (np.clip's, np.minimum's) unselected side: exp's `g * exp(x)` was 0 * inf = nan
   in reverse mode and in the Hessian (times_overflowing_slope, and quotients under a selector).
4. sqrt(counts / counts.sum()) with empty bins at the second order (hessian, jacfwd(grad), jacrev(grad)): nan.
Every case here failed (wrong, nan, or a crash) on the trunk of 2026-11-28 11:15 (3118e67).
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.errors import MooncakeError

X6 = np.array([0.3, -0.7, 1.1, 0.45, 0.2, 0.8])
X8 = np.array([0.3, -0.7, 1.1, 0.45, 0.2, 0.8, -0.35, 0.6])


def _check(f, x, mode):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mc.testing.check_derivatives(f, x, modes=(mode,))


MODES = ("forward", "reverse")


# ---------------------------------------------------------------- 1. nested enumerate / zip written ahead
def enum_zip_ahead(x):
    y = x.copy()
    s = 0.0
    for i, a in enumerate(zip(y)):
        if i + 1 < len(y):
            y[i + 1] += a[0]
        s = s + a[0]
    return s


def enum_zip_two_written(x):
    y = x.copy()
    z = x * 2.0
    s = 0.0
    for i, (a, b) in enumerate(zip(y, z), start=1):
        if i < len(y):
            y[i] += a * b
            z[i] -= 0.5 * a
        s = s + a * a + b
    return s


def enum_zip_whole_written(x):
    y = x.copy()
    s = 0.0
    for i, a in enumerate(zip(y)):
        y[:] = y * 0.5 + a[0]
        s = s + a[0] * (i + 1)
    return s


def enum_zip_column(x):
    Y = x.reshape(-1, 2).copy()
    s = 0.0
    for i, (a,) in enumerate(zip(Y[:, 0])):
        if i + 1 < Y.shape[0]:
            Y[i + 1, 0] += 2.0 * a * Y[i, 1]
        s = s + a ** 2
    return s


def zip_enum_inner(x):
    y = x.copy()
    s = 0.0
    for a, (i, b) in zip(x, enumerate(y)):
        if i + 1 < len(y):
            y[i + 1] += a * b
        s = s + b
    return s


def zip_of_zip_written(x):
    y = x.copy()
    s = 0.0
    i = 0
    for (a, b), c in zip(zip(y, x), y):
        if i + 1 < len(y):
            y[i + 1] = y[i + 1] * c + a * b
        s = s + a + c
        i += 1
    return s


def enum_zip_tuple_target(x):
    y = x.copy()
    s = 0.0
    for pair in enumerate(zip(y, x)):
        i, (a, b) = pair
        if i + 1 < len(y):
            y[i + 1] += a * b
        s = s + a
    return s


def enum_zip_list_written(x):
    y = [x[0], x[1], x[2], x[3]]
    s = 0.0
    for i, (a, b) in enumerate(zip(y, x)):
        if i + 1 < len(y):
            y[i + 1] = y[i + 1] + a * b
        s = s + a * a
    return s


NESTED_WRITTEN = [enum_zip_ahead, enum_zip_two_written, enum_zip_whole_written, enum_zip_column, zip_enum_inner,
                  zip_of_zip_written, enum_zip_tuple_target, enum_zip_list_written]


@pytest.mark.parametrize("x", [X6, X8], ids=["n6", "n8"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f", NESTED_WRITTEN, ids=lambda f: f.__name__)
def test_nested_enumerate_zip_written(f, mode, x):
    _check(f, x, mode)


@pytest.mark.parametrize("f", [enum_zip_ahead, enum_zip_two_written, zip_enum_inner, zip_of_zip_written],
                         ids=lambda f: f.__name__)
def test_nested_enumerate_zip_written_hessian(f):
    x = X6
    h = 1e-5
    g = mc.grad(f)
    fd = np.stack([(g(x + h * e) - g(x - h * e)) / (2 * h) for e in np.eye(len(x))], -1)
    np.testing.assert_allclose(mc.hessian(f)(x), fd, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- 1b. items computed up front: refused
def enum_reversed_written(x):
    y = x.copy()
    s = 0.0
    n = len(y)
    for i, v in enumerate(reversed(y)):
        if n - 2 - i >= 0:
            y[n - 2 - i] += 0.5 * v
        s = s + v * v
    return s


def zip_reversed_written(x):
    y = x.copy()
    s = 0.0
    for a, b in zip(x, reversed(y)):
        y[0] += a * b
        s = s + b * b
    return s


def enum_map_written(x):
    y = x.copy()
    s = 0.0
    for i, v in enumerate(map(lambda t: t * 1.5, y)):
        if i + 1 < len(y):
            y[i + 1] += v
        s = s + v * v
    return s


def zip_genexp_written(x):
    y = x.copy()
    s = 0.0
    for i, (a, b) in enumerate(zip(y, (t * 2.0 for t in y))):
        if i + 1 < len(y):
            y[i + 1] += a * b
        s = s + b
    return s


def zip_filter_written(x):
    y = x.copy()
    s = 0.0
    for i, v in zip(range(10), filter(lambda t: t > 0.0, y)):
        y[-1] += v
        s = s + v * v
    return s


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f, says", [(enum_reversed_written, r"reversed\(y\) whose body writes y"),
                                     (zip_reversed_written, r"reversed\(y\) whose body writes y"),
                                     (enum_map_written, "may change what it reads"),
                                     (zip_genexp_written, "may change what it reads"),
                                     (zip_filter_written, "may change what it reads")],
                         ids=lambda v: getattr(v, "__name__", "says"))
def test_items_computed_up_front_refused(f, says, mode):
    with pytest.raises(MooncakeError, match=says) as info:
        _check(f, X6, mode)
    assert "test_regress_wrong10.py" in str(info.value)


# ---------------------------------------------------------------- 2. an infinite adjoint meets a zero partial
# sqrt's adjoint at 0 is inf (its honest slope); a product before it whose partial is exactly 0 there (the diagonal
# of hand-written pairwise distances, d * d at d == 0, x * 0.0) gave inf * 0 = nan in reverse mode, where forward
# mode (a strong zero at sqrt) and finite differences give 0.
def _points(x, dim):
    return x.reshape(-1, dim)


def pdist_exp(x, dim=2):
    P = _points(x, dim)
    D = np.sqrt(np.sum((P[:, None, :] - P[None, :, :]) ** 2, axis=-1))
    return np.sum(np.exp(-D))


def pdist_sum(x, dim=2):
    P = _points(x, dim)
    D = np.sqrt(((P[:, None] - P[None]) ** 2).sum(-1))
    return np.sum(D * D * D) + np.sum(D)


def pdist_square(x, dim=2):
    P = _points(x, dim)
    D = np.sqrt(np.sum(np.square(P[:, None, :] - P[None, :, :]), axis=-1))
    return np.sum(1.0 / (1.0 + D))


def pdist_multiply(x, dim=2):
    P = _points(x, dim)
    diff = P[:, None, :] - P[None, :, :]
    D = np.sqrt(np.sum(diff * diff, axis=-1))
    return np.sum(np.exp(-0.5 * D)) + np.sum(D ** 3)


def pdist_half_power(x, dim=2):
    P = _points(x, dim)
    D = np.sum((P[:, None, :] - P[None, :, :]) ** 2, axis=-1) ** 0.5
    return np.sum(np.exp(-D))


def pdist_math_loop(x, dim=2):
    P = _points(x, dim)
    s = 0.0
    for i in range(P.shape[0]):
        for j in range(P.shape[0]):
            d = P[i] - P[j]
            s = s + math.exp(-math.sqrt(sum(d[k] * d[k] for k in range(dim))))
    return s


def pdist_matmul_loop(x, dim=2):
    P = _points(x, dim)
    s = 0.0
    for i in range(P.shape[0]):
        for j in range(P.shape[0]):
            d = P[i] - P[j]
            s = s + np.exp(-np.sqrt(d @ d))
    return s


def pdist_dot_loop(x, dim=2):
    P = _points(x, dim)
    s = 0.0
    for i in range(P.shape[0]):
        for j in range(i, P.shape[0]):
            d = P[i] - P[j]
            s = s + math.exp(-math.sqrt(np.dot(d, d))) + 0.5 * np.sqrt(d.dot(d))
    return s


def sqrt_of_self_difference(x, dim=2):
    z = x[0] - x[0]
    w = x[1] - x[1]
    return math.sqrt(z * z + w * w) + x[1] ** 2 + math.sqrt(x[2] ** 2 + 1.0)


def sqrt_of_times_zero(x, dim=2):
    return np.sum(np.sqrt(x * 0.0)) + np.sum(x ** 2) + np.sum(np.sqrt(np.abs(x) * 0.0 + x * x + 1.0))


INFINITE_ADJOINT = [pdist_exp, pdist_sum, pdist_square, pdist_multiply, pdist_half_power, pdist_math_loop,
                    pdist_matmul_loop, pdist_dot_loop, sqrt_of_self_difference, sqrt_of_times_zero]
POINTS = {2: np.array([0.3, -0.7, 1.1, 0.45, -0.2, 0.8]), 3: np.array([0.3, -0.7, 1.1, 0.45, -0.2, 0.8, 0.9, 0.1, -0.6,
                                                                      0.25, 0.6, -0.4])}


def _fd_jacobian(g, x, h=1e-5):
    return np.stack([(np.asarray(g(x + h * e)) - np.asarray(g(x - h * e))) / (2 * h) for e in np.eye(len(x))], -1)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f", INFINITE_ADJOINT, ids=lambda f: f.__name__)
def test_infinite_adjoint_meets_zero_partial(f, mode, dim):
    x = POINTS[dim]
    with np.errstate(all="ignore"):
        _check(lambda v: f(v, dim), x, mode)
        assert np.all(np.isfinite(mc.grad(lambda v: f(v, dim))(x)))


@pytest.mark.parametrize("f", [pdist_exp, pdist_multiply, pdist_math_loop, pdist_matmul_loop, pdist_dot_loop,
                               sqrt_of_self_difference],
                         ids=lambda f: f.__name__)
def test_infinite_adjoint_meets_zero_partial_hessian(f):
    """The Hessian away from the points' coincidences (the diagonal is structural): finite, and equal to finite
    differences of the gradient."""
    x = POINTS[2]
    with np.errstate(all="ignore"):
        H = mc.hessian(f)(x)
        want = _fd_jacobian(mc.grad(f), x)
    assert np.all(np.isfinite(want))
    np.testing.assert_allclose(H, want, rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------- 3. a zero adjoint meets an overflowed value
def where_exp(x):
    return np.sum(np.where(x < 50, np.exp(x), x))


def where_exp_scaled(x):
    with np.errstate(all="ignore"):
        big = np.exp(x * 400.0)
    return np.sum(np.where(x < 1.0, big, 0.0))


def where_exp_product(x):
    return np.sum(np.where(x < 50, 2.0 * np.exp(x) * x, np.sin(x)))


def where_expm1_square(x):
    return np.sum(np.where(x > 600, 0.0, np.expm1(x) ** 2))


def where_exp_times_exp(x):
    return np.sum(np.where(x < 20, np.exp(x) * np.exp(x), x ** 2))


def clip_exp(x):
    return np.sum(np.clip(np.exp(x), 0.0, 5.0))


def minimum_exp2(x):
    return np.sum(np.minimum(np.exp2(2.0 * x), 3.0) * x)


def softplus_stable(x):
    return np.sum(np.where(x > 30, x, np.log1p(np.exp(x))))


OVERFLOW = [where_exp, where_exp_scaled, where_exp_product, where_expm1_square, where_exp_times_exp, clip_exp,
            minimum_exp2, softplus_stable]
XBIG = np.array([1.0, 1000.0, -3.0, 800.0])  # (exp overflows at 1000 and 800, on the side not selected)
XSCALED = np.array([-0.01, 0.005, 3.0, -0.002])  # (exp(400 x) overflows at 3.0)


def _overflow_point(f):
    return XSCALED if f is where_exp_scaled else XBIG


@pytest.mark.parametrize("x", ["mixed", "shifted"])
@pytest.mark.parametrize("f", OVERFLOW, ids=lambda f: f.__name__)
def test_unselected_overflow(f, x):
    """Reverse mode (forward mode was right: np.where selects the tangents)."""
    x = _overflow_point(f) + (0.0 if x == "mixed" else 0.004)
    with np.errstate(all="ignore"):
        _check(f, x, "reverse")
        assert np.all(np.isfinite(mc.grad(f)(x)))


@pytest.mark.parametrize("api", ["hessian", "jacfwd"])
@pytest.mark.parametrize("f", OVERFLOW, ids=lambda f: f.__name__)
def test_unselected_overflow_second_order(f, api):
    x = _overflow_point(f)
    with np.errstate(all="ignore"):
        H = mc.hessian(f)(x) if api == "hessian" else mc.jacfwd(mc.grad(f))(x)
        want = _fd_jacobian(mc.grad(f), x, h=1e-6)
    assert np.all(np.isfinite(want))
    np.testing.assert_allclose(H, want, rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------- 4. sqrt of normalised counts with empty bins
def _counts(x, empty):
    items = [x[i] ** 2 + 0.1 * x[(i + 1) % len(x)] ** 2 for i in range(len(x))]
    return np.array([0.0 if i in empty else v for i, v in enumerate(items)])


def sqrt_normalised(x, empty=(0,)):
    c = _counts(x, empty)
    p = c / c.sum()
    return np.sum(np.sqrt(p) * np.arange(1.0, len(x) + 1.0))


def sqrt_normalised_divide(x, empty=(0,)):
    c = _counts(x, empty)
    p = np.divide(c, np.sum(c))
    return np.sum(np.sqrt(p)) ** 2


def half_power_normalised(x, empty=(0,)):
    c = _counts(x, empty)
    p = c / np.sum(c)
    return np.sum(p ** 0.5 * np.cos(np.arange(len(x))))


def hellinger(x, empty=(0,)):
    c = _counts(x, empty)
    p = c / c.sum()
    q = np.full(len(x), 1.0 / len(x))
    return np.sum((np.sqrt(p) - np.sqrt(q)) ** 2)


NORMALISED = [sqrt_normalised, sqrt_normalised_divide, half_power_normalised, hellinger]


@pytest.mark.parametrize("empty", [(0,), (2,), (0, 3)], ids=str)
@pytest.mark.parametrize("api", ["hessian", "jacfwd", "jacrev"])
@pytest.mark.parametrize("f", NORMALISED, ids=lambda f: f.__name__)
def test_normalised_sqrt_second_order(f, api, empty):
    x = np.array([0.7, -1.3, 2.1, 0.9, -0.5])
    g = lambda v: f(v, empty)  # noqa: E731
    with np.errstate(all="ignore"):
        H = mc.hessian(g)(x) if api == "hessian" else getattr(mc, api)(mc.grad(g))(x)
        want = _fd_jacobian(mc.grad(g), x)
    assert np.all(np.isfinite(want))
    np.testing.assert_allclose(H, want, rtol=1e-4, atol=1e-5)
