"""The one run-time helper of typed lists (reverse/typed_lists.py), kept apart so generated modules import it
without the transform."""
from __future__ import annotations

from typing import Any

from ..tangents import NoTangent


def add_list_adjoint(xs_bar: list, g: Any) -> None:
    """xs_bar[k] += g[k]: a reader's adjoint for a whole list of floats (`sum(xs)`: one per item; a list, an
    array, or the symbolic zero) into the list's adjoint."""
    if g is NoTangent or g is None:
        return
    for k, gk in enumerate(g):
        if gk is not NoTangent and gk is not None:
            xs_bar[k] += float(gk)
