"""Functions whose generated pullbacks tests/test_golden_loop_buffers.py keeps as golden files: loops writing rows
and items of float arrays, which reverse mode differentiates with plain adjoint arrays (issue 9)."""
import numpy as np


def jacobi_smoothing(u, steps):
    cur = u.copy()
    nxt = np.empty_like(cur)
    for _ in range(steps):
        nxt[0] = cur[0]
        nxt[-1] = cur[-1]
        nxt[1:-1] = 0.5 * (cur[:-2] + cur[2:])
        cur, nxt = nxt, cur
    return cur


def row_activations(A, w):
    out = np.empty_like(A)
    for i in range(A.shape[0]):
        out[i] = np.tanh(A[i] * w)
    return np.sum(out * out)
