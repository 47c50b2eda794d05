import numpy as np

X = np.array([0.7, -1.3, 2.1])

class Buf:
    def __init__(self, n): self._x = np.zeros(n)
    @property
    def x(self): return self._x
    @x.setter
    def x(self, v): self._x[:] = v   # in-place copy into the buffer

def setter_inplace(x):
    b = Buf(3)
    ref = b.x
    b.x = x ** 2
    b.x = b.x * x[0]
    return np.sum(ref * x)

class Norm:
    def __init__(self, v): self.v = v
    @property
    def norm(self): return np.sqrt(np.sum(self.v ** 2))
    @norm.setter
    def norm(self, n): self.v = self.v * (n / self.norm)

def setter_rescale(x):
    o = Norm(x * 1.0)
    o.norm = 2.0 * x[0]
    return np.sum(o.v * np.arange(3.0))

class Param:
    def __init__(self, raw): self.raw = raw
    @property
    def value(self): return np.exp(self.raw)
    @value.setter
    def value(self, v): self.raw = np.log(v)
    @value.deleter
    def value(self): self.raw = 0.0

def setter_log_transform(x):
    p = Param(x[0])
    p.value = p.value * x[1] ** 2
    a = p.raw
    del p.value
    return a + p.raw * x[2]

class Counter:
    def __init__(self): self._n = 0; self._s = 0.0
    @property
    def s(self): return self._s
    @s.setter
    def s(self, v):
        self._n += 1
        self._s = v

def setter_side_effect(x):
    c = Counter()
    for v in x:
        c.s = c.s + v * v
    return c.s * c._n

class Lazy:
    def __init__(self, v): self.v = v; self._sq = None
    @property
    def sq(self):
        return self.v ** 2

def property_readonly_loop(x):
    objs = [Lazy(v) for v in x]
    return sum(o.sq for o in objs)

class Inherit(Param):
    @property
    def value(self): return 2.0 * super().value
    @value.setter
    def value(self, v): Param.value.fset(self, v / 2.0)

def property_override(x):
    p = Inherit(x[0])
    p.value = p.value * x[1] ** 2
    return p.raw + p.value

class ClassProp:
    scale = 2.0
    def __init__(self, v): self.v = v
    @property
    def scaled(self): return self.v * type(self).scale

def class_attr_property(x):
    return ClassProp(x[0]).scaled * x[1]

class PropArr:
    def __init__(self, w): self.w = w
    @property
    def wT(self): return self.w.T

def property_view_write(x):
    M = np.outer(x, np.arange(1.0, 4.0))
    o = PropArr(M)
    o.wT[0] = x * 2.0   # writes column 0 of M through the property's view
    return np.sum(M * np.arange(9.0).reshape(3, 3))

PROBES = []
for f in list(globals().values()):
    if (callable(f) and getattr(f, "__module__", None) == __name__ and type(f).__name__ == "function"
            and not f.__name__.startswith("_")):
        PROBES.append((f.__name__, f, (X,)))
