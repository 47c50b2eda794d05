"""NumPy-heavy numerical and machine-learning functions."""
import numpy as np

from tests.corpus import Case


def elementwise_mix(x):
    """Sum of several elementwise ufuncs."""
    return np.sum(np.sin(x) * np.exp(-x) + np.log(1.0 + x * x) + np.tanh(x) + np.sqrt(x * x + 1.0))


def relu_energy(x, w):
    """ReLU via np.maximum (no ties at the test point) followed by a weighted sum."""
    h = np.maximum(x, 0.0)
    return float(np.dot(h, w))


def softmax(z):
    """Numerically stable softmax returning an array."""
    shifted = z - np.max(z)
    e = np.exp(shifted)
    return e / e.sum()


def logsumexp(z):
    """Numerically stable log-sum-exp."""
    m = np.max(z)
    return m + np.log(np.sum(np.exp(z - m)))


def logistic_regression_loss(w, b, X, y):
    """Mean binary cross-entropy of a logistic regression model."""
    logits = X @ w + b
    p = 1.0 / (1.0 + np.exp(-logits))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def mse_loss(w, X, y):
    """Mean squared error of a linear model."""
    resid = X.dot(w) - y
    return np.mean(resid ** 2)


def mlp_forward(W1, b1, W2, b2, x):
    """Two-layer MLP forward pass with tanh hidden layer; returns squared output norm."""
    h = np.tanh(W1 @ x + b1)
    out = np.matmul(W2, h) + b2
    return 0.5 * np.sum(out * out)


def gaussian_loglik(x, mu, log_sigma):
    """Log-likelihood of i.i.d. Gaussian data."""
    sigma = np.exp(log_sigma)
    n = x.shape[0]
    return -0.5 * np.sum(((x - mu) / sigma) ** 2) - n * log_sigma - 0.5 * n * np.log(2.0 * np.pi)


def polyval_vec(coeffs, x):
    """Evaluate a polynomial at many points using a Vandermonde-like power matrix."""
    powers = np.arange(coeffs.shape[0])
    V = x[:, None] ** powers[None, :]
    return np.sum(V @ coeffs)


def _lotka_volterra(y, a=1.1, b=0.4, c=0.4, d=0.1):
    """Right-hand side of the Lotka-Volterra ODE."""
    prey, pred = y[0], y[1]
    return np.array([a * prey - b * prey * pred, d * prey * pred - c * pred])


def rk4_step(y, dt):
    """One classic Runge-Kutta 4 step of the Lotka-Volterra system."""
    k1 = _lotka_volterra(y)
    k2 = _lotka_volterra(y + 0.5 * dt * k1)
    k3 = _lotka_volterra(y + 0.5 * dt * k2)
    k4 = _lotka_volterra(y + dt * k3)
    return y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


def euler_oscillator(state, omega, dt, steps):
    """Semi-implicit Euler integration of a harmonic oscillator; returns final position and energy."""
    x, v = state[0], state[1]
    for _ in range(steps):
        v = v - dt * omega ** 2 * x
        x = x + dt * v
    return x, 0.5 * v ** 2 + 0.5 * omega ** 2 * x ** 2


def heat_step(u, alpha, steps):
    """Explicit 1-D heat equation with fixed ends, using slicing."""
    for _ in range(steps):
        lap = u[:-2] - 2.0 * u[1:-1] + u[2:]
        u = np.concatenate([u[:1], u[1:-1] + alpha * lap, u[-1:]])
    return u


def kalman_update(mu, P, z, H, R):
    """Kalman filter measurement update; returns the updated mean and covariance trace."""
    S = H @ P @ H.T + R
    K = P @ H.T @ np.linalg.inv(S)
    mu_new = mu + K @ (z - H @ mu)
    P_new = (np.eye(P.shape[0]) - K @ H) @ P
    return mu_new, np.trace(P_new)


def cumsum_loop(x):
    """Cumulative sum written as an explicit loop, then weighted."""
    out = np.zeros_like(x)
    running = 0.0
    for i in range(x.shape[0]):
        running = running + x[i]
        out[i] = running
    return np.sum(out * np.linspace(0.5, 1.5, x.shape[0]))


def reductions_axis(A):
    """Reductions along axes: sum, mean, max (no ties) and prod."""
    col_sum = A.sum(axis=0)
    row_mean = np.mean(A, axis=1)
    row_max = np.max(A, axis=1)
    col_prod = np.prod(A, axis=0)
    return col_sum @ col_sum + row_mean.sum() + row_max.sum() + col_prod.sum()


def reshape_transpose(x):
    """Reshape a flat vector into a matrix and use .T / transpose."""
    M = x.reshape(3, 4)
    G = M @ M.T
    T = np.transpose(M).reshape(-1)
    return np.trace(G) + T[::2].sum()


def fancy_indexing(x, idx):
    """Fancy indexing with an integer array and boolean mask."""
    picked = x[idx]
    mask = np.array([True, False, True, True, False, True])
    return np.sum(picked ** 2) + np.sum(x[mask] * 3.0)


def broadcast_standardize(X, gamma, beta):
    """Batch-norm-like standardisation with row-vector broadcasting."""
    mu = X.mean(axis=0)
    var = ((X - mu) ** 2).mean(axis=0)
    Xn = (X - mu) / np.sqrt(var + 1e-5)
    Y = Xn * gamma + beta
    return np.sum(Y ** 3) / X.shape[0]


def where_huber(r, delta):
    """Huber loss with np.where (no residual near the switch point)."""
    quad = 0.5 * r ** 2
    lin = delta * (np.abs(r) - 0.5 * delta)
    return np.sum(np.where(np.abs(r) <= delta, quad, lin))


def stack_concat_features(a, b):
    """Build a feature matrix with np.stack / np.concatenate and take its norm."""
    S = np.stack([a, b, a * b], axis=0)
    C = np.concatenate([a, b ** 2])
    return np.linalg.norm(S) + np.linalg.norm(C) ** 2


def zeros_ones_builders(x):
    """Construct arrays with np.zeros / np.ones and combine with input."""
    n = x.shape[0]
    acc = np.zeros(n)
    ones = np.ones((n, n))
    acc = acc + ones @ x
    return float(np.sum(acc * x)) + np.linalg.norm(x, 2)


def pairwise_rbf_kernel(X, lengthscale):
    """RBF kernel matrix via broadcasting; returns sum of kernel entries."""
    diff = X[:, None, :] - X[None, :, :]
    sq = np.sum(diff ** 2, axis=-1)
    K = np.exp(-0.5 * sq / lengthscale ** 2)
    return K.sum()


def attention_scores(Q, K, V):
    """Single-head scaled dot-product attention; returns output sum."""
    d = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d)
    scores = scores - scores.max(axis=1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=1, keepdims=True)
    return np.sum(w @ V)


def cross_entropy_softmax(logits, labels):
    """Multiclass cross-entropy with integer labels via fancy indexing."""
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    picked = logits[np.arange(logits.shape[0]), labels]
    return np.mean(lse - picked)


def leaky_relu_where(x, W):
    """Leaky-ReLU layer via np.where (no pre-activation near zero)."""
    z = W @ x
    a = np.where(z > 0.0, z, 0.01 * z)
    return np.sum(a ** 2)


def clip_and_norm(x):
    """Gradient-clipping style rescaling with np.clip away from its bounds."""
    y = np.clip(x, -2.0, 2.0)
    n = np.linalg.norm(y)
    return y / max(n, 1.0)


CASES = [
    Case(elementwise_mix, lambda: (np.random.default_rng(0).normal(size=6),), tags=("numpy", "elementwise")),
    Case(relu_energy, lambda: (np.array([0.5, -0.8, 1.2, -0.3, 0.9]), np.random.default_rng(1).normal(size=5)), tags=("numpy", "maximum", "dot")),
    Case(softmax, lambda: (np.random.default_rng(2).normal(size=5),), tags=("numpy", "softmax", "returns_array")),
    Case(logsumexp, lambda: (np.random.default_rng(3).normal(size=7),), tags=("numpy", "logsumexp", "max")),
    Case(logistic_regression_loss,
         lambda: (np.random.default_rng(4).normal(size=3), 0.2,
                  np.random.default_rng(5).normal(size=(8, 3)),
                  (np.random.default_rng(6).random(8) > 0.5).astype(float)),
         tags=("numpy", "matmul", "ml")),
    Case(mse_loss, lambda: (np.random.default_rng(7).normal(size=4),
                            np.random.default_rng(8).normal(size=(10, 4)),
                            np.random.default_rng(9).normal(size=10)), tags=("numpy", "array_method", "ml")),
    Case(mlp_forward, lambda: (np.random.default_rng(10).normal(size=(5, 3)) * 0.5, np.random.default_rng(11).normal(size=5) * 0.1,
                               np.random.default_rng(12).normal(size=(2, 5)) * 0.5, np.random.default_rng(13).normal(size=2) * 0.1,
                               np.random.default_rng(14).normal(size=3)), tags=("numpy", "matmul", "mlp", "ml")),
    Case(gaussian_loglik, lambda: (np.random.default_rng(15).normal(1.0, 2.0, size=12), 0.8, 0.5), tags=("numpy", "stats")),
    Case(polyval_vec, lambda: (np.array([1.0, -0.5, 0.3, 0.1]), np.linspace(-1.0, 1.5, 6)), tags=("numpy", "broadcasting", "polynomial")),
    Case(rk4_step, lambda: (np.array([10.0, 5.0]), 0.05), tags=("numpy", "ode", "rk4", "returns_array", "defaults")),
    Case(euler_oscillator, lambda: (np.array([1.0, 0.0]), 2.0, 0.05, 20), tags=("numpy", "ode", "loop", "indexing", "returns_tuple")),
    Case(heat_step, lambda: (np.sin(np.linspace(0.0, np.pi, 9)) + 0.1, 0.2, 5), tags=("numpy", "slicing", "pde", "concatenate", "returns_array")),
    Case(kalman_update, lambda: (np.array([0.5, -0.2]), np.array([[1.0, 0.2], [0.2, 0.8]]), np.array([0.9]),
                                 np.array([[1.0, 0.5]]), np.array([[0.3]])), tags=("numpy", "linalg", "kalman", "returns_tuple")),
    Case(cumsum_loop, lambda: (np.random.default_rng(16).normal(size=6),), tags=("numpy", "loop", "setitem", "zeros_like")),
    Case(reductions_axis, lambda: (np.random.default_rng(17).normal(size=(3, 4)),), tags=("numpy", "reductions", "axis", "prod", "max")),
    Case(reshape_transpose, lambda: (np.random.default_rng(18).normal(size=12),), tags=("numpy", "reshape", "transpose", "slicing")),
    Case(fancy_indexing, lambda: (np.random.default_rng(19).normal(size=6), np.array([0, 2, 2, 5])), tags=("numpy", "fancy_indexing", "mask")),
    Case(broadcast_standardize, lambda: (np.random.default_rng(20).normal(size=(6, 3)), np.array([1.0, 0.5, 2.0]), np.array([0.1, -0.2, 0.0])),
         tags=("numpy", "broadcasting", "axis")),
    Case(where_huber, lambda: (np.array([0.3, -2.0, 1.5, -0.4, 0.05]), 1.0), tags=("numpy", "where", "abs")),
    Case(stack_concat_features, lambda: (np.random.default_rng(21).normal(size=4), np.random.default_rng(22).normal(size=4)), tags=("numpy", "stack", "concatenate", "norm")),
    Case(zeros_ones_builders, lambda: (np.random.default_rng(23).normal(size=4),), tags=("numpy", "zeros", "ones", "norm")),
    Case(pairwise_rbf_kernel, lambda: (np.random.default_rng(24).normal(size=(5, 2)), 0.9), tags=("numpy", "broadcasting", "kernel")),
    Case(attention_scores, lambda: (np.random.default_rng(25).normal(size=(3, 4)), np.random.default_rng(26).normal(size=(5, 4)),
                                    np.random.default_rng(27).normal(size=(5, 2))), tags=("numpy", "attention", "ml", "keepdims")),
    Case(cross_entropy_softmax, lambda: (np.random.default_rng(28).normal(size=(4, 3)), np.array([0, 2, 1, 2])), tags=("numpy", "fancy_indexing", "ml")),
    Case(leaky_relu_where, lambda: (np.array([0.5, -1.0, 0.8]), np.array([[1.0, 0.2, 0.3], [-0.5, 0.4, -1.0], [0.3, 0.9, 0.1]])), tags=("numpy", "where", "matmul")),
    Case(clip_and_norm, lambda: (np.array([0.5, -2.6, 1.3, 0.2]),), tags=("numpy", "clip", "norm", "max", "returns_array")),
]
