"""Third derivatives through closures made inside the differentiated function (issue 10).

Forward code of forward code makes a closure's cells and their tangent cells (`x_cell, dx_cell = fcall(new_cell)`),
fills them (`fcall(setattr, ..., (x_cell, "cell_contents", x), (dx_cell, ..., dx))`), makes the closure and its
FunctionTangent and reads the cells back (`cell_tangent_get`, `cell_tangent`, `fn.__closure__`): at a third order of
forward mode those calls are dispatched once more, and each is planned here as a plain function of the call and its
tangents (api_rules._plan), which the forward transform differentiates: a cell's tangent is a cell at every order.
The cells made by `new_cell_fwd` get tangent cells from its rule (api_rules._defs); a fourth order refuses there.
Reverse mode over such code is refused elsewhere (nested_closures.py), as before.
"""
from __future__ import annotations

import types
from typing import Any, Optional

from .. import ops
from ..tangents import FunctionTangent, NoTangent, storage


def plan(f: Any, args: tuple, dargs: tuple) -> Optional[Any]:
    """The plan of forward code's `f(*args)` (a closure's cell, function, tangent or cell read) with tangents dargs
    at a third order, or None where f is none of those (or its tangents are not those forward code makes)."""
    if not (f is ops.new_cell or f is ops.make_function or f is FunctionTangent or
            getattr(f, "__name__", None) in ("cell_tangent_get", "cell_tangent")):
        return None
    from . import api_rules
    from .builtin_rules import cell_tangent_get
    from ..forward.transform import cell_tangent
    from .nested_plans import _plain_plan

    n = len(args)
    d = tuple(dargs) + (NoTangent,) * (n - len(dargs))
    if f is ops.new_cell and n == 0:
        return _plain_plan(new_cell_fwd, (), 0)
    if f is ops.make_function and n == 5 and api_rules._zero(d[0]) and api_rules._zero(d[1]):
        return _plain_plan(make_function_fwd, tuple(args) + d, 5)
    if f is FunctionTangent and n == 3 and isinstance(args[0], tuple):
        return _plain_plan(function_tangent_fwd, tuple(args) + d, 3)
    if f is cell_tangent_get and n == 1 and type(args[0]) is types.CellType and type(d[0]) is types.CellType and \
            api_rules._cell_full(d[0]):  # (an empty tangent cell: a zero, api_rules' plan of zero calls)
        return _plain_plan(cell_get_fwd, (args[0], d[0]), 1)
    if f is cell_tangent and n in (2, 3) and isinstance(d[0], FunctionTangent):
        p = _plain_plan(cell_tangent_fwd if n == 2 else cell_tangent_writer_fwd, (*args, d[0], *(NoTangent,) * (n - 1)),
                        n)
        p.inactive = frozenset(range(1, n)) | frozenset(range(n + 1, 2 * n))  # (the index, the writer: constants)
        return p
    return None


def new_cell_fwd():
    # `_mc.new_cell()` (forward code making a closure's cell), differentiated again: a cell and its tangent cell, as
    # forward/runtime.fcall makes them; a third order differentiates this, where each is a cell made by new_cell
    return ops.new_cell(), ops.new_cell()


def make_function_fwd(code, outer, defaults, kwdefaults, closure, tcode, touter, tdefaults, tkwdefaults, tclosure):
    # `_mc.make_function(...)` (forward code making a closure), differentiated again: the function and its tangent,
    # as make_function's rule makes it (builtin_attributes.py): the tangent cells forward code made for it
    fn = ops.make_function(code, outer, defaults, kwdefaults, closure)
    cells = tclosure if isinstance(tclosure, tuple) else (None,) * len(closure or ())
    return fn, FunctionTangent(cells, tdefaults if isinstance(tdefaults, tuple) else (),
                               tkwdefaults if isinstance(tkwdefaults, dict) else None)


def function_tangent_fwd(cells, defaults, kwdefaults, tcells, tdefaults, tkwdefaults):
    # `_mc.FunctionTangent(cells, defaults, kwdefaults)` (forward code making a closure's tangent), differentiated
    # again: its tangent is the FunctionTangent of the tangents of its cells and defaults (nested_cells reads it so)
    t = FunctionTangent(tcells if isinstance(tcells, tuple) else (None,) * len(cells),
                        tdefaults if isinstance(tdefaults, tuple) else (),
                        tkwdefaults if isinstance(tkwdefaults, dict) else None)
    return FunctionTangent(cells, defaults, kwdefaults), t


def cell_get_fwd(dc, tdc):
    # `_mc.cell_tangent_get(dc)` (forward code reading a closure's tangent cell) with dc's own tangent cell tdc
    return _cell_contents(dc), _cell_contents(tdc)


def cell_tangent_fwd(dfn, index, tdfn, tindex):
    # `cell_tangent(dfn, index)` (forward code of a closure taking its tangent cell from the closure's tangent dfn)
    # with dfn's own tangent tdfn (a FunctionTangent of tangent cells): the cell and its tangent cell
    from ..forward.transform import cell_tangent

    return cell_tangent(dfn, index), _tangent_cell(tdfn, index)


def cell_tangent_writer_fwd(dfn, index, writer, tdfn, tindex, twriter):
    # (the same, for a closure that writes what it captures: `writer` names it)
    from ..forward.transform import cell_tangent

    return cell_tangent(dfn, index, writer), _tangent_cell(tdfn, index)


def _tangent_cell(tdfn, index):
    if isinstance(tdfn, FunctionTangent) and type(tdfn.cells) is tuple and tdfn.cells[index] is not None:
        return tdfn.cells[index]
    return NoTangent


def _cell_contents(c):
    try:
        return c.cell_contents
    except ValueError:  # (an empty cell: nothing differentiable stored yet)
        return NoTangent


def set_cell_fwd(c, name, v, tc, tname, tv):
    # `cell.cell_contents = v` (forward code of a closure filling a cell it made) with the tangent cell tc: tv stored
    # in tc as the first-order rule stores it (builtin_attributes.setattr_tangent); a third order differentiates this
    c.cell_contents = v
    tc.cell_contents = storage(v, tv)
    return None, NoTangent
