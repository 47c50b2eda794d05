import numpy as np

X = np.array([0.7, -1.3, 2.1])

def fill_method(x):
    y = x * 3.0; z = y
    y.fill(0.5)
    return np.sum(z * x)

def fill_then_write(x):
    y = x * 3.0
    y.fill(x[0])
    return np.sum(y * x)

def sort_inplace(x):
    y = x * 3.0
    y.sort()
    return np.sum(y * np.arange(3.0))

def sort_inplace_alias(x):
    y = x * 3.0; z = y
    y.sort()
    return np.sum(z * np.arange(3.0))

def sort_axis_inplace(x):
    M = np.outer(x, np.array([1.0, -1.0]))
    M.sort(axis=0)
    return np.sum(M * np.arange(6.0).reshape(3, 2))

def putmask(x):
    y = x * 3.0
    np.putmask(y, y > 0, x ** 2)
    return np.sum(y * x)

def place(x):
    y = x * 3.0
    np.place(y, y < 0, [0.0])
    return np.sum(y * x)

def clip_method_out(x):
    y = x * 3.0
    y.clip(-1.0, 1.0, out=y)
    return np.sum(y * x)

def round_method_out(x):
    y = x * 3.0
    y.round(0, out=y)
    return np.sum(y * x)

def abs_out(x):
    y = x * 3.0
    np.abs(y, out=y)
    return np.sum(y * x)

def negative_out_alias(x):
    y = x * 3.0; z = y
    np.negative(y, out=y)
    return np.sum(z * x)

def nan_to_num_copy_false(x):
    y = x * 3.0
    with np.errstate(all="ignore"):
        y[1] = np.log(y[1])
    np.nan_to_num(y, copy=False)
    return np.sum(y * x)

def astype_copy_false_int(x):
    y = x * 3.0
    k = y.astype(int, copy=False)
    return np.sum(k * x) + np.sum(y)

def setitem_const_all(x):
    y = x * 3.0; z = y
    y[:] = 1.0
    return np.sum(z * x)

def setitem_int_array(x):
    y = x * 3.0
    y[:] = np.array([1, 2, 3])
    return np.sum(y * x)

def copyto_const(x):
    y = x * 3.0
    np.copyto(y, np.ones(3))
    return np.sum(y * x)

def copyto_int(x):
    y = x * 3.0
    np.copyto(y, np.arange(3))
    return np.sum(y * x)

def maximum_out_const(x):
    y = x * 3.0
    np.maximum(y, 0.0, out=y)
    return np.sum(y * x)

def greater_out_float(x):
    y = x * 3.0
    np.greater(y, 0.0, out=y, casting="unsafe")
    return np.sum(y * x)

def where_out(x):
    y = x * 3.0
    np.multiply(y, 0.0, out=y, where=y > 0)
    return np.sum(y * x)

def matmul_out_alias(x):
    M = np.outer(x, x); N = M
    np.matmul(np.eye(3), np.ones((3, 3)), out=M)
    return np.sum(N * x)

def cumsum_out_self(x):
    y = x * 3.0
    np.cumsum(y, out=y)
    return np.sum(y * x)

def sum_out_0d(x):
    out = np.array(0.0)
    np.sum(x ** 2, out=out)
    return float(out) * x[0]

def mean_out_alias(x):
    M = np.outer(x, x)
    r = np.zeros(3)
    M.mean(axis=0, out=r)
    r2 = r
    r *= 2.0
    return np.sum(r2 * x)

def std_out(x):
    M = np.outer(x, np.arange(1.0, 4.0))
    r = np.zeros(3)
    np.std(M, axis=1, out=r)
    return np.sum(r * x)

def argmax_out(x):
    i = np.zeros((), dtype=int)
    np.argmax(x, out=i)
    return x[int(i)] * 2.0

def ufunc_at_floor(x):
    y = x * 3.0
    np.floor.at(y, [0, 2]) if hasattr(np.floor, "at") else None
    return np.sum(y * x)

def resize_inplace(x):
    y = x * 3.0
    y = np.resize(y, 4)
    return np.sum(y * np.arange(4.0))

def itemset_like(x):
    y = x * 3.0
    y.flat[1] = 0.0
    y.flat[[0, 2]] = x[0] ** 2
    return np.sum(y * x)

def real_imag_write(x):
    z = x * (1.0 + 1.0j)
    z.imag = 0.0
    return np.sum(z.real * x) + np.sum(np.abs(z))

PROBES = []
for f in list(globals().values()):
    if (callable(f) and getattr(f, "__module__", None) == __name__ and type(f).__name__ == "function"
            and not f.__name__.startswith("_")):
        PROBES.append((f.__name__, f, (X,)))
