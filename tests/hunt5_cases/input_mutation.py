import numpy as np
X = np.array([0.7, -1.3, 2.1, 0.4])
def center_input(x):
    x -= x.mean()
    return np.sum(x ** 3)
def normalize_input(x):
    x /= np.linalg.norm(x)
    return np.sum(x * np.arange(4.0))
def clip_input(x):
    np.clip(x, -1.0, 1.0, out=x)
    return np.sum(x ** 2)
def sort_input(x):
    x.sort()
    return np.sum(x * np.arange(4.0))
def setitem_input(x):
    x[0] = x[1] * x[2]
    return np.sum(x ** 2)
def slice_assign_input(x):
    x[1:] = x[:-1] * 2.0
    return np.sum(x * np.arange(4.0))
def helper_mutates_input(x):
    def standardize(v):
        v -= v.mean()
        v /= v.std()
    standardize(x)
    return np.sum(x ** 3)
def list_input_mutated(L):
    L.append(L[0] * L[1])
    L[0] = L[0] ** 2
    return sum(L)
def dict_input_mutated(d):
    d["w"] = d["w"] * 2.0
    d["w"] += d["b"]
    return np.sum(d["w"] ** 2)
def input_view_returned(x):
    v = x[1:3]
    v *= 2.0
    return np.sum(x * np.arange(4.0))
def floor_input_out(x):
    np.floor(x, out=x)
    return np.sum(x * np.arange(4.0))
def input_aliased_in_list(x):
    L = [x, x]
    L[0] += 1.0
    return np.sum(L[1] * x)
PROBES = [(f.__name__, f, (X,)) for f in [center_input, normalize_input, clip_input, sort_input, setitem_input,
          slice_assign_input, helper_mutates_input, input_view_returned, input_aliased_in_list]]
PROBES.append(("list_input_mutated", list_input_mutated, ([0.7, -1.3, 2.1],)))
PROBES.append(("dict_input_mutated", dict_input_mutated, ({"w": np.array([0.7, -1.3]), "b": 0.5},)))
