"""Lowering of `try` / `except` / `else` / `finally`: exceptions become branches of the IR.

The IR has no exception edges, so a `try` makes them explicit (try_ops.py has the run-time side):
inside the protected part, every call that can raise is lowered to `r = guarded_call(f, args,
kwargs)` followed by `if raised(r): goto <where the exception goes>`, and a `raise` (or a failed
`assert`) jumps there too.  Where it goes, innermost first:

* the handlers' dispatch: `if exception_matches(exc, T1): H1 elif ...: H2 else: <propagate>`,
  each `except T as e` binding e (unbound again after the handler, as Python does);
* the `finally` body run on the exception's path, then <propagate>;
* <propagate>: the enclosing `try`'s target, or, outside every `try`, `raise exc`.

Managers of `with` statements left on the way see the exception (`stmt_ops.exit_raising`).
`finally` is lowered once per way out: after the body (or `else`) completes, after each handler,
on the exception's path, and before each `return`, `break` and `continue` that leaves it (as the
managers' exits are, with_stmt.py).  So each path of the IR is a path Python runs, and both
transforms differentiate exactly the statements that ran, the raising call excluded.

The value of `r` on the normal edge is the call's value; the derivative of `guarded_call` is f's
own (try_ops.py says when it is refused).  Calls that cannot raise (building tuples, reading
cells, the loop counter's arithmetic) are not guarded, nor are the handlers and `finally` bodies
unless an enclosing `try` protects them.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator, Optional

import libcst as cst

from .. import ops
from ..ir.builder import UNDEFINED
from ..ir.nodes import Block, Const, Global, Value
from . import stmt_ops, try_ops

if TYPE_CHECKING:  # pragma: no cover
    from .statements import Lowering

# Callees that cannot raise (or only on the library's own bugs): not guarded.  Also `ops.sequence`, what a
# `for` loop iterates: the loop's structure (and its tangent sequence) is built on that call; it raises
# only for what is not iterable, which then propagates out of the derivative (an error, never a wrong path).
SAFE = frozenset({ops.tuple_of, ops.list_of, ops.identity, ops.new_cell, ops.cell_set, ops.cell_get,
                  ops.nested_code, ops.make_function, try_ops.raised, try_ops.caught, try_ops.reraise,
                  try_ops.exception_instance, list.append, set.add,  # (a comprehension adding its item)
                  ops.sequence})
# Builtins of loop headers and tests, whose results carry no derivative, called by their global name (not
# rebound in the module): kept as plain calls, so the transforms still see them as such (a TypeError they
# raise propagates out of the derivative).
SAFE_BUILTINS = frozenset({"len", "range", "isinstance", "type", "id", "callable"})


class TryTarget:
    """The `try` protecting the code being lowered: where an exception raised there goes.  (Plain classes,
    not dataclasses: making a dataclass costs every first derivation ~0.1 ms.)"""

    __slots__ = ("var", "failed", "frames")

    def __init__(self, var: str, failed: str, frames: int) -> None:
        self.var = var  # the builder variable that carries the exception
        self.failed = failed  # the builder variable that says an exception is on its way (True) or not
        self.frames = frames  # len(lw.withs) when the region began: frames above it are left on the way


class FinallyFrame:
    """A `finally` body to run before a jump leaves its `try` (kept in lw.withs, with the managers)."""

    __slots__ = ("body", "loops", "frames", "targets")

    def __init__(self, body: Any, loops: int, frames: int, targets: int) -> None:
        self.body = body
        self.loops = loops  # how many loops enclosed the `try`
        self.frames = frames  # len(lw.withs) below this frame
        self.targets = targets  # len(lw.try_targets) below this `try`


def sync_guard(lw: "Lowering") -> None:
    """Guard calls exactly while some `try` protects the code being lowered."""
    lw.b.guard = (lambda fn, args, kwargs, hint: guard_call(lw, fn, args, kwargs, hint)) if lw.try_targets else None


@contextmanager
def stacks(lw: "Lowering", frames: int, targets: int) -> Iterator[None]:
    """Lower with the frame and target stacks cut back to these depths (a `finally` body run inline)."""
    saved = lw.withs, lw.try_targets
    lw.withs, lw.try_targets = saved[0][:frames], saved[1][:targets]
    sync_guard(lw)
    try:
        yield
    finally:
        lw.withs, lw.try_targets = saved
        sync_guard(lw)


def guard_call(lw: "Lowering", fn: Any, args: list, kwargs: Optional[dict], hint: Optional[str]) -> Value:
    b = lw.b
    if isinstance(fn, Global) and fn.name in SAFE_BUILTINS and fn.name not in lw.pyfn.__globals__ \
            and not getattr(lw, "catching_type_errors", 0):
        with b.unguarded():
            return b.call(fn, args, kwargs, hint=hint)
    with b.unguarded():
        callee = fn if isinstance(fn, Value) else Const(fn)
        packed = b.call(ops.tuple_of, list(args))
        flat = [x for k, v in (kwargs or {}).items() for x in (Const(k), v)]
        packed_kw = b.call(ops.dict_of, flat)
        r = b.call(try_ops.guarded_call, [callee, packed, packed_kw], hint=hint)
        failed = b.call(try_ops.raised, [r])
        bad, ok = b.new_block(), b.new_block()
        b.branch(failed, bad, ok)
        b.seal(bad)
        b.position_at(bad)
        propagate(lw, b.call(try_ops.caught, [r], hint="exc"))
        b.seal(ok)
        b.position_at(ok)
    return r


def propagate(lw: "Lowering", exc: Value) -> None:
    """The exception `exc` leaves the current point: out of the managers on the way, then to the
    innermost `try` (a failure point: see `Scope`), or out of the function."""
    b = lw.b
    target = lw.try_targets[-1] if lw.try_targets else None
    with b.unguarded():
        for frame in reversed(lw.withs[target.frames if target else 0:]):
            mgr = getattr(frame, "mgr", None)
            if mgr is not None:
                exc = b.call(stmt_ops.exit_raising, [mgr, exc])
        if target is None:
            b.raise_(b.call(try_ops.reraise, [exc]))
            return
    b.write(target.var, exc)
    b.write(target.failed, Const(True))
    join = b.new_block()
    lw.pending[-1].append(join)
    lw.fail_points += 1
    b.goto(join)


def raise_value(lw: "Lowering", exc: Value) -> None:
    """`raise exc` inside a protected region (exc made an instance, as Python does)."""
    with lw.b.unguarded():
        exc = lw.b.call(try_ops.exception_instance, [exc])
    propagate(lw, exc)


# ---------------------------------------------------------------- keeping the CFG structured
#
# A failure point does not jump to the handlers directly (several jumps into one block from
# different depths is not a structured CFG, which the emitter and reverse mode need).  It jumps to
# a join of its own, closed at the end of the innermost *scope* (a suite, a loop body, an arm of an
# `and`/`or`/ternary), so the rest of the scope is the else-arm of `if failed:`:
#
#     r = guarded_call(f, ...)
#     if raised(r): exc = caught(r); failed = True      # -> the join, at the end of the scope
#     else: <the rest of the scope>
#
# After a scope that had failure points, the code around it tests `failed`: a statement list skips
# the rest of itself (a failure point of its own), a loop leaves (break), a `with` skips its normal
# exit, and the `try` itself, at the end of its body, goes to the handlers.

def open_scope(lw: "Lowering") -> int:
    lw.pending.append([])
    return lw.fail_points


def close_scope(lw: "Lowering") -> None:
    """Close the joins of the innermost scope, innermost first: the failure paths meet the normal one here."""
    b = lw.b
    for join in reversed(lw.pending.pop()):
        b.goto(join)
        b.seal(join)
        b.position_at(join)


def failed_here(lw: "Lowering", since: int) -> Optional[Value]:
    """`failed` of the innermost `try` here, if a failure point was lowered since `since` (else None)."""
    if lw.fail_points == since or lw.b.terminated or not lw.try_targets:
        return None
    f = lw.b.read(lw.try_targets[-1].failed)
    if isinstance(f, Const) and f.value is False:
        return None
    return f


def on_failure(lw: "Lowering", since: int, target: Optional[Block] = None) -> None:
    """After a scope: if an exception is on its way, go to `target` (a loop's exit), or skip the rest of the
    current scope (a failure point of its own); else go on here."""
    f = failed_here(lw, since)
    if f is None:
        return
    b = lw.b
    if target is None:
        target = b.new_block()
        lw.pending[-1].append(target)
        lw.fail_points += 1
    if isinstance(f, Const) and f.value is True:
        b.goto(target)
        return
    cont = b.new_block()
    b.branch(f, target, cont)
    b.seal(cont)
    b.position_at(cont)


def unless_failed(lw: "Lowering", since: int, lower: Any) -> None:
    """Lower `lower()` only on the path where no exception is on its way (a `with`'s normal exit)."""
    f = failed_here(lw, since)
    if f is None:
        if not lw.b.terminated:
            lower()
        return
    b = lw.b
    run, join = b.new_block(), b.new_block()
    if isinstance(f, Const) and f.value is True:
        b.goto(join)
    else:
        b.branch(f, join, run)
        b.seal(run)
        b.position_at(run)
        open_scope(lw)
        lower()
        close_scope(lw)
        b.goto(join)
    lw._resume_at(join)


def run_finally(lw: "Lowering", frame: FinallyFrame) -> None:
    """Lower the `finally` body here (a way out of its `try`), protected by what encloses the `try`."""
    with stacks(lw, frame.frames, frame.targets):
        lw.body(frame.body)


def catches_type_error(lw: "Lowering", handlers: list) -> bool:
    """Might one of these `except` clauses catch a TypeError (`except TypeError`, `except Exception`, a bare
    `except`, or a class it cannot tell)?  Then the builtins SAFE_BUILTINS leaves unguarded are guarded in
    the `try` body: `try: n = len(bins) except TypeError: n = 1` (NumPy's histogram2d) takes the handler."""
    import builtins

    for h in handlers:
        if h.type is None:
            return True
        kinds = [e.value for e in h.type.elements] if isinstance(h.type, cst.Tuple) else [h.type]
        for k in kinds:
            obj: Any = None
            if isinstance(k, cst.Name) and lw._var_key(k.value) is None and k.value not in lw.freevars:
                obj = lw.pyfn.__globals__.get(k.value, getattr(builtins, k.value, None))
            elif isinstance(k, cst.Attribute) and isinstance(k.value, cst.Name) and lw._var_key(k.value.value) is None:
                obj = getattr(lw.pyfn.__globals__.get(k.value.value), k.attr.value, None)
            if not (isinstance(obj, type) and issubclass(obj, BaseException)) or issubclass(TypeError, obj):
                return True
    return False


def new_target(lw: "Lowering") -> "TryTarget":
    """Where a protected region's failures go: its exception and failed-flag variables, bound on every path
    (reverse mode records values crossing joins)."""
    target = TryTarget(lw.temp_var("exc"), lw.temp_var("failed"), len(lw.withs))
    lw.b.write(target.failed, Const(False))
    lw.b.write(target.var, Const(None))
    return target


def protected_body(lw: "Lowering", body: Any) -> tuple:
    """Lower body as a protected region (a `try` body, a generator's body): (its target, the value that says
    whether it failed, or None if nothing in it can fail)."""
    target = new_target(lw)
    lw.try_targets.append(target)
    sync_guard(lw)
    since = lw.fail_points
    lw.body(body)
    f = failed_here(lw, since)
    lw.try_targets.pop()
    sync_guard(lw)
    return target, f


def lower_try(lw: "Lowering", s: cst.Try) -> None:
    b = lw.b
    loc = b.loc
    _bind_placeholders(lw, s)
    frame: Optional[FinallyFrame] = None
    fin: Optional[TryTarget] = None
    if s.finalbody is not None:
        frame = FinallyFrame(s.finalbody.body, len(lw.loops), len(lw.withs), len(lw.try_targets))
        lw.withs.append(frame)
        fin = new_target(lw)
        lw.try_targets.append(fin)
    handlers = list(s.handlers)
    if handlers:
        catching = catches_type_error(lw, handlers)
        lw.catching_type_errors = getattr(lw, "catching_type_errors", 0) + catching
        target, f = protected_body(lw, s.body)
        lw.catching_type_errors -= catching
        if f is None:
            _else(lw, s)
        else:
            run, orelse, join = b.new_block(), b.new_block(), b.new_block()
            if isinstance(f, Const) and f.value is True:
                b.goto(run)
            else:
                b.branch(f, run, orelse)
                b.seal(orelse)
                b.position_at(orelse)
                _else(lw, s)
                b.goto(join)
            b.seal(run)
            b.position_at(run)
            b.loc = loc
            exc = b.read(target.var)
            open_scope(lw)
            _handlers(lw, handlers, 0, exc)
            close_scope(lw)
            b.goto(join)
            lw._resume_at(join)
    else:
        sync_guard(lw)
        lw.body(s.body)
        _else(lw, s)
    if frame is None:
        return
    assert fin is not None
    lw.try_targets.pop()
    lw.withs.pop()
    sync_guard(lw)
    if b.terminated:
        return
    # Every way out of the body and handlers but jumps (which ran the body inline) arrives here.
    failed = b.read(fin.failed)
    exc = b.read(fin.var) if not (isinstance(failed, Const) and failed.value is False) else None
    b.loc = lw.loc_of(s.finalbody)
    lw.body(frame.body)
    if exc is not None and not b.terminated:
        # re-raise what was on its way (its own failure point, in the scope around the `try`)
        if isinstance(failed, Const) and failed.value is True:
            propagate(lw, exc)
        else:
            again, cont = b.new_block(), b.new_block()
            b.branch(failed, again, cont)
            b.seal(again)
            b.position_at(again)
            propagate(lw, exc)
            b.seal(cont)
            b.position_at(cont)
    lw.fail_points += 1  # (so the statement list around tests `failed` of its own `try`)


def _else(lw: "Lowering", s: cst.Try) -> None:
    if s.orelse is not None and not lw.b.terminated:
        lw.body(s.orelse.body)


def _handlers(lw: "Lowering", handlers: list, i: int, exc: Value) -> None:
    """The `except` clauses from the i-th, tested in order (each arm its own scope, so the failure
    paths inside stay nested); none matching: the exception goes on."""
    b = lw.b
    if i == len(handlers):
        open_scope(lw)
        propagate(lw, exc)  # no handler matched
        close_scope(lw)
        return
    h = handlers[i]
    b.loc = lw.loc_of(h)
    if h.type is None:
        if i != len(handlers) - 1:
            lw.unsupported(h, "a bare `except:` that is not the last handler")
        _handler_body(lw, h, exc)
        return
    types_ = lw.expr(h.type)
    with b.unguarded():
        m = b.call(try_ops.exception_matches, [exc, types_])
    run, nxt, join = b.new_block(), b.new_block(), b.new_block()
    b.branch(m, run, nxt)
    b.seal(run)
    b.position_at(run)
    _handler_body(lw, h, exc)
    b.goto(join)
    b.seal(nxt)
    b.position_at(nxt)
    open_scope(lw)
    _handlers(lw, handlers, i + 1, exc)
    close_scope(lw)
    b.goto(join)
    lw._resume_at(join)


def _handler_body(lw: "Lowering", h: cst.ExceptHandler, exc: Value) -> None:
    b = lw.b
    open_scope(lw)
    name = None
    if h.name is not None:
        if not isinstance(h.name.name, cst.Name):
            lw.unsupported(h.name, "`except ... as` a target that is not a name")
        name = h.name.name.value
        lw.assign_name(name, exc)
    lw.handling.append(exc)
    lw.body(h.body)
    lw.handling.pop()
    if name is not None and not b.terminated:
        _unbind(lw, name)
    close_scope(lw)


def _unbind(lw: "Lowering", name: str) -> None:
    """Python deletes the `as` name when the handler ends (a plain local only; a cell keeps its value).
    It is bound to None instead (see _bind_placeholders): only a read Python would refuse sees it."""
    key = lw._var_key(name)
    if key == name and name not in lw.cells and name in lw.locals:
        lw.b.write(key, Const(None))


def _bind_placeholders(lw: "Lowering", s: cst.Try) -> None:
    """Bind None to the plain locals the statement assigns that are unbound where it starts.

    An exception skips the rest of the body, so such a variable reaches the handlers, and the joins
    after them, unbound on some paths and bound on others, and those paths meet in several joins.
    Reverse mode records the values that cross a join, and a variable unbound there cannot be read.
    None stands for "unbound": only a read that raises UnboundLocalError in Python sees it (the
    derivative of such a run is not asked for: the plain call raises)."""
    from .scopes import _LocalNames

    v = _LocalNames()
    v.depth = 1
    s.visit(v)
    for name in sorted(v.names):
        if name in lw.locals and name not in lw.cells and lw._var_key(name) == name and lw.b.read(name) is UNDEFINED:
            lw.b.write(name, Const(None))
