"""Closure cells in nested derivatives: what a function's tangent holds, and adjoint storage for explicit cell reads.

* A function's tangent (FunctionTangent: tangent cells parallel to its closure, its defaults' tangents) counts as zero
  for nesting only where it holds no tangent at all: a number 0 may be a differentiated value's tangent that is zero
  at this point only (its own derivative need not be), and a list or array tangent may still be written through.
* Forward code reads what a closure captures explicitly (`fn.__closure__[i].cell_contents`); reverse mode over it
  routes those reads' adjoints into the cell's adjoint slot (_CellShadow), the slot reverse mode's own closure reads
  use.  (Split from forward_code_rules.py, one concept per module.)
"""
from __future__ import annotations

import dis
import functools
import threading
import types
from typing import Any

from ..reverse import shadows as _shadows
from ..tangents import FunctionTangent, MutableTangent, NoTangent


def function_tangent_zero(t: FunctionTangent) -> bool:
    """Is the function's tangent t zero for nesting (its cells empty or holding no tangent, nor its defaults)?"""
    return all(c is None or _fixed_zero(_cell_value(c)) for c in t.cells) and \
        all(_fixed_zero(d) for d in t.defaults) and all(_fixed_zero(d) for d in t.kwdefaults.values())


_EMPTY = object()


def _cell_value(c: Any) -> Any:
    try:
        return c.cell_contents
    except ValueError:
        return _EMPTY


def _fixed_zero(v: Any) -> bool:
    """No tangent at all (also in a tuple): what cannot be differentiated, at any order.  (A number 0 is not: it may
    be a differentiated value's tangent that is zero at this point only, whose own derivative need not be.)"""
    if v is NoTangent or v is None or v is _EMPTY:
        return True
    if type(v) is tuple:
        return all(_fixed_zero(x) for x in v)
    return False


def as_function_tangent(t: Any) -> Any:
    """t as a FunctionTangent where it is the tangent of one: forward code makes a closure's tangent
    (`_mc.FunctionTangent((dk_cell,), ...)`), and forward mode over that code constructs it as an object, whose tangent
    is a MutableTangent of its fields (forward/runtime._construct), its `cells` the tangent cells of dk_cell."""
    if isinstance(t, MutableTangent) and "cells" in t.fields:
        cells = t.fields["cells"]
        cells = tuple(c if type(c) is types.CellType else None for c in cells) if isinstance(cells, tuple) else ()
        defaults = t.fields.get("defaults")
        kwdefaults = t.fields.get("kwdefaults")
        return FunctionTangent(cells, tuple(defaults) if isinstance(defaults, tuple) else (),
                               dict(kwdefaults) if isinstance(kwdefaults, dict) else {})
    return t


def cell_tangent_tangent(tdfn: Any, index: int, writer: Any = None) -> Any:
    """The tangent of `cell_tangent(dfn, index, writer)` (the tangent cell a closure's forward code reads what it
    captures from) for dfn's tangent tdfn: the cell of tdfn's at index, or a fresh one where tdfn has none (refused by
    cell_tangent for a closure that writes what it captures, as at first order)."""
    from ..forward.transform import cell_tangent

    return cell_tangent(as_function_tangent(tdfn), index, writer)


class _CellFields:
    """`fields` of a cell's adjoint storage, as reverse mode's attribute rule sees it: `cell_contents` is the slot."""

    __slots__ = ("sh",)

    def __init__(self, sh: Any) -> None:
        self.sh = sh

    def get(self, name: str, default: Any = None) -> Any:
        return self.sh.slot if name == "cell_contents" else default

    def __setitem__(self, name: str, value: Any) -> None:
        if name != "cell_contents":
            from .forward_code_rules import NestingError

            raise NestingError(f"nested derivative: attribute {name!r} of a closure cell")
        self.sh.slot = value


class _CellShadow(_shadows.ShadowCell):
    """A closure cell's adjoint storage that forward code's explicit read `fn.__closure__[i].cell_contents` can add
    into (reverse mode's own closure reads use `slot` directly; this is the same slot)."""

    __slots__ = ()

    @property
    def fields(self) -> _CellFields:
        return _CellFields(self)


def _prepare_cells(f: Any) -> None:
    """Give f's closure cells (a FunctionTangent's tangent cells) adjoint storage that explicit `cell_contents` reads
    route into (see _CellShadow)."""
    ctx = _shadows.current()
    cells = f.cells if isinstance(f, FunctionTangent) else getattr(f, "__closure__", None)
    for cell in cells or ():
        if cell is None:
            continue
        found = ctx.shadows.get(id(cell))
        if found is not None and found[0] is cell:
            if isinstance(found[1], _CellShadow) or not isinstance(found[1], _shadows.ShadowCell):
                continue
            sh = _CellShadow()
            sh.slot = found[1].slot
        else:
            sh = _CellShadow()
        ctx.shadows[id(cell)] = (cell, sh)


def owned_cells(f: Any, defaults_too: bool = True) -> bool:
    """Does every differentiable value f captures sit in a closure cell that the reverse computation now running made
    (its adjoint storage is in the current context: reverse/shadows.save_cell), with nothing differentiable among its
    defaults?  Then a rule differentiating f's forward code in this context routes the captured values' adjoints into
    those cells, which the pullback of the code that made the closure reads (`cell_set_reverse`): exact.  A closure
    made by another computation (an enclosing derivative, whose context is not current) is not: its adjoint there
    would be dropped, so the caller refuses it.  (`defaults_too=False`: the caller passes the defaults used as
    arguments, nested_defaults.defaults_plan, so they need no cell.)"""
    from ..api import _nondifferentiable

    defaults = [*(getattr(f, "__defaults__", None) or ()), *((getattr(f, "__kwdefaults__", None) or {}).values())]
    if defaults_too and any(not _nondifferentiable(v) and not callable(v) and not isinstance(v, type(_shadows))
                            for v in defaults):
        return False
    stack = getattr(_shadows._local, "stack", None)
    if not stack:
        return False
    shadows = stack[-1].shadows
    for cell in getattr(f, "__closure__", None) or ():
        v = _cell_value(cell)
        if v is _EMPTY or _nondifferentiable(v) or callable(v) or isinstance(v, type(_shadows)):
            continue
        found = shadows.get(id(cell))
        if found is None or found[0] is not cell:
            return False
    return True


def owned_tangent(f: Any, df: Any, defaults_too: bool = True) -> bool:
    """Is df, the nonzero tangent of the closure f, a FunctionTangent of tangent cells only (no defaults' tangents)
    that the reverse computation now running made, as it made f's own cells (owned_cells)?  Forward code made both
    (`dk_cell = _mc.new_cell()`, `_mc.FunctionTangent((dk_cell,), ...)`), and reverse mode over it reads their
    storage back."""
    if not isinstance(df, FunctionTangent) or type(df.cells) is not tuple or not owned_cells(f, defaults_too):
        return False
    if not all(_fixed_zero(d) for d in df.defaults) or not all(_fixed_zero(d) for d in df.kwdefaults.values()):
        return False
    stack = getattr(_shadows._local, "stack", None)
    shadows = stack[-1].shadows
    for cell in df.cells:
        if cell is None or _fixed_zero(_cell_value(cell)):
            continue
        found = shadows.get(id(cell))
        if found is None or found[0] is not cell:
            return False
    return True


def rebinds_captured(f: Any) -> bool:
    """Does the closure f rebind a variable it captures (`nonlocal total; total = total + v`)?  Its forward code then
    writes the tangent cell as well, so it needs its real tangent (tangent cells) even where they hold no tangent yet:
    the zero a zero tangent stands for has no cell to write (forward.transform.cell_tangent refuses it)."""
    import dis

    code = getattr(f, "__code__", None)
    if code is None or not code.co_freevars or not getattr(f, "__closure__", None):
        return False
    return any(ins.opname in ("STORE_DEREF", "DELETE_DEREF") and ins.argval in code.co_freevars
               for ins in dis.get_instructions(code))


# ---------------------------------------------------------------- cells of the function the outermost derivative takes
class _Outermost(threading.local):
    depth = 0
    cells: tuple = ()


_OUTERMOST = _Outermost()


def enter_outermost(f: Any) -> int:
    """Called by the API entry points around a derivative: where no derivative is running yet, remember the closure
    cells of f (unwrapped: mc.grad objects, methods, partials) as those of the outermost derivative.  Returns the depth
    to give back to leave_outermost."""
    depth = _OUTERMOST.depth
    if depth == 0:
        _OUTERMOST.cells = _cells_of(f)
    _OUTERMOST.depth = depth + 1
    return depth


def leave_outermost(depth: int) -> None:
    _OUTERMOST.depth = depth
    if depth == 0:
        _OUTERMOST.cells = ()


def _cells_of(f: Any) -> tuple:
    seen = 0
    while seen < 16:  # (a chain of wrappers: mc.grad(mc.grad(f)), a bound method, a partial)
        seen += 1
        inner = getattr(f, "f", None) if type(f).__module__ == "mooncake_ast.api" else None
        inner = inner if inner is not None else getattr(f, "__wrapped_fn__", None)
        if inner is None and isinstance(f, types.MethodType):
            inner = f.__func__
        if inner is None and isinstance(f, functools.partial):
            inner = f.func
        if inner is None:
            break
        f = inner
    return tuple(getattr(f, "__closure__", None) or ())


def _constant_number(v: Any) -> bool:
    import numpy as np

    if type(v) is tuple:
        return all(_constant_number(x) for x in v)
    return isinstance(v, (bool, int, float, complex, np.number)) or v is None


_FILE_CODES: dict = {}


def _file_codes(filename: str) -> Any:
    """{id(code): parent code} for every code object of the source file, compiled afresh (None where the source cannot
    be read), with the list of them: the lexical nesting of its functions."""
    import linecache

    text = "".join(linecache.getlines(filename))
    if not text:
        return None
    key = (filename, hash(text))
    found = _FILE_CODES.get(key)
    if found is not None:
        return found
    try:
        top = compile(text, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    parents: dict = {id(top): None}
    codes = [top]
    todo = [top]
    while todo:
        code = todo.pop()
        for c in code.co_consts:
            if isinstance(c, types.CodeType):
                parents[id(c)] = code
                codes.append(c)
                todo.append(c)
    if len(_FILE_CODES) > 64:
        _FILE_CODES.clear()
    _FILE_CODES[key] = (parents, codes)
    return _FILE_CODES[key]


def _rebound(f: Any, name: str) -> bool:
    """May the variable `name` that the closure f captures be rebound (`nonlocal name; name = ...`)?  A closure's cell
    is written only by functions nested lexically in the function that defines the variable, so in the same file:
    the file is compiled afresh, the function defining name found above f's code (by name and first line), and every
    function nested in it searched.  True where that cannot be told (no source, f's code not found)."""
    found = _file_codes(f.__code__.co_filename)
    if found is None:
        return True
    parents, codes = found
    here = [c for c in codes if c.co_name == f.__code__.co_name and c.co_firstlineno == f.__code__.co_firstlineno]
    if len(here) != 1:
        return True
    owner = parents.get(id(here[0]))
    while owner is not None and name not in owner.co_cellvars:
        owner = parents.get(id(owner))
    if owner is None:
        return True
    todo = [owner]
    while todo:
        code = todo.pop()
        # (a nested function's nonlocal writes; and a generator's writes of its own cells: it may be resumed while a
        # derivative runs, where a plain function's frame that made the closure has finished or waits)
        mine = code.co_freevars + (code.co_cellvars if code.co_flags & (0x20 | 0x80 | 0x200) else ())
        if name in mine and any(ins.opname in ("STORE_DEREF", "DELETE_DEREF") and ins.argval == name
                                for ins in dis.get_instructions(code)):
            return True
        todo.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return False


def outermost_constants(f: Any) -> bool:
    """Does the closure f (made inside differentiated code) capture, besides what needs no adjoint, only cells of the
    function the outermost derivative was given that hold numbers (or tuples of them) nothing rebinds (no function
    nested in the one defining the variable declares it nonlocal and assigns it: _rebound)?  Those are constants of
    every derivative now running (`def outer(c): def a(x): return mc.jvp(lambda y: f(y, c), ...)`,
    mc.grad(outer(0.1))): the lambda's cell c is a's, which nothing differentiated writes."""
    from ..api import _nondifferentiable

    roots = _OUTERMOST.cells
    closure = getattr(f, "__closure__", None) or ()
    if not roots or not closure:
        return False
    for name, cell in zip(f.__code__.co_freevars, closure):
        v = _cell_value(cell)
        if v is _EMPTY or _nondifferentiable(v) or callable(v) or isinstance(v, types.ModuleType):
            continue
        if not any(cell is r for r in roots) or not _constant_number(v) or _rebound(f, name):
            return False
    return True
