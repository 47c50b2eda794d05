"""Functions over lists of float arrays (`Ws = [W1, W2, W3]`, reverse/typed_lists.py): typed cases and near misses."""
import numpy as np


def chain(Ws, x):
    for W in Ws:
        x = np.tanh(W @ x)
    return np.sum(x ** 2)


def by_index(Ws, bs, x):
    for i in range(len(Ws)):
        x = np.tanh(Ws[i] @ x + bs[i])
    return np.sum(x ** 2)


def last_and_first(Ws, x):
    h = Ws[-1] @ (Ws[0] @ x)
    return np.sum(h * (Ws[0].T @ x)) + np.sum(Ws[1] ** 2)


def read_twice(vs, w):
    total = 0.0
    for k in range(len(vs)):
        total = total + np.dot(vs[k], w) * np.sum(vs[k])
    for v in vs:
        total = total + np.sum(np.sin(v))
    return total


def enumerated(vs, c):
    out = 0.0
    for i, v in enumerate(vs):
        out = out + (i + 1) * np.sum(v * c) ** 2
    return out


def zipped(Ws, bs, x):
    for W, b in zip(Ws, bs):
        x = np.sin(W @ x) + b
    return np.sum(x)


def reversed_walk(Ws, g):
    for W in reversed(Ws):
        g = W.T @ g
    return np.sum(g ** 3)


def branchy(vs, t):
    acc = np.zeros(3)
    for v in vs:
        if np.sum(v) > t:
            acc = acc + v * v
        else:
            acc = acc - 0.5 * v
    return np.sum(acc * acc)


def item_written(vs):
    for v in vs:
        v *= 2.0
    return sum(np.sum(v ** 2) for v in vs)


def item_viewed_and_written(vs):
    row = vs[0][0]
    row[1] = 3.0 * row[0]
    return np.sum(vs[0] ** 2) + np.sum(vs[1])


def handed_on(vs, x):
    return _helper(vs[0], x) + np.sum(vs[1] * x)


def _helper(v, x):
    return np.sum(np.exp(v * x))


def list_written(vs, x):
    vs[0] = vs[0] * x
    return np.sum(vs[0] + vs[1])


def summed(vs):
    s = sum(vs)
    return np.sum(s * s)


def stacked(vs):
    return np.sum(np.stack(vs) ** 2)


def returned_item(vs, x):
    return vs[0] * x


def item_row_read(Ws, x):
    return np.sum(Ws[0][0] * x) + np.sum(Ws[1] @ x)


def unused_chain(Ws, x):
    h = x
    for W in Ws:
        h = W @ h
    t = np.sum(h)
    t = 3 + t
    return np.sum(x ** 2)
