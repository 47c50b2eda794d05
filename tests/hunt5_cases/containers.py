import numpy as np, copy, itertools, collections

X = np.array([0.7, -1.3, 2.1])
A = np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.4], [1.1, 0.2, 0.6]])

def tuple_read_twice(x):
    t = (x[0], x[1] * x[2])
    return t[0] * t[1] + t[0] ** 2 + t[1]

def enumerate_rows(A):
    s = 0.0
    for i, row in enumerate(A):
        s = s + (i + 1) * np.sum(row ** 2) + row[i]
    return s

def enumerate_rows_write(A):
    B = A.copy()
    for i, row in enumerate(B):
        row *= (i + 1.0)
        row[0] = row[1] * row[2]
    return np.sum(B ** 2)

def zip_star(A):
    cols = list(zip(*A))
    return sum(c[0] * c[1] * c[2] for c in cols)

def zip_star_lists(x):
    rows = [[x[0], x[1]], [x[2], x[0] * x[1]]]
    a, b = zip(*rows)
    return a[0] * b[1] + sum(a) * sum(b)

def star_unpack(x):
    first, *mid, last = list(x) + [x[0] * x[1]]
    return first * last + sum(mid)

def star_unpack_tail(A):
    head, *rest = A
    return np.sum(head * sum(rest))

def list_pop(x):
    L = [x[0], x[1], x[2], x[0] * x[2]]
    a = L.pop()
    b = L.pop(0)
    return a * b + L[0] * L[1] + len(L)

def list_insert(x):
    L = [x[0], x[1]]
    L.insert(1, x[2] ** 2)
    L.insert(0, x[0] * 3.0)
    return L[0] * L[1] + L[2] * L[3] ** 2

def list_extend_reverse(x):
    L = [x[0]]
    L.extend([x[1], x[2] ** 2])
    L.extend(np.sin(x))
    L.reverse()
    return L[0] * L[-1] + L[1] * L[2] + sum(L[3:])

def list_index(x):
    L = ["a", "b", "c"]
    vals = [x[0], x[1], x[2]]
    i = L.index("b")
    return vals[i] * vals[L.index("c")]

def dict_setdefault(x):
    d = {}
    keys = ["a", "b", "a", "c", "b"]
    for i, k in enumerate(keys):
        d.setdefault(k, []).append(x[i % 3] * (i + 1))
    return sum(sum(v) * len(v) for v in d.values())

def dict_setdefault_num(x):
    d = {}
    for i in range(3):
        v = d.setdefault("s", x[0])
        d["s"] = v * x[i]
    return d["s"]

def dict_pop(x):
    d = {"a": x[0], "b": x[1] * x[2], "c": np.sin(x)}
    b = d.pop("b")
    z = d.pop("zz", x[2])
    return b * z + d["a"] + np.sum(d.pop("c"))

def dict_popitem(x):
    d = {"a": x[0], "b": x[1] * x[2]}
    k, v = d.popitem()
    return v * d["a"] * (2.0 if k == "b" else 1.0)

def dict_items_mutate(x):
    d = {"a": x[0], "b": x[1], "c": x[2]}
    for k, v in list(d.items()):
        if v > 0:
            d[k] = v * 2.0
        else:
            del d[k]
    return sum(d.values()) * d["a"]

def dict_update(x):
    d = {"a": x[0]}
    d.update({"b": x[1] ** 2}, c=x[2])
    d.update(a=d["a"] * d["c"])
    return d["a"] + d["b"] * d["c"]

def nested_containers(x):
    state = {"layers": [{"w": x * 1.0, "b": x[0]}, {"w": x ** 2, "b": x[1]}], "hist": []}
    h = x
    for L in state["layers"]:
        h = np.tanh(L["w"] * h + L["b"])
        state["hist"].append(np.sum(h))
    state["layers"][0]["w"] = state["layers"][0]["w"] * 2.0
    return sum(state["hist"]) + np.sum(state["layers"][0]["w"])

def copy_vs_alias(x):
    L = [x[0], x[1]]
    M = L
    N = copy.copy(L)
    M[0] = M[0] * x[2]
    N[1] = N[1] * 5.0
    return L[0] + L[1] + N[0] * N[1]

def copy_list_of_arrays(x):
    L = [x.copy(), x * 2.0]
    N = copy.copy(L)
    N[0] *= 3.0  # shallow: the array is shared
    D = copy.deepcopy(L)
    D[1] *= 7.0
    return np.sum(L[0] * L[1]) + np.sum(D[1])

def list_plus_eq(x):
    L = [x]
    L += [x ** 2]
    L += [np.sin(x)]
    return np.sum(L[0] * L[1] * L[2]) + len(L)

def arrays_plus_eq_elementwise(x):
    L = [x, x * 2.0]
    for i in range(len(L)):
        L[i] += 1.0  # in-place on the arrays: x is aliased by L[0]!
    return np.sum(L[0] * L[1])

def arrays_plus_eq_alias(x):
    y = x.copy()
    a = y
    a += x ** 2
    return np.sum(y * x)

def float_plus_eq_alias(x):
    b = x[0]
    a = b
    a += x[1]
    return a * b

def arr_list_alias_append(x):
    acc = np.zeros(3)
    out = []
    for i in range(3):
        acc += x * (i + 1)
        out.append(acc)  # all the same array
    return np.sum(out[0] * out[2])

def arr_list_alias_copy(x):
    acc = np.zeros(3)
    out = []
    for i in range(3):
        acc = acc + x * (i + 1)
        out.append(acc)
    return np.sum(out[0] * out[2])

def tuple_of_arrays_inplace(x):
    a = x.copy(); b = x * 2
    t = (a, b)
    t[0][1] = t[1][2] * 3.0
    return np.sum(a * b)

def deque_window(x):
    d = collections.deque(maxlen=2)
    s = 0.0
    for v in x:
        d.append(v)
        s = s + d[0] * d[-1]
    return s

def counter_like(x):
    c = collections.defaultdict(float)
    for i, v in enumerate(x):
        c[i % 2] += v * v
    return c[0] * c[1]

def ordered_dict(x):
    d = collections.OrderedDict()
    d["z"] = x[0]; d["a"] = x[1]
    d.move_to_end("z")
    ks = list(d)
    return d[ks[0]] * 2.0 + d[ks[1]] * 3.0

def list_sort_key(x):
    L = [x[0], x[1], x[2]]
    L.sort(key=abs)
    return L[0] * 1.0 + L[1] * 2.0 + L[2] * 3.0

def sorted_arrays_key(x):
    arrs = [x, x ** 2, np.cos(x)]
    s = sorted(arrs, key=lambda a: a.sum())
    return np.sum(s[0] * 1.0 + s[1] * 2.0 + s[2] * 3.0)

def sorted_tuples(x):
    items = [(float(v), v) for v in x]
    items.sort()
    return items[0][1] * 1.0 + items[2][1] * 3.0

def min_key(x):
    arrs = [x, x * 2.0 - 1.0, np.cos(x)]
    best = min(arrs, key=np.sum)
    return np.sum(best ** 2)

def max_tuple(x):
    t = max((v, i) for i, v in enumerate(x))
    return t[0] * 2.0

def list_comp_nested(A):
    return sum(a * b for row in A for a, b in zip(row, row[1:]))

def list_mul(x):
    L = [x[0]] * 3
    L[1] = L[1] * x[1]
    return L[0] + L[1] + L[2]

def list_of_lists_mul(x):
    grid = [[0.0] * 2 for _ in range(2)]
    grid[0][1] = x[0]; grid[1][0] = x[1] * x[2]
    return grid[0][1] * grid[1][0] + sum(map(sum, grid))

def list_slice_assign(x):
    L = [x[0], x[1], x[2], 1.0]
    L[1:3] = [L[2] * 2.0, L[1] ** 2]
    L[::2] = [v * 3.0 for v in L[::2]]
    return L[0] * L[1] + L[2] * L[3]

def list_del(x):
    L = [x[0], x[1], x[2], x[0] * x[1]]
    del L[1]
    del L[-1:]
    return L[0] * L[1]

def list_remove(x):
    L = [1.0, 2.0, 3.0]
    L2 = [x[0], x[1], x[2]]
    L.remove(2.0)
    L2.remove(L2[1])
    return L2[0] * L2[1] + sum(L)

def tuple_concat(x):
    t = (x[0],)
    for v in x[1:]:
        t = t + (v * t[-1],)
    return sum(t)

def tuple_mul(x):
    t = (x[0], x[1]) * 2
    return t[0] * t[3] + t[1] * t[2]

def list_copy_method(x):
    L = [x[0], x[1]]
    M = L.copy()
    M[0] = 5.0 * M[0] * M[1]
    return L[0] + M[0]

def list_clear(x):
    L = [x[0] * x[1]]
    a = L[0]
    L.clear()
    L.append(x[2])
    return a * L[0]

def list_count_in(x):
    L = [x[0], x[1]]
    c = 1.0 if x[0] in L else 0.0
    return c * L[1] + len(L)

def enumerate_start(x):
    s = 0.0
    for i, v in enumerate(x, start=1):
        s = s + i * v ** 2
    return s

def zip_strict_like(x):
    s = 0.0
    for a, b in zip(x, x[::-1]):
        s = s + a * b
    return s

def itertools_accumulate(x):
    return sum(itertools.accumulate(x, lambda a, b: a * b))

def itertools_pairwise(x):
    return sum(a * b for a, b in itertools.pairwise(x))

def itertools_chain(x):
    return sum(v * v for v in itertools.chain(x, [x[0] * 2.0]))

def itertools_product(x):
    return sum(a * b for a, b in itertools.product(x[:2], x[1:]))

def reversed_list(x):
    L = list(x)
    s = 0.0; k = 1.0
    for v in reversed(L):
        s = s + v * k; k = k * v
    return s

def map_lambda(x):
    return sum(map(lambda a, b: a * b, x, x[::-1]))

def filter_pos(x):
    return sum(filter(lambda v: v > 0, x * x[0]))

def dict_comprehension(x):
    d = {k: v ** 2 for k, v in zip("abc", x)}
    inv = {v: k for k, v in d.items()}
    return d["a"] * d["c"] + len(inv)

def dict_get_default(x):
    d = {"a": x[0]}
    return d.get("a", 0.0) * d.get("b", x[1]) + d.get("c", 2.0)

def dict_keys_order(x):
    d = {}
    d["b"] = x[0]; d["a"] = x[1]
    vals = [d[k] for k in sorted(d)]
    return vals[0] * 2.0 + vals[1]

def dict_of_lists_extend(x):
    d = {"a": [x[0]]}
    d["a"].extend([x[1], x[2]])
    d["a"] += [x[0] * x[1]]
    return sum(d["a"]) * d["a"][-1]

def set_ops(x):
    s = {1, 2}
    s.add(3)
    return x[0] * len(s) + (x[1] if 2 in s else 0.0)

def list_arrays_stack(x):
    rows = []
    for i in range(3):
        rows.append(x * (i + 1.0))
    M = np.array(rows)
    M[1] = M[0] * M[2]
    return np.sum(M ** 2) + np.sum(rows[1])

def np_array_of_list_of_floats(x):
    L = [x[0] * x[1], x[2], 1.0]
    a = np.array(L)
    a[2] = a[0]
    return np.sum(a ** 2) + L[0]

def asarray_alias(x):
    a = np.asarray(x)
    b = np.array(x, copy=False) if False else np.asarray(x)
    c = a.copy()
    c *= 2.0
    return np.sum(c * b)

PROBES = [(f.__name__, f, (A,) if f.__code__.co_varnames[:1] == ("A",) else (X,)) for f in [
    tuple_read_twice, enumerate_rows, enumerate_rows_write, zip_star, zip_star_lists, star_unpack,
    star_unpack_tail, list_pop, list_insert, list_extend_reverse, list_index, dict_setdefault, dict_setdefault_num,
    dict_pop, dict_popitem, dict_items_mutate, dict_update, nested_containers, copy_vs_alias,
    copy_list_of_arrays, list_plus_eq, arrays_plus_eq_elementwise, arrays_plus_eq_alias, float_plus_eq_alias,
    arr_list_alias_append, arr_list_alias_copy, tuple_of_arrays_inplace, deque_window, counter_like,
    ordered_dict, list_sort_key, sorted_arrays_key, sorted_tuples, min_key, max_tuple, list_comp_nested,
    list_mul, list_of_lists_mul, list_slice_assign, list_del, list_remove, tuple_concat, tuple_mul,
    list_copy_method, list_clear, list_count_in, enumerate_start, zip_strict_like, itertools_accumulate,
    itertools_pairwise, itertools_chain, itertools_product, reversed_list, map_lambda, filter_pos,
    dict_comprehension, dict_get_default, dict_keys_order, dict_of_lists_extend, set_ops, list_arrays_stack,
    np_array_of_list_of_floats, asarray_alias]]
