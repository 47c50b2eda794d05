"""Arguments that are the very arrays the differentiated function holds (captures, fields, defaults, globals).

`mc.grad(f)(x)` with `def f(y): return np.sum(np.sin(y) * x)` closing over that same x asks for the derivative
with respect to the argument, the captured x held constant: cos(x) * x.  Reverse mode keeps the adjoints of
arrays by identity, so the captured read's adjoint landed in the argument's (cos(x) * x + sin(x)); the same with
`mc.grad(m.loss)(m.W)`, a callable object at its own field, or a module-level array.  Such an argument is handed
to the derivative as a copy, which keeps the two apart and changes nothing else, as long as the function does not
write it: a write through the argument would show through the held array in the plain call and not in the copy,
so that case is refused once it is seen (the copy differs from the original afterwards).  What the function holds
is looked for in its own closure, defaults, object and the module-level names its own code reads, not in the
functions it calls.
"""
from __future__ import annotations

import functools
import types
from typing import Any, Optional

import numpy as np

from .errors import UnsupportedInputError

_DEPTH = 2  # containers and objects looked into below what the function holds directly (params["W"], self.p.w)


def held_arrays(f: Any) -> list:
    """Arrays f holds: in its closure cells, defaults, bound object (or its own fields, for a callable object) and
    the module-level names its code reads, and in containers and objects those hold, to _DEPTH levels."""
    roots: list = []
    fn = f
    if type(f) is types.FunctionType and not f.__dict__:  # (a plain function: none of the wrappers below)
        return _held_by_function(f, roots)
    inner = getattr(f, "__mc_jacobian__", None)  # (a Jacobian function: what the function it differentiates holds)
    if inner is not None:
        return held_arrays(inner[0])
    if type(f).__module__ == "mooncake_ast.api" and hasattr(f, "f") and hasattr(f, "argnums"):
        return held_arrays(f.f)  # (mc.grad(f), mc.value_and_grad(f): f's)
    if isinstance(f, functools.partial):  # (its bound arguments, and what the function it wraps holds)
        out = held_arrays(f.func)
        seen = {id(a) for a in out}
        for r in (*f.args, *f.keywords.values()):
            _collect(r, _DEPTH, out, seen)
        return out
    wrapped = getattr(f, "__wrapped_fn__", None)  # (@mc.differentiate)
    if wrapped is not None:
        return held_arrays(wrapped)
    if isinstance(f, types.MethodType):
        roots.append(f.__self__)
        roots += _fields(f.__self__)
        fn = f.__func__
    elif not isinstance(f, (types.FunctionType, types.BuiltinFunctionType, type)):
        roots += _fields(f)  # a callable object: its fields
        fn = getattr(type(f), "__call__", None)
    return _held_by_function(fn, roots)


def _held_by_function(fn: Any, roots: list) -> list:
    """held_arrays' last step: the arrays in `roots` and in what the plain function fn holds."""
    if isinstance(fn, types.FunctionType):
        roots += [c.cell_contents for c in fn.__closure__ or () if _filled(c)]
        roots += list(fn.__defaults__ or ()) + list((fn.__kwdefaults__ or {}).values())
        g = fn.__globals__
        roots += [g[n] for n in _data_globals(fn.__code__, g) if n in g]
    out: list = []
    seen: set = set()
    for r in roots:
        _collect(r, _DEPTH, out, seen)
    return out


def _fields(obj: Any) -> list:
    d = getattr(obj, "__dict__", None)
    return list(d.values()) if isinstance(d, dict) else []


_NAMES: dict = {}  # code object -> the names it (and the code of functions defined in it) may read as globals
_DATA: dict = {}  # code object -> (its globals, those of the names bound to data, not modules or callables, when
# first seen): a name bound to a module or a function stays so in practice, and the call's check of what f holds
# costs a look-up per data name only


def _data_globals(code: types.CodeType, g: dict) -> tuple:
    known = _DATA.get(code)
    if known is None or known[0] is not g:  # (one code object may run with other globals: types.FunctionType(code, g))
        known = _DATA[code] = (g, tuple(n for n in _global_names(code)
                                        if n in g and not isinstance(g[n], types.ModuleType) and not callable(g[n])))
    return known[1]


def _global_names(code: types.CodeType) -> tuple:
    """The names a code object (and the code of functions defined in it) may read as globals."""
    known = _NAMES.get(code)
    if known is None:
        names = set(code.co_names)
        for c in code.co_consts:
            if isinstance(c, types.CodeType):
                names.update(_global_names(c))
        known = _NAMES[code] = tuple(sorted(names))
    return known


def _collect(v: Any, depth: int, out: list, seen: set) -> None:
    if id(v) in seen:
        return
    seen.add(id(v))
    if type(v) is np.ndarray:
        out.append(v)
        return
    if depth == 0 or isinstance(v, (str, bytes, int, float, complex, types.ModuleType, type, types.FunctionType)):
        return
    if isinstance(v, (list, tuple)):
        items = v
    elif isinstance(v, dict):
        items = v.values()
    elif hasattr(v, "__dict__") and not callable(v):
        items = vars(v).values()
    else:
        return
    for item in list(items)[:64]:
        _collect(item, depth - 1, out, seen)


def _filled(c: Any) -> bool:
    try:
        c.cell_contents
    except ValueError:
        return False
    return True


def unaliased(f: Any, args: tuple) -> tuple[tuple, Optional[list]]:
    """(args with copies in place of the float arrays f holds, and [(position, original, copy)], or None).  An
    array passed twice is one object with one tangent, as two names for it inside the function are (DESIGN §2);
    only what f holds is a constant to the derivative."""
    for a in args:
        if type(a) is np.ndarray:
            break
    else:
        return args, None
    if type(f) is types.FunctionType and f.__closure__ is None and not f.__defaults__ and not f.__kwdefaults__ \
            and not _data_globals(f.__code__, f.__globals__):
        return args, None  # (the usual call: a plain function holding nothing)
    ids = {id(h) for h in held_arrays(f)}
    copied = []
    out = list(args)
    for i, a in enumerate(args):
        if type(a) is np.ndarray and id(a) in ids and a.dtype.kind in "fc":
            out[i] = a.copy()
            copied.append((i, a, out[i]))
    return (tuple(out), copied) if copied else (args, None)


def check_unwritten(api: str, name: str, copied: Optional[list]) -> None:
    """Refuse, after the call, a function that wrote an argument handed to it as a copy (see the module's doc)."""
    for i, original, copy in copied or ():
        if not np.array_equal(original, copy, equal_nan=True):
            raise UnsupportedInputError(
                f"{api}({name}): argument {i} is an array that {name} also holds (a captured variable, a field of its "
                f"object or a module-level array) and {name} writes to it; the derivative with respect to the "
                f"argument alone is not defined for such a call: pass a copy (`x.copy()`), or pass the array once, "
                f"as an argument only")
