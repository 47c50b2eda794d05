"""Functions over lists of (weights, bias) tuples (reverse/layer_lists.py): typed cases and near misses."""
import numpy as np


def mlp(params, x):
    h = x
    for W, b in params:
        h = np.tanh(h @ W + b)
    return np.sum(h ** 2)


def by_index(params, x):
    h = x
    for k in range(len(params)):
        W, b = params[k]
        h = np.tanh(h @ W + b)
    first = params[0]
    return np.sum(h) + np.sum(first[0] * first[0])


def enumerated(params, x):
    h = x
    total = 0.0
    for i, (W, b) in enumerate(params):
        h = np.sin(h @ W) + b * (i + 1)
        total = total + np.sum(b * b)
    return np.sum(h) + total


def with_scale(layers, x):
    """Tuples with a float part."""
    h = x
    for W, b, s in layers:
        h = s * np.tanh(h @ W + b)
    return np.sum(h * h)


def two_passes(params, x):
    h = x
    for W, b in params:
        h = np.tanh(h @ W + b)
    reg = 0.0
    for W, b in params:
        reg = reg + np.sum(W * W) + np.sum(b ** 2)
    return np.sum(h) + 0.1 * reg


def layer(p, h):
    W, b = p
    return np.tanh(h @ W + b)


def item_handed_on(params, x):
    h = x
    for p in params:
        h = layer(p, h)
    return np.sum(h)


def part_written(params, x):
    h = x
    for W, b in params:
        V = W.copy()
        V[0] = 0.0
        h = np.tanh(h @ V + b)
    return np.sum(h)


def part_viewed(params, x):
    h = x
    for W, b in params:
        h = np.tanh(h @ W[:, :] + b[:])
    return np.sum(h)


def reversed_layers(params, x):
    h = x
    for W, b in reversed(params):
        h = np.tanh(W @ h + b[: W.shape[0]])
    return np.sum(h)


def tied(params, x):
    """Called with the same weights in two layers: not typed (one array, one adjoint)."""
    h = x
    for W, b in params:
        h = np.tanh(h @ W + b)
    return np.sum(h ** 2)
