"""Probes of hunt12: the areas the trunk changed on the day of hunt11's merges, and their interactions -- buffers
made by zeros_like / empty / full / helpers then written through views inside loops and helpers; objects made by
classmethods / staticmethods / factories combined with operators, items, iteration and properties; itertools
(islice, chain, accumulate, tee, pairwise, groupby, ...) over lists and over iterators, inside loops with break;
generators; out= with reductions and array methods; dicts with keys of mixed types (1, 1.0, True, "1", (1,));
scipy.sparse in small physics problems; partial and closures in optimisers; sqrt / norm at 0 inside helpers;
complex intermediates.

Each probe is listed at the bottom in CASES as (name, x, extra): f(x, *extra) with x a float64 vector (the
differentiated argument) and extra non-float constants.  Outputs are floats, except the probes named in VECTOR
(1-D arrays).  Every probe copies x before writing to it.  Kinks sit away from the points, except the sqrt / norm
probes at 0, whose central differences are 0 (the convention the library documents for abs and norm)."""
from __future__ import annotations

import dataclasses
import functools
import itertools
import operator

import numpy as np
import scipy.sparse as sps
import scipy.sparse.linalg as spla

X6 = np.array([0.3, -0.7, 1.1, 0.5, -0.2, 0.9])
X4 = np.array([0.4, -0.3, 0.8, 0.6])
W32 = np.array([[0.2, -0.1], [0.4, 0.3], [0.5, -0.2]])
DT = 0.1


# ================================================================ buffers written through views
def buf_zeros_like_rows_enumerate(x):
    A = x.reshape(3, 2)
    out = np.zeros_like(A)
    for i, r in enumerate(out):
        r[:] = A[i] ** 2 + A[(i + 1) % 3]
    return np.sum(out * out) + out[2, 1]


def _fill_into(dst, v):
    dst[:] = np.sin(v) * v


def buf_empty_fill_helper(x):
    out = np.empty(6)
    _fill_into(out[::2], x[:3])
    out[1::2] = np.cos(x[3:])
    return np.sum(out ** 2 * np.arange(1.0, 7.0))


def buf_full_write_T(x):
    B = np.full((2, 3), 0.5)
    B.T[:, 0] = x[:3]
    B.T[:, 1] = x[3:] * x[:3]
    return np.sum(B ** 3)


def _make_buffer(n):
    return np.zeros((n, 2))


def buf_helper_row_iadd_loop(x):
    buf = _make_buffer(3)
    for i in range(3):
        row = buf[i]
        row += x[2 * i:2 * i + 2] * x[i]
    return np.sum(np.sin(buf))


def buf_ones_reshape_prod(x):
    b = np.ones(6)
    m = b.reshape(2, 3)
    m[1] = x[:3] * x[3:] + 1.0
    return np.prod(b) + np.sum(m[0] * x[3:])


def _accumulate_flat(buf, v):
    flat = buf.ravel()
    flat[:v.size] += v ** 2


def buf_ravel_helper_accumulate(x):
    buf = np.zeros((2, 3))
    for k in range(2):
        _accumulate_flat(buf, x[3 * k:3 * k + 3])
    return float(np.sum(buf @ W32))


def buf_list_of_zeros_like(x):
    bufs = [np.zeros_like(x[:3]) for _ in range(2)]
    for b, s in zip(bufs, (x[:3], x[3:])):
        b[:] = s * s + s
    return float(np.sum(bufs[0] * bufs[1]))


def buf_reversed_view_write(x):
    out = np.zeros(6)
    rev = out[::-1]
    for i in range(6):
        rev[i] = x[i] * (i + 1)
    return float(np.sum(out * np.arange(6.0)) + out[0] * out[5])


def buf_copy_of_zeros(x):
    z = np.zeros(6).copy()
    mid = z[2:4]
    mid[:] = x[:2] * x[4:]
    mid[mid > 0] = 0.0
    return float(np.sum(np.exp(z)))


def buf_zeros_shape_2d_col_loop(x):
    A = x.reshape(2, 3)
    out = np.zeros(A.shape)
    for j in range(A.shape[1]):
        col = out[:, j]
        col[:] = A[:, j] * A[:, (j + 1) % 3]
        col *= 2.0
    return float(np.sum(out ** 2))


def buf_complex_real_view(x):
    z = np.zeros(3, dtype=complex)
    z.real[:] = x[:3]
    z.imag[:] = x[3:]
    return float(np.sum(np.abs(z * z)))


def buf_fill_then_view_scale(x):
    out = np.empty(6)
    out.fill(1.0)
    v = out[1:5]
    v *= x[1:5]
    v[::2] += x[:2]
    return float(np.sum(out ** 2))


# ================================================================ classmethod / staticmethod / factory objects
class Vec2:
    def __init__(self, a, b):
        self.a = a
        self.b = b

    @classmethod
    def from_array(cls, v):
        return cls(v[0], v[1])

    @staticmethod
    def unit():
        return Vec2(1.0, 0.0)

    def __add__(self, other):
        return Vec2(self.a + other.a, self.b + other.b)

    def __mul__(self, s):
        return Vec2(self.a * s, self.b * s)

    __rmul__ = __mul__

    def __iter__(self):
        yield self.a
        yield self.b

    def __getitem__(self, i):
        return (self.a, self.b)[i]

    @property
    def norm2(self):
        return self.a * self.a + self.b * self.b


def cls_vec_ops_iter(x):
    u = Vec2.from_array(x[:2])
    w = Vec2.from_array(x[2:4])
    s = u + 0.5 * w + Vec2.unit()
    a, b = s
    return s.norm2 + a * b + s[1] * u[0]


def cls_vec_sum_loop(x):
    acc = Vec2.unit() * 0.0
    for i in range(3):
        acc = acc + Vec2.from_array(x[2 * i:2 * i + 2]) * (i + 1.0)
    return acc.norm2 + sum(acc)


class Poly:
    def __init__(self, coeffs):
        self.c = coeffs

    @classmethod
    def from_roots(cls, r):
        c = np.array([1.0])
        for root in r:
            c = np.convolve(c, np.array([1.0, -root]))
        return cls(c)

    def __call__(self, t):
        return np.polyval(self.c, t)

    def __len__(self):
        return len(self.c)

    def __getitem__(self, k):
        return self.c[k]

    def __mul__(self, other):
        return Poly(np.convolve(self.c, other.c))


def cls_poly_from_roots(x):
    p = Poly.from_roots(x[:3])
    q = Poly.from_roots(x[3:5])
    r = p * q
    return r(0.7) + sum(r[k] * k for k in range(len(r)))


@dataclasses.dataclass
class Gauss:
    mu: float
    log_sigma: float

    @classmethod
    def standard(cls):
        return cls(0.0, 0.0)

    @property
    def sigma(self):
        return np.exp(self.log_sigma)

    def logpdf(self, t):
        return -0.5 * ((t - self.mu) / self.sigma) ** 2 - self.log_sigma

    def __add__(self, other):
        return Gauss(self.mu + other.mu, 0.5 * np.log(self.sigma ** 2 + other.sigma ** 2))


def cls_dataclass_gauss_sum(x):
    g = Gauss.standard()
    for i in range(2):
        g = g + Gauss(x[2 * i], x[2 * i + 1])
    return g.logpdf(0.3) + g.sigma


class Base:
    def __init__(self, v):
        self.v = v

    @classmethod
    def make(cls, v):
        return cls(v * 2.0)

    def __sub__(self, other):
        return type(self)(self.v - other.v)

    def energy(self):
        return np.sum(self.v ** 2)


class Derived(Base):
    def energy(self):
        return super().energy() + np.sum(np.sin(self.v))


def cls_inherited_classmethod(x):
    a = Derived.make(x[:3])
    b = Derived.make(x[3:])
    return (a - b).energy() + a.energy()


def _factory(kind, v):
    return {"vec": Vec2, "der": Derived}[kind](v[0], v[1]) if kind == "vec" else Derived(v)


def cls_factory_dispatch(x):
    p = _factory("vec", x[:2])
    d = _factory("der", x[2:])
    return (p * 3.0).norm2 + d.energy()


# ================================================================ itertools over lists and iterators
def it_islice_iter_break(x):
    it = iter(list(x))
    total = 0.0
    for v in itertools.islice(it, 1, 5):
        if v > 1.0:
            break
        total += v * v
    rest = next(it)
    return total + rest * 3.0


def it_chain_gen_break(x):
    gen = (v ** 2 for v in x[3:])
    total = 0.0
    for k, v in enumerate(itertools.chain(list(x[:3]), gen)):
        total += (k + 1) * v
        if k == 4:
            break
    return total


def it_accumulate_mul(x):
    prods = list(itertools.accumulate(list(x[:4] + 1.5), operator.mul))
    return sum(prods) + prods[-1] * x[5]


def it_accumulate_iter_initial(x):
    run = itertools.accumulate(iter(x), lambda a, b: 0.5 * a + b * b, initial=x[0])
    out = 0.0
    for i, v in enumerate(run):
        out += v * (i + 1)
    return out


def it_tee_offset(x):
    a, b = itertools.tee(iter(x))
    next(b)
    return sum(p * q for p, q in zip(a, b))


def it_pairwise_loop(x):
    s = 0.0
    for p, q in itertools.pairwise(x):
        s += np.sin(p - q) * q
    return s


def it_groupby_keys(x):
    keys = [0, 0, 1, 1, 1, 2]
    s = 0.0
    for k, grp in itertools.groupby(zip(keys, x), key=lambda kv: kv[0]):
        vals = [v for _, v in grp]
        s += (k + 1) * np.prod(vals)
    return s


def it_zip_longest_fill(x):
    s = 0.0
    for a, b in itertools.zip_longest(x[:4], x[4:], fillvalue=1.0):
        s += a * b + a
    return s


def it_starmap_compress(x):
    pairs = list(zip(x[:3], x[3:]))
    prods = list(itertools.starmap(lambda p, q: p * q + p, pairs))
    kept = list(itertools.compress(x, [1, 0, 1, 1, 0, 1]))
    return sum(prods) * sum(kept)


def it_islice_generator_step(x):
    def squares(v):
        for t in v:
            yield t * t

    return sum(itertools.islice(squares(x), 0, None, 2)) + x[1]


def it_chain_from_iterable_rows(x):
    rows = x.reshape(3, 2)
    s = 0.0
    for i, v in enumerate(itertools.chain.from_iterable(rows)):
        s += v ** 3 / (i + 1)
    return s


def it_shared_iterator_two_loops(x):
    it = iter(x)
    first = 0.0
    for v in it:
        first += v
        if first > 0.5:
            break
    second = 0.0
    for v in it:
        second += v * v
    return first * 2.0 + second


def it_takewhile_dropwhile(x):
    idx = list(range(6))
    small = [x[i] for i in itertools.takewhile(lambda i: i < 3, idx)]
    big = [x[i] for i in itertools.dropwhile(lambda i: i < 3, idx)]
    return sum(a * b for a, b in zip(small, big))


# ================================================================ generators
def _running_products(v):
    p = 1.0
    for t in v:
        p = p * (1.0 + t)
        yield p


def gen_running_product_break(x):
    s = 0.0
    for i, p in enumerate(_running_products(x)):
        s += p
        if i == 3:
            break
    return s


def gen_yield_from(x):
    def inner(v):
        yield from (t * 2.0 for t in v)
        yield np.sum(v)

    return sum(t * t for t in inner(x[:4]))


# ================================================================ out= with reductions and methods
def out_max_axis0(x):
    A = x.reshape(2, 3) + np.array([[0.0, 2.0, 0.0], [1.5, 0.0, 2.5]])
    o = np.empty(3)
    A.max(0, out=o)
    return float(np.sum(o ** 2) + o[1] * x[0])


def out_sum_axis_then_inplace(x):
    A = x.reshape(3, 2)
    o = np.zeros(3)
    np.sum(A * A, axis=1, out=o)
    o *= 2.0
    return float(np.sum(np.sqrt(o + 1.0)))


def out_mean_into_row(x):
    A = x.reshape(3, 2)
    buf = np.zeros((2, 2))
    A.mean(axis=0, out=buf[1])
    buf[0] = A[0] * A[2]
    return float(np.sum(buf ** 3))


def out_multiply_loop(x):
    a = x[:3].copy()
    for k in range(3):
        np.multiply(a, x[3:] + k, out=a)
    return float(np.sum(a))


def out_cumsum_reversed(x):
    o = np.empty(6)
    np.cumsum(x * x, out=o)
    return float(np.sum(o[::-1] * np.arange(6.0)))


def out_matmul_loop(x):
    v = x[:2].copy()
    M = np.array([[0.9, 0.2], [-0.1, 0.8]]) * x[2]
    o = np.empty(2)
    for _ in range(3):
        np.matmul(M, v, out=o)
        v = np.tanh(o)
    return float(np.sum(v))


def out_prod_min_methods(x):
    A = x.reshape(2, 3) + 1.5
    p = np.empty(3)
    m = np.empty(2)
    r1 = A.prod(axis=0, out=p)
    r2 = A.min(axis=1, out=m)
    return float(np.sum(r1) + np.sum(r2 * m))


def out_clip_inplace(x):
    a = x * 2.0
    np.clip(a, -1.0, 1.5, out=a)
    return float(np.sum(a ** 2))


# ================================================================ dicts with mixed key types
def dict_mixed_keys_loop(x):
    d = {1: x[0], "1": x[1], (1,): x[2], 1.5: x[3], None: x[4]}
    s = 0.0
    for k, v in d.items():
        w = 2.0 if isinstance(k, str) else 1.0
        s += w * v * v
    return s + d[1.0] * d[(1,)]


def dict_true_one_collision(x):
    d = {True: x[0], 1: x[1], 0: x[2], False: x[3], 0.0: x[4]}
    return d[1] * 3.0 + d[False] * 2.0 + len(d) * x[5]


def dict_update_mixed_loop(x):
    d = {0: x[0], "a": x[1]}
    for i, v in enumerate(x[2:]):
        key = i if i % 2 else str(i)
        d[key] = d.get(key, 1.0) * v + d[0]
    return sum(v * v for v in d.values())


def dict_frozenset_tuple_keys(x):
    d = {frozenset({1, 2}): x[0], (1, 2): x[1], (2, 1): x[2], frozenset({2, 1, 1}): x[3]}
    return d[frozenset({2, 1})] * d[(1, 2)] + d[(2, 1)] + len(d)


# ================================================================ scipy.sparse in small physics problems
def _laplacian(n):
    return sps.diags([-np.ones(n - 1), 2.0 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1], format="csr")


def sparse_spring_energy(x):
    K = _laplacian(6)
    return float(0.5 * x @ (K @ x) - np.sum(np.arange(1.0, 7.0) * x))


def sparse_implicit_heat(x):
    K = _laplacian(6)
    A = (sps.identity(6, format="csc") + 0.2 * K).tocsc()
    u = x.copy()
    for _ in range(3):
        u = spla.spsolve(A, u)
    return float(np.sum(u ** 2))


def sparse_variable_stiffness(x):
    K = _laplacian(6) + sps.diags(np.exp(x))
    u = spla.spsolve(K.tocsc(), np.ones(6))
    return float(np.sum(u))


def sparse_matvec_nonlinear_steps(x):
    L = _laplacian(6)
    u = x.copy()
    for _ in range(3):
        u = u - DT * (L @ u) - DT * u ** 3
    return float(np.sum(u * u))


# ================================================================ partial and closures in optimisers
def _loss(w, data, lam):
    return np.sum((w - data) ** 2) + lam * np.sum(w ** 4)


def _loss_grad(w, data, lam):
    return 2.0 * (w - data) + 4.0 * lam * w ** 3


def opt_partial_gd(x):
    data = np.array([0.5, -0.2, 0.1])
    g = functools.partial(_loss_grad, data=data, lam=x[3])
    w = x[:3].copy()
    for _ in range(4):
        w -= 0.1 * g(w)
    return _loss(w, data, x[3])


def _make_momentum(lr, beta):
    vel = [0.0]

    def step(w, g):
        vel[0] = beta * vel[0] + g
        return w - lr * vel[0]

    return step


def opt_closure_momentum(x):
    step = _make_momentum(0.1, x[4] * 0.5)
    w = x[:3]
    for _ in range(3):
        w = step(w, 2.0 * w + x[3])
    return float(np.sum(w ** 2))


def opt_partial_lambda_map(x):
    scale = functools.partial(lambda a, b, c=1.0: a * b + c, c=x[0])
    vals = list(map(scale, x[1:], x[:-1]))
    return sum(v * v for v in vals)


def opt_closure_counter_schedule(x):
    t = [0]

    def lr():
        t[0] += 1
        return 0.5 / t[0]

    w = x[:2].copy()
    for _ in range(3):
        w = w - lr() * (w - x[2:4]) * x[4]
    return float(np.sum(w ** 2))


# ================================================================ sqrt / norm at 0 inside helpers
def _dist(a, b):
    return np.linalg.norm(a - b)


def sqrt_norm_zero_helper_pairs(x):
    pts = [x[:2], x[2:4], x[:2]]
    s = 0.0
    for i in range(3):
        for j in range(i + 1, 3):
            s += _dist(pts[i], pts[j]) * x[4]
    return s


def _radius(v):
    return np.sqrt(np.sum(v * v))


def sqrt_radius_zero_squared(x):
    d = x[:3] - x[:3]
    return _radius(d) * x[3] + _radius(x[3:]) ** 2


def sqrt_hypot_zero_loop(x):
    s = 0.0
    for a in x[:3]:
        s += np.hypot(a - a, 0.0) + np.hypot(a, 1.0)
    return s


# ================================================================ complex intermediates
def cx_mandel_loop(x):
    c = complex(x[0], x[1]) * 0.3
    z = 0j
    for _ in range(4):
        z = z * z + c
    return abs(z) + z.real * x[2]


def cx_exp_phase_sum(x):
    z = np.exp(1j * x) * (1.0 + x)
    return float(np.sum(z.real) * np.sum(z.imag) + np.abs(np.sum(z)))


def cx_fft_power(x):
    F = np.fft.fft(x * x)
    return float(np.sum(np.abs(F) ** 2) + F[1].real)


def cx_buffer_write_loop(x):
    z = np.zeros(3, dtype=complex)
    for k in range(3):
        z[k] = x[k] + 1j * x[k + 3]
    w = z * np.conj(z[::-1])
    return float(np.sum(w.real) + np.abs(w[1]))


# ================================================================ batch 2: positional out= and NumPy arguments
def pos_out_add_ufunc(x):
    o = np.empty(3)
    np.add(x[:3] * x[3:], x[:3], o)
    return float(np.sum(o ** 2))


def pos_out_sum_reduction(x):
    o = np.zeros(2)
    np.sum(x.reshape(3, 2) ** 2, 0, None, o)
    return float(np.sum(np.sin(o)))


def pos_out_clip(x):
    a = x * 2.0
    np.clip(a, -1.0, 1.5, a)
    return float(np.sum(a ** 3))


def pos_out_cumsum(x):
    o = np.empty(6)
    np.cumsum(x * x, 0, None, o)
    return float(np.sum(o * np.arange(6.0)))


def pos_args_mix(x):
    A = x.reshape(2, 3)
    s = np.sum(A, 1) * np.mean(A, 0)[:2]
    c = np.concatenate((A, A ** 2), 1)
    r = np.roll(x, 2) * np.repeat(x[:3], 2)
    d = np.diff(x, 2)
    return float(np.sum(s) + np.sum(c[:, ::2]) + np.sum(r) + np.sum(d ** 2) + np.linalg.norm(A, 2))


def pos_args_take_sort_where(x):
    A = x.reshape(3, 2)
    t = np.take(x, [4, 0, 2], 0)
    srt = np.sort(A, 0)
    w = np.where(x > 0.0, x, x ** 2)
    return float(np.sum(t * srt[:, 1]) + np.sum(w) + np.interp(0.4, [0.0, 1.0], [x[0], x[1]]))


# ================================================================ batch 2: more views of made buffers
def view_flat_iterator_write(x):
    out = np.zeros((2, 3))
    out.flat[::2] = x[:3] ** 2
    out.flat[1] = x[3] * x[4]
    return float(np.sum(out @ np.array([1.0, 2.0, 3.0])))


def view_fill_diagonal(x):
    M = np.zeros((3, 3))
    np.fill_diagonal(M, x[:3])
    M[0, 1:] = x[3:5]
    return float(np.sum(M @ M) + np.trace(M) * x[5])


def view_copyto_slice(x):
    out = np.ones(6)
    np.copyto(out[1:4], x[:3] * x[3:])
    return float(np.prod(out + 1.0))


def view_add_at_buffer(x):
    out = np.zeros(4)
    np.add.at(out, [0, 1, 1, 3], x[:4] ** 2)
    return float(np.sum(out * np.array([1.0, -2.0, 0.5, 3.0])) + out[1] ** 2)


def view_moveaxis_write(x):
    out = np.zeros((2, 3))
    m = np.moveaxis(out, 0, 1)
    m[:, 0] = np.sin(x[:3])
    m[1:, 1] = x[3:5]
    return float(np.sum(out ** 2))


def view_ellipsis_newaxis_write(x):
    out = np.zeros((3, 2))
    e = out[..., 1]
    e[:] = x[:3] * x[3:]
    nv = out[None, :, 0]
    nv[0, :] = x[3:] ** 2
    return float(np.sum(out ** 3))


def layout_ascontiguous_T(x):
    A = np.ascontiguousarray(x.reshape(2, 3).T)
    f = A.ravel()
    f[::2] *= 2.0
    return float(np.sum(A * np.arange(6.0).reshape(3, 2)))


def layout_array_of_T_reshape(x):
    B = np.array(x.reshape(3, 2).T)
    B.reshape(-1)[1:3] = 0.0
    r = B.reshape(-1)
    r[4] = r[4] * 3.0
    return float(np.sum(B ** 2 * np.arange(6.0).reshape(2, 3)))


# ================================================================ batch 2: iterators shared by wrappers
def iter_zip_same_iterator(x):
    it = iter(x)
    return sum(a * b for a, b in zip(it, it))


def iter_next_default_loop(x):
    it = iter(x[:4])
    s = 0.0
    while True:
        v = next(it, None)
        if v is None:
            break
        s += v * v
    return s


def iter_enumerate_break_then_list(x):
    it = iter(x)
    head = 0.0
    for i, v in enumerate(it, 1):
        head += i * v
        if i == 2:
            break
    tail = list(it)
    return head * tail[0] + sum(tail)


def iter_map_partial_read(x):
    m = map(lambda t: t * t + 1.0, x)
    a = next(m)
    b = next(m)
    rest = sum(m)
    return a * b + rest


def iter_filter_islice_chain(x):
    pos = filter(lambda t: t > 0.0, x)
    first2 = list(itertools.islice(pos, 2))
    rest = list(itertools.chain(pos, [1.0]))
    return sum(first2) * len(rest) + sum(v * v for v in rest)


# ================================================================ batch 2: products with zeros, mixed keys, objects
def prod_with_zero_entry(x):
    v = x.copy()
    v[2] = 0.0
    return float(np.prod(v[:4]) + np.prod(x[:3] - x[:3] + x[3:]))


def prod_axis_zero_row(x):
    A = np.stack([x[:3], x[:3] * 0.0, x[3:]])
    return float(np.sum(np.prod(A, axis=0)) + np.sum(np.prod(A, 1) ** 2))


def dict_numpy_float_keys(x):
    d = {}
    for k, v in zip(np.array([1.0, 2.0, 1.0, 3.0]), x[:4]):
        d[k] = d.get(k, 0.0) + v * v
    return d[1] * d[2.0] + d[np.float64(3.0)]


def dict_neg_zero_key(x):
    d = {0.0: x[0], -0.0: x[1], 2: x[2], 2.0: x[3]}
    return d[0] * 2.0 + d[2] * x[4] + len(d)


class Money:
    def __init__(self, v):
        self.v = v

    @classmethod
    def of(cls, v):
        return cls(v)

    def __radd__(self, other):
        return Money(other + self.v) if not isinstance(other, Money) else Money(other.v + self.v)

    def __add__(self, other):
        return Money(self.v + (other.v if isinstance(other, Money) else other))

    def __neg__(self):
        return Money(-self.v)

    def __truediv__(self, s):
        return Money(self.v / s)

    def __lt__(self, other):
        return self.v < other.v


def cls_sum_sorted_neg(x):
    items = [Money.of(v * v) for v in x]
    total = sum(items)
    ordered = sorted(items)
    return (total / 2.0).v + (-ordered[0]).v * 3.0 + ordered[-1].v


class Segment:
    def __init__(self, pts):
        self.pts = pts

    @classmethod
    def from_flat(cls, v):
        return cls(v.reshape(-1, 2))

    def __getitem__(self, k):
        if isinstance(k, slice):
            return Segment(self.pts[k])
        return self.pts[k]

    def __len__(self):
        return len(self.pts)

    @property
    def length(self):
        d = np.diff(self.pts, axis=0)
        return np.sum(np.sqrt(np.sum(d * d, axis=1) + 0.1))


def cls_segment_slices(x):
    s = Segment.from_flat(x)
    half = s[1:]
    return s.length + half.length * len(half) + np.sum(s[0] * half[0])


# ================================================================ vector outputs
def vec_buf_zeros_like_loop_rows(x):
    A = x.reshape(3, 2)
    out = np.zeros_like(A)
    for i in range(3):
        out[i, :] = A[i] * A[i].sum()
    return out.ravel()


def vec_out_max_axis0(x):
    A = x.reshape(2, 3) + np.array([[0.0, 2.0, 0.0], [1.5, 0.0, 2.5]])
    o = np.zeros(3)
    A.max(axis=0, out=o)
    return o * x[3:]


def vec_cls_vec_iter(x):
    v = Vec2.from_array(x[:2]) + Vec2.from_array(x[2:4]) * x[4]
    return np.array(list(v))


VECTOR = {"vec_buf_zeros_like_loop_rows", "vec_out_max_axis0", "vec_cls_vec_iter"}

_SCALAR6 = [
    "buf_zeros_like_rows_enumerate", "buf_empty_fill_helper", "buf_full_write_T", "buf_helper_row_iadd_loop",
    "buf_ones_reshape_prod", "buf_ravel_helper_accumulate", "buf_list_of_zeros_like", "buf_reversed_view_write",
    "buf_copy_of_zeros", "buf_zeros_shape_2d_col_loop", "buf_complex_real_view", "buf_fill_then_view_scale",
    "cls_vec_ops_iter", "cls_vec_sum_loop", "cls_poly_from_roots", "cls_inherited_classmethod",
    "cls_factory_dispatch", "it_islice_iter_break", "it_chain_gen_break", "it_accumulate_mul",
    "it_accumulate_iter_initial", "it_tee_offset", "it_pairwise_loop", "it_groupby_keys", "it_zip_longest_fill",
    "it_starmap_compress", "it_islice_generator_step", "it_chain_from_iterable_rows",
    "it_shared_iterator_two_loops", "it_takewhile_dropwhile", "gen_running_product_break", "gen_yield_from",
    "out_max_axis0", "out_sum_axis_then_inplace", "out_mean_into_row", "out_multiply_loop", "out_cumsum_reversed",
    "out_matmul_loop", "out_prod_min_methods", "out_clip_inplace", "dict_mixed_keys_loop",
    "dict_true_one_collision", "dict_update_mixed_loop", "dict_frozenset_tuple_keys", "sparse_spring_energy",
    "sparse_implicit_heat", "sparse_variable_stiffness", "sparse_matvec_nonlinear_steps", "opt_partial_gd",
    "opt_closure_momentum", "opt_partial_lambda_map", "opt_closure_counter_schedule",
    "sqrt_norm_zero_helper_pairs", "sqrt_radius_zero_squared", "sqrt_hypot_zero_loop", "cx_mandel_loop",
    "cx_exp_phase_sum", "cx_fft_power", "cx_buffer_write_loop", "vec_buf_zeros_like_loop_rows",
    "vec_out_max_axis0", "vec_cls_vec_iter",
    "pos_out_add_ufunc", "pos_out_sum_reduction", "pos_out_clip", "pos_out_cumsum", "pos_args_mix",
    "pos_args_take_sort_where", "view_flat_iterator_write", "view_fill_diagonal", "view_copyto_slice",
    "view_add_at_buffer", "view_moveaxis_write", "view_ellipsis_newaxis_write", "layout_ascontiguous_T",
    "layout_array_of_T_reshape", "iter_zip_same_iterator", "iter_next_default_loop",
    "iter_enumerate_break_then_list", "iter_map_partial_read", "iter_filter_islice_chain", "prod_with_zero_entry",
    "prod_axis_zero_row", "dict_numpy_float_keys", "dict_neg_zero_key", "cls_sum_sorted_neg", "cls_segment_slices",
]
_X4_NAMES = {"cls_dataclass_gauss_sum"}

CASES = [(name, X6.copy(), ()) for name in _SCALAR6] + [(name, X4.copy(), ()) for name in sorted(_X4_NAMES)]
