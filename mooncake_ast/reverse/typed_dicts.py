"""Dicts of named float arrays (model parameters) read by constant keys, and objects whose fields are
float arrays read by name: one adjoint variable per key or field.

`params["W"] @ x + params["b"]` with `params` a dict of float arrays is where a person writes
`W_bar = ...; b_bar = ...; return {"W": W_bar, "b": b_bar}`, and `self.W @ x + self.b` in a method of a
layer the same with the object's tangent at the end.  When the call passes such a dict or object
(reverse/runtime.kinds_of types it: `any:dict:W=f.nn;b=f.n`, `obj:fields:W=f.nn;b=f.n`, its arrays
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
from ..ir.types import Arr, Dct, Obj
from ..tangents import MutableTangent, NoTangent
from .buffers import reads_only, uses_of

if TYPE_CHECKING:
    from .transform import ReverseTransform

_READ = {Dct: operator.getitem, Obj: builtins.getattr}  # how the function reads a key or a field


def find_typed_dicts(rt: "ReverseTransform") -> set:
    uses = uses_of(rt)
    found = set()
    for p in rt.ir.params:
        t = rt.type_of(p)
        if type(t) not in _READ or p not in uses:
            continue
        ok = True
        for s, pos in uses[p]:
            if not (isinstance(s, Call) and pos == 0 and rt.resolver.callee(s)[0] is _READ[type(t)] and not s.kwargs
                    and len(s.args) == 2 and isinstance(s.args[1], Const) and t.get(s.args[1].value) is not None):
                ok = False
                break
            if isinstance(rt.type_of(s), Arr) and not reads_only(rt, s, uses, None):
                ok = False  # an item written, viewed or passed on: storage keeps it right
                break
        if ok:
            found.add(p)
    return found


def exempt(rt: "ReverseTransform", s: Call, fn: Any) -> bool:
    return fn in (operator.getitem, builtins.getattr) and len(s.args) == 2 and s.args[0] in rt.typed_dicts


def _item_var(rt: "ReverseTransform", p: Value, key: str) -> str:
    var = f"%item{id(p)}.{key}"
    if var not in rt.item_vars:
        rt.item_vars[var] = (p, key)
        rt.b.write(var, Const(NoTangent), rt.rev.entry)  # zero from the entry on (loops get their phis)
    return var


def reverse_read(rt: "ReverseTransform", s: Call) -> None:
    """`v = d["k"]`: `k_bar = k_bar + v_bar`."""
    g = rt.take_adj(s)
    if g is None:
        return
    var = _item_var(rt, s.args[0], s.args[1].value)
    cur = rt.b.read(var)
    new = g if isinstance(cur, Const) and cur.value is NoTangent else rt.b.call(operator.add, [cur, g])
    rt.b.write(var, new)
    rt.adjoint_of.setdefault(new, s)


def adjoint(rt: "ReverseTransform", p: Param) -> Value:
    """The dict's adjoint: `{"W": W_bar, "b": b_bar}` (the symbolic zero for keys never read); an object's
    is its tangent, `MutableTangent({"W": W_bar, "b": b_bar})`."""
    parts: list = []
    t = rt.type_of(p)
    for key, _ in t.items:
        var = f"%item{id(p)}.{key}"
        parts += [Const(key), rt.b.read(var) if var in rt.item_vars else Const(NoTangent)]
    d = rt.b.call(ops.dict_of, parts)
    return d if isinstance(t, Dct) else rt.b.call(MutableTangent, [d])
