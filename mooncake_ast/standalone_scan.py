"""What a module `mooncake-ast generate` writes must hold: every function its derivative may reach at run time.

The run-time dispatch derives, on first use, each Python function a derivative calls without a rule: a
helper, a method of an object, a closure or lambda made inside the function, a callable object's
`__call__`, an operator's special method, a function handed to another as an argument.  A written module
derives nothing, so all of them are found here, ahead, from the objects themselves (the user's module is
imported) and their code:

* names: each global a function's code reads (`co_names`) that is a Python function, a class (all its
  methods, special ones included), a user object (its class), a module of the user's (its attributes
  that code reads), a container of those (a dict of activations), a partial, a staticmethod, a property;
  a closure's cells and a function's defaults the same way;
* nested functions: each `def` and `lambda` inside a function (the code objects in its constants), whose
  closures the derivative reads when called;
* objects the code cannot name (a parameter `model`): every class of the user's modules that has a method
  of a name the code reads (`model.energy(x)`), or a special method of an operation the code performs
  (`a + b`: `__add__`; `m(x)`: `__call__`; `len(s)`: `__len__`).

What remains unknowable is a function handed in by the caller of the function named on the command line;
such calls are listed (`unknown`) for the command to report, with what to do: `--include` it.
"""
from __future__ import annotations

import ast
import functools
import inspect
import os
import re
import sys
import sysconfig
import textwrap
import types
from typing import Any, Optional

from .prebuilt import nested_codes

_LIBRARY = os.path.dirname(os.path.abspath(__file__)) + os.sep
_INSTALLED = tuple(os.path.abspath(p) + os.sep for k, p in sysconfig.get_paths().items()
                   if k in ("stdlib", "platstdlib", "purelib", "platlib"))
# Special methods that no derivative calls (printing, pickling, class machinery).
_NOT_CALLED = {"__repr__", "__str__", "__format__", "__hash__", "__init_subclass__", "__class_getitem__", "__del__",
               "__getstate__", "__setstate__", "__reduce__", "__reduce_ex__", "__dir__", "__sizeof__",
               "__subclasshook__", "__set_name__", "__copy__", "__deepcopy__"}
_BINARY = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
           ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul", ast.BitAnd: "and", ast.BitOr: "or",
           ast.BitXor: "xor", ast.LShift: "lshift", ast.RShift: "rshift"}
_UNARY = {ast.USub: "__neg__", ast.UAdd: "__pos__", ast.Invert: "__invert__", ast.Not: "__bool__"}
_COMPARE = {ast.Lt: ("__lt__", "__gt__"), ast.LtE: ("__le__", "__ge__"), ast.Gt: ("__gt__", "__lt__"),
            ast.GtE: ("__ge__", "__le__"), ast.Eq: ("__eq__",), ast.NotEq: ("__ne__", "__eq__"),
            ast.In: ("__contains__",), ast.NotIn: ("__contains__",)}
_BUILTIN_PROTOCOL = {"len": ("__len__",), "abs": ("__abs__",), "float": ("__float__",), "int": ("__int__", "__index__"),
                     "complex": ("__complex__",), "round": ("__round__",), "iter": ("__iter__",),
                     "next": ("__next__",), "bool": ("__bool__",), "reversed": ("__reversed__", "__len__", "__getitem__"),
                     "divmod": ("__divmod__", "__rdivmod__"), "pow": ("__pow__", "__rpow__"),
                     "sum": ("__add__", "__radd__"), "min": ("__lt__", "__gt__"), "max": ("__lt__", "__gt__"),
                     "sorted": ("__lt__", "__gt__"), "list": ("__iter__",), "tuple": ("__iter__",),
                     "enumerate": ("__iter__",), "zip": ("__iter__",), "map": ("__iter__",)}


class Unit:
    """One function whose derivative the module holds: where it is found again when the module is imported
    (`module`: a module's name, None for the user's own module; `steps`: prebuilt.resolve's path), and why it
    is there (`named`: its code or a closure names it, so it is surely called where its caller runs)."""

    def __init__(self, fn: types.FunctionType, module: Optional[str], steps: tuple, named: bool) -> None:
        self.fn, self.module, self.steps, self.named = fn, module, steps, named
        self.code = fn.__code__

    @property
    def qualname(self) -> str:
        """The qualified name of the code (a decorator's wrapper is not the function it wraps)."""
        return getattr(self.code, "co_qualname", None) or self.fn.__qualname__

    @property
    def label(self) -> str:
        return f"{self.fn.__module__}.{self.qualname}"

    @property
    def where(self) -> str:
        return f"{os.path.basename(self.code.co_filename)}:{self.code.co_firstlineno}"


def installed(file: str) -> bool:
    """Is this file the standard library's or an installed package's (not the user's code)?"""
    path = os.path.abspath(file)
    return any(path.startswith(root) for root in _INSTALLED)


def derivable(fn: Any, ours: bool = False) -> bool:
    """Would the run-time dispatch derive fn from its source (a Python function with no rule, not ours unless
    `ours`: a helper of mooncake_ast that generated code hands to the dispatch, `_mc.rcall(_mc.new_cell, ...)`)?"""
    if not isinstance(fn, types.FunctionType):
        return False
    file = fn.__code__.co_filename
    if file.startswith("<") or (os.path.abspath(file).startswith(_LIBRARY) and not ours):
        return False
    from .rules import registry

    try:
        return registry.lookup(fn) is None
    except Exception:  # noqa: BLE001  (an odd object: not ours to derive)
        return False


def _user_module(m: Any) -> bool:
    file = getattr(m, "__file__", None)
    return isinstance(m, types.ModuleType) and bool(file) and not installed(file) and \
        not os.path.abspath(file).startswith(_LIBRARY)


class Scan:
    """The units reachable from the function named on the command line (and those `--include` names)."""

    def __init__(self, user_module: types.ModuleType) -> None:
        self.user_module = user_module
        self.units: list[Unit] = []
        self.by_code: dict = {}
        self.classes: set = set()
        self.modules: dict = {}  # user modules whose attributes code reads -> their location
        self.names: set = set()  # names user code reads (globals, attributes) and special methods it may call
        self.unknown: list[str] = []  # calls of functions the caller of the entry hands in

    # ------------------------------------------------------------ where things are

    def _module_loc(self, namespace: dict) -> Optional[str]:
        name = namespace.get("__name__")
        return None if name == self.user_module.__name__ or namespace is vars(self.user_module) else name

    def _canonical(self, obj: Any) -> Optional[tuple]:
        """(module, steps) of a class or function by its own module and qualified name, if that finds it."""
        qual, modname = getattr(obj, "__qualname__", ""), getattr(obj, "__module__", None)
        module = sys.modules.get(modname) if modname else None
        if module is None or "<" in qual:
            return None
        found: Any = module
        try:
            from .prebuilt import _attr

            for part in qual.split("."):
                found = _attr(found, part)
        except (AttributeError, TypeError):
            return None
        if found is not obj:
            return None
        return (None if module is self.user_module else modname, tuple(("attr", p) for p in qual.split(".")))

    # ------------------------------------------------------------ visiting objects

    def visit(self, obj: Any, loc: tuple, named: bool, depth: int = 0) -> None:
        """Whatever obj is that the dispatch may derive, found at `loc` = (module, steps)."""
        if depth > 4:
            return
        module, steps = loc

        def at(*more: tuple) -> tuple:
            return (module, steps + more)

        from .api import Differentiable

        if isinstance(obj, types.FunctionType):
            self.function(obj, loc, named)
        elif isinstance(obj, (staticmethod, classmethod)):
            self.visit(obj.__func__, at(("get", "__func__")), named, depth + 1)
        elif isinstance(obj, property):
            for accessor in ("fget", "fset", "fdel"):
                if getattr(obj, accessor) is not None:
                    self.visit(getattr(obj, accessor), at(("get", accessor)), named, depth + 1)
        elif isinstance(obj, types.MethodType):
            self.visit(obj.__func__, at(("get", "__func__")), named, depth + 1)
            self.visit(obj.__self__, at(("get", "__self__")), named, depth + 1)
        elif isinstance(obj, functools.partial):
            self.visit(obj.func, at(("get", "func")), named, depth + 1)
            for i, a in enumerate(obj.args[:16]):
                self.visit(a, at(("get", "args"), ("item", i)), named, depth + 1)
        elif isinstance(obj, Differentiable):
            self.visit(obj.__wrapped_fn__, at(("get", "__wrapped_fn__")), named, depth + 1)
        elif isinstance(obj, type):
            self.cls(obj, loc)
        elif isinstance(obj, types.ModuleType):
            if _user_module(obj) and obj.__name__ not in self.modules:
                self.modules[obj.__name__] = obj
        elif isinstance(obj, (list, tuple)) and len(obj) <= 32:
            for i, item in enumerate(obj):
                self.visit(item, at(("item", i)), named, depth + 1)
        elif isinstance(obj, dict) and len(obj) <= 32:
            for k, item in obj.items():
                if isinstance(k, (str, int)):
                    self.visit(item, at(("item", k)), named, depth + 1)
        elif self._user_class(type(obj)):
            self.cls(type(obj), at(("type",)))

    def _user_class(self, cls: type) -> bool:
        return cls.__module__ not in ("builtins", None) and any(
            derivable(_plain(v)) for k in cls.__mro__[:-1] for v in vars(k).values())

    def cls(self, cls: type, loc: tuple) -> None:
        """Every method of a class (and of its bases): which ones its objects' calls reach is not known here.
        Only classes of the user's modules (an installed package's classes are the package's business)."""
        if cls in self.classes or not _user_module(sys.modules.get(cls.__module__)) or not self._user_class(cls):
            return
        self.classes.add(cls)
        for i, k in enumerate(cls.__mro__[:-1]):
            if k in (object,) or k.__module__ == "builtins":
                continue
            if k is not cls:
                self.classes.add(k)
            kloc = self._canonical(k) or (loc if k is cls else (loc[0], loc[1] + (("get", "__mro__"), ("item", i))))
            for name, raw in list(vars(k).items()):
                if name not in _NOT_CALLED and isinstance(raw, (types.FunctionType, staticmethod, classmethod,
                                                                property)):
                    self.visit(raw, (kloc[0], kloc[1] + (("attr", name),)), False, 1)

    def function(self, fn: types.FunctionType, loc: tuple, named: bool, ours: bool = False, entry: bool = False
                 ) -> None:
        """A function the derivative may call (`entry`: the one named on the command line, written whatever
        it is), found at `loc`, then what it reaches."""
        code = fn.__code__
        if code in self.by_code:
            if named:
                self.by_code[code].named = True
            return
        if not entry and not derivable(fn, ours):
            return
        canonical = self._canonical(fn)
        unit = Unit(fn, *(canonical or loc), named)
        self.by_code[code] = unit
        self.units.append(unit)
        module, steps = canonical or loc
        for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            self.visit(value, (module, steps + (("cell", name),)), True, 1)
        for i, d in enumerate(fn.__defaults__ or ()):
            self.visit(d, (module, steps + (("get", "__defaults__"), ("item", i))), True, 3)
        for k, d in (fn.__kwdefaults__ or {}).items():
            self.visit(d, (module, steps + (("get", "__kwdefaults__"), ("item", k))), True, 3)
        self.code(code, fn.__globals__, (module, steps), installed(code.co_filename) or ours)

    def generated(self, text: str) -> None:
        """The helpers of mooncake_ast that generated code hands to the dispatch (`_mc.rcall(_mc.new_cell, ...`):
        derived from their source at run time like the user's functions, so written in too."""
        from . import runtime

        for name in sorted(set(re.findall(r"\b_mc\.[fr]call\(_mc\.(\w+)\b", text))):
            try:
                fn = getattr(runtime, name)
            except AttributeError:
                continue
            if isinstance(fn, types.FunctionType):
                self.function(fn, (fn.__module__, (("attr", fn.__name__),)), True, ours=True)

    def code(self, code: types.CodeType, namespace: dict, loc: tuple, library: bool) -> None:
        """The globals a function's code reads, what it may call on objects, and the functions defined in it."""
        where = self._module_loc(namespace)
        for name in code.co_names:
            if name in namespace:
                value = namespace[name]
                if not library or isinstance(value, types.FunctionType):
                    self.visit(value, (where, (("attr", name),)), True)
        if not library:
            self.names |= set(code.co_names) | protocol_names(code, namespace)
        seen: dict = {}
        for c in nested_codes(code):
            nth = seen[(c.co_name, c.co_firstlineno)] = seen.get((c.co_name, c.co_firstlineno), -1) + 1
            if c in self.by_code or not c.co_flags & inspect.CO_OPTIMIZED:
                continue  # (a class body: classes are not defined inside differentiated functions)
            cells = tuple(types.CellType() for _ in c.co_freevars)
            fn = types.FunctionType(c, namespace, c.co_name, None, cells or None)
            fn.__qualname__ = c.co_qualname if hasattr(c, "co_qualname") else c.co_name
            fn.__module__ = namespace.get("__name__")
            steps = loc[1] + (("code", c.co_name, c.co_firstlineno, nth),)
            unit = Unit(fn, loc[0], steps, True)
            self.by_code[c] = unit
            self.units.append(unit)
            self.code(c, namespace, (loc[0], steps), library)

    # ------------------------------------------------------------ objects the code cannot name

    def close(self) -> None:
        """Follow the user modules' attributes and classes that the names read reach, until nothing is added."""
        while True:
            before = (len(self.units), len(self.classes), len(self.modules), len(self.names))
            for modname, module in list(self.modules.items()):
                loc = None if module is self.user_module else modname
                for name in sorted(self.names & set(vars(module))):
                    self.visit(vars(module)[name], (loc, (("attr", name),)), True)
            for module in self._involved():
                for cls in list(vars(module).values()):
                    if isinstance(cls, type) and cls.__module__ == module.__name__ and cls not in self.classes and \
                            any(n in vars(k) for k in cls.__mro__[:-1] for n in self.names):
                        self.cls(cls, self._canonical(cls) or (None if module is self.user_module else module.__name__,
                                                                (("attr", cls.__name__),)))
            if (len(self.units), len(self.classes), len(self.modules), len(self.names)) == before:
                return

    def _involved(self) -> list:
        """The user's modules whose classes objects handed to the code may be of: the user's module, those of
        the functions and classes found, and the user's modules they import (directly or not)."""
        todo = [self.user_module] + [sys.modules.get(u.fn.__module__) for u in self.units] + \
            [sys.modules.get(c.__module__) for c in self.classes] + list(self.modules.values())
        seen: dict = {}
        while todo:
            m = todo.pop()
            if m is None or id(m) in seen or not _user_module(m):
                continue
            seen[id(m)] = m
            for v in list(vars(m).values()):
                if isinstance(v, types.ModuleType):
                    todo.append(v)
                elif isinstance(v, (type, types.FunctionType)):
                    todo.append(sys.modules.get(getattr(v, "__module__", None) or ""))
        return list(seen.values())


def _plain(raw: Any) -> Any:
    return raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw.fget if isinstance(raw, property) \
        else raw


def _tree(code: types.CodeType) -> Optional[ast.AST]:
    try:
        return ast.parse(textwrap.dedent(inspect.getsource(code)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None


def protocol_names(code: types.CodeType, namespace: dict) -> set:
    """Special methods a user object may have called on it by the operations in code's source (`__call__`:
    a call of a name that is not a global of `namespace`, e.g. a parameter)."""
    tree = _tree(code)
    out: set = set()
    if tree is None:
        return out
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            out |= {f"__{_BINARY[type(node.op)]}__", f"__r{_BINARY[type(node.op)]}__"}
        elif isinstance(node, ast.AugAssign) and type(node.op) in _BINARY:
            out |= {f"__{_BINARY[type(node.op)]}__", f"__r{_BINARY[type(node.op)]}__", f"__i{_BINARY[type(node.op)]}__"}
        elif isinstance(node, ast.UnaryOp):
            out.add(_UNARY.get(type(node.op), "__neg__"))
        elif isinstance(node, ast.Compare):
            for op in node.ops:
                out |= set(_COMPARE.get(type(op), ()))
        elif isinstance(node, ast.Subscript):
            out.add({ast.Store: "__setitem__", ast.Del: "__delitem__"}.get(type(node.ctx), "__getitem__"))
        elif isinstance(node, (ast.For, ast.comprehension)):
            out |= {"__iter__", "__next__", "__getitem__", "__len__"}
        elif isinstance(node, (ast.With,)):
            out |= {"__enter__", "__exit__"}
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                name = node.func.id
                out |= set(_BUILTIN_PROTOCOL.get(name, () if name in namespace else ("__call__",)))
            elif not isinstance(node.func, ast.Attribute):
                out.add("__call__")
    return out


def passed_in_calls(fn: types.FunctionType) -> list[tuple[int, str]]:
    """(line, name) of the calls in fn's source of one of its own parameters: a function (or a callable
    object) its caller hands in, which is known only when the call runs."""
    tree = _tree(fn.__code__)
    if tree is None or not tree.body or not isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    a = tree.body[0].args
    params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)} | {p.arg for p in (a.vararg, a.kwarg) if p}
    out = []
    for node in ast.walk(tree.body[0]):
        func = node.func.value if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript) else \
            getattr(node, "func", None) if isinstance(node, ast.Call) else None
        if isinstance(func, ast.Name) and func.id in params:
            out.append((fn.__code__.co_firstlineno + node.lineno - 1, func.id))
    return sorted(set(out))
