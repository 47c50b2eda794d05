"""Aliasing, views, tuples and lists of arrays, helpers: where reverse mode's adjoint storage could count twice or lose a part."""
import numpy as np


def p1(a):
    b = a
    b[0] = b[1] * 2.0
    return np.sum(a * a)


def p2(a):
    v = a[1:]
    v *= 2.0
    return np.sum(a ** 2)


def p3(a, x):
    t = (a, x)
    u, w = t
    u[0] = w
    return np.sum(t[0] * a)


def p4(a):
    xs = [a, a * 2.0]
    ys = xs
    ys.append(a[0] * 3.0)
    return np.sum(xs[0]) + np.sum(xs[1]) + xs[2]


def helper(t):
    return t[0] * t[1]


def p5(a, b):
    t = (a, b)
    return np.sum(helper(t)) + np.sum(helper(t))


def p6(A):
    rows = list(A)
    s = 0.0
    for r in rows:
        s = s + np.sum(r * r)
    return s + np.sum(rows[0])


def p7(A):
    out = np.zeros_like(A)
    for i, row in enumerate(A):
        out[i] = np.tanh(row) * 2.0
    return np.sum(out * A)


def p8(a):
    d = {"w": a, "b": (a, 1.0)}
    s = 0.0
    for k, v in d.items():
        s = s + np.sum(v[0] if isinstance(v, tuple) else v)
    return s + np.sum(d["b"][0] ** 2)


def p9(A):
    total = 0.0
    for r in A:
        for v in r:
            total = total + v * v
    return total


def p10(a, x):
    pair = (a, (x, a))
    inner = pair[1]
    return np.sum(inner[1] * pair[0]) * inner[0]


def p11(W1, W2, x):
    params = [(W1, np.zeros(2)), (W2, np.zeros(1))]
    h = x
    for W, b in params:
        h = np.tanh(W @ h + b)
    reg = sum(np.sum(W * W) for W, _ in params)
    return np.sum(h) + 0.1 * reg


def p12(a):
    a2 = a.reshape(2, 2)
    a2[0] += a2[1]
    return np.sum(a * np.arange(4.0))



def p13(x, a):
    """The same value on both sides of an in-place operator (`v -= v`, `y *= y`)."""
    v = np.sum(a)
    v += x
    v -= v * 0.5
    y = x * 1.0
    y *= y
    y += y
    b = a * 1.0
    b *= b
    b -= b * 0.5
    b += b
    return v + y + np.sum(b)


CASES = [
    ("p1 alias write", p1, (np.array([1.0, 2.0, 3.0]),)),
    ("p2 view iadd", p2, (np.array([1.0, 2.0, 3.0]),)),
    ("p3 tuple unpack write", p3, (np.array([1.0, 2.0, 3.0]), 0.5)),
    ("p4 list alias append", p4, (np.array([1.0, 2.0, 3.0]),)),
    ("p5 tuple to helper twice", p5, (np.array([1.0, 2.0]), np.array([3.0, 4.0]))),
    ("p6 list(A)", p6, (np.arange(6.0).reshape(3, 2),)),
    ("p7 rows write out", p7, (np.arange(6.0).reshape(3, 2) / 5,)),
    ("p8 dict items tuple", p8, (np.array([1.0, 2.0]),)),
    ("p9 nested iteration", p9, (np.arange(6.0).reshape(3, 2),)),
    ("p10 nested tuples", p10, (np.array([1.0, 2.0]), 0.7)),
    ("p11 params gen", p11, (np.eye(2) * 0.3, np.ones((1, 2)) * 0.2, np.array([0.5, -0.3]))),
    ("p12 reshape view iadd", p12, (np.array([1.0, 2.0, 3.0, 4.0]),)),
    ("p13 same operand twice in place", p13, (0.7, np.array([1.0, 2.0]))),
]
