"""The structured body as it is printed: `If` and `Loop` nodes, and the lines they become.

The emitter (structure.py) builds a tree of statements (strings), `If`s and `Loop`s
from the CFG; `format_nodes` turns it into indented lines.  Kept apart because the
layout rules are about Python's syntax, not about the CFG: `elif` for else-if
chains, and a long chain printed flat with a counter (Python refuses more than 100
levels of indentation).  emit/module.py formats the emitter's result with it.
"""
from __future__ import annotations


class If:
    """`if cond: then else: orelse` in the printed structure (plain classes, not dataclasses: making a
    dataclass costs a first derivation its creation, ~0.1 ms each)."""

    __slots__ = ("cond", "then", "orelse")

    def __init__(self, cond: str, then: list, orelse: list) -> None:
        self.cond, self.then, self.orelse = cond, then, orelse

    def __repr__(self) -> str:
        return f"If({self.cond!r}, {self.then!r}, {self.orelse!r})"


class Loop:
    """A printed loop: its head (`while x > 0`, `for x in xs`), body and `else` part."""

    __slots__ = ("head", "body", "orelse")

    def __init__(self, head: str, body: list, orelse: list) -> None:
        self.head, self.body, self.orelse = head, body, orelse

    def __repr__(self) -> str:
        return f"Loop({self.head!r}, {self.body!r}, {self.orelse!r})"


# An if whose else holds (besides statements) just one more if, and so on: the spine of an elif
# chain.  Up to this many levels it prints nested (or as `elif`); beyond, flat (`_flat_spine`),
# since Python refuses more than 100 levels of indentation.
FLAT_SPINE = 16


def _spine(n: "If") -> list:
    """The chain of ifs each nested alone (among statements) in the previous one's else.

    An if with nothing in its then (printed `if not c:` with the rest inside) counts as `if c: pass`
    with the rest in its else: a chain whose branches do nothing (a value-free forward pass) is a
    chain too."""
    chain = [_flipped(n)]
    while True:
        ifs = [k for k, x in enumerate(chain[-1].orelse) if not isinstance(x, str)]
        if len(ifs) != 1 or not isinstance(chain[-1].orelse[ifs[0]], If):
            return chain
        chain.append(_flipped(chain[-1].orelse[ifs[0]]))


def _flipped(n: "If") -> "If":
    """`if c: <body>` with no else and an if inside the body, as `if not c: pass else: <body>`."""
    if n.orelse or sum(1 for x in n.then if not isinstance(x, str)) != 1 or \
            not any(isinstance(x, If) for x in n.then):
        return n
    c = n.cond
    flipped = c[4:] if c.startswith("not ") and c[4:].isidentifier() else f"not ({c})"
    return If(flipped, [], n.then)


def _flat_spine(chain: list, indent: str, depth: int, level_name: str) -> list[str]:
    """Nested ifs printed one after another, same statements in the same order.

    A counter (`level_name` + depth) says how many elses were entered: the test of the k-th if
    runs when the counter is k (every test before it failed); what follows an inner if in an
    else runs afterwards, innermost first, when the counter shows that else was entered.
    """
    pad, pad1 = indent * depth, indent * (depth + 1)
    counter = f"{level_name}_{depth}"
    lines = [f"{pad}{counter} = 0"]
    tails = []
    for k, node in enumerate(chain):
        last = k == len(chain) - 1
        head = pad if k == 0 else pad1
        inner_depth = depth + 1 if k == 0 else depth + 2
        if k > 0:
            lines.append(f"{pad}if {counter} == {k}:")
        lines.append(f"{head}if {node.cond}:")
        lines += format_nodes(node.then or ["pass"], indent, inner_depth, level_name)
        if last:
            if node.orelse:
                lines.append(f"{head}else:")
                lines += format_nodes(node.orelse, indent, inner_depth, level_name)
            break
        split = next(i for i, x in enumerate(node.orelse) if isinstance(x, If))
        before, after = node.orelse[:split], node.orelse[split + 1:]
        lines.append(f"{head}else:")
        lines += format_nodes(before, indent, inner_depth, level_name)
        lines.append(f"{head}{indent}{counter} = {k + 1}")
        tails.append((k + 1, after))
    for k, after in reversed(tails):
        if after:
            lines.append(f"{pad}if {counter} >= {k}:")
            lines += format_nodes(after, indent, depth + 1, level_name)
    return lines


def format_nodes(nodes: list, indent: str = "    ", depth: int = 1, level_name: str = "elif_level") -> list[str]:
    """Render a structured body to lines (with `elif` for else-if chains, flat for long ones).

    `level_name` is the base of the counters of flat chains (one per depth: a chain inside
    another has its own); no name of the function may start with it."""
    lines: list[str] = []
    pad = indent * depth
    for n in nodes:
        if isinstance(n, str):
            lines.append(pad + n if n else "")
        elif isinstance(n, If) and len(chain := _spine(n)) > FLAT_SPINE:
            lines += _flat_spine(chain, indent, depth, level_name)
        elif isinstance(n, If):
            lines.append(f"{pad}if {n.cond}:")
            lines += format_nodes(n.then or ["pass"], indent, depth + 1, level_name)
            orelse = n.orelse
            while len(orelse) == 1 and isinstance(orelse[0], If):
                inner = orelse[0]
                lines.append(f"{pad}elif {inner.cond}:")
                lines += format_nodes(inner.then or ["pass"], indent, depth + 1, level_name)
                orelse = inner.orelse
            if orelse:
                lines.append(f"{pad}else:")
                lines += format_nodes(orelse, indent, depth + 1, level_name)
        elif isinstance(n, Loop):
            lines.append(f"{pad}{n.head}:")
            lines += format_nodes(n.body, indent, depth + 1, level_name)
            if n.orelse:
                lines.append(f"{pad}else:")
                lines += format_nodes(n.orelse, indent, depth + 1, level_name)
    return lines
