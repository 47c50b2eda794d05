"""Which values are arrays of a library whose arithmetic the rules model: NumPy, Dask, CuPy (issue 15).

The rules and the run-time helpers are NumPy code. Dask and CuPy arrays implement NumPy's dispatch
protocols (`__array_function__`, `__array_ufunc__`), so the same code runs on them and keeps its values
in their library: a Dask gradient is a lazy graph, a CuPy one lives on the GPU. Where a helper decides
its path by a type check (`isinstance(x, np.ndarray)`), it asks this module instead, so that a Dask
array takes the array path and never the "object with fields" path (whose tangent would be an empty
`Tangent`). CuPy arrays change in place like NumPy's (`mutable_in_place`: forward tangents are written where
they are), Dask arrays are values; neither may be converted to NumPy inside a derivative (`as_array`).

Nothing here imports Dask or CuPy: a value's type module (`dask.array.core`, `cupy...`) says which
library it comes from, and only then is its class compared with the library's, so NumPy-only users
pay one dict look-up per type.
"""
from __future__ import annotations

import functools
import sys
from typing import Any, Optional

import numpy as np


def _dask_array_type() -> Optional[type]:
    mod = sys.modules.get("dask.array")
    return getattr(mod, "Array", None) if mod is not None else None


def _cupy_array_type() -> Optional[type]:
    mod = sys.modules.get("cupy")
    return getattr(mod, "ndarray", None) if mod is not None else None


_LIBRARIES = {"dask": _dask_array_type, "cupy": _cupy_array_type}
_REGISTERED: dict = {}  # array type -> the library whose semantics it has (register_array_type)
_NAMESPACES: dict = {}  # array type -> the module of its library's functions, where it is not the library's


def register_array_type(t: type, library: str, namespace: Any = None) -> None:
    """Treat arrays of type `t` as those of `library` ("cupy": strict device arrays, "dask": lazy ones), whose
    functions (e.g. `add.at`) are in the module `namespace` (default: the library's own).

    For array types that follow one of these libraries' rules without being its class: a library's
    subclass in another module, or tests/strict_device_array.py's CPU stand-in for a GPU library."""
    if library not in _LIBRARIES:
        raise ValueError(f"unknown array library {library!r}; known: {sorted(_LIBRARIES)}")
    _REGISTERED[t] = library
    if namespace is not None:
        _NAMESPACES[t] = namespace
    library_of_type.cache_clear()


def add_at(out: Any, index: Any, values: Any) -> None:
    """`np.add.at(out, index, values)` (repeated positions add) in out's library: NumPy dispatch does not reach
    a ufunc's methods on CuPy arrays, so CuPy's own `add.at` (`cupyx.scatter_add` before CuPy 13)."""
    if isinstance(out, np.ndarray):
        np.add.at(out, index, values)
        return
    t = type(out)
    namespace = _NAMESPACES.get(t) or sys.modules.get(library_of_type(t) or "")
    at = getattr(getattr(namespace, "add", None), "at", None)
    if at is None:
        import cupyx  # type: ignore[import-not-found]

        at = cupyx.scatter_add
    at(out, index, values)


@functools.lru_cache(maxsize=256)
def library_of_type(t: type) -> Optional[str]:
    """"numpy", "dask", "cupy" for the array types of those libraries (NumPy: np.ndarray itself only, not
    its subclasses, which foreign.py judges), else None."""
    if t is np.ndarray:
        return "numpy"
    if t in _REGISTERED:
        return _REGISTERED[t]
    top = (t.__module__ or "").split(".")[0]
    known = _LIBRARIES.get(top)
    if known is None:
        return None
    cls = known()  # the library is imported already: a value of its type exists
    return top if cls is not None and issubclass(t, cls) else None


def is_array(x: Any) -> bool:
    """Is x an array of a library the rules model (np.ndarray, a Dask array, a CuPy array)?"""
    t = type(x)
    return t is np.ndarray or isinstance(x, np.ndarray) or library_of_type(t) is not None


def is_other_array(x: Any) -> bool:
    """Is x an array of a modelled library other than NumPy (Dask, CuPy)? Such values must not be
    converted with np.asarray/float() inside a derivative: that would compute (Dask) or copy to the host
    (CuPy), or fail."""
    t = type(x)
    return t is not np.ndarray and library_of_type(t) not in (None, "numpy")


def mutable_in_place(x: Any) -> bool:
    """Is x an array that in-place operations change (NumPy's, CuPy's), so that its tangent must be storage
    of its own, written where x is written? (A Dask array is a value: `a += b` makes a new graph.)"""
    t = type(x)
    return t is np.ndarray or isinstance(x, np.ndarray) or library_of_type(t) == "cupy"


def is_lazy(x: Any) -> bool:
    """Is x a Dask array (a graph, computed only when asked)?"""
    return library_of_type(type(x)) == "dask"


def as_array(x: Any) -> Any:
    """np.asarray(x), except that an array of another modelled library (Dask, CuPy) stays as it is: a helper that
    only needs "an array" must not compute a Dask graph or copy a CuPy array to the host."""
    return x if is_other_array(x) else np.asarray(x)


def in_library_of(values: tuple) -> tuple:
    """`np.asarray` of each value, unless one is an array of another modelled library (Dask, CuPy): then the
    arrays are left as they are and numbers and NumPy arrays become arrays of that library
    (`np.asarray(v, like=...)` dispatches there), so that a helper's arithmetic stays in it.

    For NumPy values this is exactly `tuple(np.asarray(v) for v in values)`."""
    other = next((v for v in values if is_other_array(v)), None)
    if other is None:
        return tuple(np.asarray(v) for v in values)
    return tuple(v if is_other_array(v) else np.asarray(v, like=other) for v in values)
