"""Lowering of generator functions (generator_ops.py has the run-time side and says what is checked).

A function with `yield` is lowered as one that collects what it yields: its entry makes the list
`items` and fingerprints its inputs (`generator_ops.snapshot`), `yield v` appends v, and every
`return` returns `generator_ops.finish(items, inputs, None)`, the iterator its caller receives.
`yield from it` (a statement) is `for v in it: yield v`: what it hands on are the items of `it`, and
a generator `it` is itself run to its end (so it delegates nothing that could interact).
What cannot be made to agree with Python's lazy generator is refused here, naming the line:
the value of `yield from` and of a `yield` expression (what `.send()` passes in, what a
sub-generator returns), a generator returning a value, and a `while True` loop that nothing
leaves (an infinite generator).  A `for` loop over a
call checks, when it ends, that the inputs of a generator it may have consumed did not change
meanwhile (`generator_ops.consumed`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import libcst as cst

from ..ir.nodes import Const, Stmt, Value
from . import generator_ops

if TYPE_CHECKING:  # pragma: no cover
    from .statements import Lowering


def lower_body(lw: "Lowering", body: cst.BaseSuite) -> None:
    """The body, as if inside `try: ... except BaseException as e: return finish(items, inputs, None, e)`:
    an exception the body raises comes out of the iterator after the items yielded before it, as from
    Python's generator (a consumer catching it sees those items first)."""
    from .try_stmt import protected_body

    b = lw.b
    target, f = protected_body(lw, body)
    if b.terminated:
        return
    if f is not None:
        err, ok = b.new_block(), b.new_block()
        b.branch(f, err, ok)
        b.seal(err)
        b.position_at(err)
        b.ret(returned(lw, Const(None), b.read(target.var)))
        b.seal(ok)
        b.position_at(ok)
        if not ok.preds:
            return
    b.ret(returned(lw, Const(None)))


def lower_yield(lw: "Lowering", node: cst.Yield) -> None:
    """`yield v` (a statement): v is the generator's next item."""
    if isinstance(node.value, cst.From):
        _lower_yield_from(lw, node.value.item)
        return
    value = lw.expr(node.value) if node.value is not None else Const(None)
    with lw.b.unguarded():  # (appending cannot raise)
        lw.b.call(list.append, [lw.gen_items, value])
        lw.b.call(generator_ops.note_yield, [lw.gen_state, lw.gen_items])  # (an item changed later: refused)


_ITEM = "item"  # (the loop's item, in a scope of its own; printed under this name)
_ITEM_HIDDEN = "__mc_yielded_item"  # (when the iterable itself reads a name `item`)


def _lower_yield_from(lw: "Lowering", iterable: cst.BaseExpression) -> None:
    """`yield from it` as the statement it stands for here, `for v in it: yield v` (a loop over a generator
    checks, when it ends, what loops over generators check, and passes on an exception raised after the
    items)."""
    from .source import walk

    names: set = set()

    class Names(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            names.add(node.value)

    walk(iterable, Names())
    name = _ITEM if _ITEM not in names else _ITEM_HIDDEN
    lw.scopes.append({name: lw.temp_var("item")})

    def body() -> None:
        with lw.b.unguarded():  # (appending cannot raise)
            lw.b.call(list.append, [lw.gen_items, lw.b.read(lw.scopes[-1][name])])

    from .try_stmt import on_failure

    since = lw.fail_points
    lw.for_loop(cst.Name(name), iterable, body)
    lw.scopes.pop()
    on_failure(lw, since)  # (an exception the loop raised, a delegate's after its items: skip the rest, as a `for` statement does)


def returned(lw: "Lowering", value: Value, error: Optional[Value] = None) -> Value:
    """What a `return` returns: in a generator, the iterator over its items (and the exception the body
    raised after them, if it did)."""
    if not lw.generator:
        return value
    with lw.b.unguarded():
        extra = [error] if error is not None else []
        return lw.b.call(generator_ops.finish, [lw.gen_items, lw.gen_state, value, *extra], hint="generator")


def refuse_return_value(lw: "Lowering", s: cst.Return) -> None:
    if lw.generator and s.value is not None and not (isinstance(s.value, cst.Name) and s.value.value == "None"):
        lw.unsupported(s, "a generator returning a value (StopIteration.value, what `yield from` gives)")


_NOT_GENERATORS = frozenset({"range", "reversed", "sorted", "list", "tuple", "dict", "set", "map", "filter", "iter",
                             "zip", "enumerate", "items", "keys", "values", "split", "nditer", "ndenumerate", "ndindex"})


def sequenced(q: Value) -> Value:
    """The iterable `ops.sequence(it)` (guarded inside a `try`: `guarded_call(ops.sequence, (it,), {})`) reads."""
    from .try_ops import guarded_call

    if isinstance(q, Stmt) and q.callee() is guarded_call:
        return q.args[1].args[0]  # type: ignore[attr-defined]
    return q.args[0]  # type: ignore[attr-defined]


def may_generate(node: cst.BaseExpression) -> bool:
    """Can iterating this expression consume a generator called right there (`for v in gen(x)`)?"""
    if not isinstance(node, cst.Call):
        return False
    f = node.func
    name = f.value if isinstance(f, cst.Name) else f.attr.value if isinstance(f, cst.Attribute) else None
    return name not in _NOT_GENERATORS


def endless(s: cst.While) -> bool:
    """`while True:` (or a nonzero constant) whose body has no `break` of its own, `return` or `raise`."""
    test = s.test
    always = (isinstance(test, cst.Name) and test.value == "True") or (isinstance(test, cst.Integer) and test.evaluated_value != 0)
    return always and not _leaves(s.body)


def _leaves(body: cst.CSTNode) -> bool:
    found = False

    class V(cst.CSTVisitor):
        def __init__(self) -> None:
            self.loops = 0

        def on_visit(self, node: cst.CSTNode) -> bool:
            nonlocal found
            if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return False
            if isinstance(node, (cst.Return, cst.Raise)) or (isinstance(node, cst.Break) and not self.loops):
                found = True
            if isinstance(node, (cst.For, cst.While)):
                self.loops += 1
            return True

        def on_leave(self, node: cst.CSTNode) -> None:
            if isinstance(node, (cst.For, cst.While)):
                self.loops -= 1

    body.visit(V())
    return found
