"""Calls of the user's functions whose arguments are all numbers: their pullback gives plain numbers.

`return _even(x, n) + _odd(x, n)` calls functions that are only known when the code runs, so the call
is dispatched (`rcall`), and its pullback's answer is the generic `(f_bar, args_bar, kwargs_bar)`:
adjoints that may be the symbolic zero (a callee run plainly because every argument was an int, a
parameter it never reads) or storage tuples.  Read in the caller's pullback, each number's adjoint was

    x_bar = _mc.number_adjoint(_mc.item_of(t5[1], 0))

When ir/types.py knows every argument is a number, the dispatcher is asked for `rcall_numbers` instead,
whose pullback does that conversion once, in one place, and hands back the callee's own adjoint (a
closure's cells, a method's object: unread where the callee has none) and a plain number per argument,
so the caller's pullback reads as a person writes it:

    _, x_bar, n_bar = t3(out_bar)

The conversion is the same (`number_adjoint(item_of(...))`) so the adjoints are those of before.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import ops
from ..ir.nodes import Call, Const, Global
from .adjoint_values import number_adjoint
from .part_adjoints import item_of

if TYPE_CHECKING:
    from .transform import ReverseTransform


def takes(rt: "ReverseTransform", s: Call) -> bool:
    """Is the dispatched call s one whose pullback can give plain numbers: a call (not `f(*args, **kw)`) with
    positional arguments only, every one a number (by its type or as a literal)?"""
    if s.callee() is ops.apply or s.kwargs or not s.args:
        return False
    if isinstance(s.fn, Global) and s.fn.name == rt.ir.name:
        return False  # (the function calling itself: rcall_numbers would be a third frame per level of recursion)
    return all(rt.is_num(a) or isinstance(a, Const) and type(a.value) in (int, float, bool) for a in s.args)


def _dispatcher() -> Any:
    """reverse/runtime.rcall (which imports the transforms, so this module cannot import it first)."""
    global _RCALL
    if _RCALL is None:
        from .runtime import rcall
        _RCALL = rcall
    return _RCALL


_RCALL: Any = None


def rcall_numbers(f: Any, args: tuple, kwargs: dict, wrt: Any = None, quiet: tuple = ()) -> tuple:
    """`(f(*args), pullback)` with `pullback(g)` the tuple `(f_bar, *args_bar)`: the callee's adjoint as the
    dispatcher gives it (a closure's cells, a method's object: what `rcall`'s pullback gives first), and the
    arguments' adjoints as numbers (0.0 for none).

    For a call whose arguments are all numbers (the transform checks: number_calls.takes); keyword
    arguments are not taken."""
    y, pb = _dispatcher()(f, args, kwargs, wrt, quiet)
    n = len(args)

    def numbers_pullback(g: Any) -> tuple:
        out = pb(g)
        args_bar = out[1]
        return (out[0], *[number_adjoint(item_of(args_bar, k)) for k in range(n)])

    def again() -> bool:  # (called again if pb may be: runtime.reusable, imported late as rcall is)
        from .runtime import reusable

        return reusable(pb)

    numbers_pullback.reusable = again  # type: ignore[attr-defined]
    return y, numbers_pullback
