import numpy as np, itertools

X = np.array([0.7, -1.3, 2.1])

class K:
    n = 0
    scale = 1.0

def class_counter_loop(x):
    K.n = 0
    s = 0.0
    for v in x:
        K.n += 1
        s = s + v * K.n
    return s

def nonlocal_int_counter(x):
    n = 0
    def bump(v):
        nonlocal n
        n += 1
        return v * n
    return bump(x[0]) + bump(x[1]) + bump(x[2])

def closure_list_counter(x):
    cnt = [0]
    def bump(v):
        cnt[0] += 1
        return v * cnt[0]
    return bump(x[0]) + bump(x[1]) * bump(x[2])

def closure_dict_counter(x):
    st = {"n": 0}
    def bump(v):
        st["n"] += 1
        return v * st["n"]
    return sum(bump(v) for v in x)

_LIST = []
def global_list_ints(x):
    _LIST.clear()
    s = 0.0
    for v in x:
        _LIST.append(len(_LIST) + 1)
        s = s + v * _LIST[-1]
    return s

_ARR = np.zeros(3)
def global_array_const_write(x):
    _ARR[:] = 0.0
    s = 0.0
    for i in range(3):
        _ARR[i] = i + 1.0
        s = s + x[i] * _ARR.sum()
    return s

_FLAGS = {"on": False}
def global_flag_toggle(x):
    _FLAGS["on"] = False
    s = 0.0
    for v in x:
        _FLAGS["on"] = not _FLAGS["on"]
        s = s + (v * 2.0 if _FLAGS["on"] else v)
    return s

_COUNTER = itertools.count()
def itertools_count_global(x):
    global _COUNTER
    _COUNTER = itertools.count(1)
    return sum(v * next(_COUNTER) for v in x)

def local_count(x):
    c = itertools.count(1)
    return sum(v * next(c) for v in x)

def rng_state(x):
    rng = np.random.default_rng(0)
    s = 0.0
    for v in x:
        s = s + v * rng.normal()
    return s

def rng_legacy_global(x):
    np.random.seed(3)
    return np.sum(x * np.random.randn(3)) + x[0] * np.random.rand()

def obj_int_counter_loop(x):
    class C:
        def __init__(self): self.k = 0
    c = C()
    s = 0.0
    for v in x:
        c.k += 1
        s = s + v * c.k
    return s

def int_attr_list_len(x):
    hist = []
    s = 0.0
    for v in x:
        hist.append(v)
        s = s + v * len(hist)
    return s

class Sched:
    def __init__(self, lr): self.lr = lr; self.t = 0
    def step(self):
        self.t += 1
        self.lr = self.lr * 0.5
        return self.lr

def scheduler(x):
    s = Sched(x[0])
    p = x[1]
    for _ in range(3):
        p = p - s.step() * p ** 2
    return p + s.t * s.lr

def time_step_int(x):
    t = 0
    y = x.copy()
    while t < 3:
        y = y * (1.0 + 0.1 * t)
        t += 1
    return np.sum(y)

class Cls2:
    total = 0.0
    def add(self, v):
        Cls2.total += 1.0
        return v * Cls2.total

def class_float_const_counter(x):
    Cls2.total = 0.0
    c = Cls2()
    return c.add(x[0]) + c.add(x[1])

PROBES = []
for f in list(globals().values()):
    if (callable(f) and getattr(f, "__module__", None) == __name__ and type(f).__name__ == "function"
            and not f.__name__.startswith("_")):
        PROBES.append((f.__name__, f, (X,)))
