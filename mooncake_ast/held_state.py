"""The state a function keeps between calls, outside its arguments: put back between the passes of one derivative.

`mc.jacfwd(f)` runs f once per batch of directions (and once more to check a batch it has not checked before, or
once per direction where the code cannot carry a batch); `mc.hessian(f)` runs f's gradient as many times.  A
function that keeps state -- a running mean on an object it captures, a step counter in a class attribute or a
`global`, a history list at module level, a buffer it overwrites -- would run each pass from the state the previous
one left, and the Jacobian would be that of another function, with the state advanced several times.  The contract
is the one of a single call (DESIGN.md §2): the derivative at the state on entry, and afterwards the state one plain
call leaves.  So the state f can reach is taken before the first pass and put back before each further pass; after
the last pass it is what one call from the entry state leaves.

What is taken: the objects f's closure cells, defaults and bound object hold (the cells themselves too, for a
`nonlocal` rebinding), the module-level names its code reads (their bindings, for `global` rebinding, and the
objects they hold), the data attributes of the classes it names, and the same for the plain Python functions it
names, to a few levels.  Per object one level deep (shadows.state_of), so which objects a container holds and
what each holds are both put back.  Random generators f holds or names (a Generator, a RandomState) and NumPy's
global one, where f's code reads a `random` attribute, are put back too: each pass draws what the first drew.
State kept elsewhere (a file, a C extension, Python's `random` module) is not seen; nor is state reached only through values computed inside f.

A Jacobian takes this state on every call, so the walk through a function's names and helpers is kept per function
(_add_function_cached) with what it read -- module-level bindings, closure cells, the function's code and defaults --
and reused while each of those reads gives the same object; what the objects found hold is read on every call.
"""
from __future__ import annotations

import types
from typing import Any

import numpy as np

from .reverse import shadows

_MISSING = object()
_DEPTH = 4  # plain functions followed through the names they read (f -> helper -> helper's helper ...)
_LIBRARIES = ("numpy", "scipy", "mooncake_ast", "builtins", "math", "operator", "functools", "collections", "typing",
              "abc", "enum", "dataclasses", "copy", "itertools", "jax", "torch", "dask", "cupy")


def _library(module: Any) -> bool:
    return not isinstance(module, str) or module.split(".")[0] in _LIBRARIES


class _Roots:
    """What a function may keep state in: objects, closure cells, (globals, name) bindings, classes."""

    def __init__(self, reads: Any = None) -> None:
        self.objects: list = []
        self.cells: list = []
        self.bindings: list = []
        self.classes: list = []
        self.global_draws = False  # (f or a helper reads `random` of a module: NumPy's global generator, say)
        self.seen: set = set()
        self.reads = reads  # (what the walk read: whether its result still holds, _add_function_cached)

    def empty(self) -> bool:
        return not (self.objects or self.cells or self.bindings or self.classes or self.global_draws)


def _function_of(f: Any, roots: _Roots) -> Any:
    """The plain function f runs (its bound object or own fields added to the roots), or None."""
    if type(f) is types.FunctionType and not f.__dict__:  # (a plain function: no marks of the wrappers below)
        return f
    inner = getattr(f, "__mc_jacobian__", None)  # a Jacobian function: what the function it differentiates holds
    if inner is not None:
        return _function_of(inner[0], roots)
    if type(f).__module__ == "mooncake_ast.api" and hasattr(f, "f") and hasattr(f, "argnums"):
        return _function_of(f.f, roots)  # mc.grad(f), mc.value_and_grad(f): f's
    wrapped = getattr(f, "__wrapped_fn__", None)  # @mc.differentiate
    if wrapped is not None:
        return _function_of(wrapped, roots)
    if isinstance(f, types.MethodType):
        roots.objects.append(f.__self__)
        return f.__func__
    if isinstance(f, types.FunctionType):
        return f
    if isinstance(f, (types.BuiltinFunctionType, type)) or _library(type(f).__module__):
        return None
    roots.objects.append(f)  # a callable object: its fields
    call = getattr(type(f), "__call__", None)
    return call if isinstance(call, types.FunctionType) else None


def _add_function(fn: Any, roots: _Roots, depth: int) -> None:
    if not isinstance(fn, types.FunctionType) or id(fn) in roots.seen:
        return
    roots.seen.add(id(fn))
    reads = roots.reads
    reads.attrs.append((fn, "__code__", fn.__code__))
    if _library(fn.__module__):
        # (a closure of this library's or NumPy's own -- the directional derivative of the user's f a nested
        # Jacobian differentiates: the user's functions it holds, not its own workings)
        for c in fn.__closure__ or ():
            v = _contents(c)
            reads.cells.append((c, v))
            if v is not _MISSING and callable(v) and depth > 0:
                inner = _function_of(v, roots)
                if inner is not None:
                    _add_function(inner, roots, depth - 1)
        return
    for c in fn.__closure__ or ():
        roots.cells.append(c)
        v = _contents(c)
        reads.cells.append((c, v))
        if v is not _MISSING:
            _add_value(v, roots, depth)
    reads.attrs.append((fn, "__defaults__", fn.__defaults__))
    kw = fn.__kwdefaults__
    reads.attrs.append((fn, "__kwdefaults__", kw))
    if kw:
        reads.dicts.append((kw, tuple(kw.items())))
    roots.objects += list(fn.__defaults__ or ()) + list((kw or {}).values())
    if "random" in fn.__code__.co_names:
        roots.global_draws = True
    g = fn.__globals__
    from .aliases import _global_names

    for name in _global_names(fn.__code__):
        v = g.get(name, _MISSING)
        reads.globs.append((g, name, v))
        if v is _MISSING:
            continue
        if isinstance(v, types.ModuleType):
            continue
        if isinstance(v, types.FunctionType):
            if depth > 0:
                _add_function(v, roots, depth - 1)
            continue
        if isinstance(v, type):
            if not _library(v.__module__) and id(v) not in roots.seen:
                roots.seen.add(id(v))
                roots.classes.append(v)
            continue
        if callable(v) and not hasattr(v, "__dict__"):
            continue  # (a builtin, a ufunc)
        roots.bindings.append((g, name))
        roots.objects.append(v)


def _contents(c: Any) -> Any:
    try:
        return c.cell_contents
    except ValueError:
        return _MISSING


def _add_value(v: Any, roots: _Roots, depth: int) -> None:
    if isinstance(v, types.FunctionType):
        if depth > 0:
            _add_function(v, roots, depth - 1)
        return
    if isinstance(v, type):
        return
    roots.objects.append(v)


def roots_of(f: Any) -> _Roots:
    roots = _Roots()
    fn = _function_of(f, roots)
    if fn is not None:
        _add_function_cached(fn, roots)
    return roots


class _Reads:
    """What working out a function's roots read that can change between calls (the function's code, defaults and
    closure cells, module-level bindings, keyword defaults): the roots found are those of a later call exactly
    when every one of these reads gives the same object again."""

    __slots__ = ("globs", "cells", "attrs", "dicts")

    def __init__(self) -> None:
        self.globs: list = []  # (globals dict, name, the object bound then or _MISSING)
        self.cells: list = []  # (cell, its contents then or _MISSING)
        self.attrs: list = []  # (function, attribute, its value then)
        self.dicts: list = []  # (keyword-defaults dict, its items then)

    def hold(self) -> bool:
        for g, name, v in self.globs:
            if g.get(name, _MISSING) is not v:
                return False
        for c, v in self.cells:
            if _contents(c) is not v:
                return False
        for obj, attr, v in self.attrs:
            if getattr(obj, attr, None) is not v:
                return False
        for d, items in self.dicts:
            now = tuple(d.items())
            if len(now) != len(items) or any(a[0] != b[0] or a[1] is not b[1] for a, b in zip(now, items)):
                return False
        return True


_CACHE: dict = {}  # id(function) -> (function, _Reads, _Roots of it alone): roots_of's traversal, once per function
_CACHE_LIMIT = 1024


def _plain_roots(f: Any) -> Any:
    """The roots of a plain function (no marks of the wrappers _function_of looks through) kept by
    _add_function_cached, where what they were worked out from holds; else None (roots_of works them out)."""
    if type(f) is not types.FunctionType or f.__dict__:
        return None
    entry = _CACHE.get(id(f))
    if entry is None or entry[0] is not f or not entry[1].hold():
        return None
    return entry[2]


def _add_function_cached(fn: Any, roots: _Roots) -> None:
    """_add_function(fn, roots, _DEPTH), its result kept per function and reused while the reads it made hold (a
    Jacobian takes the state of f on every call: the walk through f's names and helpers was most of its cost)."""
    if not isinstance(fn, types.FunctionType):
        return
    entry = _CACHE.get(id(fn))
    if entry is None or entry[0] is not fn or not entry[1].hold():
        own = _Roots(_Reads())
        _add_function(fn, own, _DEPTH)
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
        entry = _CACHE[id(fn)] = (fn, own.reads, own)
    own = entry[2]
    roots.objects += own.objects
    roots.cells += own.cells
    roots.bindings += own.bindings
    roots.classes += own.classes
    roots.global_draws = roots.global_draws or own.global_draws


def _class_data(cls: type) -> dict:
    return {k: v for k, v in vars(cls).items()
            if not (k.startswith("__") and k.endswith("__")) and not callable(v)
            and not isinstance(v, (staticmethod, classmethod, property))}


def take(f: Any, args: tuple = ()) -> Any:
    """The state now of what f and args can reach (args: shadows.snapshot's one-level states), to `put_back`
    before a further pass (taken on entry) or after it (taken after the one call whose effects stay)."""
    roots = _plain_roots(f)  # (a plain function whose roots were worked out before and still hold: as they were)
    if roots is None:
        roots = roots_of(f)
    objects = _snapshot(tuple(roots.objects) + tuple(args))
    if roots.empty():
        return objects, (), (), (), ()
    cells = [(c, shadows.state_of(c)) for c in roots.cells]
    bindings = [(g, name, g.get(name, _MISSING)) for g, name in roots.bindings]
    classes = [(cls, _class_data(cls)) for cls in roots.classes]
    return objects, cells, bindings, classes, _generators(roots)


_VALUES = (float, int, bool, complex, str, type(None))


def _snapshot(objs: tuple) -> list:
    """shadows.snapshot(objs); where every object is an array or a plain value (the usual Jacobian: float arrays
    and numbers, what f holds module-level arrays), the same list made directly: each array once, its copy."""
    out: list = []
    seen: set = set()
    for o in objs:
        t = type(o)
        if t is np.ndarray:
            if id(o) not in seen:
                seen.add(id(o))
                out.append((o, o.copy()))
        elif t not in _VALUES:
            return shadows.snapshot(objs)
    return out


def _generators(roots: _Roots) -> list:
    """The random generators f draws from, with their states: a Generator or RandomState it holds or names, and
    NumPy's global one where its code reads a `random` attribute.  Each pass draws what the first drew (a
    Jacobian of one function), and afterwards the generator is where one call leaves it."""
    found = []
    for r in roots.objects:
        if type(r) is np.ndarray or type(r) in _VALUES:
            continue
        if isinstance(r, np.random.Generator):
            found.append((r, r.bit_generator.state))
        elif isinstance(r, np.random.RandomState):
            found.append((r, r.get_state()))
    if roots.global_draws:
        found.append((None, np.random.get_state()))
    return found


def take_held(f: Any) -> Any:
    """`take(f)` without arguments, or None where f holds nothing it could keep state in (the usual case)."""
    roots = roots_of(f)
    if roots.empty():
        return None
    return take(f)


def put_back(state: Any) -> None:
    """Put back the state `take` took (bindings and cells first: the objects they held then get their contents)."""
    if state is None:
        return
    objects, cells, bindings, classes, generators = state
    for r, s in generators:
        if r is None:
            np.random.set_state(s)
        elif hasattr(r, "bit_generator"):
            r.bit_generator.state = s
        else:
            r.set_state(s)
    for g, name, v in bindings:
        if v is _MISSING:
            g.pop(name, None)
        elif g.get(name, _MISSING) is not v:
            g[name] = v
    for c, s in cells:
        shadows.put_state(c, s)
    for cls, data in classes:
        now = _class_data(cls)
        for k, v in data.items():
            if now.get(k, _MISSING) is not v:
                setattr(cls, k, v)
        for k in now:
            if k not in data:
                delattr(cls, k)
    shadows.reapply(objects)
