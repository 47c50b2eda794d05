"""Objects the function makes and only reads fields of, replaced by their fields: `p = State(x, v)` then `p.x`.

A small value class is how imperative code names the parts of a state: `s = State(s.x + dt * s.v, s.v - dt * k *
s.x)` in a loop, or `Vec2(self.x + o.x, self.y + o.y)` once a helper's `__add__` is in line (inline.py).  Kept as
objects, every field read and every constructor call goes through the run-time dispatcher, loop-carried objects
through identity-keyed adjoint storage, and the pullback reads `_mc.getattr_reverse(...)`.  A person who
differentiates such code by hand thinks of `s.x` and `s.v` as two numbers; Julia's compiler does the same before
Mooncake sees the code (scalar replacement of aggregates).  This pass does it on the IR, before types are inferred:
each field read is the value the constructor stored, and a phi of such objects (an object a loop carries, or one of
two made in the branches of an `if`) becomes one phi per field.

Only where nothing could tell the difference:

* the class is a plain one whose `__init__` only stores its parameters and constants in fields
  (reverse/local_objects.class_shape: no `__slots__`, no attribute hooks, no descriptor named like a field), called
  by its global name with arguments that bind to its parameters;
* the object, and every phi it reaches, is used only to read those fields (`getattr(obj, "x")`), to be unpacked
  (`x, y = p`) where the class's `__iter__` is `return iter((self.x, self.y))`, or by another such phi: never
  written, handed to a call, returned, stored, compared by identity or asked for anything else (a method,
  `__dict__`, its class), so no one could see that it was never made.

Arithmetic on numbers that nothing reads any more (`-self.x` of a `__neg__` in line whose `.y` alone is read) goes
once types are known (drop_dead_arithmetic): negation, addition, subtraction and multiplication of numbers cannot
fail or do anything else.

An object whose fields are also written (`acc.total += v`, also in a helper put in line) is replaced the same way
when it is used only by field reads and writes, never through a phi (so no other name can reach it): each field is
a variable, and SSA is built for it as for the function's own variables (Braun et al.: a read finds the last write
in its block, else asks the blocks before, with a phi where paths meet).  A field a read could find unwritten (a
field the constructor does not store, read on a path that never wrote it) keeps the object.

The class's global name is recorded as a binding, as for inlined methods (rebinding it makes the derivative stale).
"""
from __future__ import annotations

from typing import Any, Optional

import ast
import inspect
import operator
import textwrap
import types

from .. import ops
from ..ir.fold_tuples import fold_tuple_reads
from ..ir.nodes import Block, Call, Const, Function, Global, Phi, Value
from .cleanup import remove_redundant_phis, substitute
from .inline import written_globals
from .local_objects import ClassShape, class_shape


def replace_objects(ir: Function, user_globals: dict, bindings: dict) -> int:
    """Replace what qualifies (see the module docstring); the number of objects replaced."""
    rebound = written_globals(ir)
    made = {s: found for b in ir.blocks for s in b.stmts for found in [_construction(s, user_globals)]
            if found and s.fn.name not in rebound}
    if not made:
        return 0
    cls_of: dict = {s: shape for s, (shape, _) in made.items()}
    phis = [phi for b in ir.blocks for phi in b.phis]
    changed = True
    while changed:  # (the phis all of whose incoming values are objects of one class, found in any order)
        changed = False
        for phi in phis:
            if phi in cls_of:
                continue
            shapes = {id(cls_of.get(v)): cls_of.get(v) for v in phi.incoming.values() if v is not phi}
            if len(shapes) == 1 and None not in shapes.values() and phi.incoming:
                cls_of[phi] = next(iter(shapes.values()))
                changed = True
    readers = _readers(ir)
    while True:  # (drop each candidate used otherwise, and what it joins or is joined with: they escape with it)
        bad = {v for v, shape in cls_of.items() if not _only_read(v, shape, readers.get(v, []), cls_of)}
        for v in list(cls_of):
            if isinstance(v, Phi) and any(cls_of.get(i) is not cls_of[v] or i in bad for i in v.incoming.values()):
                bad.add(v)
        if not bad:
            break
        for v in bad:
            cls_of.pop(v, None)
            if isinstance(v, Phi):  # (its incoming objects flow into something that is not replaced)
                bad_in = [i for i in v.incoming.values() if i in cls_of]
                for i in bad_in:
                    cls_of.pop(i, None)
    if not cls_of:
        return 0
    fields: dict = {}  # object value -> {field: value}
    for v, shape in cls_of.items():
        if isinstance(v, Call):
            fields[v] = made[v][1]
        else:
            fields[v] = {}
            for name in _field_names(shape):
                p = Phi(hint=f"{v.hint}_{name}" if v.hint else name)
                p.loc = v.loc
                p.block = v.block
                fields[v][name] = p
    for v in cls_of:
        if isinstance(v, Phi):
            for name, p in fields[v].items():
                p.incoming = {pred: fields[i][name] for pred, i in v.incoming.items()}
    replace: dict = {}
    gone: set = set(cls_of)
    for v, shape in cls_of.items():
        for r in readers.get(v, []):
            if isinstance(r, Call) and r.callee() is getattr:
                replace[r] = fields[v][r.args[1].value]
                gone.add(r)
            elif isinstance(r, Call):  # (`x, y = p`: the fields its `__iter__` gives, as a tuple)
                r.fn, r.args = Const(ops.tuple_of), [fields[v][f] for f in _iterated_fields(shape.cls)]
    for b in ir.blocks:
        new_phis = []
        for phi in b.phis:
            if phi in cls_of:
                new_phis.extend(fields[phi].values())
            else:
                new_phis.append(phi)
        b.phis = new_phis
    substitute(ir, replace)
    for b in ir.blocks:
        b.stmts = [s for s in b.stmts if s not in gone]
    for s, (shape, _) in made.items():
        if s in cls_of:
            bindings[s.fn.name] = user_globals[s.fn.name]
    fold_tuple_reads(ir)
    return sum(1 for v in cls_of if isinstance(v, Call))


_CANNOT_FAIL = (operator.neg, operator.pos, operator.add, operator.sub, operator.mul)


def drop_dead_arithmetic(ir: Function, type_of: Any) -> None:
    """Statements `-a`, `a + b`, `a - b`, `a * b` of numbers (by their inferred types) whose results nothing reads:
    they cannot fail or do anything else (`-self.x` of a `__neg__` in line whose `.y` alone is read)."""
    from ..ir.types import Num

    while True:
        used = {o for b in ir.blocks for x in [*b.phis, *b.stmts, b.term] for o in x.operands()}
        dead = {x for b in ir.blocks for x in b.stmts if x not in used and x.callee() in _CANNOT_FAIL and
                not x.kwargs and x.args and all(isinstance(type_of(a), Num) for a in x.args)}
        if not dead:
            return
        for b in ir.blocks:
            b.stmts = [x for x in b.stmts if x not in dead]


_ITERATED: dict = {}  # class -> the fields its `__iter__` gives, or None


def _iterated_fields(cls: type) -> Optional[tuple]:
    """(field, ...) if the class's `__iter__` is `return iter((self.f, ...))` (or a list of them), else None."""
    fn = cls.__dict__.get("__iter__")
    if type(fn) is not types.FunctionType:
        return None
    if fn in _ITERATED:
        return _ITERATED[fn]
    out = None
    try:
        node = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
        body = node.body[1:] if node.body and isinstance(node.body[0], ast.Expr) and \
            isinstance(node.body[0].value, ast.Constant) else node.body
        self_name = node.args.args[0].arg if node.args.args else None
        if len(body) == 1 and isinstance(body[0], ast.Return):
            r = body[0].value
            if isinstance(r, ast.Call) and isinstance(r.func, ast.Name) and r.func.id == "iter" and \
                    fn.__globals__.get("iter", iter) is iter and len(r.args) == 1 and not r.keywords and \
                    isinstance(r.args[0], (ast.Tuple, ast.List)) and all(
                        isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == self_name
                        for e in r.args[0].elts):
                out = tuple(e.attr for e in r.args[0].elts)
    except (OSError, TypeError, SyntaxError, IndexError):
        out = None
    _ITERATED[fn] = out
    return out


def replace_written_objects(ir: Function, user_globals: dict, bindings: dict) -> int:
    """Objects whose fields are also written, as variables (see the module docstring); the number replaced."""
    if not any(isinstance(s.fn, Global) for b in ir.blocks for s in b.stmts):
        return 0
    readers = _readers(ir)
    rebound = written_globals(ir)
    done = 0
    for b in ir.blocks:
        for s in list(b.stmts):
            found = _construction(s, user_globals)
            if found is None or s.fn.name in rebound or not readers.get(s) or \
                    not _only_fields(s, readers[s], found[0]):
                continue
            if _promote(ir, s, b, found[1]):
                bindings[s.fn.name] = user_globals[s.fn.name]
                done += 1
                readers = _readers(ir)
    if done:
        remove_redundant_phis(ir)
        fold_tuple_reads(ir)
    return done


def _only_fields(obj: Call, readers: list, shape: ClassShape) -> bool:
    """Is obj used only as the object of `getattr(obj, "f")` and `setattr(obj, "f", v)` (its result unread), each
    f a field the constructor stores or a name the class does not have (a property's setter, a method, a class
    constant: reading or writing those is not a field's)?"""
    fields = set(_field_names(shape))
    for r in readers:
        if not (isinstance(r, Call) and r.callee() in (getattr, setattr) and not r.kwargs and r.args[0] is obj and
                len(r.args) == (2 if r.callee() is getattr else 3) and isinstance(r.args[1], Const) and
                type(r.args[1].value) is str and all(a is not obj for a in r.args[1:])):
            return False
        if r.args[1].value not in fields and hasattr(shape.cls, r.args[1].value):
            return False
    return True


_UNWRITTEN = Const(None)  # (a field no write reaches: the object stays)


def _promote(ir: Function, obj: Call, home: Block, initial: dict) -> bool:
    """Replace obj's field reads and writes by SSA values; False (and nothing changed) if a read may find none."""
    events: dict = {}  # block -> [(statement, field, value written or None for a read)]
    for b in ir.blocks:
        for st in b.stmts:
            if st.args and st.args[0] is obj and st.callee() in (getattr, setattr):
                events.setdefault(b, []).append((st, st.args[1].value, st.args[2] if st.callee() is setattr else None))
    new_phis: list = []
    at_entry: dict = {}

    def end_of(b: Block, field: str) -> Value:
        for st, f, v in reversed(events.get(b, [])):
            if f == field and v is not None:
                return v
        if b is home:
            return initial.get(field, _UNWRITTEN)
        return entry_of(b, field)

    def entry_of(b: Block, field: str) -> Value:
        key = (b, field)
        if key not in at_entry:
            if b is home or not b.preds:
                at_entry[key] = _UNWRITTEN
            elif len(b.preds) == 1:
                at_entry[key] = _UNWRITTEN  # (a cycle of single predecessors: only through unreachable code)
                at_entry[key] = end_of(b.preds[0], field)
            else:
                phi = Phi(hint=f"{obj.hint}_{field}" if obj.hint else field)
                phi.block = b
                at_entry[key] = phi
                new_phis.append((b, phi))
                phi.incoming = {p: end_of(p, field) for p in b.preds}
        return at_entry[key]

    replace: dict = {}
    for b, evs in events.items():
        current: dict = {}
        for st, f, v in evs:
            if v is not None:
                current[f] = v
            else:
                if f in current:
                    replace[st] = current[f]
                elif b is home and home.stmts.index(st) > home.stmts.index(obj):
                    replace[st] = initial.get(f, _UNWRITTEN)
                else:
                    replace[st] = entry_of(b, f)
    if _reaches_unwritten(list(replace.values())):
        return False
    for b, phi in new_phis:
        b.phis.append(phi)
    gone = {obj, *(st for evs in events.values() for st, _, _ in evs)}
    substitute(ir, replace)
    for b in ir.blocks:
        b.stmts = [st for st in b.stmts if st not in gone]
    return True


def _reaches_unwritten(values: list) -> bool:
    seen: set = set()
    todo = list(values)
    while todo:
        v = todo.pop()
        if v is _UNWRITTEN:
            return True
        if isinstance(v, Phi) and v not in seen:
            seen.add(v)
            todo.extend(v.incoming.values())
    return False


def _construction(s: Call, g: dict) -> Optional[tuple]:
    """(the class's shape, {field: value stored}) if s is `C(...)` of a plain class binding its arguments."""
    if not isinstance(s.fn, Global):
        return None
    shape = class_shape(g.get(s.fn.name))
    if shape is None or "__new__" in shape.cls.__dict__ or "__del__" in shape.cls.__dict__:
        return None  # (an object of its own making, or one whose end runs code: it must be made)
    bound = _bind(shape, s)
    if bound is None:
        return None
    out = {field: bound[param] for field, param in shape.fields}
    out.update((field, Const(value)) for field, value in shape.constants)
    return shape, out


def _bind(shape: ClassShape, s: Call) -> Optional[dict]:
    """{parameter: value} as Python would bind `C(*args, **kwargs)` to `__init__`, or None if it would not."""
    if len(s.args) > len(shape.params) or any(k not in shape.params for k in s.kwargs):
        return None
    bound: dict[str, Value] = dict(zip(shape.params, s.args))
    for k, v in s.kwargs.items():
        if k in bound:
            return None
        bound[k] = v
    for name, default in shape.defaults:
        bound.setdefault(name, Const(default))
    return bound if all(p in bound for p in shape.params) else None


def _field_names(shape: ClassShape) -> list:
    return [f for f, _ in shape.fields] + [f for f, _ in shape.constants]


def _readers(ir: Function) -> dict:
    """value -> the statements, phis and terminators that read it (one entry per read)."""
    out: dict = {}
    for b in ir.blocks:
        for x in [*b.phis, *b.stmts, b.term]:
            for o in x.operands():
                out.setdefault(o, []).append(x)
    return out


def _only_read(v: Any, shape: ClassShape, readers: list, cls_of: dict) -> bool:
    names = set(_field_names(shape))
    for r in readers:
        if isinstance(r, Phi):
            if r not in cls_of:
                return False
        elif isinstance(r, Call) and r.callee() is ops.unpack and len(r.args) == 2 and r.args[0] is v and \
                not r.kwargs and isinstance(r.args[1], Const):
            fields = _iterated_fields(shape.cls)
            if fields is None or len(fields) != r.args[1].value or not set(fields) <= names:
                return False
        elif not (isinstance(r, Call) and r.callee() is getattr and len(r.args) == 2 and not r.kwargs and
                  r.args[0] is v and isinstance(r.args[1], Const) and r.args[1].value in names):
            return False
    return True
