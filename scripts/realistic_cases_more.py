"""The second half of the realistic functions of scripts/realistic_cases.py (ODE integrators, Bayesian
models, geometry, finance, standard-library idioms, and those added after the first audit)."""
import bisect
import functools
import heapq
import itertools
import math
import statistics

import numpy as np
import scipy.integrate
import scipy.linalg
import scipy.optimize
import scipy.spatial.distance
import scipy.special
import scipy.stats


# ============================================================ ODE integrators
def euler_logistic(r, x0, dt=0.05, steps=30):
    x = x0
    for _ in range(steps):
        x = x + dt * r * x * (1 - x)
    return x


def solve_ivp_fixed(k):
    sol = scipy.integrate.solve_ivp(lambda t, y: -k * y, (0.0, 1.0), np.array([1.0, 2.0]),
                                    t_eval=np.array([0.5, 1.0]))
    return np.sum(sol.y)


def quad_integral(a):
    val, _ = scipy.integrate.quad(lambda t: np.exp(-a * t * t), 0.0, 1.0)
    return val


def simpson_integral(y):
    return scipy.integrate.simpson(y ** 2, dx=0.1)


def cumulative_trapezoid_obj(y):
    return np.sum(scipy.integrate.cumulative_trapezoid(y, dx=0.1))


def leapfrog_oscillator(q0, p0, dt=0.1, steps=25):
    q, p = q0, p0
    for _ in range(steps):
        p = p - 0.5 * dt * q
        q = q + dt * p
        p = p - 0.5 * dt * q
    return q * q + p * p


def matrix_exponential_flow(A, x0):
    return np.sum(scipy.linalg.expm(0.5 * A) @ x0)


# ============================================================ Bayesian models
def beta_binomial_logpost(theta, k=7, n=10):
    return scipy.stats.beta.logpdf(theta, 2.0, 2.0) + k * math.log(theta) + (n - k) * math.log1p(-theta)


def hierarchical_logp(mu, log_tau, theta):
    tau = np.exp(log_tau)
    return (scipy.stats.norm.logpdf(mu, 0, 5) + scipy.stats.norm.logpdf(log_tau, 0, 1)
            + np.sum(scipy.stats.norm.logpdf(theta, mu, tau)))


def dirichlet_logpdf(alpha, x):
    return (scipy.special.gammaln(np.sum(alpha)) - np.sum(scipy.special.gammaln(alpha))
            + np.sum((alpha - 1) * np.log(x)))


def poisson_regression(w, X, counts):
    rate = np.exp(X @ w)
    return -np.sum(scipy.stats.poisson.logpmf(counts, rate))


def gamma_prior(a, b, x):
    return np.sum(scipy.stats.gamma.logpdf(x, a, scale=1.0 / b)) + math.lgamma(a)


def mixture_loglik(logits, mus, x):
    logw = scipy.special.log_softmax(logits)
    comp = scipy.stats.norm.logpdf(x[:, None], mus[None, :], 1.0)
    return np.sum(scipy.special.logsumexp(logw + comp, axis=1))


def wishart_like(L):
    S = L @ L.T + np.eye(3)
    return scipy.special.multigammaln(3.5, 3) - 0.5 * np.trace(np.linalg.inv(S)) + np.linalg.slogdet(S)[1]


def digamma_elbo(alpha):
    return np.sum(scipy.special.digamma(alpha) - scipy.special.digamma(np.sum(alpha))) + scipy.special.betaln(alpha[0], alpha[1])


# ============================================================ geometry
def polygon_area(pts):
    x, y = pts[:, 0], pts[:, 1]
    return 0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))


def triangle_angles(a, b, c):
    ab, ac = b - a, c - a
    cosang = np.dot(ab, ac) / (np.linalg.norm(ab) * np.linalg.norm(ac))
    return math.acos(cosang) + math.atan2(np.cross(ab, ac), np.dot(ab, ac))


def rotation_energy(theta, pts):
    R = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
    return np.sum((pts @ R.T - pts) ** 2)


def path_length(pts):
    return sum(math.hypot(*(q - p)) for p, q in itertools.pairwise(pts))


def nearest_neighbour_dist(pts, query):
    d = np.linalg.norm(pts - query, axis=1)
    return np.min(d) + d[np.argmin(d)]


def procrustes_loss(A, B):
    U_, _, Vt = np.linalg.svd(A.T @ B)
    R = U_ @ Vt
    return np.sum((A @ R - B) ** 2)


def sphere_dist(p, q):
    return math.acos(np.clip(np.dot(p, q) / (np.linalg.norm(p) * np.linalg.norm(q)), -1, 1))


# ============================================================ finance
def black_scholes_call(S, K, T, r, sigma):
    d1 = (math.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    N = lambda z: 0.5 * math.erfc(-z / math.sqrt(2))  # noqa: E731
    return S * N(d1) - K * math.exp(-r * T) * N(d2)


def portfolio_variance(w, C):
    w = w / np.sum(w)
    return w @ C @ w


def npv(rate, cashflows):
    return sum(cf / (1 + rate) ** t for t, cf in enumerate(cashflows))


def discount_fsum(rate, cashflows):
    return math.fsum(cf * math.exp(-rate * t) for t, cf in enumerate(cashflows))


def sharpe_ratio(w, R):
    port = R @ w
    return np.mean(port) / np.std(port, ddof=1)


def compound_growth(rates):
    return math.prod(1 + r for r in rates)


def value_at_risk(w, R, q=5):
    losses = -(R @ w)
    return np.percentile(losses, 100 - q)


def cvar_sorted(w, R, k=3):
    losses = np.sort(-(R @ w))
    return np.mean(losses[-k:])


# ============================================================ stdlib idioms
def heap_topk(x, k=3):
    top = heapq.nlargest(k, list(x))
    return sum(v * v for v in top)


def bisect_piecewise(x, knots=(-0.5, 0.0, 0.5)):
    slopes = [0.5, 1.0, 2.0, 4.0]
    total = 0.0
    for v in x:
        total += slopes[bisect.bisect_left(knots, v)] * v
    return total


def reduce_product(x):
    return functools.reduce(lambda a, b: a * b + 0.1, x, 1.0)


def partial_kernel(x, y):
    def rbf(a, b, ell):
        return math.exp(-((a - b) ** 2) / (2 * ell * ell))

    k = functools.partial(rbf, ell=0.7)
    return sum(k(a, b) for a, b in zip(x, y))


@functools.lru_cache(maxsize=None)
def _binom_weights(n):
    return tuple(math.comb(n, i) for i in range(n + 1))


def bernstein(t, coeffs):
    n = len(coeffs) - 1
    w = _binom_weights(n)
    return sum(w[i] * c * t ** i * (1 - t) ** (n - i) for i, c in enumerate(coeffs))


def product_grid(a):
    return sum(math.sin(x * y) for x, y in itertools.product(a, a))


def chain_islice(x, y):
    return sum(v * v for v in itertools.islice(itertools.chain(x, y), 1, 6))


def math_mix(x):
    return (math.erf(x) + math.erfc(x) * math.gamma(x + 1.5) + math.expm1(x) + math.copysign(x, -1.0)
            + math.fmod(x, 0.3) + math.remainder(x, 0.3) + math.hypot(x, 2 * x, 3.0) + math.log1p(x * x)
            + float(math.isclose(x, 0.0)))


def fromiter_series(x):
    v = np.fromiter((xi ** 2 for xi in x), dtype=float)
    return np.sum(v * np.arange(len(v)))


def lexsort_rank(x, key):
    order = np.lexsort((x, key))
    return np.sum(x[order] * np.arange(len(x)))


def digitize_bins(x):
    bins = np.array([-0.5, 0.0, 0.5])
    idx = np.digitize(x, bins)
    w = np.array([1.0, 2.0, 3.0, 4.0])
    return np.sum(w[idx] * x ** 2)


def put_along_axis_update(X):
    Y = X.copy()
    idx = np.argmax(Y, axis=1)[:, None]
    np.put_along_axis(Y, idx, 0.0, axis=1)
    return np.sum(Y ** 2)


def where_one_arg(x):
    (nz,) = np.where(x > 0)
    return np.sum(x[nz] ** 2)


def lu_solve_obj(A, b):
    lu, piv = scipy.linalg.lu_factor(A)
    return np.sum(scipy.linalg.lu_solve((lu, piv), b) ** 2)


def logm_obj(A):
    return np.trace(scipy.linalg.logm(A))


def special_mix(x):
    return np.sum(scipy.special.erfinv(0.5 * x) + scipy.special.logit(0.5 + 0.3 * x)
                  + scipy.special.polygamma(1, x + 2.0) + scipy.special.gammaln(x + 2.0))


def statistics_mix(x, y):
    xs, ys = list(x), list(y)
    return statistics.mean(xs) * statistics.stdev(ys) + statistics.correlation(xs, ys)


# ============================================================ added after the first audit (rules written for them)
def vae_elbo(mu, log_sigma, W):
    """A reparameterised sample through a linear decoder."""
    z = np.random.default_rng(1).normal(mu, np.exp(log_sigma))
    return np.sum((W @ z) ** 2) - np.sum(log_sigma)


def matern_kernel(ell, x):
    """Matern-3/2-like kernel with a modified Bessel function of the second kind."""
    r = scipy.spatial.distance.pdist(x[:, None]) / ell + 1e-3
    nu = 1.5
    return np.sum(2 ** (1 - nu) / scipy.special.gamma(nu) * r ** nu * scipy.special.kv(nu, r))


def implied_vol(price, S=100.0, K=95.0, T=0.5, r=0.02):
    """Implied volatility by a root finder: differentiated through the implicit function theorem."""
    def bs(sigma):
        d1 = (math.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * math.sqrt(T))
        d2 = d1 - sigma * math.sqrt(T)
        return S * scipy.stats.norm.cdf(d1) - K * math.exp(-r * T) * scipy.stats.norm.cdf(d2) - price

    return scipy.optimize.brentq(bs, 1e-3, 3.0, xtol=1e-14)


def boxcox_loglik(lmbda, x):
    y = scipy.special.boxcox(x, lmbda)
    return -0.5 * len(x) * np.log(np.var(y)) + (lmbda - 1) * np.sum(np.log(x))


def weibull_survival(c, scale, t):
    return np.sum(scipy.stats.weibull_min.logsf(t, c, scale=scale)) + np.sum(scipy.stats.weibull_min.logpdf(t[:2], c, scale=scale))


def gp_lu(log_ell, x, y):
    K = np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2 / np.exp(2 * log_ell)) + 0.1 * np.eye(len(x))
    return y @ scipy.linalg.lu_solve(scipy.linalg.lu_factor(K), y)


def kinetics_odeint(k1, k2):
    def rhs(c, t):
        return [-k1 * c[0], k1 * c[0] - k2 * c[1], k2 * c[1]]

    sol = scipy.integrate.odeint(rhs, [1.0, 0.0, 0.0], np.linspace(0, 3, 7))
    return np.sum((sol[:, 1] - 0.3) ** 2)


def ema_accumulate_ml(x, w):
    smooth = np.fromiter(itertools.accumulate(x * w, lambda a, b: 0.8 * a + 0.2 * b), dtype=float)
    return np.sum(smooth ** 2)
