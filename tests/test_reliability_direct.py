"""The generated pair called directly: `f__forward(x)` then `f__pullback(1.0, tape)` (issue 14, item 2).

Without an entered `shadows.Context` (which `grad`, `vjp` and `__vjp` enter), the adjoint
storage used to be one thread-local context that was never released: every call's arrays
stayed reachable and an argument's adjoint added up from call to call.  Now each outermost
pullback gets fresh storage; memory is flat over many calls and every call's gradient is
the same.
"""
import gc
import tracemalloc

import numpy as np

import mooncake_ast as mc
from mooncake_ast.reverse import runtime as reverse_runtime
from mooncake_ast.reverse import shadows


def energy(x):
    y = x * x
    y[0] = 3.0 * y[0]
    return np.sum(y * 2.0) + np.sum(np.sin(x))


def items(xs, w):
    total = 0.0
    for v in xs:
        total = total + w * v * v
    return total


def _pair(f, *args, **grad_kw):
    mc.grad(f, **grad_kw)(*args)  # builds (or loads) the module; LATEST holds what that call used
    gen = reverse_runtime.LATEST[f.__code__].gen
    return gen.forward, gen.pullback


def _direct_gradient(fwd, pb, *args):
    value, tape = fwd(*args)
    bars = pb(1.0, tape)
    return value, [shadows.full_adjoint(a, b) for a, b in zip(args, bars)]


def test_direct_pair_gradients_do_not_add_up():
    x = np.linspace(-1.0, 1.0, 50)
    fwd, pb = _pair(energy, x)
    want = mc.grad(energy)(x)
    h = 1e-6
    for i in (0, 7, 49):
        e = np.zeros_like(x)
        e[i] = h
        assert abs((energy(x + e) - energy(x - e)) / (2 * h) - want[i]) < 1e-5
    for _ in range(5):
        _, (g,) = _direct_gradient(fwd, pb, x)
        np.testing.assert_allclose(g, want, rtol=1e-12)


def test_direct_pair_on_lists_and_floats():
    xs = [0.5, -1.5, 2.0]
    fwd, pb = _pair(items, xs, 0.3, argnums=(0, 1))
    want = mc.grad(items, argnums=(0, 1))(xs, 0.3)
    for _ in range(4):
        _, (gx, gw) = _direct_gradient(fwd, pb, xs, 0.3)
        np.testing.assert_allclose(gx, want[0], rtol=1e-12)
        assert gw == want[1]


def test_direct_pair_memory_is_flat():
    x = np.linspace(-1.0, 1.0, 2000)  # 16 kB per array
    fwd, pb = _pair(energy, x)
    for _ in range(20):
        _direct_gradient(fwd, pb, x)
    gc.collect()
    tracemalloc.start()
    try:
        _direct_gradient(fwd, pb, x)
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(300):
            _direct_gradient(fwd, pb, x)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    # The old behaviour kept ~5 arrays per call: 300 calls would be ~24 MB.
    assert after - before < 200_000, after - before


def test_entered_context_still_wins():
    """Inside an explicit Context the pullback uses it, as grad and vjp do."""
    x = np.linspace(-1.0, 1.0, 10)
    fwd, pb = _pair(energy, x)
    with shadows.Context() as ctx:
        _, tape = fwd(x)
        (g,) = pb(1.0, tape)
        assert shadows.current() is ctx
        # (a typed pullback returns x's adjoint as a value and keeps nothing in storage)
        np.testing.assert_allclose(shadows.full_adjoint(x, g), mc.grad(energy)(x))


if __name__ == "__main__":
    # `python tests/test_reliability_direct.py [calls] [size]`: the full-size figures.
    import sys

    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
    x = np.linspace(-1.0, 1.0, size)
    fwd, pb = _pair(energy, x)
    want = mc.grad(energy)(x)
    tracemalloc.start()
    worst = 0.0
    for i in range(calls):
        _, (g,) = _direct_gradient(fwd, pb, x)
        worst = max(worst, float(np.max(np.abs(g - want))))
        if i % (calls // 5) == 0 or i == calls - 1:
            print(f"call {i}: traced {tracemalloc.get_traced_memory()[0] / 2**20:.2f} MiB")
    print(f"largest difference from mc.grad over {calls} calls: {worst}")
