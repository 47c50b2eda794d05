"""Lazy iterators that escape lazy_values' 'changed before it is read' check, refused where they may read too late.

lazy_values.py follows an iterator (a generator expression, `map`, `filter`, `iter`, a dict view...) bound to a name
and refuses a change of what it reads before the name is read.  The derivatives compute an iterator's items where
it is made; Python computes them when they are read.  An iterator that leaves the name escaped that check, and a
change of its source before it was read gave a wrong value and derivative, silently:

* kept in a container or on an object: `holder = [map(f, L)]`, `h.it = iter(L)`, `ms = [map(...) for k in ...]`,
  `views = [d.values() for _ in ...]` -- followed here as a binding of the container's (or object's) name;
* made by a helper that returns it: `m = doubled(L)` where `doubled` is a function of the module whose `return`
  gives a lazy iterator -- followed as a binding of `m` reading the call's arguments;
* handed to a function of the user's with what it reads: `consume(map(f, L), L, v)` -- the helper may change L
  first: refused;
* made in a comprehension, reading the comprehension's variable late: `[(v * k for v in x) for k in ks]` (every
  generator sees k's last value when it runs, the derivatives each its own k): refused.

Each refusal names the line and says what to do: take a list where the iterator is made (`list(...)`).
"""
from __future__ import annotations

import builtins
import inspect
import re
import types
from typing import TYPE_CHECKING, Any, Optional

import libcst as cst

from .cst_queries import names_read as _names, nodes_of as _all, root_name as _root

if TYPE_CHECKING:  # pragma: no cover
    from .statements import Lowering

# What an escaping lazy value looks like in the text (a superset): one inside brackets, an argument or a
# comprehension's element, or stored on an attribute or item.
# (a generator expression: a parenthesis holding ` for `, one level of nested parentheses allowed)
MAYBE_ESCAPING = re.compile(r"[(\[{,:]\s*(\((?:[^()]|\([^()]*\))*\bfor\b|(map|filter|zip|enumerate|iter|reversed)\s*\(|"
                            r"[\w.\]\)]+\.(values|keys|items)\(\s*\))|[\w\]]\.\w+\s*=\s*(\(|(map|filter|zip|"
                            r"enumerate|iter|reversed)\s*\()")
_CALL_BOUND = re.compile(r"=\s*(\w+)\s*\(")
_BUILTIN_NAMES = frozenset(dir(builtins))
_returns_lazy_cache: dict = {}


def helpers_returning_lazy(text: str, glob: dict, is_lazy: Any) -> frozenset:
    """The names of the module's functions called in `text` whose `return` gives a lazy iterator."""
    out = set()
    for name in set(_CALL_BOUND.findall(text)):
        fn = glob.get(name)
        if isinstance(fn, types.FunctionType) and _returns_lazy(fn, is_lazy):
            out.add(name)
    return frozenset(out)


def _returns_lazy(fn: types.FunctionType, is_lazy: Any) -> bool:
    code = fn.__code__
    if code in _returns_lazy_cache:
        return _returns_lazy_cache[code]
    found = False
    try:
        source = inspect.getsource(fn)
        if "return" in source:
            import textwrap

            tree = cst.parse_module(textwrap.dedent(source))
            found = any(r.value is not None and is_lazy(r.value) for r in _all(tree, cst.Return))
    except (OSError, TypeError, cst.ParserSyntaxError):
        found = False
    _returns_lazy_cache[code] = found
    return found


def holds_lazy(e: cst.BaseExpression, is_lazy: Any) -> bool:
    """Is e a container display or comprehension holding lazy iterators (`[map(f, L)]`, `[d.values() for ...]`)?"""
    if isinstance(e, (cst.List, cst.Tuple, cst.Set)):
        return any(is_lazy(el.value) for el in e.elements if isinstance(el, cst.Element))
    if isinstance(e, cst.Dict):
        return any(is_lazy(el.value) for el in e.elements if isinstance(el, cst.DictElement))
    if isinstance(e, (cst.ListComp, cst.SetComp)):
        return is_lazy(e.elt)
    if isinstance(e, cst.DictComp):
        return is_lazy(e.value)
    return False


def bound_name(target: cst.BaseExpression) -> Optional[str]:
    """The name a lazy value stored in `target` is read through: the name itself, or the object or container an
    attribute or item of it is (`h.it = iter(L)`: h)."""
    if isinstance(target, cst.Name):
        return target.value
    if isinstance(target, (cst.Attribute, cst.Subscript)):
        return _root(target)
    return None


def check_comprehensions(lw: "Lowering", node: cst.CSTNode, is_lazy: Any) -> None:
    """Refuse comprehensions that make lazy iterators reading the comprehension's own variable when they run."""
    for comp in _all(node, (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
        elt = comp.value if isinstance(comp, cst.DictComp) else comp.elt
        if not is_lazy(elt):
            continue
        bound = set()
        f = comp.for_in
        while f is not None:
            bound |= {n.value for n in _all(f.target, cst.Name)}
            f = f.inner_for_in
        late = _late_names(elt) & bound
        if late:
            lw.unsupported(comp, f"iterators made in a comprehension that read its variable `{sorted(late)[0]}` when "
                                 "they run: Python reads it when each is consumed (after the comprehension: its last "
                                 "value, for every one), mooncake_ast where each is made. Take lists in the "
                                 "comprehension (`[list(...) for ...]`) or consume each there (`[sum(...) for ...]`)")


def _late_names(elt: cst.BaseExpression) -> set:
    """The names a lazy iterator reads only when its items are asked for: a generator expression's all but its
    first iterable; the bodies of the lambdas handed to map/filter (their defaults are read at once)."""
    if isinstance(elt, cst.GeneratorExp):
        first = elt.for_in
        parts: list = [elt.elt, first.target, *first.ifs]
        if first.inner_for_in is not None:
            parts.append(first.inner_for_in)
        out: set = set()
        for p in parts:
            out |= _names(p)
        return out
    out = set()
    for lam in _all(elt, cst.Lambda):
        params = {p.name.value for p in _all(lam.params, cst.Param)}
        out |= _names(lam.body) - params
    return out


def check_handed_to_helpers(lw: "Lowering", node: cst.CSTNode, is_lazy: Any, modules: set) -> None:
    """Refuse a lazy iterator handed to a function of the user's together with (a name of) what it reads."""
    for call in _all(node, cst.Call):
        func = call.func
        if not isinstance(func, cst.Name) or func.value in _BUILTIN_NAMES or func.value in modules:
            continue
        for k, a in enumerate(call.args):
            if not is_lazy(a.value):
                continue
            reads = _names(a.value) - modules - _BUILTIN_NAMES
            for j, other in enumerate(call.args):
                shared = _names(other.value) & reads if j != k else set()
                if shared:
                    lw.unsupported(call, f"`{func.value}(...)` is handed a lazy iterator and `{sorted(shared)[0]}`, "
                                         "which it reads: if the function changes it before it reads the iterator, "
                                         "Python's items follow the change, mooncake_ast's (computed where the "
                                         "iterator is made) do not. Hand it a list (`list(...)`) in place of the "
                                         "iterator")
