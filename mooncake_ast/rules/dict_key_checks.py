"""Run-time refusals of dict keys that depend on the inputs, for the routes a key takes into a dict besides a
display and a plain `d[k] = v` (builtin_keys.checked_key / check_dict_keys cover those).

A dict keeps no derivative of its keys: equal keys merge, and reading the keys back (`sum(d)`, `d.items()`) gives
numbers whose derivative was dropped.  So a key that can carry one is refused wherever it enters: `dict(zip(K, V))`,
`dict(pairs)`, `OrderedDict(...)`, `defaultdict(f, pairs)`, `d.update(...)`, `d.setdefault(k, v)`, and `d[k] = v`
on a container whose type is known only when the code runs.

Reverse mode knows which values depend on the inputs when it generates the code (reverse/dict_keys.py calls these
only for those); forward mode knows it from the tangents, here as the key's tangent being nonzero."""
from __future__ import annotations

from typing import Any

from ..errors import UnsupportedDerivativeError
from ..tangents import NoTangent
from .builtin_keys import KEY_REFUSAL, _carries_derivative, _zero_tangent

ITERATOR_REFUSAL = ("a dict is filled from an iterator whose items depend on the inputs, and a dict keeps no "
                    "derivative of its keys: make a list of the (key, value) pairs first, with keys that do not "
                    "depend on the inputs")


def check_key_of(container: Any, key: Any) -> None:
    """`container[key] = v` or `container.setdefault(key, v)` with a key that depends on the inputs (reverse mode):
    refused when the container is a dict (a user class's `__setitem__` is differentiated like any method)."""
    if isinstance(container, dict) and _carries_derivative(key):
        raise UnsupportedDerivativeError(KEY_REFUSAL)


def check_key_items(container: Any, keys: Any) -> None:
    """`dict(zip(keys, values))` with keys that depend on the inputs (reverse mode).  An iterator is spent by the
    time the pullback looks at it, so it is refused outright."""
    if not isinstance(container, dict):
        return
    if isinstance(keys, (list, tuple)) or hasattr(keys, "dtype"):
        if any(_carries_derivative(k) for k in keys):
            raise UnsupportedDerivativeError(KEY_REFUSAL)
    elif not isinstance(keys, (dict, range, str)) and not _is_dict_view(keys):
        raise UnsupportedDerivativeError(ITERATOR_REFUSAL)


def check_pair_keys(container: Any, pairs: Any) -> None:
    """`dict(pairs)`, `d.update(pairs)` with pairs that depend on the inputs (reverse mode): each pair's key.  A dict
    or a dict's view brings keys that were checked when they entered it."""
    if not isinstance(container, dict) or pairs is None or isinstance(pairs, dict) or _is_dict_view(pairs):
        return
    if isinstance(pairs, (list, tuple)):
        if any(_carries_derivative(p[0]) for p in pairs):
            raise UnsupportedDerivativeError(KEY_REFUSAL)
        return
    if hasattr(pairs, "keys"):  # (a Mapping that is no dict: its keys are what it gives)
        if any(_carries_derivative(k) for k in pairs.keys()):
            raise UnsupportedDerivativeError(KEY_REFUSAL)
        return
    raise UnsupportedDerivativeError(ITERATOR_REFUSAL)


def check_key_tangent(dk: Any) -> None:
    """Forward mode: a key whose tangent is not zero would lose it."""
    if dk is not None and not _zero_tangent(dk):
        raise UnsupportedDerivativeError(KEY_REFUSAL)


def check_pair_tangents(dpairs: Any) -> None:
    """Forward mode of `d.update(pairs)`: each pair's key tangent must be zero."""
    if dpairs is NoTangent or dpairs is None or isinstance(dpairs, dict):
        return
    for dp in dpairs:
        if isinstance(dp, (tuple, list)) and dp:
            check_key_tangent(dp[0])


def _is_dict_view(v: Any) -> bool:
    return type(v).__name__ in ("dict_keys", "dict_items", "dict_values", "odict_keys", "odict_items", "odict_values")
