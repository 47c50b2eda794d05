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
NumPy's error state, is then left as `__enter__` set it; the derivative call has failed anyway).  `contextlib.suppress`, which exists to swallow such
exceptions, is refused by name.  In reverse mode the pullback runs after the `with` has been
left: the manager is not in force while adjoints are computed (`np.errstate` warnings in the
pullback are NumPy's defaults).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import libcst as cst

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
    _enter(lw, list(s.items), s.body)


def _enter(lw: "Lowering", items: list, body: cst.BaseSuite) -> None:
    if not items:
        lw.body(body)
        return
    b = lw.b
    item: cst.WithItem = items[0]
    mgr = lw.expr(item.item)
    enter = b.call(stmt_ops.enter_method, [mgr], hint="enter")
    exit_ = b.call(stmt_ops.exit_method, [mgr], hint="exit")
    value = b.call(enter, [mgr])
    if item.asname is not None:
        lw.assign(item.asname.name, value)
    lw.withs.append(WithFrame(mgr, exit_, len(lw.loops)))
    since = lw.fail_points
    _enter(lw, items[1:], body)
    lw.withs.pop()
    from .try_stmt import unless_failed

    # (an exception raised inside, on its way to a `try` around, has already left the manager)
    unless_failed(lw, since, lambda: _exit(lw, WithFrame(mgr, exit_, 0)))


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
