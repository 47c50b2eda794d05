"""Issue 12: NumPy functions real code calls (mooncake_ast/rules/numpy_extra.py), used the way a user
writes them, checked in both modes with check_derivatives AND against central finite differences
computed here (check_derivatives compares reverse with forward, so both being wrong alike passes it),
plus known values and the options that are refused instead of given a wrong number."""
import copy

import numpy as np
import pytest

import mooncake_ast as mc
from mooncake_ast.testing import check_derivatives

RNG = np.random.default_rng(12)


def U(*shape, lo=-1.0, hi=1.0):
    return RNG.uniform(lo, hi, size=shape) if shape else float(RNG.uniform(lo, hi))


def fd_grad(f, args, i, h=1e-6):
    """d f / d args[i] by central differences (f scalar-valued)."""
    x = args[i]
    if isinstance(x, float):
        a, b = list(copy.deepcopy(args)), list(copy.deepcopy(args))
        a[i], b[i] = x + h, x - h
        return (f(*a) - f(*b)) / (2 * h)
    g = np.zeros(np.shape(x))
    for idx in np.ndindex(g.shape):
        a, b = copy.deepcopy(args), copy.deepcopy(args)
        a[i][idx] += h
        b[i][idx] -= h
        g[idx] = (f(*a) - f(*b)) / (2 * h)
    return g


def check(f, *args, argnums=None, tol=1e-5):
    """Both modes against each other and against finite differences (reverse: mc.grad; forward: mc.jvp)."""
    check_derivatives(f, *copy.deepcopy(args))
    argnums = tuple(i for i, a in enumerate(args) if isinstance(a, (float, np.ndarray))) if argnums is None else argnums
    grads = mc.grad(f, argnums=argnums)(*copy.deepcopy(args))
    grads = grads if isinstance(grads, tuple) else (grads,)
    for i, g in zip(argnums, grads):
        fd = fd_grad(f, args, i)
        np.testing.assert_allclose(g, fd, rtol=tol, atol=tol, err_msg=f"reverse, argument {i}")
        direction = U(*np.shape(args[i])) if np.ndim(args[i]) else 0.7
        tangents = tuple(direction if j == i else (0.0 if isinstance(a, float) else np.zeros(np.shape(a)))
                         for j, a in enumerate(args))
        _, dy = mc.jvp(f, copy.deepcopy(args), tangents)
        np.testing.assert_allclose(dy, np.sum(fd * direction), rtol=tol, atol=tol, err_msg=f"forward, argument {i}")


# ---------------------------------------------------------------- building and splitting arrays
def append_features(x, extra):
    row = np.append(x, extra)  # flattened
    grid = np.append(x.reshape(2, 2), extra.reshape(1, 2), axis=0)
    return np.sum(row ** 2) + np.sum(np.sin(grid) * np.arange(6.0).reshape(3, 2))


def stack_columns(a, b):
    m = np.column_stack((a, b, a * b))
    d = np.dstack([m, m ** 2])
    return np.sum(m @ np.array([1.0, -2.0, 0.5])) + np.sum(d[..., 1] * d[..., 0])


def grid_energy(x, y):
    X, Y = np.meshgrid(x, y)
    I, J = np.meshgrid(x, y, indexing="ij", sparse=True)
    return np.sum(np.exp(-X ** 2 - Y * X)) + np.sum(I * J ** 2)


def split_halves(x):
    left, right = np.hsplit(x, 2)
    top, bottom = np.vsplit(x, [1])
    return np.sum(left * right) + np.sum(top ** 3) - np.sum(bottom)


def depth_split(x):
    front, back = np.dsplit(x, 2)
    return np.sum(front * back ** 2)


def top_k_sum(x):
    part = np.partition(x, -2)  # the two largest at the end
    return part[-1] * 3.0 + part[-2]


def columns_smallest(x):
    part = np.partition(x, 1, axis=0)
    return np.sum(part[:2] ** 2)


def piecewise(x):
    return np.sum(np.select([x < -0.3, x > 0.4], [x ** 2, np.sin(x)], 0.5 * x))


def int_operands(x, s):
    """Integer arrays and Python numbers beside the differentiated ones (their tangents are zeros of their shape)."""
    a = np.append(np.arange(3), x)
    b = np.column_stack((np.arange(3), x[:3], [s, 2 * s, 1.0]))
    X, Y = np.meshgrid(np.arange(2), x[:2])
    c = np.select([x > 0.0], [x], 7)
    d = np.convolve(x, [1, 2]) + np.convolve([1, 0, s], x, "same").sum()
    return np.sum(a * a) + np.sum(b ** 3) + np.sum(X * Y) + np.sum(c * c) + np.sum(d ** 2) + np.average(np.arange(4), None, x ** 2)


def clean_log(x):
    return np.sum(np.nan_to_num(np.log(x), nan=0.0, neginf=-10.0) * x)


@pytest.mark.parametrize("f, args", [
    (append_features, (U(4), U(2))),
    (stack_columns, (U(3), U(3))),
    (grid_energy, (U(3), U(4))),
    (split_halves, (U(2, 4),)),
    (depth_split, (U(2, 2, 4),)),
    (top_k_sum, (U(6),)),
    (columns_smallest, (U(4, 3),)),
    (piecewise, (np.array([-0.8, -0.1, 0.2, 0.7, 0.35]),)),
    (clean_log, (np.array([0.5, 1.5, 2.0]),)),
    (int_operands, (np.array([0.5, -0.3, 0.8, 0.2]), 0.7)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_copies(f, args):
    check(f, *args)


def test_copies_known_values():
    x = np.array([0.3, -1.0, 2.0, 0.5, 1.0])
    assert mc.grad(top_k_sum)(x).tolist() == [0.0, 0.0, 3.0, 0.0, 1.0]
    g = mc.grad(lambda_nan_to_num)(np.array([1.0, -1.0, 2.0, 4.0]))
    assert g.tolist() == [3.0, 0.0, 1.5, 1.0]  # log(-1) = nan is replaced: slope 0
    assert mc.grad(piecewise)(np.array([-1.0, 0.0, 1.0])).tolist() == [-2.0, 0.5, np.cos(1.0)]


def lambda_nan_to_num(x):
    y = np.log(x * x * x)  # nan at -1
    return np.sum(np.nan_to_num(y)[:3]) + np.nan_to_num(x)[3]


# ---------------------------------------------------------------- statistics
def weighted_loss(x, w):
    return np.average((x - 0.2) ** 2, 0, w).sum() + np.average(x, 0, w[:, None] * np.ones(3)).sum()


def weighted_keyword(x, w):
    return np.average(np.sin(x), axis=1, weights=w).sum()  # forward mode only: see test_refused


def weighted_rows(x, w):
    return np.sum(np.average(x, 1, w) ** 2)


def robust_scale(x):
    med = np.median(x)
    spread = np.ptp(x, axis=0)
    return np.sum((x - med) ** 2) / np.sum(spread) + np.median(x, axis=1).sum()


def quantile_loss(x):
    lo, hi = np.quantile(x, [0.1, 0.9])
    p = np.percentile(x, 50.0, axis=0)
    return hi - lo + np.sum(p ** 2) + np.quantile(x, 0.3, method="midpoint")


MISSING = np.array([[True, False, False], [False, False, True], [False, False, False], [False, True, False],
                    [False, False, False], [True, False, False]])


def nan_summaries(x):
    x = np.where(MISSING, np.nan, x)  # missing data
    mu = np.nanmean(x, axis=0)
    sd = np.nanstd(x, axis=0, ddof=1)
    return np.sum(mu * sd) + np.nanmax(x) - np.nanmin(x, axis=1).sum() + np.nanvar(x) + np.nansum(x * 2.0, axis=1)[2]


def nan_standardize(x):
    x = np.where(MISSING, np.nan, x)
    z = (x - np.nanmean(x, axis=0)) / np.nanstd(x, axis=0)
    return np.nansum(z * z * np.arange(1.0, 4.0))


def gauss_cov(x):
    c = np.cov(x)
    r = np.corrcoef(x, rowvar=True)
    return np.linalg.slogdet(c + np.eye(3))[1] + np.sum(r ** 3)


def paired_cov(a, b):
    return np.sum(np.cov(a, b, rowvar=False, bias=True) ** 2) + np.corrcoef(a, b)[0, 1]


@pytest.mark.parametrize("f, args", [
    (weighted_loss, (U(4, 3), U(4, lo=0.5, hi=2.0))),
    (weighted_rows, (U(3, 4), U(4, lo=0.5, hi=2.0))),
    (robust_scale, (U(5, 3),)),
    (quantile_loss, (U(6, 2),)),
    (nan_summaries, (U(6, 3),)),
    (gauss_cov, (U(3, 6),)),
    (paired_cov, (U(5), U(5))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_statistics(f, args):
    check(f, *args)


def test_nan_reductions_after_nan_arithmetic():
    x = U(6, 3)
    check_derivatives(nan_standardize, x, modes=("forward",))
    check_derivatives(weighted_keyword, U(2, 3), U(3, lo=0.5, hi=2.0), modes=("forward",))


def test_nan_reductions_after_nan_arithmetic_reverse():
    """The zero adjoint nansum gives a NaN entry met the NaN of (x - mu) ** 2 (0 * nan = nan) until wrong10's strong
    products: the gradient has no nan, and agrees with forward mode and finite differences."""
    x = U(6, 3)
    g = mc.grad(nan_standardize)(x)
    assert not np.any(np.isnan(g))
    check_derivatives(nan_standardize, x, modes=("reverse",))


def test_statistics_known_values():
    assert mc.grad(lambda_median)(np.array([3.0, 1.0, 2.0])).tolist() == [0.0, 0.0, 1.0]
    assert mc.grad(lambda_median)(np.array([4.0, 1.0, 3.0, 2.0])).tolist() == [0.0, 0.0, 0.5, 0.5]
    # quantile 0.25 of 5 values: the second smallest (virtual index exactly 1)
    assert mc.grad(lambda_q25)(np.array([5.0, 1.0, 4.0, 2.0, 3.0])).tolist() == [0.0, 0.0, 0.0, 1.0, 0.0]
    assert mc.grad(lambda_ptp)(np.array([1.0, 3.0, -2.0, 3.0])).tolist() == [0.0, 1.0, -1.0, 0.0]  # ties: the first
    g = mc.grad(lambda_nanmean)(np.array([1.0, 2.0, 3.0, 5.0]))
    assert np.allclose(g, [0.5, 0.0, 0.5, 0.0])
    ga, gw = mc.grad(lambda_average, argnums=(0, 1))(np.array([1.0, 3.0]), np.array([1.0, 3.0]))
    assert np.allclose(ga, [0.25, 0.75]) and np.allclose(gw, [-0.375, 0.125])


def lambda_median(x):
    return np.median(x)


def lambda_q25(x):
    return np.quantile(x, 0.25)


def lambda_ptp(x):
    return np.ptp(x)


def lambda_nanmean(x):
    return np.nanmean(np.where(np.array([False, True, False, True]), np.nan, x))


def lambda_average(a, w):
    return np.average(a, None, w)


# ---------------------------------------------------------------- calculus on samples
def field_gradient(f):
    gx, gy = np.gradient(f, 0.5, 2.0)
    g1 = np.gradient(f[0], np.array([0.0, 0.3, 1.0, 1.2]), edge_order=2)
    return np.sum(gx * gy) + np.sum(g1 ** 2) + np.sum(np.gradient(f, axis=0) ** 2)


def integrate(y, x):
    return np.trapezoid(np.sin(y), x) + np.trapezoid(y * y, dx=0.25) + np.trapezoid(np.outer(y, x), x, axis=1).sum()


def lookup_curve(q, fp):
    xp = np.array([-1.0, -0.2, 0.3, 1.0])
    return np.sum(np.interp(q, xp, fp) ** 2) + np.interp(0.1, xp, fp * fp, 0.0, 1.0)


def smooth_signal(a, k):
    s = np.convolve(a, k, mode="same")
    c = np.correlate(a, k, "valid")
    f = np.convolve(k, a)
    return np.sum(s ** 2) + np.sum(c * np.arange(len(c))) + np.sum(np.correlate(k, a, "full") * f[: len(a) + len(k) - 1])


@pytest.mark.parametrize("f, args", [
    (field_gradient, (U(4, 4),)),
    (integrate, (U(5), np.sort(U(5)) + np.arange(5.0))),
    (lookup_curve, (np.array([-1.5, -0.5, 0.0, 0.25, 0.9, 1.5]), U(4))),
    (smooth_signal, (U(7), U(3))),
    (smooth_signal, (U(3), U(5))),
    (smooth_signal, (U(4), U(4))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_calculus(f, args):
    check(f, *args)


def test_calculus_known_values():
    xp, fp = np.array([0.0, 1.0, 3.0]), np.array([0.0, 2.0, 3.0])
    for x, slope in ((0.5, 2.0), (1.0, 0.5), (2.0, 0.5), (3.0, 0.0), (-1.0, 0.0), (0.0, 2.0)):
        assert mc.grad(lambda_interp)(x, xp, fp) == slope  # the right-hand slope
        assert mc.jvp(lambda_interp, (x, xp, fp), (1.0, np.zeros(3), np.zeros(3)))[1] == slope
    g = mc.grad(lambda_interp, argnums=2)(0.5, xp, fp)
    assert g.tolist() == [0.5, 0.5, 0.0]
    assert mc.grad(lambda_trapz)(np.array([1.0, 2.0, 4.0])).tolist() == [0.5, 1.0, 0.5]


def lambda_interp(x, xp, fp):
    return np.interp(x, xp, fp)


def lambda_trapz(y):
    return np.trapezoid(y)


def test_convolution_windows_match_numpy():
    """The result windows the adjoints use, against NumPy itself at every size pair."""
    for n in range(1, 6):
        for m in range(1, 6):
            a, v = U(n), U(m)
            for mode in ("full", "same", "valid"):
                check_derivatives(lambda_convolve, a, v, mode)
                check_derivatives(lambda_correlate, a, v, mode)


def lambda_convolve(a, v, mode):
    return np.convolve(a, v, mode)


def lambda_correlate(a, v, mode):
    return np.correlate(a, v, mode)


# ---------------------------------------------------------------- linear algebra
def least_squares_pinv(a, b):
    return np.sum((np.linalg.pinv(a) @ b) ** 2)


def markov(p):
    return np.sum(np.linalg.matrix_power(p, 4)[0]) + np.trace(np.linalg.matrix_power(p + 2.0 * np.eye(3), -2))


def svd_square(a):
    u, s, vt = np.linalg.svd(a)  # full_matrices=True, square
    return np.sum(s ** 2) + np.sum(np.abs(u[:, 0] * vt[0]))


def svd_values(a):
    return np.sum(np.linalg.svd(a, compute_uv=False) ** 3)  # full_matrices=True does not matter


@pytest.mark.parametrize("f, args", [
    (least_squares_pinv, (U(4, 2), U(4))),
    (least_squares_pinv, (U(2, 3), U(2))),
    (markov, (U(3, 3, lo=0.0, hi=0.5),)),
    (svd_square, (U(3, 3) + 2.0 * np.diag([3.0, 2.0, 1.0]),)),
    (svd_values, (U(4, 2),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_linalg(f, args):
    check(f, *args)


# ---------------------------------------------------------------- refused, never a wrong number


def average_weights_kw(a, w):
    return np.average(a, weights=w)




def select_default_kw(a, d):
    return np.sum(np.select([a > 0.0], [a], default=d))


def gradient_spacing(f, h):
    return np.sum(np.gradient(f, h))


def meshgrid_views(x, y):
    X, Y = np.meshgrid(x, y, copy=False)
    return np.sum(X * Y)


def lambda_quantile_nearest(x):
    # (every method= is differentiated now, numpy_quantiles.py; weights= is not)
    return np.quantile(x, 0.3, method="inverted_cdf", weights=np.array([1.0, 2.0, 1.0, 0.5, 1.0]))


def lambda_pinv_rank1(v):
    return np.sum(np.linalg.pinv(np.outer(v, v)))


def lambda_svd_tall(a):
    return np.sum(np.linalg.svd(a)[0])




@pytest.mark.parametrize("f, args, argnums, match", [
    (gradient_spacing, (U(4), np.array([0.0, 0.3, 0.7, 1.0])), (0, 1), "spacing"),  # (a uniform spacing is differentiated)
    (meshgrid_views, (U(2), U(3)), (0,), "copy=False"),
    (lambda_quantile_nearest, (U(5),), (0,), "weights"),
    (lambda_svd_tall, (U(3, 2),), (0,), "full_matrices"),
])
def test_refused(f, args, argnums, match):
    with pytest.raises(NotImplementedError, match=match):
        mc.grad(f, argnums=argnums)(*copy.deepcopy(args))
    if f is not meshgrid_views:  # that one works in forward mode
        tangents = tuple(0.5 if isinstance(a, float) else np.ones(np.shape(a)) for a in args)
        with pytest.raises(NotImplementedError, match=match):
            mc.jvp(f, copy.deepcopy(args), tangents)


@pytest.mark.parametrize("f, args", [(average_weights_kw, (U(3), U(3, lo=0.5, hi=1.0))), (select_default_kw, (U(3), 0.5))],
                         ids=["average_weights_kw", "select_default_kw"])
def test_keyword_operands_in_both_modes(f, args):
    check_derivatives(f, *copy.deepcopy(args))


def test_forward_only_options():
    """What reverse mode refuses above is right in forward mode."""
    a, d = np.array([0.3, -0.2, 0.5]), 0.5
    _, dy = mc.jvp(select_default_kw, (a, d), (np.ones(3), 1.0))
    assert dy == 2.0 + 1.0
    x, y = U(2), U(3)
    check_derivatives(meshgrid_views, x, y, modes=("forward",))


# ---------------------------------------------------------------- Python lists and numbers as operands
def list_statistics(a, b):
    xs = [a, b * 2.0, 1.0, a * b]
    return (np.median(xs) + np.average(xs[:2], None, [b, 1.0]) + np.ptp(xs) + np.nanstd([a, np.nan, b])
            + np.quantile(xs, 0.7) + np.trapezoid(xs) + np.sum(np.gradient(xs) ** 2) + np.cov(xs, [b, a, 0.0, 1.0])[0, 1])


def list_copies(a, b):
    p = np.partition([a, b, 0.0], 1)
    s = np.select([a > 0], [a * b], b)
    i = np.interp([a, b], [0.0, 1.0], [1.0, 3.0])
    return p[0] * p[1] + s + np.sum(i ** 2) + np.sum(np.nan_to_num([a, b]) * 2.0)


def list_matrices(a, b):
    m = [[a, b], [0.0, 1.0]]
    return np.sum(np.linalg.matrix_power(m, 3)) + np.sum(np.linalg.pinv(m) ** 2)


@pytest.mark.parametrize("f", [list_statistics, list_copies, list_matrices], ids=lambda f: f.__name__)
def test_list_operands(f):
    check(f, 0.3, 0.6)


def concat_constant(a):
    xs = [a, 2.0 * a]
    return (xs + [1.0])[-1] + ([1.0] + xs)[0]  # both items are the constant 1.0: derivative 0


def test_list_concatenation_with_a_constant_forward():
    assert mc.jvp(concat_constant, (0.3,), (1.0,))[1] == 0.0


def test_list_concatenation_with_a_constant_reverse():
    assert mc.grad(concat_constant)(0.3) == 0.0


# ---------------------------------------------------------------- called through a function value (rules run eagerly)
def through(fn, *args):
    return fn(*args)


def eager_mix(x, fp):
    a = through(np.median, x)
    b = through(np.append, x, fp)
    c = through(np.cov, np.stack([x[:3], fp]))
    d = through(np.linalg.pinv, np.outer(x[:3], fp) + np.eye(3))
    e = through(np.meshgrid, x, fp)[1]
    return a + np.sum(b ** 2) + np.sum(c) + np.sum(d ** 2) + np.sum(e * e) + through(np.nanstd, fp)


def test_eager_dispatch():
    check(eager_mix, U(4), U(3))


# ---------------------------------------------------------------- writes through the pieces (views) and into results
def scale_left_half(x):
    x = x * 1.0
    a, b = np.hsplit(x, 2)  # views of x
    a *= 2.0
    return np.sum(x ** 2) + np.sum(b)


def write_into_piece(x):
    x = x * 1.0
    top, bottom = np.vsplit(x, 2)
    bottom[0, 0] = top[0, 1] ** 2
    return np.sum(x * x)


def write_after_partition(x):
    x = x + 0.0
    p = np.partition(x, 1)
    x[0] = p[0] * 5.0
    return np.sum(x * np.arange(4.0)) + np.sum(p)


def write_into_append(x):
    y = np.append(x, x)
    y[0] = 3.0 * y[1]
    return np.sum(y ** 2)


@pytest.mark.parametrize("f, args", [
    (scale_left_half, (U(2, 4),)),
    (write_into_piece, (U(4, 2),)),
    (write_after_partition, (U(4),)),
    (write_into_append, (U(3),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_writes(f, args):
    check(f, *args)


def test_pinv_of_a_rank_deficient_product_keeps_its_rank():
    """pinv of a matrix made rank-deficient from the inputs (outer(v, v)): both modes along the rank-keeping
    directions the inputs move it in (it was refused; rules/numpy_linalg.py's pinv)."""
    check_derivatives(lambda_pinv_rank1, U(3))
