"""Imperative code as scientists write it (issue 9/12 hunting ground, written fresh for this audit):
classes with methods, dataclasses, helper functions, dict configurations, loops with in-place updates,
comprehensions, enumerate/zip, early returns, convergence loops, closures, recursion, try/except.
Each case: (group, function, args).  Used by scripts/imperative_audit.py."""
import math
from dataclasses import dataclass, field

import numpy as np

RNG = np.random.default_rng(42)


# ---------------------------------------------------------------- physics
class Particle:
    def __init__(self, pos, vel, mass=1.0):
        self.pos = pos
        self.vel = vel
        self.mass = mass

    def kinetic(self):
        return 0.5 * self.mass * np.dot(self.vel, self.vel)

    def step(self, force, dt):
        self.vel = self.vel + dt * force / self.mass
        self.pos = self.pos + dt * self.vel


def spring_system(k, x0):
    p = Particle(x0.copy(), np.zeros_like(x0), mass=2.0)
    energy = 0.0
    for _ in range(20):
        f = -k * p.pos
        p.step(f, 0.05)
        energy += p.kinetic()
    return energy + 0.5 * k * np.dot(p.pos, p.pos)


def nbody_potential(pos, eps=0.1):
    n = pos.shape[0]
    total = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            total -= 1.0 / math.sqrt(float(d @ d) + eps * eps)
    return total


def heat_rod(u0, alpha):
    u = u0.copy()
    for _ in range(15):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]
        u += alpha * lap
    return float(np.sum(u ** 2))


def pendulum_rk2(theta0, g=9.81, L=1.0, dt=0.01, steps=50):
    th, om = theta0, 0.0
    for _ in range(steps):
        a1 = -g / L * math.sin(th)
        th_mid, om_mid = th + 0.5 * dt * om, om + 0.5 * dt * a1
        a2 = -g / L * math.sin(th_mid)
        th, om = th + dt * om_mid, om + dt * a2
    return th * th + om


# ---------------------------------------------------------------- statistics / ML
@dataclass
class GaussianModel:
    mu: float
    log_sigma: float
    data: list = field(default_factory=list)

    def loglik(self):
        s = math.exp(self.log_sigma)
        return sum(-0.5 * ((x - self.mu) / s) ** 2 - math.log(s) for x in self.data)


def gaussian_fit_objective(mu, log_sigma):
    m = GaussianModel(mu, log_sigma, [0.3, -0.2, 1.1, 0.7])
    return -m.loglik()


def kmeans_energy(centers, pts):
    total = 0.0
    for p in pts:
        dists = [np.sum((p - c) ** 2) for c in centers]
        total += min(dists)
    return total


def softmax_regression(W, X, labels):
    logits = X @ W
    logits = logits - logits.max(axis=1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return -np.mean(logp[np.arange(len(labels)), labels])


def ridge_with_config(w, X, y, cfg):
    pred = X @ w
    loss = np.mean((pred - y) ** 2)
    if cfg.get("l2", 0.0) > 0:
        loss = loss + cfg["l2"] * np.sum(w ** 2)
    if cfg.get("l1"):
        loss = loss + cfg["l1"] * np.sum(np.abs(w))
    return loss


def batchnorm_forward(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=0)
    var = ((x - mu) ** 2).mean(axis=0)
    xhat = (x - mu) / np.sqrt(var + eps)
    out = gamma * xhat + beta
    return float(np.sum(out ** 3))


def rnn_loss(Wh, Wx, xs):
    h = np.zeros(Wh.shape[0])
    loss = 0.0
    for t, x in enumerate(xs):
        h = np.tanh(Wh @ h + Wx @ x)
        loss += (t + 1) * np.sum(h ** 2)
    return loss


def attention(Q, K, V):
    scores = Q @ K.T / math.sqrt(Q.shape[1])
    scores -= scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=-1, keepdims=True)
    return float(np.sum((w @ V) ** 2))


def huber_loop(r, delta=0.5):
    total = 0.0
    for ri in r:
        a = abs(ri)
        if a <= delta:
            total += 0.5 * ri * ri
        else:
            total += delta * (a - 0.5 * delta)
    return total


def ewma_variance(x, lam=0.9):
    m, v = 0.0, 0.0
    out = []
    for xi in x:
        m = lam * m + (1 - lam) * xi
        v = lam * v + (1 - lam) * (xi - m) ** 2
        out.append(v)
    return sum(out) / len(out)


def logsumexp_manual(x):
    m = max(x)
    return m + math.log(sum(math.exp(v - m) for v in x))


# ---------------------------------------------------------------- numerics
def newton_cuberoot(a, tol=1e-12):
    x = a if a > 1 else 1.0
    for _ in range(100):
        fx = x ** 3 - a
        if abs(fx) < tol:
            break
        x = x - fx / (3 * x * x)
    return x


def bisection_root(c):
    lo, hi = 0.0, 2.0 + c
    f = lambda x: x * x - c  # noqa: E731
    while hi - lo > 1e-10:
        mid = 0.5 * (lo + hi)
        if f(mid) > 0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi) * c


def trapezoid_manual(y, dx=0.1):
    s = 0.0
    for i in range(len(y) - 1):
        s += 0.5 * dx * (y[i] + y[i + 1])
    return s


def power_iteration(A):
    v = np.ones(A.shape[0])
    for _ in range(30):
        v = A @ v
        v = v / np.linalg.norm(v)
    return float(v @ A @ v)


def horner(coeffs, x):
    acc = 0.0
    for c in reversed(coeffs):
        acc = acc * x + c
    return acc


def recursive_fib_like(x, n):
    if n <= 1:
        return x
    return recursive_fib_like(x, n - 1) * 0.5 + recursive_fib_like(x * x, n - 2)


def gauss_seidel(A, b):
    x = np.zeros_like(b)
    n = len(b)
    for _ in range(10):
        for i in range(n):
            s = 0.0
            for j in range(n):
                if j != i:
                    s += A[i, j] * x[j]
            x[i] = (b[i] - s) / A[i, i]
    return float(np.sum(x ** 2))


# ---------------------------------------------------------------- finance / misc
def portfolio_variance(weights, cov):
    w = np.asarray(weights)
    w = w / w.sum()
    return float(w @ cov @ w)


def black_scholes_call(S, K, T, r, sigma):
    d1 = (math.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    N = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))  # noqa: E731
    return S * N(d1) - K * math.exp(-r * T) * N(d2)


def compound_schedule(rate, years=10):
    balance = 100.0
    history = {}
    for y in range(years):
        balance *= 1 + rate
        if y % 3 == 0:
            history[y] = balance
    return balance + sum(history.values()) * 0.01


def safe_log_ratio(a, b):
    try:
        r = math.log(a / b)
    except ValueError:
        r = 0.0
    return r * a


def make_scaler(factor):
    def scale(v):
        return v * factor
    return scale


def closure_pipeline(x, k):
    f = make_scaler(k)
    g = make_scaler(2.0)
    return g(f(x)) + f(x) ** 2


def sorted_top_k(x, k=2):
    vals = sorted(x, reverse=True)
    return sum(vals[:k])


def dict_of_layers(params, x):
    h = x
    for name in ("l1", "l2"):
        h = np.tanh(params[name]["W"] @ h + params[name]["b"])
    return float(np.sum(h))


def tuple_state_machine(x):
    state = (x, 0.0)
    for i in range(6):
        a, b = state
        state = (a * 0.9 + b, b + math.sin(a) * 0.1 * i)
    return state[0] + state[1]


def rows_normalise(M):
    out = np.empty_like(M)
    for i, row in enumerate(M):
        out[i] = row / np.linalg.norm(row)
    return float(np.sum(out * M))


def zip_weighted(xs, ws):
    return sum(w * x * x for x, w in zip(xs, ws))


CASES = [
    ("physics", spring_system, (1.3, np.array([0.5, -0.2]))),
    ("physics", nbody_potential, (RNG.normal(size=(4, 3)),)),
    ("physics", heat_rod, (RNG.uniform(size=8), 0.2)),
    ("physics", pendulum_rk2, (0.4,)),
    ("stats", gaussian_fit_objective, (0.2, -0.1)),
    ("stats", kmeans_energy, (RNG.normal(size=(3, 2)), RNG.normal(size=(6, 2)))),
    ("ml", softmax_regression, (RNG.normal(size=(4, 3)), RNG.normal(size=(5, 4)), np.array([0, 2, 1, 1, 0]))),
    ("ml", ridge_with_config, (RNG.normal(size=3), RNG.normal(size=(6, 3)), RNG.normal(size=6), {"l2": 0.1, "l1": 0.05})),
    ("ml", batchnorm_forward, (RNG.normal(size=(5, 3)), RNG.normal(size=3), RNG.normal(size=3))),
    ("ml", rnn_loss, (0.3 * RNG.normal(size=(3, 3)), RNG.normal(size=(3, 2)), [RNG.normal(size=2) for _ in range(4)])),
    ("ml", attention, (RNG.normal(size=(3, 4)), RNG.normal(size=(5, 4)), RNG.normal(size=(5, 2)))),
    ("stats", huber_loop, (np.array([0.1, -0.9, 0.3, 1.4]),)),
    ("stats", ewma_variance, (np.array([0.1, -0.9, 0.3, 1.4, 0.2]),)),
    ("stats", logsumexp_manual, ([0.1, -0.9, 0.3, 1.4],)),
    ("numerics", newton_cuberoot, (5.0,)),
    ("numerics", bisection_root, (2.0,)),
    ("numerics", trapezoid_manual, (np.array([0.1, 0.5, 0.3, 1.4, 0.2]),)),
    ("numerics", power_iteration, (np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 0.5]]),)),
    ("numerics", horner, ([1.0, -0.5, 0.25, 0.1], 0.7)),
    ("numerics", recursive_fib_like, (0.9, 5)),
    ("numerics", gauss_seidel, (np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]]), np.array([1.0, 2.0, 0.5]))),
    ("finance", portfolio_variance, (np.array([0.2, 0.5, 0.3]), np.array([[0.1, 0.02, 0.01], [0.02, 0.2, 0.03], [0.01, 0.03, 0.15]]))),
    ("finance", black_scholes_call, (100.0, 95.0, 0.5, 0.02, 0.25)),
    ("finance", compound_schedule, (0.05,)),
    ("misc", safe_log_ratio, (2.0, 0.5)),
    ("misc", closure_pipeline, (0.7, 1.3)),
    ("misc", sorted_top_k, ([0.3, 1.2, -0.4, 0.8],)),
    ("misc", dict_of_layers, ({"l1": {"W": RNG.normal(size=(3, 2)), "b": RNG.normal(size=3)},
                               "l2": {"W": RNG.normal(size=(2, 3)), "b": RNG.normal(size=2)}}, RNG.normal(size=2))),
    ("misc", tuple_state_machine, (0.6,)),
    ("misc", rows_normalise, (RNG.normal(size=(3, 4)),)),
    ("misc", zip_weighted, ([0.3, 1.2, -0.4], [1.0, 0.5, 2.0])),
]
