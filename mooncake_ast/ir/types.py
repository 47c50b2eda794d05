"""Abstract values: what the code generator knows about each IR value before the code runs.

Reverse mode writes the pullback a person would write only where it knows what a value
is: `err_bar = g` needs `err` and the result to have the same shape, `b_bar =
g.sum(axis=0)` needs to know which axis `b` was broadcast along, `x_bar[i] += g` needs
`x[i]` to be one float of a float array.  Derived rules are specialised on the
arguments' types (see `type_of_argument`), so these facts hold for every call the
generated module serves, and everything else falls back to the run-time helpers.

The lattice is small on purpose:

* `Num(kind)`: a Python or NumPy scalar; kind is "float", "int" or "bool" (bool and int
  matter because they are never differentiated and because only ints index);
* `Arr(dtype, axes)`: an ndarray with dtype kind ("f", "i", "b", "c", ...) and, per
  axis, "1" (size one), "n" (not size one) or "?" (not known), optionally followed by
  `@size` naming the size symbolically (`n@x.0` is axis 0 of parameter x, `?@x.0-1` is
  that size less one, which `x[1:]` and `x[:-1]` share); `axes is None` when even the
  number of dimensions is unknown.  Specialising on size-one axes (not on sizes) is
  what makes undoing broadcasting static: a non-size-one axis broadcast against another
  non-size-one axis must have the same size, or NumPy would have refused, and two axes of
  the same symbolic size are never broadcast against each other;
* `Tup(items)`: a tuple with per-item types; `RANGE`: a range (its items are ints);
* `Lst(item)`, `Dct(items)`, `Obj(items)`: lists of floats, dicts and objects of named float arrays,
  as parameters that the function only reads;
* `NONE`, and `UNKNOWN` (anything: the generated code decides when it runs).

Inference (ir/inference.py) is a fixpoint over the IR from the parameters' types, the result
types of operations (ir/op_types.py) and phis (joins, here).
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from .. import ops
from .nodes import Call, Const, Value


class AVal:
    """An abstract value."""


@dataclass(frozen=True)
class Num(AVal):
    kind: str  # "float" | "int" | "bool"


@dataclass(frozen=True)
class Arr(AVal):
    dtype: str  # numpy dtype kind: "f", "i", "u", "b", "c", ...
    axes: Optional[tuple]  # per axis "1" | "n" | "?"; None: ndim unknown

    @property
    def ndim(self) -> Optional[int]:
        return None if self.axes is None else len(self.axes)


@dataclass(frozen=True)
class Tup(AVal):
    items: tuple


@dataclass(frozen=True)
class Dct(AVal):
    """A dict with these string keys and item types (a parameter only: nothing writes it)."""

    items: tuple  # ((key, AVal), ...)

    def get(self, key: Any) -> Optional[AVal]:
        return next((t for k, t in self.items if k == key), None)


@dataclass(frozen=True)
class Lst(AVal):
    """A list whose items all have one type (a parameter only: `any:list:f`, a list of Python floats).  The item
    type holds only while nothing writes the list: reverse/typed_lists.py keeps the type only for lists
    the function reads and never writes, aliases or hands on."""

    item: AVal


@dataclass(frozen=True)
class Obj(AVal):
    """An instance of a user class whose fields (instance attributes no class attribute shadows) have
    these names and types (a parameter only: nothing writes it; reverse/typed_objects.py)."""

    items: tuple  # ((field, AVal), ...)

    def get(self, name: Any) -> Optional[AVal]:
        return next((t for k, t in self.items if k == name), None)


@dataclass(frozen=True)
class _Named(AVal):
    name: str

    def __repr__(self) -> str:
        return self.name


UNKNOWN = _Named("UNKNOWN")
NONE = _Named("NONE")
RANGE = _Named("RANGE")
_BOTTOM = _Named("BOTTOM")  # not seen yet (inside the fixpoint only)

FLOAT, INT, BOOL = Num("float"), Num("int"), Num("bool")


def is_float_array(t: AVal) -> bool:
    return isinstance(t, Arr) and t.dtype == "f" and t.axes is not None


def is_real(t: AVal) -> bool:
    """A float scalar or a float array of known rank: plain arithmetic and NumPy serve its adjoint."""
    return t == FLOAT or is_float_array(t)


def differentiable(t: AVal) -> bool:
    """False for values that certainly carry no derivative (ints, bools, ranges, None, their tuples)."""
    if isinstance(t, Num):
        return t.kind == "float"
    if isinstance(t, Arr):
        return t.dtype not in "iub"
    if isinstance(t, Tup):
        return any(differentiable(i) for i in t.items)
    if isinstance(t, Lst):
        return differentiable(t.item)  # (a list of ints: a constant argument's, reverse/constant_args.py)
    return t not in (NONE, RANGE)


# ---------------------------------------------------------------- argument types


def type_of_argument(x: Any) -> AVal:
    tp = type(x)
    if tp is float:
        return FLOAT
    if tp is int:
        return INT
    if tp is bool:
        return BOOL
    if tp is np.ndarray:
        return Arr(x.dtype.kind, tuple("1" if n == 1 else "n" for n in x.shape))
    return UNKNOWN


def decode(kind: str, name: str = "") -> AVal:
    """The type of parameter `name` from its kind string (`num`, `arr:f:n1`, `arr`, ... with `:inactive`)."""
    parts = kind.split(":")
    if parts[0] == "num":
        return FLOAT  # an int or bool argument is promoted by arithmetic: treat it as a number
    if parts[0] == "arr" and len(parts) >= 3 and parts[1] and all(c in "1n" for c in parts[2]):
        return Arr(parts[1], tuple(c if c == "1" or not name else f"n@{name}.{k}" for k, c in enumerate(parts[2])))
    if parts[:3] == ["any", "list", "f"]:
        return Lst(FLOAT)
    if parts[:3] == ["any", "const", "ints"]:  # (constant data, reverse/constant_args.constant_layout)
        return Lst(INT)
    if len(parts) >= 3 and parts[:2] == ["any", "const"] and parts[2].startswith("int_tuples") and \
            parts[2][10:].isdigit():
        return Lst(Tup((INT,) * int(parts[2][10:])))
    if parts[:4] == ["any", "list", "list", "f"]:  # `[[1.0, 2.0], [3.0, 4.0]]`: rows of floats (reverse/row_lists.py)
        return Lst(Lst(FLOAT))
    if len(parts) >= 4 and parts[:3] == ["any", "list", "arr"]:  # `any:list:arr:f.nn`: `[W1, W2, W3]`
        return Lst(Arr("f", tuple(parts[3][2:])))  # (no size symbols: the items' sizes may differ)
    if len(parts) >= 4 and parts[:3] == ["any", "list", "tuple"]:  # `any:list:tuple:f.nn;f.n`: `[(W1, b1), ...]`
        # (no size symbols: the items' sizes differ)
        return Lst(Tup(tuple(FLOAT if code == "num" else Arr("f", tuple(code[2:])) for code in parts[3].split(";"))))
    if len(parts) >= 3 and parts[:2] == ["any", "tuple"]:  # `any:tuple:num;f.nn`: a tuple of floats and float arrays
        return Tup(tuple(FLOAT if code == "num" else decode("arr:" + code.replace(".", ":"), f"{name}.{k}")
                         for k, code in enumerate(parts[2].split(";"))))
    if len(parts) >= 3 and (parts[0], parts[1]) in (("any", "dict"), ("obj", "fields")):
        items = []
        for entry in parts[2].split(";"):
            key, _, code = entry.partition("=")
            key = int(key[1:]) if key.startswith("#") else key  # (an int key: reverse/int_keys.py)
            items.append((key, FLOAT if code == "num" else decode("arr:" + code.replace(".", ":"), f"{name}.{key}")))
        return Dct(tuple(items)) if parts[0] == "any" else Obj(tuple(items))
    return UNKNOWN


def not_one(d: str) -> bool:
    return d[0] == "n"


def size_symbol(d: str) -> Optional[str]:
    return d.split("@", 1)[1] if "@" in d else None


def _join_axis(a: str, b: str) -> str:
    if a == b:
        return a
    s = size_symbol(a)
    return f"?@{s}" if s is not None and s == size_symbol(b) else "?"


NOT_LITERAL = object()


def literal(v: Value) -> Any:
    """The value of a literal operand (`-1` is `neg(1)` in the IR), or NOT_LITERAL."""
    if isinstance(v, Const):
        return v.value
    if isinstance(v, Call) and v.callee() is operator.neg and len(v.args) == 1 and isinstance(v.args[0], Const) and \
            type(v.args[0].value) is int:
        return -v.args[0].value
    return NOT_LITERAL


def _sliced(d: str, sl: Any) -> str:
    """The axis `d[start:stop]` gives for constant start >= 0 and stop < 0 (or None): its size less start - stop."""
    s = size_symbol(d)
    if not isinstance(sl, Call) or sl.callee() is not slice or len(sl.args) != 3:
        return "?"
    start, stop, step = (literal(a) for a in sl.args)
    if start in (None, 0) and stop is None and step in (None, 1) and type(start) is not bool and \
            type(step) is not bool:
        return d  # (`m[:, 0]`: every item of the axis, whatever its size)
    if s is None or step not in (None, 1) or not (start is None or type(start) is int and start >= 0) or \
            not (stop is None or type(stop) is int and stop < 0):
        return "?"
    k = (start or 0) - (stop or 0)
    if k == 0:
        return d
    base, _, less = s.partition("-")
    return f"?@{base}-{int(less or 0) + k}"


# ---------------------------------------------------------------- joins and broadcasting


def join(a: AVal, b: AVal) -> AVal:
    if a is _BOTTOM:
        return b
    if b is _BOTTOM or a == b:
        return a
    if isinstance(a, Num) and isinstance(b, Num):
        return FLOAT if "float" in (a.kind, b.kind) else INT
    if isinstance(a, Arr) and isinstance(b, Arr) and a.dtype == b.dtype:
        if a.axes is None or b.axes is None or len(a.axes) != len(b.axes):
            return Arr(a.dtype, None)
        return Arr(a.dtype, tuple(_join_axis(x, y) for x, y in zip(a.axes, b.axes)))
    if isinstance(a, Tup) and isinstance(b, Tup) and len(a.items) == len(b.items):
        return Tup(tuple(join(x, y) for x, y in zip(a.items, b.items)))
    return UNKNOWN


def broadcast_axes(shapes: list) -> Optional[tuple]:
    """The axes of the broadcast result of operands with these axes (scalars are `()`)."""
    if any(s is None for s in shapes):
        return None
    n = max((len(s) for s in shapes), default=0)
    out = []
    for k in range(n):
        col = [s[len(s) - n + k] for s in shapes if len(s) - n + k >= 0]
        known = [c for c in col if not_one(c)]
        if known:
            out.append(known[0])
        elif all(c == "1" for c in col):
            out.append("1")
        else:
            sizes = {size_symbol(c) for c in col if c != "1"}
            out.append(f"?@{sizes.pop()}" if len(sizes) == 1 and None not in sizes else "?")
    return tuple(out)


def _dtype(t: AVal) -> Optional[str]:
    if isinstance(t, Arr):
        return t.dtype
    if isinstance(t, Num):
        return {"float": "f", "int": "i", "bool": "b"}[t.kind]
    return None


def _axes(t: AVal) -> Optional[tuple]:
    if isinstance(t, Arr):
        return t.axes
    return () if isinstance(t, Num) else None


# ---------------------------------------------------------------- reads of parts

def basic_index(index_t: AVal, index_v: Value) -> Optional[list]:
    """The parts of a basic index (`i`, `a:b`, `i, a:b`, `:, None`) as "int" / "slice" / "new" (a new axis of
    size one), or None for anything else.  No position repeats: `a_bar[index] += g` is right for each."""
    if isinstance(index_v, Const) and index_v.value is None:
        return ["new"]
    parts = list(index_t.items) if isinstance(index_t, Tup) else [index_t]
    out = []
    for p in parts:
        if p == INT:
            out.append("int")
        elif p == SLICE:
            out.append("slice")
        elif p == NONE:
            out.append("new")
        else:
            return None
    return out


SLICE = _Named("SLICE")


def int_list_literal(v: Value) -> Optional[tuple]:
    """The ints of a list display of int literals (`[2, 0]`, `[0, -1]`: an index NumPy reads as an int array), or None."""
    if not (isinstance(v, Call) and v.callee() is ops.list_of and v.args and not v.kwargs):
        return None
    out = tuple(literal(a) for a in v.args)
    return out if all(type(k) is int for k in out) else None


def getitem_type(a: AVal, i: AVal, iv: Value) -> AVal:
    k = literal(iv)
    if isinstance(a, Tup) and type(k) is int and -len(a.items) <= k < len(a.items):
        return a.items[k]  # (`x.shape[-1]` too: a negative literal is neg(1) in the IR)
    if isinstance(a, Tup) and i in (INT, BOOL) and a.items and all(t == a.items[0] for t in a.items):
        return a.items[0]  # (`for v in values` over a tuple whose items have one type: each trip's item has it)
    if a is RANGE and i == INT:
        return INT
    if a is RANGE and i == SLICE:
        return RANGE  # (`range(n)[1:]`: a range)
    if isinstance(a, Dct) and isinstance(iv, Const) and a.get(iv.value) is not None:
        return a.get(iv.value)
    if isinstance(a, Lst) and i == INT:
        return a.item
    if isinstance(a, Arr) and a.axes and int_list_literal(iv) is not None:  # `x[[2, 0]]`: the rows listed, a copy
        return Arr(a.dtype, ("1" if len(int_list_literal(iv)) == 1 else "n",) + a.axes[1:])
    if isinstance(a, Arr) and a.axes and isinstance(i, Lst) and i.item == INT:
        return Arr(a.dtype, ("?",) + a.axes[1:])  # (`x[idx]` of a list of ints: the rows listed, a copy; maybe none)
    if isinstance(a, Arr) and a.axes is not None and isinstance(i, Arr) and i.axes and i.dtype in "iub":
        if i.dtype in "iu":  # `x[idx]`: one item (or row) per position of idx
            return Arr(a.dtype, i.axes + a.axes[1:])
        if len(i.axes) <= len(a.axes):  # `x[mask]`: the items where the mask holds, flattened over its axes
            # (as many as every selection by the same mask, where nothing writes it: inference.mark_masks)
            sym = getattr(iv, "selection_size", None)
            return Arr(a.dtype, ("?" if sym is None else f"?@{sym}",) + a.axes[len(i.axes):])
        return UNKNOWN
    if isinstance(a, Arr) and a.axes is not None and isinstance(i, Tup) and 0 < len(i.items) <= len(a.axes) and all(
            isinstance(t, Arr) and t.dtype in "iu" and t.axes for t in i.items):
        # `x[rows, cols]` with int arrays (advanced indexing of the leading axes): their broadcast shape, then
        # the axes not indexed
        axes = broadcast_axes([t.axes for t in i.items])
        return Arr(a.dtype, axes + a.axes[len(i.items):]) if axes is not None else UNKNOWN
    if isinstance(a, Arr) and a.axes is not None:
        parts = basic_index(i, iv)
        if parts is None or len([p for p in parts if p != "new"]) > len(a.axes):
            return UNKNOWN if a.dtype == "f" else Arr(a.dtype, None)
        axes = list(a.axes)
        index_values = iv.args if isinstance(iv, Call) and iv.callee() is ops.tuple_of else [iv]
        out = []
        axis = 0  # (the next axis of a an index part takes; a new axis takes none)
        for k, p in enumerate(parts):
            if p == "new":
                out.append("1")
                continue
            if p == "slice":
                out.append(_sliced(axes[axis], index_values[k] if k < len(index_values) else None))
            axis += 1
        out.extend(axes[axis:])
        if not out:
            return {"f": FLOAT, "i": INT, "u": INT, "b": BOOL}.get(a.dtype, UNKNOWN)
        return Arr(a.dtype, tuple(out))
    return UNKNOWN


def _getattr(a: AVal, name: Any) -> AVal:
    if isinstance(a, Obj) and a.get(name) is not None:
        return a.get(name)  # type: ignore[return-value]
    if isinstance(a, Arr):
        if name in ("shape", "strides"):
            return Tup((INT,) * len(a.axes)) if a.axes is not None else UNKNOWN
        if name in ("size", "ndim", "itemsize", "nbytes"):
            return INT
        if name == "T" and a.axes is not None:
            return Arr(a.dtype, a.axes[::-1])
    return UNKNOWN


# Helpers of generated code that compute elementwise in their operands and give floats (rules/helpers.py
# adds pow_deriv): derivatives of our own output are typed like the code they came from (issue 10).
FLOAT_ELEMENTWISE: set = set()
