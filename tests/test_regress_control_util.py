"""Shared checks of the control-flow regression tests: both modes, and finite differences.

`check_derivatives` compares forward mode with finite differences and reverse mode with
forward mode; `check_against_fd` compares both modes' gradients with central differences
computed here, independently, so a mistake both modes share cannot pass.
"""
import copy

import numpy as np

import mooncake_ast as mc


def _fd(f, args, i, h=1e-6):
    x = args[i]

    def at(delta, idx=None):
        a = list(copy.deepcopy(args))
        if idx is None:
            a[i] = a[i] + delta
        else:
            a[i][idx] += delta
        return float(f(*a))

    if isinstance(x, float):
        return (at(h) - at(-h)) / (2 * h)
    g = np.zeros_like(x, dtype=float)
    for idx in np.ndindex(x.shape):
        g[idx] = (at(h, idx) - at(-h, idx)) / (2 * h)
    return g


def check_against_fd(f, *args, tol=1e-4):
    """Reverse-mode gradient and forward-mode directional derivatives both match central differences."""
    expected = float(f(*copy.deepcopy(args)))
    diff = [i for i, a in enumerate(args) if isinstance(a, float) or (isinstance(a, np.ndarray) and a.dtype.kind == "f")]
    fds = [_fd(f, args, i) for i in diff]
    value, grads = mc.value_and_grad(f, argnums=tuple(diff))(*copy.deepcopy(args))
    assert np.allclose(float(value), expected), (value, expected)
    for g, fd in zip(grads, fds):
        assert np.allclose(np.asarray(g, dtype=float), fd, rtol=tol, atol=tol), (g, fd)
    for i, fd in zip(diff, fds):
        tangents = tuple((np.ones_like(a) if isinstance(a, np.ndarray) else 1.0) if j == i else None
                         for j, a in enumerate(args))
        out, dout = mc.jvp(f, copy.deepcopy(args), tangents)
        assert np.allclose(float(out), expected), (out, expected)
        assert np.allclose(float(dout), float(np.sum(fd)), rtol=tol, atol=tol), (dout, fd)


def check_both(f, *args):
    mc.testing.check_derivatives(f, *copy.deepcopy(args))
    check_against_fd(f, *args)
