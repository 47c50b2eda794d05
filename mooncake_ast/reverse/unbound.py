"""Variables some path reaches unassigned: the tape's reads of them, and what the forward pass binds them to.

A loop's variable assigned in some iterations only (SciPy's CubicSpline) is a phi with an UNDEFINED incoming;
the reverse transform must know which phis may be unbound where it records values (`maybe_unbound`) and, once
the pullback is built, bind None to them on the paths that reach an edge's record unassigned (`bind_unassigned`).
"""
from __future__ import annotations

from ..ir.builder import UNDEFINED
from ..ir.nodes import Const, Function, Phi


def bind_unassigned(values: set) -> None:
    """Bind None, in the forward pass, to the variables behind `values` where no path has assigned them yet.

    A value recorded on an edge is read when the edge is taken, and a variable that some path brings there
    unassigned (a loop's variable assigned in some iterations only: SciPy's CubicSpline) would raise
    UnboundLocalError.  None stands for "unbound", as for a `try` (frontend/try_stmt._bind_placeholders):
    only a read the plain call refuses sees it, and the edge that carries it carries no adjoint (nothing
    read the value on that path).  The phis are patched after the pullback is built, so the analysis that
    placed the tape's reads (`maybe_unbound`) saw the variable as it is in the source."""
    seen: set = set()
    todo = [v for v in values if isinstance(v, Phi)]
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        for pred, v in list(p.incoming.items()):
            if v is UNDEFINED:
                p.incoming[pred] = Const(None)
            elif isinstance(v, Phi):
                todo.append(v)


def maybe_unbound(ir: Function) -> set:
    """Phis of a variable that some path reaches unassigned (an UNDEFINED incoming, directly or
    through other phis): the forward pass may not hold them at its returns."""
    phis = [p for b in ir.blocks for p in b.phis]
    out = {p for p in phis if any(v is UNDEFINED for v in p.incoming.values())}
    grew = bool(out)
    while grew:
        grew = False
        for p in phis:
            if p not in out and any(v in out for v in p.incoming.values()):
                out.add(p)
                grew = True
    return out
