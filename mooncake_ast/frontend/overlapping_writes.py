"""`b[::2] = b[:3]`: an array written from a view of itself with other steps is refused (both modes).

NumPy copies the value first when it overlaps the target with strides of opposite signs (`b[::-1] = b`), and walks
the elements in the order that reads each before it is written when the steps are the same (`b[1:] = b[:-1]`): the
result is as if the value were copied, which is what the derivatives assume.  With other steps it writes element by
element and may read an element it has already written (`b = [0, 1, 2, 3, 4, 5]; b[::2] = b[:3]` gives b[4] = 1, the
new b[2], not the old 2); reverse mode's pullback reads the value as it was before the write, so the gradient would
be that of another function (found by hunt's random family `fancy`).  Judged from the code: a subscript store whose
value is a subscript of the same name (or of a name bound to one), both with slices, whose literal steps differ, or
are not literal.  Element copies (`x[i] = x[i - 1]`: no slice) are not concerned.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional

import libcst as cst

from .cst_queries import root_name as _root
from .source import LazyPattern

if TYPE_CHECKING:  # pragma: no cover
    from .statements import Lowering

# A store into a slice, and a value read from a slice (a superset, on the text: the walk costs milliseconds).
_SLICE_STORE = re.compile(r"\w\s*\[[^\]=\n]*:[^\]=\n]*\]\s*=[^=]")
_SLICE_READ = LazyPattern(r"=\s*\w+\s*\[[^\]\n]*:")


def check(lw: "Lowering", node: cst.CSTNode) -> None:
    """Refuse, naming the line, an array written from a view of itself with other steps."""
    text = getattr(lw.src, "text", None)
    if isinstance(text, str) and not (_SLICE_STORE.search(text) and _SLICE_READ.search(text)):
        return
    views: dict = {}  # name -> the Subscript it is bound to (`v = b[:3]`), anywhere in the function
    stores: list = []

    class Finder(cst.CSTVisitor):
        def visit_Assign(self, n: cst.Assign) -> None:
            if len(n.targets) != 1:
                return
            target = n.targets[0].target
            if isinstance(target, cst.Name) and isinstance(n.value, cst.Subscript):
                views[target.value] = n.value
            elif isinstance(target, cst.Subscript):
                stores.append(n)

    node.visit(Finder())
    for n in stores:
        target = n.targets[0].target
        value = n.value
        if isinstance(value, cst.Name) and value.value in views:
            value = views[value.value]
        if not (isinstance(value, cst.Subscript) and _root(value) is not None and _root(value) == _root(target)):
            continue
        mine, theirs = _steps(target), _steps(value)
        if mine is None or theirs is None:
            continue  # (no slice on one side: an element, or a fancy index, which copies)
        if None not in mine and None not in theirs and (mine == theirs or (len(mine) == len(theirs) == 1 and
                                                                          mine[0] * theirs[0] < 0)):
            continue
        code = lw.src.line_text(lw.src.where(n)[0]).strip()
        lw.unsupported(n, f"`{code}`: the value is a view of the array it is written into, with other steps; NumPy "
                          "then writes element by element and may read elements it has already written, and the "
                          "derivative would read them as they were. Write a copy (`.copy()` of the value)")


def _steps(s: cst.Subscript) -> Optional[tuple]:
    """The steps of s's slices (None for one that is not a literal), or None where s has no slice or a list index."""
    steps = []
    for el in s.slice:
        sl = el.slice
        if isinstance(sl, cst.Slice):
            steps.append(_literal_int(sl.step) if sl.step is not None else 1)
        elif isinstance(sl, cst.Index) and isinstance(sl.value, (cst.List, cst.ListComp)):
            return None  # (a fancy index: NumPy makes a copy)
    return tuple(steps) if steps else None


def _literal_int(e: cst.BaseExpression) -> Optional[int]:
    if isinstance(e, cst.Integer):
        return int(e.value)
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Minus) and isinstance(e.expression, cst.Integer):
        return -int(e.expression.value)
    return None
