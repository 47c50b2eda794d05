import numpy as np
LOG = []
buf = np.zeros(3)
def f(x):
    LOG.append(x * 2.0)
    return LOG[-1] * x
def g(x):
    np.multiply(x, 2.0, out=buf)
    return np.sum(buf)
def h(x):
    xs = []
    xs.append(x * 2.0)
    return xs[-1] * x
class Holder:
    def __init__(self):
        self.items = []
H = Holder()
def k(x):
    H.items.append(x * 2.0)
    return H.items[-1] * x
