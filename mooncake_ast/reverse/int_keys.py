"""Dicts of floats keyed by ints (`{0: 1.0, 2: -0.5}`: polynomial coefficients by power, weights by index).

reverse/local_dicts.py gives a dict of floats that the function only reads the adjoint a person writes,
`coeffs_bar = dict.fromkeys(coeffs, 0.0)` and `coeffs_bar[p] += g`, and types its keys as ints when they are
(`x ** p` is then plain arithmetic).  A parameter is typed so by reverse/argument_kinds.kinds_of, which names
its keys in the kind (`any:dict:#0=num;#2=num`: `#` marks an int key, as a string key is an identifier) and
ir/types.decode reads them back.  Only floats as values, and only ints (not bools) as keys: other dicts keep
the generic path.
"""
from __future__ import annotations

from typing import Any


def float_dict_by_ints(d: Any) -> bool:
    """A small dict of Python floats keyed by Python ints."""
    return type(d) is dict and 0 < len(d) <= 16 and all(type(k) is int and type(v) is float for k, v in d.items())


def key_code(key: Any) -> str:
    """A key as the kind names it: an identifier as itself, an int as `#<int>`."""
    return f"#{key}" if type(key) is int else key


def int_keys(t: Any) -> bool:
    """Are all keys of the dict type t (ir/types.Dct) ints?"""
    return bool(t.items) and all(type(k) is int for k, _ in t.items)
