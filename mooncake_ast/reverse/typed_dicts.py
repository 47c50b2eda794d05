"""Dicts of named float arrays (model parameters) read by constant keys, objects whose fields are float
arrays read by name, and tuples of float arrays and floats read by constant index or unpacked
(`W, b = params`): one adjoint variable per key, field or item.

`params["W"] @ x + params["b"]` with `params` a dict of float arrays is where a person writes
`W_bar = ...; b_bar = ...; return {"W": W_bar, "b": b_bar}`, and `self.W @ x + self.b` in a method of a
layer the same with the object's tangent at the end.  When the call passes such a dict or object
(reverse/argument_kinds.kinds_of types it: `any:dict:W=f.nn;b=f.n`, `obj:fields:W=f.nn;b=f.n`, its arrays
sharing no memory with any other argument) and this function only reads it by constant keys or field
names, and only reads what it gets (operations that make new arrays, as for reverse/buffers.py), each
key's adjoint is a local variable and the adjoint of the whole is built from them at the end; no
identity-keyed storage.
"""
from __future__ import annotations

import builtins
import operator
from typing import TYPE_CHECKING, Any

from .. import ops
from ..ir.nodes import Call, Const, Param, Value
from ..ir.types import NOT_LITERAL, Arr, Dct, Num, Obj, Tup, literal
from ..tangents import MutableTangent, NoTangent
from .buffers import reads_only, uses_of

if TYPE_CHECKING:
    from .transform import ReverseTransform

_READ = {Dct: operator.getitem, Obj: builtins.getattr, Tup: operator.getitem}  # how the function reads a part


def _key(t: Any, v: Value) -> Any:
    """The key or field a constant read names (a tuple's index made non-negative), or None if it names none."""
    k = literal(v)
    if isinstance(t, Tup):
        return k % len(t.items) if type(k) is int and -len(t.items) <= k < len(t.items) else None
    return k if k is not NOT_LITERAL and isinstance(v, Const) and t.get(k) is not None else None


def _reads_parts(rt: "ReverseTransform", v: Value, t: Any, uses: dict, unpacked: dict, root: Param) -> bool:
    """Is every use of v (the parameter, or `unpack` of a tuple) a constant read of one part, each part only read?"""
    for s, pos in uses.get(v, []):
        if not (isinstance(s, Call) and pos == 0 and not s.kwargs):
            return False
        fn = rt.resolver.callee(s)[0]
        if isinstance(t, Tup) and v is root and fn is ops.unpack and literal(s.args[1]) == len(t.items):
            unpacked[s] = root  # `W, b = params`: its reads are reads of the tuple's items
            if not _reads_parts(rt, s, t, uses, unpacked, root):
                return False
            continue
        if not (fn is _READ[type(t)] and len(s.args) == 2 and _key(t, s.args[1]) is not None):
            return False
        if isinstance(rt.type_of(s), Arr) and not reads_only(rt, s, uses, None):
            return False  # an item written, viewed or passed on: storage keeps it right
    return True


def find_typed_dicts(rt: "ReverseTransform") -> set:
    """The dict, object and tuple parameters read only by constant keys (and the `unpack` of such a tuple, which
    `root` maps back to it)."""
    uses = uses_of(rt)
    found = set()
    rt.typed_dict_root = {}
    # (and the tuples of numbers a user function returns, read the same way: `mean, var = stats(x)`)
    results = [s for s in rt.fresh_calls if isinstance(rt.type_of(s), Tup) and rt.type_of(s).items and
               all(isinstance(i, Num) for i in rt.type_of(s).items)]
    for p in [*rt.ir.params, *results]:
        t = rt.type_of(p)
        if type(t) not in _READ or p not in uses:
            continue
        unpacked: dict = {}
        if _reads_parts(rt, p, t, uses, unpacked, p):
            found.add(p)
            found.update(unpacked)
            rt.typed_dict_root.update(unpacked)
    return found


def root(rt: "ReverseTransform", v: Value) -> Value:
    return rt.typed_dict_root.get(v, v)


def exempt(rt: "ReverseTransform", s: Call, fn: Any) -> bool:
    return (fn in (operator.getitem, builtins.getattr) and len(s.args) == 2 or fn is ops.unpack) and \
        bool(s.args) and s.args[0] in rt.typed_dicts


def item_var(rt: "ReverseTransform", prefix: str, owner: Value, key: Any, zero: Value) -> str:
    """The pullback variable `%<prefix><owner>.<key>` holding the adjoint of one part of owner (a key, a field, a
    tuple position), defined as `zero` from the pullback's entry on, so that reads inside loops get their phis.
    (typed_dicts, object_fields and layer_lists keep their parts' adjoints this way.)"""
    var = f"%{prefix}{id(owner)}.{key}"
    if var not in rt.item_vars:
        rt.item_vars[var] = (owner, key)
        rt.b.write(var, zero, rt.rev.entry)
    return var


def _item_var(rt: "ReverseTransform", p: Value, key: str) -> str:
    return item_var(rt, "item", p, key, Const(NoTangent))


def reverse_read(rt: "ReverseTransform", s: Call) -> None:
    """`v = d["k"]`: `k_bar = k_bar + v_bar` (and nothing for `unpack` of a tuple: its reads are the items')."""
    if rt.resolver.callee(s)[0] is ops.unpack:
        return
    g = rt.take_adj(s)
    if g is None:
        return
    p = root(rt, s.args[0])
    var = _item_var(rt, p, _key(rt.type_of(p), s.args[1]))
    cur = rt.b.read(var)
    new = g if isinstance(cur, Const) and cur.value is NoTangent else rt.b.call(operator.add, [cur, g])
    rt.b.write(var, new)
    rt.adjoint_of.setdefault(new, s)


def adjoint(rt: "ReverseTransform", p: Value) -> Value:
    """The dict's adjoint: `{"W": W_bar, "b": b_bar}` (the symbolic zero for keys never read); an object's
    is its tangent, `MutableTangent({"W": W_bar, "b": b_bar})`; a tuple's `(mean_bar, var_bar)` (a parameter's,
    or a call's result's, handed to the call's pullback)."""
    parts: list = []
    t = rt.type_of(p)
    if isinstance(t, Tup):  # `(W_bar, b_bar)`
        reads = [f"%item{id(p)}.{k}" for k in range(len(t.items))]
        whole = rt.b.call(ops.tuple_of, [rt.b.read(var) if var in rt.item_vars else Const(NoTangent) for var in reads])
        if not isinstance(p, Param):
            # A call's result is a new tuple each time the call runs: in a loop, the next (earlier) run's items start
            # from zero, not from this run's adjoints (kept, they were handed to every earlier call again).
            for var in reads:
                if var in rt.item_vars:
                    rt.b.write(var, Const(NoTangent))
        return whole
    for key, _ in t.items:
        var = f"%item{id(p)}.{key}"
        parts += [Const(key), rt.b.read(var) if var in rt.item_vars else Const(NoTangent)]
    d = rt.b.call(ops.dict_of, parts)
    return d if isinstance(t, Dct) else rt.b.call(MutableTangent, [d])
