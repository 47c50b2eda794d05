"""Find a function's source and its libcst node, with absolute file positions.

`inspect.getsourcelines` gives the definition's lines (decorators included)
and its first line number; we dedent them (methods and nested functions are
indented), parse with libcst, and keep the line offset and the indentation
removed so every location we report is the one in the user's file.  Lambdas
and definitions whose lines do not parse alone (a lambda inside a larger
expression) fall back to parsing the whole file.
"""
from __future__ import annotations

import inspect
import linecache
import textwrap
import types
from typing import Any, Iterator, Mapping, Optional, Union

from ..cache_classes import import_libcst
from ..errors import MissingRuleError, SourceUnavailableError, no_source_message
from ..digests import hasher

cst = import_libcst()  # (its dataclasses made from code kept in the cache: half of libcst's import time)
from libcst.metadata import CodePosition, CodeRange  # noqa: E402
from libcst.metadata import MetadataWrapper, PositionProvider  # noqa: E402
from libcst.metadata.position_provider import PositionProvidingCodegenState  # noqa: E402

FunctionNode = Union[cst.FunctionDef, cst.Lambda]


class FunctionSource:
    """A parsed function definition and how to map its positions to the file (a plain class: a
    dataclass costs its creation at import)."""

    def __init__(self, node: FunctionNode, positions: dict, file: str, line_offset: int, col_offset: int,
                 file_lines: list[str], text: str) -> None:
        self.node = node
        self.positions = positions  # cst node -> CodeRange, relative to the parsed text
        self.file = file
        self.line_offset = line_offset  # parsed line 1 is file line 1 + line_offset
        self.col_offset = col_offset  # indentation removed by dedent
        self.file_lines = file_lines
        self.text = text  # the source text of the definition, as parsed

    def __repr__(self) -> str:
        return f"FunctionSource({self.file}:{self.line_offset + 1})"

    def where(self, node: cst.CSTNode) -> tuple[int, int]:
        """(file line, 0-based column) of a node."""
        line, column = self.positions.start(node)
        return line + self.line_offset, column + self.col_offset

    def line_text(self, line: int) -> str:
        if 1 <= line <= len(self.file_lines):
            return self.file_lines[line - 1].rstrip("\n")
        return ""

    @property
    def digest(self) -> str:
        """Identifies this definition: its own code and where it starts (two lambdas on one line differ)."""
        start = self.positions[self.node].start
        node_code = cst.Module([]).code_for_node(self.node)
        key = f"{self.text}\0{node_code}\0{start.line + self.line_offset}:{start.column + self.col_offset}"
        return hasher(key.encode()).hexdigest()


class LazyPattern:
    """A regular expression compiled when first used (`re.compile`'s arguments; its methods, as the compiled
    pattern's).  Lowering's textual prefilters compiled eleven patterns when imported, 1.5 ms of a first
    derivation on the project's machine, most of them for tests that a cheaper one before rules out."""

    __slots__ = ("_args", "_compiled")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._args = (pattern, flags)
        self._compiled: Any = None

    def __getattr__(self, name: str) -> Any:
        compiled = self._compiled
        if compiled is None:
            import re

            compiled = self._compiled = re.compile(*self._args)
        return getattr(compiled, name)


def _as_python_function(fn: object) -> types.FunctionType:
    # `__wrapped__` (functools.wraps) is never followed: the function that runs is the one
    # differentiated, so its own code object says where its source is.
    if not isinstance(fn, types.FunctionType):
        raise SourceUnavailableError(f"{fn!r} is not a Python function")
    if (getattr(fn, "__module__", None) or "").split(".")[0] in ("dask", "distributed"):
        # (Dask's graph-building code is not the math: the NumPy functions it implements have the rules)
        raise MissingRuleError(fn, "derivative", "it is Dask's own code, which mooncake_ast does not differentiate: "
                                                 "call the NumPy function or ndarray method on the Dask array instead "
                                                 "(np.exp(x), x.sum(), x @ w), which Dask implements by NumPy's dispatch")
    return fn


def function_source(fn: object) -> FunctionSource:
    fn = _as_python_function(fn)
    code = fn.__code__
    file = code.co_filename
    if not (file.startswith("<") and file.endswith(">")):
        linecache.checkcache(file)  # an edited file is read again (as inspect does)
    file_lines = linecache.getlines(file, fn.__globals__)
    try:
        lines, first = _definition_lines(code, file_lines) or _lambda_line(code, file_lines) \
            or inspect.getsourcelines(code)
    except (OSError, TypeError) as e:
        if file.startswith("<"):  # typed at a prompt, `python -c`, exec: what works instead
            raise SourceUnavailableError(no_source_message(fn, file), fn) from None
        raise SourceUnavailableError(f"cannot get the source of {fn.__qualname__} ({file}): {e}", fn) from None
    if not file_lines:
        file_lines = [""] * (first - 1) + lines
    text = "".join(lines)
    dedented = textwrap.dedent(text)
    indent = _indent_of(lines[0]) - _indent_of(dedented.splitlines(True)[0]) if lines else 0
    if code.co_name != "<lambda>":
        found = _find(dedented, code, first - 1, indent, file, file_lines)
        if found is not None:
            return found
    whole = "".join(file_lines)
    found = _find(whole, code, 0, 0, file, file_lines)
    if found is None:
        raise SourceUnavailableError(f"cannot locate the definition of {fn.__qualname__} in {file}:{first}")
    return found


def _definition_lines(code: types.CodeType, file_lines: list[str]) -> Optional[tuple[list[str], int]]:
    """The lines of a def (decorators first), as `inspect.getsourcelines` finds them but without
    its search through every module and its tokenizer (more than the rest of a first
    derivation): from the code's first line through its last instruction, then on while lines
    are blank or indented deeper than the def (a trailing `pass`).  None where the file's lines
    cannot be those the code came from (a parse of the text that fails falls back to the file)."""
    first = code.co_firstlineno
    if code.co_name == "<lambda>" or not file_lines or first > len(file_lines):
        return None
    last = first
    stack = [code]
    while stack:
        c = stack.pop()
        for _, end, _, _ in c.co_positions():
            if end is not None and end > last:
                last = end
        stack += [k for k in c.co_consts if isinstance(k, types.CodeType)]
    if last > len(file_lines):
        return None
    depth = _indent_of(file_lines[first - 1])
    end = last
    while end < len(file_lines):
        line = file_lines[end]
        if line.strip() and _indent_of(line) <= depth:
            break
        end += 1
    while end > last and not file_lines[end - 1].strip():
        end -= 1
    return file_lines[first - 1:end], first


def _lambda_line(code: types.CodeType, file_lines: list[str]) -> Optional[tuple[list[str], int]]:
    """A lambda's first line: a lambda is found by a search of its whole file (function_source), so only where it
    starts is needed -- not inspect.getsourcelines, whose search of every loaded module for the code's file took
    ~4 ms a lambda with SciPy loaded (a quarter of deriving a rule case's lambda)."""
    first = code.co_firstlineno
    if code.co_name != "<lambda>" or not file_lines or first > len(file_lines):
        return None
    return [file_lines[first - 1]], first


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip())


class _Parsed:
    """A parsed text, its positions, and (found when first asked for: a walk over every node) its
    definitions and lambdas."""

    __slots__ = ("module", "positions", "_defs", "_lambdas")

    def __init__(self, module: cst.Module, positions: dict) -> None:
        self.module, self.positions = module, positions
        self._defs: Optional[list] = None
        self._lambdas: Optional[dict] = None

    def def_row(self, node: cst.FunctionDef) -> tuple:
        """(name, first line with decorators, line of the name, node)."""
        positions = self.positions
        start = min([positions[node].start.line] + [positions[d].start.line for d in node.decorators])
        return node.name.value, start, positions[node.name].start.line, node

    def top_level_defs(self) -> list:
        """The rows of the definitions among the module's own statements (a function's own text: itself)."""
        return [self.def_row(node) for node in self.module.body if isinstance(node, cst.FunctionDef)]

    @property
    def defs(self) -> list:
        """The rows of every definition, in source order."""
        if self._defs is None:
            self._walk()
        return self._defs  # type: ignore[return-value]

    @property
    def lambdas(self) -> dict:
        """Start line -> the Lambda nodes starting there, in source order."""
        if self._lambdas is None:
            self._walk()
        return self._lambdas  # type: ignore[return-value]

    def _walk(self) -> None:
        """Every FunctionDef and Lambda, from the positions already recorded for every node (no walk of the tree:
        libcst's visit made a new node for each one it passed).  Sorted by where each starts, they come in the
        order a visit finds them: a node starts before the nodes inside it, and two such nodes never start at the
        same place (a def's syntactic start is its `def`, a lambda's its `lambda`)."""
        positions = self.positions
        found = [n for n in positions if type(n) is cst.FunctionDef or type(n) is cst.Lambda]
        found.sort(key=positions.start)
        defs: list = []
        lambdas: dict = {}
        for node in found:
            if type(node) is cst.FunctionDef:
                defs.append(self.def_row(node))
            else:
                lambdas.setdefault(positions.start(node)[0], []).append(node)
        self._defs, self._lambdas = defs, lambdas


_PARSED: dict[str, Optional[_Parsed]] = {}


def _parse(text: str) -> Optional[_Parsed]:
    """Parse once per distinct text (a whole file is parsed for every lambda in it otherwise)."""
    key = hasher(text.encode()).hexdigest()
    if key in _PARSED:
        return _PARSED[key]
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError:
        _PARSED[key] = None
        return None
    found = _Parsed(module, positions_of(module))
    if len(_PARSED) > 64:
        _PARSED.pop(next(iter(_PARSED)))
    _PARSED[key] = found
    return found


def positions_of(module: cst.Module) -> "Positions":
    """libcst's `PositionProvider` positions of every node of `module`.

    Found as the provider finds them (generating the module's code and following the line and column of
    each token), by `_PositionState`, which records them more cheaply; where this libcst's code generation
    does not work that way, through the wrapper."""
    try:
        state = _PositionState(default_indent=module.default_indent, default_newline=module.default_newline,
                               provider=None)
        state.raw = {}
        module._codegen(state)
        raw = state.raw
    except (AttributeError, TypeError):
        raw = None
    if raw is None or id(module) not in raw:
        found = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        raw = {id(n): (n, r.start.line, r.start.column, r.end.line, r.end.column) for n, r in found.items()}
    return Positions(raw)


class Positions(Mapping):
    """node -> its `CodeRange` (libcst's positions), made when asked for, and `start(node)`: (line, column),
    which is what lowering asks for (`FunctionSource.where`).  Kept per node identity, as libcst's nodes
    compare (a look-up by the node itself calls their `__hash__`, a Python method)."""

    __slots__ = ("_raw", "_ranges")

    def __init__(self, raw: dict) -> None:
        self._raw = raw  # id(node) -> (node, start line, start column, end line, end column)
        self._ranges: dict = {}

    def _row(self, node: Any) -> tuple:
        row = self._raw.get(id(node))
        if row is None or row[0] is not node:
            raise KeyError(node)
        return row

    def start(self, node: Any) -> tuple[int, int]:
        row = self._row(node)
        return row[1], row[2]

    def __getitem__(self, node: Any) -> CodeRange:
        found = self._ranges.get(id(node))
        if found is None:
            row = self._row(node)
            found = self._ranges[id(node)] = CodeRange(CodePosition(row[1], row[2]), CodePosition(row[3], row[4]))
        return found

    def __iter__(self) -> Iterator:
        return (row[0] for row in self._raw.values())

    def __len__(self) -> int:
        return len(self._raw)


class _PositionState(PositionProvidingCodegenState):
    """libcst's code generation state that records `PositionProvider`'s positions, recording the same positions
    with less work per node (a first derivation made 373 nodes' positions for a 15-line function, 1.4 ms): a
    token without a line break moves the column without a regular expression, positions are kept as tuples
    (libcst makes a `CodePosition` at every node's start and end and a `CodeRange` for each, frozen dataclasses)
    in `raw`, by node identity, and a node's syntactic position is recorded without a generator-based context
    manager.  What is recorded, and when a node's range is not overwritten, is as in libcst's state."""

    __slots__ = ("raw",)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        if "\n" in value or "\r" in value:
            PositionProvidingCodegenState._update_position(self, value)
        else:
            self.column += len(value)

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.add_token(token)

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._stack.append((self.line, self.column))

    def after_codegen(self, node: cst.CSTNode) -> None:
        line, column = self._stack.pop()  # (popped whatever comes next, as libcst's)
        if id(node) not in self.raw:  # (a syntactic position recorded already stays)
            self.raw[id(node)] = (node, line, column, self.line, self.column)

    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: Optional[cst.CSTNode] = None,
                                  end_node: Optional[cst.CSTNode] = None) -> "_Recording":
        return _Recording(self, node, start_node, end_node)


class _Recording:
    """`with state.record_syntactic_position(node, start_node=..., end_node=...)`: node's range is from where the
    block starts (or start_node's start) to where it ends (or end_node's end), recorded even if it raises."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(self, state: _PositionState, node: Any, start_node: Any, end_node: Any) -> None:
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node

    def __enter__(self) -> None:
        self.start = (self.state.line, self.state.column)

    def __exit__(self, *exc: object) -> None:
        state = self.state
        raw = state.raw
        line, column = self.start if self.start_node is None else raw[id(self.start_node)][1:3]
        end = (state.line, state.column) if self.end_node is None else raw[id(self.end_node)][3:5]
        raw[id(self.node)] = (self.node, line, column, end[0], end[1])


_FIELDS: dict[type, tuple] = {}


def walk(node: cst.CSTNode, visitor: cst.CSTVisitor, prune: Optional[type] = None) -> None:
    """`node.visit(visitor)` for a visitor that only reads: its `on_visit` and `on_leave` (so its
    `visit_<Node>` and `leave_<Node>` methods) are called on the same nodes, depth first, but children
    are taken in the order of their fields (not always the source's: for visitors that collect, not
    ones that depend on order; whitespace nodes libcst's walk skips may be passed), and nothing is copied: libcst's own walk makes a new node for every
    node it passes, which made one look at a function's names cost more than lowering it.  Iterative:
    deep syntax (a long elif chain) needs no deep stack.  Nodes of type `prune` (and what is inside
    them) are left out, for a visitor that has nothing to find there."""
    cls = type(visitor)
    if cls.on_visit is cst.CSTVisitor.on_visit and cls.on_leave is cst.CSTVisitor.on_leave:
        on_visit, on_leave = _dispatcher(visitor)  # (the methods found once per node type, not per node)
    else:
        on_visit, on_leave = visitor.on_visit, visitor.on_leave
    stack: list = [node]
    while stack:
        n = stack.pop()
        if type(n) is tuple:  # (leaving a node whose children were visited)
            on_leave(n[0])
            continue
        if not on_visit(n):
            on_leave(n)
            continue
        stack.append((n,))
        tp = type(n)
        fields = _FIELDS.get(tp)
        if fields is None:
            fields = _FIELDS[tp] = tuple(tp.__dataclass_fields__)
        children = []
        for name in fields:
            v = getattr(n, name)
            kind = _KINDS.get(type(v)) or _kind(type(v))
            if kind == 1:
                if prune is None or not _pruned(type(v), prune):
                    children.append(v)
            elif kind == 2:
                children.extend(x for x in v if (_KINDS.get(type(x)) or _kind(type(x))) == 1
                                and (prune is None or not _pruned(type(x), prune)))
        children.reverse()
        stack += children


_KINDS: dict[type, int] = {}


def _kind(tp: type) -> int:
    """1: a node type, 2: a list or tuple, 3: anything else (known per type, from its MRO: CSTNode is an
    ABC, whose isinstance and issubclass tests of other types walk its two hundred subclasses)."""
    kind = _KINDS[tp] = 1 if cst.CSTNode in tp.__mro__ else 2 if tp in (list, tuple) else 3
    return kind


_PRUNED: dict[tuple, bool] = {}


def _pruned(tp: type, prune: type) -> bool:
    """issubclass(tp, prune), known per type from tp's MRO (no ABC subclass walk: see _kind)."""
    found = _PRUNED.get((tp, prune))
    if found is None:
        found = _PRUNED[(tp, prune)] = prune in tp.__mro__
    return found


def _dispatcher(visitor: cst.CSTVisitor) -> tuple:
    """`on_visit` and `on_leave` as CSTVisitor defines them (a node's `visit_<Type>` / `leave_<Type>`;
    children are visited unless its visit method returns False), with the methods looked up once per type."""
    visits: dict = {}
    leaves: dict = {}

    def on_visit(n: cst.CSTNode) -> bool:
        tp = type(n)
        f = visits.get(tp, _UNSEEN)
        if f is _UNSEEN:
            f = visits[tp] = getattr(visitor, "visit_" + tp.__name__, None)
        return f is None or f(n) is not False

    def on_leave(n: cst.CSTNode) -> None:
        tp = type(n)
        f = leaves.get(tp, _UNSEEN)
        if f is _UNSEEN:
            f = leaves[tp] = getattr(visitor, "leave_" + tp.__name__, None)
        if f is not None:
            f(n)

    return on_visit, on_leave


_UNSEEN = object()


def _find(text: str, code: types.CodeType, line_offset: int, col_offset: int, file: str, file_lines: list[str]) -> Optional[FunctionSource]:
    parsed = _parse(text)
    if parsed is None:
        return None
    positions = parsed.positions
    target_line = code.co_firstlineno - line_offset
    candidates: list[FunctionNode] = []
    if code.co_name == "<lambda>":
        candidates = list(parsed.lambdas.get(target_line, []))
    else:
        # The header of at most one definition spans a line: found among the text's own statements
        # (the usual case, the text being the definition), it is the one a walk would find first.
        for rows in (parsed.top_level_defs, lambda: parsed.defs):
            candidates = [node for name, start, body_start, node in rows()
                          if name == code.co_name and start <= target_line <= body_start]
            if candidates:
                break
    if not candidates:
        return None
    node = candidates[0]
    if len(candidates) > 1 and code.co_name == "<lambda>":
        node = _pick_lambda(candidates, code, positions, line_offset, col_offset)
    span = positions[node]
    lines = text.splitlines(True)
    def_text = "".join(lines[span.start.line - 1 : span.end.line])
    return FunctionSource(node, positions, file, line_offset, col_offset, file_lines, def_text)


def _pick_lambda(cands: list, code: types.CodeType, positions: dict, line_offset: int, col_offset: int) -> FunctionNode:
    """Several lambdas start on one line: pick the innermost one whose body holds a position of the code.

    A lambda's instructions lie in its own body; an enclosing lambda's body holds them too,
    while the enclosing lambda's own instructions (making the inner one) start at the inner
    `lambda` keyword, outside the inner body.  So the innermost body holding any of them is it.
    """
    points = [(line, col) for line, _, col, _ in code.co_positions() if line is not None and col is not None]

    def span(c: FunctionNode) -> tuple:
        r = positions[c.body]
        return (r.start.line + line_offset, r.start.column + col_offset), (r.end.line + line_offset, r.end.column + col_offset)

    holding = [c for c in cands if any(span(c)[0] <= p < span(c)[1] for p in points)]
    if not holding:
        return cands[0]
    return max(holding, key=lambda c: span(c)[0])  # nested bodies start later and end earlier
