"""Functions whose reverse mode goes through the typed emitter (issue 9): broadcasting patterns, reductions,
matrix products, ndarray methods, adjoint buffers (reads and writes by basic indices), loop accumulators.

Each is checked in both modes by tests/test_typed_reverse.py over several argument shapes."""
import math

import numpy as np


# ---------------------------------------------------------------- elementwise, with broadcasting
def add_sin(a, b):
    return np.sum(np.sin(a + b) * (a + 0.5))


def sub_mul(a, b):
    return np.sum((a - b) * (b * a + 1.0))


def div_exp(a, b):
    return np.sum(np.exp(0.1 * a) / (b * b + 1.0))


def powers(a, b):
    return np.sum(a ** 2 + b ** 3 + (a * b) ** 1 + np.abs(b) ** 0.5 + (a * a + 1.0) ** -1)


def scalar_and_array(a, s):
    return np.sum(np.tanh(s * a + s) ** 2) * s


# ---------------------------------------------------------------- reductions and methods
def reductions(x):
    return np.sum(np.sum(x * x, axis=0)) + np.sum(np.mean(np.sin(x), axis=1, keepdims=True) * x) + np.mean(x ** 2)


def methods(x, y):
    z = x.copy()
    return z.sum(axis=0).dot(np.cos(y)) + (x * x).mean() + x.sum() * y.max() + x.std(ddof=1)


# ---------------------------------------------------------------- matrix products
def matmuls(A, v):
    w = A @ v
    u = v @ A.T
    return np.sum(np.tanh(w)) + np.sum(u * u) + (w @ w) + np.sum(np.dot(A, v))


def two_layers(W1, b1, W2, b2, X):
    h = np.tanh(X @ W1 + b1)
    out = h @ W2 + b2
    return np.mean(out ** 2)


# ---------------------------------------------------------------- adjoint buffers
def recurrence(x):
    y = np.zeros_like(x)
    y[0] = np.tanh(x[0])
    for i in range(1, x.shape[0]):
        y[i] = 0.5 * y[i - 1] + np.tanh(x[i])
    return np.sum(y * y)


def slices(x):
    y = np.zeros_like(x)
    y[1:] = x[:-1] * 2.0
    y[0] = x[-1]
    return np.sum(y * y * x) + np.sum(x[1:] * x[:-1])


def overlapping_copy(x):
    y = x * 1.0
    y[1:] = y[:-1] + x[1:]
    return np.sum(np.sin(y) * x)


def scalar_into_slice(x):
    y = x.copy()
    y[2:4] = x[0] * 3.0
    return np.sum(y ** 2)


def matrix_entries(A, v):
    B = A * 1.0
    for i in range(A.shape[0]):
        B[i, 0] = B[i, 0] * v[i]
        B[i, :] = B[i, :] + v[i] * A[i, 1]
    col = B[:, 1]
    return np.sum(B * B) + np.sum(col * v)


def write_after_read(x):
    y = x * 1.0
    s = np.sum(y * y)
    y[0] = 5.0 * x[1]
    y[2] = y[0] * y[1]
    return s + np.sum(np.cos(y))


def indexed_and_whole(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + x[i] * x[i] * i
    return s + np.sum(np.sin(x))


def fill_array(x, n):
    a = np.zeros(n)
    for i in range(1, n):
        a[i] = a[i - 1] * x + 1.0
    return a.sum()


# ---------------------------------------------------------------- loops carrying arrays
def euler(A, r, x0, dt, steps):
    x = x0.copy()
    for t in range(steps):
        x = x + dt * x * (r + A @ x)
    return 0.5 * np.sum(x * x)


def sometimes_used(x, n):
    t = x * 1.0
    total = 0.0
    for i in range(n):
        if i % 3 == 1:
            total = total + np.sum(t * t)
        t = np.cos(t) + 0.1 * x
    return total + math.sin(np.sum(t))


def early_exit(x, n):
    y = x * 1.0
    for i in range(n):
        y = np.sin(y) + x
        if np.sum(y) > 100.0:
            break
    return np.sum(y * y)


def conditional_array(x, flag):
    if flag > 0:
        y = x * 2.0
    else:
        y = np.exp(x)
    z = y + x
    return np.sum(z * y)


# ---------------------------------------------------------------- slices of one size (symbolic sizes)
def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def slice_against_whole(x):
    """Valid only where x[1:] has size one (x of two entries): NumPy broadcasts it over x."""
    return np.sum(np.sin(x[1:] * x) + x[:1] * x[1:])


def shifted_differences(x):
    d = x[2:] - 2.0 * x[1:-1] + x[:-2]
    return np.sum(d * d) + np.sum(x[1:] * x[:-1])


# ---------------------------------------------------------------- dicts of named arrays (model parameters)
def dict_layer(params, x):
    h = np.tanh(params["W"] @ x + params["b"])
    return np.sum(h * h) * params["scale"] + np.sum(params["W"] * params["W"])


def dict_in_loop(params, x, n):
    for i in range(n):
        x = np.sin(params["A"] @ x) + params["c"]
    return np.sum(x * x)


def dict_unused_key(params, x):
    return np.sum(params["a"] * x)


def dict_written(params, x):
    params["a"] = params["a"] * 2.0
    return np.sum(params["a"] * x) + np.sum(params["b"])


def dict_item_written_in_place(params, x):
    a = params["a"]
    a[0] = x[1] * 3.0
    return np.sum(a * params["b"])


def _helper(p, x):
    return np.sum(p["a"] * x)


def dict_passed_on(params, x):
    return _helper(params, x) + np.sum(params["b"] * params["a"])


def loop_over_len(x):
    y = x * 1.0
    y[0] = y[1] * x[2]
    s = 0.0
    for i in range(len(x)):
        s = s + y[i] * x[i]
    return s + (x * x).sum()
