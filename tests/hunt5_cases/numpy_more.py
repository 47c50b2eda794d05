import numpy as np
import scipy.signal as ss
import scipy.special as sp

X = np.array([0.7, -1.3, 2.1])
A = np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.4], [1.1, 0.2, 0.6]])
B4 = np.arange(24.0).reshape(2, 3, 4) / 10.0

def sig_convolve(A):
    img = np.outer(np.arange(5.0), np.ones(5)) / 5.0
    return np.sum(ss.convolve2d(img, A, mode="valid") ** 2)

def sig_convolve_nd(B4):
    k = np.ones((1, 2, 2)) * 0.5
    return np.sum(ss.convolve(B4, k, mode="valid") ** 2)

def sig_correlate(x):
    return np.sum(ss.correlate(np.sin(np.arange(6.0)), x, mode="same") ** 2)

def sig_lfilter(x):
    return np.sum(ss.lfilter([x[0], x[1]], [1.0, -0.5], np.arange(5.0)))

def tensordot_axes(B4):
    return np.sum(np.tensordot(B4, B4, axes=([1, 2], [1, 2])))

def tensordot_int(A):
    return np.sum(np.tensordot(A, A, 1) ** 2) + np.tensordot(A, A, 2)

def reshape_F(B4):
    r = np.reshape(B4, (4, 6), order="F")
    return np.sum(r * np.arange(24.0).reshape(4, 6))

def ravel_F(A):
    return np.sum(A.ravel(order="F") * np.arange(9.0))

def transpose_axes(B4):
    return np.sum(np.transpose(B4, (2, 0, 1)) * np.arange(24.0).reshape(4, 2, 3))

def pad_modes(x):
    return (np.sum(np.pad(x, 2, mode="constant") * np.arange(7.0)) + np.sum(np.pad(x, 1, mode="edge") ** 2)
            + np.sum(np.pad(x, 1, mode="reflect") * np.arange(5.0)) + np.sum(np.pad(x, (0, 2), mode="wrap") ** 3))

def flip_rot(A):
    return np.sum(np.flip(A, 0) * A) + np.sum(np.rot90(A) * np.arange(9.0).reshape(3, 3)) + np.sum(np.fliplr(A)[0])

def take_choose(x):
    idx = np.array([2, 0, 0, 1])
    return np.sum(np.take(x, idx) * np.arange(4.0)) + np.sum(np.choose([0, 1, 0], [x, x ** 2]))

def select_piecewise(x):
    s = np.select([x < 0, x < 1], [x ** 2, np.sin(x)], default=x)
    p = np.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v ** 3])
    return np.sum(s) + np.sum(p)

def bincount_w(x):
    return np.sum(np.bincount(np.array([0, 1, 1]), weights=x, minlength=3) ** 2)

def histogram_weights(x):
    h, _ = np.histogram(np.array([0.1, 0.5, 0.7]), bins=2, range=(0, 1), weights=x)
    return np.sum(h ** 2)

def fft_power(x):
    F = np.fft.fft(x)
    return np.sum(np.abs(F) ** 2) + np.real(np.fft.ifft(F * F)).sum()

def rfft_probe(x):
    y = np.concatenate([x, x ** 2])
    return np.sum(np.abs(np.fft.rfft(y)))

def complex_in_real(x):
    z = x[0] + 1j * x[1]
    w = z * z + np.exp(1j * x[2])
    return np.abs(w) + w.real * w.imag

def angle_conj(x):
    z = x + 1j * x[::-1]
    return np.sum(np.angle(z)) + np.sum((z * np.conj(z)).real)

def unique_counts(x):
    u, c = np.unique(np.array([1, 2, 2, 3]), return_counts=True)
    return np.sum(x * c)

def diag_embed(x):
    return np.sum(np.diag(x) @ A) + np.sum(np.diag(A, k=1) * x[:2])

def diagflat(x):
    return np.sum(np.diagflat(x, 1) ** 2 * np.arange(16.0).reshape(4, 4))

def trace_offset(A):
    return np.trace(A, offset=1) + np.trace(A @ A)

def outer_sum_axes(B4):
    return np.sum(np.sum(B4, axis=(0, 2)) ** 2) + np.sum(np.mean(B4, axis=-1, keepdims=True) * B4)

def amax_axes(B4):
    return np.sum(np.amax(B4, axis=(1, 2))) + np.sum(np.ptp(B4, axis=0))

def argmax_take_along(A):
    i = np.argmax(A, axis=1)
    return np.sum(np.take_along_axis(A, i[:, None], axis=1))

def newaxis_broadcast(x):
    return np.sum((x[:, None] - x[None, :]) ** 2 * np.arange(9.0).reshape(3, 3))

def ellipsis_index(B4):
    return np.sum(B4[..., 1] ** 2) + np.sum(B4[0, ...] * B4[1, ...])

def stack_axis(x):
    return np.sum(np.stack([x, x ** 2], axis=1) * np.arange(6.0).reshape(3, 2))

def column_row_stack(x):
    return np.sum(np.column_stack([x, x ** 2]) ** 2) + np.sum(np.vstack([x, x]) * np.dstack([x, x])[0].T)

def concat_axis_none(A):
    return np.sum(np.concatenate([A, A.T], axis=None) * np.arange(18.0))

def append_insert_delete(x):
    y = np.append(x, x[0] * 2.0)
    z = np.insert(y, 1, x[2] ** 2)
    w = np.delete(z, [0, 3])
    return np.sum(w * np.arange(3.0))

def repeat_probe(x):
    return np.sum(np.repeat(x, [1, 2, 3]) * np.arange(6.0)) + np.sum(np.repeat(x[None], 2, axis=0) ** 2)

def resize_probe(x):
    return np.sum(np.resize(x, 5) * np.arange(5.0))

def cumsum_axis_rev(A):
    return np.sum(np.cumsum(A[::-1], axis=0) * A) + np.sum(np.cumsum(A, axis=1)[:, ::-1] ** 2)

def sum_where(x):
    return np.sum(x ** 2, where=x > 0) + np.mean(x, where=np.array([True, False, True]))

def sum_initial(x):
    return np.sum(x, initial=2.0) * np.max(x, initial=-10.0)

def dtype_kwarg(x):
    return np.sum(x, dtype=np.float64) + np.mean(x * 2.0, dtype=np.float64)

def dot_vdot_inner(A):
    return np.vdot(A, A) + np.sum(np.inner(A, A)) + np.sum(np.outer(A[0], A[1]))

def matmul_vec(A):
    v = A[0]
    return v @ A @ v + np.sum(A @ v) + np.sum(v @ A)

def linalg_multi_dot(A):
    return np.sum(np.linalg.multi_dot([A, A.T, A]))

def norm_nuc(A):
    return np.linalg.norm(A, "nuc") + np.linalg.norm(A, 2)

def eig_sym_vals(A):
    return np.sum(np.linalg.eigvalsh(A @ A.T))

def expm1_log1p(x):
    return np.sum(np.log1p(np.expm1(x ** 2)))

def sinc_probe(x):
    return np.sum(np.sinc(x))

def logistic_inplace(x):
    y = x.copy()
    y *= -1.0
    np.exp(y, out=y)
    y += 1.0
    np.reciprocal(y, out=y)
    return np.sum(y * x)

def astype_int_then_float(x):
    k = (x * 10).astype(int)
    return np.sum(k * x)

def iter_2d(A):
    s = 0.0
    for row in A:
        for v in row:
            s = s + v * v
    return s

def ndenumerate_probe(A):
    s = 0.0
    for (i, j), v in np.ndenumerate(A):
        s = s + v * (i + 2 * j)
    return s

def nditer_probe(x):
    s = 0.0
    for v in np.nditer(x):
        s = s + v * v
    return s

def ndindex_probe(A):
    s = 0.0
    for i, j in np.ndindex(A.shape):
        s = s + A[i, j] ** 2 * (i - j)
    return s

def tolist_probe(x):
    L = x.tolist()
    return L[0] * L[1] + sum(L)

def item_probe(A):
    return A.item(1) * A.item((2, 2)) + A[0, 0].item()

def fromiter_probe(x):
    return np.sum(np.fromiter((v * v for v in x), dtype=float))

def array_of_arrays(x):
    M = np.array([x, 2 * x, x ** 2])
    return np.sum(M @ M)

def asfarray_probe(x):
    return np.sum(np.asarray(x, dtype=float) ** 2)

def np_sum_of_list(x):
    return np.sum([x[0], x[1] ** 2, x[2]]) + np.prod([x[0], x[1]]) + np.mean([x, x ** 2])

def np_max_list(x):
    return np.max([x[0], x[1] ** 2, x[2]]) + np.maximum(x[0], [1.0, x[1]])[1]

def builtin_sum_array_rows(A):
    return np.sum(sum(A) ** 2) + sum(sum(A))

def builtin_abs_round(x):
    return abs(x[1]) * x[0] + np.sum(abs(x))

def math_on_np(x):
    import math
    return math.sin(x[0]) * math.exp(x[1]) + math.sqrt(x[2]) + math.hypot(x[0], x[1]) + math.log(x[2], 2)

def math_fsum_prod(x):
    import math
    return math.fsum(x) * math.prod(x) + math.dist(x[:2], x[1:])

def statistics_probe(x):
    import statistics
    return statistics.mean(list(x)) * statistics.fmean(list(x ** 2))

PROBES = []
for f in list(globals().values()):
    if callable(f) and getattr(f, "__module__", None) == __name__ and type(f).__name__ == "function":
        v = f.__code__.co_varnames[:1]
        arg = {"A": A, "B4": B4}.get(v[0] if v else "x", X)
        PROBES.append((f.__name__, f, (arg,)))
