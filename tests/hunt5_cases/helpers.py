import numpy as np

X = np.array([0.7, -1.3, 2.1])

def _scale(x, k=2.0):
    x = x * k          # rebinding the parameter
    return x

def param_rebind_same_name(x):
    y = _scale(x)
    return np.sum(x * y)

def _inplace(x, k):
    x *= k
    return x

def helper_inplace_on_caller_copy(x):
    y = x.copy()
    z = _inplace(y, x[0])
    return np.sum(y * z) + np.sum(x)

def _uses_t(a):
    t = a * 3.0
    s = t + 1.0
    return s * t

def name_collision(x):
    t = x[0] * 2.0
    s = x[1] + t
    r = _uses_t(x[2])
    return t * s + r + t

def _loop_helper(v):
    acc = 0.0
    for i in range(len(v)):
        acc = acc + v[i] * i
    return acc

def helper_with_loop_in_loop(x):
    acc = 1.0
    for i in range(2):
        acc = acc * _loop_helper(x * (i + 1.0))
    return acc

def _kw(a, b=1.0, *, c=0.5):
    return a * b + c * a * a

def keyword_calls(x):
    return _kw(x[0]) + _kw(b=x[1], a=x[2]) + _kw(x[0], c=x[1]) + _kw(*x[:2]) + _kw(**{"a": x[2], "c": x[0]})

def _mut_default(v, acc=np.zeros(3)):
    return acc + v

def default_array_helper(x):
    return np.sum(_mut_default(x) * _mut_default(x, x))

_K = 2.0
def _reads_global(v):
    return v * _K

def global_read_helper(x):
    return _reads_global(x[0]) * x[1]

def _two_returns(v):
    if v > 0:
        return v * v
    return -v

def helper_two_returns(x):
    return sum(_two_returns(v) for v in x)

def _ret_tuple(v):
    return v * 2.0, v ** 2, v - 1.0

def helper_tuple_partial_use(x):
    a, _, c = _ret_tuple(x[0])
    b = _ret_tuple(x[1])[1]
    return a * b * c

def _modifies_list(L, v):
    L.append(v * v)
    L[0] = L[0] + v
    return len(L)

def helper_mutates_list(x):
    L = [x[0]]
    n = _modifies_list(L, x[1])
    n2 = _modifies_list(L, x[2])
    return sum(L) * n * n2

def _modifies_dict(d, k, v):
    d[k] = d.get(k, 0.0) + v
    return d

def helper_mutates_dict(x):
    d = {}
    for i in range(3):
        _modifies_dict(d, i % 2, x[i] ** 2)
    return d[0] * d[1]

def _returns_arg(a):
    return a

def identity_helper_alias(x):
    y = x.copy()
    z = _returns_arg(y)
    z += 1.0
    return np.sum(y * x)

def _returns_view(a):
    return a[:2]

def view_helper_alias(x):
    y = x.copy()
    z = _returns_view(y)
    z *= x[2]
    return np.sum(y * x)

def _nested_inner(v):
    return v ** 2

def _nested_outer(v):
    return _nested_inner(v) + _nested_inner(v * 2.0)

def nested_helpers(x):
    return np.sum(_nested_outer(x))

def _recursive(v, n):
    return v if n == 0 else _recursive(v * v * 0.5 + v, n - 1)

def recursive_helper(x):
    return np.sum(_recursive(x, 3))

def _with_star(*vals):
    return sum(v * v for v in vals)

def star_helper(x):
    return _with_star(*x) + _with_star(x[0], x[1])

def _with_kwargs(**kw):
    return kw["a"] * kw.get("b", 1.0)

def kwargs_helper(x):
    return _with_kwargs(a=x[0], b=x[1]) + _with_kwargs(a=x[2])

def _changes_caller_obj(o, v):
    o.val = o.val * v
    return o.val

class _O:
    def __init__(self, v): self.val = v

def helper_changes_obj(x):
    o = _O(x[0])
    r = _changes_caller_obj(o, x[1])
    return r * o.val + _changes_caller_obj(o, x[2])

def _closure_maker(k):
    def f(v):
        return v * k
    return f

def factory_helper(x):
    fs = [_closure_maker(x[i]) for i in range(3)]
    return sum(f(x[0]) for f in fs)

def _branch_helper(v, flag):
    if flag:
        v = v * 2.0
    else:
        v = v + 1.0
    return v

def helper_with_branch(x):
    return _branch_helper(x[0], True) * _branch_helper(x[1], False) + _branch_helper(x[2], x[0] > 0)

def _array_arg_reassigned(a):
    a = a.copy()
    a[0] = 0.0
    return a

def helper_copy_then_write(x):
    y = _array_arg_reassigned(x)
    return np.sum(y * x)

def _aug_param(a, b):
    a += b   # float parameter: local only; array: in place!
    return a

def aug_param_float_vs_array(x):
    f = x[0]
    r1 = _aug_param(f, x[1])
    y = x.copy()
    r2 = _aug_param(y, x)
    return r1 * f + np.sum(r2 * y) + np.sum(y)

def _unused_nan(v):
    return v * 2.0, v / 0.0 if False else v

def helper_unused(x):
    a, _ = _unused_nan(x[0])
    return a

def _lambda_default(v, f=lambda t: t * t):
    return f(v)

def lambda_default_helper(x):
    return _lambda_default(x[0]) + _lambda_default(x[1], lambda t: t * x[2])

def _global_write_helper(v):
    global _CNT
    _CNT = _CNT + 1
    return v * _CNT

_CNT = 0

def helper_global_counter(x):
    global _CNT
    _CNT = 0
    return _global_write_helper(x[0]) + _global_write_helper(x[1])

PROBES = []
for f in list(globals().values()):
    if (callable(f) and getattr(f, "__module__", None) == __name__ and type(f).__name__ == "function"
            and not f.__name__.startswith("_")):
        PROBES.append((f.__name__, f, (X,)))
