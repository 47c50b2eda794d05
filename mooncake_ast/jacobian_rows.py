"""A reverse-mode Jacobian's rows from one forward pass: the generated pullback called once per output element on
one tape (reverse/generate.reusable_tape keeps the tape whole).

This is jacrev's short path for the common call -- a plain function of numbers and float arrays (fast_kinds says
which) whose generated pullback may be called again (it writes nothing its caller can reach and hands on no other
call's pullback).  For such a call the checks on the arguments cannot fail (nothing foreign, nothing complex, no
memory shared), nothing needs putting back after a row, and each row is the cotangent's conversion (as mc.vjp's
pullback converts it), one call of the generated pullback in fresh adjoint storage, and the conversion of the
adjoints (api_fast.user_adjoints).  Anything else gives None before f runs, and jacrev takes mc.vjp's path (one
forward pass too where the derived pullback is reusable, else one per row: api._vjp)."""
from __future__ import annotations

import contextlib
import types
from typing import Any, Optional

import numpy as np

from . import reused_tapes
from .reverse import shadows
from .reverse.derived_rules import _zero_like
from .reverse.fastpath import fast_kinds, fast_rule
from .tangents import NoTangent

def reusable_pullback(fn: Any, args: tuple, nums: tuple, api: str = "jacrev") -> Optional[tuple]:
    """`(y, row)`: f's value from one forward pass, and `row(y_bar)`, the adjoints (the user's form) of the
    arguments at `nums`, callable once per output element on the one tape; None where the short path does not
    apply (before anything ran)."""
    from .api import _Converter, _located, _refusals_located
    from .errors import MooncakeError
    from .api_fast import _plain, _quick_adjoints, user_adjoints
    from .foreign import refuse_foreign

    if type(fn) is not types.FunctionType or fast_kinds(args) is None or len(args) != fn.__code__.co_argcount:
        return None
    with _refusals_located():
        rule = fast_rule(fn, args, frozenset(nums))
        if rule is None:
            return None
        gen = rule.gen
        if getattr(gen, "stack_slots", None) is None or gen.pullback_places:
            # (its pullback consumes the tape, or holds other calls' pullbacks, asked after the forward pass: mc.vjp's
            # pullback runs the forward pass again per row where it must)
            return None
        plain = _plain(gen)  # (no storage read or written: no Context, as grad's short path runs it)
        with (contextlib.nullcontext() if plain else shadows.Context()):
            y, tape = gen.forward(fn, *args) if gen.takes_self else gen.forward(*args)
    refuse_foreign(api, getattr(fn, "__qualname__", fn.__name__), [("the result", y)])
    saved = reused_tapes.snapshot((tape, args)) if reused_tapes.CHECK else None  # (the rows share it: reused_tapes.py)
    convert = _Converter("cotangent", api, symbolic_top=False)
    from .reverse.generate import reusable_tape

    y_type = type(y)
    y_array = y_type is np.ndarray and y.dtype.kind == "f"

    def row(y_bar: Any) -> tuple:
        if saved is None:
            return one_row(y_bar)
        try:
            return one_row(y_bar)
        finally:
            reused_tapes.assert_unchanged(saved, f"{fn.__qualname__} (jacrev)")

    def one_row(y_bar: Any) -> tuple:
        if y_array and type(y_bar) is np.ndarray and y_bar.shape == y.shape and y_bar.dtype == y.dtype:
            seed = y_bar  # (jacrev's own basis: already what the converter gives)
        elif y_type is float and type(y_bar) is float:
            seed = y_bar
        else:
            seed = convert(y_bar, y, "the result", top=True)
            if seed is NoTangent or seed is None:
                seed = _zero_like(y)
        try:
            if plain:  # (no storage read or written: as grad's short path, a Context only for unusual adjoints)
                bars = gen.pullback(seed, reusable_tape(gen, tape))
                quick = _quick_adjoints(args, bars, nums)
                if quick is not None:
                    return quick
                with shadows.Context() as ctx:
                    return user_adjoints(ctx, args, bars, nums)
            with shadows.Context() as ctx:  # fresh adjoint storage per row
                bars = gen.pullback(seed, reusable_tape(gen, tape))
                return user_adjoints(ctx, args, bars, nums)
        except NotImplementedError as e:  # (as api._refusals_located, without a context manager per row)
            if isinstance(e, MooncakeError):
                raise
            raise _located(e) from e

    return y, row

