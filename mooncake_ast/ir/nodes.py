"""The IR: basic blocks of SSA statements, every operation a call.

Small typed classes in the spirit of mypyc's IR.  A `Function` is a list of
`Block`s; each block holds `Phi` nodes, then `Call` statements, then exactly one
terminator (`Goto`, `Branch`, `Return`, `Raise`).  Operands are `Value`s:
SSA results (`Call`, `Phi`), function parameters (`Param`), literals (`Const`),
module globals read late (`Global`) and the cells of the function's own closure
(`FreeVar`).  Both transforms (forward and reverse) and the emitter read this
one structure, so it carries only what all of them need: source locations for
comments and errors, name hints for readable output, and nothing type-specific
(Python is dynamically typed; dispatch happens when generated code runs).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Iterator, Optional


@dataclasses.dataclass(frozen=True)
class Loc:
    """Where a statement comes from: absolute file line and column, and the text.  `via` says, for a statement of a
    function put in line into another (reverse/inline.py), which function it belongs to and where that was called:
    `((callee name, call file, call line), ...)`, innermost call first, so that comments and tracebacks show the
    user every frame their code would have."""

    file: str
    line: int
    col: int
    text: str = ""
    via: tuple = ()

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


class Value:
    """Anything a statement can use as an operand."""

    hint: Optional[str] = None

    def operands(self) -> tuple["Value", ...]:
        return ()


class Const(Value):
    """A literal known when the IR is built (numbers, strings, None, callables we insert)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"Const({self.value!r})"


class Global(Value):
    """A read of a module-level name, looked up when the generated code runs."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.hint = name

    def __repr__(self) -> str:
        return f"Global({self.name})"


class Param(Value):
    """A parameter of the function. `kind` is one of the `inspect.Parameter` kind names."""

    def __init__(self, name: str, index: int, kind: str = "POSITIONAL_OR_KEYWORD") -> None:
        self.name = name
        self.hint = name
        self.index = index
        self.kind = kind

    def __repr__(self) -> str:
        return f"Param({self.name})"


class FreeVar(Value):
    """The cell object of a variable captured from an enclosing function."""

    def __init__(self, name: str, index: int) -> None:
        self.name = name
        self.hint = name
        self.index = index

    def __repr__(self) -> str:
        return f"FreeVar({self.name})"


class Stmt(Value):
    """A statement that defines an SSA value; `block` is set when it is placed."""

    loc: Optional[Loc] = None
    block: Optional["Block"] = None


class Call(Stmt):
    """`result = fn(*args, **kwargs)`: the one statement kind of the normalised IR.

    `fn` is a Value (usually a `Const` holding a known callable such as
    `operator.add`, or an SSA value computed at run time).  `kwargs` keeps
    keyword names, since they matter for binding and readability.
    """

    def __init__(
        self,
        fn: Value,
        args: list[Value],
        kwargs: Optional[dict[str, Value]] = None,
        hint: Optional[str] = None,
        loc: Optional[Loc] = None,
    ) -> None:
        self.fn = fn
        self.args = list(args)
        self.kwargs = dict(kwargs or {})
        self.hint = hint
        self.loc = loc

    def operands(self) -> tuple[Value, ...]:
        if self.kwargs:
            return (self.fn, *self.args, *self.kwargs.values())
        return (self.fn, *self.args)  # (most calls: no keywords, so no view of them to unpack)

    def replace_operand(self, old: Value, new: Value) -> None:
        if self.fn is old:
            self.fn = new
        self.args = [new if a is old else a for a in self.args]
        self.kwargs = {k: (new if v is old else v) for k, v in self.kwargs.items()}

    def callee(self) -> Any:
        """The callable if it is known when the IR is built, else None."""
        return self.fn.value if isinstance(self.fn, Const) else None

    def __repr__(self) -> str:
        return f"Call({self.fn!r}, {self.args!r})"


class Phi(Stmt):
    """A join of values by predecessor block: `incoming[pred] = value`."""

    def __init__(self, hint: Optional[str] = None) -> None:
        self.hint = hint
        self.incoming: dict[Block, Value] = {}

    def operands(self) -> tuple[Value, ...]:
        return tuple(self.incoming.values())

    def replace_operand(self, old: Value, new: Value) -> None:
        for b, v in self.incoming.items():
            if v is old:
                self.incoming[b] = new


# ---------------------------------------------------------------- terminators


class Terminator:
    loc: Optional[Loc] = None

    def successors(self) -> tuple["Block", ...]:
        return ()

    def operands(self) -> tuple[Value, ...]:
        return ()

    def replace_operand(self, old: Value, new: Value) -> None:
        pass


class Goto(Terminator):
    def __init__(self, target: "Block") -> None:
        self.target = target

    def successors(self) -> tuple["Block", ...]:
        return (self.target,)


class Branch(Terminator):
    """Go to `then` if `cond` is truthy, else to `orelse` (Python truthiness)."""

    def __init__(self, cond: Value, then: "Block", orelse: "Block", loc: Optional[Loc] = None) -> None:
        self.cond = cond
        self.then = then
        self.orelse = orelse
        self.loc = loc

    def successors(self) -> tuple["Block", ...]:
        return (self.then, self.orelse)

    def operands(self) -> tuple[Value, ...]:
        return (self.cond,)

    def replace_operand(self, old: Value, new: Value) -> None:
        if self.cond is old:
            self.cond = new


class Return(Terminator):
    def __init__(self, value: Value, loc: Optional[Loc] = None) -> None:
        self.value = value
        self.loc = loc

    def operands(self) -> tuple[Value, ...]:
        return (self.value,)

    def replace_operand(self, old: Value, new: Value) -> None:
        if self.value is old:
            self.value = new


class Raise(Terminator):
    """Raise `exc` (an exception instance or class); `None` re-raises nothing (bare raise)."""

    def __init__(self, exc: Optional[Value], loc: Optional[Loc] = None) -> None:
        self.exc = exc
        self.loc = loc

    def operands(self) -> tuple[Value, ...]:
        return (self.exc,) if self.exc is not None else ()

    def replace_operand(self, old: Value, new: Value) -> None:
        if self.exc is old:
            self.exc = new


# ---------------------------------------------------------------- blocks


class Block:
    """A basic block: phis, statements, one terminator.  `id` is stable and printed."""

    def __init__(self, id: int) -> None:
        self.id = id
        self.phis: list[Phi] = []
        self.stmts: list[Call] = []
        self.term: Optional[Terminator] = None
        self.preds: list[Block] = []
        # Loop structure recorded by the frontend, used by the emitter to
        # print `for i in range(...)` instead of a bare `while`.
        self.loop: Optional["LoopInfo"] = None

    def successors(self) -> tuple["Block", ...]:
        return self.term.successors() if self.term else ()

    def __repr__(self) -> str:
        return f"L{self.id}"

    # (Hashing and equality are object's, by identity: written out in Python they cost every dict and set
    # operation on blocks a call, some 4000 per derivation of a 15-line function.)


@dataclasses.dataclass
class LoopInfo:
    """What the frontend knows about the loop whose header is this block.

    The emitter uses it to print `while cond:` / `for x in xs:` instead of
    recovering loops from a bare CFG, and reverse mode uses it to count trips.
    `kind` is "while" or "for".  A "for" loop counts `counter` (a phi) from 0
    to `length` (= len(`seq`)), `item` is `seq[counter]`, and `latch` is the
    block that increments the counter.  `exit` is where the loop goes on
    (after its `else`), `orelse` the block of its `else` clause if any.
    """

    kind: str
    loc: Optional[Loc] = None
    counter: Optional[Value] = None
    seq: Optional[Value] = None
    length: Optional[Value] = None
    item: Optional[Value] = None
    latch: Optional[Block] = None
    exit: Optional[Block] = None
    orelse: Optional[Block] = None


class Function:
    """A function in IR form."""

    def __init__(self, name: str, params: list[Param], freevars: list[FreeVar], loc: Loc) -> None:
        self.name = name
        self.params = params
        self.freevars = freevars
        self.loc = loc
        self.blocks: list[Block] = []
        self.globals_read: set[str] = set()
        self.local_names: set[str] = set()

    @property
    def entry(self) -> Block:
        return self.blocks[0]

    def new_block(self) -> Block:
        b = Block(len(self.blocks))
        self.blocks.append(b)
        return b

    def statements(self) -> Iterator[Stmt]:
        for b in self.blocks:
            yield from b.phis
            yield from b.stmts

    def recompute_preds(self) -> None:
        for b in self.blocks:
            b.preds = []
        for b in self.blocks:
            for s in b.successors():
                if b not in s.preds:
                    s.preds.append(b)

    def remove_unreachable(self) -> None:
        seen: set[Block] = set()
        stack = [self.entry]
        while stack:
            b = stack.pop()
            if b in seen:
                continue
            seen.add(b)
            stack.extend(b.successors())
        self.blocks = [b for b in self.blocks if b in seen]
        for b in self.blocks:
            for phi in b.phis:
                phi.incoming = {p: v for p, v in phi.incoming.items() if p in seen}
            if b.loop is not None:
                for attr in ("latch", "exit", "orelse"):
                    if getattr(b.loop, attr) not in seen:
                        setattr(b.loop, attr, None)
        for i, b in enumerate(self.blocks):
            b.id = i
        self.recompute_preds()
