"""Closures, lambdas, nonlocal writes and default arguments."""
import numpy as np


def c1(x, a):
    k = x * 2.0
    def g(t):
        return t * k + a[0]
    return g(x) + g(1.0) + np.sum(a)


def c2(a):
    def scale(v):
        return v * a
    out = 0.0
    for i in range(3):
        out = out + np.sum(scale(float(i)))
    return out


def c3(x):
    acc = [x]
    def push(v):
        acc.append(v * acc[-1])
    push(2.0)
    push(x)
    return acc[-1] + acc[0]


def c4(x, a):
    f = lambda t: np.sum(a * t) * x
    return f(x) + f(2.0)


def c5(x):
    total = 0.0
    def add(v):
        nonlocal total
        total = total + v * x
    for i in range(3):
        add(float(i))
    return total


def c6(a):
    k = 0
    while k < 2:
        k += 1
    g = lambda t: t * a * k
    return np.sum(g(a))


def c7(x):
    fs = []
    for i in range(3):
        fs.append(lambda t, i=i: t * i * x)
    return sum(f(x) for f in fs)


def c8(a, x):
    def inner(v):
        a[0] = v * x
        return a[0] + a[1]
    return inner(x) * inner(2.0)


def f1(x):
    g = lambda t, c=x: c * t
    return g(2.0)

def f2(x):
    fs = [lambda t, c=x: c * t]
    return fs[0](2.0)

def f3(x):
    fs = []
    fs.append(lambda t, c=x: c * t)
    return fs[0](2.0)

def f4(x):
    k = x * 3.0
    fs = []
    fs.append(lambda t: k * t)
    return fs[0](2.0)

def f5(x, a):
    def inner(t, *, c=x, w=a):
        return c * t + w[0] * c
    return inner(2.0) + inner(1.0, c=3.0)

def f6(x):
    fs = [lambda t, i=i: t * i * x for i in range(3)]
    gs = [lambda t, c=x * i: t * c for i in range(3)]
    return sum(f(x) for f in fs) + gs[2](1.5)


CASES = [
    ("c1", c1, (0.7, np.array([1.0, 2.0]))),
    ("c2", c2, (np.array([1.0, 2.0]),)),
    ("c3", c3, (0.7,)),
    ("c4", c4, (0.7, np.array([1.0, 2.0]))),
    ("c5 nonlocal", c5, (0.7,)),
    ("c6", c6, (np.array([1.0, 2.0]),)),
    ("c7 default capture", c7, (0.7,)),
    ("c8 closure writes arg", c8, (np.array([1.0, 2.0]), 0.7)),
    ("default arg", f1, (0.7,)),
    ("default arg in list", f2, (0.7,)),
    ("default arg appended", f3, (0.7,)),
    ("captured in list", f4, (0.7,)),
    ("keyword-only defaults", f5, (0.7, np.array([1.0, 2.0]))),
    ("lambdas with defaults in comprehensions", f6, (0.7,)),
]
