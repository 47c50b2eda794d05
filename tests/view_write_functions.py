"""Functions that write an array through a view of it (tests/test_typed_view_writes.py): updates and whole writes of
a basic-index view made writes of the array (reverse/view_writes.py)."""
import numpy as np


def scale_every_other(a, s):
    v = a[::2]
    v *= s
    return np.sum(a ** 2)


def update_ops_on_copy(a, w, s):
    b = a.copy()
    head = b[:3]
    head += w
    tail = b[3:]
    tail /= s
    mid = b[1:4]
    mid -= 0.5 * s
    return np.sum(np.sin(b) * a)


def power_of_view(a, s):
    b = a * s
    v = b[1:]
    v **= 2
    return np.sum(b)


def row_and_column(A, x, s):
    B = A.copy()
    row = B[1]
    row *= s
    col = B[:, 0]
    col += x
    return np.sum(B @ x)


def whole_writes(a, v):
    b = a.copy()
    mid = b[1:3]
    mid[:] = v * mid
    end = b[-2:]
    end[...] = end ** 2 + v
    return np.sum(b * b)


def whole_write_of_number(a, s):
    b = a * s
    mid = b[2:4]
    mid[:] = s * s
    return np.sum(b ** 3)


def fancy_copy_untouched(a, s):
    v = a[[0, 2]]
    v *= s
    return np.sum(a ** 2) + np.sum(v)


def scalar_item_rebound(a, s):
    v = a[0]
    v *= s
    return v + np.sum(a)


def in_a_loop(a, s, n):
    b = a.copy()
    for k in range(n):
        v = b[k:k + 2]
        v *= s
    return np.sum(b ** 2)


def view_read_after(a, s):
    b = a.copy()
    v = b[::2]
    v *= s
    return np.sum(v) + np.sum(b ** 2)
