import numpy as np
from dataclasses import dataclass
from typing import NamedTuple

X = np.array([0.7, -1.3, 2.1])

@dataclass
class Params:
    w: np.ndarray
    b: float

class NT(NamedTuple):
    w: np.ndarray
    b: float

class Obj:
    def __init__(self, w, b): self.w = w; self.b = b

def dc_arg(p):
    return np.sum(np.tanh(p.w * p.b))

def dc_arg_mutated(p):
    p.w = p.w * 2.0
    p.b = p.b + np.sum(p.w)
    return p.b * np.sum(p.w)

def dc_arg_inplace(p):
    p.w *= p.b
    return np.sum(p.w ** 2)

def nt_arg(p):
    q = p._replace(b=p.b * 2.0)
    return np.sum(q.w) * q.b + p.b

def obj_arg_inplace(o):
    o.w += o.b
    o.b = o.b * 2.0
    return np.sum(o.w) * o.b

def same_obj_twice(a, b):
    a.w = a.w * 2.0
    return np.sum(a.w * b.w) + a.b * b.b

def same_arr_twice(a, b):
    a *= 2.0
    return np.sum(a * b)

def same_list_twice(L, M):
    L.append(L[0] * 2.0)
    return sum(M) * len(M)

def dict_arg(d):
    d["w"] = d["w"] * d["b"]
    d["new"] = np.sum(d["w"])
    return d["new"] ** 2

def nested_arg(d):
    s = 0.0
    for layer in d["layers"]:
        s = s + np.sum(layer["w"] * layer["b"])
    return s * d["scale"]

def tuple_arg_unpack(t):
    (a, b), c = t
    return np.sum(a * b) * c

def list_of_objs_arg(objs):
    return sum(np.sum(o.w) * o.b for o in objs)

def kw_only_arg(x, *, scale=2.0):
    return np.sum(x * scale)

def arr_0d_arg(a):
    return a * a * 3.0

def float_int_mix(a, n):
    return a ** n + n * a

def arr_view_arg(v):
    v[0] = v[1] * 2.0
    return np.sum(v ** 2)

def dc_with_list(p):
    return sum(np.sum(w) for w in p.w) * p.b

P = Params(X.copy(), 0.5)
o = Obj(X.copy(), 0.5)
shared = Obj(X.copy(), 0.3)
sa = X.copy()
sl = [0.5, 1.5]
base = np.concatenate([X, X])

PROBES = [
    ("dc_arg", dc_arg, (Params(X.copy(), 0.5),)),
    ("dc_arg_mutated", dc_arg_mutated, (Params(X.copy(), 0.5),)),
    ("dc_arg_inplace", dc_arg_inplace, (Params(X.copy(), 0.5),)),
    ("nt_arg", nt_arg, (NT(X.copy(), 0.5),)),
    ("obj_arg_inplace", obj_arg_inplace, (Obj(X.copy(), 0.5),)),
    ("same_obj_twice", same_obj_twice, (shared, shared)),
    ("same_arr_twice", same_arr_twice, (sa, sa)),
    ("same_list_twice", same_list_twice, (sl, sl)),
    ("dict_arg", dict_arg, ({"w": X.copy(), "b": 0.5},)),
    ("nested_arg", nested_arg, ({"layers": [{"w": X.copy(), "b": 0.5}, {"w": X[:2].copy(), "b": 1.5}], "scale": 2.0},)),
    ("tuple_arg_unpack", tuple_arg_unpack, (((X.copy(), X.copy() * 2), 0.5),)),
    ("list_of_objs_arg", list_of_objs_arg, ([Obj(X.copy(), 0.5), Obj(X[:2].copy(), 1.5)],)),
    ("kw_only_arg", kw_only_arg, (X.copy(),), {"scale": 3.0}),
    ("arr_0d_arg", arr_0d_arg, (np.array(1.5),)),
    ("float_int_mix", float_int_mix, (1.5, 3)),
    ("arr_view_arg", arr_view_arg, (base[1:4],)),
    ("dc_with_list", dc_with_list, (Params([X.copy(), X[:2].copy()], 0.5),)),
]
