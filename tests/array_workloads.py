"""The benchmark workloads that use only NumPy calls (as in examples/bench.py), small: for the tests that run
them on other array libraries (tests/test_dask.py, tests/test_device_arrays.py)."""
import numpy as np


def logistic_loss(w, X, y):
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def mlp_loss(W1, b1, W2, b2, X, y):
    h = np.tanh(X @ W1 + b1)
    pred = h @ W2 + b2
    err = pred - y
    return np.mean(err ** 2)


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def workload(name):
    """(f, NumPy arguments): small, so that the Dask versions have two chunks along each axis."""
    rng = np.random.default_rng(15)
    X = rng.normal(size=(8, 3))
    if name == "logistic":
        return logistic_loss, (rng.normal(size=3), X, (rng.random(8) > 0.5).astype(float))
    if name == "mlp":
        return mlp_loss, (rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(4, 1)), rng.normal(size=1),
                          X, rng.normal(size=(8, 1)))
    return rosenbrock, (rng.normal(size=6),)


WORKLOADS = ["logistic", "mlp", "rosenbrock"]


