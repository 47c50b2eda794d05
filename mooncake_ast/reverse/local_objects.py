"""Objects the function makes itself, typed by field: `p = Particle(x0, v0)` then `p.v - dt * k * p.x`.

An instance of a user class built inside the function is, without this, a value of unknown type, and so is
everything read from it: every operator on `p.x` is dispatched when the code runs and every adjoint goes
through the generic helpers.  A person knows that `p.x` is a float because the constructor stored one there
and nothing stored anything else; this module works out the same, and only where it is certain:

* the class is a plain one (`object` its only base, no `__slots__`, no `__getattr__`, `__getattribute__`,
  `__setattr__` or `__delattr__` of its own) whose `__init__` only stores its parameters or constants in
  fields (`self.x = x`), or a dataclass without `__post_init__` or default factories;
* the function uses the object only to read a field (`p.x`), to write one (`p.v = ...`) and to call
  methods that only read fields (`p.kinetic()`: `self` appears only as `self.field` or as `self.method(...)`
  of another such method), the bound method called at once and never kept;
* every value written to a field has the type the field got from the constructor (`settle_types` checks
  after inference and drops the object's type otherwise).

Then the object's type is `Obj` with its fields' types (numbers and float arrays of known rank; a type says
what a value is, and an array written in place through an alias keeps its type: whose adjoint lives where is
decided apart, by storage), reads of its fields have those types, and calls of its methods are typed from
their code (reverse/call_types.py) with `self` of that type.  What becomes plain is the arithmetic on what is
read from it; when every field is a number, reverse/object_fields.py also keeps the object's adjoint as one
variable per field.
"""
from __future__ import annotations

import ast
import builtins
import dataclasses
import inspect
import textwrap
import types
from dataclasses import dataclass
from typing import Any, Optional

from ..ir.nodes import Call, Const, Global
from ..ir.types import _BOTTOM, UNKNOWN, AVal, Num, Obj, is_float_array, type_of_argument



@dataclass(frozen=True)
class ClassShape:
    """How a class's constructor fills its fields: field -> the `__init__` parameter it stores (or a constant)."""

    cls: type
    params: tuple  # __init__'s parameters after self
    defaults: tuple  # ((parameter, default value), ...)
    fields: tuple  # ((field, parameter name or None), ...)
    constants: tuple  # ((field, value), ...) for fields stored from a constant


_SHAPES: dict = {}  # class -> (its __init__, its shape or None)
_READ_ONLY: dict = {}  # method function -> does it only read fields of self?


def class_shape(cls: Any) -> Optional[ClassShape]:
    """The shape of a class whose instances this module may type, or None."""
    if not isinstance(cls, type) or type(cls) is not type or cls.__mro__ != (cls, object):
        return None
    init = cls.__dict__.get("__init__")
    hit = _SHAPES.get(cls)
    if hit is not None and hit[0] is init:
        return hit[1]
    try:
        shape = _shape(cls, init)
    except Exception:  # noqa: BLE001 - a class we cannot read is simply not typed
        shape = None
    _SHAPES[cls] = (init, shape)
    return shape


def _shape(cls: type, init: Any) -> Optional[ClassShape]:
    if "__slots__" in cls.__dict__ or any(n in cls.__dict__ for n in
                                          ("__getattr__", "__getattribute__", "__setattr__", "__delattr__")):
        return None
    if type(init) is not types.FunctionType:
        return None
    sig = inspect.signature(init)
    ps = list(sig.parameters.values())
    if not ps or any(p.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD for p in ps):
        return None
    params = tuple(p.name for p in ps[1:])
    defaults = tuple((p.name, p.default) for p in ps[1:] if p.default is not inspect.Parameter.empty)
    if dataclasses.is_dataclass(cls):
        if "__post_init__" in cls.__dict__:
            return None
        fs = [f for f in dataclasses.fields(cls)]
        if any(not f.init or f.default_factory is not dataclasses.MISSING for f in fs):
            return None
        fields = tuple((f.name, f.name) for f in fs)
        constants: tuple = ()
    else:
        found = _init_stores(init, ps[0].name, set(params))
        if found is None:
            return None
        fields, constants = found
    names = [f for f, _ in fields] + [f for f, _ in constants]
    if len(set(names)) != len(names) or any(n in cls.__dict__ and hasattr(type(cls.__dict__[n]), "__get__")
                                            for n in names):
        return None  # (a class attribute of a field's name that is a descriptor decides what reading it gives)
    return ClassShape(cls, params, defaults, fields, constants)


def _init_stores(init: types.FunctionType, self_name: str, params: set) -> Optional[tuple]:
    """((field, parameter), ...), ((field, constant), ...) if `__init__` only stores parameters and constants."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(init)))
    fn = tree.body[0]
    if not isinstance(fn, ast.FunctionDef) or fn.decorator_list:
        return None
    body = fn.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # (the docstring)
    fields, constants = [], []
    for st in body:
        if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Attribute)
                and isinstance(st.targets[0].value, ast.Name) and st.targets[0].value.id == self_name):
            return None
        field = st.targets[0].attr
        if isinstance(st.value, ast.Name) and st.value.id in params:
            fields.append((field, st.value.id))
        elif isinstance(st.value, ast.Constant) and type(st.value.value) in (int, float, bool):
            constants.append((field, st.value.value))
        else:
            return None
    return tuple(fields), tuple(constants)


def read_only_method(shape: ClassShape, name: str, seen: Optional[set] = None) -> Optional[types.FunctionType]:
    """The method `name` of the class if it only reads fields of self (and calls such methods of self), else None."""
    fn = shape.cls.__dict__.get(name)
    if type(fn) is not types.FunctionType or name.startswith("__") or fn.__code__.co_flags & 0x2A0:
        return None
    if fn in _READ_ONLY:
        return fn if _READ_ONLY[fn] else None
    seen = set() if seen is None else seen
    if name in seen:
        return fn  # (mutual recursion: judged by the other methods' own reads)
    seen.add(name)
    try:
        ok = _only_reads(shape, fn, seen)
    except Exception:  # noqa: BLE001 - a method we cannot read is not typed
        ok = False
    _READ_ONLY[fn] = ok
    return fn if ok else None


def _only_reads(shape: ClassShape, fn: types.FunctionType, seen: set) -> bool:
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef) or node.decorator_list or not node.args.args:
        return False
    me = node.args.args[0].arg
    fields = {f for f, _ in shape.fields} | {f for f, _ in shape.constants}
    parents = {child: parent for parent in ast.walk(node) for child in ast.iter_child_nodes(parent)}
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id == me:
            up = parents.get(n)
            if not (isinstance(up, ast.Attribute) and up.value is n and isinstance(up.ctx, ast.Load)):
                return False
            if up.attr in fields:
                continue
            call = parents.get(up)
            if not (isinstance(call, ast.Call) and call.func is up and read_only_method(shape, up.attr, seen)):
                return False
        elif isinstance(n, (ast.Global, ast.Nonlocal)) or (isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                                                            and n.func.id in ("super", "vars", "setattr", "delattr")):
            return False
    return True


# ---------------------------------------------------------------- the function's own objects


def _callee_class(resolver: Any, s: Call) -> Optional[ClassShape]:
    f = s.fn
    if not isinstance(f, Global) or f.name not in resolver.g:
        return None
    return class_shape(resolver.g[f.name])


def find(ir: Any, resolver: Any) -> dict:
    """The constructor calls whose objects the function only reads and writes by field and calls read-only methods
    of: {call: (shape, {field: the value stored by the constructor})}."""
    uses: dict = {}
    for b in ir.blocks:
        for phi in b.phis:
            for v in phi.incoming.values():
                uses.setdefault(v, []).append(phi)
        for s in b.stmts:
            for a in s.operands():
                uses.setdefault(a, []).append(s)
        for v in getattr(b.term, "operands", lambda: ())():
            uses.setdefault(v, []).append(b.term)
    out: dict = {}
    for b in ir.blocks:
        for s in b.stmts:
            if not isinstance(s, Call):
                continue
            shape = _callee_class(resolver, s)
            if shape is None:
                continue
            stored = _stored(shape, s)
            if stored is None or not _used_by_field(shape, s, uses):
                continue
            out[s] = (shape, stored)
    return out


def _stored(shape: ClassShape, s: Call) -> Optional[dict]:
    """{field: IR value} the constructor call stores (its arguments, defaults and constants), or None."""
    if len(s.args) > len(shape.params) or set(s.kwargs) - set(shape.params[len(s.args):]):
        return None
    given = dict(zip(shape.params, s.args))
    given.update(s.kwargs)
    defaults = dict(shape.defaults)
    out = {}
    for field, param in shape.fields:
        if param in given:
            out[field] = given[param]
        elif param in defaults and type(defaults[param]) in (int, float, bool):
            out[field] = Const(defaults[param])
        else:
            return None
    for field, value in shape.constants:
        out[field] = Const(value)
    return out


def _used_by_field(shape: ClassShape, p: Call, uses: dict) -> bool:
    fields = {f for f, _ in shape.fields} | {f for f, _ in shape.constants}
    for u in uses.get(p, []):
        if not isinstance(u, Call) or u.kwargs or u.fn is p:
            return False
        fn = u.callee()
        name = u.args[1].value if len(u.args) >= 2 and isinstance(u.args[1], Const) else None
        if fn is builtins.getattr and len(u.args) == 2 and u.args[0] is p and isinstance(name, str):
            if name in fields:
                continue
            if read_only_method(shape, name) is None:
                return False
            if not all(isinstance(c, Call) and c.fn is u and u not in c.args and u not in c.kwargs.values()
                       for c in uses.get(u, [])):
                return False  # (the bound method is only called, never kept)
            continue
        if fn is builtins.setattr and len(u.args) == 3 and u.args[0] is p and u.args[2] is not p and name in fields:
            continue
        return False
    return True


def object_type(found: dict, s: Call, type_of: Any) -> AVal:
    """The type of the object constructor call s makes: its fields' types (numbers and float arrays; others unknown)."""
    _, stored = found[s]
    items = []
    for field, v in sorted(stored.items()):
        t = type_of_argument(v.value) if isinstance(v, Const) else type_of(v)
        if t is _BOTTOM:
            return t  # (not seen yet: the fixpoint comes back)
        items.append((field, t if isinstance(t, Num) or is_float_array(t) else UNKNOWN))
    return Obj(tuple(items))


def method_of(found: dict, s: Call) -> Optional[tuple]:
    """(the object's constructor call, the method) if s calls a read-only method of one of the function's objects."""
    f = s.fn
    if not (isinstance(f, Call) and f.callee() is builtins.getattr and len(f.args) == 2 and f.args[0] in found):
        return None
    shape = found[f.args[0]][0]
    name = f.args[1].value
    method = read_only_method(shape, name) if isinstance(name, str) else None
    return (f.args[0], method) if method is not None else None


def writes_keep_types(ir: Any, found: dict, types_: dict, type_of: Any) -> set:
    """The constructor calls of `found` some field write of which stores a value of another type than the field's."""
    bad = set()
    for b in ir.blocks:
        for u in b.stmts:
            if isinstance(u, Call) and u.callee() is builtins.setattr and len(u.args) == 3 and u.args[0] in found:
                t = types_.get(u.args[0])
                want = t.get(u.args[1].value) if isinstance(t, Obj) else None
                if want is not None and want is not UNKNOWN and type_of(u.args[2]) != want:
                    bad.add(u.args[0])
    return bad
