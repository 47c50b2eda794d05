"""Loops over short displays that reverse/unroll.py writes out, and near misses it must leave as loops
(tests/test_unroll.py)."""
import numpy as np


class Dense:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return np.tanh(x @ self.W + self.b)


def tuples_of_arrays(W1, b1, W2, b2, x):
    params = [(W1, b1), (W2, b2)]
    h = x
    for W, b in params:
        h = np.tanh(h @ W + b)
    return np.sum(h ** 2)


def layer_objects(W1, b1, W2, b2, x):
    layers = (Dense(W1, b1), Dense(W2, b2 * 0.5))
    for layer in layers:
        x = layer(x)
    return np.sum(x)


def branch_and_counter(W1, b1, W2, b2, x):
    """An if inside the body, the trip number read, two values carried, and an else clause."""
    total = 0.0
    h = x
    for i, (W, b) in enumerate([(W1, b1), (W2, b2)]):
        z = h @ W + b
        if i == 0:
            h = np.tanh(z)
        else:
            h = z * 0.5
        total = total + np.sum(h) * (i + 1)
    else:
        total = total * 2.0
    return total + np.sum(h * h)


def mixed_items(W1, b1, W2, b2, x):
    """A float among the items: each copy reads its own."""
    s = 0.0
    for item in [(W1, 1.5), (W2, 0.5)]:
        M, k = item
        s = s + k * np.sum(M * M)
    return s + np.sum(x) * np.sum(b1) + np.sum(b2)


def list_changed(W1, b1, W2, b2, x):
    """A list changed before the loop: stays a loop."""
    params = [(W1, b1), (W2, b2)]
    params.reverse()
    h = x @ W1
    for W, b in params:
        h = h * np.sum(W) + np.sum(b)
    return np.sum(h)


def loop_with_break(W1, b1, W2, b2, x):
    """A break: stays a loop."""
    s = 0.0
    for W, b in [(W1, b1), (W2, b2)]:
        s = s + np.sum(W) * np.sum(b)
        if s > 100.0:
            break
    return s + np.sum(x)


def nested_loop(W1, b1, W2, b2, x):
    """A loop inside the body: stays a loop."""
    s = 0.0
    for W, b in [(W1, b1), (W2, b2)]:
        for j in range(2):
            s = s + np.sum(W * (j + 1)) * np.sum(b)
    return s + np.sum(x)


def list_read_after(W1, b1, W2, b2, x):
    """The list read after the loop too."""
    params = [(W1, b1), (W2, b2)]
    h = x
    for W, b in params:
        h = np.tanh(h @ W + b)
    return np.sum(h) + np.sum(params[1][1])


ALL = [tuples_of_arrays, layer_objects, branch_and_counter, mixed_items, list_changed, loop_with_break, nested_loop,
       list_read_after]
