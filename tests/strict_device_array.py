"""A CPU stand-in for a GPU array library with CuPy's strictness, so that CI (which has no GPU) tests
what CuPy demands of a derivative: values and adjoints never leave the array's library.

CuPy implements NumPy's dispatch protocols but refuses what would silently copy between host and device:
`np.asarray(gpu_array)` raises (use `.get()`), and mixing a NumPy array with a CuPy one in an operation
raises. Reductions and scalar indexing return 0-d arrays, not Python or NumPy scalars; `float()` of a
0-d array works (it synchronises). `DeviceArray` behaves the same way on top of a NumPy array it hides,
and counts the conversions to the host (`.get()`, `float()`, `.item()`), so that a test can see a
derivative that brings values back to the host when it should not.

It is registered with mooncake_ast as a CuPy-like library ("cupy"), which is how the real CuPy is
treated; tests/test_device_arrays.py runs the same family on real CuPy arrays when a GPU is present.
"""
from __future__ import annotations

import numbers

import numpy as np
import numpy.lib.mixins

HOST_READS = {"count": 0}  # explicit copies device -> host (.get(), float(), .item())
HOST_WRITES = {"count": 0}  # explicit copies host -> device (np.asarray(x, like=device_array))
_TO_DEVICE = (np.asarray, np.array, np.asanyarray, np.ascontiguousarray)


class MixedArraysError(TypeError):
    """A NumPy array met a device array in one operation (CuPy raises a TypeError here)."""


def _unwrap(x, where):
    if isinstance(x, DeviceArray):
        return x._a
    if isinstance(x, np.ndarray):
        raise MixedArraysError(f"Unsupported type <class 'numpy.ndarray'> ({where}: a NumPy array of shape "
                               f"{x.shape} mixed with device arrays, as CuPy says)")
    if isinstance(x, (list, tuple)):
        return type(x)(_unwrap(v, where) for v in x)
    if isinstance(x, dict):
        return {k: _unwrap(v, where) for k, v in x.items()}
    return x


def _wrap(x):
    if isinstance(x, np.ndarray):
        return DeviceArray(x)
    if isinstance(x, np.generic) and isinstance(x, (np.number, np.bool_)):
        return DeviceArray(np.asarray(x))  # a device library returns 0-d arrays, not scalars
    if isinstance(x, tuple):
        return tuple(_wrap(v) for v in x)
    if isinstance(x, list):
        return [_wrap(v) for v in x]
    return x


class DeviceArray(numpy.lib.mixins.NDArrayOperatorsMixin):
    """An array "on a device": NumPy's protocols work, implicit conversion to NumPy does not."""

    __slots__ = ("_a", "_base")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, a, base=None):
        self._a = np.asarray(a)
        self._base = base  # the array this one is a view of (CuPy's `.base`), or None

    # -- the refusals CuPy makes
    def __array__(self, *args, **kwargs):
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct "
                        "a NumPy array explicitly.")

    # -- explicit conversions to the host (counted)
    def get(self):
        HOST_READS["count"] += 1
        return self._a.copy()

    def _host_scalar(self, kind):
        HOST_READS["count"] += 1
        if self._a.size != 1:
            raise TypeError(f"only size-1 arrays can be converted to Python scalars ({kind})")
        return kind(self._a.reshape(()))

    def __float__(self):
        return self._host_scalar(float)

    def __int__(self):
        return self._host_scalar(int)

    def __complex__(self):
        return self._host_scalar(complex)

    def __bool__(self):
        return self._host_scalar(bool)

    def __index__(self):
        if self._a.dtype.kind not in "iub":
            raise TypeError("only integer arrays can be indices")
        return self._host_scalar(int)

    def item(self, *args):
        HOST_READS["count"] += 1
        return self._a.item(*args)

    def tolist(self):
        HOST_READS["count"] += 1
        return self._a.tolist()

    # -- NumPy's dispatch
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "at":
            return NotImplemented  # (CuPy's dispatch takes no ufunc methods: cupy.add.at is called directly)
        where = f"np.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
        for x in inputs:
            if not isinstance(x, (DeviceArray, np.ndarray, numbers.Number, np.generic)):
                raise TypeError(f"{where}: unsupported type {type(x)} (CuPy takes arrays and numbers only)")
        out = kwargs.get("out")
        args = _unwrap(inputs, where)
        kw = {k: (_unwrap(v, where) if k != "out" else v) for k, v in kwargs.items()}
        if out is not None:
            kw["out"] = tuple(_unwrap(o, where) for o in out)
        result = getattr(ufunc, method)(*args, **kw)
        if out is not None:
            return out[0] if len(out) == 1 else out
        return _wrap(result)

    def __array_function__(self, func, types, args, kwargs):
        if not all(issubclass(t, (DeviceArray, np.ndarray)) for t in types):
            return NotImplemented
        where = f"np.{func.__name__}"
        if func is np.where and args and not hasattr(args[0], "astype"):  # (a Python bool, say)
            raise AttributeError(f"{where}: the condition must be a device array (CuPy calls its astype)")
        if func is np.where and not all(isinstance(v, (DeviceArray, numbers.Number, np.generic)) for v in args[1:]):
            raise TypeError(f"{where}: unsupported type among {[type(v) for v in args[1:]]} (CuPy's where is a ufunc)")
        kwargs = dict(kwargs)
        kwargs.pop("like", None)
        if func in _TO_DEVICE:  # np.asarray(host, like=device): CuPy's cupy.asarray, an explicit copy to the device
            HOST_WRITES["count"] += 1
            return DeviceArray(func(*(a._a if isinstance(a, DeviceArray) else a for a in args), **kwargs))
        result = func(*_unwrap(args, where), **_unwrap(kwargs, where))
        return _wrap(result)

    # -- the ndarray surface
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    T = property(lambda self: self._view_or_new(self._a.T))
    real = property(lambda self: self._view_or_new(self._a.real))
    imag = property(lambda self: self._view_or_new(self._a.imag))
    strides = property(lambda self: self._a.strides)
    nbytes = property(lambda self: self._a.nbytes)
    itemsize = property(lambda self: self._a.itemsize)

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return (self._view_or_new(row) for row in self._a)

    base = property(lambda self: self._base)

    def _view_or_new(self, result):
        """A result of indexing or a shape method: a view of self (whose base is self's base, or self), or new."""
        if isinstance(result, np.ndarray) and np.shares_memory(result, self._a):
            return DeviceArray(result, self._base if self._base is not None else self)
        return _wrap(result)

    def __getitem__(self, index):
        return self._view_or_new(self._a[_index(index)])

    def __setitem__(self, index, value):
        self._a[_index(index)] = _unwrap(value, "item assignment")

    def __copy__(self):
        return DeviceArray(self._a.copy())

    def __deepcopy__(self, memo):
        return DeviceArray(self._a.copy())

    def __reduce__(self):
        return (DeviceArray, (self._a.copy(),))

    def __repr__(self):
        return f"DeviceArray({self._a!r})"


def _method(name):
    """ndarray's method `name` on the hidden data, as a method of DeviceArray (so that a bound method has
    the array as `__self__` and the ndarray method's name, as CuPy's do)."""
    def method(self, *args, **kwargs):
        where = f"ndarray.{name}"
        return self._view_or_new(getattr(self._a, name)(*_unwrap(args, where), **_unwrap(kwargs, where)))
    method.__name__ = method.__qualname__ = name
    return method


_METHODS = ("all", "any", "argmax", "argmin", "argsort", "astype", "clip", "conj", "conjugate", "copy", "cumprod",
            "cumsum", "diagonal", "dot", "fill", "flatten", "max", "mean", "min", "nonzero", "prod", "ravel",
            "repeat", "reshape", "round", "sort", "squeeze", "std", "sum", "swapaxes", "take", "trace", "transpose",
            "var")
for _name in _METHODS:
    setattr(DeviceArray, _name, _method(_name))


def _index(index):
    """An index with device arrays replaced by their data (NumPy index arrays are accepted, as CuPy does)."""
    if isinstance(index, DeviceArray):
        return index._a
    if isinstance(index, tuple):
        return tuple(i._a if isinstance(i, DeviceArray) else i for i in index)
    return index


def to_device(a) -> DeviceArray:
    return DeviceArray(np.array(a, dtype=float) if isinstance(a, numbers.Number) else np.array(a))


class add:  # noqa: N801  (the library's own `add.at`, as `cupy.add.at`)
    @staticmethod
    def at(out, index, values):
        np.add.at(out._a, _index(index), _unwrap(values, "add.at"))


def register() -> None:
    """Tell mooncake_ast that DeviceArray is an array of a CuPy-like library, whose functions are here."""
    import sys

    from mooncake_ast.arrays import register_array_type
    register_array_type(DeviceArray, "cupy", sys.modules[__name__])
