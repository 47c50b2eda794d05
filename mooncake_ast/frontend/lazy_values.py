"""Iterators and views a function makes, keeps under a name and reads later: what may change them meanwhile is refused.

Python computes the items of a generator expression, of `map` and `filter`, and what `zip`, `enumerate`, `iter`,
`reversed` and `itertools`' iterators yield, when they are consumed, and `d.values()` / `d.keys()` / `d.items()`
are live views of d.
The derivatives take the items, or their tangents, where the iterator is made: a generator expression is lowered
like a list comprehension, map's rule calls the function on each item at once, and an iterator's tangent is its
items' tangents as they are then.  When the iterator is consumed where it is made (`sum(v * v for v in xs)`), or
nothing between its making and its first use can change what it reads, the two agree.  Otherwise
(`g = (v * k for v in xs); k = 2.0; sum(g)`, `vals = d.values(); d["a"] = y; sum(vals)`, or a `for` loop over a
generator expression whose body writes the list it walks) the derivative would follow other values than the
plain call, and both the value and the derivative came out wrong: refused here, naming both lines.

A wrapper computed when made over a shared iterator, read in part, then the iterator read again, is the other
way the two disagree: frontend/iterator_rereads.py, called from `check`.

"Can change" is judged from the code between: an assignment to a name the iterator's expression reads (or to
a name assigned from one of those, or to it, anywhere in the function: `ys = xs`), a store into an item or
attribute of one, a method of one other than those that only read, NumPy's writing functions or `out=`, or a
call of anything but a few builtins that is handed one.
"""
from __future__ import annotations

import re
import types
from typing import TYPE_CHECKING, Iterable, Optional

import libcst as cst
import numpy as np

from . import lazy_escapes
from .cst_queries import names_read as _names, nodes_of as _all, root_name as _root, walked_in_step
from .source import walk  # (a read-only visit: libcst's own rebuilds every node it passes)

if TYPE_CHECKING:  # pragma: no cover
    from .statements import Lowering

_LAZY_CALLS = frozenset({"map", "filter", "zip", "enumerate", "iter", "reversed"})
_VIEWS = frozenset({"values", "keys", "items"})
_EAGER_FOR = frozenset({"map", "filter"})  # (a `for` loop walks zip/enumerate/iter/reversed item by item itself)
_PURE_CALLS = frozenset({"len", "abs", "min", "max", "sum", "float", "int", "round", "print", "range", "sorted",
                         "list", "tuple", "dict", "set", "frozenset", "isinstance", "any", "all", "str", "repr",
                         "bool", "divmod", "pow", "hash", "id", "type", "complex", "format"})
# What a lazy value bound to a name, or a loop over an eager-in-a-for iterator, looks like in the text (a superset).
_MAYBE_LAZY = re.compile(r"=\s*(\(|(map|filter|zip|enumerate|iter|reversed)\s*\(|itertools\.)|\.(values|keys|items)\(\s*\)"
                         r"|\bin\s+(\(|map\s*\(|filter\s*\()|sliding_window_view|as_strided")
# Methods that only read their object: called on what an iterator reads, they change nothing it computes.
_READING_METHODS = frozenset({"copy", "sum", "mean", "get", "index", "count", "keys", "values", "items", "tolist", "item",
                              "reshape", "astype", "dot", "max", "min", "std", "var", "prod", "cumsum", "ravel",
                              "flatten", "transpose", "conj", "real", "imag"})
_NUMPY_WRITERS = frozenset({"copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis", "at"})
_STRIDED = frozenset({"sliding_window_view", "as_strided"})
_VIEW_METHODS = frozenset({"reshape", "transpose", "swapaxes", "squeeze", "view", "ravel"})  # (of a view: a view)
# NumPy's functions that write none of their operands and return a new array, never a view of one (so a name bound
# to the result, written later, writes nothing the iterator reads); with at most two operands given by position
# (`np.dot(a, b, out)`, `np.sum(a, axis, dtype, out)`: `out` comes later).  Ufuncs with no more operands than inputs
# are the same.  `np.dot(a, a)` between a generator's making and its use was taken as a possible write of `a`.
_FRESH_NUMPY = ("dot", "vdot", "inner", "outer", "sum", "mean", "prod", "max", "min", "amax", "amin", "std", "var",
                "trace", "cumsum", "cumprod", "sort", "argsort", "argmax", "argmin", "zeros_like", "ones_like",
                "full_like", "copy", "array", "concatenate", "stack", "vstack", "hstack", "kron", "cross", "diff",
                "tensordot", "zeros", "ones", "full", "eye", "linspace", "arange", "allclose", "isclose",
                "linalg.norm", "linalg.det", "linalg.inv", "linalg.solve", "linalg.slogdet")


def check(lw: "Lowering", node: cst.CSTNode) -> None:
    """Refuse, naming the lines, a lazy iterator or view of `node`'s body whose inputs may change before it is read."""
    glob = getattr(lw.pyfn, "__globals__", {})
    # (itertools' functions imported bare, `from itertools import chain`: lazy as `itertools.chain` is)
    bare = frozenset(n for n, v in glob.items() if getattr(v, "__module__", None) == "itertools" and callable(v))
    # (NumPy's strided views imported under other names: `from numpy.lib.stride_tricks import as_strided as ast_`)
    strided = frozenset(n for n, v in glob.items() if callable(v) and getattr(v, "__name__", None) in _STRIDED and
                        (getattr(v, "__module__", None) or "").startswith("numpy"))
    text = getattr(lw.src, "text", None)
    helpers = lazy_escapes.helpers_returning_lazy(text, glob, _lazy) if isinstance(text, str) else frozenset()
    escaping = not isinstance(text, str) or bool(helpers) or bool(lazy_escapes.MAYBE_ESCAPING.search(text))
    if isinstance(text, str) and not escaping and not _MAYBE_LAZY.search(text) and \
            not any(n in text for n in bare | strided):
        return  # (no name bound to an iterator or view, no loop over a generator expression, map or filter: the
        #        walks below cost a few ms per function, the text test microseconds)
    from . import iterator_rereads

    iterator_rereads.check(lw, node, bare)  # (a wrapper over a shared iterator read in part, the iterator read again)
    aliases = _aliases(node)
    modules = {n for n, v in glob.items() if isinstance(v, types.ModuleType)}
    if escaping:  # (iterators kept in containers, made in comprehensions, handed to or made by helpers)
        is_lazy = lambda e: _lazy(e, bare)  # noqa: E731
        lazy_escapes.check_comprehensions(lw, node, is_lazy)
        lazy_escapes.check_handed_to_helpers(lw, node, is_lazy, modules)
    for block in _blocks(node):
        _check_block(lw, list(block), aliases, modules, bare, strided, helpers)


def _aliases(node: cst.CSTNode) -> dict:
    """name -> the names it is assigned from, or assigned to, as a whole (`ys = xs`) anywhere in the function:
    a store through either reaches the other.  A function defined in node reads, through its closure, what its
    body reads: `m = map(h, a); k[0] = y; sum(m)` with h reading `k[0]` reads k (as a lambda's body would)."""
    out: dict = {}
    for fd in _all(node, cst.FunctionDef):
        if fd is not node:
            out.setdefault(fd.name.value, set()).update(_names(fd.body))
    for a in _all(node, cst.Assign):
        if isinstance(a.value, cst.Name):
            for t in a.targets:
                if isinstance(t.target, cst.Name):
                    out.setdefault(t.target.value, set()).add(a.value.value)
                    out.setdefault(a.value.value, set()).add(t.target.value)
    return out


def _with_aliases(names: set, aliases: dict) -> set:
    out, work = set(names), list(names)
    while work:
        for other in aliases.get(work.pop(), ()):
            if other not in out:
                out.add(other)
                work.append(other)
    return out


def _blocks(node: cst.CSTNode) -> Iterable:
    """The statement lists of the function's body and of the compound statements in it (not of nested functions or
    classes: they are lowered, and checked, on their own)."""
    found: list = []

    class Finder(cst.CSTVisitor):
        def visit_IndentedBlock(self, n: cst.IndentedBlock) -> None:
            found.append(n.body)

        def visit_FunctionDef(self, n: cst.FunctionDef) -> Optional[bool]:
            return n is node

        def visit_ClassDef(self, n: cst.ClassDef) -> bool:
            return False

        def visit_Lambda(self, n: cst.Lambda) -> bool:
            return False

    walk(node, Finder())
    return found


def _lazy(e: cst.BaseExpression, bare: frozenset = frozenset()) -> bool:
    if isinstance(e, cst.GeneratorExp):
        return True
    if isinstance(e, cst.Call):
        if isinstance(e.func, cst.Name) and (e.func.value in _LAZY_CALLS or e.func.value in bare):
            return True
        if isinstance(e.func, cst.Attribute) and isinstance(e.func.value, cst.Name) and e.func.value.value == "itertools":
            return True  # (itertools' iterators are lazy too)
        return isinstance(e.func, cst.Attribute) and e.func.attr.value in _VIEWS and not e.args
    return False


def _eager_in_a_for(e: cst.BaseExpression) -> bool:
    """Is e an iterator whose items the lowering computes before a `for` loop over it starts?"""
    return isinstance(e, cst.GeneratorExp) or (isinstance(e, cst.Call) and isinstance(e.func, cst.Name) and
                                                e.func.value in _EAGER_FOR)


def _names_in_target(t: cst.CSTNode) -> set:
    return {n.value for n in _all(t, cst.Name)}


def _fresh_numpy_call(n: cst.Call, glob: dict) -> bool:
    """Is n a call of one of NumPy's functions that write nothing they are handed and return a new array
    (`np.dot(a, a)`, `np.exp(a)`), resolved through the function's globals?"""
    path, f = [], n.func
    while isinstance(f, cst.Attribute):
        path.append(f.attr.value)
        f = f.value
    if not isinstance(f, cst.Name) or not path or any(a.keyword is not None or a.star for a in n.args):
        return False
    obj = glob.get(f.value)
    if getattr(obj, "__name__", None) != "numpy":
        return False
    for part in reversed(path):
        obj = getattr(obj, part, None)
    if isinstance(obj, np.ufunc):
        return len(n.args) <= obj.nin
    return len(n.args) <= 2 and any(obj is _resolve(np, name) for name in _FRESH_NUMPY)


def _resolve(module: object, dotted: str) -> object:
    for part in dotted.split("."):
        module = getattr(module, part, None)
    return module


def _change(stmt: cst.CSTNode, names: set, glob: Optional[dict] = None) -> Optional[cst.CSTNode]:
    """The first part of stmt that may change what an expression reading `names` computes, or None.  (`glob`: the
    function's globals, to know NumPy's functions that write nothing, `_fresh_numpy_call`.)"""
    for n in _all(stmt, cst.CSTNode):
        if isinstance(n, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr, cst.WithItem)):
            target = n.target if not isinstance(n, cst.WithItem) else (n.asname.name if n.asname else None)
            if target is None:
                continue
            if isinstance(target, (cst.Subscript, cst.Attribute)):
                if _root(target) in names:
                    return n  # (an item or attribute of what the expression reads, stored)
            elif _names_in_target(target) & names:
                return n  # (a name the expression reads, bound again)
        elif isinstance(n, cst.Del) and _names(n.target) & names:
            return n
        elif isinstance(n, cst.Call):
            func = n.func
            if isinstance(func, cst.Attribute) and _root(func) in names and func.attr.value not in _READING_METHODS:
                return n  # (a method of what the expression reads: it may write it)
            if isinstance(func, cst.Attribute) and func.attr.value in _NUMPY_WRITERS and \
                    any(_names(a.value) & names for a in n.args):
                return n
            if any(a.keyword is not None and a.keyword.value == "out" for a in n.args):
                return n
            pure = isinstance(func, cst.Name) and func.value in _PURE_CALLS or \
                glob is not None and _fresh_numpy_call(n, glob)
            if not pure and any(_names(a.value) & names for a in n.args):
                return n  # (a function handed what the expression reads may write it)
    return None


def _uses(stmt: cst.CSTNode, name: str) -> bool:
    return any(n.value == name for n in _all(stmt, cst.Name))


def _line(lw: "Lowering", node: cst.CSTNode) -> int:
    return lw.src.where(node)[0]


def _stores_through(stmt: cst.CSTNode, name: str) -> Optional[cst.CSTNode]:
    """The first part of stmt that writes into the array `name` holds (an item or attribute stored, `name += ...`, a
    method other than those that only read, `out=name`, NumPy's writing functions handed it), or None."""
    for n in _all(stmt, cst.CSTNode):
        if isinstance(n, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
            t = n.target
            if isinstance(t, (cst.Subscript, cst.Attribute)) and _root(t) == name:
                return n
            if isinstance(n, cst.AugAssign) and isinstance(t, cst.Name) and t.value == name:
                return n  # (in place, for an array)
        elif isinstance(n, cst.Call):
            func = n.func
            if isinstance(func, cst.Attribute) and _root(func) == name and func.attr.value not in _READING_METHODS:
                return n
            if isinstance(func, cst.Attribute) and func.attr.value in _NUMPY_WRITERS and \
                    any(name in _names(a.value) for a in n.args):
                return n
            if any(a.keyword is not None and a.keyword.value == "out" and name in _names(a.value) for a in n.args):
                return n
    return None


def _strided(e: cst.BaseExpression, names: frozenset = frozenset()) -> Optional[cst.Call]:
    """The call of `sliding_window_view(b, 3)`, `np.lib.stride_tricks.as_strided(b, ...)` e is, or takes a view of
    (`sliding_window_view(b, 3)[::2]`, `.T`, `.reshape(...)`), or None: a view of b whose items overlap, which the
    transforms take as a new array (its derivative is a gather of b's, made where the view is)."""
    while isinstance(e, (cst.Subscript, cst.Attribute)):
        e = e.value
    if not isinstance(e, cst.Call):
        return None
    func = e.func
    name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
    if name in _STRIDED or name in names:
        return e
    return _strided(func.value, names) if isinstance(func, cst.Attribute) and name in _VIEW_METHODS else None


def _check_strided(lw: "Lowering", stmts: list, i: int, name: str, view: cst.BaseExpression, reads: set) -> None:
    """A strided view `name` made by stmts[i]: refuse a store through it, and a read of it after a statement that
    may change its base (anywhere later in the block: a view is read as often as the code likes)."""
    changed_at = None
    for t in stmts[i + 1:]:
        through = _stores_through(t, name)
        if through is not None:
            lw.unsupported(stmts[i], f"`{lw.src.line_text(_line(lw, view)).strip()}`: line {_line(lw, through)} writes "
                                     "through this strided view (its items are its base's memory); mooncake_ast "
                                     "takes the view as a new array, so the write would not reach the base's "
                                     "derivative. Write to the base array, or take a copy of the view (`.copy()`)")
        if changed_at is not None and _uses(t, name):
            lw.unsupported(stmts[i], f"`{lw.src.line_text(_line(lw, view)).strip()}`: line {_line(lw, changed_at)} "
                                     f"may change its base before line {_line(lw, t)} reads it; the view reads its "
                                     "base's memory when it is read, mooncake_ast where it is made. Take the view "
                                     "after the change, or a copy where you make it (`.copy()`)")
        if changed_at is None:
            changed_at = _change(t, reads)
            if changed_at is not None and _uses(t, name):
                lw.unsupported(stmts[i], f"`{lw.src.line_text(_line(lw, view)).strip()}`: line "
                                         f"{_line(lw, changed_at)} may change its base while the view is read; the "
                                         "view reads its base's memory when it is read, mooncake_ast where it is "
                                         "made. Take a copy where you make it (`.copy()`)")


def _check_block(lw: "Lowering", stmts: list, aliases: dict, modules: set, bare: frozenset = frozenset(),
                 strided: frozenset = frozenset(), helpers: frozenset = frozenset()) -> None:
    """(`modules`: the global names bound to modules: `np.zeros(2)` between is no method of what `np.max` reads;
    `bare`: the names of itertools' functions imported bare; `strided`: other names of NumPy's strided views.)"""
    for i, s in enumerate(stmts):
        view = s.body[0].value if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 and \
            isinstance(s.body[0], cst.Assign) and len(s.body[0].targets) == 1 and \
            isinstance(s.body[0].targets[0].target, cst.Name) else None
        call = _strided(view, strided) if view is not None else None
        if call is not None:
            view_name = s.body[0].targets[0].target.value
            base = _names(call.args[0].value) if call.args else set()
            _check_strided(lw, stmts, i, view_name, view, _with_aliases(base - {view_name} - modules, aliases))
            continue
        for eager in (walked_in_step(s.iter) if isinstance(s, cst.For) else ()):
            if _eager_in_a_for(eager):
                _refuse_if_changed(lw, eager, _with_aliases(_names(eager) - modules, aliases) - modules,
                                   [(s.body, "in the loop's body")], s)
        if not (isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 and isinstance(s.body[0], cst.Assign)):
            continue
        a = s.body[0]
        name = lazy_escapes.bound_name(a.targets[0].target) if len(a.targets) == 1 else None
        if name is None or not (_lazy(a.value, bare) or lazy_escapes.holds_lazy(a.value, lambda e: _lazy(e, bare)) or
                                (isinstance(a.value, cst.Call) and isinstance(a.value.func, cst.Name) and
                                 a.value.func.value in helpers)):
            continue  # (an iterator or view, a container of them, or one a helper of the module made)
        reads = _with_aliases(_names(a.value) - {name} - modules, aliases) - modules  # (a nested def's body reads np)
        between = []
        for t in stmts[i + 1:]:
            if _uses(t, name):
                if isinstance(t, cst.For) and isinstance(t.iter, cst.Name) and t.iter.value == name:
                    between.append((t.body, "in the loop's body"))  # (run between the items, taken at the start)
                break
            between.append((t, None))
        else:
            continue  # (not read in this block: nothing to compare)
        _refuse_if_changed(lw, a.value, reads, between, s)


def _refuse_if_changed(lw: "Lowering", lazy: cst.BaseExpression, reads: set, between: list, made: cst.CSTNode) -> None:
    """`between`: (statement or loop body, where it runs) pairs, in order."""
    glob = getattr(lw.pyfn, "__globals__", {})
    for t, where in between:
        changed = _change(t, reads, glob)
        if changed is None:
            continue
        what = "this generator expression" if isinstance(lazy, cst.GeneratorExp) else \
            f"`{lw.src.line_text(_line(lw, lazy)).strip()}`"
        lw.unsupported(made, f"{what}: line {_line(lw, changed)} ({where or 'before it is read'}) may change what it "
                             "reads; Python computes an iterator's items (and a dict view's) when they are read, "
                             "mooncake_ast where the iterator is made. Consume it where you make it, or take a list "
                             "there (`list(...)`)")


def used_as_iterator(lw: "Lowering", node: cst.GeneratorExp) -> bool:
    """Is this generator expression kept or handed on as an iterator (`g = (...)`, `next(...)`, `return (...)`), not
    consumed where it is written (`sum(v for v in xs)`)?  The lowering computes its items at once, as a list
    comprehension (expressions.py); such a one is then an iterator over them (`iter(items)`), so `next(g)` and a
    reader of the rest see one (next() of a list was Python's TypeError)."""
    found = getattr(lw, "_iterator_genexps", None)
    if found is None:
        found = lw._iterator_genexps = set()  # type: ignore[attr-defined]

        class Finder(cst.CSTVisitor):
            def visit_Assign(self, n: cst.Assign) -> None:
                if isinstance(n.value, cst.GeneratorExp):
                    found.add(id(n.value))

            def visit_Return(self, n: cst.Return) -> None:
                if isinstance(n.value, cst.GeneratorExp):
                    found.add(id(n.value))

            def visit_Call(self, n: cst.Call) -> None:
                if isinstance(n.func, cst.Name) and n.func.value == "next" and n.args and \
                        isinstance(n.args[0].value, cst.GeneratorExp):
                    found.add(id(n.args[0].value))

        walk(lw.src.node, Finder())
    return id(node) in found
