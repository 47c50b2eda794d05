import numpy as np
X = np.array([0.7, -1.3, 2.1])
def dict_kw_override(x):
    a = {"u": x[0], "v": x[1]}
    c = dict(a, v=x[2])
    return c["u"] * c["v"]
def dict_two_maps(x):
    a = {"u": x[0], "v": x[1]}
    c = dict(a, **{"v": x[2]})
    return c["u"] * c["v"]
def dict_zip_duplicates(x):
    d = dict(zip(["a", "b", "a"], x))
    return d["a"] * d["b"]
def dict_pairs_duplicates(x):
    d = dict([("a", x[0]), ("a", x[1]), ("b", x[2])])
    return d["a"] * d["b"]
def dict_comp_duplicates(x):
    d = {k: v for k, v in zip(["a", "a", "b"], x)}
    return d["a"] * d["b"]
def dict_literal_duplicate(x):
    d = {"a": x[0], "a": x[1], "b": x[2]}
    return d["a"] * d["b"]
def update_override(x):
    d = {"a": x[0], "b": x[1]}
    d.update({"a": x[2]})
    return d["a"] * d["b"]
def update_kw_override(x):
    d = {"a": x[0], "b": x[1]}
    d.update(a=x[2])
    return d["a"] * d["b"]
def setdefault_existing(x):
    d = {"a": x[0]}
    v = d.setdefault("a", x[1])
    return v * x[2]
def or_override(x):
    a = {"u": x[0], "v": x[1]}
    c = a | {"v": x[2]}
    return c["u"] * c["v"]
def ior_override(x):
    a = {"u": x[0], "v": x[1]}
    a |= {"v": x[2]}
    return a["u"] * a["v"]
def kwargs_override(x):
    def f(**kw): return kw["u"] * kw["v"]
    base = {"u": x[0], "v": x[1]}
    return f(**{**base, "v": x[2]})
def kwargs_call_override(x):
    def f(u, v): return u * v
    base = {"u": x[0], "v": x[1]}
    return f(**base) + f(**{**base, "v": x[2]})
def chainmap_first(x):
    import collections
    c = collections.ChainMap({"v": x[2]}, {"u": x[0], "v": x[1]})
    return c["u"] * c["v"]
def set_dedupe_keys(x):
    keys = sorted(set(["b", "a", "b"]))
    d = {k: x[i] for i, k in enumerate(keys)}
    return d["a"] * d["b"]
PROBES = []
for f in list(globals().values()):
    if (callable(f) and getattr(f, "__module__", None) == __name__ and type(f).__name__ == "function"
            and not f.__name__.startswith("_")):
        PROBES.append((f.__name__, f, (X,)))
