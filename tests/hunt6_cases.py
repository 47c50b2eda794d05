"""Realistic functions whose second derivatives hunt6's probes found right (issue 10): likelihoods from scipy, linear
algebra, ODE steps and Newton iterations in loops, in-place recurrences, attention and normalisation layers, classes
(inheritance, properties, operators, dataclasses), closures, meta-learning with an inner mc.grad.  Each takes a float
array of 3 or 4 entries and returns a float; tests/test_hunt6_families.py checks them in several nestings."""
import dataclasses
import math

import numpy as np
import scipy.linalg as sla
import scipy.special as sp
import scipy.stats as st

import mooncake_ast as mc

_XD = np.array([[1.0, 0.5, -0.3], [0.2, -1.0, 0.4], [0.7, 0.1, 0.9], [-0.5, 0.3, 0.2]])
_YD = np.array([0.3, -0.2, 0.8, 0.1])
_M = np.array([[0.5, -0.2, 0.3], [0.1, 0.4, -0.6], [0.7, 0.2, 0.9]])


# ---------------------------------------------------------------- likelihoods


def normal_log_likelihood(p):
    return -np.sum(st.norm.logpdf(_YD, loc=p[0], scale=np.exp(p[1]))) + p[2] ** 2


def student_t_log_pdf(x):
    return np.sum(st.t.logpdf(x, df=3.0))


def logistic_regression(w):
    return np.sum(np.logaddexp(0.0, -(_XD @ w) * np.sign(_YD)))


def cross_entropy_with_expit(w):
    p = sp.expit(_XD @ w)
    return -np.sum(np.log(p) * (_YD > 0) + np.log1p(-p) * (_YD <= 0))


def softmax_entropy(x):
    p = sp.softmax(x)
    return np.sum(sp.entr(p)) + np.sum(sp.xlogy(p, p + 1.0))


def gaussian_process_nll(x):
    t = np.linspace(0, 1, 5)
    y = np.sin(6 * t)
    ell, sf = np.exp(x[0]), np.exp(x[1])
    K = sf ** 2 * np.exp(-0.5 * (t[:, None] - t[None, :]) ** 2 / ell ** 2) + (0.1 + x[2] ** 2) * np.eye(5)
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(K, y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L)))


# ---------------------------------------------------------------- linear algebra


def solve_and_slogdet(x):
    A = np.eye(3) * 2 + np.outer(x, np.sin(x)) * 0.3
    sign, logdet = np.linalg.slogdet(A)
    return np.sum(np.linalg.solve(A, np.cos(x)) ** 2) + sign * logdet


def inverse_weighted(x):
    A = np.eye(3) * 3 + np.outer(x, x) * 0.3
    return np.sum(np.linalg.inv(A) * np.arange(9.0).reshape(3, 3))


def eigh_and_norms(x):
    A = np.diag([1.0, 2.0, 3.5]) + 0.3 * np.outer(x, x)
    w, V = np.linalg.eigh(A)
    return w[0] * 2 + w[2] ** 2 + np.sum(V[:, 0] ** 4) + np.linalg.norm(A, axis=0).sum() + np.linalg.norm(x) ** 3


def pinv_qr_svd(x):
    A = np.outer(x, [1.0, 2.0]) + np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    Q, R = np.linalg.qr(A)
    return np.sum(np.linalg.pinv(A) ** 2) + np.sum(np.abs(np.diag(R)) ** 1.5) + np.linalg.svd(A, compute_uv=False)[0]


def matrix_exponential(x):
    return np.sum(sla.expm(np.outer(x, x[::-1]) * 0.3))


def cholesky_solve(x):
    A = np.outer(x, x) + 2 * np.eye(3)
    return np.sum(sla.cho_solve(sla.cho_factor(A), np.ones(3)) ** 2)


# ---------------------------------------------------------------- loops


def rk4_predator_prey(p):
    def rhs(y):
        return np.array([p[0] * y[0] - y[0] * y[1], -p[1] * y[1] + y[0] * y[1] * p[2]])
    y, h = np.array([1.0, 0.5]), 0.05
    for _ in range(10):
        k1 = rhs(y)
        k2 = rhs(y + h / 2 * k1)
        k3 = rhs(y + h / 2 * k2)
        k4 = rhs(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return np.sum(y ** 2)


def newton_square_roots(x):
    a = x ** 2 + 1.0
    z = np.ones_like(a)
    it = 0
    while it < 30 and np.max(np.abs(z * z - a)) > 1e-14:
        z = 0.5 * (z + a / z)
        it += 1
    return np.sum(z * np.arange(1.0, len(x) + 1))


def recurrence_in_place_2d(x):
    M = np.zeros((len(x), 2))
    M[0, :] = x[0]
    for i in range(1, len(x)):
        M[i, 0] = M[i - 1, 1] * x[i]
        M[i, 1] = M[i - 1, 0] + np.cos(x[i]) * M[i, 0]
    return np.sum(M[:, 0] * M[:, 1])


def branches_in_loop(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0:
            s = s + x[i] ** 3
        elif x[i] > -0.5:
            s = s + np.sin(x[i]) * s
        else:
            s = s - x[i] * s + x[i] ** 2
    return s


def break_after_steps(x):
    s = 0.0
    for i in range(100):
        s = s + x[i % 3] * np.sin(s + i)
        if i >= 6:
            break
    return s * x[0]


# ---------------------------------------------------------------- layers


def attention_block(x):
    Q = np.outer(x, np.arange(1.0, 4.0))
    K = Q * 0.5 + 0.1
    V = np.cos(Q)
    s = Q @ K.T / np.sqrt(3.0)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return np.sum((w @ V) ** 2)


def layer_norm(x):
    y = (x - x.mean()) / np.sqrt(x.var() + 1e-5)
    return np.sum(y * np.arange(1.0, len(x) + 1) ** 2)


def sorted_cumulative(x):
    s = np.sort(x)
    return np.sum(s * np.arange(1.0, len(x) + 1)) + np.sum(np.cumsum(x) ** 2) + np.sum(np.cumprod(x + 2.0))


def einsum_and_where(x):
    A = np.outer(x, x)
    return np.einsum("ij,jk,ki->", A, _M, A) + np.sum(np.where(x > 0, x ** 2, np.sin(x))) + np.sum(np.abs(x) ** 3)


# ---------------------------------------------------------------- classes and closures


class _Base:
    def __init__(self, s):
        self.s = s

    def act(self, x):
        return np.tanh(x) * self.s


class _Child(_Base):
    def __init__(self, s, b):
        super().__init__(s)
        self.b = b

    def act(self, x):
        return super().act(x) + self.b * x ** 2

    @property
    def doubled(self):
        return self.s * 2

    @staticmethod
    def square(x):
        return x * x


def inherited_model(x):
    c = _Child(x[0], x[1])
    return np.sum(c.act(x) ** 2) * c.doubled + np.sum(_Child.square(x))


class _Vec2:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def __add__(self, o):
        return _Vec2(self.a + o.a, self.b + o.b)

    def __mul__(self, k):
        return _Vec2(self.a * k, self.b * k)

    def __matmul__(self, o):
        return self.a * o.a + self.b * o.b


def operator_class(x):
    v, w = _Vec2(x[0], x[1]), _Vec2(np.sin(x[2]), x[0] * x[1])
    u = v + w * 2.0
    return (u @ u) + (u @ v) * x[2]


@dataclasses.dataclass
class _Affine:
    w: np.ndarray
    b: float

    def __call__(self, x):
        return np.sum(np.tanh(self.w * x + self.b))


def dataclass_layer(x):
    return _Affine(x * 2, x[0])(x) ** 2


def nonlocal_closure(x):
    acc = x[0]

    def bump(v):
        nonlocal acc
        acc = acc * v + x[1]
    for v in x:
        bump(v)
    return acc ** 2


def recursion_and_generator(x):
    def rec(v, n):
        return v if n == 0 else rec(np.sin(v) * v + x, n - 1)
    return np.sum(rec(x, 3)) + sum(math.sin(x[0] * k) ** 2 for k in range(1, 4))


def dict_and_list_state(x):
    d = {"a": x, "b": x ** 2, "c": np.sin(x)}
    s = 0.0
    for k in sorted(d):
        s = s * 0.5 + np.sum(d[k] ** 2)
    xs = list(x)
    xs.extend([x[0] * x[1]])
    xs.insert(0, np.sin(x[2]))
    return s + sum(v ** 2 for v in xs[1:3] + xs[::2]) * xs.pop()


# ---------------------------------------------------------------- derivatives inside


def _ridge(w, lam):
    return np.mean((np.tanh(_XD @ w) - _YD) ** 2) + lam * np.sum(w ** 4)


def unrolled_gradient_descent(p):
    w = p.copy()
    for _ in range(3):
        w = w - 0.5 * mc.grad(_ridge)(w, 0.05)
    return _ridge(w, 0.05)


def newton_step_inside(w):
    g = mc.grad(_ridge)(w, 0.01)
    H = mc.hessian(_ridge)(w, 0.01)
    return _ridge(w - np.linalg.solve(H + np.eye(3), g), 0.01)


def value_and_grad_inside(w):
    v, g = mc.value_and_grad(_ridge)(w, 0.01)
    return v + np.sum(g ** 2)


CASES = [normal_log_likelihood, student_t_log_pdf, logistic_regression, cross_entropy_with_expit, softmax_entropy,
         gaussian_process_nll, solve_and_slogdet, inverse_weighted, eigh_and_norms, pinv_qr_svd, matrix_exponential,
         cholesky_solve, rk4_predator_prey, newton_square_roots, recurrence_in_place_2d, branches_in_loop,
         break_after_steps, attention_block, layer_norm, sorted_cumulative, einsum_and_where, inherited_model,
         operator_class, dataclass_layer, nonlocal_closure, recursion_and_generator, dict_and_list_state,
         unrolled_gradient_descent, value_and_grad_inside]
