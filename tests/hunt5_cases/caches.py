import numpy as np, functools
X = np.array([0.7, -1.3, 2.1])
@functools.lru_cache(maxsize=None)
def _sq(a):
    return a * a * 3.0
def lru_float_arg(x):
    return _sq(float(x[0])) + _sq(float(x[0])) * x[1]
@functools.cache
def _fib(n):
    return n if n < 2 else _fib(n - 1) + _fib(n - 2)
def cache_int_arg(x):
    return x[0] * _fib(10)
def lru_inner_closure(x):
    @functools.lru_cache(maxsize=4)
    def g(k):
        return x[k] ** 2
    return g(0) + g(0) * g(1)
def lru_method(x):
    class M:
        def __init__(self, w): self.w = w
        @functools.lru_cache(maxsize=None)
        def f(self, k): return self.w[k] * 2.0
    m = M(x)
    return m.f(0) * m.f(1) + m.f(0)
def cached_property_like(x):
    class M:
        def __init__(self, w): self.w = w
        @functools.cached_property
        def total(self): return np.sum(self.w ** 2)
    m = M(x)
    return m.total * m.total
PROBES = []
for f in list(globals().values()):
    if (callable(f) and getattr(f, "__module__", None) == __name__ and type(f).__name__ == "function"
            and not f.__name__.startswith("_")):
        PROBES.append((f.__name__, f, (X,)))
