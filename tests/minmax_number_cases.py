"""max/min of two numbers, whose pullback is Python's conditional (`0.0 if b > a else g`)."""
import math


def clip_between(x, lo=-1.0, hi=1.0):
    c = min(max(x, lo), hi)
    return c * c + 0.1 * x


def relu_sum(x, y):
    return max(x, 0.0) * 2.0 + min(0.0, y) * 3.0 + max(x * y, x + y)


def int_and_float(x, k):
    return max(k, x) ** 2 + min(x, k + 1)


def in_a_loop(x):
    best = -1e9
    for i in range(5):
        best = max(best, math.sin(x * i))
    return best


def three_arguments(x, y):
    return max(x, y, 0.5) + min(x, 0.1, y)  # (three: the generic rule)


def tie(x):
    return max(x, x) + min(x, 2.0 * x - x)
