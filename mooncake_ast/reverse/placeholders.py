"""Placeholders reverse mode puts in the pullback while it is built, replaced (or removed) before emission.

`anchor` marks where a block's records are read; `_primal_ref` stands for a primal value the pullback reads (the
tape, or a stack inside loops, once record.py knows which); `_stack_ref` for a per-block stack.  Calling one is a
bug: each raises.
"""
from __future__ import annotations

from typing import Any


def anchor(block: Any) -> None:  # marker, removed before emission
    raise AssertionError("unresolved record anchor")


def _primal_ref(v: Any) -> Any:  # placeholder, replaced before emission
    raise AssertionError("unresolved primal reference")


def _stack_ref(i: int) -> Any:  # placeholder, replaced before emission
    raise AssertionError("unresolved stack reference")
