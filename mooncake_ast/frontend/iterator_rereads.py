"""A wrapper over a shared iterator read only in part, then the iterator read again: refused where it would be wrong.

`it = iter(x); a = next(v * v for v in it); rest = list(it)`: Python's generator expression pulls one item of
`it` for next(), and `list(it)` reads the rest.  The lowering computes a generator's items when it is made (a
generator function runs to its end, frontend/generators.py; a generator expression is a list comprehension;
map's and filter's rules call the function on every item at once): `it` is then read to its end, `rest` came out
empty, and the value and the derivative were silently wrong.  When the wrapper is read to its end (`list(...)`,
`sum(...)`, a `for` loop without `break`) before `it` is read again, both read the same items, in the same order:
that is left alone, as is a wrapper over a list or an array (read again from its start).

Found in the text of the function: a name bound to an iterator (`it = iter(...)`, `zip`, `map`, `enumerate`, a
generator expression, itertools...), a wrapper made over it (a generator expression iterating it, `map`/`filter`/
`enumerate` given it, a call of a generator function of the module given it), the wrapper not read to its end
(next(), a loop left by `break`, handed to another function, kept under a name read otherwise), and the name read
again later.  itertools' wrappers read an iterator as asked at the first order (rules/itertools_lazy.py); their
plain models for higher orders (rules/itertools_models.py) read it when called, and ask `itertools_site` whether
the call's line is such a site.
"""
from __future__ import annotations

import inspect
import types
from typing import Any, Callable, Iterable, Optional

import libcst as cst

from .cst_queries import nodes_of as _all
from .source import walk  # (a read-only visit: libcst's own rebuilds every node it passes)

_ITERATOR_CALLS = frozenset({"iter", "map", "filter", "zip", "enumerate", "reversed"})
_EAGER_WRAPPERS = frozenset({"map", "filter", "enumerate"})  # (zip and enumerate loops walk in step: frontend/loops.py)
_WHOLE = frozenset({"list", "tuple", "sum", "sorted", "set", "frozenset", "dict", "min", "max"})


class Finding:
    __slots__ = ("wrapper", "kind", "name", "reread", "made")

    def __init__(self, wrapper: cst.CSTNode, kind: str, name: str, reread: cst.CSTNode, made: cst.CSTNode) -> None:
        self.wrapper, self.kind, self.name, self.reread, self.made = wrapper, kind, name, reread, made


def _statements(node: cst.CSTNode, loops_of: Optional[dict] = None) -> list:
    """The function's statements in source order, nested blocks included (not nested functions or classes);
    `loops_of` (if given) gets, for each, the loops around it."""
    out: list = []
    stack: list = []

    class V(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            if n is not node and isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return False
            if isinstance(n, (cst.SimpleStatementLine, cst.For, cst.While, cst.If, cst.With, cst.Try)):
                out.append(n)
                if loops_of is not None:
                    loops_of[id(n)] = tuple(stack)
            if isinstance(n, (cst.For, cst.While)):
                stack.append(n)
            return True

        def on_leave(self, n: cst.CSTNode) -> None:
            if isinstance(n, (cst.For, cst.While)):
                stack.pop()

    node.visit(V())
    return out


def _bindings(s: cst.CSTNode, itertools_names: frozenset, iterators: dict, generators: frozenset) -> None:
    """Names statement s binds to an iterator (`it = iter(x)`, `it, k = iter(x), 3`) or to one bound before
    (`jt = it`: one group), into iterators (name -> (group, the binding statement))."""
    if not isinstance(s, cst.SimpleStatementLine):
        return
    for small in s.body:
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
            continue
        target, value = small.targets[0].target, small.value
        pairs = [(target, value)]
        if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List)) and \
                len(target.elements) == len(value.elements):
            pairs = [(t.value, v.value) for t, v in zip(target.elements, value.elements)]
        for t, v in pairs:
            if not isinstance(t, cst.Name):
                continue
            if _iterator_value(v, itertools_names, generators):
                iterators[t.value] = (t.value, s)
            elif isinstance(v, cst.Name) and v.value in iterators:
                iterators[t.value] = iterators[v.value]


def _own_header(s: cst.CSTNode) -> list:
    """The expressions a statement evaluates itself (a compound statement: its header; its body's are statements)."""
    if isinstance(s, cst.SimpleStatementLine):
        return [s]
    if isinstance(s, cst.For):
        return [s.target, s.iter]
    if isinstance(s, (cst.While, cst.If)):
        return [s.test]
    if isinstance(s, cst.With):
        return list(s.items)
    return []


def _callee(call: cst.Call) -> Optional[str]:
    f = call.func
    if isinstance(f, cst.Name):
        return f.value
    parts = []
    while isinstance(f, cst.Attribute):
        parts.append(f.attr.value)
        f = f.value
    if isinstance(f, cst.Name) and f.value == "itertools" and parts:
        return "itertools." + ".".join(reversed(parts))  # (`itertools.chain.from_iterable` too)
    return None


def _iterator_value(e: cst.BaseExpression, itertools_names: frozenset, generators: frozenset = frozenset()) -> bool:
    if isinstance(e, cst.GeneratorExp):
        return True
    if isinstance(e, cst.Call):
        name = _callee(e)
        return name is not None and (name in _ITERATOR_CALLS or name.startswith("itertools.") or name in itertools_names
                                     or name in generators)
    return False


def _leaves_early(body: cst.CSTNode) -> bool:
    """Does a loop body leave the loop before its end (its own `break`, a `return`, a `raise`)?"""
    found = False

    class V(cst.CSTVisitor):
        def __init__(self) -> None:
            self.loops = 0

        def on_visit(self, n: cst.CSTNode) -> bool:
            nonlocal found
            if isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return False
            if isinstance(n, (cst.Return, cst.Raise)) or (isinstance(n, cst.Break) and not self.loops):
                found = True
            if isinstance(n, (cst.For, cst.While)):
                self.loops += 1
            return True

        def on_leave(self, n: cst.CSTNode) -> None:
            if isinstance(n, (cst.For, cst.While)):
                self.loops -= 1

    walk(body, V())
    return found


def _reads(node: cst.CSTNode, name: str) -> list:
    return [n for n in _all(node, cst.Name) if n.value == name]


def _wrapper_kind(e: cst.CSTNode, name: str, generators: frozenset, itertools_names: frozenset,
                  helper_reads: Optional[Callable] = None, closures: Optional[dict] = None) -> Optional[str]:
    """What kind of wrapper e is over the iterator `name` (it is handed `name` itself), or None.  `closures`: the
    names each generator function defined in the function reads from it (`def g(): for v in it: yield v`)."""
    if isinstance(e, cst.GeneratorExp):
        return "generator expression" if any(_reaches(c.iter, name, itertools_names)
                                             for c in _for_ins(e.for_in)) else None
    if not isinstance(e, cst.Call):
        return None
    callee = _callee(e)
    lazy = callee is not None and (callee in _EAGER_WRAPPERS or callee.startswith("itertools.") or
                                   callee in itertools_names)
    if lazy and any(a.keyword is None and _reaches(a.value, name, itertools_names) for a in e.args):
        return "itertools" if callee not in _EAGER_WRAPPERS else callee  # (`starmap(f, zip(it, it))` reads it too)
    handed = [a for a in e.args if isinstance(a.value, cst.Name) and a.value.value == name and not a.star]
    if callee in generators and (handed or name in (closures or {}).get(callee, ())):
        return "generator"
    if not handed or helper_reads is None or callee is None or "." in callee:
        return None
    a = handed[0]
    if a.keyword is not None:
        key: Any = a.keyword.value
    elif all(b.keyword is None and not b.star for b in e.args[:e.args.index(a) + 1]):
        key = e.args.index(a)
    else:
        return None
    return "helper" if helper_reads(callee, key) else None


def _reaches(e: cst.BaseExpression, name: str, itertools_names: frozenset) -> bool:
    """Does the argument e read the iterator `name` as it is read itself: `name`, or a lazy iterator over it
    (`zip(name, name)`, `map(f, name)`, `enumerate(name)`, itertools' ...)?"""
    if isinstance(e, cst.Name):
        return e.value == name
    if isinstance(e, (cst.List, cst.Tuple)):  # (`chain.from_iterable([it, ys])`)
        return any(_reaches(el.value, name, itertools_names) for el in e.elements)
    if isinstance(e, cst.Call):
        callee = _callee(e)
        if callee is not None and (callee in _ITERATOR_CALLS or callee.startswith("itertools.") or
                                   callee in itertools_names):
            return any(a.keyword is None and _reaches(a.value, name, itertools_names) for a in e.args)
    return False


def _for_ins(c: Optional[cst.CompFor]) -> Iterable:
    while c is not None:
        yield c
        c = c.inner_for_in


def _read_whole(e: cst.CSTNode, stmt: cst.CSTNode, later: list, parents: dict) -> bool:
    """Is the wrapper e read to its end where it is made (a consumer of all of it, a loop without `break`), or,
    bound to a name, wherever that name is read?"""
    if isinstance(stmt, cst.For) and stmt.iter is e:
        return not _leaves_early(stmt.body)
    parent = parents.get(id(e))
    if isinstance(parent, cst.Arg):
        call = parents.get(id(parent))
        if isinstance(call, cst.Call) and _callee(call) in _WHOLE and call.args and call.args[0] is parent:
            return True
        if isinstance(call, cst.Call) and _callee(call) == "enumerate" and call.args and call.args[0] is parent:
            return _read_whole(call, stmt, later, parents)  # (enumerate reads its iterable as far as it is read)
        return False
    if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
        w = parent.targets[0].target.value
        uses = [(s, n) for s in later for part in _own_header(s) for n in _reads(part, w)]
        if not uses:
            return False  # (never read: Python's wrapper pulls nothing)
        for s, n in uses:
            if isinstance(s, cst.For) and isinstance(s.iter, cst.Name) and s.iter is n:
                if _leaves_early(s.body):
                    return False
                continue
            p = _parents_of(s).get(id(n))
            call = _parents_of(s).get(id(p)) if isinstance(p, cst.Arg) else None
            if not (isinstance(call, cst.Call) and _callee(call) in _WHOLE and call.args and call.args[0] is p):
                return False
        return True
    return False


_PARENTS: dict = {}


def _parents_of(node: cst.CSTNode) -> dict:
    found = _PARENTS.get(id(node))
    if found is not None and found[0] is node:
        return found[1]
    out: dict = {}

    class V(cst.CSTVisitor):
        def __init__(self) -> None:
            self.stack: list = []

        def on_visit(self, n: cst.CSTNode) -> bool:
            if self.stack:
                out[id(n)] = self.stack[-1]
            self.stack.append(n)
            return True

        def on_leave(self, n: cst.CSTNode) -> None:
            self.stack.pop()

    walk(node, V())
    if len(_PARENTS) > 64:
        _PARENTS.clear()
    _PARENTS[id(node)] = (node, out)
    return out


def _after(part: cst.CSTNode, e: cst.CSTNode, name: str, parents: dict) -> list:
    """The reads of `name` in `part` (a statement's own expressions) after the wrapper e, outside it."""
    order = _all(part, cst.CSTNode)
    start = next(i for i, n in enumerate(order) if n is e)
    inside = {id(n) for n in _all(e, cst.CSTNode)}
    return [n for n in order[start:] if isinstance(n, cst.Name) and n.value == name and id(n) not in inside and
            not isinstance(parents.get(id(n)), cst.AssignTarget)]


def findings(node: cst.CSTNode, generators: frozenset, itertools_names: frozenset = frozenset(),
             params: frozenset = frozenset(), helper_reads: Optional[Callable] = None,
             assumed: frozenset = frozenset(), closures: Optional[dict] = None) -> list:
    """The wrappers over a shared iterator in function `node` read in part, then the iterator read again (by a later
    statement, or by the wrapper itself in the next round of a loop around it that the iterator was bound outside).
    `params`: names of parameters known to hold iterators shared with the caller (a read in part is enough);
    `assumed`: other names known (at run time) to hold iterators."""
    loops_of: dict = {}
    stmts = _statements(node, loops_of)
    out: list = []
    iterators: dict = {p: (p, None) for p in params | assumed}
    for k, s in enumerate(stmts):
        _bindings(s, itertools_names, iterators, generators)
        if not iterators:
            continue
        parents = None
        for part in _own_header(s):
            for e in _all(part, cst.CSTNode):
                if not isinstance(e, (cst.GeneratorExp, cst.Call)):
                    continue
                for name, (group, bound) in list(iterators.items()):
                    kind = _wrapper_kind(e, name, generators, itertools_names, helper_reads, closures)
                    if kind is None:
                        continue
                    if isinstance(s, cst.For) and s.iter is e and kind == "enumerate":
                        continue  # (a loop over enumerate(it) walks it item by item)
                    parents = parents or _parents_of(s)
                    if _read_whole(e, s, stmts[k + 1:], parents):
                        continue
                    names = [n for n, (g, _) in iterators.items() if g == group]
                    again = [r for n in names for r in _after(part, e, n, parents)]
                    again += [r for t in stmts[k + 1:] for p in _own_header(t) for n in names for r in _reads(p, n)
                              if not isinstance(_parents_of(t).get(id(r)), cst.AssignTarget)]
                    loops = loops_of.get(id(s), ())
                    if not again and bound is not None and any(lp not in loops_of.get(id(bound), ()) for lp in loops):
                        again = [r for r in _reads(e, name)]  # (the next round of the loop reads it again)
                    if not again and name in params:
                        again = [r for r in _reads(e, name)]  # (the caller may read it again)
                    if again:
                        out.append(Finding(e, kind, name, again[0], s))
    return out


def generator_names(node: cst.CSTNode, glob: dict) -> frozenset:
    """The names, in the function, of generator functions: the module's (its globals) and those it defines."""
    names = {n for n, v in glob.items() if isinstance(v, types.FunctionType) and inspect.isgeneratorfunction(v)}
    for fd in _all(node, cst.FunctionDef):
        if fd is not node and any(True for _ in _all(fd.body, cst.Yield)):
            names.add(fd.name.value)
    return frozenset(names)


def message(kind: str, name: str, line_made: int, line_again: int) -> str:
    if kind == "helper":
        head = (f"the function called here makes a generator (a generator expression, map, filter...) over the iterator "
                f"`{name}` it is handed, read only in part")
    else:
        what = {"generator": "a generator", "generator expression": "a generator expression",
                "itertools": "itertools' iterator (at a derivative of order two or more)"}.get(kind, f"{kind}()")
        head = f"{what} over the iterator `{name}` is read only in part (next(), a loop left early, or kept and read " \
               "elsewhere)"
    again = "the next round of the loop reads it" if line_again == line_made else f"line {line_again} reads `{name}`"
    return (f"{head}, and {again} again: Python's wrapper pulls from `{name}` only the items asked for, where "
            f"mooncake_ast computes its items when it is made (line {line_made}), reading `{name}` further, so the value "
            f"and the derivative would be wrong. Take a list of the items (`items = list({name})`) and index it, or "
            f"read the wrapper to its end before reading `{name}` again")


def check(lw: Any, node: cst.CSTNode, itertools_names: frozenset) -> None:
    """Refuse (at lowering) a generator, generator expression, map, filter or enumerate over a shared iterator read in
    part, the iterator read again after (also where a function of the module, or one defined here, makes the wrapper
    over the iterator it is handed, or a generator defined here reads it from the function)."""
    glob = getattr(lw.pyfn, "__globals__", {})
    generators = generator_names(node, glob)
    local = {fd.name.value: fd for fd in _all(node, cst.FunctionDef) if fd is not node}
    closures = {n: {r.value for r in _all(fd.body, cst.Name)} - {p.name.value for p in fd.params.params}
                for n, fd in local.items() if n in generators}
    helper_reads = _helper_reader(local, glob, generators)
    for f in findings(node, generators, itertools_names, helper_reads=helper_reads, closures=closures):
        if f.kind == "itertools":
            continue  # (right at the first order; higher orders ask itertools_site)
        lw.unsupported(f.wrapper, message(f.kind, f.name, lw.src.where(f.wrapper)[0], lw.src.where(f.reread)[0]))


_HELPERS: dict = {}


def _helper_reader(local: dict, glob: dict, generators: frozenset) -> Callable:
    """helper_reads(name, key): does the function `name` (defined in the function, or the module's) make a wrapper
    computed when made (a generator, a generator expression, map, filter, enumerate) over its parameter `key` (a
    position or a name) and read it only in part (itself, or through a helper it hands it to)?"""
    busy: set = set()

    def helper_reads(name: str, key: Any) -> bool:
        fd = local.get(name)
        cache: Any = None
        if fd is None:
            fn = glob.get(name)
            if not isinstance(fn, types.FunctionType) or inspect.isgeneratorfunction(fn):
                return False
            cache = (fn.__code__, key)
            if cache in _HELPERS:
                return _HELPERS[cache]
            fd = _parsed(fn)
            if fd is None:
                _HELPERS[cache] = False
                return False
        params = [p.name.value for p in fd.params.params]
        param = params[key] if isinstance(key, int) and key < len(params) else key if key in params else None
        if param is None or (name, param) in busy:
            return False
        busy.add((name, param))
        try:
            found = any(f.kind != "itertools" and f.name == param
                        for f in findings(fd, generators | generator_names(fd, glob), frozenset(), frozenset([param]),
                                          helper_reads=helper_reads))
        finally:
            busy.discard((name, param))
        if cache is not None:
            _HELPERS[cache] = found
        return found

    return helper_reads


def _parsed(fn: types.FunctionType) -> Optional[cst.FunctionDef]:
    import textwrap

    try:
        text = textwrap.dedent(inspect.getsource(fn))
        module = cst.parse_module(text)
    except Exception:  # noqa: BLE001  (no source, or one libcst cannot read: nothing known)
        return None
    found = [n for n in module.body if isinstance(n, cst.FunctionDef)]
    return found[0] if found else None


# ---------------------------------------------------------------- higher orders: itertools' models
_SITES: dict = {}


def itertools_site(frame: Any) -> Optional[str]:
    """The refusal for the itertools call the user's line running in `frame`'s generated code makes, if that line
    makes an itertools wrapper over a shared iterator read in part and then read again (None otherwise)."""
    import traceback

    from .. import tracebacks as tb

    where = None
    for fs in reversed(traceback.extract_stack(frame)):
        src = tb._generated_source(fs.filename)
        if src is None or (src and tb._is_library(src)):
            continue
        where = tb._user_line(fs.filename, fs.lineno or 1)
        for _ in range(4):
            if where is None or tb._generated_source(where[0]) is None:
                break
            where = tb._user_line(*where)
        break
    if where is None:
        return None
    key = (where[0], where[1])
    if key not in _SITES:
        _SITES[key] = _site(*key)
    return _SITES[key]


def _site(filename: str, line: int) -> Optional[str]:
    import linecache

    text = "".join(linecache.getlines(filename))
    if not text or "itertools" not in text:
        return None
    try:
        module = cst.parse_module(text)
        wrapper = cst.metadata.MetadataWrapper(module)
        pos = wrapper.resolve(cst.metadata.PositionProvider)
    except Exception:  # noqa: BLE001  (a file libcst cannot read: nothing found)
        return None
    tree = wrapper.module
    for fd in _all(tree, cst.FunctionDef):
        p = pos.get(fd)
        if p is None or not (p.start.line <= line <= p.end.line):
            continue
        bare = frozenset(n.value for imp in _all(tree, cst.ImportFrom)
                         if isinstance(imp.module, cst.Name) and imp.module.value == "itertools" and
                         not isinstance(imp.names, cst.ImportStar)
                         for a in imp.names for n in [a.asname.name if a.asname else a.name] if isinstance(n, cst.Name))
        generators = frozenset(g.name.value for g in _all(tree, cst.FunctionDef) if _all(g.body, cst.Yield))
        params = frozenset(p.name.value for p in fd.params.params)  # (an iterator handed in: the caller may read on)
        assumed = frozenset(n.value for call in _all(fd, cst.Call) if pos[call].start.line <= line <= pos[call].end.line
                            for n in _all(call, cst.Name))  # (the model's argument is an iterator, whatever made it)
        for f in findings(fd, generators, bare, params, assumed=assumed - params):
            if f.kind == "itertools" and pos[f.wrapper].start.line <= line <= pos[f.wrapper].end.line:
                return f"{filename}:{line}: " + message(f.kind, f.name, pos[f.wrapper].start.line,
                                                         pos[f.reread].start.line)
    return None
