"""The run-time helpers of typed lists (reverse/typed_lists.py), kept apart so generated modules import them
without the transform."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..tangents import NoTangent
from .part_adjoints import item_of


def add_list_adjoint(xs_bar: list, g: Any) -> None:
    """xs_bar[k] += g[k]: a reader's adjoint for a whole list of floats (`sum(xs)`: one per item; a list, an
    array, or the symbolic zero) into the list's adjoint."""
    if g is NoTangent or g is None:
        return
    for k, gk in enumerate(g):
        if gk is not NoTangent and gk is not None:
            xs_bar[k] += float(gk)


def zero_layers(xs: list) -> list:
    """The adjoint of a list of tuples of float arrays and floats (`[(W1, b1), (W2, b2)]`): zeros of its layout."""
    return [tuple(np.zeros_like(v) if type(v) is np.ndarray else 0.0 for v in item) for item in xs]


def zero_arrays(xs: list) -> list:
    """The adjoint of a list of float arrays (`Ws = [W1, W2]`): a zero array like each, which the pullback adds
    each item's adjoint into (`Ws_bar[i] += W_bar`: arrays of our own, never a user's)."""
    return [np.zeros_like(v) for v in xs]


def zero_rows(rows: list) -> list:
    """The adjoint of a list of lists of floats (reverse/row_lists.py): a zero for each item, in lists of our own that
    the pullback adds into in place (`rows_bar[i][j] += g`)."""
    return [[0.0] * len(row) for row in rows]


def add_layer_adjoint(xs_bar: list, g: Any, i: int) -> None:
    """xs_bar[i] += g for one tuple of the list (g: its adjoint, a tuple whose parts may be the symbolic zero)."""
    if g is NoTangent or g is None:
        return
    parts = list(xs_bar[i])
    for k, gk in enumerate(g):
        if gk is NoTangent or gk is None:
            continue
        if type(parts[k]) is np.ndarray:
            parts[k] += gk  # (a zero array of our own, never a user's)
        else:
            parts[k] = parts[k] + float(gk)
    xs_bar[i] = tuple(parts)


def add_slice(xs_bar: list, index: slice, ys_bar: list) -> None:
    """xs_bar[index] += ys_bar slot by slot: the adjoint of `ys = xs[index]` (a copy of some of a list of floats'
    items, reverse/local_lists.py) into the list's."""
    for k, g in zip(range(*index.indices(len(xs_bar))), ys_bar):
        xs_bar[k] += g


def add_sorted(xs_bar: list, xs: list, ys: list, ys_bar: list) -> None:
    """xs_bar[i] += ys_bar[k] where ys[k] is xs[i]: the adjoint of `ys = sorted(xs, ...)` (a list of floats,
    reverse/local_lists.py) into the list's.  `sorted` moves the items themselves, so each is found by identity, and
    the sort's key is not called again; xs may have grown since (appends after the sort: its first len(ys) items
    are what was sorted).  An item that is in xs more than once (one float object) gives its slots in order, as a
    stable sort leaves equal items."""
    slots: dict = {}
    for i in range(len(ys) - 1, -1, -1):
        slots.setdefault(id(xs[i]), []).append(i)  # (each list in decreasing order: pop() gives the first)
    for v, g in zip(ys, ys_bar):
        found = slots.get(id(v))
        if not found:  # (the pullback restores xs before it gets here: a sorted item is always one of xs's)
            raise RuntimeError("add_sorted: an item of the sorted list is not in the list that was sorted")
        xs_bar[found.pop()] += g


def display_value_adjoint(g: Any, keys: tuple, k: int) -> Any:
    """The adjoint of the k-th value of a dict display `{k0: v0, k1: v1, ...}`: its key's slot of g, unless a later
    pair has an equal key (the dict keeps the last value for it: this one reached nothing)."""
    key = keys[k]
    if any(other is key or other == key for other in keys[k + 1:]):
        return NoTangent
    return item_of(g, key)


def add_to_every_slot(rt: Any, bar: Any, g: Any, keys: Any) -> None:
    """`for k in keys: bar[k] += g` in the pullback (the loop a person writes for `sum(xs)`'s adjoint: keys are
    `range(len(xs_bar))` for a list, the dict's adjoint itself for a dict; g is a number)."""
    from .. import ops

    def body() -> None:
        k = rt.b.block.stmts[-1]  # (the loop's item, made just before the body: ReverseTransform._repeat)
        st = rt.b.call(ops.add_to_item, [bar, g, k])
        st.keep = True  # type: ignore[attr-defined]

    rt._repeat(None, body, over=rt.b.call(ops.sequence, [keys]), item_hint="k")
