"""Dicts of numbers read with `.get` (ir/typed_methods._dict_get) and the near misses."""
import numpy as np


def with_default(params, x):
    a = params["a"]
    b = params.get("b", 0.0)  # (present: the item)
    c = params.get("c", 1.5)  # (absent from some calls: the default, the derivative specialised on the keys)
    return a * x ** 2 + b * x + c * x


def written_then_read(params, x):
    params = dict(params)
    params["b"] = x * 2.0  # (a copy written: not the parameter)
    return params.get("b", 0.0) * params["a"]


def param_written(params, x):
    params["b"] = x * 3.0  # (the parameter itself written: .get is not resolved statically)
    return params.get("b", 0.0) * params["a"] + x


def arrays(params, x):
    h = np.tanh(params["W"] @ x + params.get("b", 0.0))
    return float(np.sum(h * h))


class Box:
    def __init__(self, v):
        self.v = v

    def __mul__(self, other):
        return self.v * other * 2.0


def param_item_replaced(params, x):
    params["a"] = Box(x)  # (an item replaced by an object: its reads are not numbers any more)
    r = params["a"] * x
    params["a"] = 0.5
    return r
