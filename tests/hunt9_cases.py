"""Probes of hunt9: everyday code through the paths merged on the morning of 2026-11-28 (lazy iteration, strong
zeros, held state, overlapping arguments, inner derivatives writing their argument, typed number calls, module-level
numbers, object arrays, sparse matrices, metaclass __call__, clip keywords, integrators' args=, `//=`, second
orders of everyday code, random permutations).  Each probe is a function of float data; tests/test_regress_hunt9.py
checks them with mc.testing.check_derivatives in both modes, and some second orders against finite differences of
mc.grad."""
from __future__ import annotations

import functools
import logging
import math
import statistics
from collections import namedtuple

import numpy as np

_log = logging.getLogger("hunt9")

SCALE = 1.5
OFFSET = 2
FLAG = True


# ---- family: enumerate over a list of arrays -------------------------------------------------------------------
def enum_weighted(x):
    parts = [x, 2.0 * x, np.sin(x)]
    total = 0.0
    for i, v in enumerate(parts):
        total = total + (i + 1) * np.sum(v * v)
    return total


def enum_start(x):
    total = 0.0
    for i, v in enumerate(x, start=1):
        total = total + v ** 2 / i
    return total


def enum_break(x):
    total = 0.0
    for i, v in enumerate(x):
        if i >= 3:
            break
        total = total + math.sin(v) * v
    return total


def enum_inplace(x):
    out = np.zeros_like(x)
    for i, v in enumerate(x):
        out[i] = v * (i + 1.0)
        out[i] += math.exp(v)
    return np.sum(out ** 2)


def enum_list_append(x):
    acc = []
    for i, v in enumerate(x):
        acc.append(v * x[(i + 1) % len(x)])
    return sum(acc)


def enum_dict_values(x):
    d = {"a": x[:2], "b": x[2:] * 3.0, "c": np.cos(x)}
    s = 0.0
    for k, (name, arr) in enumerate(d.items()):
        s = s + (k + 0.5) * np.sum(arr ** 2)
    return s


# ---- family: zip loops ------------------------------------------------------------------------------------------
def zip_pair(x, y):
    s = 0.0
    for a, b in zip(x, y):
        s = s + a * b + math.tanh(a - b)
    return s


def zip_uneven(x):
    s = 0.0
    for a, b in zip(x, x[1:]):
        s = s + (b - a) ** 2
    return s


def zip_three(x):
    s = 0.0
    for a, b, c in zip(x[:-2], x[1:-1], x[2:]):
        s = s + a * c - b * b
    return s


def zip_lists_of_arrays(x):
    ws = [x, x[::-1], x * x]
    bs = [1.0, 2.0, 3.0]
    out = 0.0
    for w, b in zip(ws, bs):
        out = out + np.sum(np.tanh(w + b))
    return out


def zip_enumerate(x, y):
    s = 0.0
    for i, (a, b) in enumerate(zip(x, y)):
        s = s + i * a * b
    return s


def zip_strict_dict(x):
    keys = ["u", "v", "w"]
    d = dict(zip(keys, [x[0], x[1] * x[2], x[3]]))
    return d["u"] * d["v"] + d["w"] ** 2


# ---- family: generators and math.fsum / sum / statistics ---------------------------------------------------------
def gen_fsum(x):
    return math.fsum(v * v for v in x)


def gen_fsum_cond(x):
    return math.fsum(math.sin(v) for v in x if v > 0.0)


def gen_sum_enumerate(x):
    return sum(i * v ** 3 for i, v in enumerate(x))


def _squares(xs):
    for v in xs:
        yield v * v


def gen_function(x):
    return math.fsum(_squares(x)) + sum(_squares(x[::2]))


def gen_prod(x):
    return math.prod(1.0 + v for v in x)


def gen_stats_mean(x):
    return statistics.mean(v * v for v in x)


def gen_max(x):
    return max(v * v - v for v in x)


def gen_next(x):
    it = (v * 2.0 for v in x)
    first = next(it)
    second = next(it)
    return first * second + sum(it)


# ---- family: sqrt of a norm in loops (strong zeros + break) ------------------------------------------------------
def sqrt_norm_break(x):
    total = 0.0
    for k in range(10):
        n = math.sqrt(np.sum(x * x) + k)
        total = total + n
        if total > 8.0:
            break
    return total


def sqrt_at_zero_masked(x):
    return np.sum(np.sqrt(np.maximum(x, 0.0)))


def sqrt_norm_rows(x):
    m = x.reshape(2, 3)
    s = 0.0
    for row in m:
        s = s + np.sqrt(np.dot(row, row))
    return s


def sqrt_where_zero(x):
    y = np.where(x > 0.0, x, 0.0)
    return np.sum(np.sqrt(y) * x)


def cbrt_where(x):
    return np.sum(np.cbrt(np.where(x > 0, x, 0.0)) + x ** 2)


def arcsin_clip(x):
    return np.sum(np.arcsin(np.clip(x, -1.0, 1.0)))


def frac_pow_masked(x):
    y = np.where(x > 0, x, 0.0)
    return np.sum(y ** 1.5 + y ** 0.5 * 0.1)


def frac_pow_scalar_loop(x):
    s = 0.0
    for v in x:
        s = s + max(v, 0.0) ** 2.5
    return s


def entr_like(x):
    p = np.where(x > 0, x, 0.0)
    return np.sum(np.where(p > 0, -p * np.log(np.where(p > 0, p, 1.0)), 0.0))


def scipy_entr(x):
    from scipy.special import entr
    p = np.abs(x)
    return np.sum(entr(p / np.sum(p)))


def quotient_zero_num(x):
    # numerator can be 0; denominator safe
    return np.sum(np.where(x > 0, x, 0.0) / (1.0 + x * x))


def eigh_gap(x):
    a = np.outer(x, x) + np.diag(np.arange(len(x), dtype=float))
    w, v = np.linalg.eigh(a)
    return np.sum(w * w) + np.sum(v[:, -1] ** 2 * x)


def hypot_loop(x):
    s = 0.0
    for a, b in zip(x[::2], x[1::2]):
        s = s + math.hypot(a, b)
    return s


def sqrt_scalar_zero(x):
    # sqrt(0) reached with zero slope: strong zero must keep the gradient finite
    z = x[0] - x[0]
    return math.sqrt(z * z) + x[1] ** 2


# ---- family: class methods with enumerate / zip over lists of arrays ----------------------------------------------
class Mlp:
    def __init__(self, sizes, seed=0):
        rng = np.random.default_rng(seed)
        self.ws = [rng.standard_normal((a, b)) * 0.5 for a, b in zip(sizes[:-1], sizes[1:])]
        self.bs = [np.zeros(b) + 0.1 for b in sizes[1:]]

    def forward(self, x):
        h = x
        for i, (w, b) in enumerate(zip(self.ws, self.bs)):
            h = h @ w + b
            if i < len(self.ws) - 1:
                h = np.tanh(h)
        return h

    def loss(self, x):
        return float(np.sum(self.forward(x) ** 2))


_NET = Mlp([4, 5, 3])


def mlp_loss(x):
    return _NET.loss(x)


def mlp_params(ws):
    h = np.linspace(-1.0, 1.0, 4)
    for w in ws:
        h = np.tanh(h @ w)
    return np.sum(h ** 2)


class Accum:
    def __init__(self):
        self.terms = []

    def add(self, v):
        self.terms.append(v)
        return self

    def total(self):
        s = 0.0
        for i, t in enumerate(self.terms):
            s = s + np.sum(t) * (i + 1)
        return s


def accum_method(x):
    a = Accum()
    for v in (x, x * x, np.sqrt(x * x + 1.0)):
        a.add(v)
    return a.total()


class Poly:
    def __init__(self, coefs):
        self.coefs = coefs

    def __call__(self, t):
        out = 0.0
        for k, c in enumerate(reversed(self.coefs)):
            out = out + c * t ** k
        return out


def poly_object(x):
    p = Poly([x[0], x[1], x[2]])
    return p(x[3]) + p(0.5)


# ---- family: module-level numbers -------------------------------------------------------------------------------
def global_scale(x):
    return np.sum(x * SCALE) + OFFSET * x[0] ** 2 + (1.0 if FLAG else 0.0) * x[1]


def global_in_loop(x):
    s = 0.0
    for v in x:
        s = s + v * SCALE ** 2 - OFFSET
    return s


def global_in_helper(x):
    return _scaled(x) * SCALE


def _scaled(x):
    return np.sum(np.sin(x)) * OFFSET


# ---- family: overlapping arguments ------------------------------------------------------------------------------
def two_views(a, b):
    return np.sum(a ** 2) * np.sum(b) + np.dot(a[: len(b)], b)


def two_same(a, b):
    return np.sum(a * b) + np.sum(np.sin(a) * b ** 2)


def write_one_read_other(a, b):
    a = a.copy()
    a[0] = b[1] * 2.0
    return np.sum(a * b)


def inplace_first_overlap(a, b):
    a += 1.0
    return np.sum(a * a) + np.sum(b)


# ---- family: inner derivatives, nested writes --------------------------------------------------------------------
def _inner_energy(y):
    return np.sum(y ** 3) / 3.0


def grad_descent_inner(x):
    import mooncake_ast as mc
    y = x.copy()
    g = mc.grad(_inner_energy)
    for _ in range(3):
        y = y - 0.1 * g(y)
    return np.sum(y ** 2)


def _inner_writes(y):
    y *= 2.0
    return np.sum(np.sin(y))


def inner_grad_writes(x):
    import mooncake_ast as mc
    g = mc.grad(_inner_writes)(x.copy())
    return np.sum(g * x)


def inner_vg(x):
    import mooncake_ast as mc
    v, g = mc.value_and_grad(_inner_energy)(x)
    return v + np.sum(g * g)


# ---- family: typed calls returning numbers ----------------------------------------------------------------------
def _sq_or(x, k):
    if k > 2:
        return x * x
    return x + k


def number_calls_loop(x):
    s = 0.0
    for k in range(5):
        s = s + _sq_or(x[k % len(x)], k)
    return s


def _pair(a, b):
    if a > b:
        return a * b, a - b
    return a + b, b * b


def number_pairs_loop(x):
    s = 0.0
    t = 1.0
    for v in x:
        a, b = _pair(v, t)
        s = s + a
        t = b * 0.5 + 0.1
    return s + t


def _accum_step(total, v):
    return total * 0.9 + math.sin(v)


def number_feedback(x):
    total = 0.0
    for v in x:
        total = total + _accum_step(total, v)
    return total


# ---- family: a //= b, astype, item, amax, clip keywords ----------------------------------------------------------
def floordiv_index(x):
    n = len(x)
    n //= 2
    return np.sum(x[:n] ** 2) + x[n] * 3.0


def astype_item(x):
    y = x.astype(np.float64) * 2.0
    return y[0].item() * y[1] + np.amax(y) ** 2


def amax_axis(x):
    m = x.reshape(2, 3)
    return np.sum(np.amax(m, axis=1) ** 2) + np.amin(m)


def clip_kw(x):
    # (bounds away from the data: a bound equal to an input is a kink)
    return np.sum(np.clip(x, a_min=-0.5, a_max=0.7) ** 2) + np.sum(x.clip(min=-0.1) * x)


def clip_kw_new_names(x):
    return np.sum(np.clip(x, min=-0.1, max=0.5) ** 2) + np.sum(x.clip(max=0.6) ** 3)


def clip_array_bounds(x, lo):
    return np.sum(np.clip(x, lo, lo + 1.0) ** 2)


def partial_calls(x):
    f = functools.partial(np.power, x)
    g = functools.partial(_sq_or, k=3)
    return np.sum(f(3.0)) + g(x[0])


Point = namedtuple("Point", ["x", "y"])


def namedtuple_path(x):
    pts = [Point(x[i], x[i + 1]) for i in range(0, len(x) - 1, 2)]
    s = 0.0
    for p in pts:
        s = s + p.x * p.y + p._replace(y=1.0).y * p.x
    return s


def logging_loop(x):
    s = 0.0
    for i, v in enumerate(x):
        _log.debug("step %d value %s", i, v)
        s = s + v ** 3
    return s


def try_body(x):
    s = 0.0
    for v in x:
        try:
            s = s + math.log(v)
        except ValueError:
            s = s + v
    return s


def matpow_loop(x):
    a = x.reshape(2, 2)
    p = np.eye(2)
    for _ in range(3):
        p = p @ a
    return np.sum(p)


def matpow_loop_inplace(x):
    a = x.reshape(2, 2) * 0.5
    p = np.eye(2)
    for _ in range(3):
        p = p @ a + np.eye(2) * 0.1
        p /= np.sum(np.abs(p))
    return np.sum(p * p)


# ---- family: random permutation / choice ------------------------------------------------------------------------
def perm_fixed_seed(x):
    rng = np.random.default_rng(3)
    idx = rng.permutation(len(x))
    return np.sum(x[idx] * np.arange(len(x)))


def perm_array(x):
    rng = np.random.default_rng(4)
    y = rng.permutation(x)
    return np.sum(y * np.arange(len(x)) ** 2)


def choice_index(x):
    rng = np.random.default_rng(5)
    i = rng.choice(len(x), size=3, replace=False)
    return np.sum(x[i] ** 2)


def shuffle_copy(x):
    rng = np.random.default_rng(6)
    y = x.copy()
    rng.shuffle(y)
    return np.sum(y * np.arange(len(x)))


# ---- family: object arrays, sparse, metaclass ---------------------------------------------------------------------
def object_array(x):
    a = np.empty(3, dtype=object)
    a[0] = x[0]
    a[1] = x[1] * x[2]
    a[2] = np.sin(x[3])
    return float(np.sum(a * a))


def sparse_matvec(x):
    import scipy.sparse as sps
    d = sps.diags([1.0, 2.0, 3.0, 4.0]).tocsr()
    return float(np.sum((d @ x) ** 2))


def sparse_from_x(x):
    import scipy.sparse as sps
    m = sps.coo_matrix((x[:3], ([0, 1, 2], [1, 2, 0])), shape=(3, 3))
    return float(np.sum(m @ np.array([1.0, 2.0, 3.0])) * x[3])


class _Registry(type):
    def __call__(cls, *args, **kwargs):
        obj = super().__call__(*args, **kwargs)
        obj.scale = 2.0
        return obj


class Layer(metaclass=_Registry):
    def __init__(self, w):
        self.w = w

    def apply(self, x):
        return np.tanh(x * self.w) * self.scale


def metaclass_layer(x):
    layer = Layer(x[0])
    return np.sum(layer.apply(x[1:]))


# ---- family: integrators with args= --------------------------------------------------------------------------------
def _rhs_dict(t, y, p):
    return -p["k"] * y + p["c"]


def ode_dict_args(x):
    from scipy.integrate import solve_ivp
    sol = solve_ivp(_rhs_dict, (0.0, 1.0), np.array([1.0, 0.5]), args=({"k": x[0], "c": x[1]},), rtol=1e-10,
                    atol=1e-12)
    return float(np.sum(sol.y[:, -1]))


def _quad_f(t, a, b):
    return a * t * t + math.sin(b * t)


def quad_args(x):
    from scipy.integrate import quad
    v, _ = quad(_quad_f, 0.0, 1.0, args=(x[0], x[1]))
    return v


# ---- family: held state (hessian / jacfwd of functions keeping a counter) ----------------------------------------
CALLS = {"n": 0}


def counter_dict(x):
    CALLS["n"] += 1
    return np.sum(np.sin(x) * x)


class Counted:
    def __init__(self):
        self.n = 0
        self.hist = []

    def __call__(self, x):
        self.n += 1
        return np.sum(x ** 3) + self.n * 0.0


_COUNTED = Counted()


def counter_object(x):
    return _COUNTED(x)


_CACHE = {}


def cache_constant(x):
    if "m" not in _CACHE:
        _CACHE["m"] = np.arange(len(x), dtype=float)
    return np.sum(_CACHE["m"] * x ** 2)


# ---- family: iterators: iter/next/reversed/map/filter ------------------------------------------------------------
def iter_then_loop(x):
    it = iter(x)
    head = next(it)
    s = head * 2.0
    for v in it:
        s = s + v * head
    return s


def reversed_enum(x):
    s = 0.0
    for i, v in enumerate(reversed(x)):
        s = s + v * (i + 1)
    return s


def map_lambda(x):
    return sum(map(lambda v: v * v + 1.0, x))


def map_two(x, y):
    return sum(map(lambda a, b: a * math.exp(b), x, y))


def filter_loop(x):
    s = 0.0
    for v in filter(lambda t: t > 0.0, x):
        s = s + v ** 2
    return s


def sorted_key(x):
    ys = sorted(x, key=lambda t: -t)
    return ys[0] * 2.0 + ys[-1]


def iter_list_of_arrays(x):
    rows = [x[:2], x[2:4], x[4:]]
    it = iter(rows)
    first = next(it)
    s = np.sum(first ** 2)
    for r in it:
        s = s + np.sum(r * first)
    return s


def while_next(x):
    it = iter(x)
    s = 0.0
    while True:
        v = next(it, None)
        if v is None:
            break
        s = s + v * v
    return s


def dict_loop_update(x):
    state = {"a": 0.0, "b": 1.0}
    for v in x:
        state["a"] = state["a"] + v * state["b"]
        state["b"] = state["b"] * 0.5 + v
    return state["a"] + state["b"]


def list_inplace_loop(x):
    arrs = [x.copy(), x * 2.0]
    for a in arrs:
        a *= np.cos(x)
        a[0] += 1.0
    return np.sum(arrs[0] * arrs[1])


def cumsum_scan(x):
    out = []
    acc = 0.0
    for v in x:
        acc = acc * 0.5 + v
        out.append(acc)
    return np.sum(np.array(out) ** 2)


def nested_loops_zip(x):
    m = x.reshape(2, 3)
    s = 0.0
    for i, row in enumerate(m):
        for j, (a, b) in enumerate(zip(row, row[::-1])):
            s = s + (i + j + 1) * a * b
    return s


def sparse_dia(x):
    import scipy.sparse as sps
    return float(np.sum((sps.diags([1.0, 2.0, 3.0, 4.0]) @ x) ** 2))


def sparse_csr_constant(x):
    import scipy.sparse as sps
    m = sps.csr_matrix(np.array([[1.0, 0, 2, 0], [0, 3.0, 0, 0], [1.0, 0, 0, 4.0]]))
    return float(np.sum(np.sin(m @ x)))


# ---- family: sqrt where the value is identically zero (strong zeros in reverse mode) --------------------------
def pdist_energy(x):
    p = x.reshape(3, 2)
    d = np.sqrt(np.sum((p[:, None, :] - p[None, :, :]) ** 2, axis=-1))
    return np.sum(np.exp(-d))


def pdist_norm_loop(x):
    p = x.reshape(3, 2)
    s = 0.0
    for i in range(3):
        for j in range(3):
            s = s + np.exp(-np.linalg.norm(p[i] - p[j]))
    return s


def pdist_sqrt_loop(x):
    p = x.reshape(3, 2)
    s = 0.0
    for i in range(3):
        for j in range(3):
            d = p[i] - p[j]
            s = s + math.exp(-math.sqrt(d[0] * d[0] + d[1] * d[1]))
    return s


def sqrt_of_zero_times(x):
    return np.sum(np.sqrt(x * 0.0)) + np.sum(x ** 2)


# ---- second orders: single constructs ------------------------------------------------------------------------
def astype_only(x):
    return np.sum(x.astype(np.float64) ** 3)


def item_only(x):
    return x[0].item() * x[1] ** 2


def amax_only(x):
    return np.amax(x) ** 3 + np.sum(x ** 3)


def partial_of_x(x):
    f = functools.partial(np.power, x)
    return np.sum(f(3.0))


def nt_replace(x):
    p = Point(x[0], x[1])
    q = p._replace(y=x[2])
    return p.x * q.y * q.x


def nt_plain(x):
    p = Point(x[0], x[1])
    return p.x ** 2 * p.y


def reversed_loop(x):
    s = 0.0
    for v in reversed(x):
        s = s + v * v * v
    return s


def enumerate_zip(x):
    s = 0.0
    for i, (a, b) in enumerate(zip(x, x)):
        s = s + a * b * i
    return s


def enumerate_reversed(x):
    s = 0.0
    for i, v in enumerate(reversed(x)):
        s = s + v * v * i
    return s


def zip_of_zip(x):
    s = 0.0
    for (a, b), c in zip(zip(x, x), x):
        s = s + a * b * c
    return s


def next_then_for(x):
    it = iter(x)
    s = next(it) ** 3
    for v in it:
        s = s + v ** 3
    return s


# ---- family: sequences changed while they are iterated (lazy iteration must read them as Python does) ----------
def append_while_iterating(x):
    items = [x[0], x[1]]
    s = 0.0
    for v in items:
        s = s + v * v
        if len(items) < 5:
            items.append(v * 0.5 + x[2])
    return s


def write_ahead_in_array(x):
    y = x.copy()
    s = 0.0
    for i, v in enumerate(y):
        if i + 1 < len(y):
            y[i + 1] = y[i + 1] + 0.5 * v
        s = s + v * v
    return s


def write_ahead_zip(x):
    y = x.copy()
    s = 0.0
    for i, (a, b) in enumerate(zip(y, x)):
        if i + 1 < len(y):
            y[i + 1] += a * b
        s = s + a
    return s


def list_item_replaced(x):
    lst = [x[0], x[1], x[2], x[3]]
    s = 0.0
    for i, v in enumerate(lst):
        if i + 1 < len(lst):
            lst[i + 1] = lst[i + 1] * v
        s = s + v
    return s


def iterate_rows_written(x):
    m = x.reshape(3, 2).copy()
    s = 0.0
    for i, row in enumerate(m):
        row *= 2.0  # (a row of m: a view, writes m)
        s = s + np.sum(row ** 2)
    return s + np.sum(m)


def dict_values_then_update(x):
    d = {"a": x[0], "b": x[1], "c": x[2]}
    s = 0.0
    for k, v in d.items():
        d[k] = v * v
        s = s + v
    return s + d["a"] * d["c"]


def generator_of_closure(x):
    scale = [1.0]

    def gen():
        for v in x:
            scale[0] = scale[0] * 1.1
            yield v * scale[0]
    return sum(t * t for t in gen())


def iterate_then_mutate_source(x):
    lst = list(x)
    it = iter(lst)
    first = next(it)
    lst[1] = first * 10.0  # (the iterator reads lst[1] after this write)
    return sum(v * v for v in it) + first


def zip_list_mutated(x):
    a = [x[0], x[1], x[2]]
    b = [x[3], x[4], x[5]]
    s = 0.0
    for u, v in zip(a, b):
        b[-1] = b[-1] + u
        s = s + u * v
    return s


def map_over_array_written(x):
    y = x.copy()
    m = map(lambda t: t * t, y)
    y[2] = 5.0 * x[0]
    return sum(m)


def enumerate_array_inplace_scale(x):
    y = x.copy()
    for i, v in enumerate(y):
        y *= 0.9  # (the whole array is scaled; later items are read after)
    return np.sum(y) + float(v)


# ---- family: strong zeros at second order and inside loops ---------------------------------------------------
def sqrt_sum_sq_loop(x):
    s = 0.0
    for i in range(0, len(x), 2):
        a, b = x[i], x[i + 1]
        s = s + np.sqrt(a * a + b * b + 1e-3)
    return s


def soft_norm_where(x):
    n2 = np.sum(x * x)
    return np.where(n2 > 0.0, np.sqrt(n2), 0.0) * 2.0


def pow_half_of_relu(x):
    r = np.maximum(x, 0.0)
    return np.sum(r ** 0.5 * x + np.power(r, 1.5))


def arccos_clip(x):
    c = np.clip(x, -1.0, 1.0)
    return np.sum(np.arccos(c) * x)


def divide_where_safe(x):
    den = np.where(x > 0, x, 1.0)
    return np.sum(np.where(x > 0, np.sin(x) / den, 1.0))


def xlogx_where(x):
    p = np.abs(x)
    return np.sum(np.where(p > 0.5, p * np.log(p), 0.0))


def enumerate_zip_written(x):
    y = x.copy()
    s = 0.0
    for i, a in enumerate(zip(y)):
        if i + 1 < len(y):
            y[i + 1] += a[0]
        s = s + a[0]
    return s


def zip_written_counter(x):
    y = x.copy()
    s = 0.0
    i = 0
    for a, b in zip(y, x):
        if i + 1 < len(y):
            y[i + 1] += a * b
        s = s + a
        i += 1
    return s


def next_then_list_written(x):
    lst = [x[0], x[1], x[2]]
    it = iter(lst)
    first = next(it)
    lst[1] = first * 10.0
    s = 0.0
    for v in it:
        s = s + v * v
    return s
