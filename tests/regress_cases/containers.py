"""Issue 8 regression cases: container mutation methods, fancy-index writes with repeated
indices, returned values mutated in place.  Written as a user writes code; checked by
tests/test_regress_containers.py."""
import numpy as np

C3 = np.array([1.0, 2.0, 3.0])          # fixed weights, created once (read, never written)

# ====================================================================== family 3
# Container mutation methods: list.


def list_append(x, y):
    xs = [x]
    xs.append(y * 2.0)
    xs.append(x)
    return xs[0] * xs[1] + xs[2]


def list_append_arrays(a, b):
    xs = []
    xs.append(a)
    xs.append(a * b)
    return np.sum(xs[0] * xs[1]) + np.sum(xs[-1])


def list_extend(x, y):
    xs = [x]
    xs.extend([y, x * y])
    return xs[0] * xs[1] * xs[2]


def list_extend_arrays(a, b):
    xs = [a]
    xs.extend((b, a + b))
    return np.sum(xs[0] * xs[2]) + np.sum(xs[1] ** 2)


def list_insert(x, y):
    xs = [x, y]
    xs.insert(1, x * y)
    xs.insert(0, y)
    xs.insert(-1, 2.0 * x)
    return xs[0] * xs[1] + xs[2] * xs[3] + xs[4]


def list_insert_arrays(a, b):
    xs = [a]
    xs.insert(0, b * 2.0)
    return np.sum(xs[0] * xs[1]) + np.sum(xs[0])


def list_pop_index(x, y, z):
    xs = [x, y, z]
    p = xs.pop(1)
    return p * xs[0] + xs[1] * 2.0


def list_pop_negative(x, y, z):
    xs = [x, y, z]
    p = xs.pop(-2)
    q = xs.pop()
    return p * q + xs[0]


def list_pop_arrays(a, b):
    xs = [a, b, a * b]
    p = xs.pop(0)
    q = xs.pop(-1)
    return np.sum(p * xs[0]) + np.sum(q)


def list_remove(x, y):
    xs = [x, y, 3.0]
    xs.remove(y)
    return xs[0] * xs[1]


def list_remove_mixed(x, y):
    xs = [x, "tag", y, 2]
    xs.remove("tag")
    return xs[0] * xs[1] + xs[2]


def list_sort_key(x, y, z):
    xs = [x, y, z]
    xs.sort(key=lambda v: -v)
    return xs[0] + 2.0 * xs[1] + 3.0 * xs[2] * xs[0]


def list_sort_reverse(x, y, z):
    xs = [x, y, z]
    xs.sort(reverse=True)
    return xs[0] + 2.0 * xs[1] + 3.0 * xs[2] * xs[0]


def list_sort_plain(x, y, z):
    xs = [x * 1.0, y, z]
    xs.sort()
    return xs[0] * 5.0 + xs[1] * xs[2]


def list_sort_arrays_key(a, b, c):
    xs = [a, b, c]
    xs.sort(key=lambda r: r[0])
    return np.sum(xs[0] * C3) + 2.0 * np.sum(xs[1] * xs[2])


def list_reverse(x, y, z):
    xs = [x, y, z]
    xs.reverse()
    return xs[0] + 2.0 * xs[1] + 3.0 * xs[2] * xs[1]


def list_reverse_arrays(a, b):
    xs = [a, b, a * b]
    xs.reverse()
    return np.sum(xs[0] * C3) + np.sum(xs[1] * xs[2])


def list_clear(x, y):
    xs = [x, y]
    t = xs[0] * xs[1]
    xs.clear()
    xs.append(y * 3.0)
    return t + xs[0] * x


def list_iadd(x, y):
    xs = [x]
    xs += [y]
    return xs[0] * xs[1]


def list_iadd_arrays(a, b):
    xs = [a]
    xs += [b, a * 2.0]
    return np.sum(xs[0] * xs[1]) + np.sum(xs[2] * xs[1])


def list_imul(x, y):
    xs = [x, y]
    xs *= 2
    return xs[0] * xs[3] + xs[2] * 2.0


def list_setitem_overwrite(x, y):
    xs = [x, y]
    xs[0] = xs[0] * y
    xs[0] = xs[0] + x
    return xs[0] * xs[1]


def list_del(x, y):
    xs = [x, y, 3.0]
    del xs[1]
    return xs[0] * xs[1]


def list_del_arrays(a, b):
    xs = [a, b, a * b]
    del xs[0]
    return np.sum(xs[0] * xs[1])


def list_del_slice(x, y):
    xs = [x, y, x * y, 2.0]
    del xs[1:3]
    return xs[0] * xs[1] + x


def list_del_negative(x, y, z):
    xs = [x, y, z]
    del xs[-1]
    return xs[0] * xs[1] + len(xs)


def list_slice_assign_shorter(x, y):
    xs = [x, y, x]
    xs[0:2] = [y]
    return xs[0] * xs[1]


def list_slice_assign_longer(x, y):
    xs = [x, y, x]
    xs[1:] = [y * 2.0, x, y]
    return xs[0] * xs[1] + xs[3]


def list_slice_assign_reversed(x, y):
    xs = [x, y]
    xs[::-1] = [y * 2.0, x * 3.0]
    return xs[0] * xs[1]


def list_mixed_items(a, x):
    xs = [a, x, (a, x), "name", 3]
    xs.append(a * x)
    p = xs.pop(1)
    t = xs[1]
    xs.insert(0, p)
    return np.sum(xs[1] * t[0]) * xs[0] + t[1] * xs[4] + np.sum(xs[-1])


def list_arg_append(xs, y):
    xs.append(y * 2.0)
    xs[0] = xs[0] * y
    return xs[0] * xs[1] + xs[-1]


def list_arg_sort(xs):
    xs.sort()
    return xs[0] + 2.0 * xs[1] + 3.0 * xs[2] * xs[0]


def list_arg_arrays_pop(xs):
    p = xs.pop()
    xs.append(p * 2.0)
    return np.sum(xs[0] * xs[-1]) + np.sum(p)


# ---------------------------------------------------------------------- dict


def dict_update_mapping(x, y):
    d = {"a": x}
    d.update({"b": y, "a": x * y})
    return d["a"] * d["b"] + d["a"]


def dict_update_pairs(x, y):
    d = {"a": x}
    d.update([("b", y), ("c", x * 3.0)])
    return d["a"] * d["b"] * d["c"]


def dict_update_keywords(x, y):
    d = {"a": x}
    d.update(a=x * 2.0, b=y)
    return d["a"] * d["b"]


def dict_update_keyword_new(x):
    d = {}
    d.update(a=x)
    return d["a"] * 2.0


def dict_update_arrays(a, b):
    d = {"w": a}
    d.update({"v": b})
    d["w"] = d["w"] * d["v"]
    return np.sum(d["w"]) + np.sum(d["v"] * a)


def dict_ior(x, y):
    d = {"a": x}
    d |= {"b": y, "a": x * x}
    return d["a"] * d["b"]


def dict_ior_arrays(a, b):
    d = {"a": a}
    d |= {"b": b}
    return np.sum(d["a"] * d["b"]) + np.sum(d["a"])


def dict_or(x, y):
    d = {"a": x}
    e = d | {"b": y, "a": y * 2.0}
    return e["a"] * e["b"] + d["a"]


def dict_or_arrays(a, b):
    d = {"a": a, "b": b}
    e = d | {"c": a * b}
    return np.sum(e["a"] * e["c"]) + np.sum(d["b"])


def dict_setdefault_absent(x, y):
    d = {"a": x}
    v = d.setdefault("b", y)
    return v * d["b"] * d["a"]


def dict_setdefault_present(x, y):
    d = {"a": x}
    w = d.setdefault("a", y)
    return w * d["a"] * 2.0 + y


def dict_setdefault_both(x, y):
    d = {"a": x}
    v = d.setdefault("b", y)
    w = d.setdefault("a", y)
    return v * w * 2.0


def dict_setdefault_list(x, y):
    d = {}
    d.setdefault("xs", []).append(x)
    d.setdefault("xs", []).append(y)
    return d["xs"][0] * d["xs"][1]


def dict_pop_present(x, y):
    d = {"a": x, "b": y}
    v = d.pop("a")
    return v * d["b"] + v


def dict_pop_default(x, y):
    d = {"a": x}
    v = d.pop("z", y)
    return v * d["a"]


def dict_pop_arrays(a, b):
    d = {"a": a, "b": b}
    v = d.pop("a")
    return np.sum(v * d["b"]) + np.sum(v)


def dict_popitem(x, y):
    d = {"a": x, "b": y * 2.0}
    k, v = d.popitem()
    return v * d["a"] + len(k)


def dict_clear(x, y):
    d = {"a": x}
    t = d["a"] * y
    d.clear()
    d["b"] = y
    return t * d["b"]


def dict_overwrite(x, y):
    d = {"a": x, "b": y}
    d["a"] = d["a"] * y
    d["a"] = d["a"] + x
    return d["a"] * d["b"]


def dict_overwrite_arrays(a, b):
    d = {"a": a}
    d["a"] = d["a"] * b
    d["b"] = d["a"]
    d["a"] = b
    return np.sum(d["a"] * d["b"])


def dict_del(x, y):
    d = {"a": x, "b": y}
    del d["a"]
    d["c"] = x * y
    return d["b"] * d["c"]


def dict_mixed_items(a, x):
    d = {"w": a, "n": 3, "name": "layer", "t": (a, x)}
    d.update(s=x * 2.0)
    n = d.pop("n")
    w, s = d["t"]
    return np.sum(d["w"] * w) * s * n + d["s"]


def dict_arg_update(d, y):
    d.update(b=y * d["a"])
    d["a"] = d["a"] * 2.0
    return d["a"] * d["b"]


# ---------------------------------------------------------------------- ndarray


def ndarray_sort_copy(a):
    u = a.copy()
    u.sort()
    return np.sum(u * C3) + u[0] * u[2]


def ndarray_sort_arg(a):
    a.sort()
    return np.sum(a * C3)


def ndarray_sort_axis0(A):
    U = A * 1.0
    U.sort(axis=0)
    return np.sum(U * np.arange(1.0, 1.0 + U.size).reshape(U.shape))


def ndarray_sort_rows(A):
    U = A.copy()
    U.sort()
    return np.sum(U * np.arange(1.0, 1.0 + U.size).reshape(U.shape))


def ndarray_fill(x):
    w = np.zeros(3)
    w.fill(x)
    return np.sum(w * C3)


def ndarray_fill_overwrite(a, x):
    u = a.copy()
    t = np.sum(u * u)
    u.fill(x * 2.0)
    return t + np.sum(u * a)


def ndarray_fill_row(A, x):
    U = A.copy()
    U[0].fill(x)
    return np.sum(U * U)


# ====================================================================== family 4
# Fancy-index writes with repeated indices (the last write wins; `+=` adds once).


def fancy_set_repeat(v):
    w = np.zeros(2)
    w[[0, 0]] = v
    return w[0] + 2.0 * w[1]


def fancy_set_repeat_weighted(v):
    w = np.zeros(2)
    w[[0, 0]] = v
    return w[0] * 3.0 + np.sum(w)


def fancy_set_repeat3(A):
    w = np.zeros(3)
    w[[0, 1, 0]] = A
    return np.sum(w * C3)


def fancy_iadd_repeat(v):
    w = np.zeros(2)
    w[[0, 0]] += v
    return w[0] + 2.0 * w[1]


def fancy_iadd_repeat_arg(a, v):
    w = a.copy()
    w[[0, 1, 0]] += v
    return np.sum(w * w)


def fancy_isub_repeat(a, v):
    w = a * 1.0
    w[[2, 2]] -= v
    return np.sum(w * C3)


def fancy_imul_repeat(a, v):
    w = a.copy()
    w[[0, 0]] *= v
    return np.sum(w * C3)


def fancy_2d(v):
    W = np.zeros((2, 3))
    W[[0, 0], [1, 1]] = v
    return np.sum(W * np.arange(1.0, 7.0).reshape(2, 3))


def fancy_2d_mixed(A, v):
    W = A.copy()
    W[[0, 1, 0], [2, 0, 2]] = v
    return np.sum(W * W)


def fancy_2d_iadd(A, v):
    W = A.copy()
    W[[1, 1], [0, 0]] += v
    return np.sum(W * np.arange(1.0, 7.0).reshape(2, 3))


def fancy_rows(M):
    W = np.zeros((3, 2))
    W[[0, 2, 0]] = M
    return np.sum(W * np.arange(1.0, 7.0).reshape(3, 2))


def fancy_scalar(x):
    w = np.zeros(4)
    w[[0, 2, 0]] = x
    return np.sum(w * np.arange(1.0, 5.0))


def fancy_scalar_over_arg(a, x):
    w = a.copy()
    w[[1, 1]] = x * 2.0
    return np.sum(w * a) + np.sum(w)


def fancy_array_index(a, v):
    idx = np.array([2, 0, 2])
    w = a * 1.0
    w[idx] = v
    return np.sum(w * C3) * w[2]


def fancy_negative_same(v):
    w = np.zeros(3)
    w[[-1, 2]] = v
    return np.sum(w * C3)


def fancy_broadcast_row(v):
    W = np.zeros((3, 3))
    W[[0, 0, 2]] = v
    return np.sum(W * np.arange(1.0, 10.0).reshape(3, 3))


def fancy_broadcast_column(v):
    W = np.ones((3, 3))
    W[[1, 1], :] = v[:, None]
    return np.sum(W * np.arange(1.0, 10.0).reshape(3, 3))


def fancy_broadcast_iadd(A, v):
    W = A.copy()
    W[[0, 0]] += v
    return np.sum(W * W)


def fancy_set_repeat_arg_inplace(a, v):
    a[[0, 0]] = v
    return np.sum(a * a)


def fancy_set_repeat_view(a, v):
    w = a.copy()
    w[1:][[0, 0]] = v
    return np.sum(w * w)


def fancy_set_repeat_row_view(A, v):
    W = A.copy()
    W[0][[1, 1]] = v
    return np.sum(W * W)


def fancy_add_at(a, v):
    w = a.copy()
    np.add.at(w, [0, 0], v)
    return np.sum(w * w)


def fancy_read_original(a, v):
    w = a.copy()
    w[[0, 0]] = v
    return np.sum(w * a)


# ====================================================================== family 6
# Values returned after in-place updates: mc.vjp's value must not change when the
# pullback runs.


def ret_tuple_copy_iadd(a):
    u = a.copy()
    u[1] += 1.0
    return 0.0, u


def ret_array_updates(a, x):
    u = a * 1.0
    u *= x
    u[0] = x
    return u


def ret_list_after_updates(a, x):
    xs = [a * x]
    xs.append(x)
    xs[0][0] += x
    xs[0] *= 2.0
    return xs


def ret_dict_after_updates(a, x):
    d = {"a": a * 2.0}
    d["a"] += x
    d.update(b=x)
    d["a"][1] = x * x
    return d


def ret_alias(a):
    u = a * 2.0
    v = u
    u += 1.0
    return u, v


def ret_arg_mutated(a):
    a *= 2.0
    a[0] = a[1] * a[2]
    return a


def ret_arg_list_mutated(xs, x):
    xs.append(x)
    xs[0] = xs[0] * x
    return xs


def ret_nested(a, x):
    u = a.copy()
    out = {"u": u, "pair": (u, x)}
    u[0] = x * 3.0
    return out


def ret_view(a):
    u = a.copy()
    v = u[1:]
    v *= 2.0
    return u, v


def ret_sorted_in_place(a):
    u = a * 1.0
    u.sort()
    u[0] += 1.0
    return u, [u[2], u[0]]


def ret_row_view_of_arg(A):
    return A[0]


def ret_rows_list(A):
    r = A[0]
    return [r, r * 2.0]


def ret_alias_with_float(a):
    u = a.copy()
    w = u
    w += 1.0
    return u, w, 0.0
