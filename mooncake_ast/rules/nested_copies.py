"""Plain-Python models of `copy.copy` and `copy.deepcopy`, for derivatives of derivatives.

At first order both have hand-written rules (python_copy.py), which have no derivative of their own, so
`mc.hessian` of a function calling `copy.copy(x)` was refused ("the forward derivative of copy comes from a
hand-written rule").  A copy is the identity on values; what matters is what it shares.  For the values these models
take the model is ordinary code that makes exactly the object the library call makes, so mooncake_ast
differentiates it as it differentiates the user's code, at any order and in both modes (api_rules._plan asks
`model_for` for the model standing for a positional call):

* copy.copy: an array's copy (`np.copy(x)`, keeping its layout as ndarray.__copy__ does), a list's or dict's
  (`.copy()`: the items shared), and the value itself for numbers, strings and tuples (copy.copy returns an
  immutable value unchanged).
* copy.deepcopy of arrays, numbers, and lists / tuples / plain dicts of those, one level deep, where no array or
  container appears twice (deepcopy keeps shared items shared; a model copying each appearance would not).

Anything else (a user's object, a namedtuple, a defaultdict, deeper nesting, shared items) has no model: the call is
refused by name as before.
"""
from __future__ import annotations

import copy
from typing import Any, Optional

import numpy as np

_NUMBERS = (bool, int, float, complex, str, type(None), np.number, np.bool_)


# ---------------------------------------------------------------- the models (plain Python: they are traced)
def copy_array(x):
    return np.copy(x)  # (order='K', as ndarray.__copy__ / __deepcopy__: a transposed array's copy stays F-ordered)


def copy_container(x):
    return x.copy()


def copy_immutable(x):
    return x


def deepcopy_list(xs):
    out = []
    for v in xs:
        out.append(np.copy(v) if isinstance(v, np.ndarray) else v)
    return out


def deepcopy_tuple(xs):
    return tuple(deepcopy_list(list(xs)))


def deepcopy_dict(d):
    out = {}
    for k in d:
        v = d[k]
        out[k] = np.copy(v) if isinstance(v, np.ndarray) else v
    return out


# ---------------------------------------------------------------- choosing one
def _leaf(v: Any) -> bool:
    return isinstance(v, _NUMBERS) or (type(v) is np.ndarray and v.dtype.kind in "biufc")


def _shallow_model(x: Any) -> Optional[Any]:
    if type(x) is np.ndarray:
        return copy_array
    if type(x) in (list, dict):
        return copy_container
    if isinstance(x, _NUMBERS) or type(x) is tuple:
        return copy_immutable
    return None


def _deep_model(x: Any) -> Optional[Any]:
    if type(x) is np.ndarray and x.dtype.kind in "biufc":
        return copy_array
    if isinstance(x, _NUMBERS):
        return copy_immutable
    items = list(x.values()) if type(x) is dict else list(x) if type(x) in (list, tuple) else None
    if items is None or not all(_leaf(v) for v in items):
        return None
    arrays = [id(v) for v in items if isinstance(v, np.ndarray)]
    if len(set(arrays)) != len(arrays):
        return None  # (an array held twice stays one array in deepcopy's result)
    if type(x) is dict and not all(isinstance(k, (str, int)) for k in x):
        return None
    return {list: deepcopy_list, tuple: deepcopy_tuple, dict: deepcopy_dict}[type(x)]


def model_for(f: Any, args: tuple, kwargs: Any) -> Optional[Any]:
    """The plain model standing for `copy.copy(x)` / `copy.deepcopy(x)` (one positional argument), else None."""
    if kwargs or len(args) != 1 or f not in (copy.copy, copy.deepcopy):
        return None
    return _shallow_model(args[0]) if f is copy.copy else _deep_model(args[0])
