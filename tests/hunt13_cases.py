"""Probes of hunt13: everyday scientific / ML Python in styles hunts 10-12 did not cover -- simulations whose
state lives in objects updated by methods, layer objects with __call__, optimiser steps inside the loss, Kalman
filters, dynamic programming (Viterbi / forward algorithm), stencil and finite-element assembly loops, namedtuples
with methods, recursion, data-dependent while loops, in-place writes through strided views and np.add.at, sorted /
reversed / zip / enumerate over arrays, np.linalg (solve, inv, det, slogdet, cholesky, qr, eigh, svd, norm with
ord / axis), masks, fancy indexing with repeats, complex numbers, float32 constants, 0-d arrays, scipy.special and
scipy.stats, closures, globals, default arguments, *args / **kwargs, functools / operator / math.

Each probe is listed at the bottom in CASES as (name, x, extra): f(x, *extra) with x a float64 vector (the
differentiated argument) and extra non-float constants.  Outputs are floats, except the probes named in VECTOR
(1-D arrays).  Every probe copies x before writing to it.  Kinks (max, abs, sort, argmax) sit away from the points."""
from __future__ import annotations

import abc
import collections
import copy
import dataclasses
import functools
import itertools
import math
import operator
from dataclasses import InitVar, field
from typing import NamedTuple

import numpy as np
import scipy.interpolate as si
import scipy.signal as ss
import scipy.spatial.distance as sd
import scipy.special as sc
import scipy.stats as st

X6 = np.array([0.3, -0.7, 1.1, 0.5, -0.2, 0.9])
X4 = np.array([0.4, -0.3, 0.8, 0.6])
GRAVITY = 9.81
STIFF = np.array([1.0, 2.0, 1.5])
CONFIG = {"lr": 0.1, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "steps": 4}


# ================================================================ physics with state held in objects
class Body:
    def __init__(self, pos, vel, mass):
        self.pos = pos.copy()
        self.vel = vel.copy()
        self.mass = mass

    def kinetic(self):
        return 0.5 * self.mass * np.dot(self.vel, self.vel)

    def kick(self, force, dt):
        self.vel += force / self.mass * dt

    def drift(self, dt):
        self.pos += self.vel * dt


def phys_body_methods(x):
    b = Body(x[:3], x[3:], 2.0)
    for _ in range(3):
        b.kick(-GRAVITY * 0.1 * b.pos, 0.05)
        b.drift(0.05)
    return b.kinetic() + np.sum(b.pos ** 2)


class SpringSystem:
    def __init__(self, q, k=STIFF):
        self.q = np.array(q, dtype=float)
        self.p = np.zeros_like(self.q)
        self.k = k

    def force(self):
        f = -self.k * self.q
        f[1:] += 0.3 * (self.q[:-1] - self.q[1:])
        f[:-1] += 0.3 * (self.q[1:] - self.q[:-1])
        return f

    def step(self, dt):
        self.p += 0.5 * dt * self.force()
        self.q += dt * self.p
        self.p += 0.5 * dt * self.force()
        return self

    def energy(self):
        return 0.5 * np.sum(self.p ** 2) + 0.5 * np.sum(self.k * self.q ** 2)


def phys_spring_chain_chained(x):
    s = SpringSystem(x[:3] * x[3:])
    s.step(0.1).step(0.1).step(0.1)
    return s.energy()


class Particles:
    """Positions as rows; a method writes the rows through views of self.pos."""

    def __init__(self, pos):
        self.pos = pos

    def reflect(self, wall):
        col = self.pos[:, 0]
        col *= np.where(col > wall, -1.0, 1.0)

    def centre(self):
        self.pos -= self.pos.mean(axis=0)


def phys_particles_views(x):
    p = Particles(x.reshape(3, 2).copy())
    p.reflect(1.0)
    p.centre()
    p.pos[::2] *= 1.5
    return np.sum(p.pos ** 3)


def phys_heat_roll(x):
    u = x.copy()
    for _ in range(4):
        u = u + 0.2 * (np.roll(u, 1) - 2 * u + np.roll(u, -1))
    return np.sum(u ** 2 * np.arange(1, 7))


def phys_wave_slices(x):
    u_prev = x.copy()
    u = x.copy()
    u[1:-1] += 0.1 * (x[2:] - 2 * x[1:-1] + x[:-2])
    for _ in range(3):
        u_next = np.empty_like(u)
        u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + 0.2 * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_next[0] = 0.0
        u_next[-1] = u[-1]
        u_prev, u = u, u_next
    return np.sum(u * u) + u[-1]


def phys_fem_assembly(x):
    """1-D linear elements: stiffness from element lengths, solve, compliance."""
    nodes = np.cumsum(np.exp(x[:4]))
    n = nodes.size
    K = np.zeros((n, n))
    for e in range(n - 1):
        h = nodes[e + 1] - nodes[e]
        ke = np.array([[1.0, -1.0], [-1.0, 1.0]]) / h
        idx = [e, e + 1]
        K[np.ix_(idx, idx)] += ke
    K[0, 0] += 1e3
    load = np.ones(n) * x[4] ** 2 + 0.1
    u = np.linalg.solve(K, load)
    return load @ u


def phys_fem_add_at(x):
    nodes = np.cumsum(np.exp(x[:4]))
    h = np.diff(nodes)
    conn = np.array([[0, 1], [1, 2], [2, 3]])
    diag = np.zeros(4)
    np.add.at(diag, conn.ravel(), np.repeat(1.0 / h, 2))
    return np.sum(np.log(diag + x[4] ** 2))


# ================================================================ layers with __call__, optimisers in the loss
class Dense:
    def __init__(self, W, b, act=np.tanh):
        self.W, self.b, self.act = W, b, act

    def __call__(self, h):
        return self.act(h @ self.W + self.b)


class Sequential:
    def __init__(self, *layers):
        self.layers = list(layers)

    def __call__(self, h):
        for layer in self.layers:
            h = layer(h)
        return h


def nn_sequential_call(x):
    W1 = x[:4].reshape(2, 2)
    net = Sequential(Dense(W1, x[4:6]), Dense(W1.T, -x[4:6], act=lambda z: z * sc.expit(z)),
                     Dense(np.ones((2, 1)), np.zeros(1), act=lambda z: z))
    data = np.array([[0.5, -1.0], [1.5, 0.2], [-0.3, 0.8]])
    return float(np.sum(net(data) ** 2))


class Residual:
    def __init__(self, inner):
        self.inner = inner

    def __call__(self, h):
        return h + self.inner(h)


def nn_residual_stack(x):
    W = x[:4].reshape(2, 2) * 0.5
    blocks = [Residual(Dense(W, x[4:6])) for _ in range(3)]
    h = np.array([[1.0, -0.5]])
    for blk in blocks:
        h = blk(h)
    return np.sum(h * h)


def nn_adam_inner(x):
    """Adam on a quadratic inside the loss; the outer gradient flows through every step."""
    w = x[:3].copy()
    m = np.zeros(3)
    v = np.zeros(3)
    target = x[3:]
    for t in range(1, CONFIG["steps"] + 1):
        g = 2 * (w - target)
        m = CONFIG["beta1"] * m + (1 - CONFIG["beta1"]) * g
        v = CONFIG["beta2"] * v + (1 - CONFIG["beta2"]) * g * g
        mhat = m / (1 - CONFIG["beta1"] ** t)
        vhat = v / (1 - CONFIG["beta2"] ** t)
        w -= CONFIG["lr"] * mhat / (np.sqrt(vhat) + CONFIG["eps"])
    return np.sum((w - 0.5) ** 2)


class Momentum:
    def __init__(self, lr=0.1, mu=0.8):
        self.lr, self.mu, self.buf = lr, mu, None

    def step(self, w, g):
        if self.buf is None:
            self.buf = g.copy()
        else:
            self.buf *= self.mu
            self.buf += g
        w -= self.lr * self.buf


def nn_momentum_object(x):
    w = x[:3].copy()
    opt = Momentum()
    for _ in range(4):
        opt.step(w, np.sin(w) * x[3:])
    return np.sum(w ** 2)


def nn_softmax_xent_logsumexp(x):
    logits = x.reshape(2, 3)
    labels = np.array([2, 0])
    lse = sc.logsumexp(logits, axis=1)
    return float(np.mean(lse - logits[np.arange(2), labels]))


def nn_batchnorm_train(x):
    X = x.reshape(3, 2)
    mu = X.mean(axis=0, keepdims=True)
    var = X.var(axis=0, keepdims=True)
    Xh = (X - mu) / np.sqrt(var + 1e-5)
    return np.sum(Xh[:, 0] * np.array([1.0, 2.0, 3.0])) + np.sum(Xh[..., 1] ** 3)


def nn_conv1d_loop(x):
    kernel = np.array([0.25, 0.5, -0.25])
    out = [np.dot(x[i:i + 3], kernel) for i in range(len(x) - 2)]
    return sum(o * o for o in out)


def nn_attention_einsum(x):
    Q = x.reshape(3, 2)
    K = Q[::-1] * 0.7
    s = np.einsum("id,jd->ij", Q, K) / np.sqrt(2.0)
    s = s - s.max(axis=-1, keepdims=True)
    a = np.exp(s)
    a /= a.sum(-1, keepdims=True)
    return np.einsum("ij,jd->", a, Q)


# ================================================================ filters and dynamic programming
def kf_kalman_1d(x):
    """Scalar Kalman filter over the observations x; log-likelihood."""
    m, P = 0.0, 1.0
    q, r = 0.1, 0.5
    ll = 0.0
    for y in x:
        P = P + q
        S = P + r
        ll += -0.5 * (math.log(2 * math.pi * S) + (y - m) ** 2 / S)
        K = P / S
        m = m + K * (y - m)
        P = (1 - K) * P
    return ll


def kf_kalman_matrix(x):
    F = np.array([[1.0, 0.1], [0.0, 1.0]])
    H = np.array([[1.0, 0.0]])
    Q = 0.01 * np.eye(2)
    R = np.array([[0.2]])
    m = np.zeros(2)
    P = np.eye(2)
    ll = 0.0
    for y in x:
        m = F @ m
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + R
        K = P @ H.T @ np.linalg.inv(S)
        innov = np.array([y]) - H @ m
        ll -= 0.5 * (innov @ np.linalg.solve(S, innov) + np.linalg.slogdet(S)[1])
        m = m + K @ innov
        P = (np.eye(2) - K @ H) @ P
    return float(ll)


def dp_forward_algorithm(x):
    log_emit = x.reshape(3, 2)
    log_trans = np.log(np.array([[0.7, 0.3], [0.4, 0.6]]))
    alpha = np.log(np.array([0.5, 0.5])) + log_emit[0]
    for t in range(1, 3):
        alpha = sc.logsumexp(alpha[:, None] + log_trans, axis=0) + log_emit[t]
    return sc.logsumexp(alpha)


def dp_viterbi_max(x):
    log_emit = x.reshape(3, 2)
    log_trans = np.log(np.array([[0.7, 0.3], [0.4, 0.6]]))
    delta = log_emit[0].copy()
    for t in range(1, 3):
        scores = delta[:, None] + log_trans
        delta = scores.max(axis=0) + log_emit[t]
    return delta.max()


def dp_edit_soft(x):
    """Soft-min DTW between two short series; a table filled cell by cell."""
    a, b = x[:3], x[3:]
    D = np.full((4, 4), np.inf)
    D[0, 0] = 0.0
    for i in range(1, 4):
        for j in range(1, 4):
            c = (a[i - 1] - b[j - 1]) ** 2
            prev = np.array([D[i - 1, j], D[i, j - 1], D[i - 1, j - 1]])
            D[i, j] = c - 0.5 * sc.logsumexp(-prev / 0.5)
    return D[3, 3]


def dp_python_table(x):
    """Same recurrence with a list-of-lists table and builtin min."""
    a, b = list(x[:3]), list(x[3:])
    T = [[0.0] * 4 for _ in range(4)]
    for i in range(4):
        T[i][0] = float(i)
        T[0][i] = float(i)
    for i in range(1, 4):
        for j in range(1, 4):
            T[i][j] = (a[i - 1] - b[j - 1]) ** 2 + min(T[i - 1][j] + 0.3, T[i][j - 1] + 0.3, T[i - 1][j - 1])
    return T[3][3]


# ================================================================ namedtuples, dataclasses, properties, dunders
class Gauss(NamedTuple):
    mu: float
    log_sigma: float

    @property
    def sigma(self):
        return math.exp(self.log_sigma)

    def logpdf(self, y):
        return -0.5 * ((y - self.mu) / self.sigma) ** 2 - self.log_sigma - 0.5 * math.log(2 * math.pi)


def nt_gauss_methods(x):
    g = Gauss(x[0], x[1])
    return sum(g.logpdf(y) for y in x[2:])


def nt_replace_loop(x):
    g = Gauss(x[0], x[1])
    for y in x[2:]:
        g = g._replace(mu=0.5 * (g.mu + y))
    mu, ls = g
    return mu * ls + g.sigma


@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: float = 0.0
    scale: float = 1.0

    @property
    def effective(self):
        return self.w * self.scale

    def predict(self, X):
        return X @ self.effective + self.b


def dc_params_replace(x):
    p = Params(x[:3], b=x[3])
    p2 = dataclasses.replace(p, scale=2.0)
    X = np.array([[1.0, 0.5, -0.2], [0.3, -1.0, 0.8]])
    return np.sum((p2.predict(X) - x[4:]) ** 2)


def dc_astuple_fields(x):
    p = Params(x[:3], x[3], x[4])
    total = 0.0
    for f in dataclasses.fields(p):
        v = getattr(p, f.name)
        total = total + np.sum(np.asarray(v) ** 2)
    return total


class Vec:
    __slots__ = ("a",)

    def __init__(self, a):
        self.a = a

    def __add__(self, o):
        return Vec(self.a + (o.a if isinstance(o, Vec) else o))

    __radd__ = __add__

    def __mul__(self, s):
        return Vec(self.a * s)

    __rmul__ = __mul__

    def __iadd__(self, o):
        self.a = self.a + o.a
        return self

    def __neg__(self):
        return Vec(-self.a)

    def __abs__(self):
        return float(np.sqrt(np.sum(self.a ** 2)))

    def __getitem__(self, i):
        return self.a[i]

    def __len__(self):
        return len(self.a)


def dunder_slots_vec(x):
    u = Vec(x[:3])
    v = Vec(x[3:])
    acc = Vec(np.zeros(3))
    for k in range(3):
        acc += (k + 1) * u + (-v)
    return abs(acc) + acc[0] * len(acc) + sum([u, v]).a[2]


class Stateful:
    count = 0

    def __init__(self, x):
        self.x = x
        self.history = []

    def __call__(self, s):
        Stateful.count += 1
        self.history.append(self.x * s)
        return self

    def total(self):
        return np.sum(np.stack(self.history) ** 2)


def obj_call_chain_history(x):
    return Stateful(x)(1.0)(0.5)(-2.0).total()


class Property:
    def __init__(self, raw):
        self._raw = raw

    @property
    def value(self):
        return np.exp(self._raw)

    @value.setter
    def value(self, v):
        self._raw = np.log(v)


def obj_property_setter(x):
    p = Property(x[:3])
    p.value = p.value * 2.0 + x[3:] ** 2
    return np.sum(p._raw)


# ================================================================ recursion, while loops with data-dependent exit
def _det_rec(A):
    n = A.shape[0]
    if n == 1:
        return A[0, 0]
    total = 0.0
    for j in range(n):
        minor = np.delete(np.delete(A, 0, axis=0), j, axis=1)
        total = total + (-1) ** j * A[0, j] * _det_rec(minor)
    return total


def rec_laplace_det(x):
    A = np.array([[x[0], x[1], 0.3], [x[2], x[3], x[4]], [0.2, x[5], 1.0]])
    return _det_rec(A)


def _bisect_sum(v, lo, hi):
    if hi - lo == 1:
        return v[lo] ** 2
    mid = (lo + hi) // 2
    return _bisect_sum(v, lo, mid) * 0.5 + _bisect_sum(v, mid, hi)


def rec_divide_conquer(x):
    return _bisect_sum(x, 0, len(x))


def while_newton_sqrt_vector(x):
    a = x ** 2 + 1.0
    y = a.copy()
    it = 0
    while np.max(np.abs(y * y - a)) > 1e-12 and it < 50:
        y = 0.5 * (y + a / y)
        it += 1
    return np.sum(y * x)


def while_halving(x):
    s = float(np.sum(x ** 2)) + 3.0
    k = 0
    while s > 1.0:
        s = s / 2.0
        k += 1
    return s * k


def while_gradient_descent(x):
    w = np.zeros(2)
    A = np.array([[2.0, 0.3], [0.3, 1.0]])
    b = x[:2]
    g = A @ w - b
    while np.linalg.norm(g) > 1e-3:
        w = w - 0.3 * g
        g = A @ w - b
    return float(w @ x[2:4])


# ================================================================ in-place through views, np.add.at, out=
def view_strided_imul(x):
    a = x.copy()
    a[::2] *= a[1::2]
    a[1::2] += np.sin(a[::2])
    return np.sum(a ** 2)


def view_newaxis_broadcast_write(x):
    a = x.reshape(2, 3).copy()
    a[..., None][:, :, 0] += a[:, :1]
    return np.sum(a * np.arange(6).reshape(2, 3))


def view_reverse_iadd(x):
    a = x.copy()
    r = a[::-1]
    r[:3] += a[:3]
    return np.sum(a ** 3)


def addat_repeats(x):
    out = np.zeros(3)
    idx = np.array([0, 2, 0, 1, 2, 2])
    np.add.at(out, idx, x * x)
    return np.sum(out ** 2)


def multiply_at(x):
    out = np.ones(3)
    np.multiply.at(out, np.array([0, 1, 0, 2, 1, 0]), x + 2.0)
    return np.sum(out)


def out_ufunc_chain(x):
    buf = np.empty(6)
    np.multiply(x, x, out=buf)
    np.add(buf, 1.0, out=buf)
    np.log(buf, out=buf)
    return np.sum(buf)


def fancy_repeat_gather(x):
    idx = np.array([0, 0, 3, 5, 3, 1])
    return np.sum(x[idx] * x)


def fancy_repeat_write(x):
    a = np.zeros(6)
    a[[1, 3, 1]] = x[:3]
    return np.sum(a * x)


def bool_mask_setitem(x):
    a = x.copy()
    m = a > 0.4
    a[m] = a[m] ** 2
    a[~m] *= -1.0
    return np.sum(a * np.arange(1, 7))


def swap_tuple_unpack(x):
    a, b = x[:3].copy(), x[3:].copy()
    for _ in range(3):
        a, b = b * 0.5, a + b
    a[0], a[1] = a[1], a[0] * 2
    return np.sum(a * b)


def swap_rows_fancy(x):
    A = x.reshape(3, 2).copy()
    A[[0, 2]] = A[[2, 0]]
    return np.sum(A * np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])) + A[0, 0] ** 2


# ================================================================ iteration helpers over arrays
def sorted_key_abs(x):
    vals = sorted(x, key=abs)
    return sum(v * (i + 1) for i, v in enumerate(vals))


def sorted_rows_by_norm(x):
    rows = sorted(x.reshape(3, 2), key=lambda r: float(r @ r), reverse=True)
    return float(rows[0] @ np.array([1.0, 2.0]) + rows[-1][1] ** 2)


def reversed_zip_enumerate(x):
    total = 0.0
    for i, (a, b) in enumerate(zip(reversed(x[:3]), x[3:])):
        total += (i + 1) * a * b
    return total


def list_comp_stack(x):
    rows = [np.array([x[i], x[i] ** 2, 1.0]) for i in range(3)]
    M = np.array(rows)
    return np.linalg.det(M + np.eye(3) * x[3:])


def np_array_of_scalars(x):
    v = np.array([x[0] * x[1], math.sin(x[2]), x[3], 2.0])
    return float(v @ v)


def max_builtin_key(x):
    pairs = [(x[0], x[1]), (x[2], x[3]), (x[4], x[5])]
    best = max(pairs, key=lambda p: p[0] + p[1])
    return best[0] * best[1]


def map_filter_lambda(x):
    sq = list(map(lambda v: v * v, x))
    pos = list(filter(lambda v: v > 0.1, sq))
    return sum(pos) + functools.reduce(operator.mul, sq[:3], 1.0)


# ================================================================ linear algebra
def la_cholesky_logdet(x):
    A = x.reshape(2, 3)
    S = A @ A.T + np.eye(2)
    L = np.linalg.cholesky(S)
    return 2 * np.sum(np.log(np.diag(L))) + np.sum(L)


def la_qr_r_diag(x):
    A = x.reshape(3, 2) + np.array([[2.0, 0.0], [0.0, 2.0], [0.0, 0.0]])
    Q, R = np.linalg.qr(A)
    return np.sum(np.abs(np.diag(R))) + np.sum(Q[:, 0] * np.array([1.0, 2.0, 3.0])) * np.sign(R[0, 0])


def la_eigh_top(x):
    A = x.reshape(2, 3)
    S = A.T @ A + np.diag([0.0, 1.0, 2.5])
    w, V = np.linalg.eigh(S)
    return w[-1] + w[0] ** 2 + V[0, -1] ** 2


def la_svd_nuclear(x):
    A = x.reshape(3, 2)
    s = np.linalg.svd(A, compute_uv=False)
    return np.sum(s) + s[0] ** 2


def la_svd_full(x):
    A = x.reshape(2, 3)
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    return np.sum(s ** 3) + np.sum((U * s) @ Vt * A)


def la_inv_det(x):
    A = x[:4].reshape(2, 2) + 2 * np.eye(2)
    return np.sum(np.linalg.inv(A)) * np.linalg.det(A) + x[4] * x[5]


def la_slogdet_solve(x):
    A = np.outer(x[:3], x[:3]) + np.diag(np.exp(x[3:]))
    sign, logdet = np.linalg.slogdet(A)
    y = np.linalg.solve(A, np.ones(3))
    return sign * logdet + y.sum()


def la_norm_ords(x):
    A = x.reshape(2, 3)
    return (np.linalg.norm(A) + np.linalg.norm(A, ord=1) + np.linalg.norm(A, ord=np.inf)
            + np.linalg.norm(x, ord=3) + np.sum(np.linalg.norm(A, axis=1)) + np.linalg.norm(A, "fro"))


def la_norm_2_matrix(x):
    A = x.reshape(3, 2)
    return np.linalg.norm(A, 2) + np.linalg.norm(A, "nuc")


def la_lstsq(x):
    A = np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]])
    coef = np.linalg.lstsq(A, x[:3], rcond=None)[0]
    return np.sum(coef ** 2) + coef[1] * x[3]


def la_pinv_matrix_power(x):
    A = x.reshape(3, 2)
    P = np.linalg.pinv(A)
    B = np.linalg.matrix_power(A.T @ A, 3)
    return np.sum(P) + np.trace(B) * 0.01


def la_solve_triangular_like(x):
    L = np.tril(np.ones((3, 3))) * 0.5 + np.diag(np.exp(x[:3]))
    y = np.linalg.solve(L, x[3:])
    return y @ y


def la_einsum_batch(x):
    A = x.reshape(2, 3)
    B = np.einsum("bi,bj->bij", A, A)
    return np.einsum("bii->", B) + np.einsum("...i,...i", A, A[::-1]).sum()


def la_tensordot_kron(x):
    A = x[:4].reshape(2, 2)
    K = np.kron(A, np.array([[1.0, 0.5], [0.0, 1.0]]))
    return np.tensordot(K, K, axes=2) + np.trace(np.outer(x[4:], x[4:]))


# ================================================================ masks, clip, where
def mask_where_clip(x):
    y = np.where(x > 0, np.log1p(x * x), np.expm1(x))
    return np.sum(np.clip(y, -0.5, 0.5) * y)


def mask_maximum_minimum(x):
    a = np.maximum(x, 0.0) + np.minimum(x, 0.0) * 0.1
    return np.sum(a ** 2) + np.fmax(x[0], x[1]) * np.fmin(x[2], x[3])


def mask_multiply_bool(x):
    m = (x > 0).astype(float)
    return np.sum(m * x ** 2 + (1 - m) * np.sin(x))


# ================================================================ complex, float32, 0-d, python ints
def cx_phasor_sum(x):
    z = x[:3] * np.exp(1j * x[3:])
    s = np.sum(z)
    return abs(s) ** 2 + np.angle(z[0]) + (z * z.conj()).real.sum()


def cx_transfer_function(x):
    w = np.array([0.5, 1.0, 2.0])
    h = 1.0 / (1j * w * x[0] + x[1] + x[2] * (1j * w) ** 2)
    return np.sum(np.abs(h) ** 2) + np.sum(np.unwrap(np.angle(h))) * 0.1


def cx_complex_builtin(x):
    z = complex(x[0], x[1])
    for _ in range(3):
        z = z * z * 0.5 + complex(x[2], 0.1)
    return z.real + z.imag * x[3] + abs(z)


def f32_constants(x):
    w = np.float32(0.5)
    c = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=np.float32)
    return np.sum(x * c * w) + float(np.float32(2.0)) * x[0] ** 2


def zero_d_arrays(x):
    s = np.array(0.0)
    for v in x:
        s = s + np.array(v) * np.array(2.0)
    t = np.asarray(x[0] * x[1])
    return float(s * t + t[()] + s.item())


def python_ints_mixed(x):
    n = len(x)
    total = 0
    for i in range(n):
        total += i * x[i] + (i // 2) + x[i] ** 2 // 1 * 0 + x[i] ** (i % 3)
    return total / n


# ================================================================ scipy.special / scipy.stats / math
def sp_gammaln_beta(x):
    a = np.exp(x[:3])
    return np.sum(sc.gammaln(a) + sc.digamma(a) * a) + sc.betaln(a[0], a[1]) + np.sum(sc.xlogy(a, a))


def sp_erf_ndtr(x):
    return np.sum(sc.erf(x) + sc.ndtr(x) ** 2 + sc.log_ndtr(x)) + np.sum(sc.erfc(x) * sc.erfcx(x + 2))


def st_norm_logpdf_cdf(x):
    return np.sum(st.norm.logpdf(x, loc=0.2, scale=1.5)) + np.sum(st.norm.cdf(x[:3])) + st.norm(0.0, 2.0).logpdf(x[3])


def st_gamma_t_logpdf(x):
    y = np.exp(x)
    return np.sum(st.gamma.logpdf(y, a=2.0)) + np.sum(st.t.logpdf(x, df=3.0)) + np.sum(st.expon.logpdf(y))


def st_multivariate_normal(x):
    cov = np.array([[1.0, 0.3], [0.3, 2.0]])
    return st.multivariate_normal.logpdf(x[:2], mean=x[2:4], cov=cov) + st.multivariate_normal(x[4:], cov).logpdf(x[:2])


def math_module_mix(x):
    a, b, c = float(x[0]), float(x[1]), float(x[2])
    return (math.exp(a) * math.cos(b) + math.hypot(a, c) + math.atan2(b, c) + math.log(1 + a * a)
            + math.sqrt(c * c + 1) + math.tanh(b) + math.pow(abs(c) + 1, 1.5) + math.fsum([a, b, c]) * x[3])


# ================================================================ closures, globals, defaults, *args / **kwargs
def _make_scheduler(base):
    state = {"t": 0}

    def lr():
        state["t"] += 1
        return base / state["t"]
    return lr


def closure_mutable_state(x):
    lr = _make_scheduler(0.5)
    w = x[:3].copy()
    for _ in range(3):
        w = w - lr() * (w - x[3:])
    return np.sum(w ** 2)


def _penalty(w, *, alpha=0.1, kind="l2"):
    return alpha * (np.sum(w * w) if kind == "l2" else np.sum(np.abs(w)))


def kwonly_defaults(x):
    return _penalty(x) + _penalty(x[:3], alpha=0.5, kind="l1") + _penalty(x, **{"alpha": 2.0})


def _combine(*terms, weights=None, **named):
    weights = weights or [1.0] * len(terms)
    base = sum(w * t for w, t in zip(weights, terms))
    return base + sum(v * v for v in named.values())


def star_args_kwargs(x):
    return _combine(x[0] * x[1], np.sin(x[2]), weights=[2.0, 3.0], extra=x[3], more=x[4] * x[5])


def args_unpack_list(x):
    parts = [x[:2], x[2:4], x[4:]]
    return _combine(*[np.sum(p ** 2) for p in parts], **{"k": x[0]})


def partial_and_reduce(x):
    weighted = functools.partial(np.dot, np.array([1.0, -1.0, 2.0]))
    terms = [weighted(x[:3]), weighted(x[3:]), weighted(x[:3] * x[3:])]
    return functools.reduce(lambda acc, t: acc * 0.5 + t * t, terms, 0.0)


def operator_itemgetter_attr(x):
    P = collections.namedtuple("P", "a b")
    ps = [P(x[0], x[1]), P(x[2], x[3]), P(x[4], x[5])]
    get_a = operator.attrgetter("a")
    first = operator.itemgetter(0, 2)
    return sum(map(get_a, ps)) * operator.mul(*first(x)) + sum(operator.itemgetter(1)(p) ** 2 for p in ps)


def global_config_dict(x):
    lr = CONFIG["lr"]
    w = x.copy()
    for _ in range(CONFIG["steps"]):
        w -= lr * (w ** 3 - x)
    return np.sum(w)


def default_mutable_arg(x, _cache={}):
    _cache.clear()
    for i, v in enumerate(x):
        _cache[f"k{i}"] = v * v
    return sum(_cache[k] for k in sorted(_cache)) + _cache["k2"] * x[0]


def string_keyed_layers(x):
    cfg = {"act": "tanh", "layers": [("dense", 3), ("dense", 2)]}
    acts = {"tanh": np.tanh, "relu": lambda z: np.maximum(z, 0.0)}
    h = x[:3]
    W = x.reshape(2, 3)
    for kind, width in cfg["layers"]:
        if kind == "dense":
            h = acts[cfg["act"]](W[:, :width].T @ W[:, :width] @ h[:width])[:width]
    return np.sum(h ** 2)


# ================================================================ batch 2: more objects, containers, numpy corners
class Shape(NamedTuple):
    w: float
    h: float

    @property
    def area(self):
        return self.w * self.h

    @property
    def aspect(self):
        return self.w / self.h

    def scaled(self, s):
        return Shape(self.w * s, self.h * s)


def nt_property_chain(x):
    s = Shape(x[0] + 2.0, x[1] + 2.0).scaled(x[2])
    return s.area + s.aspect ** 2


class Base:
    def __init__(self, theta):
        self.theta = theta

    def energy(self, q):
        return np.sum(self.theta * q ** 2)


class Derived(Base):
    def __init__(self, theta, extra):
        super().__init__(theta * 2.0)
        self.extra = extra

    def energy(self, q):
        return super().energy(q) + self.extra * np.sum(np.cos(q))


def inherit_super_init(x):
    m = Derived(x[:3], x[3])
    return m.energy(x[3:]) + m.energy(x[:3])


def dict_params_sgd(x):
    params = {"w": x[:3].copy(), "b": x[3]}
    data = np.array([[1.0, 0.5, -0.3], [0.2, -0.8, 1.1]])
    y = x[4:]
    for _ in range(3):
        err = data @ params["w"] + params["b"] - y
        grads = {"w": data.T @ err, "b": np.sum(err)}
        for k in params:
            params[k] = params[k] - 0.1 * grads[k]
    return float(np.sum(params["w"] ** 2) + params["b"] ** 2)


def dict_params_inplace(x):
    params = {"w": x[:3].copy(), "v": np.zeros(3)}
    for _ in range(3):
        g = np.tanh(params["w"]) * x[3:]
        params["v"] *= 0.9
        params["v"] += g
        params["w"] -= 0.2 * params["v"]
    return np.sum(params["w"] ** 2)


def nonlocal_counter(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v * v
    for v in x:
        add(v)
    return total * x[0]


def memo_recursion(x):
    memo = {}

    def f(n):
        if n in memo:
            return memo[n]
        r = x[n] if n < 2 else f(n - 1) * 0.5 + f(n - 2) * x[n]
        memo[n] = r
        return r
    return f(5)


def try_zero_division(x):
    total = 0.0
    for d in [x[0] - x[0], x[1], 0.0, x[2]]:
        try:
            total += 1.0 / d if d != 0 else 0.0
        except ZeroDivisionError:
            total += 1.0
    return total + float(x[3]) / 1.0


def list_methods_mutation(x):
    vals = list(x)
    vals.sort(key=lambda v: -v)
    top = vals.pop(0)
    vals.insert(1, top * 2)
    vals.reverse()
    vals.extend([x[0] * x[1]])
    return sum(v * (i + 1) for i, v in enumerate(vals))


def deque_window(x):
    win = collections.deque(maxlen=3)
    out = 0.0
    for v in x:
        win.append(v)
        out += sum(win) / len(win) * v
    return out


def heapq_smallest(x):
    import heapq
    small = heapq.nsmallest(2, x)
    big = heapq.nlargest(2, list(x), key=lambda v: v * v)
    return small[0] * small[1] + big[0] ** 2


def zip_star_transpose(x):
    rows = [x[0:3], x[3:6]]
    cols = list(zip(*rows))
    return sum(a * b for a, b in cols) + cols[2][1] ** 2


def dict_get_setdefault(x):
    acc = {}
    for i, v in enumerate(x):
        key = "even" if i % 2 == 0 else "odd"
        acc.setdefault(key, []).append(v)
    return sum(v * v for v in acc.get("even", [])) * sum(acc["odd"]) + acc.get("none", [0.0])[0]


def min_generator_default(x):
    return min((v * v for v in x if v > 0.35), default=0.0) + max((v for v in x if v > 5), default=x[0] * 2)


def scalar_methods(x):
    a = x[0].item() * 2.0
    b = np.float64(x[1]) ** 2
    c = x.reshape(2, 3).std(axis=1).sum() + x.prod() + x.reshape(3, 2).cumsum(axis=0)[-1, 1]
    return a + b + c + x.clip(-0.6, 0.6).dot(x)


def int_floor_interp(x):
    grid = np.array([0.0, 1.0, 4.0, 9.0, 16.0])
    total = 0.0
    for v in np.abs(x) * 3.0:
        i = int(np.floor(v))
        t = v - i
        total += (1 - t) * grid[i] + t * grid[i + 1]
    return total


def np_interp_polyval(x):
    xp = np.array([-1.0, 0.0, 1.0, 2.0])
    fp = np.array([1.0, 0.0, 2.0, 1.0])
    return np.sum(np.interp(x, xp, fp)) + np.sum(np.polyval(x[:3], x[3:]))


def np_convolve_correlate(x):
    k = np.array([0.25, 0.5, 0.25])
    return np.sum(np.convolve(x, k, mode="same") ** 2) + np.sum(np.correlate(x, x[:3], mode="valid"))


def np_gradient_trapz(x):
    y = x ** 2
    return np.sum(np.gradient(y, 0.5) ** 2) + np.trapezoid(y, dx=0.5) + np.sum(np.cross(x[:3], x[3:]) ** 2)


def np_logaddexp_hypot(x):
    return (np.sum(np.logaddexp(x[:3], x[3:])) + np.sum(np.hypot(x[:3], x[3:])) + np.sum(np.arctan2(x[:3], x[3:]))
            + np.sum(np.sinc(x)) + np.logaddexp.reduce(x))


def take_along_argsort(x):
    A = x.reshape(2, 3)
    order = np.argsort(A, axis=1)
    S = np.take_along_axis(A, order, axis=1)
    return np.sum(S * np.array([1.0, 2.0, 3.0])) + np.sum(A[np.arange(2), order[:, -1]] ** 2)


def sliding_window_conv2d(x):
    img = np.outer(x, x[::-1])
    win = np.lib.stride_tricks.sliding_window_view(img, (2, 2))
    k = np.array([[1.0, -1.0], [0.5, 0.25]])
    return np.sum(np.einsum("ijkl,kl->ij", win, k) ** 2)


def pad_modes(x):
    return (np.sum(np.pad(x, 2, mode="reflect") ** 2) + np.sum(np.pad(x, (1, 2), mode="edge") * 0.5)
            + np.sum(np.pad(x.reshape(2, 3), ((0, 1), (1, 0)), constant_values=1.0) ** 3))


def logsumexp_weights_sign(x):
    b = np.array([1.0, -0.5, 2.0, 1.0, -0.2, 0.3])
    v, s = sc.logsumexp(x, b=b, return_sign=True)
    return v * s + np.sum(sc.softmax(x) * b) + np.sum(sc.log_softmax(x.reshape(2, 3), axis=1)[:, 0])


def reduceat_accumulate(x):
    return (np.sum(np.add.reduceat(x ** 2, [0, 2, 3]) ** 2) + np.sum(np.maximum.accumulate(x))
            + np.sum(np.multiply.accumulate(x + 1.5)))


def matmul_out_copyto_where(x):
    A = x.reshape(2, 3)
    C = np.empty((2, 2))
    np.matmul(A, A.T, out=C)
    D = np.zeros_like(A)
    np.copyto(D, A ** 2, where=A > 0)
    return np.sum(C ** 2) + np.sum(D)


def operator_iadd_arrays(x):
    a = x[:3].copy()
    a = operator.iadd(a, x[3:] * 2.0)
    a = operator.imul(a, a)
    return np.sum(a) + operator.truediv(x[0], operator.add(x[1], 2.0))


def rk4_tableau(x):
    def rhs(t, y):
        return np.array([y[1], -np.sin(y[0]) - 0.1 * y[1] + x[2] * np.cos(t)])
    A = [[], [0.5], [0.0, 0.5], [0.0, 0.0, 1.0]]
    bw = [1 / 6, 1 / 3, 1 / 3, 1 / 6]
    cs = [0.0, 0.5, 0.5, 1.0]
    y, t, h = x[:2].copy(), 0.0, 0.2
    for _ in range(3):
        ks = []
        for ci, row in zip(cs, A):
            yi = y + h * sum((a * k for a, k in zip(row, ks)), np.zeros(2))
            ks.append(rhs(t + ci * h, yi))
        y = y + h * sum(b * k for b, k in zip(bw, ks))
        t += h
    return np.sum(y ** 2)


def lstm_split_gates(x):
    W = x.reshape(2, 3)
    Wg = np.concatenate([W, W * 0.5, -W, W ** 2], axis=1)
    h = np.zeros(3)
    c = np.zeros(3)
    for inp in (np.array([1.0, -0.5]), np.array([0.3, 0.8])):
        z = inp @ Wg + 0.1 * np.concatenate([h, h, h, h])
        i, f, o, g = np.split(z, 4)
        c = sc.expit(f) * c + sc.expit(i) * np.tanh(g)
        h = sc.expit(o) * np.tanh(c)
    return np.sum(h ** 2) + np.sum(c)


def causal_mask_softmax(x):
    S = np.outer(x[:3], x[3:])
    mask = np.triu(np.ones((3, 3), dtype=bool), k=1)
    S = np.where(mask, -np.inf, S)
    S = S - S.max(axis=1, keepdims=True)
    P = np.exp(S)
    P = P / P.sum(axis=1, keepdims=True)
    return np.sum(P @ x[:3] * x[3:])


def dropout_fixed_rng(x):
    rng = np.random.default_rng(0)
    keep = rng.random(6) < 0.7
    return np.sum(np.where(keep, x / 0.7, 0.0) ** 2)


def zero_d_inplace(x):
    s = np.zeros(())
    for v in x:
        s += v * v
    s *= 0.5
    s[...] = s + x[0]
    return float(s)


def fft_roundtrip(x):
    F = np.fft.rfft(x)
    F[1:] *= np.array([0.5, 0.25, 0.0])
    y = np.fft.irfft(F, n=6)
    return np.sum(y ** 2) + np.abs(F[1]) ** 2


def complex_real_imag_write(x):
    z = np.zeros(3, dtype=complex)
    z.real = x[:3]
    z.imag = x[3:]
    w = z * z + 1j * z
    return float(np.sum(w.real * w.imag))


def complex_polar_rotation(x):
    r = np.abs(x[:3]) + 0.5
    th = x[3:]
    z = r * (np.cos(th) + 1j * np.sin(th))
    return float(np.real(np.sum(z ** 3 * np.conj(z)))) + float(np.imag(z).sum())


def apply_along_axis_vectorize(x):
    A = x.reshape(2, 3)
    r = np.apply_along_axis(lambda row: np.sum(row ** 2) + row[0], 1, A)
    return np.sum(r ** 2)


def piecewise_select(x):
    y = np.select([x < -0.5, x < 0.4], [x ** 2, np.sin(x)], default=x * 2)
    return np.sum(y * y)


def scipy_linalg_mix(x):
    import scipy.linalg as sla
    A = x.reshape(2, 3)
    S = A @ A.T + np.eye(2)
    c = sla.cho_factor(S)
    y = sla.cho_solve(c, np.array([1.0, 2.0]))
    L = sla.cholesky(S, lower=True)
    z = sla.solve_triangular(L, np.array([0.5, -1.0]), lower=True)
    return np.sum(y) + np.sum(z ** 2) + np.trace(sla.expm(S * 0.1))


def eigvalsh_det_products(x):
    A = x.reshape(2, 3)
    S = A.T @ A + np.eye(3)
    w = np.linalg.eigvalsh(S)
    return np.sum(np.log(w)) - np.log(np.linalg.det(S)) + w.max()


def bool_index_rows(x):
    A = x.reshape(3, 2)
    keep = np.array([True, False, True])
    B = A[keep]
    A2 = A.copy()
    A2[keep, 1] = B[:, 0] ** 2
    return np.sum(A2 * A) + np.sum(B)


def ix_grid_gather(x):
    A = np.outer(x, x)
    sub = A[np.ix_([0, 2, 4], [1, 1, 5])]
    return np.sum(sub * np.arange(9).reshape(3, 3))


def enumerate_start_weights(x):
    return sum(w * v ** 2 for w, v in enumerate(x, start=1)) / sum(range(1, 7))


def fstring_logging(x):
    log = []
    total = 0.0
    for i, v in enumerate(x):
        total += v * v
        log.append(f"step {i}: {total:.3f}")
    return total * len(log[-1]) / 10.0


def class_registry_dispatch(x):
    registry = {}

    def register(name):
        def deco(fn):
            registry[name] = fn
            return fn
        return deco

    @register("square")
    def _sq(v):
        return v * v

    @register("sin")
    def _s(v):
        return np.sin(v)
    return sum(registry[k](x[i]) for i, k in enumerate(["square", "sin", "square"]))


def staticmethod_helper(x):
    class Ops:
        @staticmethod
        def soft(v, beta=2.0):
            return np.log1p(np.exp(beta * v)) / beta

        @classmethod
        def both(cls, v):
            return cls.soft(v) + cls.soft(-v, beta=1.0)
    return np.sum(Ops.both(x))


def vec_namedtuple_property(x):
    s = Shape(x[0] + 2.0, x[1] + 2.0)
    return np.array([s.area, s.aspect, s.w * x[2]])


def vec_dict_state_rollout(x):
    st_ = {"q": x[:3].copy(), "p": x[3:].copy()}
    for _ in range(2):
        st_["p"] = st_["p"] - 0.1 * np.sin(st_["q"])
        st_["q"] += 0.1 * st_["p"]
    return np.concatenate([st_["q"], st_["p"]])


# ======================================== batch 3: numpy statistics, side effects, context managers
def hist_bincount_weights(x):
    data = np.array([0.1, 0.4, 0.45, 0.8, 0.2, 0.9])
    h, _ = np.histogram(data, bins=3, range=(0.0, 1.0), weights=x)
    b = np.bincount(np.array([0, 2, 2, 1, 0, 1]), weights=x * x, minlength=3)
    return np.sum(h ** 2) + np.sum(b * np.array([1.0, 2.0, 3.0]))


def unique_inverse_bincount(x):
    keys = np.array([3, 1, 3, 2, 1, 3])
    _, inv = np.unique(keys, return_inverse=True)
    sums = np.bincount(inv, weights=np.exp(x))
    return np.sum(np.log(sums))


def stats_cov_corr(x):
    A = np.stack([x, x ** 2 + 0.1 * np.arange(6), np.cos(x)])
    return np.sum(np.cov(A)) + np.sum(np.corrcoef(A)[0]) + np.average(x, weights=np.arange(1, 7))


def stats_median_percentile(x):
    return np.median(x) + np.percentile(x, 30.0) + np.var(x, ddof=1) + np.ptp(x) + np.quantile(x ** 2, 0.8)


def nan_functions(x):
    y = np.where(np.arange(6) == 2, np.nan, x)
    return np.nansum(y ** 2) + np.nanmean(y) * np.nanmax(y) + np.nanstd(y)


def special_more(x):
    a = np.exp(x[:3])
    return (np.sum(sc.gamma(a)) + np.sum(sc.beta(a, a[::-1])) + np.sum(sc.kl_div(a, a[::-1] + 0.5))
            + np.sum(sc.rel_entr(a, 1.5)) + np.sum(sc.entr(a)) + np.sum(sc.huber(0.6, x)) + np.sum(sc.i0(x))
            + np.sum(sc.polygamma(1, a)) + np.sum(sc.logit(sc.expit(x))))


def stats_more_dists(x):
    p = sc.expit(x)
    return (np.sum(st.norm.ppf(p)) + np.sum(st.beta.logpdf(p, 2.0, 3.0)) + np.sum(st.poisson.logpmf(3, np.exp(x)))
            + np.sum(st.binom.logpmf(2, 5, p)) + np.sum(st.norm.logsf(x)) + np.sum(st.laplace.logpdf(x, 0.1, 2.0)))


def errstate_context(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(x != 0, np.sin(x) / x, 1.0)
    return np.sum(r ** 2)


def suppress_and_assert(x):
    import contextlib
    total = 0.0
    assert x.shape == (6,), "bad shape"
    with contextlib.suppress(KeyError):
        total += {"a": x[0]}["a"] ** 2
        total += {"a": 1.0}["b"]
    return total + x[1]


def print_side_effect(x, _sink=[]):
    y = np.tanh(x)
    _sink.append(f"loss {float(np.sum(y)):.3f}")
    del _sink[:]
    return np.sum(y * x)


_CALLS = {"n": 0}


def global_counter_unrelated(x):
    _CALLS["n"] += 1
    return np.sum(x ** 3) * 2.0


@functools.lru_cache(maxsize=None)
def _coef(n):
    return 1.0 / math.factorial(n)


def lru_cached_coefficients(x):
    return sum(_coef(k) * x[k] ** k for k in range(6))


def vectorize_scalar_fn(x):
    def piece(v):
        return v * v if v > 0 else math.sin(v)
    return np.sum(np.vectorize(piece)(x))


def sorted_dict_items_value(x):
    d = {f"p{i}": v * v + 0.1 * i for i, v in enumerate(x)}
    ranked = sorted(d.items(), key=lambda kv: kv[1])
    return ranked[-1][1] + ranked[0][1] * 2 + sum(v for _, v in ranked[1:3])


def tolist_python_math(x):
    vals = x.tolist()
    vals[2] += vals[0] * vals[1]
    vals[3] *= 2.0
    return sum(v ** 2 for v in vals) + math.prod(vals[:3])


def statistics_module(x):
    import statistics
    vals = [float(v) for v in x]
    return statistics.fmean(vals) * statistics.pstdev(vals) + statistics.median(vals[:5])


def put_putmask_place(x):
    a = np.zeros(6)
    np.put(a, [0, 2, 4], x[:3] * 2)
    b = x.copy()
    np.putmask(b, b < 0, b ** 2)
    return np.sum(a * x) + np.sum(b ** 3)


def fill_and_sort_inplace(x):
    a = x.copy()
    a.sort()
    b = np.empty(3)
    b.fill(x[0] * x[1])
    return np.sum(a * np.arange(6)) + np.sum(b)


def batched_linalg(x):
    A = np.stack([np.eye(2) * (1.5 + x[0]), np.array([[2.0, x[1]], [x[2], 3.0]])])
    b = np.stack([x[3:5], x[4:6]])
    y = np.linalg.solve(A, b[..., None])[..., 0]
    return np.sum(y ** 2) + np.sum(np.linalg.det(A)) + np.sum(np.linalg.inv(A)[:, 0, 1])


def einsum_diag_same_operand(x):
    A = np.outer(x, x[::-1])
    return np.sum(np.einsum("ii->i", A) ** 2) + np.einsum("i,i", x, x) + np.einsum("ij,ij->", A, A) + np.dot(x, x)


def matrix_builders(x):
    V = np.vander(x[:3], 3)
    D = np.diag(x[3:], k=1)
    B = np.block([[np.diagflat(x[:2]), np.tri(2)], [np.zeros((2, 2)), np.eye(2) * x[5]]])
    return np.linalg.det(V + np.eye(3)) + np.sum(D ** 2) + np.trace(B @ B)


def meshgrid_field(x):
    X, Y = np.meshgrid(x[:3], x[3:], indexing="ij")
    phi = np.exp(-(X - Y) ** 2) * np.cos(X * Y)
    return np.sum(phi) + np.sum(np.gradient(phi, axis=0) ** 2)


def any_all_branch(x):
    y = x.copy()
    if np.any(y > 1.0):
        y = y / np.max(np.abs(y))
    if not np.all(y > -0.5):
        y = y + 0.1 * y ** 2
    return np.sum(y ** 3)


def try_finally_early_return(x):
    acc = [0.0]
    try:
        for v in x:
            acc[0] += v * v
            if acc[0] > 1.5:
                return acc[0] * x[0]
    finally:
        acc.append(1.0)
    return acc[0]


def del_and_rebind(x):
    a = x * 2.0
    b = a[:3] + a[3:]
    del a
    a = b ** 2
    return np.sum(a) + np.sum(b)


def isinstance_array_branch(x):
    def to_arr(v):
        return v if isinstance(v, np.ndarray) else np.asarray(v, dtype=float)
    parts = [to_arr(x[:2]), to_arr([x[2], x[3]]), to_arr(x[4] * x[5])]
    return sum(np.sum(p ** 2) for p in parts)


def dict_tree_recursion(x):
    tree = {"v": x[0], "kids": [{"v": x[1], "kids": []},
                                {"v": x[2], "kids": [{"v": x[3], "kids": []}, {"v": x[4], "kids": []}]}]}

    def depth_sum(node, d=1):
        return d * node["v"] ** 2 + sum(depth_sum(k, d + 1) for k in node["kids"])
    return depth_sum(tree) * x[5]


def lambda_list_pipeline(x):
    steps = [lambda v: v * 2.0, np.tanh, lambda v: v + x[0], lambda v: v ** 2]
    y = x
    for f in steps:
        y = f(y)
    return np.sum(y)


def method_partial_bound(x):
    m = Momentum(lr=0.05)
    step = functools.partial(m.step, g=np.cos(x[:3]))
    w = x[3:].copy()
    step(w)
    step(w)
    return np.sum(w ** 2)


def enumerate_reversed_list_writes(x):
    out = [0.0] * 6
    for i, v in reversed(list(enumerate(x))):
        out[i] = v * (out[i + 1] if i + 1 < 6 else 1.0) + v
    return sum(out)


# ======================================== batch 4: writes into containers of constants by indirect routes


def wr_operator_setitem(x):
    acc = [0.0, 0.0]
    operator.setitem(acc, 0, x[0] * x[1])
    return acc[0]


def wr_dunder_setitem(x):
    acc = [0.0, 0.0]
    acc.__setitem__(0, x[0] * x[1])
    return acc[0]


def wr_setattr_builtin(x):
    class B:
        pass
    b = B()
    b.v = 0.0
    setattr(b, "v", x[0] * x[1])
    return b.v


def wr_partial_setitem(x):
    acc = [0.0, 0.0]
    put = functools.partial(operator.setitem, acc)
    put(1, x[0] * x[1])
    return acc[1]


def wr_closure_write(x):
    acc = [0.0]
    def w():
        acc[0] = x[0] * x[1]
    w()
    return acc[0]


def wr_helper_write(x):
    acc = np.zeros(2)
    _fill_first(acc, x[0] * x[1])
    return acc[0]


def _fill_first(a, v):
    a[0] = v


def wr_lambda_write(x):
    acc = np.zeros(3)
    f = lambda i: acc.__setitem__(i, x[i] ** 2)
    for i in range(3):
        f(i)
    return np.sum(acc)


def wr_match_write(x):
    acc = [0.0]
    match 1:
        case 1:
            acc[0] = x[0] * x[1]
        case _:
            pass
    return acc[0]


def wr_while_else_write(x):
    acc = np.zeros(2)
    i = 0
    while i < 2:
        acc[i] = x[i] ** 2
        i += 1
    else:
        acc[1] += x[2]
    return np.sum(acc)


def wr_copyto_put(x):
    a = np.zeros(3)
    b = np.zeros(3)
    np.copyto(a, x[:3])
    np.put(b, [0, 2], x[3:5])
    return np.sum(a * b) + np.sum(a)


def wr_fill_diagonal(x):
    A = np.zeros((3, 3))
    np.fill_diagonal(A, x[:3])
    return np.sum(A @ A)


def wr_deque_dict_update(x):
    dq = collections.deque([0.0])
    dq.append(x[0] * 2)
    d = {"a": 0.0}
    d.update(a=x[1] ** 2)
    d.update({"b": x[2]})
    return sum(dq) + d["a"] + d["b"]


def wr_list_iadd(x):
    acc = [0.0]
    acc += [x[0] * x[1]]
    acc[:1] = [x[2]]
    return sum(acc)


def wr_errstate_write(x):
    a = np.zeros(3)
    with np.errstate(all="ignore"):
        a[:] = np.log(x[:3] ** 2)
    return np.sum(a)


def wr_try_else(x):
    a = np.zeros(2)
    try:
        v = x[0] * 2
    except ValueError:
        v = 0.0
    else:
        a[0] = v * x[1]
    return a[0]


def wr_try_except_body(x):
    a = np.zeros(2)
    try:
        raise ValueError
    except ValueError:
        a[0] = x[0] * x[1]
    return a[0]


# ======================================== batch 5: language corners, dataclass tools, NumPy 2 names, SciPy


class LogContext:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append(0.0)
        return self

    def __exit__(self, *a):
        self.log.append(1.0)
        return False


def l_user_ctx_write(x):
    log = []
    acc = np.zeros(2)
    with LogContext(log) as t:
        acc[0] = x[0] * x[1]
        acc[1] = x[2]
    return np.sum(acc ** 2) + len(log)


def l_late_binding(x):
    fs = [lambda: x[i] ** 2 for i in range(3)]
    return sum(f() for f in fs)


def l_default_binding(x):
    fs = [lambda i=i: x[i] ** 2 for i in range(3)]
    return sum(f() for f in fs)


def l_row_swap_views(x):
    A = x.reshape(3, 2).copy()
    A[0], A[1] = A[1], A[0]
    return np.sum(A * np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))


def l_star_unpack(x):
    first, *mid, last = x
    return first * last + sum(v * v for v in mid)


def l_nested_unpack(x):
    total = 0.0
    for i, (a, (b, c)) in enumerate(zip(x[:2], zip(x[2:4], x[4:6]))):
        total += (i + 1) * a * b - c ** 2
    return total


def l_getattr_np(x):
    cfg = {"act": "tanh", "reduce": "sum"}
    act = getattr(np, cfg["act"])
    red = getattr(np, cfg["reduce"])
    return red(act(x) ** 2)


def l_sum_arrays_start(x):
    parts = [x[:3], x[3:], x[:3] * x[3:]]
    return np.sum(sum(parts, np.zeros(3)) ** 2)


def l_walrus_while(x):
    r = 1.0 + x[0] ** 2
    n = 0
    while (r := 0.5 * (r + 2.0 / r)) and n < 4:
        n += 1
    return r * x[1]


def l_list_remove_del(x):
    vals = [x[0], x[1] * 2, x[2], x[3]]
    vals.remove(vals[1])
    del vals[0]
    return vals[0] * vals[-1]


def l_nonlocal_two_levels(x):
    total = 0.0
    def outer():
        def inner(v):
            nonlocal total
            total += v ** 2
        for v in x[:3]:
            inner(v)
    outer()
    return total


def l_gen_try_finally(x):
    def gen():
        try:
            for v in x:
                yield v * v
        finally:
            pass
    return sum(gen())


@dataclasses.dataclass
class PostInit:
    w: np.ndarray
    scale: InitVar[float] = 1.0
    sq: float = field(init=False)

    def __post_init__(self, scale):
        self.w = self.w * scale
        self.sq = float(np.sum(self.w ** 2))


def c_post_init(x):
    p = PostInit(x[:3], scale=x[3])
    return p.sq + p.w[0]



@dataclasses.dataclass
class QPair:
    a: float
    b: np.ndarray


def c_asdict(x):
    q = QPair(x[0], x[1:3])
    d = dataclasses.asdict(q)
    t = dataclasses.astuple(q)
    return d["a"] * np.sum(d["b"]) + t[0] ** 2 + np.sum(t[1] ** 3)


def c_deepcopy(x):
    q = QPair(x[0], x[1:3].copy())
    r = copy.deepcopy(q)
    r.b *= 2.0
    s = copy.copy(q)
    s.a = s.a * 3
    return np.sum(q.b) * r.a + np.sum(r.b ** 2) + s.a


class AbstractShape(abc.ABC):
    @abc.abstractmethod
    def area(self):
        ...

    def double(self):
        return 2 * self.area()


class Sq(AbstractShape):
    def __init__(self, s):
        self.s = s

    def area(self):
        return self.s ** 2

    def grow(self, k):
        return type(self)(self.s * k)


def c_abc_typeself(x):
    sh = Sq(x[0]).grow(x[1])
    return sh.double() + sh.__class__(x[2]).area()



@dataclasses.dataclass(order=True)
class OrderedItem:
    key: float
    val: float = field(compare=False)


def c_dataclass_order(x):
    items = [OrderedItem(x[i], x[i + 3]) for i in range(3)]
    items.sort()
    return items[0].val * items[-1].val + max(items).key



@dataclasses.dataclass(frozen=True)
class FrozenPair:
    a: float
    b: float

    def with_a(self, v):
        return dataclasses.replace(self, a=v)


def c_frozen_replace(x):
    f = FrozenPair(x[0], x[1]).with_a(x[2] * 2)
    return f.a * f.b


def k_sum_where(x):
    return np.sum(x ** 2, where=x > 0) + np.mean(x, where=x < 0.6)


def k_max_initial(x):
    return np.max(x ** 2, initial=0.5) + np.min(x, initial=-0.1) + np.amax(x.reshape(2, 3), axis=(0, 1))


def k_prod_axis_tuple(x):
    return np.sum(np.prod(x.reshape(1, 2, 3) + 1.5, axis=(0, 2))) + np.std(x.reshape(2, 3), axis=(0, 1), ddof=1)


def k_gradient_edge(x):
    return (np.sum(np.gradient(x ** 2, edge_order=2) ** 2)
            + np.sum(np.gradient(x, np.array([0.0, 0.5, 1.5, 2.0, 3.5, 4.0])) ** 2))


def k_take_wrap(x):
    return (np.sum(np.take(x, [0, 7, -8, 3], mode="wrap") * np.array([1.0, 2.0, 3.0, 4.0]))
            + np.sum(np.take(x, [9, 2], mode="clip") ** 2))


def k_roll_tuple(x):
    return np.sum(np.roll(x.reshape(2, 3), (1, 2), axis=(0, 1)) * np.arange(6).reshape(2, 3))


def k_tile_repeat(x):
    return np.sum(np.tile(x[:2], (2, 3)) * np.arange(12).reshape(2, 6)) + np.sum(np.repeat(x[:3], [1, 0, 3]) ** 2)


def k_flip_rot(x):
    return (np.sum(np.rot90(x.reshape(2, 3), k=3) * np.arange(6).reshape(3, 2))
            + np.sum(np.flip(x.reshape(2, 3), axis=(0, 1))[0] ** 3))


def k_trace_offset(x):
    return np.trace(np.outer(x, x), offset=1) + np.trace(np.outer(x, x[::-1]).reshape(3, 2, 6), axis1=0, axis2=1).sum()


def k_np2_aliases(x):
    A = x.reshape(2, 3)
    return (np.sum(np.pow(np.abs(x) + 0.1, 1.5)) + np.sum(np.acos(x * 0.5)) + np.sum(np.atan2(x, 1.3))
            + np.sum(np.concat([x, x ** 2])) + np.sum(np.permute_dims(A, (1, 0)) * np.arange(6).reshape(3, 2))
            + np.sum(np.linalg.vector_norm(A, axis=1)) + np.sum(np.vecdot(A, A))
            + np.sum(np.linalg.matrix_norm(np.outer(x, x))) + np.sum(np.matrix_transpose(A) ** 3))


def k_cumulative_sum(x):
    return np.sum(np.cumulative_sum(x, include_initial=True) ** 2) + np.sum(np.cumulative_prod(x + 1.5))


def k_linalg_outer_cross(x):
    return (np.sum(np.linalg.outer(x[:3], x[3:]) ** 2) + np.sum(np.linalg.cross(x[:3], x[3:]) ** 2)
            + np.linalg.trace(np.outer(x, x)) + np.sum(np.linalg.diagonal(np.outer(x, x)) ** 2))


def k_unstack(x):
    a, b = np.unstack(x.reshape(2, 3))
    return np.sum(a * b ** 2)


def k_norm_keepdims(x):
    return np.sum(x.reshape(2, 3) / np.linalg.norm(x.reshape(2, 3), axis=1, keepdims=True) * np.arange(6).reshape(2, 3))


def sp_cubic_spline(x):
    cs = si.CubicSpline(np.arange(6.0), x)
    return float(cs(2.5) ** 2 + cs(0.7))


def sp_lfilter(x):
    return np.sum(ss.lfilter([0.5, 0.25], [1.0, -0.3], x) ** 2)


def sp_fftconvolve(x):
    return np.sum(ss.fftconvolve(x, x[::-1]) ** 2) + np.sum(ss.convolve(x, [1.0, -1.0], mode="valid") ** 2)


def sp_pdist_cdist(x):
    P = x.reshape(3, 2)
    return np.sum(sd.pdist(P, "sqeuclidean")) + np.sum(sd.cdist(P, P[::-1] + 1.0, "cityblock") ** 2)


def sp_interp1d(x):
    return np.sum(si.interp1d(np.arange(6.0), x, kind="linear")(np.array([0.5, 2.2, 4.9])) ** 2)


def np_polynomial_module(x):
    return (np.sum(np.polynomial.polynomial.polyval(x, [1.0, x[0], 0.5]))
            + np.sum(np.polynomial.Polynomial(x[:3])(x[3:])))


def sp_logsumexp_axis_keepdims(x):
    return (np.sum(sc.logsumexp(x.reshape(2, 3), axis=0, keepdims=True) * np.array([[1.0, 2.0, 3.0]]))
            + np.sum(sc.softmax(x.reshape(2, 3), axis=0)[1]))


def sp_savgol(x):
    return float(np.sum(ss.savgol_filter(x, 5, 2) ** 2))


class V2(NamedTuple):
    a: float
    b: float

    def __add__(self, o):
        return V2(self.a + o.a, self.b + o.b)

    def __mul__(self, s):
        return V2(self.a * s, self.b * s)
    __rmul__ = __mul__

    def __call__(self, t):
        return self.a * t + self.b

    def norm(self):
        return math.sqrt(self.a ** 2 + self.b ** 2)

    @staticmethod
    def unit():
        return V2(1.0, 0.0)

    @classmethod
    def from_angle(cls, th):
        return cls(math.cos(th), math.sin(th))


def n_add(x):
    v = V2(x[0], x[1]) + V2(x[2], x[3])
    return v.a * v.b


def n_mul(x):
    v = 2.0 * V2(x[0], x[1]) * x[2]
    return v.a + v.b ** 2


def n_call(x):
    return V2(x[0], x[1])(x[2])


def n_norm(x):
    return V2(x[0], x[1]).norm()


def n_classmethod(x):
    v = V2.from_angle(x[0]) + V2.unit() * x[1]
    return v.a * v.b


def n_unpack_iter(x):
    a, b = V2(x[0], x[1]) * x[2]
    return a * b + sum(V2(x[3], x[4]))


def n_in_list_sorted(x):
    vs = [V2(x[i], x[i + 1]) for i in range(0, 6, 2)]
    vs.sort(key=lambda v: v.a)
    return vs[0].b * vs[-1].a + max(vs).b


# ======================================== batch 6: user containers and protocols, index loops, random sampling
class UserGrid:
    def __init__(self, n):
        self.data = np.zeros(n)

    def __getitem__(self, i):
        return self.data[i]

    def __setitem__(self, i, v):
        self.data[i] = v

    def __len__(self):
        return len(self.data)

    def __iter__(self):
        return iter(self.data)


def u_custom_setitem(x):
    g = UserGrid(6)
    for i in range(6):
        g[i] = x[i] ** 2
    g[1:3] = x[:2] * 3
    return sum(v for v in g) + g[0] * len(g)


class NewOnIadd:
    def __init__(self, v):
        self.v = v

    def __iadd__(self, o):
        return NewOnIadd(self.v + o)  # a new object, not self


def u_iadd_new_object(x):
    a = NewOnIadd(x[0])
    b = a
    a += x[1] * 2
    return a.v * 3 + b.v


class ArrayLike:
    def __init__(self, a):
        self.a = a

    def __array__(self, dtype=None, copy=None):
        return self.a


def u_array_protocol(x):
    w = ArrayLike(x[:3] * 2)
    return np.sum(np.asarray(w) ** 2)


class CoeffPoly:
    def __init__(self, c):
        self.c = c

    def __call__(self, t):
        out = 0.0
        for k in reversed(self.c):
            out = out * t + k
        return out

    def deriv(self):
        return CoeffPoly([k * i for i, k in enumerate(self.c)][1:])


def u_poly_deriv(x):
    p = CoeffPoly(list(x[:4]))
    return p(x[4]) + p.deriv()(x[5]) ** 2


class ManualCache:
    def __init__(self, x):
        self.x = x
        self._cache = None

    def value(self):
        if self._cache is None:
            self._cache = np.sum(self.x ** 2)
        return self._cache


def u_manual_cache(x):
    lazy = ManualCache(x)
    a = lazy.value()
    lazy.x = x * 2       # stale cache: plain python keeps the old value
    return a + lazy.value()


def q_ndindex_fill(x):
    A = np.zeros((2, 3))
    for i, j in np.ndindex(A.shape):
        A[i, j] = x[i * 3 + j] ** 2 + i - j
    return np.sum(A @ A.T)


def q_product_matrix(x):
    n = 3
    K = np.empty((n, n))
    for i, j in itertools.product(range(n), repeat=2):
        K[i, j] = np.exp(-(x[i] - x[j + 3]) ** 2)
    return np.linalg.slogdet(K + np.eye(3))[1]


def q_combinations_pairs(x):
    P = x.reshape(3, 2)
    e = 0.0
    for i, j in itertools.combinations(range(3), 2):
        d = P[i] - P[j]
        e += 1.0 / np.sqrt(d @ d + 0.1)
    return e


def q_flat_write(x):
    A = np.zeros((2, 3))
    for k, v in enumerate(x):
        A.flat[k] = v * (k + 1)
    return np.sum(A ** 2) + A[1, 2]


def q_diag_indices_scatter(x):
    A = np.outer(x[:3], x[3:])
    i, j = np.diag_indices(3)
    A[i, j] += 1.0
    r, c = np.triu_indices(3, 1)
    return np.sum(A[r, c] ** 2) + np.linalg.det(A)


def r_reparam(x):
    rng = np.random.default_rng(0)
    eps = rng.standard_normal(3)
    z = x[:3] + np.exp(x[3:]) * eps
    return np.sum(z ** 2)


def r_normal_active(x):
    rng = np.random.default_rng(0)
    z = rng.normal(x[:3], np.exp(x[3:]))
    return np.sum(z ** 2)


def r_normal_kw(x):
    rng = np.random.default_rng(1)
    z = rng.normal(loc=x[0], scale=x[1] ** 2 + 0.5, size=4)
    return np.sum(np.sin(z))


def r_uniform_active(x):
    rng = np.random.default_rng(2)
    u = rng.uniform(x[0], x[0] + np.exp(x[1]), size=3)
    return np.sum(u ** 2)


def r_exponential_active(x):
    rng = np.random.default_rng(3)
    return np.sum(rng.exponential(np.exp(x[:3])))


def r_legacy_seed(x):
    np.random.seed(0)
    eps = np.random.randn(3)
    return np.sum((x[:3] + eps * x[3:]) ** 2)


def r_legacy_normal_active(x):
    np.random.seed(0)
    return np.sum(np.random.normal(x[:3], 1.0) ** 2)


def r_stats_rvs_active(x):
    return np.sum(st.norm.rvs(loc=x[:3], scale=1.5, random_state=0) ** 2)


def r_choice_const(x):
    rng = np.random.default_rng(5)
    idx = rng.choice(6, size=4, replace=False)
    return np.sum(x[idx] ** 2)


def r_permutation(x):
    rng = np.random.default_rng(6)
    return np.sum(rng.permutation(x) * np.arange(6))


# ================================================================ vector outputs
def vec_kalman_means(x):
    m, P = 0.0, 1.0
    out = []
    for y in x:
        P = P + 0.1
        K = P / (P + 0.5)
        m = m + K * (y - m)
        P = (1 - K) * P
        out.append(m)
    return np.array(out)


def vec_solve_rhs(x):
    A = np.array([[3.0, 1.0, 0.0], [1.0, 4.0, 1.0], [0.0, 1.0, 5.0]]) + np.diag(x[3:] ** 2)
    return np.linalg.solve(A, x[:3])


def vec_sorted_values(x):
    return np.sort(x * np.array([1.0, -2.0, 0.5, 3.0, -1.0, 0.7]))


def vec_cumulative_ops(x):
    return np.concatenate([np.cumprod(x[:3] + 1.0), np.diff(x ** 2), np.cumsum(x[::-1])[:1]])


VECTOR = {"vec_kalman_means", "vec_solve_rhs", "vec_sorted_values", "vec_cumulative_ops", "vec_namedtuple_property",
          "vec_dict_state_rollout"}

_SKIP = {"Body", "SpringSystem", "Particles", "Dense", "Sequential", "Residual", "Momentum", "Gauss", "Params",
         "Vec", "Stateful", "Property", "Shape", "Base", "Derived",
         "LogContext", "PostInit", "QPair", "AbstractShape", "Sq", "OrderedItem", "FrozenPair", "V2",
         "UserGrid", "NewOnIadd", "ArrayLike", "CoeffPoly", "ManualCache"}
_NAMES = [n for n, v in list(globals().items())
          if callable(v) and not n.startswith("_") and n not in _SKIP and getattr(v, "__module__", None) == __name__]

CASES = [(name, X6.copy(), ()) for name in _NAMES]
