"""Every repro listed in issue 16 (found by random programs), as a user writes it."""
import math

import numpy as np


C = np.arange(6.0).reshape(2, 3) / 5


def s1a(x):
    return np.sum(np.ones(3) + x)


def s1b(x):
    return np.sum(np.ones((2, 3)) + x * C)


def s1c(a):
    u = np.ones(3) + a
    np.sin(a, out=a)
    return np.sum(u) + np.sum(a)


def s1d(x):
    u = np.ones(3) + x
    return u[1] * 2.0 + np.sum(u @ np.ones((3, 2)))


W0 = np.array([.2, -.4, .6])


def s2a(x):
    return np.mean(x * W0)


def s2b(x):
    return np.sum(W0 + x)


def s3(a):
    u = a.copy()
    u[1] += 1.0
    return 0.0, u


def s4(s):
    k = 3
    return s ** k


def cr1(x):
    k = 0
    while k < 2:
        k += 1

    def g(t):
        return t * k
    return g(x)


def cr2(a):
    t = 0.0
    for i in range(3):
        u = a[:2] @ np.ones((2, 3))
        t = t + a[0] * i
    return t


def cr2b(a):
    t = 0.0
    for i in range(3):
        u = np.array(a)
        t = t + a[0] * i
    return t


def cr3(a):
    x = np.float64(2.0)
    t = 0.0
    for i in range(4):
        if i == 1:
            continue
        elif x > 0:
            x *= 0.9
        else:
            continue
        t = t + x * a
    return t


def cr3b(a):
    t = 0.0
    for i in range(3):
        for j in range(3):
            if j == 1:
                continue
            t = t + a * j
        else:
            continue
        t = t * 2.0
    return t


def cr4(a):
    for i in range(2):
        pass
    else:
        if a[0] < 5:
            return a[1] * 2
    return np.sum(a)


def cr5(a, x0, x1):
    xs = [x0, x1]
    t = 0.0
    for u, v in zip(a, xs):
        t = t + u * v
    return t


def h(x, y):
    return np.array([1.0, 2.0])


def cr6(x, y):
    return np.linalg.norm(np.sin(h(x, y))) + x * y


CASES = [
    ("1a ones + x", s1a, (0.5,)),
    ("1b ones + x*C", s1b, (0.5,)),
    ("1c tangent aliasing", s1c, (np.array([0.1, 0.2, 0.3]),)),
    ("1d indexed", s1d, (0.5,)),
    ("2a W0 mean", s2a, (-0.5,)),
    ("2b W0 add", s2b, (-0.5,)),
    ("3 returned array mutated", s3, (np.array([0.3, 0.3, 0.1]),)),
    ("4 int pow neg base", s4, (-1.5,)),
    ("cr1 closure after while", cr1, (2.0,)),
    ("cr2 unused matmul in loop", cr2, (np.array([1.0, 2.0, 3.0]),)),
    ("cr2b unused array in loop", cr2b, (np.array([1.0, 2.0, 3.0]),)),
    ("cr3 elif continue merge", cr3, (2.0,)),
    ("cr3b for-else continue", cr3b, (2.0,)),
    ("cr4 for-else return", cr4, (np.array([1.0, 2.0, 3.0]),)),
    ("cr5 zip unequal", cr5, (np.array([1.0, 2.0, 3.0]), 0.5, 0.7)),
    ("cr6 const helper norm", cr6, (0.5, 0.7)),
]
