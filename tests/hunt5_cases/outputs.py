import numpy as np
from dataclasses import dataclass
from typing import NamedTuple
X = np.array([0.7, -1.3, 2.1])
@dataclass
class Out:
    a: float
    b: np.ndarray
class NT(NamedTuple):
    a: float
    b: np.ndarray
def ret_dict(x): return {"a": x[0] * x[1], "b": np.sin(x)}
def ret_dataclass(x): return Out(x[0] * x[1], np.sin(x))
def ret_namedtuple(x): return NT(x[0] * x[1], np.sin(x))
def ret_list_mixed(x): return [x[0] ** 2, (x[1], np.cos(x)), {"k": x[2]}]
def ret_input_itself(x): return x
def ret_view_of_input(x): return x[1:]
def ret_alias_twice(x):
    y = x * 2.0
    return y, y
def ret_int_and_float(x): return 3, x[0] * 2.0
def ret_none_and_arr(x): return None, x ** 2
def ret_0d(x): return np.array(x[0] * x[1])
def ret_nested_obj(x):
    o = Out(x[0], x * 2.0)
    return [o, o]
PROBES = []
for f in list(globals().values()):
    if (callable(f) and getattr(f, "__module__", None) == __name__ and type(f).__name__ == "function"
            and not f.__name__.startswith("_")):
        PROBES.append((f.__name__, f, (X,)))
