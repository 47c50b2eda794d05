import numpy as np, copy

X = np.array([0.7, -1.3, 2.1])

class Validated:
    def __setattr__(self, name, value):
        if name == "w":
            value = np.clip(value, -1.5, 1.5) * 2.0
        super().__setattr__(name, value)

def setattr_override(x):
    v = Validated()
    v.w = x
    v.b = x[0]
    return np.sum(v.w) * v.b

class Shared:
    items = []  # class-level list shared by all instances
    def add(self, v):
        self.items.append(v)

def class_list_shared(x):
    Shared.items = []
    a = Shared(); b = Shared()
    a.add(x[0]); b.add(x[1] * x[2])
    return sum(a.items) * len(b.items)

class WithNew:
    def __new__(cls, v):
        obj = super().__new__(cls)
        obj.created = v * 2.0
        return obj
    def __init__(self, v):
        self.v = v

def dunder_new(x):
    o = WithNew(x[0])
    return o.created * o.v

class Truthy:
    def __init__(self, v): self.v = v
    def __bool__(self): return bool(self.v > 0)
    def __len__(self): return 3

def dunder_bool(x):
    t = Truthy(x[1])
    return x[0] * 2.0 if t else x[0] * len(t)

class InitCalls:
    def __init__(self, v):
        self.v = v
        self._setup()
    def _setup(self):
        self.v2 = self.v ** 2
        self.items = [self.v, self.v2]

def init_calls_method(x):
    o = InitCalls(x[0])
    return sum(o.items) * o.v2

class Inherit(InitCalls):
    def _setup(self):
        super()._setup()
        self.items.append(self.v * 10.0)

def overridden_setup(x):
    o = Inherit(x[1])
    return sum(o.items)

class Chain:
    def __init__(self, v): self.v = v
    def add(self, a):
        self.v = self.v + a
        return self
    def mul(self, a):
        self.v = self.v * a
        return self
    def copy(self): return Chain(self.v)

def fluent_copy(x):
    c = Chain(x[0]).add(x[1]).mul(x[2])
    d = c.copy().mul(2.0)
    c.add(1.0)
    return c.v * d.v

def fluent_arrays(x):
    c = Chain(x * 1.0).add(x ** 2).mul(x[0])
    return np.sum(c.v)

class InplaceChain:
    def __init__(self, v): self.v = v
    def add(self, a):
        self.v += a
        return self

def fluent_inplace_alias(x):
    y = x.copy()
    c = InplaceChain(y).add(x).add(x ** 2)
    return np.sum(y * c.v)

def copy_obj_with_arrays(x):
    c = Chain(x * 1.0)
    d = copy.copy(c)
    d.v = d.v * 2.0  # rebinding: c unaffected
    e = copy.copy(c)
    e.v *= 3.0       # in place: c.v changes too
    return np.sum(c.v * d.v)

def deepcopy_obj(x):
    c = Chain(x * 1.0)
    d = copy.deepcopy(c)
    d.v *= 3.0
    return np.sum(c.v * d.v)

def deepcopy_list_objs(x):
    L = [Chain(x[0]), Chain(x[1])]
    M = copy.deepcopy(L)
    M[0].mul(x[2])
    return L[0].v + M[0].v * M[1].v

def objects_in_set_dict(x):
    objs = [Chain(v) for v in x]
    lookup = {id(o): o for o in objs}
    for o in objs:
        lookup[id(o)].mul(2.0)
    return sum(o.v for o in objs)

def obj_list_sort_key(x):
    objs = [Chain(v * v) for v in x]
    objs.sort(key=lambda o: o.v)
    return objs[0].v + 2.0 * objs[-1].v

def obj_max_attr(x):
    import operator
    objs = [Chain(v) for v in x]
    best = max(objs, key=operator.attrgetter("v"))
    return best.v * x[0]

def obj_in_tuple_mutated(x):
    c = Chain(x[0])
    t = (c, 1.0)
    t[0].mul(x[1])
    return c.v

def obj_eq_identity(x):
    a = Chain(x[0]); b = a
    if a is b:
        b.mul(x[1])
    return a.v

def isinstance_dispatch(x):
    items = [x[0], x, Chain(x[1]), [x[2], x[0]]]
    s = 0.0
    for it in items:
        if isinstance(it, Chain):
            s = s + it.v * 2.0
        elif isinstance(it, np.ndarray):
            s = s + np.sum(it)
        elif isinstance(it, list):
            s = s + sum(it)
        else:
            s = s + it
    return s

def hasattr_branch(x):
    c = Chain(x[0])
    if hasattr(c, "w"):
        return c.w
    c.w = x[1]
    return c.w * c.v if hasattr(c, "w") else 0.0

def type_name_branch(x):
    c = Chain(x[0])
    return c.v * (2.0 if type(c).__name__ == "Chain" else 3.0)

def getattr_default_obj(x):
    c = Chain(x[0])
    return getattr(c, "scale", x[1]) * c.v

def delattr_obj(x):
    c = Chain(x[0])
    c.extra = x[1]
    e = c.extra
    del c.extra
    return e * c.v + (1.0 if hasattr(c, "extra") else 0.0)

PROBES = []
for f in list(globals().values()):
    if (callable(f) and getattr(f, "__module__", None) == __name__ and type(f).__name__ == "function"
            and not f.__name__.startswith("_")):
        PROBES.append((f.__name__, f, (X,)))
