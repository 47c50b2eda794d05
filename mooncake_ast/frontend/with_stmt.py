"""Lowering of `with` statements.

`with m as t: B` becomes, as Python runs it,

    enter = stmt_ops.enter_method(m)   # m's own __enter__, or stmt_ops.opaque_enter for a library's
    exit = stmt_ops.exit_method(m)
    t = enter(m)
    B
    exit(m, None, None, None)          # also before every return, break and continue that leaves B

so both modes differentiate the body, a user's own manager is differentiated like any method
call, and a library's (`np.errstate`, `open`, `contextlib` managers) runs opaquely (stmt_ops.py
says what it checks).  `with a, b:` is `with a: with b:`.

When the body raises.  A `raise` statement in the body calls `__exit__(type, exc, tb)` first,
innermost manager first, then raises; a manager that would swallow the exception is refused
(UnsupportedDerivativeError).  Inside a `try` (try_stmt.py) an exception raised by a call in the
body does the same on its way to the handlers.  Outside any `try`, an exception raised by a
*call* in the body propagates unchanged, but `__exit__` is not run (a manager's cleanup, e.g.
NumPy's error state, is then left as `__enter__` set it; the derivative call has failed anyway).

Two of `contextlib`'s managers are lowered as what they stand for, when the name called is (when the
function is lowered, and checked again when it runs) `contextlib.suppress` or `contextlib.nullcontext`:
`with suppress(E1, E2): B` is `try: B except (E1, E2): pass` (try_stmt.py: the derivative follows
the path that ran, up to the call that raised), and `with nullcontext(v) as t: B` is `t = v; B` (so
t carries v's derivative).  Called any other way (`m = suppress(E); with m:`), `suppress` is refused
by stmt_ops.enter_method, as the manager cannot swallow the exception of a call in generated code.

In reverse mode the pullback runs after the `with` has been
left: the manager is not in force while adjoints are computed (`np.errstate` warnings in the
pullback are NumPy's defaults).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import libcst as cst

from .. import ops
from ..ir.nodes import Const, Value
from . import stmt_ops

if TYPE_CHECKING:  # pragma: no cover
    from .statements import Lowering


class WithFrame:
    """A `with` being lowered (a plain class: a dataclass costs its creation on import)."""

    __slots__ = ("mgr", "exit", "loops")

    def __init__(self, mgr: Value, exit: Value, loops: int) -> None:
        self.mgr, self.exit = mgr, exit
        self.loops = loops  # how many loops enclosed the `with` (break/continue leave the frames inside the innermost)


def lower_with(lw: "Lowering", s: cst.With) -> None:
    _enter(lw, list(s.items), s.body, s)


def _enter(lw: "Lowering", items: list, body: cst.BaseSuite, s: cst.With) -> None:
    if not items:
        lw.body(body)
        return
    b = lw.b
    item: cst.WithItem = items[0]
    kind = _contextlib_call(lw, item.item)
    if kind == "suppress":
        _suppress(lw, item, items[1:], body, s)
        return
    if kind == "nullcontext":
        _nullcontext(lw, item, items[1:], body, s)
        return
    mgr = lw.expr(item.item)
    enter = b.call(stmt_ops.enter_method, [mgr] if item.asname is not None else [mgr, Const(False)], hint="enter")
    exit_ = b.call(stmt_ops.exit_method, [mgr], hint="exit")
    value = b.call(enter, [mgr])
    if item.asname is not None:
        lw.assign(item.asname.name, value)
    lw.withs.append(WithFrame(mgr, exit_, len(lw.loops)))
    since = lw.fail_points
    _enter(lw, items[1:], body, s)
    lw.withs.pop()
    from .try_stmt import unless_failed

    # (an exception raised inside, on its way to a `try` around, has already left the manager)
    unless_failed(lw, since, lambda: _exit(lw, WithFrame(mgr, exit_, 0)))


def _contextlib_call(lw: "Lowering", node: cst.BaseExpression) -> Optional[str]:
    """"suppress" or "nullcontext" when `node` calls contextlib's (by a module-global name the function does not
    rebind: `suppress(...)`, `contextlib.suppress(...)`), else None."""
    import contextlib

    if not isinstance(node, cst.Call) or any(a.star for a in node.args):
        return None
    f = node.func
    obj: object = None
    if isinstance(f, cst.Name) and lw._var_key(f.value) is None and f.value not in lw.freevars:
        obj = lw.pyfn.__globals__.get(f.value)
    elif isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) and lw._var_key(f.value.value) is None \
            and f.value.value not in lw.freevars and lw.pyfn.__globals__.get(f.value.value) is contextlib:
        obj = getattr(contextlib, f.attr.value, None)
    if obj is contextlib.suppress and all(a.keyword is None for a in node.args):
        return "suppress"
    if obj is contextlib.nullcontext and len(node.args) <= 1 and \
            all(a.keyword is None or a.keyword.value == "enter_result" for a in node.args):
        return "nullcontext"
    return None


def _checked_args(lw: "Lowering", node: cst.Call, what: object) -> list:
    """The arguments of the call, after a run-time check that its callee is still `what`."""
    fn = lw.expr(node.func)
    args = [lw.expr(a.value) for a in node.args]
    lw.b.call(stmt_ops.check_callee, [fn, Const(what)])
    return args


def _nullcontext(lw: "Lowering", item: cst.WithItem, rest: list, body: cst.BaseSuite, s: cst.With) -> None:
    """`with nullcontext(v) as t: B`: t = v; B (the manager does nothing else)."""
    import contextlib

    args = _checked_args(lw, item.item, contextlib.nullcontext)  # type: ignore[arg-type]
    if item.asname is not None:
        lw.assign(item.asname.name, args[0] if args else Const(None))
    _enter(lw, rest, body, s)


def _suppress(lw: "Lowering", item: cst.WithItem, rest: list, body: cst.BaseSuite, s: cst.With) -> None:
    """`with suppress(*kinds): B` as `try: B except kinds: pass`."""
    import contextlib

    from . import try_ops
    from .try_stmt import _bind_placeholders, close_scope, failed_here, new_target, open_scope, propagate, sync_guard

    b = lw.b
    kinds = b.call(ops.tuple_of, _checked_args(lw, item.item, contextlib.suppress))  # type: ignore[arg-type]
    if item.asname is not None:
        lw.assign(item.asname.name, Const(None))
    _bind_placeholders(lw, s)  # type: ignore[arg-type]
    target = new_target(lw)
    lw.try_targets.append(target)
    sync_guard(lw)
    since = lw.fail_points
    open_scope(lw)
    _enter(lw, rest, body, s)
    close_scope(lw)
    f = failed_here(lw, since)
    lw.try_targets.pop()
    sync_guard(lw)
    if f is None:
        return
    run, join = b.new_block(), b.new_block()
    if isinstance(f, Const) and f.value is True:
        b.goto(run)
    else:
        b.branch(f, run, join)
    b.seal(run)
    b.position_at(run)
    exc = b.read(target.var)
    open_scope(lw)
    with b.unguarded():
        matches = b.call(try_ops.exception_matches, [exc, kinds])
    swallowed, other, after = b.new_block(), b.new_block(), b.new_block()
    b.branch(matches, swallowed, other)
    b.seal(swallowed)
    b.position_at(swallowed)
    b.goto(after)
    b.seal(other)
    b.position_at(other)
    open_scope(lw)
    propagate(lw, exc)  # (not one of the kinds: it goes on)
    close_scope(lw)
    b.goto(after)
    lw._resume_at(after)
    close_scope(lw)
    b.goto(join)
    lw._resume_at(join)


def _exit(lw: "Lowering", frame: WithFrame) -> None:
    lw.b.call(frame.exit, [frame.mgr, Const(None), Const(None), Const(None)])


def leave_for_jump(lw: "Lowering", all_frames: bool) -> None:
    """Before `return` (all_frames) or `break`/`continue`: leave the managers the jump leaves, and run
    the `finally` bodies it leaves (try_stmt.py), innermost first; stop if one of those jumps itself."""
    from .try_stmt import FinallyFrame, run_finally

    for frame in reversed(list(lw.withs)):
        if lw.b.terminated:
            return
        if all_frames or frame.loops >= len(lw.loops):
            if isinstance(frame, FinallyFrame):
                run_finally(lw, frame)
            else:
                _exit(lw, frame)


def leave_for_raise(lw: "Lowering", exc: Optional[Value]) -> Optional[Value]:
    """Before `raise exc` in the body of managers: each sees the exception; return what to raise."""
    if exc is None:
        return None  # a bare `raise` (nothing caught to re-raise here): as written
    for frame in reversed(lw.withs):
        exc = lw.b.call(stmt_ops.exit_raising, [frame.mgr, exc])  # (no `finally` here: a `try` would have caught it)
    return exc
