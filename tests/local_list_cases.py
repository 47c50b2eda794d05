"""Functions that build lists by appending (reverse/local_lists.py): typed cases and near misses."""
import math

import numpy as np

from tests import local_object_cases as lo


def series(x, n):
    terms = []
    for k in range(n):
        terms.append(x ** k / math.factorial(k))
    return sum(terms)


def recurrence(x, a):
    traj = []
    traj.append(x)
    for k in range(6):
        traj.append(traj[-1] * a + math.sin(traj[k]))
    return traj[-1] * traj[2] + max(traj) + np.mean(np.array(traj))


def branchy(xs, t):
    kept = []
    for v in xs:
        if v > t:
            kept.append(v * v)
        else:
            kept.append(t - v)
    out = 0.0
    for w in kept:
        out = out + w * t
    return out + min(kept) + len(kept)


def reductions(x):
    vals = []
    for k in range(4):
        vals.append(np.sum(np.sin(x * k)))
    return sum(vals) * min(vals) + math.fsum(vals)


def ints_and_floats(x):
    vals = []
    vals.append(1)
    vals.append(x * 2.0)
    return vals[0] * vals[1] + sum(vals)


def arrays_appended(x):
    rows = []
    for k in range(3):
        rows.append(x * k)
    return np.sum(np.array(rows) ** 2)


def returned_list(x):
    out = []
    out.append(x * x)
    out.append(3.0 * x)
    return out


def helper_reads(xs):
    return xs[0] * xs[-1]


def handed_on(x):
    vals = []
    vals.append(math.exp(x))
    vals.append(x * x)
    return helper_reads(vals) + vals[1]


def popped(x):
    vals = []
    vals.append(x * 2.0)
    vals.append(x * 3.0)
    last = vals.pop()
    vals.append(last * last)
    return sum(vals)


def captured(x):
    vals = []

    def add(v):
        vals.append(v)

    add(x * x)
    vals.append(2.0 * x)
    return sum(vals)


def made_in_loop(x):
    total = 0.0
    for k in range(3):
        parts = []
        parts.append(x * k)
        parts.append(x + k)
        total = total + parts[0] * parts[1]
    return total


def item_written(x):
    vals = []
    vals.append(x)
    vals.append(x * x)
    vals[0] = vals[1] * 3.0
    return vals[0] + vals[1]


def sorted_read(xs, t):
    kept = []
    for v in xs:
        kept.append(v * t)
    return sorted(kept)[0] * sorted(kept)[-1] + kept[1]


def while_break_list(x):
    vals = []
    k = 0
    while True:
        vals.append(x * k + math.cos(x))
        k += 1
        if vals[-1] > 3.0 or k > 6:
            break
    return sum(vals) * vals[0]

def try_list(x):
    vals = []
    for k in range(4):
        try:
            if k == 2:
                raise ValueError("skip")
            vals.append(x ** k)
        except ValueError:
            vals.append(2.0 * x)
    return sum(vals) + vals[2] * vals[-1]

def list_of_obj_fields(x):
    c = lo.Counter(x, 1.0)
    vals = []
    for k in range(3):
        c.x = c.x * 1.1
        vals.append(c.x)
    return sum(vals) + c.energy(vals[1])


def running_variance(x, lam=0.9):
    m, v = 0.0, 0.0  # (a tuple of constants unpacked: numbers joined with the list by the append below)
    out = []
    for xi in x:
        m = lam * m + (1 - lam) * xi
        v = lam * v + (1 - lam) * (xi - m) ** 2
        out.append(v)
    return sum(out) / len(out)
