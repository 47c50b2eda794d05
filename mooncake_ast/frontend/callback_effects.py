"""Functions with side effects handed to what calls them on its own schedule (`map`, `filter`, a `key=`, itertools,
`ExitStack.callback`) are refused (both modes).

The derivatives run such a callable where the consumer is called, on every item, and as a function whose writes
carry no derivative: map's and filter's rules call it on all items at once (Python calls it on the items a `for`
loop with a `break`, `any()` or `zip` takes, when it takes them), a key function is differentiated as a key (its
writes are dropped), and a callback registered on an ExitStack runs plainly at the block's end.  A function of the
user's that writes what it captures (`log.append(e * x)`, `acc[0] += e`, `nonlocal`) gave a wrong value or a lost
derivative (found by hunt's random family `flow`).  Refused here, naming the line; functions without side effects,
and writes made in a `for` loop instead, are differentiated.
"""
from __future__ import annotations

import re
import types
from typing import TYPE_CHECKING, Optional

import libcst as cst

from ..attribute_checks import ARRAY_WRITING_METHODS, WRITING_METHODS
from .cst_queries import root_name as _root
from .source import LazyPattern

if TYPE_CHECKING:  # pragma: no cover
    from .statements import Lowering

# Consumers that call the callables they are given on their own schedule.
_CONSUMERS = frozenset({"map", "filter", "sorted", "min", "max", "sort", "reduce", "callback", "takewhile",
                        "dropwhile", "filterfalse", "starmap", "groupby", "accumulate"})
# (the project's lists of writing methods, and a deque's)
_MUTATORS = WRITING_METHODS | ARRAY_WRITING_METHODS | {"appendleft", "extendleft", "popleft"}
# A nested def, a lambda, or a mutating method named without a call (`log.append` handed on).
_CALLABLES = LazyPattern(r"\bdef\s|\blambda\b|\.(append|extend|insert|pop|remove|clear|update|setdefault|add|"
                        r"discard|sort|reverse|fill|put|appendleft|extendleft|popleft)\b(?!\s*\()")
_MAYBE = re.compile(r"\b(map|filter|sorted|min|max|sort|reduce|callback|takewhile|dropwhile|filterfalse|starmap|"
                    r"groupby|accumulate)\s*\(")


def check(lw: "Lowering", node: cst.CSTNode) -> None:
    """Refuse a callable with side effects handed to a consumer that calls it on its own schedule."""
    text = getattr(lw.src, "text", None)
    if isinstance(text, str) and not (_MAYBE.search(text) and (_CALLABLES.search(text.split("\n", 1)[-1]))):
        return  # (no consumer, or nothing to hand it that can write: no nested def, lambda or bound mutator)
    local_defs: dict = {}

    class Defs(cst.CSTVisitor):
        def visit_FunctionDef(self, n: cst.FunctionDef) -> None:
            if n is not node:
                local_defs[n.name.value] = n

    node.visit(Defs())
    calls: list = []

    class Calls(cst.CSTVisitor):
        def visit_Call(self, n: cst.Call) -> None:
            func = n.func
            name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) \
                else None
            if name in _CONSUMERS:
                calls.append(n)

    node.visit(Calls())
    modules = {n for n, v in getattr(lw.pyfn, "__globals__", {}).items() if isinstance(v, types.ModuleType)}
    for call in calls:
        for arg in call.args:
            if isinstance(arg.value, cst.Attribute) and _root(arg.value) in modules:
                continue  # (`np.add` is a ufunc, not a set's add)
            writer = _side_effect(arg.value, local_defs)
            if writer is not None:
                code = lw.src.line_text(lw.src.where(call)[0]).strip()
                lw.unsupported(call, f"`{code}`: {writer} writes what it captures (line "
                                     f"{lw.src.where(_first_write(arg.value, local_defs))[0]}), and this call runs it "
                                     "on its own schedule; the derivative would run it on other items or drop its "
                                     "writes. Make the writes in a `for` loop over the items instead")


def _side_effect(e: cst.BaseExpression, local_defs: dict) -> Optional[str]:
    """A description of e where e is a local function or lambda that writes what it captures, else None."""
    if isinstance(e, cst.Name) and e.value in local_defs and _first_write(e, local_defs) is not None:
        return f"the function `{e.value}`"
    if isinstance(e, cst.Lambda) and _first_write(e, local_defs) is not None:
        return "the lambda"
    if isinstance(e, cst.Attribute) and e.attr.value in _MUTATORS:
        return f"the method `.{e.attr.value}`"  # (`stack.callback(log.append, v)`: it writes log)
    return None


def _first_write(e: cst.BaseExpression, local_defs: dict) -> Optional[cst.CSTNode]:
    """The first statement or call of the function e names (or the lambda e is) that writes a captured name."""
    if isinstance(e, cst.Attribute):
        return e  # (a bound mutating method: the write is the call itself)
    fn = local_defs.get(e.value) if isinstance(e, cst.Name) else e
    if fn is None:
        return None
    own = _own_names(fn)
    found: list = []

    class Writes(cst.CSTVisitor):
        def visit_Nonlocal(self, n: cst.Nonlocal) -> None:
            found.append(n)

        def visit_Global(self, n: cst.Global) -> None:
            found.append(n)

        def visit_Call(self, n: cst.Call) -> None:
            f = n.func
            if isinstance(f, cst.Attribute) and f.attr.value in _MUTATORS and _root(f.value) not in own and \
                    _root(f.value) is not None:
                found.append(n)

        def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
            if isinstance(n.target, (cst.Subscript, cst.Attribute)) and _root(n.target) not in own and \
                    _root(n.target) is not None:
                found.append(n)

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            if isinstance(n.target, (cst.Subscript, cst.Attribute)) and _root(n.target) not in own and \
                    _root(n.target) is not None:
                found.append(n)

    fn.visit(Writes())
    return found[0] if found else None


def _own_names(fn: cst.CSTNode) -> set:
    """The names fn binds itself: its parameters and the names it assigns (not those it captures)."""
    params = fn.params
    names = {p.name.value for p in [*params.posonly_params, *params.params, *params.kwonly_params]}
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            names.add(star.name.value)
    out = set(names)

    class Bound(cst.CSTVisitor):
        def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
            if isinstance(n.target, cst.Name):
                out.add(n.target.value)

        def visit_For(self, n: cst.For) -> None:
            if isinstance(n.target, cst.Name):
                out.add(n.target.value)

    fn.visit(Bound())
    return out
