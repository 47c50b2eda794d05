import numpy as np, functools, operator, math

X = np.array([0.7, -1.3, 2.1])

def nonlocal_counter(x):
    total = 0.0
    calls = 0
    def add(v):
        nonlocal total, calls
        total += v * v
        calls += 1
        return total
    for v in x:
        add(v)
    add(total)
    return total / calls

def late_binding(x):
    fs = []
    for i in range(3):
        fs.append(lambda t: t * x[i])  # all see the last i
    return sum(f(x[0]) for f in fs)

def late_binding_default(x):
    fs = [lambda t, i=i: t * x[i] for i in range(3)]
    return sum(f(x[0]) for f in fs)

def late_binding_value(x):
    fs = []
    for v in x:
        fs.append(lambda t: t * v)  # all see the last v
    return sum(f(2.0) for f in fs)

def late_binding_rebind(x):
    k = x[0]
    f = lambda t: t * k
    k = x[1] ** 2
    return f(x[2])

def default_arg_array(x):
    def g(t, w=x * 2.0):
        return np.sum(t * w)
    return g(x) + g(x, x)

_DEF_W = np.array([1.0, 2.0, 3.0])
def _helper_default(t, w=_DEF_W):
    return np.sum(t * w)

def default_global_arr(x):
    return _helper_default(x) * x[0]

def _mutating_default(v, acc=[]):
    acc.append(v)
    return sum(acc)

def mutable_default_list(x):
    del _mutating_default.__defaults__[0][:]
    a = _mutating_default(x[0])
    b = _mutating_default(x[1] * a)
    return a * b

class Model:
    def __init__(self, w): self.w = w
    def loss(self, x, scale): return scale * np.sum((self.w * x) ** 2)

def partial_method(x):
    m = Model(x)
    f = functools.partial(m.loss, scale=x[0])
    return f(x) + f(np.ones(3))

def partial_func(x):
    f = functools.partial(np.dot, x)
    g = functools.partial(operator.mul, 3.0)
    return f(x ** 2) + g(x[1])

def partial_kw_override(x):
    def h(a, b=1.0, c=2.0): return a * b + c
    f = functools.partial(h, b=x[0], c=x[1])
    return f(x[2], c=x[0] ** 2)

def lambdas_in_dict(x):
    acts = {"tanh": np.tanh, "relu": lambda v: np.maximum(v, 0.0), "sq": lambda v: v * v,
            "scaled": lambda v: x[0] * v}
    h = x
    for name in ["sq", "tanh", "scaled", "relu"]:
        h = acts[name](h)
    return np.sum(h)

def _rec_sum(v, i, acc):
    if i == len(v):
        return acc
    return _rec_sum(v, i + 1, acc * 0.5 + v[i] ** 2)

def recursion_acc(x):
    return _rec_sum(x, 0, 0.0)

def _rec_list(v, out):
    if len(v) == 0:
        return out
    out.append(v[0] * (len(out) + 1))
    return _rec_list(v[1:], out)

def recursion_list(x):
    r = _rec_list(x, [])
    return r[0] * r[2] + sum(r)

def _power_rec(x, n):
    if n == 0:
        return 1.0
    h = _power_rec(x, n // 2)
    return h * h * (x if n % 2 else 1.0)

def recursion_pow(x):
    return _power_rec(x[0], 5) + _power_rec(x[1], 4)

def _gen_slices(p, k):
    for i in range(0, len(p), k):
        yield p[i:i + k]

def generator_slices(x):
    p = np.concatenate([x, x ** 2])
    s = 0.0
    for chunk in _gen_slices(p, 2):
        s = s + np.prod(chunk)
    return s

def _gen_params(params):
    for name in sorted(params):
        yield name, params[name]

def generator_dict(x):
    params = {"w": x, "b": x[0]}
    tot = 0.0
    for n, v in _gen_params(params):
        tot = tot + np.sum(v ** 2) * (2.0 if n == "b" else 1.0)
    return tot

def _gen_mut(p):
    for i in range(len(p)):
        p[i] = p[i] * 2.0
        yield p[i]

def generator_mutating(x):
    y = x.copy()
    vals = list(_gen_mut(y))
    return sum(vals) + np.sum(y * x)

def gen_expr_sum(x):
    return sum(v ** 2 for v in x if v > 0) * max(v for v in x)

def closure_over_array_mutated(x):
    buf = np.zeros(3)
    def put(i, v):
        buf[i] = v
    for i in range(3):
        put(i, x[i] * x[(i + 1) % 3])
    return np.sum(buf ** 2)

def closure_factory(x):
    def make(a):
        def f(t):
            return a * t ** 2
        return f
    fs = [make(v) for v in x]
    return sum(f(x[0]) for f in fs)

def closure_cell_updated_after(x):
    s = x[0]
    def f():
        return s * 2.0
    a = f()
    s = x[1]
    return a + f()

def decorator_cache(x):
    calls = {}
    def memo(fn):
        def w(a):
            key = round(float(a), 12)
            if key not in calls:
                calls[key] = fn(a)
            return calls[key]
        return w
    @memo
    def sq(a):
        return a * a * x[2]
    return sq(x[0]) + sq(x[0]) + sq(x[1])

_G = {"scale": 2.0}
def global_dict_write(x):
    _G["scale"] = x[0]
    return _G["scale"] * x[1]

_STATE = [None]
def global_list_set(x):
    _STATE[0] = x * 2.0
    return np.sum(_STATE[0] * x)

counter_glob = 0.0
def global_stmt(x):
    global counter_glob
    counter_glob = 0.0
    for v in x:
        counter_glob += v * v
    return counter_glob

def reduce_lambda(x):
    return functools.reduce(lambda a, b: a * b + 1.0, x, 1.0)

def map_partial(x):
    f = functools.partial(np.power, x)
    return np.sum(f(2.0) + f(3.0))

def sorted_key_closure(x):
    w = x[0]
    items = sorted(list(x), key=lambda v: -v * w)
    return items[0] * 1.0 + items[1] * 10.0

def lru_cache_fn(x):
    @functools.lru_cache(maxsize=None)
    def const(n):
        return n * 2.0
    return x[0] * const(3) + const(3)

def operator_itemgetter(x):
    g = operator.itemgetter(0, 2)
    a, b = g(x)
    d = {"k": x[1]}
    return a * b + operator.itemgetter("k")(d)

def operator_attrgetter(x):
    m = Model(x)
    return np.sum(operator.attrgetter("w")(m) ** 2)

def method_bound_stored(x):
    m = Model(x)
    L = [m.loss]
    m.w = x ** 2  # the bound method sees the new w
    return L[0](x, 1.0)

def staticmethod_classmethod(x):
    class K:
        factor = 2.0
        @staticmethod
        def sq(v): return v * v
        @classmethod
        def scaled(cls, v): return cls.factor * v
    return K.sq(x[0]) + K.scaled(x[1]) + K().sq(x[2])

def nested_def_loop(x):
    tot = 0.0
    for i in range(3):
        def term(v, i=i):
            return v ** (i + 1)
        tot = tot + term(x[i])
    return tot

def callback_list(x):
    hooks = []
    hooks.append(lambda h: h * 2.0)
    hooks.append(np.sin)
    out = x
    for hk in hooks:
        out = hk(out)
    return np.sum(out)

def walrus(x):
    s = 0.0
    if (m := np.max(x)) > 1.0:
        s = m * 2.0
    return s + sum(y for v in x if (y := v * v) > 0.5)

def star_args_call(x):
    def f(a, b, *rest, c=1.0, **kw):
        return a * b + sum(rest) * c + sum(kw.values())
    args = [x[0], x[1], x[2]]
    return f(*args, c=x[0], d=x[1] ** 2)

def kwargs_dict_call(x):
    def f(a, b=2.0): return a ** b
    kw = {"b": 3.0}
    return f(x[0], **kw) + f(b=x[1], a=x[2])

def exc_flow(x):
    try:
        v = np.linalg.cholesky(np.diag(x))
        return np.sum(v)
    except np.linalg.LinAlgError:
        return np.sum(x ** 2)

def try_finally(x):
    s = 0.0
    try:
        s = x[0] * x[1]
    finally:
        s = s + x[2]
    return s

def with_errstate(x):
    with np.errstate(all="ignore"):
        y = np.log(x * x)
    return np.sum(y)

PROBES = []
for f in list(globals().values()):
    if (callable(f) and getattr(f, "__module__", None) == __name__ and not f.__name__.startswith("_")
            and f.__name__ not in ("Model",)):
        PROBES.append((f.__name__, f, (X,)))
