"""What a derived reverse rule is specialised on, per argument: `kinds_of`.

A number is `num`; a float array says its rank and which axes have size one (`arr:f:n1`); small dicts, tuples,
lists and objects of floats and float arrays say their layout (`any:dict:W=f.nn;b=f.n`, `any:list:f`, ...),
arguments without a derivative say so (`any:const:inactive`).  Reverse mode writes plain code for those
(ir/types.py reads the codes) only when the call cannot alias them -- no array twice, no two sharing memory, no
list or object twice -- which this module checks on every call before a derived rule is looked up; everything
else keeps `arr` / `any` / `obj` and the generic, identity-keyed storage.  Split from reverse/runtime.py, which
calls it (and reverse/fastpath.py, which repeats its common case in a few dict look-ups).
"""
from __future__ import annotations

import sys
import types
from typing import Any

import numpy as np

from ..forward import objects
from .constant_args import constant_data, constant_layout, distinct_containers
from .int_keys import float_dict_by_ints, key_code
from .row_lists import float_rows


def kinds_of(args: tuple) -> tuple:
    """What a derived rule is specialised on, per argument.

    Float arrays also say their rank and which axes have size one (`arr:f:n1`), so the pullback can be
    plain NumPy (ir/types.py), but only when the call cannot alias them: every argument a number or
    an array, no two arrays sharing memory.  Otherwise they stay `arr` and the generic storage,
    keyed by identity, keeps one adjoint per object.
    """
    kinds = tuple(_module_kind(a) or objects.kind_of(a) for a in args)
    typed = [k for k, a in enumerate(args) if type(a) is np.ndarray and a.dtype.kind == "f"]
    dicts = [k for k, a in enumerate(args) if kinds[k] == "any" and (_array_dict(a) or float_dict_by_ints(a))]
    objs = [k for k, a in enumerate(args) if kinds[k] == "obj" and _array_object(a)]
    lists = [k for k, a in enumerate(args) if kinds[k] == "any" and _float_list(a)]
    tuples = [k for k, a in enumerate(args) if kinds[k] == "any" and _array_tuple(a)]
    layers = [k for k, a in enumerate(args) if kinds[k] == "any" and _tuple_list_code(a) is not None]
    stacks = [k for k, a in enumerate(args) if kinds[k] == "any" and _array_list_code(a) is not None]
    consts = [k for k, a in enumerate(args) if kinds[k] == "any" and constant_data(a)]  # (reverse/constant_args.py)
    rows = [k for k, a in enumerate(args) if kinds[k] == "any" and float_rows(a)]  # (reverse/row_lists.py)
    if not distinct_containers([args[k] for k in consts]):
        return kinds
    if not (typed or dicts or objs or lists or tuples or layers or stacks or consts or rows) or any(
            k not in ("num", "arr") and i not in dicts and i not in objs and i not in lists and i not in tuples
            and i not in layers and i not in stacks and i not in consts and i not in rows and not k.startswith("mod:")
            for i, k in enumerate(kinds)):
        return kinds
    held = [args[k] for k in lists + layers + stacks + rows] + [row for k in rows for row in args[k]]
    if len({id(v) for v in held}) < len(held):
        return kinds  # the same list twice (or a row of one another argument): one adjoint, kept by storage
    fields = {k: (args[k] if k in dicts else vars(args[k])) for k in dicts + objs}
    arrays = [args[k] for k in typed] + [v for d in fields.values() for v in d.values() if type(v) is np.ndarray] + \
        [v for k in tuples for v in args[k] if type(v) is np.ndarray] + \
        [v for k in layers for item in args[k] for v in item if type(v) is np.ndarray] + \
        [v for k in stacks for v in args[k]]
    if len({id(args[k]) for k in objs}) < len(objs):
        return kinds  # the same object twice: one adjoint, kept by storage
    if len({id(a) for a in arrays}) < len(arrays):
        return kinds  # (one array twice)
    # Two distinct arrays that own their data cannot overlap: only views need NumPy's test (a list of many layers
    # costs one pass, not one test per pair, on every call).
    for v in arrays:
        if v.base is not None and any(a is not v and np.may_share_memory(v, a) for a in arrays):
            return kinds
    out = list(kinds)
    for k in typed:
        out[k] = "arr:" + _axes_code(args[k])
    for k, a in enumerate(args):  # (index arrays and masks: no adjoint, so aliasing them changes nothing)
        if type(a) is np.ndarray and a.dtype.kind in "iub" and kinds[k] == "arr":
            out[k] = "arr:" + a.dtype.kind.replace("u", "i") + ":" + "".join("1" if n == 1 else "n" for n in a.shape)
    for k in lists:  # (a list of floats holds no array: nothing to share)
        out[k] = "any:list:f"
    for k in layers:  # (a list of tuples of float arrays and floats: `for W, b in params`)
        out[k] = "any:list:tuple:" + _tuple_list_code(args[k])  # type: ignore[operator]
    for k in stacks:  # (a list of float arrays of one rank: `for W in Ws`)
        out[k] = "any:list:arr:" + _array_list_code(args[k])  # type: ignore[operator]
    for k in rows:  # (a list of lists of floats, each row a list of its own: `rows[i][j]`)
        out[k] = "any:list:list:f"
    for k in consts:  # (ints, strings, flags: no derivative, and nothing of another argument inside)
        layout = constant_layout(args[k])  # (`ints`: a list of ints, which ir/types.decode types; else none)
        out[k] = "any:const:" + (layout + ":" if layout else "") + "inactive"
    for k in tuples:
        out[k] = "any:tuple:" + ";".join("num" if type(v) is float else _axes_code(v).replace(":", ".") for v in args[k])
    for k in dicts + objs:  # (still "any" / "obj" to everything that reads only the kind's first part)
        out[k] = ("any:dict:" if k in dicts else "obj:fields:") + ";".join(
            f"{key_code(key)}=" + ("num" if type(v) is float else _axes_code(v).replace(":", "."))
            for key, v in fields[k].items())
    return tuple(out)


def _module_kind(a: Any) -> str:
    """`mod:NAME` for an imported module passed as an argument (generated code takes `_mc`, the run-time
    helpers, as a keyword parameter): a constant the reverse transform reads as the module itself, so
    re-differentiating generated code resolves `_mc.pow_deriv` & co. to their rules (issue 10)."""
    if type(a) is types.ModuleType and sys.modules.get(a.__name__) is a:
        return "mod:" + a.__name__
    return ""


def _axes_code(a: np.ndarray) -> str:
    return "f:" + "".join(["1" if n == 1 else "n" for n in a.shape])  # read back by ir/types.decode


def _array_dict(d: Any) -> bool:
    """A small dict of named float arrays and floats (model parameters): reverse mode types it."""
    return type(d) is dict and 0 < len(d) <= 16 and all(
        type(k) is str and k.isidentifier() and (type(v) is float or type(v) is np.ndarray and v.dtype.kind == "f")
        for k, v in d.items())


def _array_tuple(x: Any) -> bool:
    """A small tuple of float arrays and floats (`params = (W, b)`): reverse mode types it."""
    return type(x) is tuple and 0 < len(x) <= 16 and all(
        type(v) is float or type(v) is np.ndarray and v.dtype.kind == "f" for v in x)


def _tuple_list_code(x: Any) -> Any:
    """`f.nn;f.n` for a list of tuples of one layout (`[(W1, b1), (W2, b2)]`: float arrays of one rank, or floats, at
    each position; an axis "1" or "n" where every item agrees, else "?"), or None.  Reverse mode types it when the
    function only reads it (reverse/typed_lists.py)."""
    if type(x) is not list or not 0 < len(x) <= 64 or type(x[0]) is not tuple or not 0 < len(x[0]) <= 8:
        return None
    width = len(x[0])
    codes = []
    for pos in range(width):
        col = [t[pos] if type(t) is tuple and len(t) == width else None for t in x]
        if all(type(v) is float for v in col):
            codes.append("num")
            continue
        if not all(type(v) is np.ndarray and v.dtype.kind == "f" for v in col) or len({v.ndim for v in col}) != 1:
            return None
        axes = ["".join("1" if n == 1 else "n" for n in v.shape) for v in col]
        codes.append("f." + "".join(a[0] if len(set(a)) == 1 else "?" for a in zip(*axes)))
    return ";".join(codes)


def _array_list_code(x: Any) -> Any:
    """`f.nn` for a list of float arrays of one rank (`Ws = [W1, W2, W3]`: an axis "1" or "n" where every item
    agrees, else "?"), or None.  Reverse mode types it when the function only reads it (reverse/typed_lists.py)."""
    if type(x) is not list or not 0 < len(x) <= 64 or type(x[0]) is not np.ndarray:
        return None
    ndim = x[0].ndim
    if not all(type(v) is np.ndarray and v.dtype.kind == "f" and v.ndim == ndim for v in x):
        return None
    axes = ["".join("1" if n == 1 else "n" for n in v.shape) for v in x]
    return "f." + "".join(a[0] if len(set(a)) == 1 else "?" for a in zip(*axes))


def _float_list(x: Any) -> bool:
    """A list of Python floats (a sample, coefficients): reverse mode types it when the function only reads it
    (reverse/typed_lists.py).  Long lists stay generic: the test runs on every call."""
    return type(x) is list and 0 < len(x) <= 1024 and all(type(v) is float for v in x)


def _array_object(x: Any) -> bool:
    """An instance of a user class holding a few named float arrays and floats (a model or layer):
    reverse mode types it when `x.name` can only mean the instance attribute -- the class defines no
    attribute of that name (no property, method or class constant) and keeps Python's attribute lookup."""
    tp = type(x)
    d = getattr(x, "__dict__", None)
    return type(d) is dict and 0 < len(d) <= 16 and tp.__getattribute__ is object.__getattribute__ and all(
        type(k) is str and k.isidentifier() and not hasattr(tp, k)
        and (type(v) is float or type(v) is np.ndarray and v.dtype.kind == "f") for k, v in d.items())
