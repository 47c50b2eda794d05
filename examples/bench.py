"""Benchmark: mooncake_ast gradients against hand-written ones (medians of interleaved repeats).

Run with `make bench`.  Prints, for each problem, the time of the primal, of our
gradient (`mc.grad`, everything included: dispatch, forward pass, pullback) and of
a hand-written gradient, and the ratio ours / hand-written.  A plain script, not a
timed test: timings on a shared machine are noisy, so nothing asserts on them.
"""
from __future__ import annotations

import math
import statistics
import time

import numpy as np

import mooncake_ast as mc


# ---------------------------------------------------------------- problem 1: a scalar math loop
def sine_loop(x):
    s = 0.0
    for i in range(1000):
        s = s + math.sin(x * i) * math.exp(-0.001 * i)
    return s


def sine_loop_grad_by_hand(x):
    """What a careful person writes: the forward loop, then the reverse loop over saved values."""
    s = 0.0
    saved = []
    for i in range(1000):
        t = x * i
        e = math.exp(-0.001 * i)
        saved.append((t, e, i))
        s = s + math.sin(t) * e
    x_bar = 0.0
    for t, e, i in reversed(saved):
        x_bar += math.cos(t) * e * i
    return x_bar


# ---------------------------------------------------------------- problem 2: logistic regression loss
def logistic_loss(w, X, y):
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def logistic_loss_grad_by_hand(w, X, y):
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    return X.T @ (p - y) / y.shape[0]


def measure(fns: dict, args: tuple, repeats: int, number: int) -> dict:
    """Median seconds per call of each function, interleaving the functions in every repeat."""
    times: dict = {k: [] for k in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(number):
                fn(*args)
            times[name].append((time.perf_counter() - t0) / number)
    return {k: statistics.median(v) for k, v in times.items()}


def report(title: str, t: dict) -> None:
    print(f"{title}")
    print(f"  primal       {t['primal'] * 1e6:10.1f} us")
    print(f"  mooncake_ast {t['ours'] * 1e6:10.1f} us   ({t['ours'] / t['primal']:.1f}x primal)")
    print(f"  by hand      {t['hand'] * 1e6:10.1f} us   ({t['hand'] / t['primal']:.1f}x primal)")
    print(f"  ratio ours / by hand: {t['ours'] / t['hand']:.2f}")


def main() -> None:
    g1 = mc.grad(sine_loop)
    assert abs(g1(0.3) - sine_loop_grad_by_hand(0.3)) < 1e-9 * max(1.0, abs(g1(0.3)))
    t1 = measure({"primal": sine_loop, "ours": g1, "hand": sine_loop_grad_by_hand}, (0.3,), repeats=15, number=20)
    report("1000-iteration scalar loop (math.sin, math.exp)", t1)

    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 100))
    y = (rng.random(1000) < 0.5).astype(float)
    w = rng.normal(size=100) * 0.1
    g2 = mc.grad(logistic_loss)
    assert np.allclose(g2(w, X, y), logistic_loss_grad_by_hand(w, X, y))
    t2 = measure({"primal": logistic_loss, "ours": g2, "hand": logistic_loss_grad_by_hand}, (w, X, y), repeats=41, number=50)
    print()
    report("logistic regression loss, X 1000x100", t2)


if __name__ == "__main__":
    main()
