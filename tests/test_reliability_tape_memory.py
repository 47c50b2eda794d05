"""What reverse mode keeps alive between the forward pass and the pullback (issue 14, item 6).

Peak memory as tracemalloc sees it (NumPy reports its buffers to it), at sizes small enough for CI;
examples/bench_memory.py prints the same at 200 x 1e6 elements and 1e6 iterations.
"""
import math
import tracemalloc

import numpy as np

import mooncake_ast as mc


def euler_steps(x, dt):
    for _ in range(60):
        x = x + dt * np.tanh(x)
    return np.sum(x * x)


def sine_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s + math.sin(x * i * 1e-6)
    return s


def _peak(fn, *args):
    tracemalloc.start()
    try:
        out = fn(*args)
        return tracemalloc.get_traced_memory()[1], out
    finally:
        tracemalloc.stop()


def test_array_loop_keeps_one_array_per_step():
    x = np.random.default_rng(0).normal(size=20_000)
    g = mc.grad(euler_steps)
    g(x[:4], 0.01)
    peak, grad = _peak(g, x, 0.01)
    # The pullback reads tanh(x) of each step (x itself only for its shape): 60 arrays, and a few
    # more for the pullback's own temporaries.
    assert peak <= 1.5 * 60 * x.nbytes, peak / x.nbytes
    assert np.allclose(grad, mc.grad(euler_steps)(x.copy(), 0.01))


def test_scalar_loop_keeps_no_tuple_per_trip():
    g = mc.grad(sine_loop, argnums=0)
    g(0.3, 5)
    n = 50_000
    peak, grad = _peak(g, 0.3, n)
    # x * i * 1e-6 (a float: 8 bytes of list slot, 24 of float) and i (8 + 28) per trip; a tuple
    # per trip would add 64 more.
    assert peak / n <= 80, peak / n
    assert math.isclose(grad, sum(math.cos(0.3 * i * 1e-6) * i * 1e-6 for i in range(n)), rel_tol=1e-9)
