"""Functions calling helpers and methods of their own module (reverse/inline.py puts them in line), and the near
misses that stay calls (early returns, recursion, *args, helpers of other modules, calls in a loop's test)."""
import math

import numpy as np

from tests.typed_ir_callees import mean_var

SCALE = 1.5


def _affine(W, b, x):
    return np.tanh(W @ x + b)


def two_layers(W1, b1, W2, x):
    h = _affine(W1, b1, x)
    return np.sum(_affine(W2, 0.1, h) ** 2)


def _soft(z, t=0.5, *unused):
    return z / (1.0 + abs(z) * t)


def _with_defaults(z, t=0.5):
    return z / (1.0 + z * z * t)


def defaults_and_keywords(x, y):
    return _with_defaults(x) + _with_defaults(y, t=2.0) * _with_defaults(t=0.25, z=x * y)


def _rhs(y, k):
    return -k * y + np.sin(y)


def euler(y0, k):
    y = y0
    for _ in range(6):
        y = y + 0.1 * _rhs(y, k)
    return np.sum(y ** 2)


def _clipped(v, lo):
    out = v
    if v < lo:
        out = lo + 0.1 * (v - lo)
    return out


def branch_in_helper(x, lo):
    total = 0.0
    for k in range(4):
        total = total + _clipped(x * k, lo) ** 2
    return total


def _early(v):
    if v > 1.0:
        return v * v
    return 2.0 * v - 1.0


def early_return(x):
    return _early(x) + _early(0.5 * x)


def _fact(n, x):
    return x if n <= 1 else n * x * _fact(n - 1, x)


def recursive(x):
    return _fact(4, x)


def _scaled(x):
    return SCALE * x * x


def reads_global(x):
    return _scaled(x) + 1.0


def _writes(p, s):
    p[0] = p[0] * s
    return p * 2.0


def helper_writes_argument(x, s):
    q = x * 1.0
    r = _writes(q, s)
    return np.sum(q * r)


def _pair(x):
    return x * 2.0, np.sin(x)


def tuple_result(x):
    a, b = _pair(x)
    return np.sum(a * b)


def _identity(v):
    return v


def returns_parameter(x):
    y = _identity(x)
    return np.sum(y * x)


def _outer_helper(x):
    return _affine(np.eye(3), 0.0, x) * 2.0


def helper_of_helper(x):
    return np.sum(_outer_helper(x))


def other_module(x):
    m, v = mean_var(x)
    return m * v


def _small(v):
    return v * v


def call_in_loop_test(x):
    n = 0
    y = x
    while _small(y) > 0.01 and n < 20:
        y = 0.5 * y
        n += 1
    return y


class Layer:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def forward(self, x):
        return np.tanh(self.W @ x + self.b)

    def penalty(self):
        return np.sum(self.W ** 2) + np.sum(self.b ** 2)


def layer_method(W, b, x):
    layer = Layer(W, b)
    y = layer.forward(x)
    return np.sum(y ** 2) + 0.01 * layer.penalty()


class Body:
    def __init__(self, x, v):
        self.x = x
        self.v = v

    def step(self, dt, k):
        self.v = self.v - dt * k * self.x
        self.x = self.x + dt * self.v

    def energy(self, k):
        return 0.5 * self.v * self.v + 0.5 * k * self.x * self.x


def body_steps(x0, v0, k):
    b = Body(x0, v0)
    for _ in range(8):
        b.step(0.1, k)
    return b.energy(k)


class Cloud:
    def __init__(self, pos):
        self.pos = pos

    def shift(self, d):
        self.pos = self.pos + d
        return self.pos

    def spread(self):
        return np.sum((self.pos - np.mean(self.pos)) ** 2)


def array_field_written(p0, d):
    c = Cloud(p0)
    c.shift(d)
    c.shift(0.5 * d)
    return c.spread()


def array_field_aliased(p0, d):
    c = Cloud(p0 * 1.0)
    p = c.pos
    p[0] = d
    return c.spread() + np.sum(p)


def _apply(f, x, times=1):
    for _ in range(times):
        x = f(x)
    return x


def lambdas_and_math(x, a):
    u = _apply(math.sin, x)
    v = _apply(lambda t: 0.5 * t + a, x, times=3)
    sq = lambda z: z * z * a  # noqa: E731
    return u * v + sq(x)


def closure_writes(x):
    total = x

    def bump(k):
        nonlocal total
        total = total * k + x
        return total

    bump(2.0)
    bump(0.5)
    return total * bump(1.5)


def two_lambdas_one_line(x):
    f, g = (lambda t: t * t), (lambda t: 3.0 * t)
    return f(x) + g(x) * f(g(x))


def _make_scaler(s):
    def scale(v):
        return s * v
    return scale


def factory(x, s):
    f = _make_scaler(s * s)
    g = _make_scaler(2.0)
    return f(x) + g(f(x)) ** 2


def _kw(x, scale=1.0, shift=0.0, *, squash=True):
    y = scale * x + shift
    return math.tanh(y) if squash else y


def keyword_only(x, y):
    return _kw(x) + _kw(x, shift=y) * _kw(y, scale=x, squash=False)


def _flagged(x, flag):
    if flag:
        out = x * x
    else:
        out = -x
    return out


def constant_flags(x):
    return _flagged(x, True) + _flagged(x, False) * _flagged(x, 0)


class Dense:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return np.tanh(self.W @ x + self.b)


def callable_object(W, b, x):
    layer = Dense(W, b)
    return np.sum(layer(layer(x)) ** 2)


def callable_object_kept(W, b, x):
    layer = Dense(W, b)
    f = layer
    out = f(x)
    layers = [layer]
    return np.sum(out * layers[0](x))


def _logged(v):
    return math.log(v) * 2.0


def _outer_logged(v):
    return _logged(v + 1.0) + v


def error_in_helper(x):
    y = x * 3.0
    return _outer_logged(y)


class Strategy:
    def __init__(self, step):
        self.step = step

    def step(self, x):  # (shadowed by the field of that name: `s.step(x)` calls the field)
        return x * 100.0


def field_shadows_method(x):
    s = Strategy(lambda t: t * t)
    return s.step(x) + 1.0


class Counter2:
    def __init__(self, a):
        self.a = a

    def value(self):
        return self.a * 2.0


def method_replaced(x):
    c = Counter2(x)
    c.value = lambda: x * x * x
    return c.value()


def _base(v):
    return v * 2.0


def _cube(v):
    return v * v * v


def rebinds_helper(x):
    global _base
    y = _base(x)
    _base = _cube
    z = _base(x)
    _base = _base_saved
    return y + z


_base_saved = _base


class Particle:
    def __init__(self, pos, vel, mass=1.0):
        self.pos = pos
        self.vel = vel
        self.mass = mass

    def kinetic(self):
        return 0.5 * self.mass * np.dot(self.vel, self.vel)

    def step(self, force, dt):
        self.vel = self.vel + dt * force / self.mass
        self.pos = self.pos + dt * self.vel


def particle_loop(k, x0):
    p = Particle(x0.copy(), np.zeros_like(x0), mass=2.0)
    energy = 0.0
    for _ in range(6):
        p.step(-k * p.pos, 0.05)
        energy += p.kinetic()
    return energy + 0.5 * k * np.dot(p.pos, p.pos)


def field_overwritten_unread(k, x0):
    p = Particle(x0 * 1.0, x0 * 0.0)
    total = 0.0
    for j in range(4):
        p.vel = np.sin(x0 * (k + j))
        total = total + np.sum(p.vel * p.pos)
    return total


def field_resized(k, x0):
    p = Particle(x0 * k, x0)
    for _ in range(2):
        p.pos = np.concatenate([p.pos[1:], p.pos[:1]]) * k
    return np.sum(p.pos ** 2) + np.sum(p.vel)


def object_per_trip(k, x0):
    total = 0.0
    for j in range(3):
        p = Particle(x0 * (k + j), x0 * k)
        p.step(x0, 0.1)
        total = total + p.kinetic() + np.sum(p.pos)
    return total


def _scaled_by_global(v):
    return v * SCALE


def param_named_like_a_global(SCALE):  # noqa: N803  (the helper's global SCALE is not this)
    return _scaled_by_global(SCALE) + SCALE


def _sine(v):
    return np.sin(v)


def param_named_np(np):  # noqa: F811  (shadows the module the helper reads)
    return _sine(np) * 2.0


def _uses_local_total(v):
    total = v * 3.0
    return total + math.cos(v)


def global_named_like_a_helpers_local(x):
    return _uses_local_total(x) * TOTAL


TOTAL = 0.5


def _varsum(*values, power=2.0):
    total = 0.0
    for v in values:
        total = total + v ** power
    return total


def _first_and_rest(a, *rest):
    return a * len(rest) + (rest[0] if rest else 0.0)


def star_calls(x, y, z):
    """`*args` and `**kw` with arguments known where the call is made, and a `*values` parameter: in line."""
    args = (x, y, z)
    opts = {"power": 3.0}
    return _varsum(*args, **opts) + _varsum(x, y) + _first_and_rest(x) + _first_and_rest(x, *(y, z))


def star_call_of_mutated_dict(x, y):
    """A dict the function changes before `**` hands it on: stays a call, as written."""
    opts = {"power": 2.0}
    opts["power"] = 3.0
    return _varsum(x, y, **opts)


def star_call_repeated_keyword(x):
    """A keyword given twice: Python's TypeError, not a call put in line."""
    try:
        return _varsum(x, **{"power": 2.0}, **{"power": 3.0})
    except TypeError:
        return x * 4.0


def _poly(x, **coeffs):
    return coeffs.get("c0", 0.0) + coeffs.get("c1", 0.0) * x + coeffs["c2"] * x * x


def keyword_options(x, y):
    """`**options` parameters take the call's extra keywords; dicts read only by constant keys are their values."""
    opts = {"c0": y, "c1": x * y, "c2": 0.5}
    settings = dict(rate=0.1, decay=y)
    return _poly(x, **opts) + _poly(y, c2=x) * settings["rate"] + settings.get("decay") * settings.get("m", 2.0)


def dict_changed_or_missing(x, y):
    """A dict written after it is made, or read by a key it lacks: stays a dict (and Python's KeyError stays)."""
    d = {"a": x, "b": y}
    d["a"] = d["a"] * y
    e = {"k": x}
    try:
        miss = e["z"]
    except KeyError:
        miss = y * y
    return d["a"] + d["b"] + miss + e["k"]


def repeated_keys(x, y):
    """A key given twice in a display: the last value, as Python keeps it."""
    d = {"a": x, "b": y, "a": x * y}  # noqa: F601
    return d["a"] * 2.0 + d["b"]
