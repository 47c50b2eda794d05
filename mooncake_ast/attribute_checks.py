"""Attribute reads on user objects that neither mode can differentiate, refused rather than guessed.

Both modes read `obj.name` as Python does (the plain value), then find its derivative separately:
a field's tangent/adjoint, or, for a property, by differentiating the getter once more (forward
mode runs it again with tangents; reverse mode replays it in the pullback). That is right only
when the second run sees what the first one saw. Three constructs break it silently (a zero or
partial derivative, no error), so they are refused here:

* a property whose getter writes (a lazily cached value: `if self._c is None: self._c = ...`):
  the plain read fills the cache without derivative, and the second run only reads the cache;
* an attribute supplied by a user-defined descriptor (`__get__`/`__set__` on a class attribute):
  its value is computed by the descriptor's code, which no rule follows;
* an attribute supplied by a user `__getattr__` (a fallback for missing names), likewise.
"""
from __future__ import annotations

import ast
import enum
import functools
import inspect
import textwrap
import types
from typing import Any

from .errors import UnsupportedDerivativeError

WRITING_METHODS = frozenset({"append", "extend", "insert", "update", "setdefault", "pop", "popitem", "clear",
                              "remove", "add", "discard", "__setitem__", "__setattr__", "__delitem__"})
_WRITES: dict = {}  # code object -> does the function write (to its object, or anything reachable)?


def _function_writes(fn: Any, depth: int = 0) -> bool:
    """Does this Python function (a getter) store to an attribute or item, or call a method that does?
    A syntactic check, followed through calls of `self.method(...)` on the same class (a few levels)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    if code in _WRITES:
        return _WRITES[code]
    _WRITES[code] = False  # recursion guard
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return False
    writes = False
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            if any(isinstance(t, (ast.Attribute, ast.Subscript)) or isinstance(t, (ast.Tuple, ast.List)) and any(
                    isinstance(e, (ast.Attribute, ast.Subscript)) for e in t.elts) for t in targets):
                writes = True
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            writes = True
        elif isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id in ("setattr", "delattr"):
                writes = True
            elif isinstance(f, ast.Attribute) and f.attr in WRITING_METHODS and not (
                    isinstance(f.value, ast.Name) and isinstance(fn.__globals__.get(f.value.id), types.ModuleType)):
                writes = True  # (`np.add(a, b)`: a module's function, not a container's method)
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self" and depth < 3:
                owner = getattr(fn, "__qualname__", "").rpartition(".")[0]
                cls = fn.__globals__.get(owner) if owner and "." not in owner else None
                target = getattr(cls, f.attr, None) if isinstance(cls, type) else None
                if isinstance(target, property):
                    target = target.fget
                if isinstance(target, types.FunctionType) and _function_writes(target, depth + 1):
                    writes = True
        if writes:
            break
    _WRITES[code] = writes
    return writes


def _is_user_code(fn: Any) -> bool:
    return isinstance(fn, types.FunctionType)


_PLAIN: set = set()  # (type, name) whose reads need no check: no user descriptor, property or __getattr__


def check_attribute_read(obj: Any, name: str, value: Any) -> None:
    """Refuse `obj.name` (obj a user object, `value` what the read gave) when its value comes from code that no
    rule follows."""
    tp = type(obj)
    if (tp, name) in _PLAIN or isinstance(obj, type) or tp.__module__ == "builtins":
        return
    if isinstance(obj, enum.Enum):  # (members are constants made with their class: `.value`, `.name` by enum's descriptors)
        return
    if name == "__dict__" and isinstance(value, dict):
        # (also with no numbers in it yet: `self.__dict__.update(kw)` in __init__ fills it, around the fields' tangents)
        raise UnsupportedDerivativeError(
            f"reading {tp.__qualname__}.__dict__ gives the object's fields as a plain dict, whose items carry no "
            "derivatives (their reads and writes would be lost silently). Read and write the fields by name: "
            "`obj.w`, or `getattr(obj, name)` and `setattr(obj, name, value)` in a loop over names "
            "(`for k, v in kw.items(): setattr(self, k, v)` in place of `self.__dict__.update(kw)`).")
    if _is_user_code(inspect.getattr_static(tp, "__getattribute__", None)) and not _as_python_reads(obj, name, value):
        raise UnsupportedDerivativeError(
            f"{tp.__qualname__} defines __getattribute__, which computes every attribute read (here .{name}) by "
            "code mooncake_ast does not differentiate. Read the fields through a method or property instead.")
    try:
        attr = inspect.getattr_static(tp, name)
    except AttributeError:
        attr = None
    if isinstance(attr, property):
        if _is_user_code(attr.fget) and _function_writes(attr.fget):
            raise UnsupportedDerivativeError(
                f"the property {tp.__qualname__}.{name} writes to the object in its getter (a lazily cached "
                "value?): mooncake_ast differentiates a property by running its getter again, which would "
                "only read the cache and lose the derivative. Compute the value in a method call "
                f"(`obj.{name}()`) or in __init__, or make the getter free of writes.")
        return
    if isinstance(attr, functools.cached_property):
        raise UnsupportedDerivativeError(
            f"{tp.__qualname__}.{name} is a functools.cached_property: the plain read stores the value in the "
            "object without its derivative, which reverse mode then reads. Use a plain property or a method, or "
            "forward mode (mc.jvp, mc.jacfwd), which follows it.")
    if attr is not None and not isinstance(attr, (types.FunctionType, staticmethod, classmethod)):
        get = getattr(type(attr), "__get__", None)
        if _is_user_code(get) and not (name in getattr(obj, "__dict__", {}) and not hasattr(type(attr), "__set__")):
            raise UnsupportedDerivativeError(
                f"{tp.__qualname__}.{name} is provided by the descriptor {type(attr).__qualname__} (a class with "
                "__get__), whose code mooncake_ast does not differentiate. Use a property, or a plain attribute "
                "and a method.")
    fallback = inspect.getattr_static(tp, "__getattr__", None)
    if not _is_user_code(fallback) and not isinstance(attr, property) and (
            attr is None or isinstance(attr, (types.FunctionType, staticmethod, classmethod))
            or not _is_user_code(getattr(type(attr), "__get__", None))):
        _PLAIN.add((tp, name))
        return
    if attr is None and name not in getattr(obj, "__dict__", {}) and name not in _slot_values(obj):
        if _is_user_code(fallback) and not item_attribute(obj, name, value):
            raise UnsupportedDerivativeError(
                f"{tp.__qualname__}.{name} is provided by {tp.__qualname__}.__getattr__ (a fallback for missing "
                "attributes), whose result mooncake_ast does not differentiate. Read the value directly "
                "(e.g. from the dict or object it forwards to), or use a property.")


def item_attribute(obj: Any, name: str, value: Any) -> bool:
    """Is `obj.name` the item obj[name] of a dict subclass whose `__getattr__` hands missing attributes its items
    (SciPy's OptimizeResult and OdeResult: `res.x` is `res["x"]`)?  Checked on the objects: no attribute of that
    name on the class or the instance, and the value read is the very item.  Its derivative is then the item's."""
    tp = type(obj)
    if not isinstance(obj, dict) or tp is dict or name in getattr(obj, "__dict__", {}):
        return False
    if dict.get(obj, name, _MISSING) is not value or value is _MISSING:
        return False
    try:
        inspect.getattr_static(tp, name)
        return False  # (a class attribute, method or property: not the fallback)
    except AttributeError:
        return inspect.getattr_static(tp, "__getattr__", None) is not None


_MISSING = object()


def check_attribute_write(obj: Any, name: str) -> None:
    """Refuse `obj.name = v` when a user-defined descriptor's __set__ (not a property) stores it."""
    tp = type(obj)
    if isinstance(obj, type) or tp.__module__ == "builtins":
        return
    try:
        attr = inspect.getattr_static(tp, name)
    except AttributeError:
        return
    if isinstance(attr, property):
        return
    if _is_user_code(getattr(type(attr), "__set__", None)):
        raise UnsupportedDerivativeError(
            f"{tp.__qualname__}.{name} is set through the descriptor {type(attr).__qualname__} (a class with "
            "__set__), whose code mooncake_ast does not differentiate. Use a property, or a plain attribute "
            "and a method.")


def _as_python_reads(obj: Any, name: str, value: Any) -> bool:
    """Did a custom __getattribute__ hand back what Python's own would (the stored field, or the class's method
    bound to obj)? Then the read is followed as a plain one (the field's derivative)."""
    try:
        fields = object.__getattribute__(obj, "__dict__")
    except AttributeError:  # __slots__ only
        fields = {}
    if name in fields:
        return fields[name] is value
    method = inspect.getattr_static(type(obj), name, None)
    return isinstance(value, types.MethodType) and value.__self__ is obj and value.__func__ is method


def _slot_values(obj: Any) -> tuple:
    out = []
    for klass in type(obj).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        out.extend([slots] if isinstance(slots, str) else slots)
    return tuple(out)


_CAPTURED_WRITES: dict = {}  # code object -> may the function change what its closure captures?


def writes_captured(fn: Any) -> bool:
    """May closure `fn` change the state it captures: assign a captured name (`nonlocal`), store into it
    (`s[0] += v`, `s.a = v`) or call a method that changes it (`s.append(v)`)?  A syntactic check (what a
    callee the closure hands its state to does is not followed); without readable source (a lambda inside
    a longer expression), from the bytecode: any store to a cell, an item or an attribute, or a call of a
    method named like a writing one."""
    code = getattr(fn, "__code__", None)
    if code is None or not code.co_freevars:
        return False
    known = _CAPTURED_WRITES.get(code)
    if known is not None:
        return known
    free = set(code.co_freevars)
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        _CAPTURED_WRITES[code] = _bytecode_writes(code)
        return _CAPTURED_WRITES[code]

    def root(e: Any) -> Any:
        while isinstance(e, (ast.Attribute, ast.Subscript, ast.Starred)):
            e = e.value
        return e.id if isinstance(e, ast.Name) else None

    def captured(e: Any) -> bool:
        return root(e) in free

    writes = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Nonlocal):
            writes = True
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            flat = [e for t in targets for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])]
            writes = any(isinstance(t, (ast.Attribute, ast.Subscript)) and captured(t) for t in flat)
        elif isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and captured(f.value):
                writes = f.attr in WRITING_METHODS or f.attr in ARRAY_WRITING_METHODS
        if writes:
            break
    _CAPTURED_WRITES[code] = writes
    return writes


ARRAY_WRITING_METHODS = frozenset({"fill", "sort", "resize", "itemset", "put", "partition", "setflags",
                                    "extend", "insert", "reverse"})


def _bytecode_writes(code: Any) -> bool:
    import dis

    for ins in dis.get_instructions(code):
        if ins.opname in ("STORE_DEREF", "STORE_SUBSCR", "STORE_ATTR", "DELETE_SUBSCR", "DELETE_ATTR", "STORE_SLICE"):
            return True
        if ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and (ins.argval in WRITING_METHODS
                                                          or ins.argval in ARRAY_WRITING_METHODS):
            return True
    return any(isinstance(c, type(code)) and _bytecode_writes(c) for c in code.co_consts)


_CLASS_STATE: dict = {}  # class -> may its class attributes change (see class_keeps_state)


def class_keeps_state(cls: type) -> bool:
    """May the class-level attributes of user class `cls` change while the code runs: does it (or a base)
    hold a mutable class attribute (a list, dict, array, object: changed in place through any instance),
    or does one of its methods assign a class attribute (`cls.n = ...`, `type(self).n = ...`,
    `self.__class__.n = ...`, `Name.n = ...`)?  Syntactic; True where a method's source cannot be read."""
    known = _CLASS_STATE.get(cls)
    if known is not None:
        return known
    from .tangents import is_mutable

    _CLASS_STATE[cls] = False  # (recursion guard)
    users = [k for k in cls.__mro__ if k is not object and k.__flags__ & (1 << 9)]
    names = {k.__name__ for k in users}
    out = False
    for k in users:
        for v in list(vars(k).values()):
            if not callable(v) and not isinstance(v, (staticmethod, classmethod, property)) and is_mutable(v):
                out = True
                break
            fn = v.__func__ if isinstance(v, (staticmethod, classmethod)) else v.fget if isinstance(v, property) else v
            if isinstance(fn, types.FunctionType) and _assigns_class_attribute(fn, names):
                out = True
                break
        if out:
            break
    _CLASS_STATE[cls] = out
    return out


def _assigns_class_attribute(fn: types.FunctionType, class_names: set) -> bool:
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return True

    def class_like(e: Any) -> bool:
        if isinstance(e, ast.Name):
            return e.id == "cls" or e.id in class_names
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "type":
            return True
        return isinstance(e, ast.Attribute) and e.attr == "__class__"

    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            flat = [e for t in targets for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])]
            if any(isinstance(t, ast.Attribute) and class_like(t.value) for t in flat):
                return True
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr") \
                and node.args and class_like(node.args[0]):
            return True
    return False
