"""hunt9 probes: small scientific / ML workloads mixing the morning's paths (zip/enumerate over lists of arrays in
class methods, `P = P @ A` loops, running statistics held on an object, early stops on a sqrt norm)."""
from __future__ import annotations

import math

import numpy as np


class Rnn:
    def __init__(self, n):
        rng = np.random.default_rng(1)
        self.w = rng.standard_normal((n, n)) * 0.3
        self.u = rng.standard_normal((n, n)) * 0.3

    def loss(self, inputs, targets):
        h = np.zeros(self.w.shape[0])
        total = 0.0
        for t, (xt, yt) in enumerate(zip(inputs, targets)):
            h = np.tanh(self.w @ h + self.u @ xt)
            total = total + (t + 1) * np.sum((h - yt) ** 2)
        return total


_RNN = Rnn(3)
_TARGETS = [np.full(3, 0.1 * k) for k in range(4)]


def rnn_sequence(x):
    inputs = [x[3 * k:3 * k + 3] for k in range(4)]
    return _RNN.loss(inputs, _TARGETS)


def kalman_like(x):
    a = np.array([[1.0, 0.1], [0.0, 1.0]])
    q = np.diag([x[0] ** 2, x[1] ** 2])
    p = np.eye(2)
    m = np.array([x[2], x[3]])
    ll = 0.0
    for k in range(4):
        m = a @ m
        p = a @ p @ a.T + q
        s = p[0, 0] + 0.5
        r = x[4 + k % 2] - m[0]
        ll = ll + r * r / s + math.log(s)
        gain = p[:, 0] / s
        m = m + gain * r
        p = p - np.outer(gain, p[0, :])
    return ll


class BatchNorm:
    def __init__(self):
        self.mean = np.zeros(3)
        self.steps = 0

    def __call__(self, z):
        mu = np.mean(z, axis=0)
        self.mean = 0.9 * self.mean + 0.1 * mu  # (running statistics: state, not differentiated)
        self.steps += 1
        var = np.var(z, axis=0)
        return (z - mu) / np.sqrt(var + 1e-5)


_BN = BatchNorm()


def batchnorm_loss(x):
    z = x.reshape(4, 3)
    return np.sum(_BN(z) ** 3 * np.arange(1.0, 4.0))


def early_stop_sqrt(x):
    y = x.copy()
    for it in range(50):
        g = 2.0 * y + np.sin(y)
        n = math.sqrt(float(np.dot(g, g)))
        if n < 1e-3:
            break
        y = y - 0.1 * g
    return np.sum(y * x)


def attention(x):
    q = x[:4].reshape(2, 2)
    k = x[4:8].reshape(2, 2)
    scores = q @ k.T
    scores = scores - np.amax(scores, axis=1, keepdims=True)
    w = np.exp(scores)
    w = w / np.sum(w, axis=1, keepdims=True)
    return np.sum(w @ k * q)


def layers_dict(x):
    params = {"l1": (x[:6].reshape(3, 2), x[6:8]), "l2": (x[8:10].reshape(2, 1), x[10:11])}
    h = np.array([0.5, -0.2, 0.1])
    for name, (w, b) in params.items():
        h = np.tanh(h @ w + b)
    return float(np.sum(h ** 2))
