"""Probes of hunt11: everyday code in styles the earlier hunts did not cover -- objects holding arrays updated in
place, hand-written optimisers over dicts, layer objects with __call__, dataclasses with properties, super(),
comprehensions with conditions, sorted/min/max with key=, rows and columns of 2-D arrays written while iterated,
ndarray methods, overlapping views, aliasing, recursion, while/else, try/except on the taken path, string-keyed
configs, module globals, closures over lists, NumPy scalars, int/bool arithmetic, complex intermediates, early
returns.

Each probe is listed at the bottom in CASES as (name, x, extra): f(x, *extra) with x a float64 vector (the
differentiated argument) and extra non-float constants (ints, strings).  Outputs are floats, except the probes
named in VECTOR (1-D arrays).  Every probe copies x before writing to it: the functions are pure.  Kinks (abs,
max, sorted orders, branches) sit away from the points."""
from __future__ import annotations

import collections
import dataclasses
import functools
import math
import operator

import numpy as np

DT = 0.05
X6 = np.array([0.3, -0.7, 1.1, 0.5, -0.2, 0.9])
X4 = np.array([0.4, -0.3, 0.8, 0.6])
DATA6 = np.array([1.5, -0.5, 0.25, 2.0, -1.25, 0.75])
W_GLOBAL = np.array([[0.2, -0.1, 0.4], [0.3, 0.5, -0.2]])
CONFIG = {"activation": "tanh", "scale": 1.5, "use_bias": True, "depth": 2}
COUNTS = {"steps": 4}


# ================================================================ physics with objects updated in place
class ParticleSystem:
    def __init__(self, pos, vel, mass):
        self.pos = pos
        self.vel = vel
        self.mass = mass

    def forces(self):
        return -self.pos * self.mass - 0.1 * self.vel ** 3

    def step(self, dt):
        self.vel += dt * self.forces() / self.mass
        self.pos += dt * self.vel

    def energy(self):
        return 0.5 * np.sum(self.mass * self.vel ** 2) + 0.5 * np.sum(self.mass * self.pos ** 2)


def particles_inplace(x):
    s = ParticleSystem(x[:3].copy(), x[3:].copy(), np.array([1.0, 2.0, 0.5]))
    for _ in range(4):
        s.step(DT)
    return s.energy() + np.sum(s.pos)


class Grid2D:
    def __init__(self, u):
        self.u = u

    def apply_boundary(self):
        self.u[0, :] = self.u[1, :]
        self.u[-1, :] = self.u[-2, :]

    def diffuse(self, c):
        lap = self.u[:-2, :] + self.u[2:, :] - 2.0 * self.u[1:-1, :]
        self.u[1:-1, :] += c * lap


def heat_plate_boundary(x):
    g = Grid2D(np.outer(x[:4], x[4:]) + 1.0)
    for _ in range(3):
        g.diffuse(0.2)
        g.apply_boundary()
    return np.sum(g.u ** 2)


def pairwise_forces_loop(x):
    pos = x.reshape(3, 2).copy()
    n = pos.shape[0]
    F = np.zeros_like(pos)
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            r2 = np.dot(d, d) + 0.5
            f = d / r2 ** 1.5
            F[i] += f
            F[j] -= f
    return np.sum(F * pos)


@dataclasses.dataclass
class OscState:
    q: np.ndarray
    p: np.ndarray

    def kinetic(self):
        return 0.5 * np.dot(self.p, self.p)


def dataclass_slice_state(x):
    st = OscState(x[:3].copy(), np.zeros(3))
    for _ in range(3):
        new_p = st.p - DT * np.sin(st.q)
        st.q[:] = st.q + DT * new_p
        st.p[:] = new_p
    return st.kinetic() + np.sum(np.cos(st.q))


def orbit_history_copies(x):
    q = x[:2].copy()
    v = x[2:4].copy()
    hist = []
    for _ in range(4):
        r3 = (np.dot(q, q) + 0.3) ** 1.5
        v -= DT * q / r3
        q += DT * v
        hist.append(q.copy())
    return sum(np.sum(h ** 2) for h in hist)


def lotka_dict_state(x):
    s = {"prey": x[0] + 2.0, "pred": x[1] + 1.5}
    for _ in range(4):
        dprey = s["prey"] * (1.0 - 0.3 * s["pred"])
        dpred = s["pred"] * (0.2 * s["prey"] - 0.5)
        s["prey"] += DT * dprey
        s["pred"] *= 1.0 + DT * dpred / s["pred"]
    return s["prey"] * s["pred"]


class RigidBody:
    def __init__(self, angle):
        c, s = math.cos(angle), math.sin(angle)
        self.R = np.array([[c, -s], [s, c]])

    def rotate(self, w):
        c, s = np.cos(w), np.sin(w)
        self.R = self.R @ np.array([[c, -s], [s, c]])

    def apply(self, v):
        return self.R @ v


def rigid_rotation(x):
    body = RigidBody(x[0])
    for w in x[1:4]:
        body.rotate(w)
    return np.sum(body.apply(np.array([1.0, 0.5])) * np.array([0.3, -0.8]))


# ================================================================ hand-written optimisers
def _quad_grad(p, target):
    return 2.0 * (p - target) + 0.3 * np.sin(p)


def adam_dict_loop(x):
    params = {"w": x[:3].copy(), "b": x[3:].copy()}
    targets = {"w": np.array([0.5, -0.5, 1.0]), "b": np.array([0.2, 0.1, -0.3])}
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(p) for k, p in params.items()}
    b1, b2, lr, eps = 0.9, 0.999, 0.1, 1e-8
    for t in range(1, 4):
        for k in params:
            g = _quad_grad(params[k], targets[k])
            m[k] = b1 * m[k] + (1 - b1) * g
            v[k] = b2 * v[k] + (1 - b2) * g * g
            mhat = m[k] / (1 - b1 ** t)
            vhat = v[k] / (1 - b2 ** t)
            params[k] = params[k] - lr * mhat / (np.sqrt(vhat) + eps)
    return sum(np.sum((params[k] - targets[k]) ** 2) for k in params)


def momentum_list_inplace(x):
    params = [x[:2].copy(), x[2:].copy()]
    vel = [np.zeros(2), np.zeros(4)]
    for _ in range(3):
        for p, vv in zip(params, vel):
            g = p ** 3 - 0.5 * p
            vv *= 0.9
            vv += g
            p -= 0.1 * vv
    return float(np.sum(params[0] ** 2) + np.sum(params[1] ** 2))


def rmsprop_inplace(x):
    p = x.copy()
    s = np.zeros_like(p)
    for _ in range(3):
        g = np.tanh(p) + 0.2 * p
        s *= 0.8
        s += 0.2 * g * g
        p -= 0.05 * g / (np.sqrt(s) + 1e-3)
    return np.sum(p ** 2 * DATA6)


def nesterov_swap(x):
    xk = x.copy()
    x_prev = x.copy()
    for k in range(1, 4):
        y = xk + (k - 1) / (k + 2) * (xk - x_prev)
        g = 2.0 * y * DATA6 + np.cos(y)
        x_new = y - 0.05 * g
        xk, x_prev = x_new, xk
    return np.sum(xk ** 2) + np.sum(np.sin(x_prev))


class SGDOptimizer:
    def __init__(self, lr, decay):
        self.lr = lr
        self.decay = decay
        self.steps = 0

    def step(self, params, grads):
        self.steps += 1
        lr = self.lr / (1.0 + self.decay * self.steps)
        for name in params:
            params[name] -= lr * grads[name]


def optimizer_class_dict(x):
    params = {"a": x[:3].copy(), "c": x[3:].copy()}
    opt = SGDOptimizer(0.2, 0.5)
    for _ in range(3):
        grads = {"a": params["a"] - params["c"][::-1], "c": np.sin(params["c"])}
        opt.step(params, grads)
    return np.sum(params["a"] * params["c"]) + opt.steps * 0.0


def clipped_gd(x):
    p = x.copy()
    for _ in range(4):
        g = p ** 3 + DATA6
        norm = np.sqrt(np.sum(g * g))
        if norm > 2.0:
            g = g * (2.0 / norm)
        p = p - 0.1 * g
    return np.sum(np.cos(p))


# ================================================================ small nets: layer objects with __call__
class Dense:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, h):
        return h @ self.W + self.b


class Tanh:
    def __call__(self, h):
        return np.tanh(h)


def sequential_layers(x):
    W1 = x[:4].reshape(2, 2)
    layers = [Dense(W1, x[4:6]), Tanh(), Dense(W1.T * 0.5, np.array([0.1, -0.1])), Tanh()]
    h = np.array([[0.5, -1.0], [1.5, 0.2]])
    for layer in layers:
        h = layer(h)
    return np.sum(h ** 2)


class Residual(Dense):
    def __call__(self, h):
        return h + np.tanh(super().__call__(h))


def residual_super_call(x):
    blocks = [Residual(x[:4].reshape(2, 2), x[4:]), Residual(np.eye(2) * x[0], np.zeros(2))]
    h = np.array([0.3, 0.7])
    for blk in blocks:
        h = blk(h)
    return np.sum(np.sin(h))


def layers_dict_sorted(x):
    layers = {"b_out": Dense(x[2:4].reshape(2, 1), x[4:5]), "a_in": Dense(x[:2].reshape(1, 2), np.zeros(2))}
    h = np.array([[0.7], [-0.4]])
    for name in sorted(layers):
        h = layers[name](h)
        if name.startswith("a"):
            h = np.tanh(h)
    return np.sum(h)


ACTS = {"tanh": np.tanh, "softplus": lambda z: np.log1p(np.exp(z)), "identity": lambda z: z}


def activation_by_name(x):
    h = x.reshape(2, 3)
    for name in ["softplus", "tanh", "identity"]:
        h = ACTS[name](h @ W_GLOBAL.T @ W_GLOBAL)
    return np.sum(h) * CONFIG["scale"]


class Conv1D:
    def __init__(self, kernel):
        self.kernel = kernel

    def __call__(self, sig):
        k = len(self.kernel)
        out = np.zeros(len(sig) - k + 1)
        for i in range(len(out)):
            out[i] = np.dot(sig[i:i + k], self.kernel)
        return out


def conv_layer_loop(x):
    conv = Conv1D(x[:3])
    y = conv(np.concatenate([x, x[::-1]]))
    return np.sum(np.tanh(y) ** 2)


class AttentionHead:
    def __init__(self, Wq, Wk):
        self.Wq = Wq
        self.Wk = Wk

    def softmax(self, s):
        s = s.copy()
        s -= s.max(axis=-1, keepdims=True)
        np.exp(s, out=s)
        s /= s.sum(axis=-1, keepdims=True)
        return s

    def __call__(self, X):
        return self.softmax((X @ self.Wq) @ (X @ self.Wk).T) @ X


def attention_head_inplace(x):
    X = np.array([[0.5, -0.3], [0.1, 0.8], [-0.6, 0.2]])
    head = AttentionHead(x[:4].reshape(2, 2), x[2:6].reshape(2, 2))
    return np.sum(head(X) ** 2)


# ================================================================ dataclasses, properties, inheritance
@dataclasses.dataclass
class Gaussian:
    mu: float
    log_sigma: float

    @property
    def sigma(self):
        return math.exp(self.log_sigma)

    @property
    def var(self):
        return self.sigma ** 2

    def logpdf(self, y):
        return -0.5 * (y - self.mu) ** 2 / self.var - self.log_sigma - 0.5 * math.log(2 * math.pi)


def dataclass_properties(x):
    g = Gaussian(x[0], x[1])
    return sum(g.logpdf(float(d)) for d in DATA6)


class Shape:
    def __init__(self, scale):
        self.scale = scale

    def area(self):
        raise NotImplementedError

    def weighted(self):
        return self.scale * self.area()


class Rect(Shape):
    def __init__(self, w, h):
        super().__init__(2.0)
        self.w, self.h = w, h

    def area(self):
        return self.w * self.h


class Ellipse(Shape):
    def __init__(self, a, b):
        super().__init__(0.5)
        self.a, self.b = a, b

    def area(self):
        return math.pi * self.a * self.b


def inheritance_shapes(x):
    shapes = [Rect(x[0], x[1]), Ellipse(x[2], x[3]), Rect(x[4], 1.0)]
    return sum(s.weighted() for s in shapes)


class Spring:
    def __init__(self, k):
        self.k = k

    def energy(self, d):
        return 0.5 * self.k * d * d


class AnharmonicSpring(Spring):
    def energy(self, d):
        return super().energy(d) + 0.1 * d ** 4


def super_method_energy(x):
    springs = [Spring(2.0), AnharmonicSpring(1.5), AnharmonicSpring(0.5)]
    d = np.diff(x[:4])
    return sum(s.energy(di) for s, di in zip(springs, d))


class CachedNorm:
    def __init__(self, v):
        self._v = v
        self._norm = None

    @property
    def norm(self):
        if self._norm is None:
            self._norm = np.sqrt(np.sum(self._v ** 2))
        return self._norm

    def scale(self, s):
        self._v = self._v * s
        self._norm = None


def cached_property_invalidate(x):
    c = CachedNorm(x.copy())
    a = c.norm
    c.scale(x[0])
    return a * c.norm


@dataclasses.dataclass
class Affine2:
    W: np.ndarray
    b: np.ndarray

    @classmethod
    def from_vector(cls, v):
        return cls(v[:4].reshape(2, 2), v[4:6])

    def __matmul__(self, other):
        return Affine2(self.W @ other.W, self.W @ other.b + self.b)

    def __call__(self, h):
        return self.W @ h + self.b


def classmethod_compose(x):
    f = Affine2.from_vector(x)
    g = Affine2.from_vector(np.sin(x))
    return np.sum((f @ g @ f)(np.array([0.3, -0.4])) ** 2)


class Vec:
    def __init__(self, a):
        self.a = a

    def __add__(self, o):
        return Vec(self.a + o.a)

    def __radd__(self, o):
        return self if o == 0 else Vec(self.a + o.a)

    def __neg__(self):
        return Vec(-self.a)

    def __mul__(self, s):
        return Vec(self.a * s)

    __rmul__ = __mul__

    def __len__(self):
        return len(self.a)

    def __getitem__(self, i):
        return self.a[i]


def dunder_vector_sum(x):
    vs = [Vec(x[:3]), -Vec(x[3:]), 2.0 * Vec(x[::2])]
    tot = sum(vs)
    return sum(tot[i] ** 2 for i in range(len(tot))) + tot[-1]


# ================================================================ comprehensions, sorted / min / max with key
def dict_comp_filter_private(x):
    params = {"w": x[:2], "_cache": x[2:4] * 100.0, "b": x[4:]}
    public = {k: v for k, v in params.items() if not k.startswith("_")}
    return sum(np.sum(v ** 2) for v in public.values())


def list_comp_data_condition(x):
    picked = [xi * d for xi, d in zip(x, DATA6) if d > 0]
    return sum(p ** 2 for p in picked)


def nested_comp_pairs(x):
    n = len(x)
    terms = [x[i] * x[j] for i in range(n) for j in range(i) if (i + j) % 2 == 1]
    return sum(terms)


def sorted_indices_by_data(x):
    order = sorted(range(len(x)), key=lambda i: DATA6[i])
    w = np.arange(1.0, len(x) + 1)
    return np.sum(w * x[order] ** 2)


def min_row_by_norm(x):
    rows = x.reshape(3, 2) * np.array([[1.0], [3.0], [0.2]])
    best = min(rows, key=lambda r: np.sum(r ** 2))
    return np.sum(np.exp(best))


def max_dict_item_by_value(x):
    scores = {f"s{i}": x[i] * DATA6[i] for i in range(6)}
    name, val = max(scores.items(), key=lambda kv: kv[1])
    return val ** 2 + len(name)


def sorted_tuples_itemgetter(x):
    pairs = [(float(d), x[i]) for i, d in enumerate(DATA6)]
    pairs.sort(key=operator.itemgetter(0), reverse=True)
    return sum((k + 1) * v ** 2 for k, (_, v) in enumerate(pairs[:3]))


def sorted_by_value_itself(x):
    vals = sorted(x * np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0]))
    return sum((i + 1) * v for i, v in enumerate(vals))


def leaky_comp(x):
    return sum([a if a > 0 else 0.1 * a for a in x * 2.0]) + sum(a * a for a in x)


def set_comp_keys(x):
    keys = {i % 4 for i in range(10)}
    return sum(x[k] ** 3 for k in sorted(keys))


def walrus_comp(x):
    vals = [y for xi in x if (y := xi * xi) > 0.05]
    return sum(vals) + len(vals) * 0.0


# ================================================================ rows and columns of 2-D arrays written while iterated
def enumerate_rows_scale(x):
    A = np.outer(x[:3], x[3:]) + 0.5
    for i, row in enumerate(A):
        row *= x[i] + 1.0
    return np.sum(A ** 2)


def zip_out_rows(x):
    X = x.reshape(3, 2)
    out = np.empty_like(X)
    for r_out, r_in in zip(out, X):
        r_out[:] = np.tanh(r_in) * 2.0
    return np.sum(out * X)


def center_rows_inplace(x):
    A = x.reshape(2, 3).copy()
    for row in A:
        row -= row.mean()
    return np.sum(A ** 3) + np.sum(A * DATA6.reshape(2, 3))


def zip_overlapping_rows(x):
    A = x.reshape(3, 2)
    total = 0.0
    for a, b in zip(A, A[1:]):
        total += np.dot(a, b)
    return total


def enumerate_zip_write_self(x):
    X = x.reshape(3, 2).copy()
    W = np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.2]])
    for i, (r, w) in enumerate(zip(X, W)):
        X[i] = r * w + np.sin(r)
    return np.sum(X ** 2)


def normalise_columns_T(x):
    A = x.reshape(2, 3).copy() + 1.0
    for col in A.T:
        col /= np.linalg.norm(col)
    return np.sum(A * DATA6.reshape(2, 3))


def rows_running_sum(x):
    A = x.reshape(3, 2).copy()
    for i in range(1, len(A)):
        A[i] += A[i - 1]
    return np.sum(A ** 2)


# ================================================================ ndarray methods
def methods_cumsum_clip(x):
    c = x.cumsum()
    p = (1.0 + 0.3 * x).cumprod()
    return np.sum(c.clip(-0.5, 1.5) ** 2) + p[-1]


def methods_take_repeat(x):
    A = x.reshape(2, 3)
    t = A.take([2, 0], axis=1)
    r = x[:3].repeat(2)
    return np.sum(t ** 2) + np.dot(r, x)


def method_put(x):
    a = x.copy()
    a.put([0, 3], x[[1, 2]] * 2.0)
    return np.sum(a ** 2 * DATA6)


def ravel_view_write(x):
    A = x.reshape(2, 3).copy()
    r = A.ravel()
    r[::2] = 0.5 * r[1::2].sum()
    return np.sum(A ** 2)


def methods_stats(x):
    A = x.reshape(2, 3)
    return x.std(ddof=1) + A.var(axis=0).sum() + x.prod() + A.max(axis=0).sum() + A.mean(axis=1, keepdims=True).sum()


def method_sort_copy(x):
    a = x * DATA6
    b = a.copy()
    b.sort()
    idx = a.argsort()
    return np.sum(b * np.arange(6.0)) + np.sum(x[idx[:2]])


def methods_diag_trace(x):
    A = np.outer(x[:3], x[3:]) + np.eye(3)
    return A.trace() + np.sum(A.diagonal() ** 2) + A.dot(x[:3]).sum()


def method_argmax_index(x):
    A = (x * DATA6).reshape(2, 3)
    i = A.argmax(axis=1)
    return np.sum(A[np.arange(2), i] ** 2) + A.min()


def methods_swapaxes_T(x):
    A = x.reshape(1, 2, 3)
    B = A.swapaxes(1, 2)
    return np.sum(B[0] @ A[0]) + np.sum(A.T ** 3)


def astype_float32_roundtrip(x):
    y = (x * 2.0).astype(np.float64)
    return np.sum(y.astype(float) ** 2)


# ================================================================ views
def view_shift_iadd(x):
    a = x.copy()
    a[1:] += a[:-1]
    return np.sum(a ** 2)


def view_shift_iadd_back(x):
    a = x.copy()
    a[:-1] += a[1:]
    return np.sum(a ** 2 * DATA6)


def transpose_view_write(x):
    a = x.reshape(2, 3).copy()
    b = a.T
    b[0] *= 2.0
    b[2] += b[1]
    return np.sum(a ** 2)


def reshape_view_strided_write(x):
    a = x.reshape(2, 3).copy()
    r = a.reshape(-1)
    r[::2] = 0.5 * r[1::2].mean() + r[::2]
    return np.sum(a * DATA6.reshape(2, 3)) + np.sum(r ** 2)


def strided_view_iadd(x):
    a = x.copy()
    v = a[::2]
    v += x[1::2] ** 2
    return np.sum(a ** 3)


def shift_rows_2d(x):
    a = x.reshape(3, 2).copy()
    a[1:, :] = a[:-1, :] * 0.5 + a[1:, :]
    return np.sum(a ** 2)


def flat_diagonal_write(x):
    A = np.outer(x[:3], x[3:])
    A.flat[::4] = x[:3] ** 2
    return np.sum(A ** 2)


def diag_indices_iadd(x):
    A = np.outer(x[:3], x[3:])
    A[np.diag_indices(3)] += x[3:]
    return np.sum(np.sin(A))


def nested_view_of_view(x):
    a = x.copy()
    v = a[1:]
    w = v[::2]
    w *= 3.0
    return np.sum(a ** 2)


def view_then_rebind(x):
    a = x.copy()
    v = a[:3]
    a = a * 2.0
    v += 1.0
    return np.sum(a ** 2) + np.sum(v ** 2)


# ================================================================ aliasing
def _axpy_into(y, xx, alpha):
    y += alpha * xx
    return np.sum(y * xx)


def same_array_twice_write(x):
    a = x.copy()
    s = _axpy_into(a, a, 0.5)
    return s + np.sum(a)


class Holder:
    def __init__(self, arr):
        self.a = arr
        self.b = self.a

    def bump(self, v):
        self.a += v


def attribute_alias_bump(x):
    h = Holder(x.copy())
    h.bump(x ** 2)
    return np.sum(h.b * DATA6)


def list_same_array_twice(x):
    a = x.copy()
    items = [a, a]
    items[0] *= 2.0
    items[1] += 1.0
    return np.sum(items[0] ** 2) + np.sum(a)


def dict_values_alias(x):
    arr = x.copy()
    d = {}
    d["w"] = d["v"] = arr
    d["w"] *= 2.0
    return np.sum(d["v"] ** 2)


def chained_assign_alias(x):
    a = b = np.zeros(6)
    a += x
    b *= x
    return np.sum(a) + np.sum(b)


def swap_in_loop(x):
    a = x[:3].copy()
    b = x[3:].copy()
    for _ in range(3):
        a, b = b, a
        a += 0.5 * b
    return np.sum(a * np.array([1.0, 2.0, 3.0])) + np.sum(b ** 2)


# ================================================================ recursion
def _mat_power(A, n):
    if n == 0:
        return np.eye(A.shape[0])
    if n % 2 == 0:
        half = _mat_power(A, n // 2)
        return half @ half
    return A @ _mat_power(A, n - 1)


def recursive_matpow(x):
    A = x[:4].reshape(2, 2) * 0.5
    return np.sum(_mat_power(A, 5))


def _tree_sum(node):
    if isinstance(node, list):
        return sum(_tree_sum(c) for c in node)
    return np.sum(node ** 2)


def recursive_tree_lists(x):
    tree = [x[:2], [x[2:3], [x[3:5], x[5:]]], x[::3]]
    return _tree_sum(tree)


def _is_even_sum(v, n):
    return v if n == 0 else _is_odd_sum(v * 0.9 + 0.1, n - 1)


def _is_odd_sum(v, n):
    return -v if n == 0 else _is_even_sum(np.sin(v), n - 1)


def mutual_recursion(x):
    return np.sum(_is_even_sum(x, 4)) + np.sum(_is_odd_sum(x, 3))


class Node:
    def __init__(self, val, child=None):
        self.val = val
        self.child = child

    def depth_sum(self, w):
        s = w * self.val
        if self.child is not None:
            s = s + self.child.depth_sum(w * 0.5)
        return s


def recursive_method_chain(x):
    n = None
    for xi in x:
        n = Node(xi ** 2, n)
    return n.depth_sum(1.0)


# ================================================================ while / for with break, continue, else
def while_else_no_break(x):
    s = 0.0
    i = 0
    while i < len(x):
        if x[i] > 5.0:
            break
        s += x[i] ** 2
        i += 1
    else:
        s = s * 2.0
    return s


def while_else_break(x):
    s = 0.0
    i = 0
    while i < len(x):
        s += np.sin(x[i])
        if i == 3:
            break
        i += 1
    else:
        s = s * 100.0
    return s


def while_continue_break_count(x):
    s = 0.0
    k = 0
    n = 0
    while True:
        k += 1
        if k % 2 == 0:
            continue
        s += x[k % 6] * k
        n += 1
        if n >= 4:
            break
    return s ** 2


def for_else_search(x):
    for i, xi in enumerate(x):
        if DATA6[i] > 10.0:
            found = xi
            break
    else:
        found = np.sum(x * DATA6)
    return found ** 2


def nested_while_break(x):
    tot = 0.0
    i = 0
    while i < 3:
        j = 0
        while True:
            tot += x[i] * x[j + 3]
            j += 1
            if j > i:
                break
        i += 1
    return tot


def newton_while_tol(x):
    out = []
    for a in x[:3] ** 2 + 1.0:
        y = a
        it = 0
        while abs(y * y - a) > 1e-12 and it < 50:
            y = 0.5 * (y + a / y)
            it += 1
        out.append(y)
    return sum(out)


# ================================================================ try / except on the taken path
def try_keyerror_default(x):
    cfg = {"alpha": 0.5}
    try:
        beta = cfg["beta"]
    except KeyError:
        beta = x[0] ** 2
    return beta * np.sum(x) + cfg["alpha"]


def try_cholesky_fallback(x):
    A = np.outer(x[:3], x[:3])  # rank one: not positive definite
    try:
        L = np.linalg.cholesky(A)
        return np.sum(L)
    except np.linalg.LinAlgError:
        return np.sum(np.linalg.eigvalsh(A + np.eye(3))) + np.sum(x[3:] ** 2)


def try_else_finally(x):
    log = []
    try:
        v = x[0] * x[1]
    except ZeroDivisionError:
        v = 0.0
    else:
        v = v + np.sum(x ** 2)
    finally:
        log.append("done")
    return v * len(log)


def try_index_error_loop(x):
    s = 0.0
    for i in range(8):
        try:
            s += x[i] ** 2
        except IndexError:
            s += 0.1 * s
    return s


# ================================================================ configs, globals, closures over lists
def string_config(x):
    h = x.reshape(2, 3) @ W_GLOBAL.T
    if CONFIG["activation"] == "tanh":
        h = np.tanh(h)
    elif CONFIG["activation"] == "relu":
        h = np.maximum(h, 0.0)
    if CONFIG["use_bias"]:
        h = h + 0.1
    for _ in range(CONFIG["depth"]):
        h = h * CONFIG["scale"]
    return np.sum(h ** 2)


def config_arg_string(x, mode):
    if mode == "l2":
        return np.sum(x ** 2)
    elif mode == "l1smooth":
        return np.sum(np.sqrt(x ** 2 + 0.01))
    return 0.0


def global_dict_read(x):
    s = 0.0
    for _ in range(COUNTS["steps"]):
        s = s + np.sum(W_GLOBAL @ x[:3]) * s + np.sum(x)
    return s


def closure_list_history(x):
    hist = []

    def push(v):
        hist.append(v)
        return len(hist)

    for xi in x:
        push(xi * xi)
    n = push(np.sum(x))
    return sum(hist) / n


def closure_list_mutated_after(x):
    scale = [1.0]

    def f(v):
        return scale[0] * np.sum(v ** 2)

    a = f(x)
    scale[0] = x[0]
    return a + f(x)


def lambda_default_loop_var(x):
    fns = [lambda v, k=k: v[k] ** (k + 1) for k in range(4)]
    return sum(fn(x) for fn in fns)


def defaultdict_accumulate(x):
    acc = collections.defaultdict(float)
    for i, xi in enumerate(x):
        acc[i % 3] += xi ** 2
    return acc[0] * acc[1] + acc[2]


def reduce_np_add(x):
    parts = [x[:2] * 1.0, x[2:4] ** 2, np.sin(x[4:])]
    return np.sum(functools.reduce(np.add, parts) ** 2)


def map_operator_mul(x):
    return sum(map(operator.mul, x, DATA6)) ** 2


# ================================================================ scalars: NumPy vs Python, int / bool, complex
def numpy_scalar_mix(x):
    a = np.float64(x[0]) * 2
    b = float(x[1])
    c = math.sin(a) + np.cos(b)
    d = x[2].item() ** 2
    return c * d + np.float64(3) * x[3]


def int_bool_arith(x):
    flag = x[0] > 0
    return True * x[1] + flag * x[2] ** 2 + (3 // 2) * x[3] + int(True) * x[4] + (x[5] > 10) * 100.0


def chained_compare(x):
    s = 0.0
    for xi in x:
        if -0.5 < xi < 0.6:
            s += xi ** 3
        else:
            s += 2.0 * xi
    return s


def builtin_min_max_floats(x):
    s = 0.0
    for xi in x:
        s += max(xi, 0.0) + min(1.0, xi * xi)
    return s * max(x[0], x[1])


def complex_abs_real_out(x):
    z = x[0] + 1j * x[1]
    c = x[2] - 0.5j
    w = z * z + c
    return float(np.abs(w) ** 2 + np.real(np.exp(z)))


def complex_array_phase(x):
    z = np.exp(1j * x)
    return np.sum((z * z.conj()).real) + np.sum(np.angle(z * (1.0 + 0.2j))) + np.sum(z.imag ** 2)


def complex_polynomial_roots_real(x):
    z = x[:3] + 1j * x[3:]
    p = z ** 3 - 2.0 * z + 1.0
    return np.sum(p.real ** 2 + p.imag ** 2)


def complex_mul_loop(x):
    acc = 1.0 + 0.0j
    for a, b in zip(x[:3], x[3:]):
        acc = acc * complex(a, b)
    return acc.real + 2.0 * acc.imag


# ================================================================ early returns
def early_return_in_loop(x):
    s = 0.0
    for i, xi in enumerate(x):
        s += xi ** 2
        if i == 3:
            return s * 2.0
    return s


def early_return_data(x):
    acc = 0.0
    for i in range(len(x)):
        if DATA6[i] < -1.0:
            return acc + x[i]
        acc = acc * 0.5 + np.exp(x[i])
    return acc


def early_return_nested_helper(x):
    def first_big(v):
        for vi in v:
            if vi > 0.8:
                return vi * vi
        return 0.0
    return first_big(x) + first_big(x[::-1] * 0.5)


# ================================================================ misc everyday
def mask_from_self_inplace(x):
    a = x.copy()
    a[a > 0.4] *= 2.0
    return np.sum(a ** 2)


def concatenate_write_result(x):
    y = np.concatenate([x[:3], x[3:] * 2.0])
    y[::2] += 1.0
    return np.sum(y ** 2) + np.sum(x)


def dict_list_keys_loop(x):
    d = {f"k{i}": x[i] for i in range(6)}
    for k in list(d):
        if k in ("k1", "k4"):
            del d[k]
        else:
            d[k] = d[k] * 2.0
    return sum(v ** 2 for v in d.values())


def sum_rows_builtin(x):
    A = x.reshape(3, 2)
    return np.sum(sum(A) ** 2) + sum(sum(A))


def divmod_int_mix(x):
    q, r = divmod(7, 3)
    return q * x[0] + r * x[1] ** 2 + np.sum(x[q:r + 3])


def staticmethod_key_sorted(x):
    class Ranker:
        @staticmethod
        def key(i):
            return -DATA6[i]

    order = sorted(range(6), key=Ranker.key)
    return sum(w * x[i] ** 2 for w, i in zip([3.0, 2.0, 1.0], order))


def generator_send_like(x):
    def running():
        total = 0.0
        for xi in x:
            total = total * 0.5 + xi
            yield total
    return sum(v ** 2 for v in running())


def zip_strict_lengths(x):
    return sum(a * b for a, b in zip(x[:3], x[3:], strict=True))


def np_array_mixed_list_write(x):
    a = np.array([x[0], 2.0, x[1] * x[2], 0.5])
    a[1] = a[0] + a[3]
    a[3] += x[3]
    return np.sum(a ** 2)


def match_statement(x, kind):
    match kind:
        case "quad":
            return np.sum(x ** 2)
        case "cos":
            return np.sum(np.cos(x))
        case _:
            return 0.0


def enumerate_A_T_write(x):
    A = x.reshape(3, 2).copy()
    for j, col in enumerate(A.T):
        col *= j + 1.5
        col += np.sum(col)
    return np.sum(A ** 2)


def isinstance_dispatch_numbers(x):
    items = [x[0], x[1:3], 2, x[3] * 1.0, np.float64(0.5)]
    s = 0.0
    for it in items:
        if isinstance(it, np.ndarray):
            s += np.sum(it ** 2)
        elif isinstance(it, int):
            s += it
        else:
            s += it * 3.0
    return s


# ================================================================ vector outputs
def vec_inplace_stencil(x):
    u = x.copy()
    for _ in range(2):
        u[1:-1] = u[1:-1] + 0.25 * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def vec_rows_softmax(x):
    A = x.reshape(2, 3).copy()
    for row in A:
        row -= row.max()
        np.exp(row, out=row)
        row /= row.sum()
    return A.ravel()


def vec_layer_objects(x):
    layers = [Dense(x[:4].reshape(2, 2), x[4:]), Tanh()]
    h = np.array([0.2, -0.5])
    for layer in layers:
        h = layer(h)
    return h


def vec_view_shift(x):
    a = x.copy()
    a[1:] += 0.5 * a[:-1]
    return a


def vec_complex_out_real(x):
    z = x[:3] + 1j * x[3:]
    return np.abs(z) ** 2 + np.real(z ** 2)


def vec_cumsum_clip(x):
    return x.cumsum().clip(-1.0, 1.5) * 2.0


VECTOR = {"vec_inplace_stencil", "vec_rows_softmax", "vec_layer_objects", "vec_view_shift", "vec_complex_out_real",
          "vec_cumsum_clip"}

CASES = [
    ("particles_inplace", X6, ()),
    ("heat_plate_boundary", X6, ()),
    ("pairwise_forces_loop", X6, ()),
    ("dataclass_slice_state", X6, ()),
    ("orbit_history_copies", X4, ()),
    ("lotka_dict_state", X4, ()),
    ("rigid_rotation", X4, ()),
    ("adam_dict_loop", X6, ()),
    ("momentum_list_inplace", X6, ()),
    ("rmsprop_inplace", X6, ()),
    ("nesterov_swap", X6, ()),
    ("optimizer_class_dict", X6, ()),
    ("clipped_gd", X6, ()),
    ("sequential_layers", X6, ()),
    ("residual_super_call", X6, ()),
    ("layers_dict_sorted", X6, ()),
    ("activation_by_name", X6, ()),
    ("conv_layer_loop", X6, ()),
    ("attention_head_inplace", X6, ()),
    ("dataclass_properties", X4, ()),
    ("inheritance_shapes", X6, ()),
    ("super_method_energy", X6, ()),
    ("cached_property_invalidate", X6, ()),
    ("classmethod_compose", X6, ()),
    ("dunder_vector_sum", X6, ()),
    ("dict_comp_filter_private", X6, ()),
    ("list_comp_data_condition", X6, ()),
    ("nested_comp_pairs", X6, ()),
    ("sorted_indices_by_data", X6, ()),
    ("min_row_by_norm", X6, ()),
    ("max_dict_item_by_value", X6, ()),
    ("sorted_tuples_itemgetter", X6, ()),
    ("sorted_by_value_itself", X6, ()),
    ("leaky_comp", X6, ()),
    ("set_comp_keys", X6, ()),
    ("walrus_comp", X6, ()),
    ("enumerate_rows_scale", X6, ()),
    ("zip_out_rows", X6, ()),
    ("center_rows_inplace", X6, ()),
    ("zip_overlapping_rows", X6, ()),
    ("enumerate_zip_write_self", X6, ()),
    ("normalise_columns_T", X6, ()),
    ("rows_running_sum", X6, ()),
    ("methods_cumsum_clip", X6, ()),
    ("methods_take_repeat", X6, ()),
    ("method_put", X6, ()),
    ("ravel_view_write", X6, ()),
    ("methods_stats", X6, ()),
    ("method_sort_copy", X6, ()),
    ("methods_diag_trace", X6, ()),
    ("method_argmax_index", X6, ()),
    ("methods_swapaxes_T", X6, ()),
    ("astype_float32_roundtrip", X6, ()),
    ("view_shift_iadd", X6, ()),
    ("view_shift_iadd_back", X6, ()),
    ("transpose_view_write", X6, ()),
    ("reshape_view_strided_write", X6, ()),
    ("strided_view_iadd", X6, ()),
    ("shift_rows_2d", X6, ()),
    ("flat_diagonal_write", X6, ()),
    ("diag_indices_iadd", X6, ()),
    ("nested_view_of_view", X6, ()),
    ("view_then_rebind", X6, ()),
    ("same_array_twice_write", X6, ()),
    ("attribute_alias_bump", X6, ()),
    ("list_same_array_twice", X6, ()),
    ("dict_values_alias", X6, ()),
    ("chained_assign_alias", X6, ()),
    ("swap_in_loop", X6, ()),
    ("recursive_matpow", X6, ()),
    ("recursive_tree_lists", X6, ()),
    ("mutual_recursion", X6, ()),
    ("recursive_method_chain", X6, ()),
    ("while_else_no_break", X6, ()),
    ("while_else_break", X6, ()),
    ("while_continue_break_count", X6, ()),
    ("for_else_search", X6, ()),
    ("nested_while_break", X6, ()),
    ("newton_while_tol", X6, ()),
    ("try_keyerror_default", X6, ()),
    ("try_cholesky_fallback", X6, ()),
    ("try_else_finally", X6, ()),
    ("try_index_error_loop", X6, ()),
    ("string_config", X6, ()),
    ("config_arg_string", X6, ("l1smooth",)),
    ("global_dict_read", X6, ()),
    ("closure_list_history", X6, ()),
    ("closure_list_mutated_after", X6, ()),
    ("lambda_default_loop_var", X6, ()),
    ("defaultdict_accumulate", X6, ()),
    ("reduce_np_add", X6, ()),
    ("map_operator_mul", X6, ()),
    ("numpy_scalar_mix", X6, ()),
    ("int_bool_arith", X6, ()),
    ("chained_compare", X6, ()),
    ("builtin_min_max_floats", X6, ()),
    ("complex_abs_real_out", X6, ()),
    ("complex_array_phase", X6, ()),
    ("complex_polynomial_roots_real", X6, ()),
    ("complex_mul_loop", X6, ()),
    ("early_return_in_loop", X6, ()),
    ("early_return_data", X6, ()),
    ("early_return_nested_helper", X6, ()),
    ("mask_from_self_inplace", X6, ()),
    ("concatenate_write_result", X6, ()),
    ("dict_list_keys_loop", X6, ()),
    ("sum_rows_builtin", X6, ()),
    ("divmod_int_mix", X6, ()),
    ("staticmethod_key_sorted", X6, ()),
    ("generator_send_like", X6, ()),
    ("zip_strict_lengths", X6, ()),
    ("np_array_mixed_list_write", X6, ()),
    ("match_statement", X6, ("cos",)),
    ("enumerate_A_T_write", X6, ()),
    ("isinstance_dispatch_numbers", X6, ()),
    ("vec_inplace_stencil", X6, ()),
    ("vec_rows_softmax", X6, ()),
    ("vec_layer_objects", X6, ()),
    ("vec_view_shift", X6, ()),
    ("vec_complex_out_real", X6, ()),
    ("vec_cumsum_clip", X6, ()),
]
