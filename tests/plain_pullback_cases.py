"""Functions whose pullbacks issue 9 makes plainer (tests/test_plain_pullbacks.py); their source must be readable."""
import numpy as np


def tuple_items_in_loop(values, p):
    """A tuple of floats walked by a loop: each item a float, the generator's list a list of floats."""
    return sum(v ** p for v in values)


def tuple_display_in_loop(x, y, z):
    args = (x, y, z)
    total = 0.0
    for v in args:
        total = total + v * v * x
    return total


def mixed_tuple_in_loop(x, a):
    """Items of two types: read generically (each trip's item may be either)."""
    total = 0.0
    for v in (x, a):
        total = total + np.sum(v * v)
    return total


def appended_rows(rows, v):
    """Lists of unknown items built by appending (comprehensions, generators): `lst.append(x)` returns None."""
    out = [sum(a * b for a, b in zip(row, v)) for row in rows]
    return sum(o * o for o in out)


def appended_then_written(xs):
    """Appended items (an array among them) written in place afterwards: the slots follow the items."""
    acc = []
    for x in xs:
        acc.append(x * 2.0)
    acc[0] += acc[-1]
    return sum(np.sum(a * a) for a in acc)


def arrays_of_a_tuple_written(a, b):
    """Items of a tuple of float arrays (one type) written in place through the loop variable and a view of it."""
    for w in (a, b):
        w *= 2.0
        v = w[1:]
        v += w[0]
    return np.sum(a * b) + np.sum(a)
