import numpy as np, functools, time
X = np.array([0.7, -1.3, 2.1])
def timed(fn):
    @functools.wraps(fn)
    def w(*a, **k):
        t0 = time.perf_counter()
        r = fn(*a, **k)
        w.elapsed = time.perf_counter() - t0
        return r
    return w
def scaled(k):
    def deco(fn):
        @functools.wraps(fn)
        def w(x, *a, **kw):
            return k * fn(x * k, *a, **kw)
        return w
    return deco
def counted(fn):
    def w(*a):
        w.calls += 1
        return fn(*a)
    w.calls = 0
    return w
@timed
def _energy(v): return np.sum(v ** 2)
@scaled(2.0)
def _sq(v, p=2): return np.sum(v ** p)
@counted
def _cube(v): return np.sum(v ** 3)
def deco_timed(x): return _energy(x) * x[0]
def deco_scaled(x): return _sq(x) + _sq(x, p=3)
def deco_counted(x): return _cube(x) + _cube(x * 2.0)
def deco_stack(x):
    @scaled(0.5)
    @scaled(3.0)
    def f(v): return np.sum(np.sin(v))
    return f(x)
class Model:
    def __init__(self, w): self.w = w
    @scaled(2.0)
    def loss(self_or_x, *a):
        return self_or_x
def deco_method_like(x):
    class M:
        def __init__(self, w): self.w = w
        def _raw(self, v): return np.sum(self.w * v)
        raw = _raw
        def loss(self, v): return self.raw(v) ** 2
    return M(x).loss(x)
def deco_validate(x):
    def validate(fn):
        def w(v):
            if np.any(np.isnan(v)):
                raise ValueError("nan")
            return fn(np.asarray(v, dtype=float))
        return w
    @validate
    def f(v): return np.sum(np.exp(v))
    return f(x) + f(list(x))
def deco_memo_dict(x):
    cache = {}
    def memo(fn):
        def w(n):
            if n not in cache:
                cache[n] = fn(n)
            return cache[n]
        return w
    @memo
    def power(n): return x[0] ** n
    return power(2) + power(3) + power(2)
PROBES = []
for f in list(globals().values()):
    if (callable(f) and getattr(f, "__module__", None) == __name__ and type(f).__name__ == "function"
            and f.__name__.startswith("deco_")):
        PROBES.append((f.__name__, f, (X,)))
