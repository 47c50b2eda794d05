"""Refusal of values whose arithmetic the rules do not model: NumPy subclasses, other array libraries,
and number types other than Python's and NumPy's.

The rules are written for `np.ndarray` and for Python / NumPy numbers. A value of another type can run
through them and give a wrong number without any error: `np.matrix` turns `*` into a matrix product,
a masked array's rules ignore the mask (masked entries get a gradient), and a Dask array, a pandas
Series or a `Fraction` is taken for an object with private fields, whose "gradient" is an empty
`Tangent`. So the API refuses these values where they enter (arguments, tangents, cotangents) and
where they leave (results), anywhere inside the lists, tuples, dicts and objects it is given, with
an error that names the type, the place and the conversion to make.

Dask and CuPy arrays (issue 15) are accepted by the APIs whose derivatives stay in their library
(`LAZY_APIS`: jvp, vjp, grad, value_and_grad), with a numeric dtype: NumPy's dispatch runs the same rules
on them (arrays.py; lazy.py keeps Dask lazy). Every other API, and every other library (pandas, array-API
arrays, torch), is refused as before: support replaces a refusal only with a tested path (tests/test_dask.py,
tests/test_device_arrays.py, which runs on a CPU stand-in for CuPy in CI and on CuPy where a GPU is).
"""
from __future__ import annotations

import functools
import numbers
import types
from typing import Any, Iterable, Optional

import numpy as np

from .arrays import library_of_type
from .errors import UnsupportedInputError
from .tangents import is_data_object

# np.memmap behaves as an ndarray under every operation (it only changes where the data lives).
_ARRAY_SUBCLASSES_OK = (np.memmap,)
# Protocols that mark a value as an array of another library (or a wrapper NumPy converts).
_ARRAY_PROTOCOLS = ("__array__", "__array_interface__", "__array_struct__", "__array_function__", "__array_ufunc__",
                    "__array_namespace__", "__cuda_array_interface__", "__dlpack__", "__dask_graph__")
_PLAIN = (float, int, bool, complex, str, bytes, type(None), np.generic, range, slice)
_FAST = frozenset({float, int, bool, complex, str, bytes, type(None), np.ndarray, np.float64, np.float32, np.int64})
_CODE = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.ModuleType, type, np.ufunc,
         functools.partial)


# The APIs that differentiate Dask arrays (lazily: tests/test_dask.py) and CuPy arrays (on the device:
# tests/test_device_arrays.py); others refuse them.
LAZY_APIS = frozenset({"jvp", "vjp", "grad", "value_and_grad"})


def _library_advice(x: Any, library: str, api_ok: bool) -> Optional[str]:
    """Why a Dask or CuPy array is refused here (an API that does not take them, a dtype with no arithmetic),
    or None."""
    name, how, mode = (("Dask", "x.compute()", " (lazily)") if library == "dask" else
                       ("CuPy", "x.get()", " (on the device)"))
    if not api_ok:
        return (f"{name} arrays are differentiated by mc.jvp, mc.vjp, mc.grad and mc.value_and_grad{mode}, "
                f"not yet by this API; bring the input to NumPy first ({how}) to differentiate with NumPy")
    if x.dtype.kind not in "biufc":
        return f"a {name} array of dtype {x.dtype} has no arithmetic to differentiate; convert with x.astype(float)"
    return None


def _type_name(x: Any) -> str:
    t = type(x)
    mod = t.__module__
    if t is np.matrix:
        return "numpy.matrix"
    if isinstance(x, np.ma.MaskedArray):
        return "numpy.ma.MaskedArray"
    return t.__qualname__ if mod in (None, "builtins") else f"{mod}.{t.__qualname__}"


@functools.lru_cache(maxsize=512)
def _advice(t: type) -> Optional[str]:
    """Why values of type `t` are refused and what to do, or None if the rules handle them (by type only:
    cached, so that a list of many objects costs a dict look-up per item)."""
    if t is np.ndarray or issubclass(t, _PLAIN):
        return None
    if issubclass(t, np.ndarray):
        if issubclass(t, _ARRAY_SUBCLASSES_OK):
            return None
        if issubclass(t, np.ma.MaskedArray):
            return ("the rules do not model a mask (masked entries would get derivatives as if they were data); "
                    "convert with np.asarray(x) (the data), x.filled(value) or x.compressed(), and apply the mask "
                    "inside your function, e.g. with np.where")
        if issubclass(t, np.matrix):
            return ("np.matrix changes what operators mean (* is a matrix product, results stay 2-d), which the "
                    "rules do not model; convert with np.asarray(x) and use @ for matrix products")
        return ("the rules are written for np.ndarray and do not model this subclass's behaviour; "
                "convert with np.asarray(x)")
    if library_of_type(t) in ("dask", "cupy"):
        return None  # NumPy dispatch keeps the derivative in Dask or CuPy (arrays.py, issue 15)
    if (t.__module__ or "").startswith("mooncake_ast"):
        return None  # mc.NoTangent(), mc.Tangent, ...: the API's own values (their fields are looked inside)
    if issubclass(t, numbers.Number):
        return ("only Python and NumPy numbers (int, float, complex, np.float64, ...) are differentiated; "
                "convert with float(x)")
    # (`__array_ufunc__ = None` opts a class *out* of NumPy: a user's data object, differentiated by fields)
    if any(getattr(t, name, None) is not None for name in _ARRAY_PROTOCOLS):
        mod = (t.__module__ or "").split(".")[0]
        how = {"dask": "x.compute() then np.asarray", "pandas": "x.to_numpy()", "cupy": "x.get()",
               "torch": "x.detach().cpu().numpy()"}.get(mod)
        return ("only NumPy arrays are differentiated (other array types, e.g. Dask, CuPy, pandas or "
                "array-API arrays, are not supported yet); convert with np.asarray(x)"
                + (f" ({how})" if how else ""))
    return None


def _children(x: Any) -> Iterable:
    """(key format, items) of what the API looks inside: items of lists, tuples, dicts; fields of objects."""
    t = type(x)
    if t is list or t is tuple or isinstance(x, (list, tuple)):
        return "{}[{}]", enumerate(x)
    if isinstance(x, dict):
        return "{}[{!r}]", x.items()
    fields = getattr(x, "fields", None)  # mc.Tangent / MutableTangent given as a tangent or cotangent
    if isinstance(fields, dict) and (t.__module__ or "").startswith("mooncake_ast"):
        return "{}.{}", fields.items()
    if isinstance(x, _CODE) or not is_data_object(x):
        return "{}.{}", ()
    d = getattr(x, "__dict__", None)
    return "{}.{}", (d.items() if isinstance(d, dict) else ())


def find_foreign(x: Any, where: str, numbers_too: bool = True, lazy_ok: bool = False) -> Optional[tuple]:
    """(place, value, advice) of the first refused value in x (x itself or inside it), or None.

    `numbers_too=False` lets other number types through: a Fraction that is not differentiated (an
    argument outside `argnums`, a jvp argument with no tangent) is a constant like any other.
    `lazy_ok`: the API differentiates Dask arrays (LAZY_APIS)."""
    if type(x) in _FAST:
        return None
    seen = {id(x)}
    stack: list = [(x, where, None, None)]
    while stack:
        v, place, fmt, key = stack.pop()
        if fmt is not None:
            place = fmt.format(place, key)
        why = _advice(type(v))
        if why is not None:
            if numbers_too or not isinstance(v, numbers.Number):
                return place, v, why
            continue
        if isinstance(v, np.ndarray) or isinstance(v, _PLAIN):
            continue
        library = library_of_type(type(v))
        if library in ("dask", "cupy"):
            why = _library_advice(v, library, lazy_ok)
            if why is not None:
                return place, v, why
            continue
        child_fmt, items = _children(v)
        for k, child in items:
            if type(child) in _FAST or id(child) in seen:
                continue
            seen.add(id(child))
            stack.append((child, place, child_fmt, k))
    return None


def refuse_foreign(api: str, fname: str, values: Iterable) -> None:
    """Raise UnsupportedInputError for the first refused value among `values`: (place, value[, numbers_too])."""
    lazy_ok = api in LAZY_APIS
    for place, value, *numbers_too in values:
        found = find_foreign(value, place, *(numbers_too or [True]), lazy_ok=lazy_ok)
        if found:
            place, v, why = found
            raise UnsupportedInputError(f"{api} of {fname}: {place} is a {_type_name(v)}, which mooncake_ast does not "
                                        f"differentiate: {why}")


def arguments(args: tuple, kwargs: dict, numbers_too: Any = True) -> list:
    """The (place, value, numbers_too) triples of a call's arguments; `numbers_too(i)` says whether positional
    argument i is differentiated (keyword arguments are when `numbers_too` is True)."""
    pos = [(f"argument {i}", a, numbers_too if isinstance(numbers_too, bool) else numbers_too(i))
           for i, a in enumerate(args)]
    return pos + [(f"keyword argument {k!r}", v, numbers_too is True) for k, v in kwargs.items()]
