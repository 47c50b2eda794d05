"""The IR made plainer before either transform types it, where nothing a program could see changes.

Julia's compiler inlines callees, replaces aggregates by their fields and unrolls small loops before Mooncake sees
the code, so Mooncake differentiates plain arithmetic.  Python has no such compiler, so both transforms run these
passes first (forward mode all but the inlining), in this order: a `for` loop over a short display of tuples or objects is written out
(unroll.py), so its items are known values; small helpers, methods, value classes' operators, properties and
closures are put in line (inline.py); dicts read only by constant keys are their values (ir/fold_dicts.py);
objects made here and used only through their fields become one variable per field (scalar_objects.py).
A pass is skipped where a scan of the statements finds nothing it could rewrite (`has_for_loop`, `has_dict_display`:
each pass walks the whole function, and most functions have no such loop or dict).
"""
from __future__ import annotations

from .. import ops
from ..ir.fold_dicts import fold_dict_reads
from ..ir.nodes import Call, Function, Global
from . import inline, scalar_objects, unroll


def make_plainer(ir: Function, user_globals: dict, bindings: dict, numbers: frozenset, in_line: bool = True) -> None:
    """Run the passes on ir; the global names they read (a helper's, a class's) go to bindings, so that rebinding
    one makes the derivative stale.  numbers: the parameters the derivative is specialised to numbers for.
    in_line: put helpers in line too (forward mode does not yet: a helper's code in line can call what has a
    hand-written forward rule, which a derivative of the forward code, a Hessian, cannot differentiate again;
    called, the helper's own derivative is planned as a whole)."""
    if has_for_loop(ir):
        unroll.unroll_display_loops(ir)  # (`for W, b in [(W1, b1), (W2, b2)]`: written out, then typed)
    if in_line:
        inline.inline_calls(ir, user_globals, bindings, getattr(ir, "code", None), numbers)
    if has_dict_display(ir):  # (after inlining: a helper's `**coeffs` is one)
        fold_dict_reads(ir, user_globals)  # (`opts["lr"]` of a dict display only read by constant keys)
    scalar_objects.replace_objects(ir, user_globals, bindings)  # (objects only read: their fields)
    scalar_objects.replace_written_objects(ir, user_globals, bindings)


def has_for_loop(ir: Function) -> bool:
    """Has ir a `for` loop (unroll.py writes out nothing else)?"""
    return any(b.loop is not None and b.loop.kind == "for" for b in ir.blocks)


def has_dict_display(ir: Function) -> bool:
    """Does ir make a dict by a display or `dict(...)` (what fold_dicts.py folds the reads of)?"""
    return any(isinstance(s, Call) and (s.callee() is ops.dict_of or isinstance(s.fn, Global) and s.fn.name == "dict")
               for b in ir.blocks for s in b.stmts)
