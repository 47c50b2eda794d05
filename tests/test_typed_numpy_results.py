"""Result types of NumPy / SciPy calls with literal keywords (ir/op_types.keyword_result) and their typed adjoints
(reverse/specialise.py): np.diff, np.linalg.norm along an axis, scipy.special.(log_)softmax, np.take_along_axis,
scipy.spatial.distance.pdist / cdist, np.argsort, scipy.special.logsumexp.  Each family is checked in both modes against finite
differences, over shapes where the differenced axis is short (sizes 0 and 1 after np.diff) as well as long."""
import numpy as np
import pytest
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
], ids=lambda v: getattr(v, "__name__", None))
def test_typed_results_make_plain_pullbacks(fn, make, n, absent):
    args = make(_rng(0), n)
    mc.vjp(fn, *args)
    source = mc.source(fn, "reverse")
    pullback = source.split("__pullback(", 1)[1].split("\n\n\n", 1)[0]
    for name in absent:
        assert name not in pullback, pullback
