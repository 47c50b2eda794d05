"""Type inference: a fixpoint over the IR from the parameters' types (ir/types.py has the lattice,
ir/op_types.py what each operation returns).

Values start at "nothing known yet" and only move up the lattice (joins at phis), so loops
converge; whatever is still unknown at the end is UNKNOWN.
"""
from __future__ import annotations

import builtins
import dis
import operator
import functools
import types as pytypes
from typing import Any, Callable, Optional

import numpy as np

from .. import ops
from .analysis import uses
from .nodes import Call, Const, Function, Global, Param, Phi, Return, Value
from .op_types import array_of_items, joined_items, literal_array, result_type
from .types import _BOTTOM, BOOL, INT, NONE, UNKNOWN, Arr, AVal, Lst, Num, Tup, int_list_literal, join, literal, type_of_argument


_NUMPY_MODULES = frozenset({"numpy", "numpy.linalg", "numpy.fft"})  # (ufuncs and most functions: "numpy")


def _float_display(v: Value, count: dict) -> Optional[AVal]:
    """The float array type of a display of literal numbers with at least one float, used once; else None."""
    if not (isinstance(v, Call) and count.get(v) == 1):
        return None
    t = literal_array(v)
    return t if isinstance(t, Arr) and t.dtype == "f" else None


def _index_tuples(fn: Function, count: dict) -> set:
    """Tuple displays used once, as the index of a read (`x[rows, [2, 0]]`): their int-list displays used only
    there are the int arrays NumPy makes of them (nothing changed them in between)."""
    return {s.args[1] for b in fn.blocks for s in b.stmts
            if s.callee() is operator.getitem and len(s.args) == 2 and not s.kwargs and isinstance(s.args[1], Call)
            and s.args[1].callee() is ops.tuple_of and count.get(s.args[1]) == 1 and not s.args[1].kwargs}


def _index_part(v: Value, t: AVal, count: dict) -> AVal:
    ks = int_list_literal(v)
    return Arr("i", ("1" if len(ks) == 1 else "n",)) if ks is not None and count.get(v) == 1 else t


def _size_of(v: Value, of: Callable[[Value], AVal]) -> Optional[str]:
    """The axis (with its size symbol) whose size the int v is: `x.shape[k]`, `len(x)` of an array; else None."""
    if not (isinstance(v, Call) and len(v.args) >= 1 and not v.kwargs):
        return None
    if v.callee() is operator.getitem and len(v.args) == 2:
        attr, k = v.args
        if isinstance(attr, Call) and attr.callee() is getattr and len(attr.args) == 2 and \
                isinstance(attr.args[1], Const) and attr.args[1].value == "shape":
            t, k = of(attr.args[0]), literal(k)
            if isinstance(t, Arr) and t.axes and type(k) is int and -len(t.axes) <= k < len(t.axes):
                return t.axes[k]
        return None
    if v.callee() is len and len(v.args) == 1:
        t = of(v.args[0])
        return t.axes[0] if isinstance(t, Arr) and t.axes else None
    return None


def _made_of_sizes(s: Call, of: Callable[[Value], AVal]) -> Optional[AVal]:
    """`np.zeros(x.shape[0])`, `np.ones((n, n))` with `n = len(x)`: a float array whose axes are those sizes (their
    symbols kept: `acc + ones @ x` then has x's axis, and `acc * x` broadcasts nothing), or None."""
    if len(s.args) != 1 or s.kwargs:
        return None
    shape = s.args[0]
    items = shape.args if isinstance(shape, Call) and shape.callee() is ops.tuple_of and not shape.kwargs else [shape]
    axes = [_size_of(v, of) for v in items]
    return Arr("f", tuple(axes)) if items and None not in axes else None


_SET_READERS = (builtins.sorted, ops.sequence, builtins.len, operator.contains)


def _sets_of_ints(fn: Function, resolve: Callable[[Call], tuple[Any, Any]]) -> dict:
    """{set display: the values put in it}, for the sets made here (`{k % 4 for k in ks}`: `set_of()` and `.add`)
    that are only added to, sorted, walked, measured and asked for membership: their items are what was put in,
    so `sorted(s)` and a loop over s give lists of those (typed when they are ints, ir/types.Lst)."""
    found: dict = {}
    for b in fn.blocks:
        for s in b.stmts:
            if resolve(s)[0] is ops.set_of and not s.kwargs:
                found[s] = list(s.args)
    if not found:
        return found
    bad: set = set()
    for b in fn.blocks:
        for phi in b.phis:
            bad.update(v for v in phi.incoming.values() if v in found)
        for s in b.stmts:
            callee = resolve(s)[0]
            for k, a in enumerate([s.fn, *s.args, *s.kwargs.values()]):
                if a not in found:
                    continue
                if callee is set.add and k == 1 and len(s.args) == 2 and not s.kwargs and a is not s.args[1]:
                    found[a].append(s.args[1])
                elif not (k == 1 and len(s.args) == 1 and not s.kwargs and callee in _SET_READERS or
                          callee is operator.contains and k == 1 and len(s.args) == 2 and a is not s.args[1]):
                    bad.add(a)
        if isinstance(b.term, Return) and b.term.value in found:
            bad.add(b.term.value)
    return {k: v for k, v in found.items() if k not in bad}


# Operations that make a new bool array (a mask) of their operands, and reads that leave a mask as it was.
_MASK_MAKERS = (operator.gt, operator.ge, operator.lt, operator.le, operator.eq, operator.ne, operator.invert,
                operator.and_, operator.or_, operator.xor, np.greater, np.greater_equal, np.less, np.less_equal,
                np.equal, np.not_equal, np.isfinite, np.isnan, np.isinf, np.logical_not, np.logical_and,
                np.logical_or, np.logical_xor)
_MASK_READERS = (np.sum, np.count_nonzero, np.any, np.all, builtins.len)


def _is_one_of(fn: Any, options: tuple) -> bool:
    return any(fn is o for o in options)


def mark_masks(fn: Function, resolve: Callable[[Call], tuple[Any, Any]]) -> None:
    """Name the number of items a mask selects (`y[mask]`, `y_bar[mask]`): `selection_size` on each mask made here
    (a comparison, `~m`, `m1 & m2`, `np.isfinite(x)`: a new bool array) that nothing can write: it is only an index
    (`x[mask]`, `x[mask] = v`), an operand of another mask's making, or read whole (`np.sum(mask)`), never
    handed on, viewed (`mask[1:]`), written, joined at a phi or returned.  Every selection by it then picks as
    many items, so ir/types.getitem_type gives their axes one size symbol: `np.sin(x[mask]) * x[mask]` broadcasts
    nothing, and the adjoint of a write `y[mask] = v` has the shape of v.  Cleared where that no longer holds."""
    masks = [s for b in fn.blocks for s in b.stmts if not s.kwargs and _is_one_of(resolve(s)[0], _MASK_MAKERS)]
    if not masks:
        return
    bad: set = set()
    candidates = set(masks)
    for b in fn.blocks:
        for phi in b.phis:
            bad.update(v for v in phi.incoming.values() if v in candidates)
        if b.term is not None:
            bad.update(v for v in b.term.operands() if v in candidates)
        for s in b.stmts:
            if s.fn in candidates:
                bad.add(s.fn)
            bad.update(v for v in s.kwargs.values() if v in candidates)
            if not any(a in candidates for a in s.args):
                continue
            callee = resolve(s)[0]
            for k, a in enumerate(s.args):
                if a not in candidates:
                    continue
                ok = callee is operator.getitem and k == 1 and len(s.args) == 2 or \
                    callee is operator.setitem and k == 1 and len(s.args) == 3 or \
                    not s.kwargs and _is_one_of(callee, _MASK_MAKERS) or \
                    not s.kwargs and len(s.args) == 1 and _is_one_of(callee, _MASK_READERS)
                if not ok:
                    bad.add(a)
    for k, m in enumerate(masks):
        if m in bad:
            if hasattr(m, "selection_size"):
                del m.selection_size  # type: ignore[attr-defined]
        else:
            m.selection_size = f"sel{k}"  # type: ignore[attr-defined]


@functools.lru_cache(maxsize=4096)
def _code_sets_a_shape(code: pytypes.CodeType) -> bool:
    """Does this code (or code nested in it) write an attribute named shape (`a.shape = s`, setattr(a, "shape", s))?"""
    if "shape" in code.co_names and any(i.opname == "STORE_ATTR" and i.argval == "shape" for i in dis.get_instructions(code)):
        return True
    if "setattr" in code.co_names and "shape" in code.co_consts:
        return True
    return any(isinstance(c, pytypes.CodeType) and _code_sets_a_shape(c) for c in code.co_consts)


def _calls_a_shape_setter(f: Any, depth: int = 3, seen: Optional[set] = None) -> bool:
    """Does the user's function f, or a function of the user's it names (a few calls deep), set an array's shape?
    (Code of NumPy and the other libraries with rules is not differentiated line by line: not looked at.)"""
    f = getattr(f, "__func__", f)
    code = getattr(f, "__code__", None)
    if not isinstance(code, pytypes.CodeType) or (getattr(f, "__module__", None) or "").split(".")[0] in _LIBRARIES:
        return False
    seen = set() if seen is None else seen
    if code in seen:
        return False
    seen.add(code)
    if _code_sets_a_shape(code):
        return True
    if depth <= 0:
        return False
    names = getattr(f, "__globals__", {})
    return any(_calls_a_shape_setter(names.get(n), depth - 1, seen) for n in code.co_names if callable(names.get(n)))


_LIBRARIES = frozenset({"numpy", "scipy", "mooncake_ast", "builtins", "math", "cmath", "operator", "functools",
                        "itertools", "collections"})


def _sets_a_shape(fn: Function, resolve: Callable[[Call], tuple[Any, Any]]) -> bool:
    """Does fn set an array's shape in place (`a.shape = (2, 3)`, as NumPy's tensorsolve does), itself or in a
    function of the user's it calls?  The array then has another number of axes from there on, under every name
    it has (an alias, an item of a list, what np.asarray handed back, the caller's name of what a helper
    reshaped), which the types of the values, fixed in SSA form, cannot follow: every array of such a function is
    typed with its number of axes unknown (generated code then asks at run time; typed with the old rank, `a[1]`
    was taken for a number where it was a row of a, and its adjoint was dropped: a zero gradient, silently)."""
    # (the module's names as they are now, where the resolver has them, for functions handed to calls by name:
    # generated forward code calls the user's helpers as `fcall(helper, ...)`; only to widen types, never to run)
    names = getattr(getattr(resolve, "__self__", None), "g", None) or {}
    for b in fn.blocks:
        for s in b.stmts:
            callee, rule = resolve(s)
            if callee is setattr and len(s.args) == 3 and isinstance(s.args[1], Const) and s.args[1].value == "shape":
                return True
            named = [a.value for a in s.args if isinstance(a, Const)]
            named += [names.get(a.name) for a in s.args if isinstance(a, Global)]  # (`fcall(helper, ...)`)
            if (rule is None and _calls_a_shape_setter(callee)) or any(_calls_a_shape_setter(f) for f in named):
                return True
    return False


def infer_types(fn: Function, param_types: dict[str, AVal], resolve: Callable[[Call], tuple[Any, Any]],
                constant: Optional[Callable[[Value], Any]] = None,
                call_type: Optional[Callable[[Call, list, Callable], Optional[AVal]]] = None) -> dict[Value, AVal]:
    """The type of every statement and phi of fn.  `resolve(s)` gives a call's callee (and rule);
    `constant(v)` (optional) what a module attribute denotes, or raises LookupError; `call_type(s, args, of)`
    (optional) the type of a call of the user's own code, from the callee's code (reverse/call_types.py,
    reverse/local_objects.py; `of` gives any value's current type), or None where it does not know the callee."""
    types: dict[Value, AVal] = {}
    count = uses(fn)
    mark_masks(fn, resolve)
    index_tuples = _index_tuples(fn, count)
    sets = _sets_of_ints(fn, resolve)
    reshaped = _sets_a_shape(fn, resolve)

    def of(v: Value) -> AVal:
        t = _of(v)
        return Arr(t.dtype, None) if reshaped and isinstance(t, Arr) and t.axes is not None else t

    def _of(v: Value) -> AVal:
        if isinstance(v, Const):
            x = v.value
            if x is None:
                return NONE
            if type(x) in (float, int, bool):
                return type_of_argument(x)
            return UNKNOWN
        if isinstance(v, Param):
            return param_types.get(v.name, UNKNOWN)
        if isinstance(v, (Call, Phi)):
            return types.get(v, _BOTTOM)
        return UNKNOWN  # globals and closure cells: whatever they hold when the code runs

    def result(s: Call) -> AVal:
        args = [of(a) for a in s.args]
        if _BOTTOM in args:
            return _BOTTOM
        if call_type is not None:
            t = call_type(s, args, of)
            if t is not None:
                return t
        callee = resolve(s)[0]
        if callee in (np.zeros, np.ones, np.empty):
            made = _made_of_sizes(s, of)
            if made is not None:
                return made
        if callee is np.linspace and len(s.args) == 3 and not s.kwargs and all(isinstance(of(a), Num) for a in s.args[:2]):
            size = _size_of(s.args[2], of)  # (`np.linspace(0.5, 1.5, x.shape[0])`: as many points as x has items)
            if size is not None:
                return Arr("f", (size,))
        if callee in (np.array, np.asarray) and len(s.args) == 1 and not s.kwargs:
            d = s.args[0]
            if isinstance(d, Call) and d.callee() in (ops.list_of, ops.tuple_of) and count.get(d) == 1 and not d.kwargs:
                items = [of(a) for a in d.args]  # (a display used only here: nothing changed it in between)
                if _BOTTOM in items:
                    return _BOTTOM
                t = array_of_items(items)
                return t if t is not UNKNOWN else literal_array(d)  # (`np.array([[1.0, 2.0], [3.0, 4.0]])`)
        if getattr(callee, "__module__", None) in _NUMPY_MODULES:
            # A display of literal floats handed to NumPy (`np.outer(x, [1.0, -0.5])`) is read as the float array
            # NumPy makes of it; only displays with a float (ints there are shapes and axes) and used only here.
            args = [_float_display(a, count) or t for a, t in zip(s.args, args)]
        if callee in (np.concatenate, np.stack) and 1 <= len(s.args) <= 2 and set(s.kwargs) <= {"axis"}:
            d = s.args[0]
            axis = s.args[1] if len(s.args) == 2 else s.kwargs.get("axis", Const(0))
            if isinstance(d, Call) and d.callee() in (ops.list_of, ops.tuple_of) and count.get(d) == 1 and not d.kwargs:
                items = [of(a) for a in d.args]
                if _BOTTOM in items:
                    return _BOTTOM
                return joined_items(callee, items, literal(axis))
        if s in index_tuples:
            return Tup(tuple(_index_part(v, t, count) for v, t in zip(s.args, args)))
        if callee in (builtins.sorted, ops.sequence) and len(s.args) == 1 and not s.kwargs and s.args[0] in sets:
            item = _BOTTOM
            for v in sets[s.args[0]]:
                item = join(item, of(v))
            if item is _BOTTOM and sets[s.args[0]]:
                return _BOTTOM
            # (an empty set: a list of nothing, typed as ints; items without a derivative only)
            return Lst(INT if item is _BOTTOM else item) if item is _BOTTOM or item in (INT, BOOL) else UNKNOWN
        if callee is builtins.sorted and len(s.args) == 1 and not s.kwargs and isinstance(args[0], Lst) and \
                args[0].item in (INT, BOOL):
            return Lst(args[0].item)  # (a new list of the same ints)
        return result_type(callee, s, args, constant)

    changed = True
    while changed:
        changed = False
        for b in fn.blocks:
            for phi in b.phis:
                t = _BOTTOM
                for v in phi.incoming.values():
                    if isinstance(v, Const) and type(v.value).__name__ == "_Undefined":
                        continue
                    t = join(t, of(v))
                new = join(types.get(phi, _BOTTOM), t)
                if new != types.get(phi, _BOTTOM):
                    types[phi], changed = new, True
            for s in b.stmts:
                new = join(types.get(s, _BOTTOM), result(s))
                if new != types.get(s, _BOTTOM):
                    types[s], changed = new, True
    if reshaped:
        types = {v: Arr(t.dtype, None) if isinstance(t, Arr) else t for v, t in types.items()}
    return {v: (UNKNOWN if t is _BOTTOM else t) for v, t in types.items()}
