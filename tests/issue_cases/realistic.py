"""Realistic functions (optimisers, PDE steps, n-body, attention, Kalman filter, ...) none of which is in our corpus.

Realistic functions a user would write (none taken from our corpus)."""
import math

import numpy as np



def adam_like(w, g0):
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    params = {"w": w.copy()}
    for t in range(1, 4):
        g = 2.0 * params["w"] + g0
        m = 0.9 * m + 0.1 * g
        v = 0.99 * v + 0.01 * g * g
        mhat = m / (1 - 0.9 ** t)
        vhat = v / (1 - 0.99 ** t)
        params["w"] -= 0.1 * mhat / (np.sqrt(vhat) + 1e-8)
    return np.sum(params["w"] ** 2)


def heat_1d(u0, alpha):
    u = u0.copy()
    for _ in range(5):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]
        u += alpha * lap
    return np.sum(u * u)


def nbody(pos, vel, masses):
    p = pos.copy()
    v = vel.copy()
    n = len(masses)
    for step in range(3):
        acc = np.zeros_like(p)
        for i in range(n):
            for j in range(n):
                if i != j:
                    d = p[j] - p[i]
                    r = np.sqrt(np.sum(d * d) + 0.1)
                    acc[i] += masses[j] * d / r ** 3
        v += 0.01 * acc
        p += 0.01 * v
    return np.sum(p ** 2) + 0.5 * np.sum(v ** 2)


def softmax_xent(W, X, y):
    logits = X @ W
    logits = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    loss = 0.0
    for i, label in enumerate(y):
        loss -= np.log(p[i, label])
    return loss / len(y)


def piecewise(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            out[i] = x[i] ** 2
        elif x[i] > -0.5:
            out[i] = math.sin(x[i])
        else:
            out[i] = -x[i]
    return out.sum()


def kalman(zs, q):
    x, P = 0.0, 1.0
    est = []
    for z in zs:
        P = P + q
        K = P / (P + 0.5)
        x = x + K * (z - x)
        P = (1 - K) * P
        est.append(x)
    return sum(e * e for e in est)


def poly_fit_residual(coefs, xs, ys):
    pred = np.zeros_like(xs)
    for k, c in enumerate(coefs):
        pred += c * xs ** k
    res = pred - ys
    return float(res @ res)


def stats(values):
    data = sorted(values)
    n = len(data)
    mean = sum(data) / n
    var = sum((d - mean) ** 2 for d in data) / (n - 1)
    median = data[n // 2] if n % 2 else 0.5 * (data[n // 2 - 1] + data[n // 2])
    return mean + var + median


def gram_schmidt(A):
    Q = np.zeros_like(A)
    for j in range(A.shape[1]):
        v = A[:, j].copy()
        for i in range(j):
            v -= (Q[:, i] @ A[:, j]) * Q[:, i]
        Q[:, j] = v / np.linalg.norm(v)
    return np.sum(Q * np.arange(A.size).reshape(A.shape))


def attention(Wq, Wk, X):
    Q = X @ Wq
    K = X @ Wk
    s = Q @ K.T / np.sqrt(Q.shape[1])
    s = s - s.max(axis=-1, keepdims=True)
    a = np.exp(s)
    a = a / a.sum(axis=-1, keepdims=True)
    return np.sum((a @ X) ** 2)


def running_max_pool(x):
    out = []
    for i in range(0, len(x) - 1, 2):
        out.append(max(x[i], x[i + 1]))
    return np.sum(np.array(out) ** 2)


def newton_sqrt_vec(a):
    out = np.empty_like(a)
    for i, ai in enumerate(a):
        y = ai
        k = 0
        while abs(y * y - ai) > 1e-12 and k < 50:
            y = 0.5 * (y + ai / y)
            k += 1
        out[i] = y
    return np.sum(out)


def inplace_recurrence(x):
    y = np.zeros_like(x)
    y[0] = x[0]
    for i in range(1, len(x)):
        y[i] = 0.5 * y[i - 1] + np.tanh(x[i])
    return np.sum(y ** 2)


def dict_params(params, x):
    h = x
    for name in ("l1", "l2"):
        h = np.tanh(params[name]["W"] @ h + params[name]["b"])
    return np.sum(h)


def dict_params_wrap(W1, b1, W2, b2, x):
    return dict_params({"l1": {"W": W1, "b": b1}, "l2": {"W": W2, "b": b2}}, x)


rs = np.random.RandomState(3)
CASES = [
    ("adam", adam_like, (rs.randn(3), rs.randn(3))),
    ("heat", heat_1d, (rs.rand(6), 0.2)),
    ("nbody", nbody, (rs.randn(3, 2), rs.randn(3, 2) * 0.1, np.array([1.0, 2.0, 1.5]))),
    ("softmax_xent", softmax_xent, (rs.randn(3, 4) * 0.3, rs.randn(5, 3), [0, 2, 1, 3, 0])),
    ("piecewise", piecewise, (np.array([0.9, 0.1, -0.9, 0.3]),)),
    ("kalman", kalman, ([1.0, 1.2, 0.8, 1.1], 0.1)),
    ("polyfit", poly_fit_residual, (rs.randn(3), np.linspace(0, 1, 5), rs.randn(5))),
    ("stats", stats, ([3.0, 1.0, 2.0, 5.0, 4.5],)),
    ("gram_schmidt", gram_schmidt, (rs.randn(4, 3),)),
    ("attention", attention, (rs.randn(3, 2) * 0.5, rs.randn(3, 2) * 0.5, rs.randn(4, 3))),
    ("maxpool", running_max_pool, (np.array([0.3, 0.9, -0.2, 0.5, 1.3, 0.1]),)),
    ("newton vec", newton_sqrt_vec, (np.array([2.0, 3.0, 0.5]),)),
    ("inplace rec", inplace_recurrence, (rs.randn(6),)),
    ("dict params", dict_params_wrap, (rs.randn(3, 2) * 0.5, rs.randn(3) * 0.1, rs.randn(2, 3) * 0.5, rs.randn(2) * 0.1, rs.randn(2))),
]
