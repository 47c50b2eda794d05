"""NumPy functions called the way a peer's test suite calls them."""
import numpy as np

A = np.arange(1.0, 7.0).reshape(2, 3) / 7
B = np.arange(1.0, 13.0).reshape(3, 4) / 13
v = np.array([0.3, -0.5, 0.8])

def f_append(a): return np.sum(np.append(a, a) ** 2)
def f_concat1(a): return np.sum(np.concatenate((a, a), axis=1) ** 2)
def f_trace(a): return np.trace(a @ a.T)
def f_diag(x): return np.sum(np.diag(x) @ np.ones((3, 3)) * np.arange(9.0).reshape(3, 3))
def f_roll(a): return np.sum(np.roll(a, 1, axis=1) * np.arange(6.0).reshape(2, 3))
def f_roll0(a): return np.sum(np.roll(a, 2) * np.arange(6.0).reshape(2, 3))
def f_triu(b): return np.sum(np.triu(b) * b + np.tril(b, -1))
def f_clip(x): return np.sum(np.clip(x, -0.4, 0.5) ** 2)
def f_prod(a): return np.prod(a, axis=0).sum()
def f_nan_to_num(x): return np.sum(np.nan_to_num(x) ** 2)
def f_tensordot(a, b): return np.sum(np.tensordot(a, b, axes=([1], [0])) ** 2)
def f_cumsum0(a): return np.sum(np.cumsum(a, axis=0) ** 2)
def f_where(x): return np.sum(np.where(x > 0, x, x * 0.1) ** 2)
def f_squeeze(a): return np.sum(np.squeeze(a[None, :, :]) ** 2)
def f_swapaxes(a): return np.sum(np.swapaxes(a, 0, 1) * np.arange(6.0).reshape(3, 2))
def f_moveaxis(a): return np.sum(np.moveaxis(a[None], 0, 2) * np.arange(6.0).reshape(2, 3, 1))
def f_sort(x): return np.sum(np.sort(x) * np.array([1.0, 2.0, 3.0]))
def f_partition(x): return np.sum(np.partition(x, 1) * np.array([1.0, 2.0, 3.0]))
def f_atleast(x): return np.sum(np.atleast_2d(x) ** 2) + np.sum(np.atleast_1d(x[0]) ** 2)
def f_einsum(a, b): return np.sum(np.einsum("ij,jk->ik", a, b) ** 2)
def f_einsum_trace(b): return np.einsum("ii", b[:, :3])
def f_gradient(x): return np.sum(np.gradient(x) ** 2)
def f_diff(x): return np.sum(np.diff(x) ** 2)
def f_split(a): 
    p, q = np.split(a, [1], axis=1)
    return np.sum(p ** 2) + np.sum(q * 3.0)
def f_hsplit(a):
    parts = np.hsplit(a, 3)
    return sum(np.sum(p * (i + 1)) for i, p in enumerate(parts))
def f_var(a): return np.var(a, axis=1, ddof=1).sum() + np.std(a, ddof=1)
def f_astype(x): return np.sum(x.astype(np.float64) ** 2)
def f_select(x): return np.sum(np.select([x > 0.5, x < -0.4], [x, x ** 2], default=x * 0.1))
def f_stack(x): return np.sum(np.stack([x, x * 2], axis=1) ** 2) + np.sum(np.vstack([x, x]) * 2) + np.sum(np.column_stack([x, x]))
def f_outer(x): return np.sum(np.outer(x, x) * np.arange(9.0).reshape(3, 3))
def f_kron(x): return np.sum(np.kron(x, x) ** 2)
def f_inv(b): return np.sum(np.linalg.inv(b[:, :3] + np.eye(3)))
def f_det(b): return np.linalg.det(b[:, :3] + np.eye(3))
def f_slogdet(b):
    s, l = np.linalg.slogdet(b[:, :3] + np.eye(3))
    return l
def f_eigh(b):
    m = b[:, :3] @ b[:, :3].T + np.eye(3)
    w, V = np.linalg.eigh(m)
    return np.sum(w ** 2) + np.sum(np.abs(V[:, 0]))
def f_svd(b):
    u, s, vt = np.linalg.svd(b)
    return np.sum(s ** 2) + s[0]
def f_cholesky(b):
    m = b[:, :3] @ b[:, :3].T + np.eye(3)
    return np.sum(np.linalg.cholesky(m))
def f_solve(b, x): return np.sum(np.linalg.solve(b[:, :3] + np.eye(3), x) ** 2)
def f_max_axes(a): return np.sum(np.max(a, axis=(0, 1))) + np.sum(np.min(a, axis=0))
def f_maximum(x): return np.sum(np.maximum(x, 0.0) + np.minimum(x, 0.1) + np.fmax(x, -x))
def f_logsumexp(a):
    m = np.max(a, axis=1, keepdims=True)
    return np.sum(m + np.log(np.sum(np.exp(a - m), axis=1, keepdims=True)))
def f_take(x): return np.sum(np.take(x, [0, 2, 2]) ** 2)
def f_fancy2d(b): return np.sum(b[[0, 2], 1:3] ** 2) + np.sum(b[b > 0.5])
def f_neg_stride(x): return np.sum(x[::-1] * np.arange(3.0)) + np.sum(x[::-2])
def f_reshape_method(a): return np.sum(a.reshape((3, 2)) * np.arange(6.0).reshape(3, 2)) + np.sum(a.ravel() ** 2) + np.sum(a.flatten() * 2)
def f_linspace_mul(x): return np.sum(np.linspace(0, 1, 3) * x)
def f_dot_shapes(a, x): return np.dot(a, x).sum() + np.dot(x, x) + np.sum(np.dot(a.T, a))
def f_matmul_batch(a): return np.sum(np.matmul(np.stack([a, a]), a.T) ** 2)
def f_norms(a): return np.linalg.norm(a) + np.linalg.norm(a, axis=1).sum() + np.linalg.norm(a, ord=1)
def f_expand(x): return np.sum(np.expand_dims(x, 0) * np.ones((2, 1)))
def f_tile(x): return np.sum(np.tile(x, 2) * np.arange(6.0)) + np.sum(np.repeat(x, 2) ** 2)
def f_flip(a): return np.sum(np.flip(a, axis=1) * np.arange(6.0).reshape(2, 3)) + np.sum(np.fliplr(a) * 2)
def f_abs_sign(x): return np.sum(np.abs(x) * np.sign(x) + np.sqrt(np.abs(x)))
def f_arctan2(x): return np.sum(np.arctan2(x, x * x + 1.0)) + np.sum(np.hypot(x, 2.0))
def f_mean_w(a): return np.average(a, axis=0, weights=np.array([0.3, 0.7])).sum()
def f_cross(x): return np.sum(np.cross(x, x[::-1]) ** 2)
def f_polyval(x): return np.polyval(x, 0.7)
def f_interp(x): return np.sum(np.interp(np.array([0.5, 1.5]), np.array([0.0, 1.0, 2.0]), x))
def f_cumprod(x): return np.sum(np.cumprod(x))
def f_ptp(a): return np.sum(np.ptp(a, axis=1))
def f_median(x): return np.median(x) + np.percentile(x, 50)

CASES = [(n, f, args) for n, f, args in [
    ("append", f_append, (A,)), ("concat1", f_concat1, (A,)), ("trace", f_trace, (A,)), ("diag", f_diag, (v,)),
    ("roll", f_roll, (A,)), ("roll0", f_roll0, (A,)), ("triu", f_triu, (B,)), ("clip", f_clip, (v,)), ("prod", f_prod, (A,)),
    ("nan_to_num", f_nan_to_num, (v,)), ("tensordot", f_tensordot, (A, B)), ("cumsum0", f_cumsum0, (A,)), ("where", f_where, (v,)),
    ("squeeze", f_squeeze, (A,)), ("swapaxes", f_swapaxes, (A,)), ("moveaxis", f_moveaxis, (A,)), ("sort", f_sort, (v,)),
    ("partition", f_partition, (v,)), ("atleast", f_atleast, (v,)), ("einsum", f_einsum, (A, B)), ("einsum_trace", f_einsum_trace, (B,)),
    ("gradient", f_gradient, (v,)), ("diff", f_diff, (v,)), ("split", f_split, (A,)), ("hsplit", f_hsplit, (A,)), ("var", f_var, (A,)),
    ("astype", f_astype, (v,)), ("select", f_select, (v,)), ("stack", f_stack, (v,)), ("outer", f_outer, (v,)), ("kron", f_kron, (v,)),
    ("inv", f_inv, (B,)), ("det", f_det, (B,)), ("slogdet", f_slogdet, (B,)), ("eigh", f_eigh, (B,)), ("svd", f_svd, (B[:, :3] + np.eye(3),)),
    ("cholesky", f_cholesky, (B,)), ("solve", f_solve, (B, v)), ("max_axes", f_max_axes, (A,)), ("maximum", f_maximum, (v,)),
    ("logsumexp", f_logsumexp, (A,)), ("take", f_take, (v,)), ("fancy2d", f_fancy2d, (B,)), ("neg_stride", f_neg_stride, (v,)),
    ("reshape_method", f_reshape_method, (A,)), ("linspace_mul", f_linspace_mul, (0.7,)), ("dot_shapes", f_dot_shapes, (A.T.copy(), np.array([0.1, 0.2]))),
    ("matmul_batch", f_matmul_batch, (A,)), ("norms", f_norms, (A,)), ("expand", f_expand, (v,)), ("tile", f_tile, (v,)),
    ("flip", f_flip, (A,)), ("abs_sign", f_abs_sign, (v,)), ("arctan2", f_arctan2, (v,)), ("average", f_mean_w, (A,)),
    ("cross", f_cross, (v,)), ("polyval", f_polyval, (v,)), ("interp", f_interp, (v,)), ("cumprod", f_cumprod, (v,)),
    ("ptp", f_ptp, (A,)), ("median", f_median, (np.array([0.3, -0.5, 0.8, 0.1]),)),
]]
