"""Functions that mutate arrays, lists and objects (including their arguments)."""
import math

import numpy as np

from tests.corpus import Case


def fill_array_in_loop(x, n):
    """Write a Taylor-series table into a preallocated array with a[i] = ..."""
    a = np.zeros(n)
    term = 1.0
    for i in range(n):
        a[i] = term
        term = term * x / (i + 1)
    return a.sum()


def accumulate_into_slice(x, w):
    """Accumulate contributions into an output slice with out[...] += ..."""
    out = np.zeros(x.shape[0] + 2)
    for k in range(3):
        out[k:k + x.shape[0]] += w[k] * x
    return np.sum(out ** 2)


def inplace_scale(x, s):
    """In-place multiplication a *= s on a fresh copy."""
    a = x.copy()
    a *= s
    a += 1.0
    a **= 2
    return a.sum()


def ufunc_out_argument(a, b):
    """Use np.add / np.multiply with out= to update an array in place."""
    c = a.copy()
    np.add(c, b, out=c)
    np.multiply(c, a, out=c)
    return float(np.sum(c))


def write_through_view(a, v):
    """Write through a slice view so that the base array changes."""
    b = a.copy()
    mid = b[1:3]
    mid[:] = v * mid
    return np.sum(b * b)


def normalise_inplace(x):
    """Normalise the caller's array in place to unit norm and return its sum."""
    x /= np.linalg.norm(x)
    return x.sum()


def center_columns_inplace(X):
    """Subtract the column mean from the caller's matrix in place; return the Frobenius energy."""
    X -= X.mean(axis=0)
    return np.sum(X ** 2) + X[0, 0]


def list_setitem_update(xs, lr):
    """Update a list of parameters in place (list[i] = v) like an SGD step."""
    for i in range(len(xs)):
        grad = 2.0 * xs[i] - 1.0
        xs[i] = xs[i] - lr * grad
    return sum(v * v for v in xs)


def list_append_caller(history, x):
    """Append iterates to the caller's list, returning their weighted sum."""
    y = x
    for _ in range(4):
        y = math.cos(y)
        history.append(y)
    return sum(h * (i + 1) for i, h in enumerate(history))


def prefix_sum_inplace(x):
    """In-place prefix sum a[i] += a[i-1] on the caller's array."""
    for i in range(1, x.shape[0]):
        x[i] += x[i - 1]
    return np.sum(np.sin(x))


def row_update_2d(A, v):
    """Update rows of a matrix with A[i, :] = ... and columns with A[:, j] *= ..."""
    B = A.copy()
    for i in range(B.shape[0]):
        B[i, :] = B[i, :] + v * i
    B[:, 0] *= 2.0
    return np.sum(np.tanh(B))


def jacobi_smoothing(u, steps):
    """Jacobi smoothing with a scratch buffer swapped each step."""
    cur = u.copy()
    nxt = np.empty_like(cur)
    for _ in range(steps):
        nxt[0] = cur[0]
        nxt[-1] = cur[-1]
        nxt[1:-1] = 0.5 * (cur[:-2] + cur[2:])
        cur, nxt = nxt, cur
    return cur


def masked_assign(x, threshold):
    """Boolean-mask assignment: entries above a threshold are squashed."""
    y = x.copy()
    mask = y > threshold
    y[mask] = threshold + np.log1p(y[mask] - threshold)
    return np.sum(y ** 2)


def fancy_index_add(x, idx):
    """Scatter-add with np.add.at into a histogram-like buffer."""
    buf = np.zeros(4)
    np.add.at(buf, idx, x)
    return np.sum(buf ** 2)


class Accumulator:
    """Mutable accumulator object written to by a helper."""

    def __init__(self):
        self.total = 0.0
        self.count = 0


def _feed(acc, value):
    """Helper that writes attributes on an object."""
    acc.total += value
    acc.count += 1


def attribute_writes(xs):
    """Mutate an object's attributes from a helper function, then read them."""
    acc = Accumulator()
    for x in xs:
        _feed(acc, x * x)
    acc.mean = acc.total / acc.count
    return acc.mean + acc.total


def momentum_sgd_inplace(w, velocity, lr, beta, steps):
    """Momentum SGD on a quadratic, updating w and velocity arrays in place."""
    target = np.array([1.0, -2.0, 0.5])
    for _ in range(steps):
        grad = 2.0 * (w - target)
        velocity *= beta
        velocity += grad
        w -= lr * velocity
    return np.sum((w - target) ** 2)


def dict_mutation(params, x):
    """Update values of a dict in place and return a model evaluation."""
    for key in params:
        params[key] = params[key] * 0.9 + 0.1
    params["extra"] = params["a"] * params["b"]
    return params["a"] * x + params["b"] * x ** 2 + params["extra"]


def swap_rows_copy(A):
    """Swap two rows via fancy-index assignment on a copy."""
    B = A.copy()
    B[[0, 2]] = B[[2, 0]]
    w = np.arange(1.0, B.shape[0] + 1)
    return float(w @ B @ np.ones(B.shape[1]) + np.sum(B[0] * A[0]))


def scale_strided_view_of_arg(a, s):
    """Scale every other element of the caller's array through a strided view."""
    v = a[::2]
    v *= s
    return np.sum(a ** 2)


CASES = [
    Case(fill_array_in_loop, lambda: (0.7, 10), tags=("mutation", "setitem", "loop", "numpy")),
    Case(accumulate_into_slice, lambda: (np.random.default_rng(40).normal(size=5), np.array([0.25, 0.5, 0.25])), tags=("mutation", "slice_iadd", "numpy")),
    Case(inplace_scale, lambda: (np.random.default_rng(41).normal(size=5), 1.7), tags=("mutation", "imul", "augassign", "numpy")),
    Case(ufunc_out_argument, lambda: (np.random.default_rng(42).normal(size=4), np.random.default_rng(43).normal(size=4)), tags=("mutation", "ufunc_out", "numpy")),
    Case(write_through_view, lambda: (np.random.default_rng(44).normal(size=5), 1.3), tags=("mutation", "view", "numpy")),
    Case(normalise_inplace, lambda: (np.random.default_rng(45).normal(size=5),), tags=("mutation", "mutates_arg", "norm", "numpy")),
    Case(center_columns_inplace, lambda: (np.random.default_rng(46).normal(size=(4, 3)),), tags=("mutation", "mutates_arg", "broadcasting", "numpy")),
    Case(list_setitem_update, lambda: ([0.3, -1.2, 0.8], 0.1), tags=("mutation", "mutates_arg", "list", "setitem")),
    Case(list_append_caller, lambda: ([0.5, 0.25], 0.9), tags=("mutation", "mutates_arg", "list", "append")),
    Case(prefix_sum_inplace, lambda: (np.random.default_rng(47).normal(size=6),), tags=("mutation", "mutates_arg", "setitem", "loop", "numpy")),
    Case(row_update_2d, lambda: (np.random.default_rng(48).normal(size=(3, 4)), np.random.default_rng(49).normal(size=4) * 0.3), tags=("mutation", "setitem", "numpy")),
    Case(jacobi_smoothing, lambda: (np.random.default_rng(50).normal(size=8), 6), tags=("mutation", "setitem", "slicing", "returns_array", "numpy")),
    Case(masked_assign, lambda: (np.array([0.2, 1.8, -0.5, 2.5, 0.9]), 1.0), tags=("mutation", "mask", "numpy")),
    Case(fancy_index_add, lambda: (np.random.default_rng(51).normal(size=6), np.array([0, 1, 1, 3, 0, 2])), tags=("mutation", "add_at", "numpy")),
    Case(attribute_writes, lambda: ([0.5, -1.2, 0.8],), tags=("mutation", "attribute", "class")),
    Case(momentum_sgd_inplace, lambda: (np.array([0.0, 0.5, -0.5]), np.zeros(3), 0.05, 0.9, 10), tags=("mutation", "mutates_arg", "augassign", "loop", "numpy")),
    Case(dict_mutation, lambda: ({"a": 0.5, "b": -0.3}, 1.2), tags=("mutation", "mutates_arg", "dict")),
    Case(swap_rows_copy, lambda: (np.random.default_rng(52).normal(size=(3, 3)),), tags=("mutation", "fancy_indexing", "numpy")),
    Case(scale_strided_view_of_arg, lambda: (np.random.default_rng(53).normal(size=6), 0.8), tags=("mutation", "view", "mutates_arg", "numpy")),
]
