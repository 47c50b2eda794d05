"""Loops that update an array in place (`u += alpha * lap`, reverse/carried_inplace.py), and slices read from arrays
nothing writes (reverse/view_reads.py): the typed cases and the near misses where in place and out of place differ."""
import numpy as np


def heat(u0, alpha):
    u = u0.copy()
    for _ in range(6):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]
        u += alpha * lap
    return float(np.sum(u ** 2))


def reflect(u0, a):
    u = u0 * 1.0
    for _ in range(5):
        u += a * (u[::-1] - 2 * u)
    return np.sum(u ** 2)


def shifts(x, c):
    acc = np.zeros(x.shape[0] - 1)
    for k in range(4):
        acc += c * x[1:] * x[:-1] + k * x[0]
        acc *= 0.9
    return np.sum(np.sin(acc))


def gradient_steps(x0, lr):
    x = np.array(x0)
    for _ in range(8):
        x -= lr * (x ** 3 - x)
    return np.sum(x * x)


def while_norm(v0, s):
    v = v0.copy()
    n = 0
    while np.max(np.abs(v)) > 0.1 and n < 30:
        v *= s
        n += 1
    return np.sum(v)


def history_kept(u0, a):
    u = u0.copy()
    hist = []
    for _ in range(3):
        u += a * u
        hist.append(u)
    return sum(np.sum(h * h) for h in hist)


def alias_before_loop(u0, a):
    u = u0.copy()
    w = u
    for _ in range(3):
        u += a * np.sin(u)
    return np.sum(w * w) + np.sum(u)


def view_kept_across_update(u0, a):
    u = u0.copy()
    total = 0.0
    for _ in range(3):
        head = u[:2]
        u += a * u
        total = total + np.sum(head ** 2)
    return total


def update_in_branch(u0, a):
    u = u0.copy()
    for k in range(4):
        if k % 2 == 0:
            u += a * u
        total = np.sum(u)
    return total * np.sum(u ** 2)


def break_after_update(u0, a):
    u = u0.copy()
    for k in range(10):
        u += a * np.cos(u)
        if np.sum(u) > 3.0:
            break
    return np.sum(u ** 2)


def parameter_updated(u, a):
    for _ in range(3):
        u += a * u
    return np.sum(u ** 2)


def nested_reset(u0, a):
    out = 0.0
    for j in range(2):
        u = u0 * (j + 1.0)
        for _ in range(3):
            u += a * u[::-1]
        out = out + np.sum(u ** 2)
    return out


def slice_written_later(x, a):
    y = x * a
    head = y[:2]
    total = np.sum(head ** 2)
    y[0] = 5.0
    return total + np.sum(y)


def view_written(x, a):
    y = x * a
    v = y[1:]
    v[0] = a
    return np.sum(y ** 2)


def view_of_view(x, a):
    total = 0.0
    for k in range(3):
        y = x * (a + k)
        total = total + np.sum(y[1:][::-1] * y[:-1])
    return total


def self_view_unused(u0, a):
    b = u0 * 1.0
    for _ in range(3):
        b += b[::1]
    return a * np.sum(u0)


def self_view_used(u0, a):
    b = u0 * a
    for _ in range(3):
        b += 0.5 * b[::-1]
    return np.sum(b ** 2)
