"""Arrays made and filled element by element inside a loop's trip (`lap = np.zeros_like(u); lap[1:-1] = ...`):
reverse/buffers.py gives each trip's array a plain adjoint buffer; near misses keep identity-keyed storage."""
import numpy as np


def stencil(u0, alpha):
    u = u0.copy()
    for _ in range(5):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]
        u = u + alpha * lap
    return float(np.sum(u ** 2))


def filled_rows(x, c):
    total = 0.0
    for k in range(3):
        row = np.zeros(x.shape[0])
        for i in range(x.shape[0]):
            row[i] = np.sin(c * x[i] + k)
        total = total + np.sum(row * row)
    return total


def slot_read_back(x, c):
    total = 0.0
    for k in range(3):
        buf = np.zeros(3)
        buf[0] = c * x[0]
        buf[1] = buf[0] * x[1] + k
        buf[2] = buf[1] ** 2
        total = total + np.sum(buf) * x[2]
    return total


def kept_past_trip(x, c):
    rows = []
    for k in range(3):
        buf = np.zeros(2)
        buf[0] = c * x[k]
        rows.append(buf)
    return sum(np.sum(r ** 2) for r in rows)


def read_in_next_block(x, c):
    total = 0.0
    for k in range(3):
        buf = np.ones(2)
        buf[1] = c * x[k]
        if k > 0:
            total = total + np.sum(buf * x[:2])
        else:
            total = total - buf[1]
    return total


def conditional_fill(x, c):
    out = 0.0
    for k in range(4):
        buf = np.zeros(2)
        if x[k] > 0.5:
            buf[0] = c * x[k]
        buf[1] = x[k] ** 2
        out = out + np.sum(buf * buf)
    return out
