"""Realistic functions whose second derivatives stopped on a refusal (array methods with keywords in forward
code, literal matrices, random draws with keyword arguments): checked in tests/test_regress_second_order_realistic.py."""
import math

import numpy as np


def softmax_rows(x):
    s = np.outer(x, x)
    s = s - s.max(axis=1, keepdims=True)
    w = np.exp(s)
    w /= w.sum(axis=1, keepdims=True)
    return np.sum(w * np.arange(len(x)))


def softmax_cross_entropy(x):
    W = np.outer(x, [1.0, -0.5, 0.3])
    logits = np.array([[1.0, 2.0, 0.5, -1.0], [0.3, -0.2, 0.1, 0.9]]) @ W
    labels = [2, 0]
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    return np.mean(lse - logits[np.arange(2), labels])


def attention(x):
    Q = np.outer(x, np.arange(1.0, 4.0))
    K = np.outer(x[::-1], np.ones(3)) * 0.5
    V = np.outer(np.cos(x), [1.0, -1.0, 2.0])
    s = Q @ K.T / math.sqrt(3)
    s = s - s.max(axis=1, keepdims=True)
    w = np.exp(s)
    w /= w.sum(axis=1, keepdims=True)
    return np.sum((w @ V) ** 2)


def standardised(x):
    z = (x - x.mean(axis=0)) / x.std(axis=0, ddof=1)
    return np.sum(np.tanh(z) * x.cumsum(axis=0))


class Layer:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def forward(self, h):
        return np.tanh(h @ self.W + self.b)


def seeded_layers(x):
    rng = np.random.default_rng(0)
    layers = [Layer(rng.normal(size=(4, 3)) * x[0], rng.normal(size=3)),
              Layer(rng.normal(size=(3, 2)), x[1:3])]
    h = np.array([x[3], 1.0, -0.5, 0.2])
    total = 0.0
    for layer in layers:
        h = layer.forward(h)
        total = total + np.sum(h ** 2)
    return total


def seeded_draws(x):
    rng = np.random.default_rng(3)
    W = rng.normal(size=(4, 3)) * x[0]
    b = rng.uniform(size=3) * 2.0 - 1.0
    return np.sum(np.tanh(x @ W + b) ** 2)


CASES = [softmax_rows, softmax_cross_entropy, attention, standardised, seeded_layers, seeded_draws]
