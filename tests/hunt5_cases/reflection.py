import numpy as np, functools, dataclasses
from dataclasses import dataclass, fields, asdict, astuple

X = np.array([0.7, -1.3, 2.1])

@dataclass
class PS:
    w: np.ndarray
    b: float
    def scale(self, k):
        return type(self)(**{f.name: getattr(self, f.name) * k for f in fields(self)})
    def __add__(self, o):
        return PS(*(getattr(self, f.name) + getattr(o, f.name) for f in fields(self)))

def dc_fields_scale(x):
    p = PS(x.copy(), x[0])
    q = p.scale(x[1])
    return np.sum(q.w) * q.b

def dc_fields_add(x):
    p = PS(x * 1.0, x[0])
    q = p + p.scale(2.0)
    return np.sum(q.w ** 2) + q.b

def dc_asdict(x):
    p = PS(x * 1.0, x[0])
    d = asdict(p)
    d["w"] *= 2.0  # asdict deep-copies: p.w unchanged
    return np.sum(d["w"] * p.w) + d["b"]

def dc_astuple_arr(x):
    p = PS(x * 1.0, x[0])
    w, b = astuple(p)
    w *= 3.0
    return np.sum(w * p.w) * b

def dc_setattr_fields(x):
    p = PS(x * 1.0, x[0])
    for f in fields(p):
        setattr(p, f.name, getattr(p, f.name) ** 2)
    return np.sum(p.w) + p.b

def dc_eq(x):
    p = PS(x, 1.0)
    q = PS(x, 1.0)
    return x[0] * (2.0 if p.b == q.b else 1.0)

def class_of_self(x):
    class V:
        def __init__(self, v): self.v = v
        def doubled(self): return self.__class__(self.v * 2.0)
    return np.sum(V(x).doubled().doubled().v * x)

def partial_attrs(x):
    def h(a, b, c=1.0): return a * b * c
    p = functools.partial(h, x[0], c=x[1])
    return p.func(*p.args, x[2], **p.keywords) + p.args[0]

def defaults_read(x):
    def h(a, b=2.0): return a * b
    return h(x[0]) * h.__defaults__[0]

def closure_cells(x):
    k = x[0] * 2.0
    def f(v): return v * k
    return f.__closure__[0].cell_contents * x[1] + f(x[2])

def fn_attr_state(x):
    def f(v):
        f.calls = getattr(f, "calls", 0) + 1
        return v * f.calls
    return f(x[0]) + f(x[1])

def fn_attr_array(x):
    def f(v):
        f.last = v * 2.0
        return v ** 2
    a = f(x)
    return np.sum(a * f.last)

def locals_dict(x):
    a = x[0] * 2.0
    b = x[1]
    d = locals()
    return d["a"] * d["b"]

def dataclass_replace_arrays(x):
    p = PS(x * 1.0, x[0])
    q = dataclasses.replace(p, w=p.w * x[1])
    q.w[0] = 5.0 * q.b
    return np.sum(q.w * p.w)

@dataclass(frozen=True)
class FrozenP:
    w: np.ndarray
    b: float
    def with_b(self, b): return dataclasses.replace(self, b=b)

def frozen_arrays_inplace(x):
    p = FrozenP(x * 1.0, x[0])
    p.w[1] = p.b * 3.0   # frozen: fields can't rebind, but array contents can change
    q = p.with_b(x[2])
    return np.sum(q.w * x) + q.b

@dataclass(order=True)
class Ordered:
    key: float
    payload: np.ndarray = dataclasses.field(compare=False)

def dc_order_sort(x):
    items = [Ordered(float(v), np.array([v, v * v])) for v in x]
    items.sort()
    return np.sum(items[0].payload) + np.sum(items[-1].payload) * 2.0

def dc_order_key_diff(x):
    items = [Ordered(v, np.array([v, v * v])) for v in x]
    best = max(items)
    return best.key + np.sum(best.payload)

@dataclass
class WithPost:
    a: float
    b: float = dataclasses.field(init=False)
    def __post_init__(self):
        self.b = self.a ** 2

def dc_init_false(x):
    o = WithPost(x[0])
    o.a = x[1]
    return o.a * o.b

@dataclass
class Default:
    a: float
    arr: np.ndarray = dataclasses.field(default_factory=lambda: np.ones(3))

def dc_default_factory(x):
    d = Default(x[0])
    d.arr *= x
    return np.sum(d.arr) * d.a

PROBES = []
for f in list(globals().values()):
    if (callable(f) and getattr(f, "__module__", None) == __name__ and type(f).__name__ == "function"
            and not f.__name__.startswith("_")):
        PROBES.append((f.__name__, f, (X,)))
