import numpy as np, copy, dataclasses, functools
from typing import NamedTuple
from dataclasses import dataclass, field, replace

X = np.array([0.7, -1.3, 2.1])

# callable objects
class Affine:
    def __init__(self, W, b):
        self.W = W; self.b = b
    def __call__(self, x):
        return self.W @ x + self.b

def callable_obj(W, b, x):
    layer = Affine(W, b)
    return np.sum(np.tanh(layer(x)) ** 2)

class Scaler:
    def __init__(self, s): self.s = s
    def __call__(self, v):
        self.s = self.s * 1.5
        return v * self.s

def callable_state(x):
    sc = Scaler(x[0])
    a = sc(x[1]); b = sc(x[2])
    return a + b * sc.s

# properties with setters
class Temp:
    def __init__(self, c): self._c = c
    @property
    def f(self): return self._c * 1.8 + 32.0
    @f.setter
    def f(self, v): self._c = (v - 32.0) / 1.8
    @property
    def c(self): return self._c

def prop_setter(x):
    t = Temp(x[0])
    t.f = t.f * x[1]
    return t.c * x[2]

def prop_setter_arr(x):
    t = Temp(x)
    t.f = t.f + x ** 2
    return np.sum(t.c * t.f)

# __iadd__/__imul__
class Vec:
    def __init__(self, v): self.v = v
    def __iadd__(self, o):
        self.v = self.v + o.v
        return self
    def __imul__(self, s):
        self.v = self.v * s
        return self
    def __add__(self, o): return Vec(self.v + o.v)
    def __mul__(self, s): return Vec(self.v * s)
    __rmul__ = __mul__

def iadd_obj(x):
    a = Vec(x); b = Vec(x ** 2)
    a += b
    a *= x[0]
    return np.sum(a.v * b.v)

def iadd_alias(x):
    a = Vec(x); c = a
    a += Vec(np.sin(x))
    return np.sum(c.v * x)

def iadd_self(x):
    a = Vec(x)
    a += a
    a *= 2.0
    return np.sum(a.v ** 2)

class VecInplaceArr:
    def __init__(self, v): self.v = v.copy()
    def __iadd__(self, o):
        self.v += o.v
        return self

def iadd_inplace_arr(x):
    a = VecInplaceArr(x); b = VecInplaceArr(x * x)
    a += b
    a += b
    return np.sum(a.v * x)

def rmul_obj(x):
    a = 3.0 * Vec(x) + Vec(x) * x[1]
    return np.sum(a.v ** 2)

# __getitem__/__setitem__ containers
class Params:
    def __init__(self): self._d = {}
    def __getitem__(self, k): return self._d[k]
    def __setitem__(self, k, v): self._d[k] = v
    def __contains__(self, k): return k in self._d
    def __len__(self): return len(self._d)
    def __iter__(self): return iter(self._d)

def user_mapping(x):
    p = Params()
    p["a"] = x[0] * x[1]
    p["b"] = np.sin(x)
    p["a"] = p["a"] + 1.0
    s = 0.0
    for k in p:
        s = s + np.sum(p[k])
    return s * p["a"]

class Buf:
    def __init__(self, n): self.data = np.zeros(n)
    def __getitem__(self, i): return self.data[i]
    def __setitem__(self, i, v): self.data[i] = v

def user_buffer(x):
    b = Buf(3)
    for i in range(3):
        b[i] = x[i] ** 2 + (b[i - 1] if i > 0 else 0.0)
    return b[2] * b[1]

def user_buffer_slice(x):
    b = Buf(5)
    b[1:4] = x * 2.0
    b[0] = b[3]
    return np.sum(b.data ** 2)

# class holding list of arrays, updated
class Net:
    def __init__(self, ws): self.ws = list(ws)
    def forward(self, x):
        for w in self.ws:
            x = np.tanh(w * x)
        return x
    def step(self, lr):
        for i in range(len(self.ws)):
            self.ws[i] = self.ws[i] - lr * self.ws[i] ** 2
        return self

def list_of_arrays_methods(x):
    net = Net([x, x * 2.0, np.cos(x)])
    net.step(0.1).step(0.05)
    return np.sum(net.forward(x))

class Hist:
    def __init__(self): self.h = []
    def add(self, v):
        self.h.append(v); return self
    def total(self): return sum(self.h)

def fluent(x):
    h = Hist().add(x[0]).add(x[1] * x[2]).add(x[0] ** 2)
    return h.total() * h.h[0]

# super chains
class Base:
    def __init__(self, a): self.a = a
    def energy(self, x): return np.sum(self.a * x ** 2)
class Mid(Base):
    def __init__(self, a, b):
        super().__init__(a); self.b = b
    def energy(self, x): return super().energy(x) + self.b * np.sum(x)
class Top(Mid):
    def energy(self, x): return 2.0 * super().energy(x) - np.prod(x)

def super_chain(x):
    t = Top(x[0], x[1])
    return t.energy(x)

# dataclass slots
@dataclass(slots=True)
class State:
    pos: np.ndarray
    vel: np.ndarray
    m: float = 1.0

def dc_slots(x):
    s = State(x, x * 0.5, x[0])
    for _ in range(3):
        s.vel = s.vel - 0.1 * s.pos / s.m
        s.pos = s.pos + 0.1 * s.vel
    return np.sum(s.pos ** 2) + s.m * np.sum(s.vel ** 2)

@dataclass
class Cfg:
    a: float
    b: float = 2.0
    arrs: list = field(default_factory=list)

def dc_replace(x):
    c = Cfg(x[0])
    c2 = replace(c, b=x[1] * c.a)
    c2.arrs.append(x)
    return c2.a * c2.b + np.sum(c2.arrs[0]) * c.b

@dataclass(frozen=True)
class Frozen:
    a: float
    v: np.ndarray

def dc_frozen(x):
    f = Frozen(x[0], x)
    g = dataclasses.replace(f, a=f.a * 3.0)
    return g.a * np.sum(g.v) + f.a

def dc_astuple(x):
    c = Cfg(x[0], x[1])
    a, b, arrs = dataclasses.astuple(c)
    return a * b

class P(NamedTuple):
    x: float
    y: float
    z: np.ndarray

def nt_replace(x):
    p = P(x[0], x[1], x)
    q = p._replace(y=p.y * p.x)
    r = q._replace(z=q.z ** 2)
    return r.x + r.y * np.sum(r.z) + p.y

def nt_asdict(x):
    p = P(x[0], x[1], x)
    d = p._asdict()
    return d["x"] * d["y"] + np.sum(d["z"])

def nt_make(x):
    p = P._make([x[0], x[1], x])
    a, b, c = p
    return a * b + np.sum(c * a)

# objects in dicts/lists then mutated
class Acc:
    def __init__(self): self.t = 0.0
    def add(self, v): self.t += v

def objs_in_dict(x):
    d = {"a": Acc(), "b": Acc()}
    for i in range(3):
        d["a" if i % 2 == 0 else "b"].add(x[i] ** 2)
    objs = list(d.values())
    objs[0].add(objs[1].t)
    return d["a"].t * d["b"].t

def objs_in_list_alias(x):
    a = Acc()
    L = [a, a, Acc()]
    for i, o in enumerate(L):
        o.add(x[i] * (i + 1))
    return L[0].t * L[2].t + a.t

# object passed twice
class Box:
    def __init__(self, v): self.v = v

def _combine(p, q):
    p.v = p.v * q.v
    return p.v + q.v

def obj_twice(x):
    b = Box(x[0])
    r = _combine(b, b)
    return r * b.v

def _upd(a, b):
    a += b
    return a

def arr_twice(x):
    y = x.copy()
    r = _upd(y, y)
    return np.sum(r * x) + np.sum(y)

def obj_twice_arg(W, x):
    b = Box(W)
    return _combine(b, b) * x

PROBES = [
    ("callable_obj", callable_obj, (np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.4]]), np.array([0.1, -0.3]), X)),
    ("callable_state", callable_state, (X,)),
    ("prop_setter", prop_setter, (X,)),
    ("prop_setter_arr", prop_setter_arr, (X,)),
    ("iadd_obj", iadd_obj, (X,)),
    ("iadd_alias", iadd_alias, (X,)),
    ("iadd_self", iadd_self, (X,)),
    ("iadd_inplace_arr", iadd_inplace_arr, (X,)),
    ("rmul_obj", rmul_obj, (X,)),
    ("user_mapping", user_mapping, (X,)),
    ("user_buffer", user_buffer, (X,)),
    ("user_buffer_slice", user_buffer_slice, (X,)),
    ("list_of_arrays_methods", list_of_arrays_methods, (X,)),
    ("fluent", fluent, (X,)),
    ("super_chain", super_chain, (X,)),
    ("dc_slots", dc_slots, (X,)),
    ("dc_replace", dc_replace, (X,)),
    ("dc_frozen", dc_frozen, (X,)),
    ("dc_astuple", dc_astuple, (X,)),
    ("nt_replace", nt_replace, (X,)),
    ("nt_asdict", nt_asdict, (X,)),
    ("nt_make", nt_make, (X,)),
    ("objs_in_dict", objs_in_dict, (X,)),
    ("objs_in_list_alias", objs_in_list_alias, (X,)),
    ("obj_twice", obj_twice, (X,)),
    ("arr_twice", arr_twice, (X,)),
    ("obj_twice_arg", obj_twice_arg, (1.3, 0.4)),
]
