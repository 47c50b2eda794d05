"""Rules of the helpers a `class` statement inside the differentiated function is lowered to
(frontend/local_classes.py): the class's methods read the function's variables through cells.

* `build_class(outer, name, line, nth, bases, keywords, closure)` has a derivative so that calls through the
  class it returns are differentiated (as zero-derivative, its instances and their methods' results were
  constants).  Forward mode: the forward transform gives a local class its class-attribute storage
  (forward/transform.py); reverse mode: no adjoint goes back through it -- the cells' adjoints live in
  storage kept by the cells' identity, as for a nested `def` (rules/builtin_attributes.function_part_adjoint).
* `share_cells(cls, *cells)` (returns cls): forward mode hands this forward computation the tangent cells the function made for
  its cells, so the methods' closures, made by the class body and not by forward code, find them
  (forward/state.closure_tangent, through the computation's store of cells).
"""
from __future__ import annotations

import types
from typing import Any

from .. import ops
from ..frontend import stmt_ops
from .registry import defjvp, defrrule_at_run_time, defrule, defvjp


def share_tangent_cells(dcls: Any, cells: tuple, dcells: tuple) -> Any:
    """The class's tangent, once the cells' tangent cells are handed to this forward computation."""
    from ..forward.state import share_cells

    share_cells([(c, dc) for c, dc in zip(cells, dcells) if type(dc) is types.CellType])
    return dcls


defjvp(stmt_ops.share_cells, lambda t, y, cls, *cells: t.call(
    share_tangent_cells, t.dz(cls), t.call(ops.tuple_of, *cells), t.call(ops.tuple_of, *[t.dz(c) for c in cells])))
defvjp(stmt_ops.share_cells, lambda t, g, y, cls, *cells: (None,) * (1 + len(cells)))
defjvp(stmt_ops.build_class, lambda t, y, *args: None)  # (forward/transform.py gives the class its storage itself)
defvjp(stmt_ops.build_class, lambda t, g, y, *args: (None,) * len(args))


def _refuse_higher_order(*args: Any, **kwargs: Any) -> Any:
    from ..errors import UnsupportedDerivativeError

    raise UnsupportedDerivativeError(
        "a derivative of a derivative (hessian, jacfwd(grad), grad(grad), ...) of a function defining a class whose "
        "methods read the function's variables is not supported: pass those variables to the class (`__init__` "
        "arguments) or define the class at module level")


defrule(share_tangent_cells, _refuse_higher_order)  # (forward code of a local class's cells, differentiated again)
defrrule_at_run_time(share_tangent_cells, _refuse_higher_order)
