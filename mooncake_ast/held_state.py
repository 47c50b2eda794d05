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
"""
from __future__ import annotations

import types
from typing import Any

from .aliases import _filled
from .reverse import shadows

_DEPTH = 4  # plain functions followed through the names they read (f -> helper -> helper's helper ...)
_LIBRARIES = ("numpy", "scipy", "mooncake_ast", "builtins", "math", "operator", "functools", "collections", "typing",
              "abc", "enum", "dataclasses", "copy", "itertools", "jax", "torch", "dask", "cupy")


def _library(module: Any) -> bool:
    return not isinstance(module, str) or module.split(".")[0] in _LIBRARIES


class _Roots:
    """What a function may keep state in: objects, closure cells, (globals, name) bindings, classes."""

    def __init__(self) -> None:
        self.objects: list = []
        self.cells: list = []
        self.bindings: list = []
        self.classes: list = []
        self.global_draws = False  # (f or a helper reads `random` of a module: NumPy's global generator, say)
        self.seen: set = set()

    def empty(self) -> bool:
        return not (self.objects or self.cells or self.bindings or self.classes or self.global_draws)


def _function_of(f: Any, roots: _Roots) -> Any:
    """The plain function f runs (its bound object or own fields added to the roots), or None."""
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
    if _library(fn.__module__):
        # (a closure of this library's or NumPy's own -- the directional derivative of the user's f a nested
        # Jacobian differentiates: the user's functions it holds, not its own workings)
        for c in fn.__closure__ or ():
            if _filled(c) and callable(c.cell_contents) and depth > 0:
                inner = _function_of(c.cell_contents, roots)
                if inner is not None:
                    _add_function(inner, roots, depth - 1)
        return
    for c in fn.__closure__ or ():
        roots.cells.append(c)
        if _filled(c):
            _add_value(c.cell_contents, roots, depth)
    roots.objects += list(fn.__defaults__ or ()) + list((fn.__kwdefaults__ or {}).values())
    if "random" in fn.__code__.co_names:
        roots.global_draws = True
    g = fn.__globals__
    from .aliases import _global_names

    for name in _global_names(fn.__code__):
        if name not in g:
            continue
        v = g[name]
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
        _add_function(fn, roots, _DEPTH)
    return roots


def _class_data(cls: type) -> dict:
    return {k: v for k, v in vars(cls).items()
            if not (k.startswith("__") and k.endswith("__")) and not callable(v)
            and not isinstance(v, (staticmethod, classmethod, property))}


def take(f: Any, args: tuple = ()) -> Any:
    """The state now of what f and args can reach (args: shadows.snapshot's one-level states), to `put_back`
    before a further pass (taken on entry) or after it (taken after the one call whose effects stay)."""
    roots = roots_of(f)
    objects = shadows.snapshot(tuple(roots.objects) + tuple(args))
    if roots.empty():
        return objects, (), (), (), ()
    cells = [(c, shadows.state_of(c)) for c in roots.cells]
    bindings = [(g, name, g.get(name, _MISSING)) for g, name in roots.bindings]
    classes = [(cls, _class_data(cls)) for cls in roots.classes]
    return objects, cells, bindings, classes, _generators(roots)


def _generators(roots: _Roots) -> list:
    """The random generators f draws from, with their states: a Generator or RandomState it holds or names, and
    NumPy's global one where its code reads a `random` attribute.  Each pass draws what the first drew (a
    Jacobian of one function), and afterwards the generator is where one call leaves it."""
    import numpy as np

    found = [(r, r.bit_generator.state) for r in roots.objects if isinstance(r, np.random.Generator)]
    found += [(r, r.get_state()) for r in roots.objects if isinstance(r, np.random.RandomState)]
    if roots.global_draws:
        found.append((None, np.random.get_state()))
    return found


def take_held(f: Any) -> Any:
    """`take(f)` without arguments, or None where f holds nothing it could keep state in (the usual case)."""
    roots = roots_of(f)
    if roots.empty():
        return None
    return take(f)


_MISSING = object()


def put_back(state: Any) -> None:
    """Put back the state `take` took (bindings and cells first: the objects they held then get their contents)."""
    if state is None:
        return
    objects, cells, bindings, classes, generators = state
    for r, s in generators:
        if r is None:
            import numpy as np

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
