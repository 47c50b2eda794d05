"""Functions whose IR and generated source are pinned by golden files (tests/golden/)."""
import math

import numpy as np


def straight_line(x, y):
    z = x * y
    w = math.sin(z) + y
    return w / x


def branches(x):
    if x > 0:
        y = x * x
    elif x < -1:
        y = -x
    else:
        y = 0.5 * x
    return y


def sine_sum(x, n):
    s = 0.0
    for i in range(n):
        s = s + math.sin(x * i)
    return s


def while_break(x):
    steps = 0
    while x > 1.0:
        x = x / 2.0
        steps += 1
        if steps > 10:
            break
    return x


def fill_array(x, n):
    a = np.zeros(n)
    for i in range(1, n):
        a[i] = a[i - 1] * x + 1.0
    return a.sum()


def unpack_and_call(p):
    a, b = p
    return max(a, b) * abs(a - b)


def loop_with_break(x, limit):
    total = 0.0
    for i in range(10):
        if total > limit:
            break
        total = total + x * i
    return total


def while_with_break(x):
    y = x
    n = 0
    while y < 100.0:
        y = y * 1.7 + 1.0
        n += 1
        if n > 5:
            break
    return y


# ---------------------------------------------------------------- issue 9: typed reverse mode
def mlp_loss(W1, b1, W2, b2, X, y):
    h = np.tanh(X @ W1 + b1)
    pred = h @ W2 + b2
    err = pred - y
    return np.mean(err ** 2)


def logistic_loss(w, X, y):
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def inplace_recurrence(x):
    y = np.zeros_like(x)
    y[0] = np.tanh(x[0])
    for i in range(1, x.shape[0]):
        y[i] = 0.5 * y[i - 1] + np.tanh(x[i])
    return np.sum(y * y)


def euler_lotka_volterra(A, r, x0, dt, steps):
    x = x0.copy()
    for t in range(steps):
        x = x + dt * x * (r + A @ x)
    return 0.5 * np.sum(x * x)


class Affine:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def loss(self, x):
        z = np.tanh(self.W @ x + self.b)
        return np.sum(z * z)


def affine_loss(W, b, x):
    return Affine(W, b).loss(x)


def dict_params_loss(params, x):
    h = np.tanh(params["W"] @ x + params["b"])
    return np.sum(h * h)


class Vec2:
    """A value class with operators: its methods go in line and its objects become their fields."""

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __add__(self, o):
        return Vec2(self.x + o.x, self.y + o.y)

    def __mul__(self, k):
        return Vec2(self.x * k, self.y * k)

    __rmul__ = __mul__

    def __abs__(self):
        return math.sqrt(self.x * self.x + self.y * self.y)


def projectile(px, py, vx, dt):
    p = Vec2(px, py)
    v = Vec2(vx, 2.0)
    g = Vec2(0.0, -9.8)
    for _ in range(10):
        v = v + dt * g
        p = p + v * dt
    return abs(p)


def softmax_labels_loss(x):
    """Literal matrices and labels (issue 9): the int-list display in the index tuple is the int array NumPy makes of
    it, `m[:, 0]` keeps m's axis, and np.outer of a literal float vector is typed; the pullback is plain NumPy."""
    W = np.outer(x, [1.0, -0.5, 0.3])
    logits = np.array([[1.0, 2.0, 0.5, -1.0], [0.3, -0.2, 0.1, 0.9]]) @ W
    labels = [2, 0]
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    return np.mean(lse - logits[np.arange(2), labels])


def triplet_margin_loss(a, p, n, margin):
    """Norms along an axis (issue 9): `x * np.expand_dims(g / (y + (y == 0)), 1)` in the pullback."""
    dp = np.linalg.norm(a - p, axis=1)
    dn = np.linalg.norm(a - n, axis=1)
    return np.mean(np.maximum(dp - dn + margin, 0.0))


def scaled_in_place(a, b):
    """`np.add(c, b, out=c)` is `c += b`, made plain: the pullback reads like the arithmetic."""
    c = a.copy()
    np.add(c, b, out=c)
    np.multiply(c, a, out=c)
    return float(np.sum(c))


def sized_builders(x):
    """Arrays made from x's sizes keep x's axes: nothing to unbroadcast."""
    n = x.shape[0]
    acc = np.zeros(n)
    ones = np.ones((n, n))
    acc = acc + ones @ x
    return float(np.sum(acc * x)) + np.linalg.norm(x, 2)
