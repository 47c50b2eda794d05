import numpy as np

X = np.array([0.7, -1.3, 2.1])

class Buf:
    shared = np.zeros(3)
    def add(self, v):
        self.shared += v   # class-level array, in place

def class_array_inplace(x):
    Buf.shared = np.zeros(3)
    b = Buf()
    b.add(x)
    b.add(x ** 2)
    return np.sum(Buf.shared * x)

class Buf2:
    shared = [0.0]
    def add(self, v):
        self.shared[0] += v

def class_list_inplace(x):
    Buf2.shared = [0.0]
    b = Buf2()
    b.add(x[0])
    b.add(x[1] * x[2])
    return Buf2.shared[0] * x[0]

class Defaults:
    scale = 2.0
    def __init__(self, v): self.v = v
    def val(self): return self.v * self.scale

def instance_shadows_class(x):
    d = Defaults(x[0])
    a = d.val()
    d.scale = x[1]   # instance attribute shadows the class one
    return a + d.val() + Defaults.scale

def class_attr_rebind_then_read(x):
    Defaults.scale = 2.0
    d = Defaults(x[0])
    a = d.val()
    Defaults.scale = 3.0
    r = a + d.val()
    Defaults.scale = 2.0
    return r

def class_attr_set_from_input(x):
    class Local:
        k = 1.0
        def f(self, v): return v * self.k
    Local.k = x[0]
    return Local().f(x[1]) + Local().f(x[2])

class Counter:
    count = 0
    def __init__(self, v):
        Counter.count += 1
        self.id = Counter.count
        self.v = v

def class_int_ids(x):
    Counter.count = 0
    objs = [Counter(v) for v in x]
    return sum(o.v * o.id for o in objs)

class Cache:
    memo = {}
    @classmethod
    def get(cls, key, fn):
        if key not in cls.memo:
            cls.memo[key] = fn()
        return cls.memo[key]

def classmethod_memo_constant(x):
    Cache.memo = {}
    c = Cache.get("two", lambda: 2.0)
    return x[0] * c + x[1] * Cache.get("two", lambda: 5.0)

PROBES = []
for f in list(globals().values()):
    if (callable(f) and getattr(f, "__module__", None) == __name__ and type(f).__name__ == "function"
            and not f.__name__.startswith("_")):
        PROBES.append((f.__name__, f, (X,)))
