"""Batched tangents: many forward-mode directions through one run of generated forward code.

`Batched(data)` stands for a tangent of item shape `data.shape[1:]`, one item per direction.  It
behaves like one tangent of that shape for the operations forward code applies to tangents --
elementwise arithmetic with primal values, `@` and `np.dot` with primal matrices, indexing and
item assignment, `np.sum` / `np.mean` over the item's axes, reshapes and transposes -- and refuses
everything else with a TypeError (NumPy's answer to NotImplemented), comparisons and truth tests
included.  Each accepted operation is written so that its result is, item for item, what the
operation gives on one tangent; where that would depend on a case it does not handle (advanced
indices that NumPy would move to the front, an assignment that would broadcast across the batch),
it refuses.

What it cannot refuse is code that looks at a tangent's type (`isinstance(t, np.ndarray)`) and then
does something else with it.  So batched passes are checked against ordinary passes (higher.py),
and every pass records a `Trace` (`Batched(data, trace)`; results carry the trace on): each operation
on a batched tangent, with the shapes and kinds of its operands -- all the meaning of the operation
depends on -- and a mark where code asked `isinstance` of a batch.  higher.py trusts an unmarked
pass whose trace it has checked before, and checks the others.
(`type(t) is ...` tests and `hasattr` cannot be seen; the run-time helpers in forward/, tangents.py and
rules/ use neither to pick another meaning for a tangent, only for fast paths for floats that fall back
otherwise.)
"""
from __future__ import annotations

from typing import Any

import numpy as np

_AXIS_FUNCS = {np.sum, np.mean}
_SUM = np.sum


def _desc(o: Any) -> Any:
    """What of an operand the meaning of a batched operation depends on: its type and shape."""
    t = type(o)
    if t is np.ndarray:
        return (o.shape, o.dtype.char)
    if t is Batched:
        return ("batched", o.data.shape)
    if t is float or t is int:
        return t
    return (t, np.shape(o))


_NONE = object()  # no operand


def _binary(ufunc: Any, x: "Batched", o: Any, reflected: bool) -> Any:
    """`ufunc(x, o)` (`ufunc(o, x)` where reflected) for the common operands, else None (the general way).

    The common operands combine with the batch's data directly: numbers, arrays of lower rank than the
    data (they broadcast against one item without reaching the batch axis) and batches of exactly this
    shape (the same directions, item for item)."""
    data = x.data
    t = type(o)
    if t is float or t is int:
        desc = t
    elif t is np.ndarray:
        if o.ndim >= data.ndim:
            return None
        desc = o.shape
    elif t is Batched:
        if o.data.shape != data.shape:
            return None
        desc = ("batched", data.shape)
        o = o.data
    elif isinstance(o, (np.floating, np.integer)):
        desc = t
    else:
        return None
    tr = x.tr
    if tr is not None:
        tr.append((ufunc, reflected, data.shape, desc))
    return Batched(ufunc(o, data) if reflected else ufunc(data, o), tr)


def _arith(ufunc: Any, reflected: bool) -> Any:
    """The operator method `x op o` (or `o op x`) of Batched for an elementwise ufunc: _binary's common operands
    written out here (one Python call less per operation: forward code does little else with a batch), the rest
    through __array_ufunc__."""

    def method(self: "Batched", o: Any) -> Any:
        data = self.data
        t = type(o)
        if t is float or t is int:
            desc = t
        elif t is np.ndarray and o.ndim < data.ndim:
            desc = o.shape
        elif t is Batched and o.data.shape == data.shape:
            desc = ("batched", data.shape)
            o = o.data
        else:
            r = _binary(ufunc, self, o, reflected)
            if r is not None:
                return r
            return ufunc(o, self) if reflected else ufunc(self, o)  # the general way: __array_ufunc__
        tr = self.tr
        if tr is not None:
            tr.append((ufunc, reflected, data.shape, desc))
        return Batched(ufunc(o, data) if reflected else ufunc(data, o), tr)

    return method


def _inplace(ufunc: Any) -> Any:
    """The in-place operator method `x op= o` of Batched: x's own data changes, as an array tangent's would
    (code holding x elsewhere sees it), and the result keeps x's shape (NumPy refuses otherwise)."""

    def method(self: "Batched", o: Any) -> Any:
        data = self.data
        t = type(o)
        if t is Batched:
            if o.data.shape[0] != data.shape[0] or o.ndim > self.ndim:
                raise TypeError("an in-place update of a batched tangent by a batch that does not fit it")
            v = _lift(o, self.ndim)
        else:
            v = o if t is float or t is int or isinstance(o, (np.floating, np.integer)) else np.asarray(o)
            if np.ndim(v) >= data.ndim:
                raise TypeError("an in-place update of a batched tangent that would reach the batch axis")
        if self.tr is not None:
            self.tr.append((ufunc, "in place", data.shape, _desc(o)))
        ufunc(data, v, out=data)
        return self

    return method


class Trace(list):
    """The operations of one batched pass, in order (what higher.py compares), and whether any code asked
    `isinstance` of a batched tangent during the pass (`inspected`)."""

    inspected = False  # (set on the instance when it happens)


class Batched:
    """A stack of tangents along a leading batch axis that is invisible to the code using it."""

    __slots__ = ("data", "tr")

    def __init__(self, data: np.ndarray, tr: Any = None) -> None:
        self.data = data
        self.tr = tr  # the pass's trace (a Trace), or None: not recorded

    # Code that looks at a tangent's type can treat a batch otherwise than one tangent, without an operation
    # of the batch's own to refuse.  CPython asks an object for `__class__` when `isinstance(obj, cls)` finds
    # type(obj) is not cls or a subclass of it: that marks the pass, whose result higher.py then never trusts
    # without a probe.  (No `__getattr__` hook for missing attributes: it would slow every attribute access.)
    @property
    def __class__(self) -> type:  # type: ignore[override]
        tr = self.tr
        if tr is not None:
            tr.inspected = True
        return Batched

    def _new(self, data: Any, op: Any, o: Any = _NONE, desc: Any = None) -> "Batched":
        """A batched result of this pass, recorded in its trace: op applied to self (and operand o)."""
        tr = self.tr
        if tr is not None:
            if desc is None:
                t = type(o)
                desc = (o.shape, o.dtype.char) if t is np.ndarray else t if (t is float or t is int or o is _NONE) \
                    else _desc(o)
            tr.append((op, self.data.shape, desc))
        return Batched(data, tr)

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
        return self._new(np.transpose(self.data, (0,) + tuple(range(self.data.ndim - 1, 0, -1))), "T")

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d batched tangent")
        return self.shape[0]

    def __iter__(self) -> Any:
        for k in range(len(self)):
            yield self._new(self.data[:, k], "iter")

    def __array__(self, *a: Any, **k: Any) -> Any:
        raise TypeError("a batched tangent cannot become one array")

    def __float__(self) -> float:
        raise TypeError("a batched tangent is not one number")

    def __bool__(self) -> bool:
        raise TypeError("a batched tangent has no truth value")

    def _compare(self, o: Any) -> Any:
        raise TypeError("a batched tangent is not compared (one answer per direction would be needed)")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _compare
    __hash__ = object.__hash__  # by identity, as code that keys tangents by object uses them

    def copy(self) -> "Batched":
        return self._new(self.data.copy(), "copy")

    def __copy__(self) -> "Batched":
        return self.copy()

    def __deepcopy__(self, memo: Any) -> "Batched":
        return self.copy()

    def reshape(self, *shape: Any) -> "Batched":
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        shape = (shape,) if not isinstance(shape, (tuple, list)) else tuple(shape)
        return self._new(self.data.reshape((self.data.shape[0],) + shape), "reshape", desc=shape)

    def sum(self, axis: Any = None, keepdims: bool = False) -> "Batched":
        return _reduce(np.sum, self, axis, keepdims)

    def mean(self, axis: Any = None, keepdims: bool = False) -> "Batched":
        return _reduce(np.mean, self, axis, keepdims)

    # indexing: the batch axis stays in front
    def __getitem__(self, idx: Any) -> "Batched":
        full, desc = _index(idx)
        return self._new(self.data[full], "getitem", desc=desc)

    def __setitem__(self, idx: Any, value: Any) -> None:
        full, desc = _index(idx)
        if self.tr is not None:
            self.tr.append(("setitem", self.data.shape, (desc, _desc(value))))
        if type(value) is Batched:
            n = self.data.shape[0]
            target = self.data[full].shape  # (n, *the item's target shape)
            v = value.data
            if v.shape[0] != n or v.ndim > len(target):
                raise TypeError("a batched value that does not fit the batched target")
            value = v.reshape((n,) + (1,) * (len(target) - v.ndim) + v.shape[1:])
        elif isinstance(value, np.ndarray) or not isinstance(value, (float, int, np.number)):
            value = np.asarray(value)  # a constant: the same for every direction (broadcasts from the right)
            if value.ndim >= self.data[full].ndim:
                raise TypeError("an assigned constant of the batched target's rank or more")
        self.data[full] = value

    # arithmetic: the common operands directly (see _arith), the rest through __array_ufunc__
    __add__ = _arith(np.add, False)
    __radd__ = _arith(np.add, True)
    __sub__ = _arith(np.subtract, False)
    __rsub__ = _arith(np.subtract, True)
    __mul__ = _arith(np.multiply, False)
    __rmul__ = _arith(np.multiply, True)
    __truediv__ = _arith(np.true_divide, False)
    __rtruediv__ = _arith(np.true_divide, True)
    __iadd__ = _inplace(np.add)
    __isub__ = _inplace(np.subtract)
    __imul__ = _inplace(np.multiply)
    __itruediv__ = _inplace(np.true_divide)

    def __neg__(self) -> Any: return self._new(-self.data, "neg")
    def __pos__(self) -> Any: return self
    def __matmul__(self, o: Any) -> Any: return _matmul(self, o)
    def __rmatmul__(self, o: Any) -> Any: return _matmul(o, self)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method != "__call__" or kwargs or ufunc.nout != 1:
            return NotImplemented
        if ufunc is _MATMUL:
            return _matmul(*inputs)
        if ufunc.signature is not None:
            return NotImplemented
        if len(inputs) == 2:  # the common case: a batched tangent and a primal value (or two tangents)
            a, b = inputs
            if type(b) is Batched and type(a) is np.ndarray:  # (`h * dx`: an array on the left, the usual way here)
                data = b.data
                tr = b.tr
                k = a.ndim
                if k < data.ndim:
                    if tr is not None:
                        tr.append((ufunc, True, data.shape, a.shape))
                    return Batched(ufunc(a, data), tr)
                if tr is not None:  # (as _new records it)
                    tr.append((ufunc, data.shape, ("left", (a.shape, a.dtype.char))))
                lifted = data if data.ndim == k + 1 else data.reshape((data.shape[0],) + (1,) * (k + 1 - data.ndim) + data.shape[1:])
                return Batched(ufunc(a, lifted), tr)
            if type(a) is Batched:
                r = _binary(ufunc, a, b, False)
                if r is not None:
                    return r
                if type(b) is np.ndarray:  # of higher rank than a's item: a's item goes up to b's rank
                    return a._new(ufunc(_lift(a, b.ndim), b), ufunc, b)
            elif type(b) is Batched:
                r = _binary(ufunc, b, a, True)
                if r is not None:
                    return r
                if type(a) is np.ndarray:
                    return b._new(ufunc(a, _lift(b, a.ndim)), ufunc, desc=("left", _desc(a)))
        elif len(inputs) == 1:
            return inputs[0]._new(ufunc(inputs[0].data), ufunc)
        batched = [x for x in inputs if type(x) is Batched]
        n = batched[0].data.shape[0]
        if any(x.data.shape[0] != n for x in batched):
            return NotImplemented
        k = max(np.ndim(x) if type(x) is not Batched else x.ndim for x in inputs)
        args = [_lift(x, k) if type(x) is Batched else x for x in inputs]
        return batched[0]._new(ufunc(*args), ufunc, desc=tuple(_desc(x) for x in inputs))

    def __array_function__(self, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
        if func is _SUM and len(args) == 1 and type(args[0]) is Batched and (not kwargs or _AXIS_KEYWORDS.issuperset(kwargs)):
            x = args[0]
            if kwargs.get("axis") is None and not kwargs.get("keepdims", False):  # (a total: _reduce's, written out)
                data = x.data
                axes = tuple(range(1, data.ndim))
                tr = x.tr
                if tr is not None:
                    tr.append((func, data.shape, (axes, False)))
                return Batched(np.add.reduce(data, axis=axes), tr)
            return _reduce(func, x, kwargs.get("axis"), kwargs.get("keepdims", False))
        if func in _AXIS_FUNCS and len(args) == 1 and type(args[0]) is Batched \
                and (not kwargs or _AXIS_KEYWORDS.issuperset(kwargs)):
            return _reduce(func, args[0], kwargs.get("axis"), kwargs.get("keepdims", False))
        if func is np.dot and len(args) == 2 and not kwargs:
            return _matmul(*args)
        if func is np.reshape and type(args[0]) is Batched and len(args) == 2 and not kwargs:
            return args[0].reshape(args[1])
        if func is np.zeros_like and len(args) == 1 and not kwargs:
            return args[0]._new(np.zeros_like(args[0].data), "zeros_like")
        return NotImplemented


_AXIS_KEYWORDS = frozenset({"axis", "keepdims"})


def _lift(x: Batched, k: int) -> np.ndarray:
    """x's data with its item brought up to rank k (axes of length one in front of the item's), so that it
    broadcasts against operands of rank k item by item, never against the batch axis."""
    d = x.data
    return d if d.ndim == k + 1 else d.reshape((d.shape[0],) + (1,) * (k + 1 - d.ndim) + d.shape[1:])


_BASIC = (int, np.integer, slice)


def _index(idx: Any) -> tuple:
    """(the index of the batched data for the item's index `idx`, what the trace records of it).

    The batch axis goes in front as a full slice.  That keeps NumPy's meaning for basic indices (numbers,
    slices, None, ...) and for advanced ones (integer and boolean arrays) that stand next to each other;
    advanced indices apart from each other would be moved before the batch axis, so they are refused."""
    parts = idx if type(idx) is tuple else (idx,)
    desc = []
    advanced = []
    for k, p in enumerate(parts):
        if isinstance(p, Batched):
            raise TypeError("indexing with a batched tangent")
        if isinstance(p, (bool, np.bool_)):
            raise TypeError("a boolean scalar index of a batched tangent")
        if isinstance(p, _BASIC):
            desc.append(type(p) if type(p) is not slice else (p.start, p.stop, p.step))
            if not isinstance(p, slice):
                advanced.append((k, False))
        elif p is None or p is Ellipsis:
            desc.append(p)
        else:
            a = np.asarray(p)
            if a.dtype.kind not in "biu":
                raise TypeError("a batched tangent indexed by something other than integers, slices and masks")
            desc.append((a.shape, a.dtype.kind))
            advanced.append((k, True))
    if any(is_array for _, is_array in advanced):  # integers count as advanced indices next to arrays
        pos = [k for k, _ in advanced]
        if pos[-1] - pos[0] != len(pos) - 1:
            raise TypeError("advanced indices of a batched tangent that are not next to each other")
    return (slice(None),) + parts, tuple(desc)


def _reduce(func: Any, x: Batched, axis: Any, keepdims: bool) -> Batched:
    if axis is None:
        axes = tuple(range(1, x.data.ndim))
    else:
        axes = tuple((a % x.ndim) + 1 for a in (axis if isinstance(axis, tuple) else (axis,)))
    if func is np.sum:  # (np.sum of an array is this reduction, without the dispatch)
        return x._new(np.add.reduce(x.data, axis=axes, keepdims=keepdims), func, desc=(axes, keepdims))
    return x._new(func(x.data, axis=axes, keepdims=keepdims), func, desc=(axes, keepdims))


def _matmul(a: Any, b: Any) -> Any:
    """a @ b with one operand batched (matrix and vector operands of at most two item dimensions)."""
    if type(b) is Batched:
        if type(a) is Batched:
            return NotImplemented
        if type(a) is not np.ndarray:
            a = np.asarray(a)
        d = b.data
        k, ka = d.ndim - 1, a.ndim
        if k == 0 or ka == 0 or ka > 2 or k > 2:
            return NotImplemented
        tr = b.tr
        if tr is not None:
            tr.append(("rmatmul", d.shape, (a.shape, a.dtype.char)))
        if k == 1:  # (each direction a row: the rows times a's transpose)
            return Batched(d @ (a.T if ka == 2 else a), tr)
        return Batched(np.matmul(a, d), tr)
    if type(a) is not Batched:
        return NotImplemented
    b = np.asarray(b)
    d = a.data
    k, kb = d.ndim - 1, b.ndim
    if k == 0 or kb == 0 or k > 2 or kb > 2:
        return NotImplemented
    tr = a.tr
    if tr is not None:
        tr.append(("matmul", d.shape, (b.shape, b.dtype.char)))
    return Batched(np.matmul(d, b), tr)


_MATMUL = np.matmul


def unbatch(t: Any, n: int, like: Any) -> np.ndarray:
    """The stacked array (n, *shape) of a batched result `t` for an output shaped like `like`."""
    if type(t) is Batched:
        return t.data
    if t is None or (isinstance(t, (int, float, np.ndarray, np.generic)) and not np.any(t)):
        return np.zeros((n,) + np.shape(like))  # the output does not depend on the tangents
    raise TypeError("not a batched tangent")
