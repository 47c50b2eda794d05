"""Functions whose trailing positional parameters have defaults (mc.grad's short path fills in number defaults)."""
import numpy as np


def scaled(x, c=2.0, n=3):
    s = 0.0
    for i in range(n):
        s = s + c * x ** (i + 1)
    return s


def with_array(w, x, lam=0.1):
    return float(np.sum(np.tanh(w * x)) + lam * np.sum(w * w))


def none_default(x, scale=None):
    return x * x * (1.0 if scale is None else scale)
