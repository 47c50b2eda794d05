"""Lowering of `match` statements into the branches they mean.

Each case becomes a test (a short-circuit boolean) and an `if` on it, so both modes see plain
`Branch`es and the derivative follows the case that ran.  The tests are the ones CPython makes
(PEP 634), written as calls the transforms already know:

* literal and value patterns: `subject == value`; `None`/`True`/`False`: `subject is value`;
* capture `x` and wildcard `_`; `pattern as name`; or-patterns (`a | b`), whose alternatives
  bind the same names (joined by SSA, so the derivative follows the alternative that matched);
* sequence patterns `[a, b]`, `(a, *rest)`: `isinstance(subject, collections.abc.Sequence)` and
  not str/bytes/bytearray (so a string never matches, and neither does an ndarray, which is not
  a registered Sequence), the length, then the items as unpacking reads them;
* mapping patterns with constant keys: `isinstance(subject, collections.abc.Mapping)`, each
  key `in` the subject, then `subject[key]`;
* class patterns `C(attr=p)`: `isinstance(subject, C)`, then `hasattr`/`getattr` per keyword
  (CPython's getattr that treats AttributeError as "no match"), and `C(p)` for the builtin types
  that match themselves (`float(x)`, `int(x)`, ...).

The guard sees the names the pattern binds.  As in CPython, a name the pattern binds stays bound
when the guard fails, if it had a value before the `match`; a name new there is bound only where
the case matched (reading it after a failed guard is then an error, never a value).

Refused, with the user's line and what to write instead: `**rest` in mapping patterns and
positional sub-patterns of classes other than the self-matching builtins (they need
`__match_args__`).
"""
from __future__ import annotations

import builtins
import collections.abc
import operator
from typing import TYPE_CHECKING, Callable, Optional

import libcst as cst

from .. import ops
from ..ir.builder import UNDEFINED
from ..ir.nodes import Block, Const, Phi, Value

if TYPE_CHECKING:  # pragma: no cover
    from .statements import Lowering

# Builtin types whose class pattern takes one positional sub-pattern matched against the subject
# itself (CPython's _Py_TPFLAGS_MATCH_SELF).
SELF_MATCHING = ("bool", "bytearray", "bytes", "dict", "float", "frozenset", "int", "list", "set", "str", "tuple")
NOT_SEQUENCES = (str, bytes, bytearray)


def lower_match(lw: "Lowering", s: cst.Match) -> None:
    """`match subject: case ...` as `if`/`else` on each case's test; the bodies join after the match.

    A case's test (its pattern's checks, the bindings, then the guard) is one short-circuit
    boolean, as a chained comparison is: every failing check jumps to the test's end, where a phi
    says whether the case matched; then one branch picks the body or the next case.  (Jumping
    from each check straight to the next case would give merge points the emitters cannot
    structure.)"""
    b = lw.b
    subject = lw.expr(s.subject)
    join = b.new_block()
    for case in s.cases:
        b.loc = lw.loc_of(case)
        test = MatchLowering(lw)
        # The test binds into temporaries, set to None first so that they are defined on every
        # path through the test (a variable unbound on some paths into a merge is not something
        # the transforms take); the guard reads them through a scope, and the case's names are
        # bound from them where the case matched.
        names = sorted(bound_names(case.pattern))
        temps = {n: lw.temp_var("case_" + n) for n in names}
        for n in names:
            b.write(temps[n], Const(None))

        early: set[str] = set()

        def tests(case: cst.MatchCase = case, test: MatchLowering = test, temps: dict = temps, early: set = early) -> None:
            for name, value in test.pattern(case.pattern, subject).items():
                b.write(temps[name], value)
                if case.guard is not None and _defined(lw, name):
                    # CPython binds before the guard: a failed guard leaves the new value bound
                    lw.assign_name(name, value)
                    early.add(name)
            if case.guard is not None:
                lw.scopes.append(dict(temps))
                test.check(lw.expr(case.guard))
                lw.scopes.pop()

        matched = test.boolean(tests)
        if matched is None:  # an irrefutable case: no later case can run
            _bind(lw, temps, early)
            lw.body(case.body)
            b.goto(join)
            break
        then, orelse = b.new_block(), b.new_block()
        b.branch(matched, then, orelse)
        b.seal(then)
        b.position_at(then)
        _bind(lw, temps, early)
        lw.body(case.body)
        b.goto(join)
        b.seal(orelse)
        b.position_at(orelse)
    b.goto(join)
    lw._resume_at(join)


def _bind(lw: "Lowering", temps: dict[str, str], early: set[str]) -> None:
    for name, var in temps.items():
        if name not in early:
            lw.assign_name(name, lw.b.read(var))


def _defined(lw: "Lowering", name: str) -> bool:
    """Has `name` a value on every path to here (or is it a cell or global, where a write is a
    store)?  Only then may a guarded case bind it before its guard: binding a name unbound so far
    there would merge a value with "unbound" after the test, which the transforms do not take."""
    key = lw._var_key(name)
    if key is None or name in lw.cells or key in lw.comp_cells:
        return True
    value = lw.b.read(key)
    return value is not UNDEFINED and not (isinstance(value, Phi) and any(o is UNDEFINED for o in value.operands()))


class MatchLowering:
    """The tests of one case: `check(cond)` goes on where cond holds, else to the end of the
    innermost `boolean` being built, whose phi is then False."""

    def __init__(self, lw: "Lowering") -> None:
        self.lw = lw
        self.b = lw.b
        self.ends: list[tuple[Block, str]] = []  # (end block, its result variable), innermost last

    def boolean(self, emit: Callable[[], None]) -> Optional[Value]:
        """Emit the checks `emit` makes as one short-circuit boolean; None if it made none."""
        b = self.b
        end, var = b.new_block(), self.lw.temp_var("matched")
        self.ends.append((end, var))
        emit()
        self.ends.pop()
        if not end.preds:
            return None  # (no check: the builder is still in the success path, which goes on)
        b.write(var, Const(True))
        b.goto(end)
        b.seal(end)
        b.position_at(end)
        return b.read(var)

    def check(self, cond: Value) -> None:
        end, var = self.ends[-1]
        self.b.write(var, cond)
        ok = self.b.new_block()
        self.b.branch(cond, ok, end)
        self.b.seal(ok)
        self.b.position_at(ok)

    def pattern(self, p: cst.MatchPattern, subject: Value) -> dict[str, Value]:
        """Emit the tests of `p` against `subject`; return the names it binds (bound by the caller)."""
        method = getattr(self, "p_" + type(p).__name__, None)
        if method is None:
            self.lw.unsupported(p, f"match pattern {type(p).__name__}")
        return method(p, subject)

    def p_MatchValue(self, p: cst.MatchValue, subject: Value) -> dict[str, Value]:
        self.check(self.b.call(operator.eq, [subject, self.lw.expr(p.value)]))
        return {}

    def p_MatchSingleton(self, p: cst.MatchSingleton, subject: Value) -> dict[str, Value]:
        self.check(self.b.call(operator.is_, [subject, self.lw.expr(p.value)]))
        return {}

    def p_MatchAs(self, p: cst.MatchAs, subject: Value) -> dict[str, Value]:
        bound = self.pattern(p.pattern, subject) if p.pattern is not None else {}
        if p.name is not None:
            bound[p.name.value] = subject
        return bound

    def p_MatchOr(self, p: cst.MatchOr, subject: Value) -> dict[str, Value]:
        """`a | b | c`: each alternative's test is a boolean of its own, tried while the previous
        failed; the names they bind (the same in each) are joined by SSA after the last."""
        lw, b = self.lw, self.b
        any_var = lw.temp_var("alt")
        joins = []
        names = sorted(bound_names(p.patterns[0].pattern))
        temps = {n: lw.temp_var("alt_" + n) for n in names}
        for n in names:
            b.write(temps[n], Const(None))  # (defined on every path: see lower_match)
        for k, alt in enumerate(p.patterns):
            if sorted(bound_names(alt.pattern)) != names:
                lw.unsupported(alt.pattern, "or-pattern alternatives that bind different names")

            def emit(alt: cst.MatchOrElement = alt) -> None:
                for n, v in self.pattern(alt.pattern, subject).items():
                    b.write(temps[n], v)  # (on the path where the alternative matched)

            ok = self.boolean(emit)
            if ok is None or k == len(p.patterns) - 1:
                b.write(any_var, ok if ok is not None else Const(True))
                break
            b.write(any_var, ok)
            nxt, join = b.new_block(), b.new_block()
            joins.append(join)
            b.branch(ok, join, nxt)
            b.seal(nxt)
            b.position_at(nxt)
        for join in reversed(joins):
            b.goto(join)
            b.seal(join)
            b.position_at(join)
        self.check(b.read(any_var))
        return {n: b.read(temps[n]) for n in names}

    def p_MatchList(self, p: cst.MatchSequence, subject: Value) -> dict[str, Value]:
        b = self.b
        elems = list(p.patterns)
        stars = [i for i, e in enumerate(elems) if isinstance(e, cst.MatchStar)]
        is_seq = b.call(isinstance, [subject, Const(collections.abc.Sequence)])
        self.check(is_seq)
        not_sequences = b.call(ops.tuple_of, [Const(t) for t in NOT_SEQUENCES])
        self.check(b.call(operator.not_, [b.call(isinstance, [subject, not_sequences])]))
        n = b.call(len, [subject])
        if not stars:
            self.check(b.call(operator.eq, [n, Const(len(elems))]))
            items = b.call(ops.unpack, [subject, Const(len(elems))])
        else:
            i = stars[0]
            self.check(b.call(operator.ge, [n, Const(len(elems) - 1)]))
            items = b.call(ops.unpack_star, [subject, Const(i), Const(len(elems) - i - 1)])
        bound: dict[str, Value] = {}
        for k, e in enumerate(elems):
            if isinstance(e, cst.MatchStar):
                if e.name is not None:
                    bound[e.name.value] = b.call(operator.getitem, [items, Const(k)])
                continue
            if _is_wildcard(e.value):
                continue
            item = b.call(operator.getitem, [items, Const(k)])
            bound.update(self.pattern(e.value, item))
        return bound

    p_MatchTuple = p_MatchList

    def p_MatchMapping(self, p: cst.MatchMapping, subject: Value) -> dict[str, Value]:
        if p.rest is not None:
            self.lw.unsupported(p, "`**rest` in a mapping pattern (match the keys you need, and read the "
                                   "others from the subject in the case body)")
        b = self.b
        self.check(b.call(isinstance, [subject, Const(collections.abc.Mapping)]))
        bound: dict[str, Value] = {}
        keys = [self.lw.expr(e.key) for e in p.elements]
        for key in keys:
            self.check(b.call(operator.contains, [subject, key]))
        for key, e in zip(keys, p.elements):
            value = b.call(operator.getitem, [subject, key])
            bound.update(self.pattern(e.pattern, value))
        return bound

    def p_MatchClass(self, p: cst.MatchClass, subject: Value) -> dict[str, Value]:
        lw, b = self.lw, self.b
        cls = lw.expr(p.cls)
        self.check(b.call(isinstance, [subject, cls]))
        bound: dict[str, Value] = {}
        if p.patterns:
            if not (len(p.patterns) == 1 and _names_builtin(lw, p.cls, SELF_MATCHING)):
                lw.unsupported(p, "positional sub-patterns in a class pattern (they depend on `__match_args__`); "
                                  "write them with keywords, `Cls(attr=pattern)`")
            bound.update(self.pattern(p.patterns[0].value, subject))
        for kw in p.kwds:
            name = Const(kw.key.value)
            self.check(b.call(hasattr, [subject, name]))
            bound.update(self.pattern(kw.pattern, b.call(getattr, [subject, name])))
        return bound


def _is_wildcard(p: cst.MatchPattern) -> bool:
    return isinstance(p, cst.MatchAs) and p.pattern is None and p.name is None


def _names_builtin(lw: "Lowering", node: cst.BaseExpression, names: tuple) -> bool:
    """Is `node` a name that reads one of the builtins `names` (not a local, closure or module global)?"""
    if not isinstance(node, cst.Name) or node.value not in names:
        return False
    name = node.value
    if lw._var_key(name) is not None or name in lw.freevars or name in lw.pyfn.__globals__:
        return False
    return getattr(builtins, name, None) is not None


def bound_names(p: cst.MatchPattern) -> set[str]:
    """The names a pattern binds (captures, `as` names, `*rest`, `**rest`)."""
    names: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_MatchAs(self, node: cst.MatchAs) -> None:
            if node.name is not None:
                names.add(node.name.value)

        def visit_MatchStar(self, node: cst.MatchStar) -> None:
            if node.name is not None:
                names.add(node.name.value)

        def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
            if node.rest is not None:
                names.add(node.rest.value)

    p.visit(V())
    return names
