"""The handle by which reverse rule templates see a primal operand (reverse/templates.py builds them)."""
from __future__ import annotations

from ..ir.nodes import Value


class PH:
    """A primal operand handed to a reverse template; recorded in the forward pass only if the template reads it."""

    __slots__ = ("v",)

    def __init__(self, v: Value) -> None:
        self.v = v
