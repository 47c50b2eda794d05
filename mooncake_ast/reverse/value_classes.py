"""Which plain class an IR value is an instance of, and which of its methods an operator on it calls.

`v = v + dt * g` in a loop, with `v = Vec2(vx, 0.5)` before it and `Vec2.__add__` returning `Vec2(...)`: Python
calls `Vec2.__rmul__(g, dt)` and then `Vec2.__add__(v, ...)`, and a person reading the code knows it.  inline.py
puts those methods in line (and scalar_objects.py then keeps the fields as numbers) only where this module proves
which method runs, before types are inferred and so from the IR's shape alone:

* a value is of class C if it is `C(...)` of the plain class C read by its global name (reverse/local_objects:
  `object` its only base, no attribute hooks), a phi of such values, or the result of an operator whose method
  returns `C(...)` (checked in the method's source), the operands of which are such values or numbers;
* numbers are constants, parameters the derivative is specialised to numbers for, and arithmetic on numbers; an
  operator between a number and an instance of C runs C's method (its reflected one when the number is on the
  left: Python's and NumPy's scalars give way to a class they do not know), between two instances of exactly C
  its method on the left operand (no subclass whose reflected method would go first);
* a binary operator's method must not return `NotImplemented` (Python would then try the other operand): its one
  return is the class's constructor or arithmetic.
"""
from __future__ import annotations

import ast
import inspect
import operator
import textwrap
import types
from typing import Any, Optional

from ..ir.nodes import Call, Const, Global, Param, Phi

BINARY = {operator.add: ("__add__", "__radd__"), operator.sub: ("__sub__", "__rsub__"),
          operator.mul: ("__mul__", "__rmul__"), operator.truediv: ("__truediv__", "__rtruediv__"),
          operator.matmul: ("__matmul__", "__rmatmul__"), operator.pow: ("__pow__", "__rpow__")}
INPLACE = {operator.iadd: operator.add, operator.isub: operator.sub, operator.imul: operator.mul,
           operator.itruediv: operator.truediv, operator.imatmul: operator.matmul, operator.ipow: operator.pow}
INPLACE_NAMES = {operator.iadd: "__iadd__", operator.isub: "__isub__", operator.imul: "__imul__",
                 operator.itruediv: "__itruediv__", operator.imatmul: "__imatmul__", operator.ipow: "__ipow__"}
UNARY = {operator.neg: "__neg__", operator.pos: "__pos__", abs: "__abs__"}
_NUMBER_OPS = frozenset([*BINARY, *INPLACE, operator.neg, operator.pos, abs, float, int])


def operator_of(s: Call, g: Optional[dict] = None) -> Any:
    """The operator s applies (operator.add, ..., abs) if it is one of those this module knows, else None (`abs`
    read by its name only given the module's globals g, which must not rebind it)."""
    if isinstance(s.fn, Global):
        return abs if g is not None and s.fn.name == "abs" and "abs" not in g and len(s.args) == 1 else None
    fn = s.callee()
    try:
        return fn if fn in BINARY or fn in INPLACE or fn in UNARY else None
    except TypeError:  # (an unhashable constant callee)
        return None


def is_number(v: Any, numbers: frozenset, depth: int = 0) -> bool:
    """Is v certainly a Python or NumPy number (see the module docstring)?"""
    if isinstance(v, Const):
        return type(v.value) in (int, float, bool)
    if isinstance(v, Param):
        return v.name in numbers
    if isinstance(v, Call) and depth < 8 and not v.kwargs and v.args:
        fn = v.callee()
        try:
            known = fn in _NUMBER_OPS or getattr(fn, "__module__", None) == "math" and \
                type(fn) is types.BuiltinFunctionType
        except TypeError:
            return False
        return known and all(is_number(a, numbers, depth + 1) for a in v.args)
    return False


def class_of(v: Any, g: dict, numbers: frozenset) -> Optional[type]:
    """The plain class C of which v is certainly an instance (exactly C), or None."""
    from .local_objects import class_shape

    found = values_of(v, numbers)
    if found is None:
        return None
    made, _, through = found
    names = {c.fn.name for c in made}
    cls = g.get(next(iter(names))) if len(names) == 1 else None
    if not isinstance(cls, type) or class_shape(cls) is None:
        return None
    for s in through:
        method = dispatched(s, cls, numbers)
        if method is None or not _returns_instance(method, cls):
            return None
    return cls


def values_of(obj: Any, numbers: frozenset) -> Optional[tuple]:
    """(the constructor calls `C(...)` obj may be, every value on the way (obj, phis, operator results), the
    operator calls on the way), following phis and operators' non-number operands; None if obj may be anything
    else."""
    seen: set = set()
    made: list = []
    through: list = []
    todo = [obj]
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        if isinstance(v, Phi):
            todo.extend(v.incoming.values())
        elif isinstance(v, Call) and isinstance(v.fn, Global):
            made.append(v)
        elif isinstance(v, Call) and operator_of(v) is not None and \
                len(v.args) == (1 if operator_of(v) in UNARY else 2) and not v.kwargs:
            objects = [a for a in v.args if not is_number(a, numbers)]
            if not objects:
                return None
            todo.extend(objects)
            through.append(v)
        else:
            return None
    return (made, seen, through) if made else None


def dispatched(s: Call, cls: type, numbers: frozenset, g: Optional[dict] = None) -> Optional[types.FunctionType]:
    """The method of cls that Python runs for the operator call s, whose object operands are instances of
    exactly cls, or None if that is not one plain function of the class."""
    op = operator_of(s, g)
    if op is None or s.kwargs:
        return None
    if op in UNARY:
        name = UNARY[op] if len(s.args) == 1 else None
    elif len(s.args) != 2:
        return None
    else:
        if op in INPLACE:
            if INPLACE_NAMES[op] in cls.__dict__:
                return None  # (an in-place method of its own, `__iadd__`: it changes the object)
            op = INPLACE[op]
        forward, reflected = BINARY[op]
        name = reflected if is_number(s.args[0], numbers) else forward
    fn = cls.__dict__.get(name) if name else None
    if type(fn) is not types.FunctionType:
        return None
    if op not in UNARY and not _never_not_implemented(fn):
        return None
    return fn


def operands_in_order(s: Call, numbers: frozenset) -> list:
    """The arguments the dispatched method takes, `self` first: (b, a) for `a * b` with a a number."""
    if len(s.args) == 2 and is_number(s.args[0], numbers):
        return [s.args[1], s.args[0]]
    return list(s.args)


_RETURNS: dict = {}  # method -> its one return expression (ast) or None


def _return_of(fn: types.FunctionType) -> Optional[ast.expr]:
    if fn in _RETURNS:
        return _RETURNS[fn]
    out = None
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
        node = tree.body[0]
        returns = [r for r in ast.walk(node) if isinstance(r, ast.Return)]
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        if isinstance(node, ast.FunctionDef) and len(returns) == 1 and returns[0].value is not None and \
                "NotImplemented" not in names:
            out = returns[0].value
    except (OSError, TypeError, SyntaxError):
        out = None
    _RETURNS[fn] = out
    return out


def _never_not_implemented(fn: types.FunctionType) -> bool:
    """Does the method's one return give a new instance or arithmetic, never `NotImplemented`?"""
    r = _return_of(fn)
    from .local_objects import class_shape

    made = fn.__globals__.get(r.func.id) if isinstance(r, ast.Call) and isinstance(r.func, ast.Name) else None
    return isinstance(r, (ast.BinOp, ast.UnaryOp, ast.Constant, ast.Tuple)) or \
        made in (float, int, complex) or isinstance(made, type) and class_shape(made) is not None


def _returns_instance(fn: types.FunctionType, cls: type) -> bool:
    """Does the method's one return construct exactly cls (`return Vec2(...)`)?"""
    r = _return_of(fn)
    return isinstance(r, ast.Call) and isinstance(r.func, ast.Name) and fn.__globals__.get(r.func.id) is cls

