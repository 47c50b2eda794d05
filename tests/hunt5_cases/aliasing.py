import numpy as np, copy

X = np.array([0.7, -1.3, 2.1])

def _axpy(a, x, y):
    y += a * x
    return y

def axpy_alias(x):
    y = x.copy()
    _axpy(2.0, y, y)
    return np.sum(y * x)

def _swap_update(a, b):
    t = a.copy()
    a[:] = b
    b[:] = t * 2.0

def swap_update_alias(x):
    y = x ** 2
    _swap_update(y, y)
    return np.sum(y * x)

def _norm_rows(M, out):
    for i in range(M.shape[0]):
        out[i] = M[i] / np.sum(M[i] ** 2) ** 0.5

def out_is_input(x):
    M = np.outer(x, x) + np.eye(3)
    _norm_rows(M, M)
    return np.sum(M * np.arange(9.0).reshape(3, 3))

def _accumulate(dst, src):
    for i in range(len(src)):
        dst[i] += src[i] * dst[0]

def self_accumulate(x):
    y = x.copy()
    _accumulate(y, y)
    return np.sum(y)

def view_args(x):
    y = np.concatenate([x, x ** 2])
    _axpy(3.0, y[:3], y[3:])
    return np.sum(y * y)

def overlapping_views(x):
    y = np.concatenate([x, x ** 2])
    _axpy(3.0, y[:4], y[2:])
    return np.sum(y * y)

def overlap_shift(x):
    y = np.concatenate([x, x ** 2])
    y[1:] += y[:-1]
    return np.sum(y * y)

def overlap_shift_assign(x):
    y = np.concatenate([x, x ** 2])
    y[1:] = y[:-1] * 2.0
    return np.sum(y * np.arange(6.0))

def overlap_reverse_assign(x):
    y = np.concatenate([x, x ** 2])
    y[:] = y[::-1] * x[0]
    return np.sum(y * np.arange(6.0))

def overlap_reverse_iadd(x):
    y = x * 1.0
    y += y[::-1]
    return np.sum(y * np.arange(3.0))

def transpose_iadd_self(x):
    M = np.outer(x, np.arange(1.0, 4.0))
    M += M.T
    return np.sum(M * np.arange(9.0).reshape(3, 3))

def transpose_assign_self(x):
    M = np.outer(x, np.arange(1.0, 4.0))
    M[:] = M.T * x[0]
    return np.sum(M * np.arange(9.0).reshape(3, 3))

def matmul_self_out(x):
    M = np.outer(x, x) + np.eye(3)
    np.matmul(M, M, out=M)
    return np.sum(M)

def dict_two_keys_same(x):
    y = x.copy()
    d = {"a": y, "b": y}
    d["a"] *= 2.0
    d["b"] += 1.0
    return np.sum(d["a"] * x)

def list_same_twice(x):
    y = x.copy()
    L = [y, y]
    for v in L:
        v *= x
    return np.sum(y)

def obj_field_alias(x):
    class H:
        pass
    h = H(); g = H()
    h.v = x.copy(); g.v = h.v
    g.v *= 2.0
    h.v += x
    return np.sum(g.v * x)

def obj_field_rebind_vs_inplace(x):
    class H:
        pass
    h = H(); g = H()
    h.v = x.copy(); g.v = h.v
    g.v = g.v * 2.0  # rebinding: h.v unchanged
    h.v += x
    return np.sum(g.v * h.v)

def _ret_view(a):
    return a[1:]

def returned_view_write(x):
    y = x * 1.0
    v = _ret_view(y)
    v *= 3.0
    v[0] = y[0] * 10.0
    return np.sum(y * x)

def _ret_T(a):
    return a.T

def returned_T_write(x):
    M = np.outer(x, x)
    _ret_T(M)[0] = x * 5.0
    return np.sum(M * np.arange(9.0).reshape(3, 3))

def _ret_reshape(a):
    return a.reshape(3, 2)

def returned_reshape_write(x):
    y = np.concatenate([x, x ** 2])
    r = _ret_reshape(y)
    r[:, 0] = r[:, 1] * 2.0
    return np.sum(y * np.arange(6.0))

def returned_reshape_T_copy(x):
    M = np.outer(x, np.ones(2)).T  # not contiguous
    r = M.reshape(6)  # a copy
    r[0] = 50.0
    return np.sum(M ** 2) + np.sum(r)

def float_alias_iadd(x):
    a = x[0]
    b = a
    b += 1.0
    b *= x[1]
    return a * b

def tuple_alias_iadd(x):
    t = (x[0], x[1])
    u = t
    u += (x[2],)
    return sum(t) * sum(u)

def list_alias_iadd(x):
    L = [x[0]]
    M = L
    M += [x[1]]
    return sum(L) * len(L)

def array_default_arg_mutated(x):
    def f(v, acc=np.zeros(3)):
        acc += v
        return acc
    f.__defaults__[0][:] = 0.0
    r = f(x)
    return np.sum(r * f(x ** 2))

def array_from_list_of_views(x):
    M = np.outer(x, x)
    rows = [M[i] for i in range(3)]
    rows[0] *= 2.0
    return np.sum(M)

def np_array_copy_false(x):
    y = x * 1.0
    z = np.asarray(y)
    z[0] = 9.0 * x[1]
    return np.sum(y * x)

def np_array_copy_true(x):
    y = x * 1.0
    z = np.array(y)
    z[0] = 9.0 * x[1]
    return np.sum(y * x) + np.sum(z)

def astype_same_dtype(x):
    y = x * 1.0
    z = y.astype(np.float64, copy=False)
    z[0] = 9.0
    return np.sum(y * x)

def astype_copy(x):
    y = x * 1.0
    z = y.astype(np.float64)
    z[0] = 9.0
    return np.sum(y * x) + np.sum(z * x)

def view_method(x):
    y = x * 1.0
    z = y.view()
    z[0] = 9.0 * x[2]
    return np.sum(y * x)

def base_check(x):
    y = x * 1.0
    z = y[:2]
    if z.base is y:
        z[0] = 5.0 * x[1]
    return np.sum(y * x)

def may_share(x):
    y = x * 1.0
    z = y[::2]
    if np.shares_memory(y, z):
        z *= 2.0
    return np.sum(y)

def ascontig(x):
    M = np.outer(x, x)
    C = np.ascontiguousarray(M)
    C[0, 0] = 7.0
    return np.sum(M * x)

def ascontig_T(x):
    M = np.outer(x, np.arange(1.0, 4.0))
    C = np.ascontiguousarray(M.T)
    C[0, 0] = 7.0
    return np.sum(M * x) + np.sum(C)

PROBES = []
for f in list(globals().values()):
    if (callable(f) and getattr(f, "__module__", None) == __name__ and type(f).__name__ == "function"
            and not f.__name__.startswith("_")):
        PROBES.append((f.__name__, f, (X,)))
