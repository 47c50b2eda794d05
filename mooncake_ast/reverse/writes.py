"""Writes in reverse mode: what each write overwrites, saved in the forward pass, and the undo in the pullback.

`a[i] = v`, `obj.name = v`, a cell written, `lst.append(x)`, `del a[i]`, `a += b` change an object the forward pass
goes on using, so the pullback, walking back, must see each object as it was before the write: the forward pass
saves what the write overwrites (`save_item`, `save_attr`, ...), and the pullback puts it back and routes the
adjoint of what was written (`setitem_reverse`, `setattr_reverse`, ...). The objects' adjoint storage is shadows'.
"""
from __future__ import annotations

import collections
import copy
import types
from typing import Any

import numpy as np

from ..arrays import is_other_array, mutable_in_place
from ..tangents import MutableTangent, NoTangent, fields_of, is_mutable
from .adjoints import AdjDict, AdjList, AdjTuple, accumulate, unbroadcast
from .part_reads import _flat_positions, getitem_reverse
from .caller_state import _MISSING
from .shadows import ShadowCell, _has_shadow, _local, acc, remember, shadow, take


# ---------------------------------------------------------------- writes: save in the forward pass, undo in the pullback


def save_item(a: Any, i: Any) -> Any:
    """What `a[i] = v` is about to overwrite (a copy for array slices)."""
    if is_other_array(a):
        _refuse_write(a, "item assignment (x[i] = v)")
    if isinstance(a, np.flatiter):
        return save_item(a.base, _flat_positions(a.base, i))
    if isinstance(a, np.ndarray) and a.dtype == object:
        from ..errors import UnsupportedDerivativeError

        # (its adjoint storage would be an array of numbers, which neither an item that is an array nor the
        # reads of its items through iteration or methods follow: zero gradients or broadcasting errors)
        raise UnsupportedDerivativeError("reverse mode of a write into an object array (np.empty(n, dtype=object), "
                                         "a[i] = v) is not supported: object arrays are not differentiated in reverse "
                                         "mode; use a list (or forward mode: mc.jvp, mc.jacfwd)")
    try:
        old = a[i]
    except (KeyError, IndexError):
        return _MISSING
    if isinstance(a, list) and isinstance(i, slice):
        return _SavedSlice(old, len(a))
    return old.copy() if isinstance(old, np.ndarray) and not is_mutable_item(a) else old


class _SavedSlice(list):
    """The items a list's slice held before `a[i:j] = v`, with the list's length then: when v is an iterator, the
    pullback learns from the length how many items the write put in."""

    def __init__(self, items: Any, length_before: int) -> None:
        super().__init__(items)
        self.length_before = length_before


def _refuse_write(a: Any, what: str) -> None:
    """Reverse mode keeps a Dask (CuPy) array's adjoint as a value, with no storage to restore a write into: refused
    in the forward pass, before anything is written."""
    from ..errors import UnsupportedDerivativeError

    lib = type(a).__module__.split(".")[0]
    raise UnsupportedDerivativeError(
        f"reverse mode of {what} into a {lib} array is not supported: write the new array as an expression "
        f"instead (`a = a * s`, np.where, np.concatenate), or use forward mode (mc.jvp), which follows writes into "
        f"{lib} arrays")


def is_mutable_item(a: Any) -> bool:
    return isinstance(a, (list, dict, collections.deque))


def setitem_reverse(g: Any, y: Any, old: Any, a: Any, i: Any, v: Any, v_bar: Any) -> Any:
    """Undo `a[i] = v`: restore the old value; v's adjoint is what the slot collected; clear the slot."""
    if isinstance(a, np.flatiter):
        return setitem_reverse(g, y, old, a.base, _flat_positions(a.base, i), v, v_bar)
    remember(a)
    if isinstance(a, np.ndarray):
        sh = shadow(a)
        slot = np.array(sh[i], copy=True)
        if _may_repeat(i):
            slot = slot * _surviving(a.shape, i)
        sh[i] = 0
        a[i] = old
        if isinstance(v, (list, tuple)):  # (`a[0:2] = [x, y]`: each item gets its entry of the slot)
            g = unbroadcast(slot, np.zeros(np.shape(v)))
            return acc(v, v_bar, (AdjList if isinstance(v, list) else AdjTuple)(g))
        return acc(v, v_bar, unbroadcast(slot, v) if isinstance(v, np.ndarray) or np.ndim(slot) == 0 else slot.sum())
    if isinstance(a, (list, dict, collections.deque)):
        sh = shadow(a)
        if isinstance(i, slice):
            # Where the written items are now: a plain slice may have changed the list's length.
            if hasattr(v, "__len__"):
                n_new = len(v)
            elif isinstance(old, _SavedSlice) and (i.step is None or i.step == 1):
                n_new = len(a) - old.length_before + len(old)  # (an iterator, spent by the write)
            else:
                n_new = len(a[i])
            if i.step is None or i.step == 1:
                n_old = len(old) if old is not _MISSING else 0
                start = i.indices(len(a) - n_new + n_old)[0]
                now = slice(start, start + n_new)
            else:
                now = i
            slots = sh[now]
            a[now] = old if old is not _MISSING else []
            sh[now] = [shadow(x) if is_mutable(x) else NoTangent for x in (old if old is not _MISSING else [])]
            # The items of v were copied into a: v's own adjoint gets what their slots collected.
            return acc(v, v_bar, AdjList(slots) if isinstance(v, list) else AdjTuple(slots))
        slot = sh[i] if (i in sh if isinstance(sh, dict) else True) else NoTangent
        if old is _MISSING:
            del a[i]
            del sh[i]
        else:
            a[i] = old
            sh[i] = shadow(old) if is_mutable(old) else NoTangent
        return v_bar if is_mutable(v) else accumulate(v_bar, slot)
    raise TypeError(f"reverse of item assignment on {type(a).__name__}")


def _may_repeat(i: Any) -> bool:
    """Can the index `i` name one element several times (integer arrays or lists)?"""
    parts = i if isinstance(i, tuple) else (i,)
    for p in parts:
        if isinstance(p, list) or (isinstance(p, np.ndarray) and p.dtype.kind in "iu"):
            return True
    return False


def _surviving(shape: tuple, i: Any) -> np.ndarray:
    """For `a[i] = v` with a repeated index: which selected positions' values remain in `a`.

    NumPy keeps one write per element; writing position numbers through the same index
    the same way finds out which one, whatever order NumPy used.
    """
    positions = np.arange(np.zeros(shape, dtype=np.int8)[i].size).reshape(np.zeros(shape, dtype=np.int8)[i].shape)
    tags = np.full(shape, -1, dtype=np.intp)
    tags[i] = positions
    return tags[i] == positions


def save_delete(a: Any, i: Any) -> Any:
    """What `del a[i]` is about to remove, and (for a dict) where the key stood."""
    old = a[i]
    position = list(a).index(i) if isinstance(a, dict) else None
    return (old, position)


def delitem_reverse(g: Any, y: Any, saved: Any, a: Any, i: Any) -> None:
    """Undo `del a[i]`: put the removed items back where they were, with fresh slots (nothing read them since)."""
    old, position = saved
    remember(a)
    sh = shadow(a)
    if isinstance(a, dict):
        items = list(a.items())
        slots = [sh.get(k, NoTangent) for k, _ in items]
        items.insert(position, (i, old))
        slots.insert(position, shadow(old) if is_mutable(old) else NoTangent)
        a.clear()
        a.update(items)
        sh.clear()
        sh.update({k: slot for (k, _), slot in zip(items, slots)})
        return
    if isinstance(i, slice):
        n = len(a) + len(old)
        positions = list(range(*i.indices(n)))
        for p, item in sorted(zip(positions, old)):
            a.insert(p, item)
            sh.insert(p, shadow(item) if is_mutable(item) else NoTangent)
        return
    n = len(a) + 1
    p = i if i >= 0 else i + n
    a.insert(p, old)
    sh.insert(p, shadow(old) if is_mutable(old) else NoTangent)


def save_attr(obj: Any, name: str) -> Any:
    if type(obj) is types.CellType and name == "cell_contents":  # (forward code's own cells, differentiated: a cell)
        return save_cell(obj)
    if isinstance(obj, np.ndarray) and name == "shape":
        return _ShapeWas(obj.shape)  # (`a.shape = (2, 3)`: the pullback reshapes a, and its storage, back)
    if isinstance(obj, np.ndarray) and name in ("real", "imag", "flat"):
        from ..errors import UnsupportedDerivativeError

        # (the adjoints of reads after the write were lost: a silent zero gradient, found by hunt12)
        instead = {"flat": "`a.ravel()[...] = v` or `a[...] = v.reshape(a.shape)`"}
        raise UnsupportedDerivativeError(
            f"reverse mode of `a.{name} = ...` on an array is not supported: write "
            f"{instead.get(name, f'`a.{name}[...] = v`')} instead, or use forward mode (mc.jvp, mc.jacfwd)")
    if isinstance(obj, np.ndarray) and name in ("strides", "dtype"):
        from ..errors import UnsupportedDerivativeError

        raise UnsupportedDerivativeError(
            f"reverse mode of `a.{name} = ...` (an array's bytes reinterpreted in place) is not supported: write "
            f"`a = a.view(...)` (or `.astype`) instead, or use forward mode (mc.jvp)")
    if isinstance(obj, type):
        if obj.__flags__ & (1 << 9):
            _refuse_nested_class_write(obj, name)
        return vars(obj).get(name, _MISSING)
    return fields_of(obj).get(name, _MISSING)


_DERIVED_MARKS = ("__forward", "__pullback", "__jvp")


def _refuse_nested_class_write(cls: type, name: str) -> None:
    """A class attribute written in the forward pass of reverse mode over generated code (`add__jvp__forward`: the
    Hessian, jvp(grad(f)), jacrev(grad(f)) of a function whose methods write `cls.total = ...`): the adjoints through
    the class's tangent storage are not followed there (the second derivative, and even the gradient jvp(grad(f))
    returned, came out 0, silently): refused by name.  First-order code (`add__forward`) goes on."""
    import sys

    frame = sys._getframe(2)
    for _ in range(8):
        if frame is None:
            return
        code_name = frame.f_code.co_name
        if code_name.endswith(_DERIVED_MARKS):
            if sum(code_name.count(m) for m in _DERIVED_MARKS) < 2:
                return
            from ..rules.forward_code_rules import NestingError

            raise NestingError(
                f"nested derivative: the class attribute {cls.__qualname__}.{name}, written by a method with a "
                f"derivative (`cls.{name} = ...`), is not followed at higher order (Hessians, jvp of grad, jacrev "
                "of grad); keep the state in an instance attribute (or pass it as an argument) to take higher "
                "derivatives")
        frame = frame.f_back


class _ShapeWas:
    """The shape an array had before `a.shape = ...` (save_attr), put back by setattr_reverse."""

    __slots__ = ("shape",)

    def __init__(self, shape: tuple) -> None:
        self.shape = shape


def setattr_reverse(g: Any, y: Any, old: Any, obj: Any, name: str, v: Any, v_bar: Any) -> Any:
    if type(old) is _ShapeWas:  # (the array and its adjoint storage take their old shape: both C-ordered alike)
        remember(obj)
        obj.shape = old.shape
        if _has_shadow(obj):
            sh = shadow(obj)
            if sh.shape != obj.shape:
                sh.shape = obj.shape
        return v_bar
    if type(obj) is types.CellType and name == "cell_contents":
        # `cell.cell_contents = v` in generated forward code, differentiated: as a write of the cell (the adjoint
        # that reads of the cell routed into its slot goes to v; it was dropped)
        return cell_set_reverse(g, y, old, obj, v, v_bar)
    remember(obj)
    sh = shadow(obj)
    slot = sh.fields.pop(name, NoTangent) if isinstance(sh, MutableTangent) else NoTangent
    if isinstance(obj, type):  # a class attribute (type.__setattr__, not object's)
        if old is _MISSING:
            if name in vars(obj):
                delattr(obj, name)
        else:
            setattr(obj, name, old)
    elif old is _MISSING:
        try:
            object.__delattr__(obj, name)
        except AttributeError:
            pass
    else:
        object.__setattr__(obj, name, old)
    if old is not _MISSING:
        if isinstance(sh, MutableTangent):
            sh.fields[name] = shadow(old) if is_mutable(old) else NoTangent
    return v_bar if is_mutable(v) else accumulate(v_bar, slot)


def save_cell(cell: Any) -> Any:
    # (the cell's adjoint storage now, in the computation writing it: a rule differentiating a closure over it at a
    # higher order routes the adjoints of what the closure captures into this storage, and only into storage of the
    # computation that made the cell, the one whose pullback reads it: rules/nested_cells.owned_cells)
    stack = getattr(_local, "stack", None)
    if stack:
        found = stack[-1].shadows.get(id(cell))
        if found is None or found[0] is not cell:
            stack[-1].shadows[id(cell)] = (cell, ShadowCell())
    try:
        return cell.cell_contents
    except ValueError:
        return _MISSING


def cell_set_reverse(g: Any, y: Any, old: Any, cell: Any, v: Any, v_bar: Any) -> Any:
    remember(cell)
    sh = shadow(cell)
    slot, sh.slot = sh.slot, NoTangent
    if old is _MISSING:
        del cell.cell_contents
    else:
        cell.cell_contents = old
    return v_bar if is_mutable(v) else accumulate(v_bar, slot)


def cell_get_reverse(g: Any, y: Any, cell: Any, cell_bar: Any = NoTangent) -> Any:
    if g is NoTangent or is_mutable(y):
        return cell_bar
    sh = shadow(cell)
    sh.slot = accumulate(sh.slot, g)
    return cell_bar


def append_reverse(g: Any, y: Any, lst: Any, x: Any, x_bar: Any) -> Any:
    """Undo `lst.append(x)`: pop it and its slot."""
    remember(lst)
    sh = shadow(lst)
    lst.pop()
    slot = sh.pop() if len(sh) > len(lst) else NoTangent
    return x_bar if is_mutable(x) else accumulate(x_bar, slot)


def save_membership(s: Any, x: Any) -> bool:
    return x in s


def set_add_reverse(g: Any, y: Any, was_in: bool, s: Any, x: Any) -> None:
    """Undo `s.add(x)` (sets hold hashable keys: nothing differentiable flows through them)."""
    remember(s)
    if not was_in:
        s.discard(x)


def ufunc_out_reverse(g: Any, y: Any, old: Any, fn: Any, out: Any, args: tuple, bars: tuple) -> tuple:
    """Undo `fn(*args, out=out)`: the adjoint collected by `out` goes to the inputs (as they were)."""
    from ..rules import fingerprints, registry
    from ..rules.eager import H
    from .runtime import EagerReverse

    if isinstance(out, tuple) and len(out) > 1:
        return _several_out_reverse(old, fn, out, args, bars)
    target = out[0] if isinstance(out, tuple) else out
    remember(target)
    gy = np.array(shadow(target), copy=True)
    shadow(target)[...] = 0
    target[...] = old
    inputs = tuple(old if a is target else a for a in args)
    rule = registry.lookup(fn)
    y_val = fn(*inputs)
    if not rule.complex_ok:  # type: ignore[union-attr]  # (cplx: registry.defcomplex)
        from .adjoints import refuse_complex_rule

        refuse_complex_rule(fingerprints.qualified(fn), y_val, *inputs)
    contribs = rule.vjp(EagerReverse(), gy, H(y_val, None), *[H(a, None) for a in inputs])  # type: ignore[union-attr,misc]
    return tuple(acc(a, b, NoTangent if c is None else c) for a, b, c in zip(args, bars, contribs))


def save_ufunc_out(out: Any) -> Any:
    """What `fn(..., out=o)` is about to overwrite: a copy of o, or of each array of `out=(q, r)` (np.divmod, np.modf,
    np.frexp write two; the tuple itself was saved, and the pullback put it into q: a ValueError, hunt12)."""
    if isinstance(out, tuple) and len(out) > 1:
        return tuple(save_inplace(o) for o in out)
    return save_inplace(out)


def _several_out_reverse(old: tuple, fn: Any, outs: tuple, args: tuple, bars: tuple) -> tuple:
    """ufunc_out_reverse of a ufunc with several outputs written into `out=(q, r)`: each output's collected adjoint,
    as the tuple adjoint its rule takes for `q, r = fn(...)`, goes to the inputs (as they were)."""
    from ..rules import fingerprints, registry
    from ..rules.eager import H
    from .runtime import EagerReverse

    gys = []
    for target, was in zip(outs, old):
        remember(target)
        gys.append(np.array(shadow(target), copy=True))
        shadow(target)[...] = 0
        target[...] = was
    inputs = tuple(next((was for o, was in zip(outs, old) if a is o), a) for a in args)
    rule = registry.lookup(fn)
    y_val = fn(*inputs)
    if not rule.complex_ok:  # type: ignore[union-attr]
        from .adjoints import refuse_complex_rule

        refuse_complex_rule(fingerprints.qualified(fn), y_val, *inputs)
    contribs = rule.vjp(EagerReverse(), tuple(gys), H(y_val, None), *[H(a, None) for a in inputs])  # type: ignore[union-attr,misc]
    return tuple(acc(a, b, NoTangent if c is None else c) for a, b, c in zip(args, bars, contribs))


def undo_append(lst: Any, x: Any, x_bar: Any = NoTangent) -> Any:
    """Undo `lst.append(x)` (append_reverse without the call's own value and adjoint: `append` returns None, which
    has none): pop the item and its slot; x's adjoint with the slot added (a mutable x's slot is its storage)."""
    return append_reverse(NoTangent, None, lst, x, x_bar)


# The writes' reverses as generated pullbacks call them: a write returns None, which has no value to record and no
# adjoint (the `g, y` the helpers above take); the written value's adjoint starts at the symbolic zero by default.


def undo_setitem(old: Any, a: Any, i: Any, v: Any, v_bar: Any = NoTangent) -> Any:
    return setitem_reverse(NoTangent, None, old, a, i, v, v_bar)


def undo_setattr(old: Any, obj: Any, name: str, v: Any, v_bar: Any = NoTangent) -> Any:
    return setattr_reverse(NoTangent, None, old, obj, name, v, v_bar)


def undo_cell_set(old: Any, cell: Any, v: Any, v_bar: Any = NoTangent) -> Any:
    return cell_set_reverse(NoTangent, None, old, cell, v, v_bar)


def undo_set_add(was_in: bool, s: Any, x: Any) -> None:
    set_add_reverse(NoTangent, None, was_in, s, x)


def undo_delitem(saved: Any, a: Any, i: Any) -> None:
    delitem_reverse(NoTangent, None, saved, a, i)


def save_inplace(a: Any) -> Any:
    """The value `a op= b` is about to change (a copy when it is changed in place)."""
    if is_other_array(a) and mutable_in_place(a):
        _refuse_write(a, "an in-place operator (a op= b)")
    if isinstance(a, np.ndarray):
        return a.copy()
    if isinstance(a, collections.deque):
        from ..errors import UnsupportedDerivativeError

        raise UnsupportedDerivativeError("reverse mode of `d += items` (d *= n) on a collections.deque is not supported: "
                                         "write d.extend(items)")
    if isinstance(a, (list, dict)):
        return copy.copy(a)
    return a


def _dict_merge_reverse(g: Any, old: dict, a: dict, b: Any, a_bar: Any, b_bar: Any) -> tuple:
    """Undo `a |= b` on a dict: a key b wrote hands its slot to b; the others stay a's."""
    keys = list(b.keys()) if isinstance(b, dict) else [k for k, _ in b]
    remember(a)
    sh = shadow(a)
    written = {k: sh.get(k, NoTangent) for k in keys}
    a.clear()
    a.update(old)
    sh.clear()
    for k, v in old.items():
        sh[k] = shadow(v) if is_mutable(v) else (g.get(k, NoTangent) if k not in written and isinstance(g, dict) and g is not sh else NoTangent)
    for k, v in a.items():
        if k not in written and not is_mutable(v) and isinstance(g, dict):
            sh[k] = g.get(k, NoTangent)
    if isinstance(b, dict):
        part = AdjDict({k: (NoTangent if is_mutable(b[k]) else written[k]) for k in keys})
        b_bar = acc(b, b_bar, part)
    return a_bar, b_bar


def inplace_reverse(g: Any, y: Any, old: Any, op: Any, a: Any, b: Any, a_bar: Any, b_bar: Any) -> tuple:
    """Undo `y = a op= b` (in place for arrays and lists, a rebinding for numbers)."""
    from ..rules import registry
    from .runtime import EagerReverse
    from ..rules.eager import H

    rule = registry.lookup(op)
    in_place = y is a and is_mutable(a)
    if in_place and isinstance(a, dict):
        return _dict_merge_reverse(dict(take(a, a_bar)), old, a, b, a_bar, b_bar)
    if in_place:
        remember(a)
        g = take(a, a_bar)
        # A copy: the storage is reset below, and g must keep what it collected.
        g = np.array(g, copy=True) if isinstance(g, np.ndarray) else AdjList(g) if isinstance(g, list) else g
        if isinstance(a, np.ndarray):
            a[...] = old
            shadow(a)[...] = 0
        elif isinstance(a, list):
            a[:] = old
            shadow(a)[:] = [shadow(x) if is_mutable(x) else NoTangent for x in old]
    if g is NoTangent:
        return a_bar, b_bar
    if rule is not None and rule.zero:  # (`a //= b`: the restored a's adjoint is zero, b has none)
        return a_bar, b_bar
    y_val = op(old, b) if rule is not None else y
    ga, gb = rule.vjp(EagerReverse(), g, H(y_val, None), H(old, None), H(b, None))  # type: ignore[union-attr,misc]
    if in_place:
        a_bar = acc(a, a_bar, ga)
    else:
        a_bar = accumulate(a_bar, NoTangent if ga is None else ga)
    b_bar = acc(b, b_bar, NoTangent if gb is None else gb)
    return a_bar, b_bar


# The reverse of a write -> the form generated pullbacks call (without the write's own None and its zero adjoint).
UNDO = {setitem_reverse: undo_setitem, setattr_reverse: undo_setattr, cell_set_reverse: undo_cell_set,
        set_add_reverse: undo_set_add, delitem_reverse: undo_delitem}
# Helpers whose last argument (at this position), an adjoint, may be left out where it is the symbolic zero.
ZERO_LAST = {undo_append: 2, undo_setitem: 4, undo_setattr: 4, undo_cell_set: 3, getitem_reverse: 4, cell_get_reverse: 3}
