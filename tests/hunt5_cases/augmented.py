import numpy as np

X = np.array([0.7, -1.3, 2.1])

class NoIadd:
    def __init__(self, v): self.v = v
    def __add__(self, o): return NoIadd(self.v + (o.v if isinstance(o, NoIadd) else o))
    def __mul__(self, s): return NoIadd(self.v * s)

def iadd_fallback(x):
    a = NoIadd(x[0]); b = a
    a += NoIadd(x[1])   # rebinding: b unchanged
    a *= x[2]
    return a.v * b.v

class IaddNew:
    def __init__(self, v): self.v = v
    def __iadd__(self, o): return IaddNew(self.v + o)  # returns a new object

def iadd_returns_new(x):
    a = IaddNew(x[0]); b = a
    a += x[1]
    return a.v * b.v

def attr_list_iadd(x):
    class H:
        def __init__(self): self.hist = []
    h = H()
    alias = h.hist
    for v in x:
        h.hist += [v * v]
    return sum(alias) * len(alias)

def dict_item_array_iadd(x):
    a = x * 1.0
    d = {"a": a}
    d["a"] += x ** 2     # in place: `a` changes too
    return np.sum(a * x)

def list_item_array_iadd(x):
    a = x * 1.0
    L = [a, a]
    L[0] += x
    L[1] *= 2.0
    return np.sum(a * x)

def attr_array_iadd_alias(x):
    class W:
        def __init__(self, w): self.w = w
    w0 = x * 1.0
    o = W(w0)
    o.w += x ** 2
    o.w *= x[0]
    return np.sum(w0)

def attr_float_iadd(x):
    class W:
        def __init__(self, w): self.w = w
    o = W(x[0])
    f = o.w
    o.w += x[1]
    o.w *= x[2]
    return o.w * f

def tuple_in_list_iadd(x):
    L = [(x[0],), (x[1],)]
    L[0] += (x[2],)
    return L[0][0] * L[0][1] + L[1][0]

def subscript_slice_iadd(x):
    y = x * 1.0
    z = y[1:]
    y[1:] += z[::-1]    # overlapping read of view
    return np.sum(y * x)

def nested_iadd(x):
    d = {"layers": [{"w": x * 1.0}]}
    ref = d["layers"][0]["w"]
    d["layers"][0]["w"] += 1.0
    d["layers"][0]["w"] -= x ** 2
    return np.sum(ref * x)

def iadd_broadcast(x):
    M = np.zeros((2, 3))
    M += x
    M[0] += x ** 2
    M[:, 1] += x[0]
    return np.sum(M ** 2)

def imatmul(x):
    M = np.outer(x, x) + np.eye(3)
    N = M
    M = M @ M   # rebinding
    N @= np.eye(3) * 2.0  # in place on the original
    return np.sum(M) + np.sum(N)

def ipow_idiv(x):
    y = x * 1.0
    z = y
    y **= 2
    y /= 3.0
    y //= 1.0 if False else 1
    return np.sum(z * x)

def int_iadd_float_array(x):
    a = np.zeros(3)
    a += 1
    a *= x
    return np.sum(a)

def counter_in_dict_of_obj(x):
    class S:
        def __init__(self): self.stats = {"sum": 0.0, "n": 0}
    s = S()
    for v in x:
        s.stats["sum"] += v * v
        s.stats["n"] += 1
    return s.stats["sum"] / s.stats["n"]

def list_mul_iadd(x):
    L = [x[0]]
    M = L
    L *= 3   # in place: M is L
    M[1] = x[1]
    return L[0] * L[1] + L[2] + len(M)

def str_accumulate_and_math(x):
    log = ""
    s = 0.0
    for v in x:
        log += f"{v:.2f},"
        s += v * v
    return s * len(log)

def global_array_iadd_refused(x):
    y = x.copy()
    y += _GLOB
    return np.sum(y * x)

_GLOB = np.array([1.0, 2.0, 3.0])

PROBES = []
for f in list(globals().values()):
    if (callable(f) and getattr(f, "__module__", None) == __name__ and type(f).__name__ == "function"
            and not f.__name__.startswith("_")):
        PROBES.append((f.__name__, f, (X,)))
