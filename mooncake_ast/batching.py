"""Batched tangents: many forward-mode directions through one run of generated forward code.

`Batched(data)` stands for a tangent of item shape `data.shape[1:]`, one item per direction.  It
behaves like one tangent of that shape for the operations forward code applies to tangents --
elementwise arithmetic with primal values, `@` and `np.dot` with primal matrices, indexing and
item assignment, `np.sum` / `np.mean` over the item's axes, reshapes and transposes -- and refuses
everything else with a TypeError (NumPy's answer to NotImplemented).  jacfwd runs the batched pass
and checks it against one ordinary pass in a random direction (higher.py), so an operation that
slipped through with the wrong meaning costs speed (a fallback to one pass per direction), never
a wrong Jacobian.
"""
from __future__ import annotations

from typing import Any

import numpy as np

_AXIS_FUNCS = {np.sum, np.mean}


class Batched:
    """A stack of tangents along a leading batch axis that is invisible to the code using it."""

    __slots__ = ("data",)

    def __init__(self, data: np.ndarray) -> None:
        self.data = data

    # the item's view of itself
    @property
    def shape(self) -> tuple:
        return self.data.shape[1:]

    @property
    def ndim(self) -> int:
        return self.data.ndim - 1

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def dtype(self) -> Any:
        return self.data.dtype

    @property
    def T(self) -> "Batched":
        return Batched(np.transpose(self.data, (0,) + tuple(range(self.data.ndim - 1, 0, -1))))

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d batched tangent")
        return self.shape[0]

    def __array__(self, *a: Any, **k: Any) -> Any:
        raise TypeError("a batched tangent cannot become one array")

    def __float__(self) -> float:
        raise TypeError("a batched tangent is not one number")

    def __bool__(self) -> bool:
        raise TypeError("a batched tangent has no truth value")

    def copy(self) -> "Batched":
        return Batched(self.data.copy())

    def reshape(self, *shape: Any) -> "Batched":
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return Batched(self.data.reshape((self.data.shape[0],) + tuple(shape)))

    def sum(self, axis: Any = None, keepdims: bool = False) -> "Batched":
        return _reduce(np.sum, self, axis, keepdims)

    def mean(self, axis: Any = None, keepdims: bool = False) -> "Batched":
        return _reduce(np.mean, self, axis, keepdims)

    # indexing: the batch axis stays in front
    def __getitem__(self, idx: Any) -> "Batched":
        if isinstance(idx, Batched):
            raise TypeError("indexing with a batched tangent")
        return Batched(self.data[(slice(None),) + (idx if isinstance(idx, tuple) else (idx,))])

    def __setitem__(self, idx: Any, value: Any) -> None:
        value = value.data if isinstance(value, Batched) else value
        self.data[(slice(None),) + (idx if isinstance(idx, tuple) else (idx,))] = value

    # arithmetic: the common operands directly (_plain), the rest through __array_ufunc__
    def __add__(self, o: Any) -> Any:
        d = _plain(self, o)
        return Batched(self.data + d) if d is not None else np.add(self, o)

    def __radd__(self, o: Any) -> Any:
        d = _plain(self, o)
        return Batched(d + self.data) if d is not None else np.add(o, self)

    def __sub__(self, o: Any) -> Any:
        d = _plain(self, o)
        return Batched(self.data - d) if d is not None else np.subtract(self, o)

    def __rsub__(self, o: Any) -> Any:
        d = _plain(self, o)
        return Batched(d - self.data) if d is not None else np.subtract(o, self)

    def __mul__(self, o: Any) -> Any:
        d = _plain(self, o)
        return Batched(self.data * d) if d is not None else np.multiply(self, o)

    def __rmul__(self, o: Any) -> Any:
        d = _plain(self, o)
        return Batched(d * self.data) if d is not None else np.multiply(o, self)

    def __truediv__(self, o: Any) -> Any:
        d = _plain(self, o)
        return Batched(self.data / d) if d is not None else np.true_divide(self, o)

    def __rtruediv__(self, o: Any) -> Any:
        d = _plain(self, o)
        return Batched(d / self.data) if d is not None else np.true_divide(o, self)

    def __neg__(self) -> Any: return Batched(-self.data)
    def __pos__(self) -> Any: return self
    def __matmul__(self, o: Any) -> Any: return _matmul(self, o)
    def __rmatmul__(self, o: Any) -> Any: return _matmul(o, self)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method != "__call__" or kwargs or ufunc.nout != 1:
            return NotImplemented
        if ufunc is np.matmul:
            return _matmul(*inputs)
        if ufunc.signature is not None:
            return NotImplemented
        if len(inputs) == 2:  # the common case: a batched tangent and a primal value (or two tangents)
            a, b = inputs
            if type(a) is Batched:
                d = _plain(a, b)
                if d is not None:
                    return Batched(ufunc(a.data, d))
            else:
                d = _plain(b, a)
                if d is not None:
                    return Batched(ufunc(d, b.data))
        elif len(inputs) == 1:
            return Batched(ufunc(inputs[0].data))
        batched = [x for x in inputs if isinstance(x, Batched)]
        n = batched[0].data.shape[0]
        if any(x.data.shape[0] != n for x in batched):
            return NotImplemented
        k = max(np.ndim(x) if not isinstance(x, Batched) else x.ndim for x in inputs)
        args = [x.data.reshape((n,) + (1,) * (k - x.ndim) + x.shape) if isinstance(x, Batched) else x for x in inputs]
        return Batched(ufunc(*args))

    def __array_function__(self, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
        if func in _AXIS_FUNCS and len(args) == 1 and isinstance(args[0], Batched) \
                and set(kwargs) <= {"axis", "keepdims"}:
            return _reduce(func, args[0], kwargs.get("axis"), kwargs.get("keepdims", False))
        if func is np.dot and len(args) == 2 and not kwargs:
            return _matmul(*args)
        if func is np.reshape and isinstance(args[0], Batched) and len(args) == 2 and not kwargs:
            return args[0].reshape(args[1])
        if func is np.zeros_like and len(args) == 1 and not kwargs:
            return Batched(np.zeros_like(args[0].data))
        return NotImplemented


def _plain(x: Batched, o: Any) -> Any:
    """What to combine with x.data elementwise for `x op o` (either order), or None for the general way.

    Item-wise meaning holds when o broadcasts against one item without reaching the batch axis: a
    number, an array of at most the item's rank, or another batch of exactly x's shape (the same
    directions, item for item)."""
    t = type(o)
    if t is float or t is int:
        return o
    if t is np.ndarray:
        return o if o.ndim < x.data.ndim else None
    if t is Batched:
        return o.data if o.data.shape == x.data.shape else None
    if isinstance(o, (np.floating, np.integer)):
        return o
    return None


def _reduce(func: Any, x: Batched, axis: Any, keepdims: bool) -> Batched:
    if axis is None:
        axis = tuple(range(1, x.data.ndim))
    else:
        axes = axis if isinstance(axis, tuple) else (axis,)
        axis = tuple((a % x.ndim) + 1 for a in axes)
    return Batched(func(x.data, axis=axis, keepdims=keepdims))


def _matmul(a: Any, b: Any) -> Any:
    """a @ b with one operand batched (matrix and vector operands of at most two item dimensions)."""
    if isinstance(a, Batched) and isinstance(b, Batched):
        return NotImplemented
    if isinstance(a, Batched):
        b = np.asarray(b)
        if a.ndim == 0 or b.ndim == 0 or a.ndim > 2 or b.ndim > 2:
            return NotImplemented
        return Batched(np.matmul(a.data, b))
    a = np.asarray(a)
    if b.ndim == 0 or a.ndim == 0 or a.ndim > 2 or b.ndim > 2:
        return NotImplemented
    if b.ndim == 1:
        return Batched(b.data @ (a.T if a.ndim == 2 else a))
    return Batched(np.matmul(a, b.data))


def unbatch(t: Any, n: int, like: Any) -> np.ndarray:
    """The stacked array (n, *shape) of a batched result `t` for an output shaped like `like`."""
    if isinstance(t, Batched):
        return t.data
    if t is None or (isinstance(t, (int, float, np.ndarray, np.generic)) and not np.any(t)):
        return np.zeros((n,) + np.shape(like))  # the output does not depend on the tangents
    raise TypeError("not a batched tangent")
