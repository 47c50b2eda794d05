"""Callers of the user's own functions (reverse/call_types.py types the calls from the callee's code)."""
import math

import numpy as np


def rhs(y, a=1.1, b=0.4):
    return np.array([a * y[0] - b * y[0] * y[1], 0.1 * y[0] * y[1] - 0.4 * y[1]])


def heun_step(y, dt):
    k1 = rhs(y)
    k2 = rhs(y + dt * k1)
    return np.sum(y + 0.5 * dt * (k1 + k2))


def layer(W, x):
    return np.tanh(W @ x)


def two_layers(W1, W2, x):
    h = layer(W1, x)
    return np.sum(layer(W2, h) ** 2) + 0.1 * np.sum(h)


def stats(x):
    m = np.mean(x)
    return m, np.mean((x - m) ** 2)


def standardised_energy(x):
    m, v = stats(x)
    return np.sum((x - m) ** 2) / v + m * v


def scalar_helper(u, v):
    return math.sin(u) * v + u ** 2


def scalar_loop(x, n):
    s = 0.0
    for k in range(n):
        s = s + scalar_helper(x * k, s + 1.0)
    return s


def fact_like(x, k):
    if k <= 0:
        return x
    return x * fact_like(x, k - 1) + 1.0


def recursive_caller(x):
    return fact_like(x, 3) * 2.0


def same(x):
    return x


def alias_then_write(x):
    y = same(x)
    z = y * 2.0
    z[0] = z[0] + y[1]
    return np.sum(z * y)


def writes_arg(v):
    v[0] = v[0] * 3.0
    return np.sum(v)


def caller_of_writer(x):
    y = x * 1.0
    s = writes_arg(y)
    return s * np.sum(y)


def keyword_call(x):
    return np.sum(rhs(x, b=0.7) * x)


def nested_helpers(x):
    return np.sum(outer_helper(x) * x)


def outer_helper(x):
    return inner_helper(x) + 1.0


def inner_helper(x):
    return np.exp(x) * x


def returns_global():
    return TABLE


TABLE = np.array([1.0, 2.0, 3.0])


def reads_global_via_call(x):
    t = returns_global()
    return np.sum(t * x)


def fresh_then_written(W, x):
    z = layer(W, x)
    z[0] = z[0] * 2.0
    return np.sum(z ** 2) + np.sum(layer(W, x))


def head(x):
    return x[1:]


def view_then_written(x):
    h = head(x)
    h2 = h * 2.0
    h[0] = 5.0 * h[0]
    return np.sum(h2 * x[1:]) + np.sum(x ** 2)


def twice_same(W, x):
    a = layer(W, x)
    b = layer(W, x)
    return np.sum(a * b)


def keep(lst, x):
    r = np.tanh(x)
    lst.append(r)
    return r


def stored_then_written(x):
    lst = []
    r = keep(lst, x)
    lst[0][0] = 3.0 * lst[0][0]
    return np.sum(r * x)


def transposed(A):
    return A.T


def transpose_then_written(A):
    B = transposed(A)
    C = B * 1.5
    B[0, 1] = B[0, 1] * 4.0
    return np.sum(C * A)
