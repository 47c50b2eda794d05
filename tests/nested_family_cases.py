"""Functions of tests/test_nested_families.py (in a module of their own, so their source is read from a file)."""
import math

import numpy as np

import mooncake_ast as mc

C3 = np.array([0.2, -0.4, 0.6])
W = [0.5, 1.5]


def vector_map(x):
    return np.sin(x) * np.sum(x ** 2) + C3 * x[0]


def scalar_loss(x):
    s = 0.0
    for i in range(3):
        if x[i] > 0.0:
            s = s + x[i] ** 3 * np.sum(x)
        else:
            s = s - np.sin(x[i]) * x[0]
    return s


J_OUTSIDE = mc.jacfwd(vector_map)
H_OUTSIDE = mc.hessian(scalar_loss)


def uses_jacobian_made_outside(x):
    return np.sum(J_OUTSIDE(x) ** 2)


def uses_jacobian_made_inside(x):
    return np.sum(np.tanh(mc.jacfwd(vector_map)(x)))


def uses_hessian(x):
    return np.sum(np.sin(H_OUTSIDE(x)))


def inplace_reshape_concatenate(x):
    a = np.zeros(6)
    a[:3] = x
    a[3:] = x ** 2
    b = a.reshape(2, 3)
    b[1] += np.sin(x)
    return np.concatenate([b[0], b[1] * x])


def concatenate_then_inplace(x):
    a = np.concatenate([x, x * 2]).reshape(2, 3)
    a[0] *= x
    a += 1.0
    return np.stack((a[0], a[1] * x[2])).ravel()


def with_max(x):
    return np.max(x * x[1]) * np.sum(x) + np.min(np.sin(x))


def with_max_scalar(t):
    return np.max(np.array([t * t * t, 0.5 * t])) + np.dot(C3, np.array([t, t * t, 1.0])) ** 2


def reads_module_list(x):
    return W[0] * np.sum(x * x * x) + W[1] * np.sum(x) * x[0]


class Acc:
    def __init__(self):
        self.v = np.zeros(3)
        self.items = []

    def reset(self):
        self.v = np.zeros(3)
        self.items = []

    def add(self, t):
        self.v = self.v + t
        self.items.append(t * t)


ACC = Acc()


def module_object_accumulates(x):
    ACC.reset()
    ACC.add(x * x)
    ACC.add(np.sin(x))
    return np.sum(ACC.v * x) + np.sum(ACC.items[0] * ACC.items[1])


def make_scale(c):
    def scale(t):
        return c * t * t
    return scale


SCALE = make_scale(2.0)


def uses_module_closure(x):
    return np.sum(SCALE(x) * x) + SCALE(x[0])


def make_acc():
    store = [0.0]

    def acc(t):
        store[0] = store[0] + t
        return store[0]
    return acc


ACCUMULATE = make_acc()


def uses_stateful_closure(x):
    ACCUMULATE(np.sum(x * x))
    return ACCUMULATE(np.sum(x)) * np.sum(x)


def dot_of_products(t):
    a = np.array([t, 0.5 * t, 0.3])
    return np.sin(np.dot(a, a * a)) + np.sin(np.dot(t, t * t))


def write_through_named_view(t):
    b = np.array([0.3, -0.5, 0.8]) * t
    w = b[1:]
    w *= t
    return np.sum(b * b)


def plain_math(t):
    return math.sin(t * t) * 1.5


def scaled_sin(p, scale=1.5):
    return math.sin(p) * scale


def cubic(p, q=0.5, r=2.0):
    return p ** 3 * q + r * p


def calls_with_defaults(t):
    return scaled_sin(t * t) + cubic(t) + cubic(t, 0.25)


def shifted_sin(p, scale=1.0, shift=0.0):
    return math.sin(p) * scale + shift * p


def calls_with_keywords(t):
    return shifted_sin(t * t, scale=t + 1.0) + shifted_sin(t, shift=2.0 * t) + shifted_sin(t, scale=0.5)


def loop_over_items(t):
    xs = [t, 2.0 * t, 0.5]
    s = 0.0
    for e in xs:
        s = s + math.sin(e) * e
    for i, r in enumerate(np.array([t, t * t])):
        if r > 0.2:
            s = s + r ** 3 * (i + 1)
        else:
            s = s - r
    return s


def prefix_sum_inplace(x):
    for i in range(1, x.shape[0]):
        x[i] += x[i - 1]
    return np.sum(np.sin(x))
