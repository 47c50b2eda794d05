"""Gradients on a GPU with CuPy (issue 15): the same NumPy code, the same derivative, on device arrays.

CuPy arrays implement NumPy's dispatch protocols, so the generated derivative (ordinary NumPy code) runs
on them unchanged: `mc.grad` of a loss called on CuPy arrays returns CuPy arrays, computed on the GPU,
with no copy to the host on the way. This script times the gradient of two benchmark losses (logistic
regression, a tanh MLP) on CuPy and on NumPy at the same size, next to a hand-written gradient on each,
and checks that the GPU gradient equals NumPy's.

    python examples/gpu_example.py                  # 200,000 x 256 rows; needs CuPy and a GPU
    python examples/gpu_example.py --rows 20000     # smaller
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import mooncake_ast as mc


def logistic_loss(w, X, y):
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def logistic_by_hand(w, X, y):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return (X.T @ (p - y) / len(y),)


def mlp_loss(W1, b1, W2, b2, X, y):
    h = np.tanh(X @ W1 + b1)
    err = h @ W2 + b2 - y
    return np.mean(err ** 2)


def mlp_by_hand(W1, b1, W2, b2, X, y):
    h = np.tanh(X @ W1 + b1)
    err = h @ W2 + b2 - y
    d = 2.0 * err / err.size
    dh = (d @ W2.T) * (1.0 - h * h)
    return X.T @ dh, dh.sum(axis=0), h.T @ d, d.sum(axis=0)


def timed(fn, sync, repeats: int) -> float:
    """Median seconds of fn() (after one warm-up), synchronising the device after each call."""
    fn()
    sync()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--cols", type=int, default=256)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    try:
        import cupy as cp
        cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # no CuPy, no driver or no device
        print(f"needs CuPy and a GPU ({type(e).__name__}: {e})")
        return

    rng = np.random.default_rng(0)
    n, d, k = args.rows, args.cols, args.hidden
    X = rng.normal(size=(n, d))
    y = (X @ np.linspace(-1.0, 1.0, d) > 0).astype(float)
    w = np.full(d, 0.01)
    W1, b1, W2, b2 = rng.normal(size=(d, k)) / np.sqrt(d), np.zeros(k), rng.normal(size=(k, 1)) / np.sqrt(k), np.zeros(1)
    t = y[:, None]
    host = {"logistic": ((w, X, y), logistic_loss, logistic_by_hand),
            "MLP": ((W1, b1, W2, b2, X, t), mlp_loss, mlp_by_hand)}
    print(f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}; X: {n} x {d} float64 "
          f"({X.nbytes / 1e6:.0f} MB); median of {args.repeats}")
    print(f"{'workload':10} {'NumPy mc.grad':>14} {'NumPy by hand':>14} {'CuPy mc.grad':>13} {'CuPy by hand':>13} "
          f"{'speed-up':>9} {'mc/hand GPU':>12}")
    for name, (values, loss, by_hand) in host.items():
        nums = tuple(range(len(values) - 2))
        grad = mc.grad(loss, argnums=nums)
        on_gpu = tuple(cp.asarray(v) for v in values)
        expect = grad(*values)
        got = grad(*on_gpu)
        assert all(isinstance(g, cp.ndarray) for g in got)
        assert all(np.allclose(g.get(), e, rtol=1e-9, atol=1e-12) for g, e in zip(got, expect))
        assert all(np.allclose(g, e, rtol=1e-9, atol=1e-12) for g, e in zip(by_hand(*values), expect))
        sync = cp.cuda.Device().synchronize
        t_np = timed(lambda: grad(*values), lambda: None, args.repeats)
        t_np_hand = timed(lambda: by_hand(*values), lambda: None, args.repeats)
        t_cp = timed(lambda: grad(*on_gpu), sync, args.repeats)
        t_cp_hand = timed(lambda: by_hand(*on_gpu), sync, args.repeats)
        print(f"{name:10} {t_np * 1e3:11.1f} ms {t_np_hand * 1e3:11.1f} ms {t_cp * 1e3:10.2f} ms "
              f"{t_cp_hand * 1e3:10.2f} ms {t_np / t_cp:8.0f}x {t_cp / t_cp_hand:11.2f}")
    print("gradients on the GPU equal NumPy's (rtol 1e-9)")


if __name__ == "__main__":
    main()
