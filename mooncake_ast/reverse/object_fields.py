"""Objects the function makes whose fields are numbers: one adjoint variable per field, as a person would keep.

`b = Body(x0, v0)`, then `b.v = b.v - dt * k * b.x / b.m` in a loop and `b.energy(k)` at the end: a person's
pullback keeps `b_x_bar`, `b_v_bar`, `b_m_bar`; a field read adds to its variable (`b_x_bar += g`), a field
write hands the variable to the written value and zeroes it (`t_bar = b_v_bar; b_v_bar = 0.0`), and the
constructor hands each variable to the argument the field was made from (`x0_bar += b_x_bar`).  No
identity-keyed storage, no dispatch: the forward pass makes the object and writes its fields plainly.

Which objects: those reverse/local_objects.py typed (the function only reads and writes them by field and calls
methods that only read them), every field a number (floats are immutable: nothing reaches a field's value
but the field) or a float array that nothing writes in place or hands on (`arrays_reached`: then a field read's
adjoint may wait in the field's variable until the constructor's reverse hands it to the array stored; an
object with array fields has no method calls left, inline.py having put them in line), each bound method called once, in the block that read it, with no field write in between
(the call's pullback is where the method's reads of the fields get their adjoints:
field_adjoints.method_self_adjoints collects them from what the method's pullback gave back or stored).
"""
from __future__ import annotations

import builtins
import operator

import numpy as np
from typing import TYPE_CHECKING, Any, Optional

from ..ir.nodes import Call, Const, Value
from ..ir.types import FLOAT, Num, Obj, is_float_array
from ..tangents import NoTangent
from .buffers import uses_of
from .cleanup import NUM_ZERO
from .cleanup import is_zero
from .field_adjoints import method_self_adjoints
from .typed_dicts import item_var

if TYPE_CHECKING:
    from .transform import ReverseTransform


def find(rt: "ReverseTransform") -> tuple[set, dict]:
    """(the constructor calls whose objects get field variables, {method call: its object's constructor call})."""
    uses = uses_of(rt)
    objects: set = set()
    method_calls: dict = {}
    for p in rt.local_objects:
        t = rt.types.get(p)
        if not isinstance(t, Obj) or not all(isinstance(ti, Num) or is_float_array(ti) for _, ti in t.items):
            continue
        calls = _method_calls(rt, p, t, uses)
        if calls is not None and not (calls and _array_fields(rt, p)):  # (methods: number fields only)
            objects.add(p)
            method_calls.update(calls)
    return objects, method_calls


def arrays_reached(rt: "ReverseTransform") -> set:
    """The objects with array fields some array of which (as stored, or as read from the field) keeps its adjoint in
    identity-keyed storage: something writes it in place, or hands it on, and the pullback must see the adjoint
    of a field read before it undoes that, not when the constructor's reverse hands the field's variable on."""
    out = set()
    for p in rt.field_objects:
        arrays = _array_fields(rt, p)
        if not arrays:
            continue
        stored = rt.local_objects[p][1]
        values = [stored[f] for f in arrays if f in stored]
        for b in rt.ir.blocks:
            for st in b.stmts:
                if st.callee() in (builtins.getattr, builtins.setattr) and st.args and st.args[0] is p and \
                        isinstance(st.args[1], Const) and st.args[1].value in arrays:
                    values.append(st if st.callee() is builtins.getattr else st.args[2])
        if any(v in rt.stored for v in values):
            out.add(p)
    return out


def _method_calls(rt: "ReverseTransform", p: Call, t: Obj, uses: dict) -> Optional[dict]:
    calls = {}
    for u, _ in uses.get(p, []):
        if not isinstance(u, Call) or u.callee() is not builtins.getattr or t.get(u.args[1].value) is not None:
            continue  # (field reads and writes: local_objects checked them)
        method_uses = uses.get(u, [])
        if len(method_uses) != 1:
            return None
        c, pos = method_uses[0]
        if not isinstance(c, Call) or pos != -1 or rt.home.get(c) is not rt.home.get(u):
            return None
        stmts = rt.home[u].stmts
        between = stmts[stmts.index(u):stmts.index(c)]
        if any(s.callee() is builtins.setattr and s.args[0] is p for s in between if isinstance(s, Call)):
            return None
        calls[c] = p
    return calls


def exempt(rt: "ReverseTransform", s: Call, fn: Any) -> bool:
    """Is s a statement of a field-variable object (its constructor, a field read or write, a method read) whose
    pullback this module writes, so it touches no storage?"""
    objects = rt.field_objects
    return s in objects or (s.callee() in (builtins.getattr, builtins.setattr) and bool(s.args) and s.args[0] in objects)


def is_field_var(var: str) -> bool:
    """Is var one of this module's variables (they only ever hold numbers)?"""
    return var.startswith("%field")


def _var(rt: "ReverseTransform", p: Value, field: str) -> str:
    return item_var(rt, "field", p, field, NUM_ZERO)


def _add(rt: "ReverseTransform", p: Value, field: str, g: Value) -> None:
    var = _var(rt, p, field)
    cur = rt.b.read(var)
    new = g if is_zero(cur) else rt.b.call(operator.add, [cur, g])
    rt.dense_values.add(new)
    rt.b.write(var, new)


def _float_fields(rt: "ReverseTransform", p: Value) -> list:
    return [f for f, t in rt.types[p].items if t == FLOAT]


def _array_fields(rt: "ReverseTransform", p: Value) -> list:
    return [f for f, t in rt.types[p].items if is_float_array(t)]


def _array_var(rt: "ReverseTransform", p: Value, field: str) -> str:
    """An array field's adjoint variable (the symbolic zero until a read adds to it: `NoTangent + g` is g)."""
    return item_var(rt, "afield", p, field, Const(NoTangent))


def reverse(rt: "ReverseTransform", s: Call, fn: Any) -> None:
    """The pullback of a statement `exempt` approved."""
    if s in rt.field_objects:  # `b = Body(x0, v0)`: x0_bar += b_x_bar; ...; then zero (an earlier object is another)
        stored = rt.local_objects[s][1]
        for field in _float_fields(rt, s):
            var = _var(rt, s, field)
            g = rt.b.read(var)
            v = stored[field]
            if not is_zero(g) and not isinstance(v, Const):
                rt.accumulate(v, g)
            rt.b.write(var, NUM_ZERO)
        for field in _array_fields(rt, s):
            var = _array_var(rt, s, field)
            g = rt.b.read(var)
            v = stored.get(field)
            if not _no_tangent(g) and v is not None and not isinstance(v, Const):
                rt.accumulate(v, g)
            rt.b.write(var, Const(NoTangent))
        return
    p, name = s.args[0], s.args[1].value
    if is_float_array(rt.types[p].get(name)):
        _reverse_array_field(rt, s, p, name)
        return
    if rt.types[p].get(name) != FLOAT:
        return  # (a method read: its call collected the fields' adjoints; an int field has none)
    if s.callee() is builtins.getattr:  # `v = b.x`: b_x_bar += v_bar
        g = rt.take_adj(s)
        if g is not None:
            _add(rt, p, name, g)
        return
    var = _var(rt, p, name)  # `b.x = v`: v_bar += b_x_bar; b_x_bar = 0.0
    g = rt.b.read(var)
    if not is_zero(g):
        rt.accumulate(s.args[2], g)
    rt.b.write(var, NUM_ZERO)


def _no_tangent(g: Value) -> bool:
    return isinstance(g, Const) and g.value is NoTangent


def _reverse_array_field(rt: "ReverseTransform", s: Call, p: Value, name: str) -> None:
    """`W = layer.W`: `layer_W_bar = layer_W_bar + W_bar`; `layer.W = V`: `V_bar += layer_W_bar`, then zero."""
    var = _array_var(rt, p, name)
    if s.callee() is builtins.getattr:
        g = rt.take_adj(s)
        if g is None:
            return
        cur = rt.b.read(var)
        fresh_zero = isinstance(cur, Call) and cur.callee() is np.zeros_like and cur in rt.dense_values and rt.is_dense(g)
        new = g if _no_tangent(cur) or fresh_zero else rt.b.call(operator.add, [cur, g])  # (0 + g is g: no pass)
        if isinstance(new, Call) and new is not g and (rt.is_dense(cur) or rt.is_dense(g)):
            rt.dense_values.add(new)  # (an array plus an array, or plus the symbolic zero: an array)
        rt.b.write(var, new)
        rt.adjoint_of.setdefault(new, s)
        return
    g = rt.b.read(var)
    if not _no_tangent(g):
        rt.accumulate(s.args[2], g)
    if rt.is_dense(g):  # (it stays an array: a zero one, `np.zeros_like(pos_bar)`, so a loop's phi of it is real)
        zero = rt.b.call(np.zeros_like, [g])
        rt.dense_values.add(zero)
        rt.b.write(var, zero)
    else:
        rt.b.write(var, Const(NoTangent))


def start_dense(rt: "ReverseTransform") -> None:
    """At the pullback's entry: the variable of each array field of an object made in a block every run passes once
    starts as a zero array like the array its constructor stored (the field's writes keep its type, sizes included),
    and stays an array (`_reverse_array_field`), so the phis of it a loop makes are real and what reads it is the
    plain NumPy (transform.is_dense: assumed, and proven once the pullback is built)."""
    for b in rt.ir.blocks:
        if b not in rt.top:
            continue
        for p in b.stmts:
            if p not in rt.field_objects or not rt.active(p):
                continue
            stored = rt.local_objects[p][1]
            for field in _array_fields(rt, p):
                v, t = stored.get(field), rt.types[p].get(field)
                if v is None or not all(a == "1" or a.startswith("n@") for a in t.axes):
                    continue  # (sizes not known to stay: the symbolic zero, as before)
                var = f"%afield{id(p)}.{field}"
                zero = rt.b.call(np.zeros_like, [rt.primal(v)])
                rt.dense_values.add(zero)
                rt.item_vars[var] = (p, field)
                rt.var_number[var] = len(rt.var_number)
                rt.b.write(var, zero)


def is_dense_array_var(var: str) -> bool:
    """Is var an array field's variable (`start_dense` made it an array from the entry on)?"""
    return var.startswith("%afield")


def method_adjoint(rt: "ReverseTransform", s: Call, f_bar: Value) -> None:
    """A method call's bound-method adjoint f_bar: its object's fields' adjoints, added to their variables."""
    p = rt.field_method_calls[s]
    fields = _float_fields(rt, p)
    if not fields:
        return
    parts = rt.b.call(method_self_adjoints, [rt.primal(p), f_bar, Const(tuple(fields))])
    parts.tuple_size = len(fields)  # type: ignore[attr-defined]
    for k, field in enumerate(fields):
        part = rt.b.call(operator.getitem, [parts, Const(k)])
        rt.dense_values.add(part)
        _add(rt, p, field, part)
