"""Print normalised calls back as the Python syntax they came from.

`operator.add(a, b)` prints as `a + b`, `getattr(o, 'x')` as `o.x`,
`ops.tuple_of(a, b)` as `(a, b)`; calls of anything else print as calls.
Each rendering returns its text and a precedence, so nested expressions get
exactly the parentheses they need.
"""
from __future__ import annotations

import math
import operator
from typing import Any, Callable, Optional

from .. import ops

# Python operator precedence (higher binds tighter).
LAMBDA, IFEXP, OR, AND, NOT, CMP, BOR, BXOR, BAND, SHIFT, ARITH, TERM, UNARY, POWER, AWAIT, ATOM = range(16)

BINARY_SYNTAX: dict[Any, tuple[str, int]] = {
    operator.add: ("+", ARITH), operator.sub: ("-", ARITH), operator.mul: ("*", TERM),
    operator.truediv: ("/", TERM), operator.floordiv: ("//", TERM), operator.mod: ("%", TERM),
    operator.matmul: ("@", TERM), operator.pow: ("**", POWER), operator.lshift: ("<<", SHIFT),
    operator.rshift: (">>", SHIFT), operator.or_: ("|", BOR), operator.and_: ("&", BAND),
    operator.xor: ("^", BXOR), operator.eq: ("==", CMP), operator.ne: ("!=", CMP),
    operator.lt: ("<", CMP), operator.le: ("<=", CMP), operator.gt: (">", CMP), operator.ge: (">=", CMP),
    operator.is_: ("is", CMP), operator.is_not: ("is not", CMP),
}
INPLACE_SYNTAX: dict[Any, str] = {
    operator.iadd: "+=", operator.isub: "-=", operator.imul: "*=", operator.itruediv: "/=",
    operator.ifloordiv: "//=", operator.imod: "%=", operator.ipow: "**=", operator.imatmul: "@=",
    operator.ilshift: "<<=", operator.irshift: ">>=", operator.ior: "|=", operator.iand: "&=", operator.ixor: "^=",
}
UNARY_SYNTAX: dict[Any, tuple[str, int]] = {
    operator.neg: ("-", UNARY), operator.pos: ("+", UNARY), operator.invert: ("~", UNARY), operator.not_: ("not ", NOT),
}

Expr = tuple[str, int]


def literal(value: Any) -> Optional[str]:
    """Source text for a constant, or None if it has no literal form."""
    if value is None or isinstance(value, (bool, int, str, bytes)) or value is Ellipsis:
        return repr(value) if value is not Ellipsis else "..."
    if isinstance(value, float):
        if math.isnan(value):
            return "float('nan')"
        if math.isinf(value):
            return "float('inf')" if value > 0 else "-float('inf')"
        return repr(value)
    if isinstance(value, complex):
        return repr(value)
    if isinstance(value, tuple) and all(literal(v) is not None for v in value):
        inner = ", ".join(literal(v) for v in value)  # type: ignore[misc]
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return None


def paren(e: Expr, level: int, right: bool = False) -> str:
    text, prec = e
    if prec < level or (right and prec == level and level != POWER) or (prec == level == POWER and not right):
        return f"({text})"
    return text


def is_identifier_string(v: Any) -> bool:
    return isinstance(v, str) and v.isidentifier()


class CallRenderer:
    """Render one call given its callee and already-rendered operands.

    `qualify(fn)` names a callable that has no syntax of its own (e.g.
    `operator.index`, `_mc.make_function`); it is supplied by the module
    emitter, which knows which modules are imported under which names.
    """

    def __init__(self, qualify: Callable[[Any], str]) -> None:
        self.qualify = qualify

    def expression(self, fn: Any, fn_text: Optional[Expr], args: list[Expr], kwargs: dict[str, Expr], raw_args: list[Any]) -> Expr:
        if fn is not None:
            special = self._special(fn, args, kwargs, raw_args)
            if special is not None:
                return special
            callee = self.qualify(fn)
        else:
            assert fn_text is not None
            callee = paren(fn_text, ATOM)
        parts = [a[0] for a in args] + [f"{k}={v[0]}" for k, v in kwargs.items()]
        return f"{callee}({', '.join(parts)})", ATOM

    def _special(self, fn: Any, args: list[Expr], kwargs: dict[str, Expr], raw: list[Any]) -> Optional[Expr]:
        if kwargs:
            return None
        n = len(args)
        try:
            hash(fn)
        except TypeError:
            return None
        if fn in BINARY_SYNTAX and n == 2:
            op, prec = BINARY_SYNTAX[fn]
            if prec == CMP:
                return f"{paren(args[0], CMP + 1)} {op} {paren(args[1], CMP + 1)}", CMP
            if prec == POWER:
                return f"{paren(args[0], UNARY + 1)} ** {paren(args[1], UNARY)}", POWER
            return f"{paren(args[0], prec)} {op} {paren(args[1], prec, right=True)}", prec
        if fn in UNARY_SYNTAX and n == 1:
            op, prec = UNARY_SYNTAX[fn]
            return f"{op}{paren(args[0], prec)}", prec
        if fn is operator.contains and n == 2:
            return f"{paren(args[1], CMP + 1)} in {paren(args[0], CMP + 1)}", CMP
        if fn is ops.not_contains and n == 2:
            return f"{paren(args[1], CMP + 1)} not in {paren(args[0], CMP + 1)}", CMP
        if fn is getattr and n == 2 and is_identifier_string(raw[1]):
            return f"{paren(args[0], ATOM)}.{raw[1]}", ATOM
        if fn is operator.getitem and n == 2:
            return f"{paren(args[0], ATOM)}[{self.subscript(args[1], raw[1])}]", ATOM
        if fn is ops.tuple_of:
            if n == 1:
                return f"({args[0][0]},)", ATOM
            return f"({', '.join(a[0] for a in args)})", ATOM
        if fn is ops.list_of:
            return f"[{', '.join(a[0] for a in args)}]", ATOM
        if fn is ops.set_of:
            return (f"{{{', '.join(a[0] for a in args)}}}", ATOM) if args else ("set()", ATOM)
        if fn is ops.dict_of:
            pairs = [f"{args[i][0]}: {args[i + 1][0]}" for i in range(0, n, 2)]
            return f"{{{', '.join(pairs)}}}", ATOM
        if fn is ops.identity and n == 1:
            return args[0]
        if fn is ops.choose and n == 3:
            return f"{paren(args[1], OR)} if {paren(args[0], OR)} else {paren(args[2], IFEXP)}", IFEXP
        if fn is ops.cell_get and n == 1:
            return f"{paren(args[0], ATOM)}.cell_contents", ATOM
        if fn is slice:
            return f"slice({', '.join(a[0] for a in args)})", ATOM
        if fn is ops.apply and n == 3:
            return f"{paren(args[0], ATOM)}(*{paren(args[1], UNARY)}, **{paren(args[2], UNARY)})", ATOM
        if fn in (list.append, set.add, list.extend, list.pop, dict.get, dict.items, dict.keys, dict.values) and n >= 1:
            rest = ", ".join(a[0] for a in args[1:])
            return f"{paren(args[0], ATOM)}.{fn.__name__}({rest})", ATOM
        return None

    def subscript(self, index: Expr, raw: Any) -> str:
        """Text inside `[...]`: slices print as `a:b`, index tuples without parentheses."""
        info = getattr(raw, "_render_slice", None)
        return info if info is not None else index[0]

    # ---------------------------------------------------------- statements
    def statement(self, fn: Any, args: list[Expr], raw: list[Any]) -> Optional[str]:
        """Calls that print as statements rather than expressions (their result is unused)."""
        if fn is operator.setitem and len(args) == 3:
            return f"{paren(args[0], ATOM)}[{self.subscript(args[1], raw[1])}] = {args[2][0]}"
        if fn is ops.add_to_item and len(args) == 3:  # (g before the index: the order the pullback makes them)
            return f"{paren(args[0], ATOM)}[{self.subscript(args[2], raw[2])}] += {args[1][0]}"
        if fn is setattr and len(args) == 3 and is_identifier_string(raw[1]):
            return f"{paren(args[0], ATOM)}.{raw[1]} = {args[2][0]}"
        if fn is operator.delitem and len(args) == 2:
            return f"del {paren(args[0], ATOM)}[{self.subscript(args[1], raw[1])}]"
        if fn is delattr and len(args) == 2 and is_identifier_string(raw[1]):
            return f"del {paren(args[0], ATOM)}.{raw[1]}"
        if fn is ops.cell_set and len(args) == 2:
            return f"{paren(args[0], ATOM)}.cell_contents = {args[1][0]}"
        return None


def slice_text(args: list[Expr]) -> str:
    """`slice(a, b, c)` as it is written inside a subscript."""
    lo, hi, step = (a[0] if a[0] != "None" else "" for a in args)
    return f"{lo}:{hi}" + (f":{step}" if step else "")

