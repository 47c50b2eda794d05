import numpy as np, functools, abc, dataclasses
from dataclasses import dataclass, field

X = np.array([0.7, -1.3, 2.1])

@dataclass
class Gauss:
    mu: np.ndarray
    log_sigma: np.ndarray
    def __post_init__(self):
        self.sigma = np.exp(self.log_sigma)
    @classmethod
    def from_vec(cls, v):
        return cls(v[:2], v[2:] * np.ones(2))
    def logpdf(self, t):
        return np.sum(-0.5 * ((t - self.mu) / self.sigma) ** 2 - np.log(self.sigma))

def dc_post_init(x):
    g = Gauss.from_vec(x)
    return g.logpdf(np.array([0.1, 0.2])) + np.sum(g.sigma)

class Shape(abc.ABC):
    @abc.abstractmethod
    def area(self): ...
    def scaled(self, k): return self.area() * k

class Sq(Shape):
    def __init__(self, s): self.s = s
    def area(self): return self.s ** 2

class Circ(Shape):
    def __init__(self, r): self.r = r
    def area(self): return np.pi * self.r ** 2

def abc_shapes(x):
    shapes = [Sq(x[0]), Circ(x[1]), Sq(x[2] * x[0])]
    return sum(s.scaled(2.0) for s in shapes)

class ArrProp:
    def __init__(self, v): self._v = v
    @property
    def v(self): return self._v   # returns the array itself
    @property
    def head(self): return self._v[:2]  # a view

def property_returns_array_mutated(x):
    a = ArrProp(x * 1.0)
    w = a.v
    w *= 2.0
    h = a.head
    h[0] = x[2] ** 2
    return np.sum(a.v * x)

class WithSlotsBase:
    __slots__ = ("a",)
    def __init__(self, a): self.a = a
class WithSlotsChild(WithSlotsBase):
    __slots__ = ("b",)
    def __init__(self, a, b):
        super().__init__(a); self.b = b
    def val(self): return self.a * self.b

def slots_inherit(x):
    o = WithSlotsChild(x[0], x[1])
    o.a = o.a * x[2]
    return o.val()

class Mixin:
    def double(self): return 2.0 * self.value()
class Val:
    def __init__(self, v): self.v = v
    def value(self): return self.v ** 2
class Both(Mixin, Val):
    def value(self): return super().value() + self.v

def mixin_mro(x):
    return Both(x[0]).double() + Both(x[1]).value()

class Cooperative:
    def __init__(self, **kw): pass
class A1(Cooperative):
    def __init__(self, a, **kw):
        super().__init__(**kw); self.a = a
class B1(Cooperative):
    def __init__(self, b, **kw):
        super().__init__(**kw); self.b = b
class AB(A1, B1):
    def total(self): return self.a * self.b

def coop_init(x):
    return AB(a=x[0], b=x[1] ** 2).total()

class Lazy:
    def __init__(self, x): self.x = x; self._cache = {}
    def get(self, k):
        if k not in self._cache:
            self._cache[k] = self.x ** k
        return self._cache[k]

def memo_method(x):
    L = Lazy(x)
    return np.sum(L.get(2) + L.get(2) * L.get(3))

class Registry:
    fns = {}
    @classmethod
    def register(cls, name):
        def deco(fn):
            cls.fns[name] = fn
            return fn
        return deco

@Registry.register("sq")
def _sq(v): return v * v

@Registry.register("cube")
def _cube(v): return v ** 3

def registry_dispatch(x):
    return np.sum(Registry.fns["sq"](x) + Registry.fns["cube"](x))

class Particle:
    def __init__(self, pos, vel):
        self.pos = pos; self.vel = vel
    def move(self, dt):
        self.pos = self.pos + dt * self.vel
        return self

class System:
    def __init__(self, parts): self.parts = parts
    def energy(self):
        return sum(0.5 * np.sum(p.vel ** 2) + np.sum(p.pos ** 2) for p in self.parts)
    def step(self, dt):
        for p in self.parts:
            p.move(dt)
            p.vel = p.vel - dt * p.pos

def particles(x):
    s = System([Particle(x[:2], x[1:]), Particle(x[::2], x[:2] ** 2)])
    for _ in range(3):
        s.step(0.1)
    return s.energy()

class Tree:
    def __init__(self, v, kids=()): self.v = v; self.kids = list(kids)
    def total(self):
        return self.v + sum(k.total() for k in self.kids)
    def scale(self, s):
        self.v = self.v * s
        for k in self.kids: k.scale(s)

def tree_recursion(x):
    t = Tree(x[0], [Tree(x[1]), Tree(x[2], [Tree(x[0] * x[1])])])
    t.scale(x[2])
    return t.total()

class Node:
    def __init__(self, v, nxt=None): self.v = v; self.nxt = nxt

def linked_list(x):
    head = None
    for v in x:
        head = Node(v * v, head)
    s = 0.0; k = 1.0
    n = head
    while n is not None:
        s = s + n.v * k; k = k + 1.0
        n = n.nxt
    return s

class Matrix:
    def __init__(self, a): self.a = a
    def __matmul__(self, o): return Matrix(self.a @ o.a)
    def __getitem__(self, ij): return self.a[ij]
    def __setitem__(self, ij, v): self.a[ij] = v
    @property
    def T(self): return Matrix(self.a.T)

def matrix_wrapper(x):
    M = Matrix(np.outer(x, x) + np.eye(3))
    N = M @ M.T
    N[0, 1] = M[1, 2] * 3.0
    return np.sum(N.a) + N[2, 2]

class Ctx:
    def __init__(self, v): self.v = v; self.log = []
    def __enter__(self):
        self.log.append(self.v)
        return self
    def __exit__(self, *a):
        self.v = self.v * 2.0
        return False

def context_manager(x):
    c = Ctx(x[0])
    with c as cc:
        cc.v = cc.v * x[1]
    return c.v + c.log[0]

class Iterable:
    def __init__(self, xs): self.xs = xs
    def __iter__(self):
        for v in self.xs:
            yield v * 2.0
    def __len__(self): return len(self.xs)

def user_iterable(x):
    it = Iterable(x)
    return sum(it) * len(it) + max(it)

class Iter2:
    def __init__(self, xs): self.xs = xs; self.i = 0
    def __iter__(self): return self
    def __next__(self):
        if self.i >= len(self.xs):
            raise StopIteration
        self.i += 1
        return self.xs[self.i - 1] ** 2

def user_iterator(x):
    return sum(Iter2(x))

class Eqn:
    def __init__(self, k): self.k = k
    def __eq__(self, o): return isinstance(o, Eqn) and self.k == o.k
    def __hash__(self): return hash(self.k)

def obj_as_key(x):
    d = {Eqn(1): x[0], Eqn(2): x[1]}
    d[Eqn(1)] = d[Eqn(1)] * x[2]
    return d[Eqn(1)] + d[Eqn(2)]

class NumLike:
    def __init__(self, v): self.v = v
    def __float__(self): return float(self.v)
    def __array__(self, dtype=None, copy=None): return np.asarray(self.v)

def float_dunder(x):
    return float(NumLike(x[0])) * x[1]

class Scaled:
    def __init__(self, s): self.s = s
    def __rmul__(self, o): return o * self.s
    def __radd__(self, o): return o + self.s
    def __truediv__(self, o): return Scaled(self.s / o)
    def __pow__(self, p): return Scaled(self.s ** p)

def reflected_ops(x):
    s = Scaled(x[0])
    a = x * s
    b = 1.0 + s
    c = (s / x[1]) ** 2
    return np.sum(a) + b + c.s

def sum_start_obj(x):
    s = Scaled(x[0])
    return sum([x[1], x[2]], 0.0) * (2.0 * s)

class Comparable:
    def __init__(self, v): self.v = v
    def __lt__(self, o): return self.v < o.v
    def __gt__(self, o): return self.v > o.v

def min_max_objs(x):
    objs = [Comparable(v * v) for v in x]
    return min(objs).v + max(objs).v + sorted(objs)[1].v

def instance_dict_update(x):
    class O: pass
    o = O()
    o.__dict__.update({"a": x[0], "b": x[1]})
    return o.a * o.b

PROBES = []
for f in list(globals().values()):
    if (callable(f) and getattr(f, "__module__", None) == __name__ and type(f).__name__ == "function"
            and not f.__name__.startswith("_")):
        PROBES.append((f.__name__, f, (X,)))
