"""Functions whose IR and generated source are pinned by golden files (tests/golden/)."""
import math

import numpy as np


def straight_line(x, y):
    z = x * y
    w = math.sin(z) + y
    return w / x


def branches(x):
    if x > 0:
        y = x * x
    elif x < -1:
        y = -x
    else:
        y = 0.5 * x
    return y


def sine_sum(x, n):
    s = 0.0
    for i in range(n):
        s = s + math.sin(x * i)
    return s


def while_break(x):
    steps = 0
    while x > 1.0:
        x = x / 2.0
        steps += 1
        if steps > 10:
            break
    return x


def fill_array(x, n):
    a = np.zeros(n)
    for i in range(1, n):
        a[i] = a[i - 1] * x + 1.0
    return a.sum()


def unpack_and_call(p):
    a, b = p
    return max(a, b) * abs(a - b)


def loop_with_break(x, limit):
    total = 0.0
    for i in range(10):
        if total > limit:
            break
        total = total + x * i
    return total


def while_with_break(x):
    y = x
    n = 0
    while y < 100.0:
        y = y * 1.7 + 1.0
        n += 1
        if n > 5:
            break
    return y
