"""Tape-memory benchmark (issue 14, item 6): what reverse mode keeps alive, against the primal.

Run with `make bench` or `python examples/bench_memory.py [--quick]`.  A script that prints a
table, not a test (tests/test_reliability_tape_memory.py checks the same facts at small sizes).

Peak memory is what `tracemalloc` sees (NumPy reports its array buffers to it), for one call of the
primal and one call of `mc.grad` (derived beforehand, so the derivation is not counted).  Rows:

* explicit Euler steps `x = x + dt * np.tanh(x)` over float arrays: the pullback reads one array per
  step (tanh(x)), so the gradient's peak should be about steps x one array;
* a scalar `math` loop of many iterations: bytes kept per iteration, against a plain list of the
  floats the pullback needs (8 bytes of list slot and a 24-byte float each).
"""
from __future__ import annotations

import math
import os
import sys
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import mooncake_ast as mc  # noqa: E402

QUICK = "--quick" in sys.argv
STEPS = 200
N = 100_000 if QUICK else 1_000_000
ITERATIONS = 100_000 if QUICK else 1_000_000


def euler_steps(x, dt):
    for _ in range(200):
        x = x + dt * np.tanh(x)
    return np.sum(x * x)


def sine_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s + math.sin(x * i * 1e-6)
    return s


def peak_bytes(fn, *args) -> int:
    tracemalloc.start()
    try:
        fn(*args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main() -> None:
    x = np.random.default_rng(0).normal(size=N)
    g = mc.grad(euler_steps)
    g(x[:10], 0.01)  # derive once
    primal, grad = peak_bytes(euler_steps, x, 0.01), peak_bytes(g, x, 0.01)
    reads = STEPS * x.nbytes
    rows = [("Euler steps, %d x %.0e-element arrays" % (STEPS, N), primal, grad,
             f"{grad / reads:.2f}x the {STEPS} arrays the pullback reads ({reads / 2**20:.0f} MiB)")]
    gs = mc.grad(sine_loop, argnums=0)
    gs(0.3, 10)
    primal, grad = peak_bytes(sine_loop, 0.3, ITERATIONS), peak_bytes(gs, 0.3, ITERATIONS)
    per = grad / ITERATIONS
    rows.append(("scalar math loop, %.0e iterations" % ITERATIONS, primal, grad,
                 f"{per:.0f} B per iteration; {per / 32:.1f}x a list of one float per iteration"))
    print("| workload | primal peak | mc.grad peak | tape |")
    print("|---|---:|---:|---|")
    for name, p, gr, note in rows:
        print(f"| {name} | {p / 2**20:.1f} MiB | {gr / 2**20:.1f} MiB | {note} |")


if __name__ == "__main__":
    main()
