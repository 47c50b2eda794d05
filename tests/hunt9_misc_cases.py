"""hunt9 probes: eigh at degenerate eigenvalues, quotients at zero, arguments sharing memory written in place,
floor division of floats, clip with array keyword bounds."""
from __future__ import annotations

import math

import numpy as np


def eigh_degenerate_sum_sq(x):
    a = np.eye(3) * x[0] + np.diag([0.0, 0.0, x[1]])  # (two equal eigenvalues)
    w, v = np.linalg.eigh(a)
    return np.sum(w ** 2) + x[2] * np.sum(w)


def eigh_degenerate_logdet(x):
    a = np.eye(3) * (1.0 + x[0] ** 2)
    w, _ = np.linalg.eigh(a + 0.0 * x[1])
    return np.sum(np.log(w)) * x[2]


def eigvalsh_loop(x):
    s = 0.0
    for k in range(3):
        m = np.diag(x[:3] * (k + 1.0)) + k * np.ones((3, 3)) * 0.1
        s = s + np.max(np.linalg.eigvalsh(m))
    return s


def quotient_zero_over_safe(x):
    num = np.maximum(x, 0.0)
    den = np.where(num > 0, num, 1.0)
    return np.sum(num / den * x)


def quotient_zero_both(x):
    z = x[0] - x[0]
    r = z / (1.0 + z * z)
    return r + x[1] / (1.0 + x[2] ** 2)


def rel_error(x):
    t = np.array([0.2, 0.0, 1.0, 0.5])  # (no input equals its target: |x - t| is a kink there)
    return np.sum(np.abs(x - t) / (np.abs(t) + 1.0))


def overlap_written_view(a, b):
    b *= 2.0  # (b is a view of a: a changes too)
    return np.sum(a ** 2) + np.sum(b)


def overlap_read_after_write(a, b):
    a[0] = a[0] * b[1]  # (b = a[::2]: b[0] changes too)
    return np.sum(a[::2] * b) + np.sum(a)


def float_floordiv(x):
    q = x[0] * 10.0 + 0.5  # (away from a jump of the floor)
    q //= 3.0
    r = x[1] * 10.0
    r %= 3.0
    return q * x[2] + r * x[3]


def int_floordiv_loop(x):
    n = 7
    s = 0.0
    while n > 0:
        s = s + x[n % len(x)] ** 2
        n //= 2
    return s


def clip_array_kw(x):
    lo = np.full_like(x, -0.2)
    return np.sum(np.clip(x, a_min=lo, a_max=x * 0.0 + 0.6) ** 2)


def clip_method_arrays(x, lo):
    return np.sum(x.clip(lo, lo + 0.5) * x)
