import numpy as np

X = np.array([0.7, -1.3, 2.1])
A = np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.4], [1.1, 0.2, 0.6]])
A23 = np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.4]])

def diag_copy_write(A):
    d = np.diagonal(A).copy()
    d[0] = d[1] * d[2]
    return np.sum(d * np.diag(A))

def diag_read(A):
    d = np.diagonal(A)
    return np.sum(d ** 2) * A[0, 1]

def transpose_write(A):
    B = A.copy()
    B.T[0, :] = B[:, 1] * 2.0  # writes column 0
    return np.sum(B ** 2 * A)

def transpose_iadd(A):
    B = A.copy()
    B.T[...] += A
    return np.sum(B * B)

def reshape_view_write(x):
    B = np.outer(x, x)
    B.reshape(-1)[::4] = x ** 3  # view: writes the diagonal
    return np.sum(B * A)

def reshape_copy_write(A):
    B = A.T  # non-contiguous
    C = B.reshape(-1)  # copy
    C[0] = 100.0 * C[1]
    return np.sum(B * A) + np.sum(C)

def ravel_view(A):
    B = A * 2.0
    r = np.ravel(B)
    r[1] = r[0] * r[2]
    return np.sum(B ** 2)

def ravel_T_copy(A):
    B = A * 2.0
    r = np.ravel(B.T)
    r[1] = r[0] * r[2]
    return np.sum(B ** 2) + np.sum(r)

def flatten_copy(A):
    B = A * 1.0
    f = B.flatten()
    f[0] = 5.0
    return np.sum(B * f.reshape(3, 3))

def sum_out(A):
    out = np.empty(3)
    np.sum(A ** 2, axis=0, out=out)
    return np.sum(out * A[0])

def mean_out_kw(A):
    out = np.zeros(3)
    A.mean(axis=1, out=out)
    out *= 2.0
    return np.sum(out ** 2)

def max_out(A):
    out = np.zeros(3)
    np.max(A, axis=0, out=out)
    return np.sum(out * np.arange(3.0))

def cumsum_out(x):
    out = np.zeros_like(x)
    np.cumsum(x * x, out=out)
    return np.sum(out * x)

def add_at(x):
    acc = np.zeros(3)
    idx = np.array([0, 1, 0, 2, 0])
    vals = np.concatenate([x, x[:2] ** 2])
    np.add.at(acc, idx, vals)
    return np.sum(acc ** 2)

def add_at_param(x):
    acc = x.copy()
    np.add.at(acc, [0, 0, 2], x[1] * x)
    return np.sum(acc * x)

def multiply_at(x):
    acc = np.ones(3) * x
    np.multiply.at(acc, [0, 0, 1], x)
    return np.sum(acc)

def subtract_at(x):
    acc = x ** 2
    np.subtract.at(acc, [1, 1], x[:2])
    return np.sum(acc * x)

def einsum_ii_i(A):
    return np.sum(np.einsum("ii->i", A) ** 2)

def einsum_ii(A):
    return np.einsum("ii", A) * np.einsum("ii", A @ A)

def einsum_trace_prod(A):
    return np.einsum("ij,ji->", A, A)

def einsum_repeat_operand(A):
    return np.einsum("ij,ij,ij->", A, A, A)

def einsum_outer_diag(x):
    return np.sum(np.einsum("i,i->i", x, x) * np.einsum("i,j->ij", x, x).diagonal())

def einsum_batched(A):
    B = np.stack([A, A.T])
    return np.sum(np.einsum("bij,bjk->bik", B, B) ** 2)

def einsum_ellipsis(A):
    return np.sum(np.einsum("...ij,...j->...i", A, A[0]))

def where_nan_onesided(x):
    safe = np.where(x > 0, x, 1.0)
    return np.sum(np.where(x > 0, np.log(safe), 0.0))

def where_inf_branch(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(x > 0, np.sqrt(np.abs(x)) * x, x ** 2)
    return np.sum(r)

def where_div(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.where(x != 0, np.sin(x) / x, 1.0)
    return np.sum(y)

def int_array_float_write(x):
    a = np.zeros(3, dtype=int)
    a[0] = x[0] * 10  # truncated: zero derivative
    b = np.zeros(3)
    b[0] = x[0] * 10
    return float(a[0]) + b[0] * x[1]

def int_array_promote(x):
    a = np.arange(3)
    return np.sum(a * x) + np.sum(a + x ** 2)

def float32_input(x):
    y = x.astype(np.float32)
    return float(np.sum(y.astype(np.float64) ** 2))

def zero_d_array(x):
    s = np.array(x[0] * x[1])
    t = s * 2.0
    t += x[2]
    return float(t) * s[()]

def zero_d_item(x):
    s = np.sum(x * x)
    return s.item() * x[0] + float(s)

def np_float64_scalar(x):
    a = np.float64(x[0])
    b = a * x[1]
    return b ** 2 + np.float64(3.0) * a

def maximum_accumulate(x):
    return np.sum(np.maximum.accumulate(x * np.array([1.0, 3.0, 0.5])))

def minimum_accumulate(A):
    return np.sum(np.minimum.accumulate(A, axis=1) * A)

def multiply_accumulate(x):
    return np.sum(np.multiply.accumulate(x))

def add_reduce(A):
    return np.sum(np.add.reduce(A, axis=1) ** 2)

def multiply_reduce(A):
    return np.sum(np.multiply.reduce(A, axis=0))

def add_outer(x):
    return np.sum(np.add.outer(x, x ** 2) ** 2)

def sort_ties(x):
    y = np.array([x[0], x[0], x[1]])
    s = np.sort(y)
    return s[0] * 1.0 + s[1] * 2.0 + s[2] * 3.0

def argsort_take(x):
    i = np.argsort(x)
    return np.sum(x[i] * np.arange(1.0, 4.0))

def norm_at_zero(x):
    v = x - x
    return np.linalg.norm(v) + np.sum(x)

def norm_axis(A):
    return np.sum(np.linalg.norm(A, axis=1))

def norm_ord(A):
    return np.linalg.norm(A, ord="fro") + np.linalg.norm(A[0], ord=1) + np.linalg.norm(A[1], ord=np.inf)

def abs_at_zero_value(x):
    return np.sum(np.abs(x - x)) + np.sum(x)

def max_ties_builtin(x):
    return max(x[0], x[0]) * x[1]

def np_max_ties(x):
    y = np.array([x[0], x[0], x[1]])
    return np.max(y) * 2.0

def cumprod_zero(x):
    y = np.array([x[0], 0.0, x[1], x[2]])
    return np.sum(np.cumprod(y))

def cumprod_param_zero(x):
    return np.sum(np.cumprod(x))

def prod_one_zero(x):
    y = x.copy()
    y[1] = 0.0
    return np.prod(y) + np.prod(x)

def prod_at_zero_point(x):
    return np.prod(x)

def bool_mask_from_x(x):
    m = x > 0
    y = x.copy()
    y[m] = y[m] ** 2
    y[~m] *= -3.0
    return np.sum(y * x)

def mask_count(x):
    m = x > 0.5
    return np.sum(x[m]) / m.sum() + np.mean(x[~m])

def nonzero_idx(x):
    i = np.nonzero(x > 0)[0]
    return np.sum(x[i] ** 2)

def clip_inplace(x):
    y = x * 2.0
    np.clip(y, -1.0, 1.0, out=y)
    return np.sum(y * x)

def fill_diag(A):
    B = A.copy()
    np.fill_diagonal(B, A[0, 0] * 2.0)
    return np.sum(B ** 2)

def put_along(A):
    B = A.copy()
    np.put_along_axis(B, np.array([[0], [1], [2]]), A[:, :1] ** 2, axis=1)
    return np.sum(B * A)

def np_put(x):
    y = np.zeros(5)
    np.put(y, [0, 2, 4], x)
    return np.sum(y ** 2 * np.arange(5.0))

def np_copyto(x):
    y = np.zeros(3)
    np.copyto(y, x ** 2, where=x > 0)
    return np.sum(y * x)

def swapaxes_write(A):
    B = np.stack([A, A * 2.0])
    np.swapaxes(B, 0, 2)[0, 1, :] = 7.0 * A[0, 0]
    return np.sum(B ** 2)

def moveaxis_view(A):
    B = np.stack([A, A ** 2])
    C = np.moveaxis(B, 0, -1)
    C[..., 0] *= 3.0
    return np.sum(B * B)

def broadcast_to_read(x):
    B = np.broadcast_to(x, (4, 3))
    return np.sum(B ** 2) * x[0]

def atleast_2d_view(x):
    y = x.copy()
    v = np.atleast_2d(y)
    v[0, 0] = x[1] ** 2
    return np.sum(y * x)

def expand_dims_write(x):
    y = x.copy()
    y[None, :][0, 1] = 3.0 * x[2]
    return np.sum(y * x)

def squeeze_view(A):
    B = A[:, :1] * 1.0
    s = B.squeeze()
    s *= 2.0
    return np.sum(B * A[:, :1])

def real_view(x):
    y = x.copy()
    r = y.real
    r *= 2.0
    return np.sum(y * x)

def split_views(x):
    y = np.concatenate([x, x ** 2])
    a, b = np.split(y, 2)
    a += b
    return np.sum(y * y)

def array_split_unequal(x):
    y = np.concatenate([x, x ** 2, [1.0]])
    parts = np.array_split(y, 3)
    parts[1][0] = parts[0][0] * 4.0
    return np.sum(y * y)

def hsplit_copy(A):
    a, b, c = np.hsplit(A, 3)
    return np.sum(a * c) + np.sum(b ** 2)

def diff_grad(x):
    return np.sum(np.diff(x, n=2) ** 2) + np.sum(np.gradient(x * x))

def roll_tile(x):
    return np.sum(np.roll(x, 1) * x) + np.sum(np.tile(x, 2) ** 2)

def interp_probe(x):
    xp = np.array([0.0, 1.0, 2.0, 3.0])
    fp = np.array([1.0, 3.0, 2.0, 5.0])
    return np.sum(np.interp(np.abs(x), xp, fp * x[0]))

def polyval_probe(x):
    return np.sum(np.polyval(x, np.array([0.5, 1.5])))

def polyfit_probe(x):
    t = np.array([0.0, 1.0, 2.0, 3.0])
    y = x[0] + x[1] * t + x[2] * t ** 2
    c = np.polyfit(t, y, 2)
    return np.sum(c * np.array([1.0, 2.0, 3.0]))

def trapz_probe(x):
    return np.trapezoid(x ** 2, dx=0.5) + np.trapezoid(x, x=np.array([0.0, 0.3, 1.0]))

def cov_corr(A):
    return np.sum(np.cov(A) ** 2) + np.sum(np.corrcoef(A))

def std_var(A):
    return np.sum(np.std(A, axis=0, ddof=1)) + np.var(A)

def median_pct(x):
    y = np.concatenate([x, x ** 2])
    return np.median(y) + np.percentile(y, 30.0) + np.quantile(y, 0.8)

def logaddexp(x):
    return np.sum(np.logaddexp(x, x ** 2)) + np.logaddexp.reduce(x)

def hypot_arctan2(x):
    return np.sum(np.hypot(x, 1.0 - x)) + np.sum(np.arctan2(x, x[::-1]))

def searchsorted_probe(x):
    grid = np.linspace(-2.0, 3.0, 6)
    i = np.searchsorted(grid, x)
    return np.sum(x * grid[i])

def matmul_inplace(A):
    B = A.copy()
    B @= A
    return np.sum(B)

def dot_out(A):
    out = np.empty((3, 3))
    np.dot(A, A.T, out=out)
    return np.sum(out ** 2)

def inplace_ufunc_out_kw(x):
    y = x.copy()
    np.multiply(y, x, out=y)
    np.exp(y, out=y)
    return np.sum(y)

def ufunc_where_out(x):
    y = np.ones(3)
    np.sqrt(np.abs(x), out=y, where=x > 0)
    return np.sum(y * x)

def matrix_power(A):
    return np.sum(np.linalg.matrix_power(A, 3))

def kron_probe(x):
    return np.sum(np.kron(x, x[:2]) ** 2)

def block_probe(A):
    B = np.block([[A, A.T], [np.eye(3), A @ A]])
    return np.sum(B ** 2)

def triu_tril(A):
    return np.sum(np.triu(A, 1) ** 2) + np.sum(np.tril(A) * A)

def meshgrid_probe(x):
    X1, X2 = np.meshgrid(x, x ** 2)
    return np.sum(X1 * X2)

def vectorize_probe(x):
    f = np.vectorize(lambda a: a * a if a > 0 else -a)
    return np.sum(f(x))

def apply_along_axis(A):
    return np.sum(np.apply_along_axis(lambda r: r * r.sum(), 1, A))

def nan_funcs(x):
    y = np.array([x[0], np.nan, x[1], x[2]])
    return np.nansum(y ** 2) + np.nanmax(y) + np.nanmean(y)

def linspace_param(x):
    return np.sum(np.linspace(x[0], x[1], 5) ** 2)

def outer_inplace_row(x):
    M = np.zeros((3, 3))
    for i in range(3):
        M[i] += x * x[i]
    M[:, 0] -= M[:, 1]
    return np.sum(M ** 2)

def cross_probe(A):
    return np.sum(np.cross(A[0], A[1]) * A[2])

def det_inv(A):
    return np.linalg.det(A) + np.sum(np.linalg.inv(A))

def slogdet(A):
    s, l = np.linalg.slogdet(A @ A.T + np.eye(3))
    return s * l

def eigh_probe(A):
    w, v = np.linalg.eigh(A + A.T)
    return np.sum(w ** 2) + np.sum(v[:, 0] ** 4)

def svd_probe(A):
    s = np.linalg.svd(A, compute_uv=False)
    return np.sum(s)

def lstsq_probe(A23):
    b = np.array([1.0, 2.0])
    sol = np.linalg.lstsq(A23.T, np.array([1.0, 2.0, 0.5]), rcond=None)[0]
    return np.sum(sol ** 2)

def pinv_probe(A23):
    return np.sum(np.linalg.pinv(A23) ** 2)

def qr_probe(A):
    q, r = np.linalg.qr(A)
    return np.sum(np.abs(np.diag(r)))

def cholesky_probe(A):
    L = np.linalg.cholesky(A @ A.T + np.eye(3))
    return np.sum(L)

def solve_probe(A):
    return np.sum(np.linalg.solve(A, np.array([1.0, 2.0, 3.0])))

def solve_multi(A):
    return np.sum(np.linalg.solve(A, A.T @ A))

PROBES = []
for f in list(globals().values()):
    if callable(f) and getattr(f, "__module__", None) == __name__ and f.__name__ not in ("PROBES",):
        v = f.__code__.co_varnames[:1]
        arg = {"A": A, "A23": A23}.get(v[0] if v else "x", X)
        PROBES.append((f.__name__, f, (arg,)))
