"""Functions whose loops hand float arrays written by index from one trip to the next (reverse/buffer_webs.py):
swapped scratch arrays, an array made afresh each trip, and the shapes that must stay on identity-keyed storage
(two names for one array, a conditional swap, a copy of one into the other)."""
import numpy as np


def jacobi_swap(u, steps):
    cur = u.copy()
    nxt = np.empty_like(cur)
    for _ in range(steps):
        nxt[0] = cur[0]
        nxt[-1] = cur[-1]
        nxt[1:-1] = 0.5 * (cur[:-2] + cur[2:])
        cur, nxt = nxt, cur
    return cur


def jacobi_swap_loss(u, w, steps):
    cur = u * w
    nxt = np.zeros_like(u)
    for _ in range(steps):
        nxt[1:-1] = cur[1:-1] + w * (cur[:-2] - 2.0 * cur[1:-1] + cur[2:])
        nxt[0] = cur[0] * cur[1]
        nxt[-1] = np.tanh(cur[-1])
        cur, nxt = nxt, cur
    return np.sum(cur * cur) + np.sum(np.sin(nxt))


def fresh_each_trip(u, a, steps):
    cur = u.copy()
    for _ in range(steps):
        nxt = np.empty_like(cur)
        nxt[0] = a * cur[0]
        nxt[1:] = cur[1:] * cur[:-1] + a
        cur = nxt
    return np.sum(cur ** 2)


def rows_swapped(A, w, steps):
    cur = A.copy()
    nxt = np.empty_like(A)
    for _ in range(steps):
        nxt[0] = cur[0] * w
        nxt[1:] = np.tanh(cur[1:] + cur[:-1] * w)
        cur, nxt = nxt, cur
    return np.sum(cur * A)


def three_way_rotation(u, steps):
    a = u.copy()
    b = u * 2.0
    c = np.zeros_like(u)
    for _ in range(steps):
        c[:] = a * b
        c[0] = c[0] + b[-1]
        a, b, c = b, c, a
    return np.sum(a) + 2.0 * np.sum(b * b) + np.sum(np.cos(c))


def while_swap(u, a):
    cur = u.copy()
    nxt = np.zeros_like(u)
    k = 0
    while k < 3:
        nxt[1:] = cur[:-1] * a + cur[1:] * cur[1:]
        nxt[0] = cur[0] * a
        cur, nxt = nxt, cur
        k += 1
    return np.sum(cur ** 2) - np.sum(nxt)


def fresh_rows_each_trip(A, w, steps):
    cur = A * 1.0
    for _ in range(steps):
        nxt = np.zeros_like(cur)
        nxt[0] = cur[0] * w
        nxt[1:] = np.sin(cur[1:]) + cur[:-1] * w
        cur = nxt
    return np.sum(cur * cur)


# ---- shapes that keep identity-keyed storage (must stay right)

def same_array_twice(u, steps):
    cur = u.copy()
    nxt = np.empty_like(cur)
    for _ in range(steps):
        nxt[1:] = cur[:-1] * 0.5
        nxt[0] = cur[-1]
        cur, nxt = nxt, nxt
    return np.sum(cur * u)


def conditional_swap(u, steps):
    cur = u.copy()
    nxt = np.zeros_like(cur)
    for k in range(steps):
        nxt[1:] = cur[:-1] * cur[1:]
        nxt[0] = cur[0]
        if k % 2 == 0:
            cur, nxt = nxt, cur
    return np.sum(cur) + np.sum(nxt ** 2)


def copied_into_other(u, steps):
    cur = u.copy()
    nxt = np.zeros_like(cur)
    for _ in range(steps):
        nxt[:] = cur
        nxt[1:] = nxt[1:] * cur[:-1]
        cur, nxt = nxt, cur
    return np.sum(cur * cur)


def start_read_after_loop(u, steps):
    first = u.copy()
    cur = first
    nxt = np.zeros_like(u)
    for _ in range(steps):
        nxt[1:] = cur[:-1] * 1.5
        nxt[0] = cur[0] * cur[1]
        cur, nxt = nxt, cur
    return np.sum(cur * cur) + np.sum(first * u)


def inner_loop_last(u, steps):
    cur = u.copy()
    nxt = np.zeros_like(u)
    for _ in range(steps):
        for i in range(1, u.shape[0]):
            nxt[i] = cur[i] * cur[i - 1]
        nxt[0] = cur[0]
        cur, nxt = nxt, cur
    return np.sum(cur)


def early_exit(u, steps):
    cur = u.copy()
    nxt = np.zeros_like(u)
    for k in range(steps):
        nxt[1:] = cur[:-1] * cur[1:]
        nxt[0] = cur[0] * 0.5
        cur, nxt = nxt, cur
        if np.sum(cur) > 100.0:
            break
    return np.sum(cur * cur)


def renamed_then_written(u, a):
    cur = u.copy()
    for _ in range(3):
        nxt = np.zeros_like(cur)
        nxt[1:] = cur[:-1] * a
        cur = nxt
        cur[0] = np.sin(cur[1]) + u[0]
    return np.sum(cur * cur)


def branch_then_counter(u, a):
    cur = u.copy()
    nxt = np.zeros_like(u)
    k = 0
    for _ in range(4):
        nxt[0] = cur[0]
        if k % 2 == 0:
            nxt[1:] = cur[:-1] * a
        else:
            nxt[1:] = cur[:-1] * cur[1:]
        cur, nxt = nxt, cur
        k = k + 1
    return np.sum(cur ** 2)


def fresh_then_branch(u, a):
    cur = u * 1.0
    for k in range(4):
        nxt = np.empty_like(cur)
        if k % 2 == 0:
            nxt[:] = cur * a
        else:
            nxt[:] = np.sin(cur)
        cur = nxt
    return np.sum(cur ** 2)
