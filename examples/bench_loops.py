"""Time mc.grad of three 2000-item scalar loops (an enumerate loop over a list, a zip loop over two slices, a
math.sqrt loop): the first call (derivation included) and the median / minimum of 41 later calls, in CPU time, beside
the plain call.  Run with PYTHONPATH pointing at the tree to measure, e.g. to compare a trunk before and after a
merge:  PYTHONPATH=/tmp/old python examples/bench_loops.py ; PYTHONPATH=. python examples/bench_loops.py"""
from __future__ import annotations

import math
import statistics
import time

import numpy as np

import mooncake_ast as mc

N = 2000
REPEATS = 41


def enum_loop(x):
    lst = list(x)
    s = 0.0
    for i, v in enumerate(lst):
        s = s + v * v * (i % 3)
    return s


def zip_loop(x):
    s = 0.0
    for a, b in zip(x[:-1], x[1:]):
        s = s + a * b
    return s


def sqrt_loop(x):
    s = 0.0
    for i in range(len(x)):
        s = s + math.sqrt(x[i] * x[i] + 1.0)
    return s


def _times(fn, x):
    out = []
    for _ in range(REPEATS):
        t0 = time.process_time()
        fn(x)
        out.append(time.process_time() - t0)
    return out


def main() -> None:
    print(mc.__file__)
    x = np.linspace(0.1, 1.0, N)
    for f in (enum_loop, zip_loop, sqrt_loop):
        g = mc.grad(f)
        t0 = time.process_time()
        g(x)
        first = time.process_time() - t0
        ts, tp = _times(g, x), _times(f, x)
        print(f"{f.__name__:10s} first {first * 1e3:7.1f} ms  grad median {statistics.median(ts) * 1e3:7.2f} "
              f"min {min(ts) * 1e3:7.2f} ms  plain {statistics.median(tp) * 1e3:6.2f} ms")


if __name__ == "__main__":
    main()
