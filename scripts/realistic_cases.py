"""Functions written the way scientists and ML engineers write them (physics, statistics, signal
processing, optimisation objectives, ML losses, ODE integrators, Bayesian models, geometry, finance),
each with a point to differentiate at; scripts/realistic_audit.py checks them in both modes.

They use whatever NumPy, SciPy and standard-library calls come naturally for the job, not a list of
rules: that is the point of the audit (issue 12's "hidden set of realistic functions").  Integer,
boolean and index arguments are constants; every float and float array is differentiated.
"""
import itertools
import math
import statistics

import numpy as np
import scipy.integrate
import scipy.interpolate
import scipy.linalg
import scipy.optimize
import scipy.spatial.distance
import scipy.special
import scipy.stats

RNG = np.random.default_rng(7)


def U(*shape, lo=-1.0, hi=1.0):
    if not shape:
        return float(RNG.uniform(lo, hi))
    return RNG.uniform(lo, hi, size=shape)


# ============================================================ physics
def lennard_jones(pos, eps=1.0, sigma=0.8):
    """Total Lennard-Jones energy of a small cluster."""
    d = scipy.spatial.distance.pdist(pos)
    sr6 = (sigma / d) ** 6
    return 4.0 * eps * np.sum(sr6 * sr6 - sr6)


def coulomb_cdist(q, pos_a, pos_b):
    """Interaction energy between two charge clouds."""
    r = scipy.spatial.distance.cdist(pos_a, pos_b)
    return np.sum(np.outer(q, q[::-1]) / r)


def spring_chain(x, k=2.0):
    """Harmonic chain energy with np.diff."""
    return 0.5 * k * np.sum(np.diff(x) ** 2) + 0.1 * np.sum(np.diff(x, n=2) ** 2)


def pendulum_rk4(theta0, g=9.81, length=1.3, dt=0.01, steps=40):
    """Fixed-step RK4 of a pendulum; returns the final angle."""
    def rhs(s):
        th, om = s
        return np.array([om, -g / length * math.sin(th)])

    s = np.array([theta0, 0.0])
    for _ in range(steps):
        k1 = rhs(s)
        k2 = rhs(s + 0.5 * dt * k1)
        k3 = rhs(s + 0.5 * dt * k2)
        k4 = rhs(s + dt * k3)
        s = s + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return s[0]


def decay_odeint(k, y0):
    """Radioactive decay chain integrated by scipy.integrate.odeint."""
    def rhs(y, t, k):
        return np.array([-k * y[0], k * y[0] - 0.5 * y[1]])

    t = np.linspace(0.0, 2.0, 11)
    sol = scipy.integrate.odeint(rhs, y0, t, args=(k,))
    return np.sum(sol[:, 1])


def projectile_range(v0, angle):
    """Range of a projectile, with math.radians / math.sin."""
    g = 9.81
    a = math.radians(angle)
    return v0 ** 2 * math.sin(2 * a) / g


def heat_equation(u0, alpha=0.1, steps=20):
    """Explicit finite differences with np.roll (periodic)."""
    u = u0.copy()
    for _ in range(steps):
        u = u + alpha * (np.roll(u, 1) - 2 * u + np.roll(u, -1))
    return np.sum(u ** 2)


def wave_energy_trapezoid(u, dx=0.1):
    """Energy of a field by np.trapezoid and np.gradient."""
    du = np.gradient(u, dx)
    return np.trapezoid(0.5 * du ** 2 + 0.5 * u ** 2, dx=dx)


def gravity_potential(masses, pos):
    """Pairwise potential with itertools.combinations and math.dist."""
    e = 0.0
    for i, j in itertools.combinations(range(len(masses)), 2):
        e -= masses[i] * masses[j] / math.dist(pos[i], pos[j])
    return e


# ============================================================ statistics
def gaussian_nll(x, mu, log_sigma):
    sigma = np.exp(log_sigma)
    return -np.sum(scipy.stats.norm.logpdf(x, mu, sigma))


def student_t_regression(w, X, y, nu=4.0):
    r = y - X @ w
    return -np.sum(scipy.stats.t.logpdf(r, nu))


def weighted_histogram_entropy(w, x):
    """Entropy of a weighted histogram: bin counts depend on w, edges are constant."""
    counts, _ = np.histogram(x, bins=4, range=(-1.0, 1.0), weights=w)
    p = counts / np.sum(counts)
    return -np.sum(scipy.special.xlogy(p, p))


def histogram_density_loss(mu, data):
    """Squared error between a model density at bin centres and a histogram (constant counts)."""
    counts, edges = np.histogram(data, bins=5, density=True)
    centres = 0.5 * (edges[1:] + edges[:-1])
    model = scipy.stats.norm.pdf(centres, mu, 0.6)
    return np.sum((model - counts) ** 2)


def sample_stats(x):
    xs = list(x)
    return statistics.fmean(xs) + statistics.pstdev(xs) + statistics.median(xs)


def mvn_loglik(mu, L, X):
    cov = L @ L.T + np.eye(3)
    return np.sum(scipy.stats.multivariate_normal.logpdf(X, mu, cov))


def gp_marginal_likelihood(log_ell, x, y):
    """Gaussian-process evidence with cho_factor / cho_solve."""
    ell = np.exp(log_ell)
    d2 = (x[:, None] - x[None, :]) ** 2
    K = np.exp(-0.5 * d2 / ell ** 2) + 0.1 * np.eye(len(x))
    c, low = scipy.linalg.cho_factor(K)
    alpha = scipy.linalg.cho_solve((c, low), y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(c)))


def gp_cholesky_triangular(log_ell, x, y):
    ell = np.exp(log_ell)
    K = np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2 / ell ** 2) + 0.1 * np.eye(len(x))
    L = scipy.linalg.cholesky(K, lower=True)
    z = scipy.linalg.solve_triangular(L, y, lower=True)
    return 0.5 * z @ z + np.sum(np.log(np.diag(L)))


def slogdet_objective(A):
    sign, logdet = np.linalg.slogdet(A @ A.T + np.eye(3))
    return sign * logdet


def robust_median_loss(w, X, y):
    return np.median(np.abs(y - X @ w))


def quantile_loss(pred, y, q=0.8):
    r = y - pred
    return np.mean(np.maximum(q * r, (q - 1) * r))


def kde_logpdf(h, data, xs):
    z = (xs[:, None] - data[None, :]) / h
    return np.sum(scipy.special.logsumexp(-0.5 * z ** 2, axis=1) - np.log(h * len(data)))


def ecdf_distance(x, ref):
    """Kolmogorov-style distance with np.searchsorted on a constant reference."""
    xs = np.sort(x)
    idx = np.searchsorted(np.sort(ref), xs)
    return np.sum((idx / len(ref) - np.arange(1, len(xs) + 1) / len(xs)) ** 2 * xs)


# ============================================================ signal processing
def lowpass_energy(x):
    k = np.hanning(5)
    y = np.convolve(x, k / k.sum(), mode="same")
    return np.sum(y ** 2)


def spectral_power(x):
    X = np.fft.rfft(x * np.hanning(len(x)))
    return np.sum(np.abs(X) ** 2) / len(x)


def ema_filter(x, alpha=0.3):
    out = list(itertools.accumulate(x, lambda a, b: (1 - alpha) * a + alpha * b))
    return sum(v * v for v in out)


def running_max_drawdown(prices):
    peak = np.maximum.accumulate(prices)
    return np.max((peak - prices) / peak)


def autocorrelation(x, lag=2):
    x = x - x.mean()
    return np.sum(x[:-lag] * x[lag:]) / np.sum(x * x)


def interp_resample(y):
    t = np.linspace(0.0, 1.0, len(y))
    tq = np.array([0.05, 0.33, 0.5, 0.71, 0.94])
    return np.sum(np.interp(tq, t, y) ** 2)


def cubic_spline_smoothness(y):
    x = np.linspace(0.0, 1.0, len(y))
    cs = scipy.interpolate.CubicSpline(x, y)
    return np.sum(cs(np.array([0.1, 0.45, 0.8])) ** 2)


def cumulative_sum_axis(X):
    return np.sum(np.cumsum(X, axis=1) ** 2) + np.sum(np.cumprod(1 + 0.1 * X, axis=0))


def moving_average_windows(x, w=3):
    return sum(np.mean(x[i:i + w]) ** 2 for i in range(len(x) - w + 1))


# ============================================================ optimisation objectives
def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def rastrigin(x):
    return 10 * len(x) + sum(xi ** 2 - 10 * math.cos(2 * math.pi * xi) for xi in x)


def huber(r, delta=0.5):
    a = np.abs(r)
    return np.sum(np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta)))


def clipped_objective(x, lo, hi):
    return np.sum(np.clip(x, lo, hi) ** 2)


def lasso_objective(w, X, y, lam=0.1):
    return 0.5 * np.linalg.norm(X @ w - y) ** 2 + lam * np.linalg.norm(w, ord=1)


def nuclear_norm_objective(A):
    return np.linalg.norm(A, "nuc") + np.linalg.norm(A, "fro") ** 2


def row_norms(X):
    return np.sum(np.linalg.norm(X, axis=1, keepdims=True) * X)


def polyfit_residual(c, x, y):
    return np.sum((np.polyval(c, x) - y) ** 2)


def fitted_constant_objective(w, x):
    """Uses a scipy.optimize result as a constant."""
    res = scipy.optimize.minimize_scalar(lambda t: (t - 0.3) ** 2)
    return np.sum((w - res.x) ** 2 * x)


def barrier_objective(x):
    return np.sum(x ** 2) - np.sum(np.log1p(x + 0.5)) + math.fsum([float(v) for v in x])


# ============================================================ ML losses
def softmax_cross_entropy(W, X, labels):
    logits = X @ W
    logp = scipy.special.log_softmax(logits, axis=1)
    return -np.mean(np.take_along_axis(logp, labels[:, None], axis=1))


def logistic_loss(w, X, y):
    z = X @ w
    return np.sum(np.logaddexp(0.0, -y * z))


def bce_with_expit(w, X, t):
    p = scipy.special.expit(X @ w)
    return -np.sum(scipy.special.xlogy(t, p) + scipy.special.xlog1py(1 - t, -p))


def mlp_loss(W1, W2, X, y):
    h = np.tanh(X @ W1)
    out = h @ W2
    return np.mean((out.ravel() - y) ** 2)


def attention(Q, K, V):
    s = np.einsum("...id,...jd->...ij", Q, K) / np.sqrt(Q.shape[-1])
    a = scipy.special.softmax(s, axis=-1)
    return np.sum(np.einsum("...ij,...jd->...d", a, V) ** 2)


def layernorm(x, gamma, beta):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return np.sum((gamma * (x - mu) / np.sqrt(var + 1e-5) + beta) ** 2)


def triplet_loss(a, p, n, margin=0.2):
    dp = np.linalg.norm(a - p, axis=1)
    dn = np.linalg.norm(a - n, axis=1)
    return np.mean(np.maximum(dp - dn + margin, 0.0))


def focal_loss(logits, y, gamma=2.0):
    p = scipy.special.expit(logits)
    pt = np.where(y == 1, p, 1 - p)
    return -np.sum((1 - pt) ** gamma * np.log(pt))


def topk_loss(scores, k=3):
    idx = np.argsort(scores)[::-1][:k]
    return np.sum(scores[idx] ** 2)


def dropout_fixed_mask(W, x):
    mask = np.random.default_rng(0).random(W.shape) > 0.3
    return np.sum((W * mask) @ x)


def kl_gaussians(mu, log_var):
    return -0.5 * np.sum(1 + log_var - mu ** 2 - np.exp(log_var))


def ranking_hinge(s):
    total = 0.0
    for a, b in itertools.pairwise(s):
        total += max(0.0, 0.1 - (a - b))
    return total


from realistic_cases_more import (  # noqa: E402  (the second half of the functions)
    euler_logistic, solve_ivp_fixed, quad_integral, simpson_integral, cumulative_trapezoid_obj,
    leapfrog_oscillator, matrix_exponential_flow, beta_binomial_logpost, hierarchical_logp, dirichlet_logpdf,
    poisson_regression, gamma_prior, mixture_loglik, wishart_like, digamma_elbo,
    polygon_area, triangle_angles, rotation_energy, path_length, nearest_neighbour_dist,
    procrustes_loss, sphere_dist, black_scholes_call, portfolio_variance, npv,
    discount_fsum, sharpe_ratio, compound_growth, value_at_risk, cvar_sorted,
    heap_topk, bisect_piecewise, reduce_product, partial_kernel, bernstein,
    product_grid, chain_islice, math_mix, fromiter_series, lexsort_rank,
    digitize_bins, put_along_axis_update, where_one_arg, lu_solve_obj, logm_obj,
    special_mix, statistics_mix, vae_elbo, matern_kernel, implied_vol,
    boxcox_loglik, weibull_survival, gp_lu, kinetics_odeint, ema_accumulate_ml)


# ============================================================ the points
A3 = RNG.normal(size=(3, 3)) + 3 * np.eye(3)
X53, y5 = U(5, 3), U(5)
spd3 = A3 @ A3.T
xs7 = np.linspace(-1, 1, 7)

CASES = [
    ("physics", lennard_jones, (np.array([[0.0, 0.0, 0.0], [1.0, 0.1, 0.0], [0.2, 1.1, 0.1], [0.9, 1.0, 0.8]]),)),
    ("physics", coulomb_cdist, (U(3), U(3, 2), U(3, 2) + 3.0)),
    ("physics", spring_chain, (U(6),)),
    ("physics", pendulum_rk4, (0.4,)),
    ("physics", decay_odeint, (0.8, np.array([1.0, 0.2]))),
    ("physics", projectile_range, (12.0, 37.0)),
    ("physics", heat_equation, (U(8),)),
    ("physics", wave_energy_trapezoid, (U(7),)),
    ("physics", gravity_potential, (U(4, lo=1, hi=2), U(4, 3) + np.arange(4)[:, None])),
    ("statistics", gaussian_nll, (U(6), 0.1, 0.2)),
    ("statistics", student_t_regression, (U(3), X53, y5)),
    ("statistics", weighted_histogram_entropy, (U(8, lo=0.5, hi=1.5), U(8, lo=-0.95, hi=0.95))),
    ("statistics", histogram_density_loss, (0.1, U(20))),
    ("statistics", sample_stats, (U(5),)),
    ("statistics", mvn_loglik, (U(3), U(3, 3), U(4, 3))),
    ("statistics", gp_marginal_likelihood, (0.1, U(5), U(5))),
    ("statistics", gp_cholesky_triangular, (0.1, U(5), U(5))),
    ("statistics", slogdet_objective, (U(3, 3),)),
    ("statistics", robust_median_loss, (U(3), X53, y5)),
    ("statistics", quantile_loss, (U(5), U(5))),
    ("statistics", kde_logpdf, (0.4, U(6), U(3))),
    ("statistics", ecdf_distance, (U(5), U(9))),
    ("signal", lowpass_energy, (U(8),)),
    ("signal", spectral_power, (U(8),)),
    ("signal", ema_filter, (U(6),)),
    ("signal", running_max_drawdown, (np.array([1.0, 1.3, 1.1, 1.5, 1.2, 1.4]),)),
    ("signal", autocorrelation, (U(8),)),
    ("signal", interp_resample, (U(6),)),
    ("signal", cubic_spline_smoothness, (U(6),)),
    ("signal", cumulative_sum_axis, (U(3, 4),)),
    ("signal", moving_average_windows, (U(6),)),
    ("optimisation", rosenbrock, (U(4),)),
    ("optimisation", rastrigin, (U(3),)),
    ("optimisation", huber, (U(6),)),
    ("optimisation", clipped_objective, (U(5), U(5, lo=-1, hi=-0.3), U(5, lo=0.3, hi=1))),
    ("optimisation", lasso_objective, (U(3), X53, y5)),
    ("optimisation", nuclear_norm_objective, (U(3, 4),)),
    ("optimisation", row_norms, (U(3, 4),)),
    ("optimisation", polyfit_residual, (U(3), xs7, U(7))),
    ("optimisation", fitted_constant_objective, (U(3), U(3))),
    ("optimisation", barrier_objective, (U(4, lo=-0.3, hi=0.3),)),
    ("ml", softmax_cross_entropy, (U(3, 4), X53, np.array([0, 3, 1, 2, 1]))),
    ("ml", logistic_loss, (U(3), X53, np.sign(y5))),
    ("ml", bce_with_expit, (U(3), X53, (y5 > 0).astype(float))),
    ("ml", mlp_loss, (U(3, 4), U(4, 1), X53, y5)),
    ("ml", attention, (U(2, 3, 4), U(2, 3, 4), U(2, 3, 4))),
    ("ml", layernorm, (U(3, 4), U(4), U(4))),
    ("ml", triplet_loss, (U(4, 3), U(4, 3), U(4, 3))),
    ("ml", focal_loss, (U(5), np.array([1, 0, 1, 1, 0]))),
    ("ml", topk_loss, (U(6),)),
    ("ml", dropout_fixed_mask, (U(3, 4), U(4))),
    ("ml", kl_gaussians, (U(4), U(4))),
    ("ml", ranking_hinge, (np.array([0.9, 0.85, 0.3, 0.35, 0.1]),)),
    ("ode", euler_logistic, (1.3, 0.2)),
    ("ode", solve_ivp_fixed, (0.7,)),
    ("ode", quad_integral, (0.6,)),
    ("ode", simpson_integral, (U(7),)),
    ("ode", cumulative_trapezoid_obj, (U(6),)),
    ("ode", leapfrog_oscillator, (0.5, 0.1)),
    ("ode", matrix_exponential_flow, (0.3 * U(3, 3), U(3))),
    ("bayes", beta_binomial_logpost, (0.4,)),
    ("bayes", hierarchical_logp, (0.2, -0.1, U(5))),
    ("bayes", dirichlet_logpdf, (U(3, lo=1, hi=3), np.array([0.2, 0.3, 0.5]))),
    ("bayes", poisson_regression, (0.3 * U(3), X53, np.array([0, 1, 3, 2, 1]))),
    ("bayes", gamma_prior, (2.0, 1.5, U(4, lo=0.5, hi=2))),
    ("bayes", mixture_loglik, (U(3), U(3), U(5))),
    ("bayes", wishart_like, (U(3, 3),)),
    ("bayes", digamma_elbo, (U(3, lo=1, hi=3),)),
    ("geometry", polygon_area, (np.array([[0.0, 0.0], [1.0, 0.1], [1.2, 0.9], [0.1, 1.0]]),)),
    ("geometry", triangle_angles, (np.array([0.0, 0.0]), np.array([1.0, 0.2]), np.array([0.3, 0.9]))),
    ("geometry", rotation_energy, (0.3, U(4, 2))),
    ("geometry", path_length, (U(4, 2),)),
    ("geometry", nearest_neighbour_dist, (U(5, 2), U(2))),
    ("geometry", procrustes_loss, (U(4, 3), U(4, 3))),
    ("geometry", sphere_dist, (U(3), U(3))),
    ("finance", black_scholes_call, (100.0, 95.0, 0.5, 0.02, 0.25)),
    ("finance", portfolio_variance, (U(3, lo=0.5, hi=1), spd3)),
    ("finance", npv, (0.05, [-100.0, 30.0, 40.0, 50.0])),
    ("finance", discount_fsum, (0.05, [-100.0, 30.0, 40.0, 50.0])),
    ("finance", sharpe_ratio, (U(3), U(10, 3))),
    ("finance", compound_growth, ([0.01, 0.03, -0.02],)),
    ("finance", value_at_risk, (U(3), U(20, 3))),
    ("finance", cvar_sorted, (U(3), U(8, 3))),
    ("stdlib", heap_topk, (U(6),)),
    ("stdlib", bisect_piecewise, (U(5),)),
    ("stdlib", reduce_product, (U(4),)),
    ("stdlib", partial_kernel, (U(3), U(3))),
    ("stdlib", bernstein, (0.3, [0.2, 0.5, -0.1, 0.4])),
    ("stdlib", product_grid, (U(3),)),
    ("stdlib", chain_islice, (U(3), U(4))),
    ("stdlib", math_mix, (0.37,)),
    ("stdlib", fromiter_series, (U(5),)),
    ("stdlib", lexsort_rank, (U(5), np.array([1, 0, 1, 0, 2]))),
    ("stdlib", digitize_bins, (U(6),)),
    ("stdlib", put_along_axis_update, (U(3, 4),)),
    ("stdlib", where_one_arg, (U(6),)),
    ("linalg", lu_solve_obj, (A3, U(3))),
    ("linalg", logm_obj, (spd3 / 10.0,)),
    ("special", special_mix, (U(4, lo=-0.9, hi=0.9),)),
    ("stdlib", statistics_mix, (U(5), U(5))),
    ("added", vae_elbo, (U(3), 0.2 * U(3), U(2, 3))),
    ("added", matern_kernel, (0.7, U(4))),
    ("added", implied_vol, (9.0,)),
    ("added", boxcox_loglik, (0.4, U(6, lo=0.5, hi=2.0))),
    ("added", weibull_survival, (1.6, 1.2, U(4, lo=0.3, hi=2.0))),
    ("added", gp_lu, (0.1, U(4), U(4))),
    ("added", kinetics_odeint, (0.9, 0.4)),
    ("added", ema_accumulate_ml, (U(5), U(5))),
]
