"""Probes of hunt10: everyday numerical code (physics integrators, small ML models, statistics, numerical methods,
classes, closures, control flow) written fresh to play the hidden checker of issue 10: second derivatives
(hessian, jacfwd/jacrev of grad, grad of grad, jvp of grad, grad of jvp, hvp, nested value_and_grad, argnums,
has_aux) against central finite differences of the first derivative.

Each probe is listed at the bottom in CASES as (name, kind, args):
  S  f(x, *consts) -> float, x a float64 vector (differentiated: argument 0)
  R  f(t, *consts) -> float, t a float (scalar in: grad(grad(f)) and a third order)
  V  f(x, *consts) -> ndarray (vector valued: jacfwd / jacrev against finite differences of f)
  M  f(a, b, *consts) -> float, a and b float64 vectors (argnums=(0, 1) and argnums=1)
  A  f(x, *consts) -> (float, aux) (has_aux)
  T  f(params) -> float, params a dict / list of arrays (directional second derivatives with tree tangents)
tests/test_regress_hunt10.py applies the transformations; kinks (abs, maximum, where) sit away from the points."""
from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

# ---------------------------------------------------------------- module-level constants mixed in
GRAVITY = 9.81
N_STEPS = 6
DT = 0.05
LAYER_SIZES = (4, 3)


# ================================================================ physics
def pendulum_verlet(theta0, length=1.2, steps=N_STEPS):
    """Velocity Verlet on a pendulum; the final angle (scalar in)."""
    theta, omega = theta0, 0.0
    acc = -GRAVITY / length * math.sin(theta)
    for _ in range(steps):
        theta = theta + DT * omega + 0.5 * DT * DT * acc
        new_acc = -GRAVITY / length * math.sin(theta)
        omega = omega + 0.5 * DT * (acc + new_acc)
        acc = new_acc
    return theta + 0.3 * omega


def _spring_force(q, k):
    f = np.zeros_like(q)
    stretch = np.diff(q) - 1.0
    f[:-1] += k * stretch
    f[1:] -= k * stretch
    return f


def spring_chain_energy(x, k=3.0):
    """Leapfrog on a chain of masses starting at positions x; total energy after a few steps."""
    q = x.copy()
    p = np.zeros_like(x)
    for _ in range(4):
        p += 0.5 * DT * _spring_force(q, k)
        q += DT * p
        p += 0.5 * DT * _spring_force(q, k)
    kinetic = 0.5 * np.dot(p, p)
    potential = 0.5 * k * np.sum((np.diff(q) - 1.0) ** 2)
    return kinetic + potential + np.sum(q ** 2) * 0.1


def nbody_potential(x):
    """Softened pairwise potential of 2-D points (x flat), double loop with a helper."""
    pts = x.reshape(-1, 2)
    e = 0.0
    n = len(pts)
    for i in range(n):
        for j in range(i + 1, n):
            d = pts[i] - pts[j]
            e = e - 1.0 / math.sqrt(d[0] ** 2 + d[1] ** 2 + 0.1)
    return e


def projectile_drag(v):
    """Euler steps of a projectile with quadratic drag, while with a data-dependent exit; v = (vx, vy)."""
    pos = np.zeros(2)
    vel = np.array([v[0], v[1]])
    t = 0.0
    while t < 0.3:
        speed = math.sqrt(vel[0] ** 2 + vel[1] ** 2)
        acc = -0.1 * speed * vel
        acc[1] -= GRAVITY
        vel = vel + DT * acc
        pos = pos + DT * vel
        t += DT
    return pos[0] * pos[1] + np.sum(vel ** 2)


def rk2_oscillator(t_k):
    """Midpoint RK2 on a damped oscillator with stiffness t_k (scalar in), tuple state."""
    state = (1.0, 0.0)
    for _ in range(5):
        x, v = state
        ax = -t_k * x - 0.2 * v
        xm, vm = x + 0.5 * DT * v, v + 0.5 * DT * ax
        am = -t_k * xm - 0.2 * vm
        state = (x + DT * vm, v + DT * am)
    return state[0] ** 2 + state[1]


def heat_stencil_inplace(u0):
    """Explicit heat equation with the in-place interior update u[1:-1] += ..."""
    u = u0.copy()
    for _ in range(3):
        lap = u[2:] - 2.0 * u[1:-1] + u[:-2]
        u[1:-1] += 0.2 * lap
        u[0] = u[1]
    return np.sum(u ** 3) + np.sum(np.sin(u))


def wave_leapfrog(u0):
    """Two-level wave scheme; the previous level is kept in a list."""
    levels = [u0.copy(), u0.copy()]
    for _ in range(3):
        cur, prev = levels[-1], levels[-2]
        nxt = cur.copy()
        nxt[1:-1] = 2 * cur[1:-1] - prev[1:-1] + 0.3 * (cur[2:] - 2 * cur[1:-1] + cur[:-2])
        levels.append(nxt)
    return float(np.sum(levels[-1] ** 2 * np.exp(-levels[-2] ** 2)))


# ================================================================ ML
def _mlp_forward(params, x):
    h = x
    n_layers = len(params) // 2
    for i in range(n_layers):
        h = h @ params[f"W{i}"] + params[f"b{i}"]
        if i < n_layers - 1:
            h = np.tanh(h)
    return h


def mlp_dict_loss(params):
    """MLP with dict params (T): squared error on a fixed batch."""
    X = np.linspace(-1.0, 1.0, 8).reshape(2, 4)
    y = np.array([[0.5, -0.2, 0.1], [0.3, 0.0, -0.4]])
    pred = _mlp_forward(params, X)
    return np.mean((pred - y) ** 2)


def softmax_xent(w):
    """Softmax cross-entropy of a linear model, w flat (3 features x 3 classes), labels as ints."""
    W = w.reshape(3, 3)
    X = np.array([[1.0, 0.5, -0.3], [0.2, -1.0, 0.7], [-0.4, 0.3, 0.9], [0.8, 0.1, 0.2]])
    labels = [0, 2, 1, 2]
    logits = X @ W
    logits = logits - np.max(logits, axis=1, keepdims=True)
    logp = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    loss = 0.0
    for i, c in enumerate(labels):
        loss -= logp[i, c]
    return loss / len(labels)


def attention_score(x):
    """Single-head self-attention over 3 tokens of width 2 (x flat, 6), then a sum of squares."""
    T = x.reshape(3, 2)
    Wq = np.array([[0.5, -0.3], [0.2, 0.8]])
    Wk = np.array([[0.1, 0.4], [-0.6, 0.3]])
    q, k = T @ Wq, T @ Wk
    s = q @ k.T / math.sqrt(2.0)
    a = np.exp(s - s.max(axis=-1, keepdims=True))
    a = a / a.sum(axis=-1, keepdims=True)
    out = a @ T
    return np.sum(out ** 2)


def layernorm_loss(x):
    """LayerNorm of rows with epsilon, then a weighted sum with tanh."""
    X = x.reshape(2, -1)
    mu = X.mean(axis=-1, keepdims=True)
    var = ((X - mu) ** 2).mean(axis=-1, keepdims=True)
    Y = (X - mu) / np.sqrt(var + 1e-3)
    return np.sum(np.tanh(Y) * np.arange(X.size).reshape(X.shape))


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def gru_step_loss(h0):
    """A GRU cell unrolled over three inputs; loss on the final hidden state (h0 of size 3)."""
    rng = np.random.default_rng(3)
    Wz, Wr, Wh = (rng.standard_normal((3, 3)) * 0.4 for _ in range(3))
    Uz, Ur, Uh = (rng.standard_normal((3, 2)) * 0.4 for _ in range(3))
    xs = [np.array([0.5, -0.1]), np.array([0.2, 0.3]), np.array([-0.6, 0.4])]
    h = h0
    for xt in xs:
        z = _sigmoid(Wz @ h + Uz @ xt)
        r = _sigmoid(Wr @ h + Ur @ xt)
        cand = np.tanh(Wh @ (r * h) + Uh @ xt)
        h = (1 - z) * h + z * cand
    return np.sum(h ** 2) + h[0]


def logistic_l2(w, lam=0.1):
    """Logistic regression log-loss plus L2, with np.logaddexp; lam a keyword constant."""
    X = np.array([[1.0, 0.2, -0.5], [0.3, -0.8, 0.1], [-0.7, 0.5, 0.9], [0.4, 0.4, -0.2], [0.0, 1.0, 0.3]])
    y = np.array([1.0, 0.0, 1.0, 0.0, 1.0])
    z = X @ w
    nll = np.sum(np.logaddexp(0.0, z) - y * z)
    return nll / len(y) + 0.5 * lam * np.dot(w, w)


def relu_mlp_loss(x):
    """Two-layer ReLU (np.maximum) net; the point keeps every pre-activation away from 0."""
    W1 = np.array([[0.5, -0.4, 0.3], [0.2, 0.6, -0.5], [-0.3, 0.1, 0.7]])
    h = np.maximum(W1 @ x + np.array([0.05, -0.07, 0.11]), 0.0)
    return np.sum(h ** 2) + np.sum(h * x)


def huber_where(x):
    """Huber loss written with np.where and abs; residuals away from the kink at +-0.5."""
    r = x - np.array([0.1, -0.25, 0.4, 0.0, 0.35, -0.1])
    a = np.abs(r)
    return np.sum(np.where(a < 0.5, 0.5 * r ** 2, 0.5 * (a - 0.25))) + np.sum(r ** 4)


def params_list_regression(params):
    """T: a list [w, b] of a linear model with a cubic feature."""
    w, b = params
    X = np.array([[0.3, -0.1], [0.9, 0.4], [-0.5, 0.8]])
    pred = X @ w + b
    return np.sum((pred ** 3 - np.array([0.1, 0.2, -0.3])) ** 2)


# ================================================================ statistics
def gaussian_loglik(theta):
    """Negative log-likelihood of N(mu, exp(log_sigma)) over data; theta = (mu, log_sigma)."""
    data = np.array([0.3, -1.2, 0.8, 2.1, 0.0])
    mu, log_sigma = theta[0], theta[1]
    sigma = np.exp(log_sigma)
    z = (data - mu) / sigma
    return 0.5 * np.sum(z ** 2) + len(data) * log_sigma + 0.5 * len(data) * math.log(2 * math.pi)


def _rbf(xa, xb, ell, amp):
    d = xa[:, None] - xb[None, :]
    return amp * np.exp(-0.5 * d ** 2 / ell ** 2)


def gp_nll_cholesky(log_hyp):
    """GP negative log marginal likelihood via Cholesky and solves; log_hyp = (log ell, log amp, log noise)."""
    xs = np.array([-1.0, -0.3, 0.2, 0.9, 1.4])
    ys = np.array([0.4, -0.1, 0.3, 0.8, 0.2])
    ell, amp, noise = np.exp(log_hyp[0]), np.exp(log_hyp[1]), np.exp(log_hyp[2])
    K = _rbf(xs, xs, ell, amp) + noise * np.eye(len(xs))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, ys))
    return 0.5 * ys @ alpha + np.sum(np.log(np.diag(L)))


def gp_nll_solve_slogdet(log_hyp):
    """Same model through np.linalg.solve and slogdet."""
    xs = np.array([-0.8, 0.1, 0.5, 1.2])
    ys = np.array([0.2, -0.4, 0.1, 0.6])
    K = _rbf(xs, xs, np.exp(log_hyp[0]), np.exp(log_hyp[1])) + 0.1 * np.eye(4)
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * ys @ np.linalg.solve(K, ys) + 0.5 * logdet


def kernel_matrix_trace(x):
    """Kernel matrix of the points x built entry by entry in a double loop, then trace of K @ K."""
    n = len(x)
    K = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            K[i, j] = math.exp(-(x[i] - x[j]) ** 2) + (0.1 if i == j else 0.0)
    return np.trace(K @ K) + np.sum(K[0])


def poisson_loglik(w):
    """Poisson regression log-likelihood with a log link, counts as ints."""
    X = np.array([[1.0, 0.3], [1.0, -0.5], [1.0, 1.2], [1.0, 0.0]])
    counts = [2, 0, 5, 1]
    eta = X @ w
    ll = 0.0
    for i in range(len(counts)):
        ll += counts[i] * eta[i] - math.exp(eta[i]) - math.lgamma(counts[i] + 1)
    return -ll


def mixture_loglik(x):
    """Two-component Gaussian mixture log-likelihood with logsumexp by hand; x = (m1, m2, logit)."""
    data = np.array([-1.0, -0.5, 0.4, 1.5, 2.0])
    w = _sigmoid(x[2])
    l1 = np.log(w) - 0.5 * (data - x[0]) ** 2
    l2 = np.log(1 - w) - 0.5 * (data - x[1]) ** 2
    m = np.maximum(l1, l2)
    return -np.sum(m + np.log(np.exp(l1 - m) + np.exp(l2 - m)))


def student_t_nll(x, nu=4):
    """Student-t negative log-likelihood (nu an int), loc and log-scale in x."""
    data = np.array([0.1, 1.5, -0.7, 0.3])
    loc, scale = x[0], math.exp(x[1])
    s = 0.0
    for d in data:
        z = (d - loc) / scale
        s += 0.5 * (nu + 1) * math.log1p(z * z / nu) + math.log(scale)
    return s


# ================================================================ numerics
def newton_sqrt(t):
    """Newton's iteration for sqrt(t), a fixed number of steps (scalar in)."""
    y = t
    for _ in range(6):
        y = 0.5 * (y + t / y)
    return y * t


def newton_tol(t):
    """Newton's method for x^3 + x = t with a tolerance exit (while with a data-dependent exit)."""
    x = 0.0
    it = 0
    while True:
        fx = x ** 3 + x - t
        if abs(fx) < 1e-12 or it > 50:
            break
        x = x - fx / (3 * x ** 2 + 1)
        it += 1
    return x ** 2


def bisection_constant(t):
    """Bisection on a constant bracket (no dependence on t in the loop), then a smooth use of t."""
    lo, hi = 0.0, 2.0
    for _ in range(30):
        mid = 0.5 * (lo + hi)
        if mid * mid > 2.0:
            hi = mid
        else:
            lo = mid
    return math.sin(t * lo) + t ** 3


def fixed_point_cos(x):
    """Fixed-point iteration y = cos(a * y) + b, elementwise, with an early exit when converged."""
    y = np.zeros_like(x)
    for it in range(200):
        y_new = np.cos(0.5 * y * x) + 0.1 * x
        if np.max(np.abs(y_new - y)) < 1e-13:
            y = y_new
            break
        y = y_new
    return np.sum(y ** 2)


def horner(coeffs, t=0.7):
    """Horner's scheme on a coefficient vector (S): value plus derivative value at t."""
    p = 0.0
    dp = 0.0
    for c in coeffs:
        dp = dp * t + p
        p = p * t + c
    return p * p + dp * p


def horner_in_t(t):
    """Horner with constant coefficients, variable point (R)."""
    coeffs = [0.5, -1.0, 2.0, 0.3, -0.7]
    p = coeffs[0]
    for c in coeffs[1:]:
        p = p * t + c
    return p * math.exp(-t)


def fd_laplacian_energy(u):
    """Second-difference stencil into a preallocated array with slices, periodic ends written by index."""
    n = len(u)
    lap = np.empty(n)
    lap[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]
    lap[0] = u[1] - 2 * u[0] + u[n - 1]
    lap[n - 1] = u[0] - 2 * u[n - 1] + u[n - 2]
    return 0.5 * np.sum(u * lap) + np.sum(u ** 4) / 4


def trapezoid_integral(x):
    """Trapezoid rule of exp(-a t^2) * b over a grid, accumulated in a loop with a helper."""
    a, b = x[0], x[1]
    ts = np.linspace(0.0, 2.0, 9)

    def g(t):
        return b * math.exp(-a * t * t) + a * b * t

    s = 0.0
    for i in range(len(ts) - 1):
        s += 0.5 * (ts[i + 1] - ts[i]) * (g(ts[i]) + g(ts[i + 1]))
    return s


def gauss_seidel_sweeps(x):
    """Gauss-Seidel on a fixed diagonal-dominant matrix with right-hand side x, in place, element by element."""
    A = np.array([[4.0, -1.0, 0.5], [-1.0, 5.0, 1.0], [0.5, 1.0, 3.0]])
    u = np.zeros(3)
    for _ in range(8):
        for i in range(3):
            s = x[i]
            for j in range(3):
                if j != i:
                    s -= A[i, j] * u[j]
            u[i] = s / A[i, i]
    return np.sum(u ** 3) + u[0] * u[2]


def power_iteration(x):
    """Power iteration on a matrix built from x (3 x 3 symmetric), a Rayleigh quotient at the end."""
    M = np.outer(x, x) + np.diag([3.0, 2.0, 1.0])
    v = np.ones(3)
    for _ in range(15):
        v = M @ v
        v = v / np.linalg.norm(v)
    return v @ M @ v


def cumulative_product_loop(x):
    """Running product with an early return when it gets small."""
    p = 1.0
    for i in range(len(x)):
        p = p * (1.0 + 0.5 * math.tanh(x[i]))
        if p < 1e-3:
            return p
    return p * p


# ================================================================ classes
class Model:
    """A small model: parameters in attributes, __call__ and a loss method."""

    def __init__(self, w, scale=2.0):
        self.w = w
        self.scale = scale

    def features(self, t):
        return np.array([1.0, t, t * t])

    def __call__(self, t):
        return self.scale * np.tanh(self.features(t) @ self.w)

    def loss(self, ts, ys):
        s = 0.0
        for t, y in zip(ts, ys):
            s = s + (self(t) - y) ** 2
        return s


def model_call_loss(w):
    m = Model(w)
    return m.loss([0.1, 0.5, -0.3], [0.2, 0.4, -0.1])


@dataclasses.dataclass
class OscillatorParams:
    k: float
    c: float
    x0: np.ndarray


def dataclass_params(x):
    """A dataclass of params built from x, read in a loop."""
    p = OscillatorParams(k=x[0], c=0.3, x0=x[1:])
    pos = p.x0.copy()
    vel = np.zeros_like(pos)
    for _ in range(4):
        vel = vel - DT * (p.k * pos + p.c * vel)
        pos = pos + DT * vel
    return np.sum(pos ** 2) + p.k ** 2


class RunningStats:
    """A class with an in-place update method (mutates its fields)."""

    def __init__(self, n):
        self.mean = np.zeros(n)
        self.m2 = np.zeros(n)
        self.count = 0

    def update(self, v):
        self.count += 1
        delta = v - self.mean
        self.mean += delta / self.count
        self.m2 += delta * (v - self.mean)


def running_stats_loss(x):
    rs = RunningStats(2)
    for i in range(3):
        rs.update(x[2 * i:2 * i + 2] * (i + 1.0))
    var = rs.m2 / (rs.count - 1)
    return np.sum(var) + np.sum(rs.mean ** 3)


class Polynomial:
    def __init__(self, coeffs):
        self.coeffs = list(coeffs)

    def scale_(self, a):
        for i in range(len(self.coeffs)):
            self.coeffs[i] = self.coeffs[i] * a
        return self

    def at(self, t):
        return sum(c * t ** i for i, c in enumerate(self.coeffs))


def polynomial_object(x):
    poly = Polynomial(x).scale_(1.5)
    return poly.at(0.4) * poly.at(-0.6) + poly.at(1.1) ** 2


class Layer:
    def __init__(self, W, act):
        self.W = W
        self.act = act

    def apply(self, h):
        return self.act(self.W @ h)


def layer_stack(x):
    """A list of Layer objects with different activation callables stored in attributes."""
    W = x.reshape(2, 2)
    layers = [Layer(W, np.tanh), Layer(W.T, np.sin), Layer(0.5 * W, lambda z: z ** 3)]
    h = np.array([0.4, -0.2])
    for layer in layers:
        h = layer.apply(h)
    return np.sum(h) + np.sum(h ** 2)


class Accumulator:
    def __init__(self):
        self.total = 0.0
        self.history = []

    def add(self, v):
        self.total += v
        self.history.append(v)


def accumulator_object(x):
    acc = Accumulator()
    for i in range(len(x)):
        acc.add(x[i] ** 2 * math.cos(x[i]))
    return acc.total * acc.history[0] + acc.history[-1]


# ================================================================ closures and helpers
def make_scaled_loss(alpha):
    def loss(x):
        return alpha * np.sum(np.sin(x) * x) + np.prod(x[:3])
    return loss


closure_loss = make_scaled_loss(1.7)


def closure_captures_input(x):
    """An inner function capturing a value computed from x, called in a loop."""
    k = np.sum(x ** 2)

    def inner(t):
        return math.sin(k * t) + t * k

    s = 0.0
    for i in range(len(x)):
        s += inner(x[i])
    return s


def closure_counter(x):
    """A closure with nonlocal accumulation."""
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v * v

    for v in x:
        add(math.exp(0.5 * v))
    return total


def partial_helper(x):
    """functools.partial of a helper, called in a loop."""
    def weighted(a, b, w):
        return w * a * b + a ** 3

    f = functools.partial(weighted, w=0.3)
    s = 0.0
    for i in range(len(x) - 1):
        s += f(x[i], x[i + 1])
    return s


def lambda_map_sum(x):
    fs = [lambda t: t ** 2, lambda t: math.sin(t), lambda t: math.exp(0.3 * t)]
    s = 0.0
    for i, v in enumerate(x):
        s += fs[i % 3](v) * (i + 1)
    return s


def _shifted_softplus(v, shift):
    return math.log1p(math.exp(v - shift))


def helper_in_loop_kw(x):
    s = 0.0
    for i in range(len(x)):
        s += _shifted_softplus(x[i], shift=0.1 * i) ** 2
    return s


# ================================================================ control flow
def early_return_branch(x):
    """Early return chosen on a value (the branch taken does not change under small steps)."""
    s = np.sum(x)
    if s > 10.0:
        return s
    if x[0] > 0:
        return np.sum(np.exp(x) * x[0])
    return np.sum(x ** 3)


def while_until_threshold(x):
    """Scale until the norm passes a threshold (the trip count does not change under small steps)."""
    y = x.copy()
    n = 0
    while np.dot(y, y) < 20.0:
        y = 1.3 * y + 0.1 * np.sin(y)
        n += 1
    return np.sum(y ** 3) / n


def try_except_log(x):
    """try/except around a log of a possibly negative number; the fallback branch is used for some entries."""
    s = 0.0
    for v in x:
        try:
            s += math.log(v) * v
        except ValueError:
            s += v ** 2
    return s


def list_dict_accumulation(x):
    """Intermediate results in a list and a dict, combined at the end."""
    parts = []
    table = {}
    for i in range(len(x)):
        v = x[i] * (i + 1)
        parts.append(math.tanh(v))
        table[f"k{i % 2}"] = table.get(f"k{i % 2}", 0.0) + v * v
    return sum(parts) * table["k0"] + table["k1"]


def branchy_scalar(t):
    """Branches and a loop on a scalar (R)."""
    y = t
    for i in range(4):
        if y > 0.5:
            y = y * math.cos(y) + 0.1 * i
        elif y > -0.5:
            y = y ** 3 + t
        else:
            y = math.exp(y) - t
    return y


def abs_maximum_mix(x):
    """abs, maximum, minimum and where, away from their kinks."""
    a = np.abs(x - 0.05)
    b = np.maximum(x, 0.25) * np.minimum(x, -0.15)
    return np.sum(a ** 3) + np.sum(b * x) + np.sum(np.where(x > 0.0, x ** 2, np.sin(x)))


def int_args_mixed(x, n=3, p=2):
    """Int-valued arguments and constants: powers, ranges and integer division."""
    s = 0.0
    for i in range(n):
        s += np.sum(x ** p) / (i + 1) + x[i % len(x)] ** (i // 2 + 1)
    return s


# ================================================================ scalar-in functions (R)
def logistic_map(r):
    y = 0.3
    for _ in range(5):
        y = r * y * (1 - y)
    return y


def sinc_series(t):
    s = 0.0
    for k in range(1, 6):
        s += math.sin(k * t) / (k * t)
    return s


def gamma_ratio(t):
    return math.lgamma(t + 1.5) - math.lgamma(t) + math.erf(t / 3.0)


# ================================================================ vector valued (V)
def verlet_trajectory(x):
    """Positions after Verlet steps: a vector output (x = initial positions of 3 particles on springs)."""
    q = x.copy()
    q_prev = x.copy()
    for _ in range(4):
        force = -(q - 0.5 * np.roll(q, 1)) - 0.2 * q ** 3
        q_new = 2 * q - q_prev + DT * DT * force
        q_prev = q
        q = q_new
    return q


def softmax_vec(x):
    e = np.exp(x - np.max(x))
    return e / np.sum(e)


def residuals_loop(x):
    """Residual vector of a nonlinear system, filled in a loop."""
    n = len(x)
    r = np.zeros(n)
    for i in range(n):
        left = x[i - 1] if i > 0 else 0.0
        right = x[i + 1] if i < n - 1 else 0.0
        r[i] = 2 * x[i] - left - right + 0.1 * math.exp(x[i])
    return r


def polar_to_cart(x):
    r, th = x[0], x[1]
    return np.array([r * math.cos(th), r * math.sin(th), r * r])


def layernorm_vec(x):
    mu = x.mean()
    s = np.sqrt(((x - mu) ** 2).mean() + 1e-2)
    return (x - mu) / s * np.array([1.0, 2.0, 0.5, 1.5]) + 0.1


# ================================================================ multiple args (M)
def bilinear_energy(a, b):
    M = np.array([[1.0, 0.2, -0.3], [0.4, 0.5, 0.1], [-0.2, 0.3, 0.8]])
    return a @ M @ b + np.sum(np.sin(a * b)) + np.sum(a ** 2 * b)


def regression_wb(w, b):
    X = np.array([[0.2, 0.5], [-0.3, 0.9], [1.1, -0.4]])
    y = np.array([0.5, -0.1, 0.3])
    pred = np.tanh(X @ w + b[0])
    return np.sum((pred - y) ** 2) + 0.1 * b[0] ** 2 * np.dot(w, w)


def coupled_oscillators(q, p):
    """Hamiltonian of coupled oscillators, q positions p momenta, loop over couplings."""
    H = 0.5 * np.dot(p, p)
    for i in range(len(q)):
        H += 0.5 * q[i] ** 2 + 0.25 * q[i] ** 4
        if i > 0:
            H += 0.3 * (q[i] - q[i - 1]) ** 2 * p[i]
    return H


# ================================================================ has_aux (A)
def loss_with_metrics(x):
    pred = np.tanh(x * 1.5)
    err = pred - np.array([0.1, -0.2, 0.3, 0.4, 0.0, -0.5])
    loss = np.sum(err ** 2) + 0.01 * np.sum(x ** 4)
    return loss, {"mae": np.mean(np.abs(err)), "n": len(x)}


def loss_with_state(x):
    h = x.copy()
    trace = []
    for i in range(3):
        h = np.sin(h) + 0.2 * h[::-1]
        trace.append(float(np.sum(h)))
    return np.sum(h ** 2), trace


# ================================================================ trees (T)
def dict_mixed_params(p):
    """Dict params with a scalar float, an array and a nested list."""
    x = np.array([0.3, -0.6, 0.9])
    z = p["a"] * np.sum(np.sin(p["w"] * x))
    for m in p["extra"]:
        z = z + np.sum(m ** 2) * p["a"]
    return z ** 2 + np.exp(p["a"])


# ================================================================ registry
X6 = np.array([0.3, -0.7, 1.1, 0.45, -0.2, 0.8])
X4 = np.array([0.3, 0.7, 1.1, 0.45])
X3 = np.array([0.3, -0.4, 0.6])
MLP_PARAMS = {"W0": np.random.default_rng(0).standard_normal((4, 3)) * 0.5, "b0": np.array([0.1, -0.1, 0.05]),
              "W1": np.random.default_rng(1).standard_normal((3, 3)) * 0.5, "b1": np.array([0.0, 0.2, -0.1])}

CASES = [
    # physics
    ("pendulum_verlet", "R", (0.7,)),
    ("spring_chain_energy", "S", (np.array([0.0, 1.1, 1.9, 3.2]),)),
    ("nbody_potential", "S", (np.array([0.0, 0.1, 1.0, -0.2, 0.4, 0.9]),)),
    ("projectile_drag", "S", (np.array([3.0, 4.0]),)),
    ("rk2_oscillator", "R", (2.5,)),
    ("heat_stencil_inplace", "S", (X6,)),
    ("wave_leapfrog", "S", (X6,)),
    # ML
    ("mlp_dict_loss", "T", (MLP_PARAMS,)),
    ("softmax_xent", "S", (np.linspace(-0.4, 0.5, 9),)),
    ("attention_score", "S", (X6,)),
    ("layernorm_loss", "S", (X6,)),
    ("gru_step_loss", "S", (X3,)),
    ("logistic_l2", "S", (X3,)),
    ("relu_mlp_loss", "S", (np.array([0.5, 0.4, 0.6]),)),
    ("huber_where", "S", (X6,)),
    ("params_list_regression", "T", ([np.array([0.4, -0.3]), 0.2],)),
    # statistics
    ("gaussian_loglik", "S", (np.array([0.2, 0.1]),)),
    ("gp_nll_cholesky", "S", (np.array([-0.2, 0.1, -1.5]),)),
    ("gp_nll_solve_slogdet", "S", (np.array([-0.1, 0.2]),)),
    ("kernel_matrix_trace", "S", (X4,)),
    ("poisson_loglik", "S", (np.array([0.3, 0.5]),)),
    ("mixture_loglik", "S", (np.array([-0.5, 1.2, 0.3]),)),
    ("student_t_nll", "S", (np.array([0.2, -0.1]),)),
    # numerics
    ("newton_sqrt", "R", (2.3,)),
    ("newton_tol", "R", (1.7,)),
    ("bisection_constant", "R", (0.9,)),
    ("fixed_point_cos", "S", (X4,)),
    ("horner", "S", (np.array([0.5, -1.0, 2.0, 0.3]),)),
    ("horner_in_t", "R", (0.6,)),
    ("fd_laplacian_energy", "S", (X6,)),
    ("trapezoid_integral", "S", (np.array([0.7, 1.3]),)),
    ("gauss_seidel_sweeps", "S", (X3,)),
    ("power_iteration", "S", (X3,)),
    ("cumulative_product_loop", "S", (X4,)),
    # classes
    ("model_call_loss", "S", (X3,)),
    ("dataclass_params", "S", (np.array([1.5, 0.4, -0.3]),)),
    ("running_stats_loss", "S", (X6,)),
    ("polynomial_object", "S", (X4,)),
    ("layer_stack", "S", (X4,)),
    ("accumulator_object", "S", (X4,)),
    # closures
    ("closure_loss", "S", (X4,)),
    ("closure_captures_input", "S", (np.array([0.3, -0.2, 0.5]),)),
    ("closure_counter", "S", (X4,)),
    ("partial_helper", "S", (X4,)),
    ("lambda_map_sum", "S", (X6,)),
    ("helper_in_loop_kw", "S", (X4,)),
    # control flow
    ("early_return_branch", "S", (X4,)),
    ("while_until_threshold", "S", (X3,)),
    ("try_except_log", "S", (np.array([0.3, -0.7, 1.1, 0.45]),)),
    ("list_dict_accumulation", "S", (X6,)),
    ("branchy_scalar", "R", (0.3,)),
    ("abs_maximum_mix", "S", (X6,)),
    ("int_args_mixed", "S", (X4, 3, 2)),
    # scalar in
    ("logistic_map", "R", (3.1,)),
    ("sinc_series", "R", (0.8,)),
    ("gamma_ratio", "R", (1.3,)),
    # vector valued
    ("verlet_trajectory", "V", (X3,)),
    ("softmax_vec", "V", (X4,)),
    ("residuals_loop", "V", (X4,)),
    ("polar_to_cart", "V", (np.array([1.3, 0.6]),)),
    ("layernorm_vec", "V", (X4,)),
    # several arguments
    ("bilinear_energy", "M", (X3, np.array([0.5, -0.2, 0.9]))),
    ("regression_wb", "M", (np.array([0.4, -0.6]), np.array([0.15]))),
    ("coupled_oscillators", "M", (X4, np.array([0.2, -0.1, 0.4, 0.3]))),
    # has_aux
    ("loss_with_metrics", "A", (X6,)),
    ("loss_with_state", "A", (X4,)),
    # trees
    ("dict_mixed_params", "T", ({"a": 0.7, "w": np.array([0.5, -0.2, 1.0]), "extra": [np.array([0.3, 0.1])]},)),
]


# ================================================================ batch 2: library calls, operators, protocols
class Vec2:
    """Operator overloading: a 2-vector with __add__, __mul__, __rmul__, __sub__, __abs__ and a property."""

    def __init__(self, a, b):
        self.a = a
        self.b = b

    def __add__(self, o):
        return Vec2(self.a + o.a, self.b + o.b)

    def __sub__(self, o):
        return Vec2(self.a - o.a, self.b - o.b)

    def __mul__(self, s):
        return Vec2(self.a * s, self.b * s)

    __rmul__ = __mul__

    def __abs__(self):
        return math.sqrt(self.a * self.a + self.b * self.b)

    @property
    def angle(self):
        return math.atan2(self.b, self.a)


def vec2_orbit(x):
    pos = Vec2(x[0], x[1])
    vel = Vec2(x[2], x[3])
    for _ in range(3):
        r = abs(pos)
        vel = vel - pos * (DT / r ** 3)
        pos = pos + DT * vel
    return abs(pos) + pos.angle * vel.b


class Base:
    def __init__(self, w):
        self.w = w

    def energy(self, x):
        return np.sum(self.w * x ** 2)


class Derived(Base):
    def __init__(self, w, c):
        super().__init__(w)
        self.c = c

    def energy(self, x):
        return super().energy(x) + self.c * np.sum(np.cos(x))

    @staticmethod
    def penalty(x):
        return np.sum(x ** 4)

    @classmethod
    def default(cls, w):
        return cls(w, 0.5)


def inheritance_energy(x):
    m = Derived.default(np.array([1.0, 2.0, 0.5, 1.5]))
    return m.energy(x) + Derived.penalty(x) * m.c


class Seq:
    """A user sequence with __getitem__ / __len__ iterated by index and by for."""

    def __init__(self, data):
        self.data = data

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return self.data[i] * 2.0


def user_sequence(x):
    s = Seq(x)
    t = 0.0
    for i in range(len(s)):
        t += s[i] ** 3
    return t + math.exp(s[0] - s[len(s) - 1])


def recursive_power(x):
    def rec(v, n):
        if n == 0:
            return v
        return math.sin(rec(v, n - 1)) * v + 0.1 * n
    return sum(rec(v, 3) for v in x)


def star_args_helper(x):
    def combine(*vals, scale=1.0, **extra):
        s = 0.0
        for v in vals:
            s += v * v
        for k in sorted(extra):
            s += extra[k] * scale
        return s * scale
    return combine(x[0], x[1] * x[2], x[3], scale=1.3, shift=math.sin(x[0]), tilt=x[1] ** 3)


def reduce_and_sorted(x):
    vals = sorted([x[0] * x[1], math.exp(x[2]), x[3] ** 2, -x[1]], key=lambda t: -t)
    prod = functools.reduce(lambda a, b: a * b + 0.1, vals)
    return prod + vals[0] * vals[-1]


def comprehensions(x):
    sq = [v * v for v in x if v > 0]
    d = {i: math.tanh(v) for i, v in enumerate(x)}
    return sum(sq) * d[0] + sum(d[i] * x[i] for i in d)


def fancy_index_inplace(x):
    """Fancy and boolean indexing with in-place multiplies and np.add.at."""
    y = x.copy()
    idx = np.array([0, 2, 3])
    y[idx] *= np.array([1.5, 2.0, 0.5])
    mask = np.array([True, False, True, False, True, False])
    y[mask] = y[mask] ** 2 + 0.1
    acc = np.zeros(3)
    np.add.at(acc, np.array([0, 1, 1, 2, 0, 2]), y)
    return np.sum(acc ** 2) + np.sum(y * x)


def out_argument(x):
    buf = np.empty_like(x)
    np.multiply(x, x, out=buf)
    np.sin(buf, out=buf)
    np.add(buf, x, out=buf)
    return np.sum(buf ** 2)


def linalg_mix(x):
    """inv, det, eigh (distinct eigenvalues), norm of a 3 x 3 matrix from x."""
    A = x.reshape(3, 3)
    S = A @ A.T + np.diag([1.0, 2.0, 3.0])
    w, V = np.linalg.eigh(S)
    return np.sum(np.linalg.inv(S)) + math.log(np.linalg.det(S)) + w[-1] + np.linalg.norm(A) + V[0, 0] ** 2


def einsum_cumsum(x):
    A = x.reshape(2, 3)
    B = np.einsum("ij,kj->ik", A, A)
    c = np.cumsum(A, axis=1)
    p = np.cumprod(1.0 + 0.1 * A, axis=1)
    return np.sum(B ** 2) + np.sum(c * p) + np.trace(B)


def sort_and_max(x):
    s = np.sort(x)
    return np.sum(s * np.arange(1, len(x) + 1)) + np.max(x ** 2) + np.var(x) + np.std(x)


def stack_roll_pad(x):
    a = np.stack([x, np.roll(x, 1), x ** 2])
    b = np.concatenate([x[:2], np.pad(x, 1)])
    return np.sum(a.prod(axis=0)) + np.sum(np.diff(b) ** 2)


def select_clip(x):
    y = np.clip(x, -2.0, 2.0)
    z = np.select([y < -0.5, y < 0.5], [y ** 2, np.sin(y)], default=np.exp(y))
    return np.sum(z * y) + np.sum(np.log1p(y ** 2)) + np.sum(np.expm1(0.5 * y))


def scipy_special(x):
    from scipy.special import expit, logsumexp, gammaln
    return logsumexp(x * 2.0) + np.sum(expit(x) * x) + np.sum(gammaln(x + 3.0))


def hypot_arctan2(x):
    a, b = x[:3], x[3:]
    return np.sum(np.hypot(a, b) * np.arctan2(b, a)) + math.hypot(x[0], x[1]) ** 3


def dict_int_keys_nested(p):
    """T: dict with int keys and a nested dict."""
    s = 0.0
    for k in sorted(k for k in p if isinstance(k, int)):
        s += k * np.sum(np.sin(p[k]) ** 2)
    s += p["head"]["scale"] * np.sum(p[0] * p[1])
    return s * p["head"]["scale"]


def float32_constants(x):
    """Constants in float32 and int arrays mixed into float64 arithmetic."""
    c = np.array([0.5, 1.5, -0.25, 2.0], dtype=np.float32)
    k = np.arange(4)
    return np.sum(c * x ** 2) + np.sum(k * np.sin(x)) + float(c[0]) * x[0] ** 3


def early_return_loop(x):
    """Return from inside a loop when a running value passes a threshold (fixed under small steps)."""
    acc = 0.0
    for i in range(len(x)):
        acc = acc + math.exp(x[i]) * (i + 1)
        if acc > 5.0:
            return acc * x[i]
    return -acc


def while_break_continue(x):
    i = 0
    s = 0.0
    while True:
        if i >= len(x):
            break
        v = x[i]
        i += 1
        if v < 0:
            s -= v ** 3
            continue
        s += math.sqrt(v + 1.0) * v
    return s


def model_list_of_dicts(x):
    """Parameters in a list of dicts built from x, a loop over layers."""
    layers = [{"w": x[:2], "b": x[2]}, {"w": x[3:5], "b": x[5]}]
    h = np.array([0.5, -0.3])
    out = 0.0
    for layer in layers:
        z = np.dot(layer["w"], h) + layer["b"]
        out = out + math.tanh(z)
        h = h * z
    return out + np.sum(h ** 2)


def vector_object_method(x):
    """V: a method returning an array, called in a loop, vector valued."""
    m = Model(x[:3])
    return np.array([m(t) for t in (0.1, 0.5, 0.9)])


def jacobian_of_loop_vector(x):
    """V: in-place accumulation into an output array over a nested loop."""
    n = len(x)
    out = np.zeros(n)
    for i in range(n):
        for j in range(i + 1):
            out[i] += math.sin(x[j]) * x[i] / (j + 1)
    return out


def aux_with_arrays(x):
    """A: aux holds arrays derived from x."""
    y = np.tanh(x)
    return np.sum(y * x ** 2), y


def mixed_argnums(a, b, n=2):
    """M: a matrix and a vector, int constant last."""
    A = a.reshape(2, 2)
    r = A @ b
    for _ in range(n):
        r = np.tanh(A @ r + b)
    return np.sum(r ** 2) + np.sum(A * A) * b[0]


CASES += [
    ("vec2_orbit", "S", (np.array([1.0, 0.2, 0.1, 0.9]),)),
    ("inheritance_energy", "S", (X4,)),
    ("user_sequence", "S", (X4,)),
    ("recursive_power", "S", (X4,)),
    ("star_args_helper", "S", (X4,)),
    ("reduce_and_sorted", "S", (X4,)),
    ("comprehensions", "S", (X6,)),
    ("fancy_index_inplace", "S", (X6,)),
    ("out_argument", "S", (X6,)),
    ("linalg_mix", "S", (np.array([0.3, -0.7, 1.1, 0.45, -0.2, 0.8, 0.5, 0.1, -0.4]),)),
    ("einsum_cumsum", "S", (X6,)),
    ("sort_and_max", "S", (X6,)),
    ("stack_roll_pad", "S", (X4,)),
    ("select_clip", "S", (X6,)),
    ("scipy_special", "S", (X4,)),
    ("hypot_arctan2", "S", (X6,)),
    ("dict_int_keys_nested", "T", ({0: np.array([0.2, 0.5]), 1: np.array([-0.3, 0.8]),
                                     "head": {"scale": 1.3}},)),
    ("float32_constants", "S", (X4,)),
    ("early_return_loop", "S", (X4,)),
    ("while_break_continue", "S", (X6,)),
    ("model_list_of_dicts", "S", (X6,)),
    ("vector_object_method", "V", (X3,)),
    ("jacobian_of_loop_vector", "V", (X4,)),
    ("aux_with_arrays", "A", (X4,)),
    ("mixed_argnums", "M", (np.array([0.3, -0.2, 0.5, 0.8]), np.array([0.4, -0.6]))),
]
