"""Objects, dataclasses and dicts of objects holding arrays."""
import dataclasses
import numpy as np


class Layer:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def forward(self, x):
        return np.tanh(self.W @ x + self.b)


@dataclasses.dataclass
class Params:
    w: np.ndarray
    s: float


def o1(W, b, x):
    layers = [Layer(W, b), Layer(W * 0.5, b)]
    h = x
    for l in layers:
        h = l.forward(h)
    return np.sum(h) + np.sum(layers[0].W * layers[1].W)


def o2(w, s):
    p = Params(w, s)
    q = (p, p)
    return np.sum(q[0].w * q[1].w) * q[0].s


def o3(w):
    objs = {"a": Layer(w, w), "b": Layer(w * 2.0, w)}
    t = 0.0
    for k, v in objs.items():
        t = t + np.sum(v.W * v.b)
    return t


def o4(w, s):
    p = Params(w.copy(), s)
    p.w[0] = p.s * 2.0
    p.w *= p.s
    return np.sum(p.w ** 2)


def o5(w):
    l = Layer(w, w)
    t = (l.W, l.b)
    return np.sum(t[0] * t[1]) + np.sum(t[0])


CASES = [
    ("o1 layers list", o1, (np.eye(2) * 0.4, np.array([0.1, -0.2]), np.array([0.5, 0.3]))),
    ("o2 dataclass tuple", o2, (np.array([1.0, 2.0]), 0.5)),
    ("o3 dict of objs", o3, (np.array([1.0, 2.0]),)),
    ("o4 field write", o4, (np.array([1.0, 2.0]), 0.5)),
    ("o5 fields in tuple", o5, (np.array([1.0, 2.0]),)),
]
