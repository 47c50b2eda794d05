"""Adjoint storage of mutable objects (Mooncake's fdata), looked up by identity.

The adjoint of an array, list, dict, object or cell lives in a *shadow* of
the same structure, created on first use and shared by every name, view and
function that reaches the object, so an in-place write sees all the
contributions to what it overwrites.  A view's shadow is the same view of its
base's shadow.  Numbers, tuples and strings keep ordinary adjoint values
(returned and added up by the generated code).

Mutations are undone as the pullback walks backwards: the forward pass saved
what each write overwrote (`save_*`), the reverse helper (`*_reverse`) puts
it back, takes the adjoint of the written slot and clears it.  After the
outermost pullback the API re-applies the post-call state the caller saw.
"""
from __future__ import annotations

import collections
import sys
import threading
import types
from typing import Any

import numpy as np

from ..arrays import is_other_array
from ..frames import inside, outermost
from ..tangents import MutableTangent, NoTangent, Tangent, is_zero_derivative, fields_of, is_mutable, slot_names, _float_record
from .adjoints import AdjDict, AdjList, AdjTuple, StorageTuple, accumulate, add_rows, unbroadcast
# (snapshot, put_state, reachable_mutables: read as shadows.* by the API, held state and standalone modules)
from .caller_state import put_state, reachable_mutables, reapply, snapshot, state_of  # noqa: F401


class ShadowList(AdjList):
    """Adjoint slots of a list: a mutable item's slot is that item's own shadow."""

    holds_storage = True  # (adjoints.item_of: one object in two slots has one storage)


class ShadowDict(AdjDict):
    holds_storage = True


class ShadowCell:
    __slots__ = ("slot",)

    def __init__(self) -> None:
        self.slot = NoTangent


class Context:
    """The shadows of one gradient computation (forward pass and pullback).

    `grad`, `vjp` and a generated module's `__vjp` enter one around the forward pass and
    the pullback, so storage lives exactly as long as one gradient computation.
    """

    def __init__(self) -> None:
        self.shadows: dict[int, tuple[Any, Any]] = {}
        self.arrays: dict[int, Any] = {}  # the array storages among them, by id (is_storage)
        self.adopted: dict[int, Any] = {}  # returned adjoints taken as storage (full_adjoint), by id
        # Objects the pullback rolled back, with their state before it did (the state the forward pass,
        # like the plain call, left them in), by id: put back when the pullback is done (`remember`).
        self.touched: dict[int, tuple[Any, Any]] = {}

    def __enter__(self) -> "Context":
        _local.stack = getattr(_local, "stack", []) + [self]
        return self

    def __exit__(self, *exc: Any) -> None:
        _local.stack = _local.stack[:-1]


_local = threading.local()


def current() -> Context:
    """The innermost entered Context of this thread; without one, that of the current direct call."""
    stack = getattr(_local, "stack", None)
    if stack:
        return stack[-1]
    return _direct_context(sys._getframe(2))


def _direct_context(frame: Any) -> Context:
    """Storage for a generated `f__pullback(value_bar, tape)` called directly, with no Context entered.

    It belongs to the outermost generated pullback running in this thread, and a later direct
    call (another outermost pullback frame) gets fresh storage.  (It used to be one context per
    thread for ever: every call's arrays and adjoints stayed reachable, and the adjoints of the
    same argument added up from call to call.)  The last call's storage stays readable until the
    next call starts: `full_adjoint(x, x_bar)` after the pullback gives an array argument's adjoint.
    """
    last = getattr(_local, "direct", None)
    if last is not None and last[0] is not None and inside(frame, last[0]):
        return last[1]  # (still inside the call that made it)
    outer = outermost(frame, lambda f: f.f_code.co_name.endswith("__pullback"))
    if last is not None and outer is None:
        return last[1]  # read after the pullback returned (full_adjoint): the last call's storage
    ctx = Context()
    _local.direct = (outer, ctx)  # holding the frame keeps its identity unique while we compare it
    return ctx


def shadow(obj: Any) -> Any:
    """The adjoint storage of a mutable object (created as zeros on first use)."""
    ctx = current()
    found = ctx.shadows.get(id(obj))
    if found is not None and found[0] is obj:
        return found[1]
    sh = _new_shadow(obj)
    ctx.shadows[id(obj)] = (obj, sh)
    if type(sh) is np.ndarray:
        ctx.arrays[id(sh)] = sh
    return sh


def is_storage(a: np.ndarray) -> bool:
    """Is array `a` the adjoint storage of an array (not a value adjoint)?"""
    return current().arrays.get(id(a)) is a


def _has_shadow(obj: Any) -> bool:
    found = current().shadows.get(id(obj))
    return found is not None and found[0] is obj


def _complex_part(obj: np.ndarray, base: Any) -> Any:
    """"real" or "imag" when obj is that part of a complex array (`z.real`, `z.imag`, `np.real(z)`: float views of
    its memory), else None.  The part's adjoint storage is the same part of the complex array's (an adjoint
    g = dL/dRe + i dL/dIm), so a write through the view, or a read after a write to z, reaches z's storage."""
    if not (isinstance(base, np.ndarray) and base.dtype.kind == "c" and obj.dtype.kind == "f"
            and obj.dtype.itemsize * 2 == base.dtype.itemsize and obj.shape == base.shape and obj.strides == base.strides):
        return None
    offset = obj.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    return "real" if offset == 0 else "imag" if offset == obj.dtype.itemsize else None


def _record_field(obj: np.ndarray, base: Any) -> Any:
    """The name of the field of the structured array `base` that `obj` is (`rec["a"]`, a view of one whole field),
    or None: its storage is that field of base's storage, so reads and writes through it reach base's adjoint."""
    if not isinstance(base, np.ndarray) or base.dtype.names is None or obj.dtype.names is not None \
            or obj.shape != base.shape or not _float_record(base.dtype):
        return None
    offset = obj.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    for name in base.dtype.names:
        ftype, foff = base.dtype.fields[name][:2]
        if foff == offset and ftype == obj.dtype and obj.strides == base[name].strides:
            return name
    return None


def _new_shadow(obj: Any) -> Any:
    if isinstance(obj, np.ndarray):
        base = obj.base
        # (not a number broadcast, `np.broadcast_to(x[0], (3,))`: its base is a 0-d array NumPy made, which no pullback
        # reads, and an adjoint added to one item showed in all three items' storage: 3.0 for 1.0; its items' storage
        # is its own, summed by broadcast_to's pullback into the number's adjoint)
        if isinstance(base, np.ndarray) and base.dtype == obj.dtype and (base.flags.c_contiguous or base.flags.f_contiguous) \
                and not (base.ndim == 0 and obj.size > 1):
            # A view: the same view of the base's storage (laid out like the base, so the
            # view's offset and strides address the same elements there).
            sb = shadow(base)
            if sb.strides == base.strides:
                offset = obj.__array_interface__["data"][0] - base.__array_interface__["data"][0]
                flat = sb.ravel(order="K")[offset // sb.itemsize:]
                return np.lib.stride_tricks.as_strided(flat, obj.shape, obj.strides, writeable=True)
        part = _complex_part(obj, base)
        if part is not None:
            return getattr(shadow(base), part)
        field = _record_field(obj, base)
        if field is not None:
            return shadow(base)[field]
        if _float_record(obj.dtype):  # (a structured array of float fields: storage with the same fields)
            return np.zeros_like(obj, subok=False)
        return np.zeros_like(obj, dtype=obj.dtype if obj.dtype.kind in "fc" else float, subok=False)
    if isinstance(obj, (list, collections.deque)):  # (a deque's slots by position: rules/python_deque.py)
        return ShadowList(shadow(v) if is_mutable(v) else NoTangent for v in obj)
    if isinstance(obj, dict):
        return ShadowDict({k: shadow(v) if is_mutable(v) else NoTangent for k, v in obj.items()})
    if isinstance(obj, types.CellType):
        return ShadowCell()
    fields = fields_of(obj)
    if fields or hasattr(obj, "__dict__") or slot_names(obj) is not None:
        return MutableTangent({k: shadow(v) if is_mutable(v) else NoTangent for k, v in fields.items()})
    raise TypeError(f"no adjoint storage for {type(obj).__name__}")


# ---------------------------------------------------------------- accumulate, read


def acc(v: Any, v_bar: Any, g: Any) -> Any:
    """v_bar += g: into v's shadow if v is mutable (returns v_bar unchanged), else as a value.

    The invariant that keeps adjoints from being counted twice: a *value* adjoint (of a
    number, a tuple, ...) never holds the adjoint of a mutable object inside it.  That
    part always lives in the object's storage, which every other name of the object
    (a tuple slot, a loop variable, a view) shares; `route` sends it there.
    """
    if g is NoTangent or g is None:
        return v_bar
    if is_mutable(v):
        add_into(v, g)
        return v_bar
    if isinstance(v, tuple):
        g = route(v, g)
    return accumulate(v_bar, g)


def holds_mutable(x: Any) -> bool:
    """Does the tuple x hold (at any depth of tuples) a mutable object?"""
    return any(is_mutable(v) or (isinstance(v, tuple) and holds_mutable(v)) for v in x)


def route(x: Any, g: Any) -> Any:
    """Add the parts of g that belong to mutable objects inside x to their storage; return the rest.

    Adding an object's own storage to itself is a no-op (`add_into`), so g may come from
    `take` (which fills storage in) or from a rule's pullback (plain values) alike.
    """
    if g is NoTangent or g is None:
        return NoTangent
    if is_mutable(x):
        add_into(x, g)
        return NoTangent
    if isinstance(x, tuple) and isinstance(g, (tuple, list)) and holds_mutable(x):
        return AdjTuple(route(xi, gi) for xi, gi in zip(x, g))
    return g


def add_into(v: Any, g: Any) -> None:
    sh = shadow(v)
    if g is sh:
        return  # the contribution is this storage itself (it came through a shared slot)
    if isinstance(v, np.ndarray):
        if isinstance(g, np.ndarray) and np.shares_memory(g, sh):
            return  # passed back through a view (transpose, reshape, ...): already in this storage
        if isinstance(g, (list, tuple)):
            add_rows(sh, g)  # (a row read as a view of v is there already)
            return
        if is_other_array(g):
            _refuse_mixed(g)
        g = unbroadcast(g, v) if np.shape(g) != v.shape else g
        repeated = () if 0 not in sh.strides else \
            tuple(i for i, (st, n) in enumerate(zip(sh.strides, sh.shape)) if st == 0 and n > 1)
        if repeated:  # a broadcast view (np.broadcast_to): the entries along these axes are one slot
            one = tuple(slice(0, 1) if i in repeated else slice(None) for i in range(sh.ndim))
            sh[one] += np.sum(g, axis=repeated, keepdims=True)
        else:
            sh += g
    elif isinstance(v, (list, collections.deque)):
        for i, gi in enumerate(g):
            _add_slot(sh, i, v[i], gi)
    elif isinstance(v, dict):
        for k, gi in g.items():
            _add_slot(sh, k, v[k], gi)
    elif isinstance(v, types.CellType):
        try:
            inner = v.cell_contents
        except ValueError:
            return
        if is_mutable(inner):
            add_into(inner, g)
        else:
            sh.slot = accumulate(sh.slot, g)
    elif isinstance(sh, MutableTangent):
        if type(g).__name__ == "FunctionAdjoint" and type(v).__name__ == "FunctionTangent":
            # (reverse mode over forward code of forward code: a function's tangent passed where the function's is
            # taken gets a function's adjoint, of its defaults' tangents, which are the FunctionTangent's fields of
            # those names: `lambda t, c=c: t * c` at the third order)
            _add_field(sh, v, "defaults", g.defaults)
            _add_field(sh, v, "kwdefaults", g.kwdefaults)
            return
        if not isinstance(g, (MutableTangent, Tangent)):  # (a Tangent: a nested rule's adjoint of an object, by field)
            _refuse_items_adjoint(v, g)
            return
        for k, gi in g.fields.items():
            _add_field(sh, v, k, gi)


def _refuse_items_adjoint(v: Any, g: Any) -> None:
    """An object's adjoint is its fields' adjoints; anything else that is not zero came from code that read the
    object as something else (its items, through an `__iter__` run inside a builtin), and dropping it would make
    the gradient silently wrong (`sum(map(f, obj))` gave 0)."""
    if is_zero_derivative(g) or _own_field_as_array(v, g):
        return
    from ..errors import UnsupportedDerivativeError

    name = f"{type(v).__module__}.{type(v).__qualname__}"
    raise UnsupportedDerivativeError(
        f"reverse mode: a {name} object was read by code that is not differentiated, through one of its protocol "
        f"methods (`__iter__` inside map(), zip() or itertools; `__array__` or `__float__` inside NumPy or math), so "
        f"the adjoints of what it gave cannot reach its fields; read the items first with `list(obj)` or a loop "
        f"(`for v in obj`), the array or number as a field (`obj.values`), or use forward mode (mc.jvp)")


def _own_field_as_array(v: Any, g: Any) -> bool:
    """Is g the adjoint storage of one of v's array fields itself? `np.asarray(obj)` of an `__array__` that returns
    the field (`np.asarray(self.v)`) gives that very array, so its adjoint went into the field's storage by
    identity, and the rule of np.asarray hands the same storage back as obj's."""
    if not isinstance(g, np.ndarray):
        return False
    for f in getattr(v, "__dict__", {}).values():
        if isinstance(f, np.ndarray) and _has_shadow(f) and shadow(f) is g:
            return True
    return False


def _add_slot(sh: Any, key: Any, item: Any, g: Any) -> None:
    if g is NoTangent or g is None:
        return
    if is_mutable(item):
        add_into(item, g)
    else:
        sh[key] = accumulate(sh[key] if (key in sh if isinstance(sh, dict) else True) else NoTangent, route(item, g))


def _add_field(sh: MutableTangent, obj: Any, name: str, g: Any) -> None:
    if g is NoTangent or g is None:
        return
    owner = _class_holding(obj, name)
    if owner is not None:
        # `c.scale` of an instance whose class holds `scale` (a classmethod set `cls.scale = 3 * v`), `Q.w` of a
        # subclass whose base P holds `w`: the value read is the class's attribute, so its adjoint goes to that
        # class's storage, where the pullback of the write into it reads it (kept on the instance or the subclass
        # it was dropped: a silently wrong gradient)
        add_into(owner, MutableTangent({name: g}))
        return
    value = getattr(obj, name, None)
    if is_mutable(value):
        add_into(value, g)
    else:
        sh.fields[name] = accumulate(sh.fields.get(name, NoTangent), route(value, g))


def _class_holding(obj: Any, name: str) -> Any:
    """The user class on obj's MRO (obj's class's, for an instance) whose own attribute `obj.name` reads, where obj
    does not hold `name` itself; else None."""
    if isinstance(obj, type):
        if name in vars(obj):
            return None
        mro = obj.__mro__[1:]
    else:
        d = getattr(obj, "__dict__", None)
        if not isinstance(d, dict) or name in d or slot_names(obj):
            return None
        mro = type(obj).__mro__
    owner = next((k for k in mro if name in vars(k)), None)
    if owner is None or not owner.__flags__ & (1 << 9) or hasattr(type(vars(owner)[name]), "__get__"):
        return None  # (a slot's member descriptor, a property, a method: not a value kept in the class)
    return owner


def full_adjoint(v: Any, g: Any, _memo: dict | None = None) -> Any:
    """The whole adjoint of v, as handed to the user: the value parts of g, and the storage of every
    mutable object inside v (a list of (W, b) tuples gets W's and b's storage, not the zeros its
    slots hold as values: those adjoints were routed to the arrays' own storage)."""
    memo = {} if _memo is None else _memo
    if id(v) in memo:
        return memo[id(v)]
    if is_mutable(v):
        if (isinstance(v, np.ndarray) and type(g) is np.ndarray and g.shape == v.shape and g.dtype == v.dtype
                or type(v) is list and type(g) is list and len(g) == len(v) and all(type(x) is float for x in g)) \
                and not _has_shadow(v):
            # A typed pullback (reverse/buffers.py, typed_lists.py) kept nothing in storage: the value it returned is the
            # whole adjoint.  Called directly (no Context), storage made now would outlive the call; under
            # a Context the value becomes v's storage (no zeros, no copy) so that v passed twice adds up.
            if not getattr(_local, "stack", None):
                return g
            ctx = current()
            if id(g) not in ctx.adopted:
                ctx.adopted[id(g)] = g
                ctx.shadows[id(v)] = (v, g)
                return g
        if g is not NoTangent and g is not None:
            add_into(v, g)
        sh = shadow(v)
        if isinstance(v, np.ndarray):
            return sh
        if isinstance(sh, ShadowCell):
            return sh.slot
        memo[id(v)] = sh  # a cycle comes back to the storage itself
        if isinstance(v, (list, collections.deque)):
            out: Any = AdjList(full_adjoint(item, NoTangent if is_mutable(item) else sh[i], memo)
                               for i, item in enumerate(v))
            out = collections.deque(out, v.maxlen) if isinstance(v, collections.deque) else out
        elif isinstance(v, dict):
            out = AdjDict({k: full_adjoint(item, NoTangent if is_mutable(item) else sh.get(k, NoTangent), memo)
                           for k, item in v.items()})
        elif isinstance(sh, MutableTangent):
            out = MutableTangent({k: full_adjoint(val, NoTangent if is_mutable(val) else sh.fields.get(k, NoTangent), memo)
                                  for k, val in fields_of(v).items()})
        else:
            out = sh
        memo[id(v)] = out
        return out
    if isinstance(v, tuple) and holds_mutable(v):
        parts = g if isinstance(g, (tuple, list)) else ()
        return AdjTuple(full_adjoint(item, parts[k] if k < len(parts) else NoTangent, memo) for k, item in enumerate(v))
    return g


def transfer(crossed: Any, phi_bar: Any, v_bar: Any) -> Any:
    """Reverse of a phi edge: a mutable value shares one storage on both sides, a value's adjoint moves."""
    if is_mutable(crossed):
        return v_bar
    return accumulate(v_bar, phi_bar)


def take(v: Any, v_bar: Any) -> Any:
    """The adjoint of v: for a mutable v its storage (plus any adjoint that arrived as a value,
    e.g. through a tuple holding v), else the value v_bar."""
    if is_mutable(v):
        if v_bar is not NoTangent and v_bar is not None:
            add_into(v, v_bar)  # a no-op if v_bar is the storage itself
        sh = shadow(v)
        # the storage itself: adding it back is a no-op (a cell's slot value for reverse code's own closure reads; a
        # cell that forward code reads explicitly, `fn.__closure__[i].cell_contents`, differentiated at a higher
        # order, hands back its storage, which the read of the closure tuple routes into the cell: the slot's
        # value was added to the slot again)
        return sh.slot if type(sh) is ShadowCell else sh
    if isinstance(v, tuple) and holds_mutable(v):
        return _take_tuple(v, v_bar, set())
    return v_bar


def claim(x: np.ndarray) -> np.ndarray:
    """The adjoint the caller keeps for its array x as it is after the call, as an array of the pullback's own,
    the storage emptied (the pullback returns the adjoint of x as it was before, which the caller adds back):
    for a parameter the function updates in place (reverse/written_params.py).  x's state is remembered, as
    undoing the updates rolls it back (`remember`)."""
    remember(x)
    sh = shadow(x)  # (made now if need be: a view's is part of its base's, which may hold the caller's adjoint)
    out = np.array(sh, dtype=float, copy=True)
    sh[...] = 0
    return out


def _take_tuple(v: tuple, v_bar: Any, seen: set) -> Any:
    """The whole adjoint of a tuple holding mutable objects: the value's parts, and the storage of the mutable
    objects inside -- each object's storage once: an object in two slots (`return out, out`) gets it in the
    first and zero in the others, or a reader adding the slots up (the tuple's pullback) counts it twice.
    (A cell's part is its storage object, not the slot's value, so that adding it back is a no-op.)"""
    parts = v_bar if isinstance(v_bar, (tuple, list)) else ()
    for vi in v:  # objects a list or dict in the tuple holds too: their storage is in that container's slot
        if isinstance(vi, (list, dict)):
            seen.update(id(x) for x in (vi.values() if isinstance(vi, dict) else vi) if is_mutable(x))
    out = []
    stored = []
    for k, vi in enumerate(v):
        pk = parts[k] if k < len(parts) else NoTangent
        if isinstance(vi, types.CellType) or is_mutable(vi):
            item = shadow(vi) if isinstance(vi, types.CellType) else take(vi, pk)
            if id(vi) in seen:
                item = NoTangent
            else:
                stored.append(k)
            seen.add(id(vi))
        elif isinstance(vi, tuple) and holds_mutable(vi):
            item = _take_tuple(vi, pk, seen)
        else:
            item = take(vi, pk)
        out.append(item)
    t = StorageTuple(out)
    t.storage_at = frozenset(stored)
    return t



def _refuse_mixed(g: Any) -> None:
    """A NumPy array's adjoint storage cannot take a lazy (Dask) or device (CuPy) contribution without computing
    or copying it: refused, with the conversion that makes the argument's adjoint a value of that library."""
    from ..errors import UnsupportedDerivativeError

    lib = type(g).__module__.split(".")[0]
    raise UnsupportedDerivativeError(
        f"reverse mode meets a NumPy array (an argument, or a constant the function makes) whose adjoint is a {lib} "
        f"array, as it is combined with {lib} data, and cannot add a {lib} adjoint into NumPy storage without "
        f"computing it: pass NumPy arguments as {lib} arrays too (for Dask: da.from_array(w), one chunk is fine), make "
        f"such constants {lib} arrays or Python numbers, or use forward mode (mc.jvp)")


# ---------------------------------------------------------------- the caller's view


def remember(obj: Any) -> None:
    """Keep obj's state before the pullback rolls it back for the first time in this computation: the
    API puts it back afterwards (`touched_states`), so an object the function changed -- a module-level
    model whose method counts its calls, a closure's list -- is left as the plain call leaves it, not
    only the arguments (whose post-call state the API snapshots itself)."""
    if isinstance(obj, np.ndarray):
        # A view's memory is its base's: keep the whole base's state, taken the first time any view of it
        # is rolled back (a view's own state, taken later, could hold what another view's undo put back).
        while isinstance(obj.base, np.ndarray):
            obj = obj.base
    touched = current().touched
    if id(obj) not in touched:
        touched[id(obj)] = (obj, state_of(obj))


def touched_states(ctx: "Context") -> list:
    """(object, state after the forward pass) of every object the pullback rolled back."""
    return list(ctx.touched.values())


def put_back(post: Any, ctx: "Context") -> None:
    """After a pullback (or its interruption): the arguments' post-call state `post` (a snapshot, or None
    where nothing is written), then that of every other object the pullback of `ctx` rolled back."""
    if post is not None:
        reapply(post)
    reapply(touched_states(ctx))


# The writes' save-and-undo helpers live in writes.py; generated code and the rule tables find them here too.
from .writes import (UNDO, ZERO_LAST, _SavedSlice, _ShapeWas, _dict_merge_reverse, _may_repeat, _refuse_write,  # noqa: E402,F401
                     _surviving, append_reverse, cell_get_reverse, cell_set_reverse, delitem_reverse, inplace_reverse,
                     is_mutable_item, save_attr, save_cell, save_delete, save_inplace, save_item, save_membership, save_ufunc_out,
                     set_add_reverse, setattr_reverse, setitem_reverse, ufunc_out_reverse, undo_append, undo_cell_set,
                     undo_delitem, undo_set_add, undo_setattr, undo_setitem)
