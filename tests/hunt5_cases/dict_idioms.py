import numpy as np

X = np.array([0.7, -1.3, 2.1])

def fstring_keys(x):
    p = {}
    for i in range(3):
        p[f"w{i}"] = x[i] * (i + 1)
    return sum(p[f"w{i}"] ** 2 for i in range(3))

def fstring_keys_arrays(x):
    p = {f"layer{i}": {"W": np.outer(x, x) * (i + 1), "b": x * i} for i in range(2)}
    h = x
    for i in range(2):
        L = p[f"layer{i}"]
        h = np.tanh(L["W"] @ h + L["b"])
    return np.sum(h)

def dict_merge_star(x):
    a = {"u": x[0], "v": x[1]}
    b = {"v": x[2] ** 2, "w": 1.0}
    c = {**a, **b}
    return c["u"] * c["v"] + c["w"]

def dict_merge_pipe(x):
    a = {"u": x[0], "v": x[1]}
    b = {"v": x[2] ** 2}
    c = a | b
    a |= {"u": x[1] * 3.0}
    return c["u"] * c["v"] + a["u"]

def dict_kwargs_constructor(x):
    d = dict(a=x[0], b=x[1])
    e = dict(d, c=x[2])
    return d["a"] * e["c"] + e["b"]

def dict_fromkeys(x):
    d = dict.fromkeys(["a", "b"], 0.0)
    d["a"] += x[0]
    d["b"] += x[1] * d["a"]
    return d["b"]

def dict_fromkeys_shared_list(x):
    d = dict.fromkeys(["a", "b"], [])
    d["a"].append(x[0])  # the same list for both keys
    return sum(d["b"]) * x[1]

def dict_copy_shallow(x):
    d = {"w": x * 1.0, "s": x[0]}
    e = d.copy()
    e["w"] *= 2.0   # shared array
    e["s"] = e["s"] * 3.0
    return np.sum(d["w"]) * d["s"] + e["s"]

def nested_dict_update_in_loop(x):
    stats = {"mean": 0.0, "m2": 0.0, "n": 0}
    for v in x:
        stats["n"] += 1
        delta = v - stats["mean"]
        stats["mean"] += delta / stats["n"]
        stats["m2"] += delta * (v - stats["mean"])
    return stats["m2"] / (stats["n"] - 1)

def dict_int_keys_from_loop(x):
    d = {}
    for i, v in enumerate(x):
        d[i] = v * v
    return sum(d[i] * (i + 1) for i in sorted(d))

def dict_tuple_keys(x):
    d = {}
    for i in range(2):
        for j in range(2):
            d[(i, j)] = x[i] * x[j + 1]
    return d[(0, 1)] + d[(1, 0)] * d[(1, 1)]

def dict_str_concat_keys(x):
    d = {}
    for name in ["a", "b"]:
        d[name + "_w"] = x[0] if name == "a" else x[1]
        d[name + "_b"] = x[2]
    return d["a_w"] * d["b_w"] + d["a_b"]

def dict_keys_from_np_int(x):
    d = {}
    for i in np.arange(3):
        d[int(i)] = x[i] ** 2
    return d[0] + d[2]

def dict_np_int_keys_no_cast(x):
    d = {}
    for i in np.arange(3):
        d[i] = x[i] ** 2
    return d[0] + d[2]

def sorted_dict_items(x):
    d = {"b": x[0], "a": x[1], "c": x[2]}
    return sum(v * i for i, (k, v) in enumerate(sorted(d.items())))

def dict_max_by_value(x):
    d = {"a": x[0], "b": x[1], "c": x[2]}
    k = max(d, key=d.get)
    return d[k] * 2.0

def dict_values_to_array(x):
    d = {"a": x[0], "b": x[1] * 2.0}
    return np.sum(np.array(list(d.values())) ** 2)

PROBES = []
for f in list(globals().values()):
    if (callable(f) and getattr(f, "__module__", None) == __name__ and type(f).__name__ == "function"
            and not f.__name__.startswith("_")):
        PROBES.append((f.__name__, f, (X,)))
