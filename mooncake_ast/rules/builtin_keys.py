"""Dict keys and set items that would lose a derivative: refused, never dropped silently.

A dict keeps no derivative of its keys (equal keys merge) and a set none of its items (equal items
merge, the order is arbitrary), so a key or item whose tangent is not zero, or that can carry an
adjoint, is refused in both modes (reverse/transform.py calls the `check_*` functions for dict
writes and sets).  The zero tests here (`_no_tangent`, `_zero_tangent`) are shared by the other
builtin tables (rules/builtin_*.py).
"""
from __future__ import annotations

import builtins

import numpy as np

from ..errors import UnsupportedDerivativeError
from .. import ops
from ..tangents import MutableTangent, NoTangent, Tangent, is_zero_derivative
from .registry import defjvp


defjvp(set.add, lambda t, y, s, x: t.call(set_tangent, t.d(x)) if t.d(x) is not None else None, mutates=(0,))
defjvp(ops.set_of, lambda t, y, *xs: t.call(set_tangent, *[t.d(x) for x in xs if t.d(x) is not None])
       if any(t.d(x) is not None for x in xs) else None)
defjvp(builtins.set, lambda t, y, xs=(): t.call(set_items_tangent, xs, t.d(xs)) if t.d(xs) is not None else None)
defjvp(builtins.frozenset, lambda t, y, xs=(): t.call(set_items_tangent, xs, t.d(xs)) if t.d(xs) is not None else None)


SET_REFUSAL = ("a set (or frozenset) holds numbers that carry derivatives, and a set keeps no derivative of its "
               "items (equal items merge, the order is arbitrary); use a list or a tuple (for the distinct values in "
               "order, as `sorted(set(xs))` gives them, `np.unique(np.asarray(xs))`, which is differentiated), and "
               "sets only of values that do not depend on the inputs")


KEY_REFUSAL = ("a dict's key depends on the inputs, and a dict keeps no derivative of its keys (equal keys merge): "
               "key the dict by something that does not depend on the inputs, or keep the numbers in a list")


def checked_key(k, dk):
    """A dict display's key in forward mode: a key whose tangent is not zero would lose it silently; refused."""
    if not _zero_tangent(dk):
        raise UnsupportedDerivativeError(KEY_REFUSAL)
    return k


def _zero_tangent(dk) -> bool:
    """A key's or an index's tangent that is zero: none, 0.0, zeros, or a tuple of those (`x[()]`, `x[i, j]`)."""
    if isinstance(dk, (tuple, list)):
        return all(_zero_tangent(d) for d in dk)
    if isinstance(dk, (MutableTangent, Tangent)):  # (an object key, `Color.RED` of an Enum: zero fields lose nothing)
        return is_zero_derivative(dk)
    return _no_tangent(dk) or isinstance(dk, slice)


def check_dict_keys(*keys) -> None:
    """Reverse mode of a dict display whose keys depend on the inputs: refused if one can carry a derivative."""
    if any(_carries_derivative(k) for k in keys):
        raise UnsupportedDerivativeError(KEY_REFUSAL)


def set_tangent(*dxs):
    """Sets keep no tangents: refuse when a nonzero one would be dropped (a zero one is dropped rightly)."""
    for d in dxs:
        if not _no_tangent(d):
            raise UnsupportedDerivativeError(SET_REFUSAL)
    return NoTangent


def _carries_derivative(v) -> bool:
    """Could v (an item of a set) carry a derivative: a real or complex number or array, or a tuple holding one?"""
    if isinstance(v, (bool, int, str, bytes, type(None), np.integer, np.bool_)):
        return False
    if isinstance(v, tuple):
        return any(_carries_derivative(i) for i in v)
    if isinstance(v, np.ndarray):
        return v.dtype.kind in "fc"
    return isinstance(v, (float, complex, np.floating, np.complexfloating))


def check_set_items(items) -> None:
    """Reverse mode of a set that gets an adjoint: refuse if it holds anything that can carry a derivative (its
    adjoint would be dropped); sets of ints, strings and tuples of them are fine."""
    if any(_carries_derivative(v) for v in items):
        raise UnsupportedDerivativeError(SET_REFUSAL)


def check_set_item(v) -> None:
    """`s.add(v)` in reverse mode, for a set that depends on the inputs (see check_set_items)."""
    if _carries_derivative(v):
        raise UnsupportedDerivativeError(SET_REFUSAL)


def set_items_tangent(xs, dxs):
    """`set(xs)`: the items' tangents (none for a dict's keys, a string's characters, a range's ints) must be zero."""
    if dxs is NoTangent or isinstance(xs, (dict, set, frozenset, str, range)):
        return NoTangent
    return set_tangent(*(dxs if isinstance(dxs, (list, tuple)) else [dxs]))


def _no_tangent(t):
    return t is NoTangent or (isinstance(t, np.ndarray) and not t.any()) or (isinstance(t, float) and t == 0.0)


def _pair_value(dpair):
    """A (key, value) pair's value tangent; the key's must be zero (a dict keeps no derivative of its keys)."""
    if dpair is NoTangent:
        return NoTangent
    if not _zero_tangent(dpair[0]):
        raise UnsupportedDerivativeError(KEY_REFUSAL)
    return dpair[1]
