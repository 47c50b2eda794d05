"""Method calls on values of known type, resolved to the functions they are (a pass over the IR).

`x.sum(axis=0)` is two statements, `m = getattr(x, "sum"); m(axis=0)`, and without types
the callee is only known when the code runs, so reverse mode dispatches it (a recorded
pullback, identity-keyed storage for x).  When ir/types.py knows x is a float ndarray,
the call is `np.sum(x, axis=0)`: a rule applies, the pullback is plain NumPy, and x needs
no storage.  Mooncake resolves calls by type the same way; this is that step for the
common ndarray methods whose NumPy function takes the same arguments in the same order.
"""
from __future__ import annotations

import builtins
import operator
from typing import Any, Callable, Optional

import numpy as np

from .. import ops
from ..method_out import ndarray_method_reaches_out
from .analysis import used_only_by, uses
from .nodes import Call, Const, Function, Value
from .types import Dct, is_float_array

# method name -> (NumPy function, keyword arguments the method and the function share)
_METHODS: dict[str, tuple[Any, frozenset]] = {
    "sum": (np.sum, frozenset({"axis", "keepdims"})),
    "mean": (np.mean, frozenset({"axis", "keepdims"})),
    "prod": (np.prod, frozenset({"axis", "keepdims"})),
    "max": (np.max, frozenset({"axis", "keepdims"})),
    "min": (np.min, frozenset({"axis", "keepdims"})),
    "std": (np.std, frozenset({"axis", "ddof", "keepdims"})),
    "var": (np.var, frozenset({"axis", "ddof", "keepdims"})),
    "cumsum": (np.cumsum, frozenset({"axis"})),
    "cumprod": (np.cumprod, frozenset({"axis"})),
    "copy": (np.copy, frozenset()),
    "dot": (np.dot, frozenset()),
    "clip": (np.clip, frozenset()),
    "trace": (np.trace, frozenset()),
    "ravel": (np.ravel, frozenset()),
    "transpose": (np.transpose, frozenset()),
    "reshape": (np.reshape, frozenset()),
}
# Methods that take their shape or axes spread out (`x.reshape(3, 4)`) where the function takes one tuple.
_PACKED = {"reshape", "transpose"}


def has_methods_to_resolve(fn: Function) -> bool:
    """Does fn read an attribute that resolve_methods may rewrite (so typing it first can pay)?"""
    return any(s.callee() is builtins.getattr and len(s.args) == 2 and isinstance(s.args[1], Const) and
               (s.args[1].value in _METHODS or s.args[1].value == "get") for b in fn.blocks for s in b.stmts)


def resolve_methods(fn: Function, types: dict[Value, Any], type_of_param: Callable[[Value], Any],
                    attribute_t: bool = True, callee: Optional[Callable[[Call], tuple]] = None) -> int:
    """Rewrite `getattr(x, name)(...)` into `np.<name>(x, ...)` where x is a float array; returns how many.
    `attribute_t`: `x.T` too (forward mode keeps it: the attribute's tangent takes batched tangents, np.transpose's
    rule does not).  `callee` (a resolver's): `np.add(c, b, out=c)` becomes `c += b` too (`_ufunc_out_update`)."""
    count = uses(fn)
    done = 0
    for b in fn.blocks:
        for s in list(b.stmts):
            if callee is not None and _ufunc_out_update(fn, b, s, count, types, type_of_param, callee):
                done += 1
                count = uses(fn)
                continue
            if s.callee() is builtins.getattr and len(s.args) == 2 and not s.kwargs and isinstance(s.args[1], Const) \
                    and s.args[1].value == "T":
                obj = s.args[0]
                if attribute_t and is_float_array(types.get(obj) if obj in types else type_of_param(obj)):
                    s.fn, s.args = Const(np.transpose), [obj]  # (`x.T` is np.transpose(x), a view, for every rank)
                    done += 1
                continue
            m = s.fn
            if _dict_get(fn, s, m, count, types, type_of_param):
                done += 1
                continue
            if not (isinstance(m, Call) and m.callee() is builtins.getattr and len(m.args) == 2 and not m.kwargs
                    and isinstance(m.args[1], Const) and m.args[1].value in _METHODS and count.get(m) == 1):
                continue
            obj = m.args[0]
            t = types.get(obj) if obj in types else type_of_param(obj)
            np_fn, keywords = _METHODS[m.args[1].value]
            if not is_float_array(t) or not set(s.kwargs) <= keywords:
                continue
            if ndarray_method_reaches_out(m.args[1].value, len(s.args)):
                continue  # (`x.max(0, o)`: its output given positionally, moved to `out=` when the code runs)
            args = list(s.args)
            if m.args[1].value in _PACKED and len(args) > 1:
                packed = Call(Const(ops.tuple_of), args, loc=s.loc)
                packed.block = b
                b.stmts.insert(b.stmts.index(s), packed)
                args = [packed]
            if m.args[1].value == "transpose" and args and isinstance(args[0], Const) and args[0].value is None:
                args = []  # (`x.transpose(None)` reverses the axes, as np.transpose(x) does)
            s.fn, s.args = Const(np_fn), [obj, *args]
            if m.args[1].value == "copy" and not args and (t.axes is None or len(t.axes) > 1):
                s.kwargs = {"order": Const("C")}  # (`x.copy()` is C-ordered; np.copy keeps x's layout: `A.T.copy()`)
            home = m.block if getattr(m, "block", None) is not None else b
            home.stmts.remove(m)
            done += 1
    return done


# ufuncs whose `out=` call on their first operand is what the in-place operator of an ndarray runs
# (`c.__iadd__(b)` is `np.add(c, b, out=c)`)
_UFUNC_INPLACE = {np.add: operator.iadd, np.subtract: operator.isub, np.multiply: operator.imul,
                  np.true_divide: operator.itruediv, np.power: operator.ipow}


def _ufunc_out_update(fn: Function, b: Any, s: Call, count: dict, types: dict, type_of_param: Callable[[Value], Any],
                      callee: Callable[[Call], tuple]) -> bool:
    """`np.add(c, b, out=c)` of a float array c, as `c = c += b` (ndarray's in-place operator is that very call: same
    object, same casting, same errors): the reads of c after it, in its block, read the update's result (the same
    object), so the update is an SSA value that prepare.plain_inplace can make plain.  Only where c is read nowhere
    but in this block (no phi, no other block), so every later read is renamed.  True if rewritten."""
    if len(s.args) != 2 or set(s.kwargs) != {"out"} or s.kwargs["out"] is not s.args[0]:
        return False
    try:
        op = _UFUNC_INPLACE.get(callee(s)[0])
    except TypeError:
        return False
    c = s.args[0]
    if op is None or not is_float_array(types.get(c) if c in types else type_of_param(c)):
        return False
    here = sum(1 for st in b.stmts for o in st.operands() if o is c) + sum(1 for o in b.term.operands() if o is c)
    if count.get(c, 0) != here:
        return False
    m = s.fn
    s.fn, s.args, s.kwargs = Const(op), [c, s.args[1]], {}
    if isinstance(m, Call) and count.get(m) == 1 and m in b.stmts:
        b.stmts.remove(m)  # (`np.add` read from the module for this call only)
    after = False
    for st in b.stmts:
        if after:
            st.replace_operand(c, s)
        after = after or st is s
    b.term.replace_operand(c, s)
    return True


def _dict_get(fn: Function, s: Call, m: Any, count: dict, types: dict, type_of_param: Callable[[Value], Any]) -> bool:
    """`d.get("k", default)` of a dict whose keys the type names (`any:dict:a=num;c=num`): `d["k"]` when the key is
    there, the default itself when it is not (the derivative is specialised on the keys); True if rewritten."""
    if not (isinstance(m, Call) and m.callee() is builtins.getattr and len(m.args) == 2 and not m.kwargs and
            isinstance(m.args[1], Const) and m.args[1].value == "get" and count.get(m) == 1 and not s.kwargs and
            1 <= len(s.args) <= 2 and isinstance(s.args[0], Const) and isinstance(s.args[0].value, str)):
        return False
    obj = m.args[0]
    t = types.get(obj) if obj in types else type_of_param(obj)
    if not isinstance(t, Dct) or not only_read(obj, fn):
        return False
    if t.get(s.args[0].value) is not None:
        s.fn, s.args = Const(operator.getitem), [obj, s.args[0]]
    else:
        s.fn, s.args = Const(ops.identity), [s.args[1] if len(s.args) == 2 else Const(None)]
    home = m.block if getattr(m, "block", None) is not None else s.block
    home.stmts.remove(m)
    return True


def only_read(d: Value, fn: Function) -> bool:
    """Is every use of the dict d in fn a read by a constant key or a `.get` (nothing can add a key)?"""
    def read(st: Call) -> bool:
        if len(st.args) != 2 or st.args[0] is not d or not isinstance(st.args[1], Const):
            return False
        return st.callee() is operator.getitem or st.callee() is builtins.getattr and \
            st.args[1].value in ("get", "keys", "values", "items", "__contains__")

    return used_only_by(fn, d, read)
