"""Result types of NumPy / SciPy calls (ir/library_types.py, ir/op_types.py) and their typed adjoints
(reverse/specialise.py): np.diff, np.linalg.norm along an axis or of an order, scipy.special.(log_)softmax and
logsumexp, np.take_along_axis, scipy.spatial.distance.pdist / cdist, np.argsort, np.roll, cumulative sums along an
axis, np.interp, np.gradient, np.polyval, windows, np.convolve, np.searchsorted, np.linalg.slogdet and
scipy.linalg's Cholesky functions.  Each family is checked in both modes against finite differences, over shapes
where the differenced axis is short (sizes 0 and 1 after np.diff) as well as long."""
import numpy as np
import pytest
import scipy.linalg
import scipy.spatial.distance
import scipy.special

import mooncake_ast as mc


def chain_energy(x, k):
    return 0.5 * k * np.sum(np.diff(x) ** 2) + 0.1 * np.sum(np.diff(x, n=2) ** 2)


def diff_rows(X):
    d = np.diff(X, axis=0)
    return np.sum(d * X[1:]) + np.sum(np.diff(X, n=2, axis=-1) ** 2)


def diff_broadcast(x, y):
    """np.diff(x) against y[1:] (the same size symbol) and against a size-one array."""
    return np.sum(np.diff(x) * y[1:]) + np.sum(np.diff(x) * y[:1])


def triplet(a, p, n, margin):
    dp = np.linalg.norm(a - p, axis=1)
    dn = np.linalg.norm(a - n, axis=-1, keepdims=True)
    return np.mean(np.maximum(dp - dn[:, 0] + margin, 0.0)) + np.sum(dn * a)


def row_norms_with_zero_row(X):
    Z = X * np.array([[0.0], [1.0], [2.0]])  # (a row of zeros: the norm's kink, 0 by the documented choice)
    return np.sum(np.linalg.norm(Z, axis=1) * np.arange(3.0))


def softmax_xent(W, X, labels):
    logp = scipy.special.log_softmax(X @ W, axis=1)
    return -np.mean(np.take_along_axis(logp, labels[:, None], axis=1)) + np.sum(scipy.special.softmax(X @ W, axis=0)[0])


def log_softmax_all(z):
    return np.sum(scipy.special.log_softmax(z) * np.cos(z))


def pair_energy(pos, sigma):
    d = scipy.spatial.distance.pdist(pos)
    sr6 = (sigma / d) ** 6
    return np.sum(sr6 * sr6 - sr6) + np.sum(scipy.spatial.distance.cdist(pos, pos[:2] * 1.5) ** 2)


def top_two(scores):
    idx = np.argsort(scores)[::-1][:2]
    return np.sum(scores[idx] ** 2)


def kde_logpdf(h, data, xs):
    z = (xs[:, None] - data[None, :]) / h
    return np.sum(scipy.special.logsumexp(-0.5 * z ** 2, axis=1) - np.log(h * len(data))) + \
        scipy.special.logsumexp(z[0]) + np.sum(scipy.special.logsumexp(z, axis=0, keepdims=True) * z)


def rolled_area(pts):
    x, y = pts[:, 0], pts[:, 1]
    return 0.5 * np.abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))) + np.sum(np.roll(pts, -1, axis=0) * pts)


def running_sums(X):
    return np.sum(np.cumsum(X, axis=0) * X) + np.sum(np.cumprod(1.0 + 0.1 * X, axis=-1) ** 2)


def norms_of_orders(w, A):
    return np.linalg.norm(w, 1) + 0.5 * np.linalg.norm(w, 2) ** 2 + np.linalg.norm(A, "fro") * np.linalg.norm(A, 2)


def resampled(x, y, c):
    grid = np.linspace(0.0, 1.0, 7)
    fine = np.interp(grid, np.linspace(0.0, 1.0, len(y)), y)
    return np.sum(np.gradient(fine, 0.1) ** 2) + np.sum(np.polyval(c, x) * x) + np.polyval(c, 0.3)


def windowed(x):
    w = np.hanning(len(x))
    return np.sum(np.convolve(x * w, np.array([0.25, 0.5, 0.25]), mode="same") ** 2)


def ranked(x, ref):
    pos = np.searchsorted(ref, x)
    return np.sum(x * pos) + np.sum(np.sort(x) ** 2)


def gaussian_terms(A, y):
    K = A @ A.T + 3.0 * np.eye(len(y))
    sign, logdet = np.linalg.slogdet(K)
    L = scipy.linalg.cholesky(K, lower=True)
    z = scipy.linalg.solve_triangular(L, y, lower=True)
    alpha = scipy.linalg.cho_solve(scipy.linalg.cho_factor(K), y)
    return sign * logdet + np.sum(z ** 2) + np.dot(y, alpha)


def built_from_sizes(x, W):
    """Arrays made from the operands' sizes (`np.zeros(x.shape[0])`, `np.ones((n, len(x)))`) keep their axes."""
    n = x.shape[0]
    acc = np.zeros(n)
    ones = np.ones((n, len(x)))
    acc = acc + ones @ x
    G = np.zeros((W.shape[0], W.shape[-1])) + W * 2.0
    return float(np.sum(acc * x)) + np.linalg.norm(x, 2) + np.sum(G * W) + np.sum(np.ones(len(W)) * W[:, 0])


def _rng(seed):
    return np.random.default_rng(seed)


FAMILY = [
    (chain_energy, lambda r, n: (r.normal(size=n), 2.0), (1, 2, 3, 6)),
    (diff_rows, lambda r, n: (r.normal(size=(n, 4)),), (1, 2, 5)),
    (diff_broadcast, lambda r, n: (r.normal(size=n), r.normal(size=n)), (2, 3, 6)),
    (triplet, lambda r, n: (r.normal(size=(n, 3)), r.normal(size=(n, 3)), r.normal(size=(n, 3)), 0.2), (1, 4)),
    (row_norms_with_zero_row, lambda r, n: (r.normal(size=(3, n)),), (1, 3)),
    (softmax_xent, lambda r, n: (r.normal(size=(3, 4)), r.normal(size=(n, 3)), r.integers(0, 4, size=n)), (1, 5)),
    (log_softmax_all, lambda r, n: (r.normal(size=(n, 2)),), (1, 3)),
    (pair_energy, lambda r, n: (r.normal(size=(n, 3)) * 2.0, 0.8), (2, 3, 5)),
    (top_two, lambda r, n: (r.normal(size=n),), (2, 5)),
    (kde_logpdf, lambda r, n: (0.7, r.normal(size=n), r.normal(size=3)), (1, 4)),
    (rolled_area, lambda r, n: (r.normal(size=(n, 2)),), (1, 3, 5)),
    (running_sums, lambda r, n: (r.normal(size=(n, 3)),), (1, 4)),
    (norms_of_orders, lambda r, n: (r.normal(size=n), r.normal(size=(n, 3))), (1, 4)),
    (resampled, lambda r, n: (r.normal(size=n), r.normal(size=5), r.normal(size=3)), (1, 4)),
    (windowed, lambda r, n: (r.normal(size=n),), (3, 6)),
    (ranked, lambda r, n: (r.normal(size=n), np.linspace(-1.0, 1.0, 4)), (1, 5)),
    (gaussian_terms, lambda r, n: (r.normal(size=(n, 2)), r.normal(size=n)), (1, 3)),
    (built_from_sizes, lambda r, n: (r.normal(size=n), r.normal(size=(n, 3 - n % 2))), (1, 2, 4)),
]
CASES = [(f, make, n) for f, make, sizes in FAMILY for n in sizes]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("fn,make,n", CASES, ids=[f"{f.__name__}-{n}" for f, _, n in CASES])
def test_typed_results_give_right_gradients(fn, make, n, seed):
    mc.testing.check_derivatives(fn, *make(_rng(seed), n))


@pytest.mark.parametrize("fn,make,n,absent", [
    (chain_energy, FAMILY[0][1], 5, ("unbroadcast", "mul_vjp", "sum_adjoint")),
    (triplet, FAMILY[3][1], 4, ("norm_adjoint", "unbroadcast")),
    (softmax_xent, FAMILY[5][1], 5, ("log_softmax_adjoint", "matmul_adjoint")),
    (top_two, FAMILY[8][1], 5, ("getitem_reverse", "_mc.take")),
    (built_from_sizes, FAMILY[-1][1], 4, ("_mc.",)),
], ids=lambda v: getattr(v, "__name__", None))
def test_typed_results_make_plain_pullbacks(fn, make, n, absent):
    args = make(_rng(0), n)
    mc.vjp(fn, *args)
    source = mc.source(fn, "reverse")
    pullback = source.split("__pullback(", 1)[1].split("\n\n\n", 1)[0]
    for name in absent:
        assert name not in pullback, pullback
