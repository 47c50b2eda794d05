"""One of two modules whose functions have equal code objects and different globals
(samecode_a / samecode_b): each must get its own derivative."""


def g(k):
    return k * 2.0


class Scale:
    def __init__(self, k):
        self.j = k * 2.0


def f(x):
    return g(x) * x


def h(x):
    return Scale(x).j * x
