"""Issue 8 regression cases: structures read more than once, array rows iterated with
helpers, module-level arrays.  Written as a user writes code; checked by
tests/test_regress_structures.py."""
import collections
import math

import numpy as np

# ====================================================================== family 1
# A structure (tuple, list, dict, namedtuple) holding arrays, read more than once.


def tuple_read2_unused(h):
    t = (h,)
    a = t[0]
    b = t[0]
    return np.sum(h * 3.0)


def tuple_read2(h):
    t = (h,)
    a = t[0]
    b = t[0]
    return np.sum(a * b) + np.sum(h * 3.0)


def tuple_read3(h):
    t = (h,)
    a = t[0]
    b = t[0]
    c = t[0]
    return np.sum(a * b * c)


def tuple_sum_twice(h):
    t = (h,)
    return np.sum(t[0]) + np.sum(t[0] ** 2)


def tuple_read_then_mutate_copy(h):
    t = (h, h * 2.0)
    a = t[0].copy()
    a *= t[1]
    return np.sum(a) + np.sum(t[0] * t[1])


def params0_twice(W, b, x):
    params = [(W, b)]
    p = params[0]
    q = params[0]
    hidden = np.tanh(p[0] @ x + p[1])
    return np.sum(hidden) + np.sum(q[0] * q[0]) + np.sum(p[0] * q[1][0])


def params_loop_inline(W, b, x):
    params = [(W, b)]
    out = x
    for Wi, bi in params:
        out = np.tanh(Wi @ out + bi)
    p = params[0]
    return np.sum(out) + np.sum(p[0]) + np.sum(p[0] * p[1][0])


def mlp(params, x):
    """Two-layer tanh network over a list of (W, b); the weights read again after the loop."""
    h = x
    for W, b in params:
        h = np.tanh(W @ h + b)
    reg = 0.0
    for W, b in params:
        reg = reg + np.sum(W * W) + 0.5 * np.sum(b * b)
    first = params[0][0]
    return np.sum(h * h) + 0.1 * reg + np.sum(first[0])


def mlp_built(W1, b1, W2, b2, x):
    params = [(W1, b1), (W2, b2)]
    h = x
    for W, b in params:
        h = np.tanh(W @ h + b)
    last_W, last_b = params[-1]
    return np.sum(h) + np.sum(last_W * params[1][0]) + np.sum(last_b)


def mlp_enumerate(params, x):
    h = x
    for i, (W, b) in enumerate(params):
        h = np.tanh(W @ h + b) * (i + 1.0)
    return np.sum(h) + sum(np.sum(W) for W, _ in params)


def nested_tuple_local(W, b, c, x):
    pc = ((W, b), c)
    (W1, b1), c1 = pc
    y = np.tanh(W1 @ x + b1) * c1
    return np.sum(y) + np.sum(pc[0][0] * pc[0][0]) + pc[1] * np.sum(pc[0][1])


def nested_tuple_arg(pc, x):
    (W, b), c = pc
    y = np.tanh(W @ x + b) * c
    again = pc[0]
    return np.sum(y) + np.sum(again[0]) * c + np.sum(again[1] * pc[0][1])


def mixed_tuple_local(s, a):
    t = (s, a, 2.0, s * a, 3)
    u = t[0] * t[1]
    v = t[0] * t[2] + t[4]
    return np.sum(u * t[1]) + v + np.sum(t[3]) * t[0]


def mixed_tuple_arg(t):
    s, a, k = t
    return np.sum(t[1] * s) + t[0] * k + np.sum(a * t[1])


def _pair(a, s):
    return a * s, np.sin(a)


def helper_tuple_read2(a, s):
    r = _pair(a, s)
    return np.sum(r[0] * r[1]) + np.sum(r[0]) + np.sum(r[1] * r[1])


def helper_tuple_unpack_and_index(a, s):
    r = _pair(a, s)
    p, q = r
    return np.sum(p * r[0]) + np.sum(q + r[1])


Layer = collections.namedtuple("Layer", "W b")


def namedtuple_local(W, b, x):
    L = Layer(W, b)
    y = np.tanh(L.W @ x + L.b)
    return np.sum(y) + np.sum(L.W * L.W) + np.sum(L[1] * L.b)


def namedtuple_arg(L, x):
    y = np.tanh(L.W @ x + L.b)
    W, b = L
    return np.sum(y) + np.sum(W * L.W) + np.sum(b)


def namedtuple_attr_once(L):
    return np.sum(L.W * L.b)


def namedtuple_attr_read2(L):
    return np.sum(L.W) + np.sum(L.W)


def namedtuple_list(layers, x):
    h = x
    for L in layers:
        h = np.tanh(L.W @ h + L.b)
    return np.sum(h) + np.sum(layers[0].W * layers[-1].W)


def list_read2_local(a, b):
    xs = [a, b]
    return np.sum(xs[0] * xs[1]) + np.sum(xs[0]) + np.sum(xs[0] ** 2)


def list_read2_arg(xs):
    u = xs[0]
    v = xs[0]
    return np.sum(u * v * xs[1]) + np.sum(xs[1])


def list_floats_arrays_arg(xs):
    s = xs[0]
    return np.sum(xs[1] * s) + xs[0] * xs[2] + np.sum(xs[1] ** 2)


def dict_read2_local(a, b):
    d = {"a": a, "b": b}
    return np.sum(d["a"] * d["b"]) + np.sum(d["a"]) + np.sum(d["a"] * d["a"])


def dict_read2_arg(d):
    u = d["w"]
    v = d["w"]
    return np.sum(u * v) + np.sum(d["w"] * d["s"]) + d["s"]


def list_of_tuples_arg(params):
    W, b = params[0]
    return np.sum(W * params[0][0]) + np.sum(b) + np.sum(params[1][1])


def list_of_float_tuples_arg(pairs):
    t = 0.0
    for a, b in pairs:
        t = t + a * b
    return t + pairs[0][0] * pairs[1][1]


def list_of_lists_arg(params):
    W, b = params[0]
    return np.sum(W * params[0][0]) + np.sum(b)


def list_of_float_tuples_index(pairs):
    return pairs[0][0] * pairs[0][1] + pairs[1][0] * 3.0


def dict_of_tuples_arg(d):
    W, b = d["layer"]
    return np.sum(W * d["layer"][0]) + np.sum(b) * d["scale"]


def dict_items_of_tuples_arg(params):
    out = 0.0
    for name, (W, b) in params.items():
        out = out + np.sum(W) * np.sum(b)
    return out


def _double_first(t):
    t[0][...] *= 2.0


def tuple_item_mutated_by_helper(a):
    t = (a.copy(),)
    _double_first(t)
    return np.sum(t[0] * a) + np.sum(t[0])


def tuple_unpacked_and_indexed(a, x):
    t = (a, x)
    u, s = t
    v = t[0] * t[1]
    return np.sum(u * v) * s


def list_same_array_twice_mutated(a):
    u = a.copy()
    xs = [u, u]
    xs[0] *= 2.0
    return np.sum(xs[1] * a)


def dict_same_array_twice_mutated(a):
    u = a * 1.0
    d = {"p": u, "q": u}
    d["p"][0] = a[1] * 3.0
    return np.sum(d["q"] ** 2)


def dict_get_twice(a):
    d = {"w": a}
    return np.sum(d.get("w") * d["w"]) + np.sum(d.get("w", a))


def _dot(u, v):
    return np.sum(u * v)


def _combine(u, v):
    return u * 2.0 + np.tanh(v)


def same_array_twice(a, b):
    return _dot(a, a) + _dot(a, b)


def same_array_twice_combine(a):
    return np.sum(_combine(a, a) ** 2)


def _tuple_dot(p, q):
    return np.sum(p[0] * q[0]) + np.sum(p[1] * q[1])


def same_tuple_twice(a, b):
    t = (a, b)
    return _tuple_dot(t, t)


# ====================================================================== family 2
# Array rows iterated with helpers.


def rows_enumerate(A):
    t = 0.0
    for i, row in enumerate(A):
        t += row[0] * row[1] * (i + 1)
    return t


def rows_enumerate_index_too(A):
    t = 0.0
    for i, row in enumerate(A):
        t += row[0] * row[1] + np.sum(A[i] * 0.5)
    return t


def rows_zip(A, B):
    t = 0.0
    for a, b in zip(A, B):
        t += np.sum(a * b)
    return t


def rows_zip_self_reversed(A):
    t = 0.0
    for a, b in zip(A, A[::-1]):
        t += np.sum(a * b)
    return t


def rows_reversed(A):
    t = 0.0
    for r in reversed(A):
        t = t * 0.5 + r[0] * r[-1]
    return t


def rows_sorted_key(A):
    t = 0.0
    for r in sorted(A, key=lambda r: r[1]):
        t = t * 0.5 + r[0]
    return t


def rows_dict_enumerate(A):
    d = dict(enumerate(A))
    return np.sum(d[0] * d[1]) + np.sum(d[2])


def rows_list(A):
    rows = list(A)
    return np.sum(rows[0] * rows[2]) + np.sum(rows[1]) + np.sum(rows[0])


def rows_of_transpose(A):
    t = 0.0
    for col in A.T:
        t = t + np.sum(col * col) * col[0]
    return t


def rows_3d(A):
    t = 0.0
    for M in A:
        for r in M:
            t = t + r[0] * np.sum(r)
        t = t + np.sum(M @ M.T)
    return t


def rows_3d_matrices(A, v):
    out = v
    for M in A:
        out = np.tanh(M @ out)
    return np.sum(out)


def rows_zip_unequal(a, xs):
    t = 0.0
    for e, x in zip(a, xs):
        t += e * x
    return t


def rows_zip_unequal_rows(A, xs):
    t = 0.0
    for r, x in zip(A, xs):
        t = t + np.sum(r) * x
    return t


def rows_written_through(A):
    B = A.copy()
    for row in B:
        row *= 2.0
    return np.sum(B ** 2) + np.sum(A * B)


def rows_written_setitem(A, x):
    B = A.copy()
    for i, row in enumerate(B):
        row[0] = row[1] * x + i
    return np.sum(B * B)


def rows_written_iadd(A):
    B = A.copy()
    for row in B:
        row += A[0]
    return np.sum(B * A)


def rows_reversed_slice(A):
    t = 0.0
    for r in A[::-1]:
        t = t * 0.5 + np.sum(r) * r[0]
    return t


def rows_of_column_slice(A):
    t = 0.0
    for r in A[:, 1:]:
        t = t + r[0] * r[-1]
    return t


def rows_by_index(A):
    t = 0.0
    for i in range(len(A)):
        row = A[i]
        t = t + row[0] * row[1]
    return t


def rows_enumerate_zip_shifted(A):
    t = 0.0
    for i, (a, b) in enumerate(zip(A, A[1:])):
        t = t + np.sum(a * b) * (i + 1.0)
    return t


def rows_zip_star(A):
    t = 0.0
    for a, b in zip(*A):
        t = t + a * b
    return t


def rows_map(A):
    return sum(map(np.sum, A)) + np.sum(A[0] * A[1])


def rows_list_written_through(A):
    B = A.copy()
    rows = list(B)
    rows[0] *= 2.0
    return np.sum(B * B)


def rows_running_sum_in_place(A):
    B = A.copy()
    for i, row in enumerate(B):
        if i > 0:
            row += B[i - 1]
    return np.sum(B * B)


def rows_dict_enumerate_overwrite(A):
    d = dict(enumerate(A))
    d[0] = d[0] * 2.0
    return np.sum(d[0] * d[1])


def rows_comprehension_reversed(A):
    rows = [r for r in A]
    rows.reverse()
    return np.sum(rows[0] * A[0]) + np.sum(rows[-1])


def rows_matmul(A):
    t = 0.0
    for r in A:
        t = t + r @ r
    return t


def rows_added_to_sum(A):
    s = A.sum(axis=0)
    for r in A:
        s = s + r
    return np.sum(s * s)


def _row_energy(r):
    return r[0] ** 2 + np.sum(r)


def rows_helper(A):
    t = 0.0
    for r in A:
        t += _row_energy(r)
    return t


def _sum_rows(M):
    s = 0.0
    for r in M:
        s = s + np.sum(r * r)
    return s


def rows_helper_transpose(A):
    return _sum_rows(A.T) + _sum_rows(A)


def rows_appended(A):
    out = []
    for r in A:
        out.append(r * 2.0)
    S = np.stack(out)
    return np.sum(S * S) + np.sum(out[0])


def rows_comprehension(A):
    norms = [np.sum(r * r) for r in A]
    return sum(norms) + norms[0] * norms[-1]


# ====================================================================== family 5
# Module-level arrays: read (constants), written (refused).

W0 = np.array([0.2, -0.4, 0.6])
M0 = np.array([[1.0, 0.5, -0.3], [0.2, -0.7, 0.4]])


def global_mean_mul(x):
    return np.mean(x * W0)


def global_add(x):
    return np.sum(W0 + x)


def global_mul_matmul(x):
    return x * W0 @ W0


def global_matrix(x):
    return np.sum(x * M0 @ W0)


def global_tanh(x):
    return np.sum(np.tanh(W0 * x))


def global_array_arg(v):
    return np.sum(v * W0) + np.sum(M0 @ v)


def global_iterated(x):
    t = 0.0
    for w in W0:
        t = t + w * x
    return t


def _uses_global(x):
    return x * W0


def global_in_helper(x):
    return np.sum(_uses_global(x) ** 2)


def global_sub_pow(x):
    return np.sum((W0 - x) ** 2)


def global_sub(x):
    return np.sum(x - W0)


def global_np_add(x):
    return np.sum(np.add(W0, x))


def global_add_indexed(x):
    y = W0 + x
    return y[0] + y[1] * y[2]


def global_matrix_mixed(x):
    return np.sum(M0 * x ** 2) + np.sum(W0 - x)


def local_const_plus_x(x):
    c = np.ones(3)
    return np.sum(x + c)


def global_maximum(x):
    return np.sum(np.maximum(W0, x))


def global_matrix_mul(x):
    return np.sum(x * M0)


buf = np.zeros(3)


def global_write_slice(x):
    buf[:] = x  # WRITE
    return np.sum(buf ** 2)


def global_write_item(x):
    buf[1] = x * 2.0  # WRITE
    return np.sum(buf)


def global_write_iadd(x):
    buf[...] += x  # WRITE
    return np.sum(buf)


def global_write_iadd_alias(x):
    b = buf
    b += x * 2.0  # WRITE
    return np.sum(b)


def global_write_alias(x):
    b = buf
    b[:] = x * 3.0  # WRITE
    return np.sum(b)


def _store(x):
    buf[:] = x  # WRITE
    return 0.0


def global_write_in_helper(x):
    _store(x)
    return np.sum(buf * x)


LOG = []
CACHE = {}


def global_list_append(x):
    LOG.append(x * 2.0)  # WRITE
    return LOG[-1] * x


def global_dict_setitem(x):
    CACHE["x"] = x  # WRITE
    return CACHE["x"] * 2.0


def global_write_out(x):
    np.multiply(x, 2.0, out=buf)  # WRITE
    return np.sum(buf)
