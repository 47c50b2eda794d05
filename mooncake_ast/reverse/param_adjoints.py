"""The adjoints of list and dict parameters the function writes: taken from the caller and handed back.

A list or dict parameter of floats the function writes (reverse/typed_lists.py, reverse/local_dicts.py) has a plain
list or dict adjoint in the pullback.  The caller may keep the adjoint of the object as it is after the call in
identity-keyed storage (reverse/shadows.py), so the pullback starts from it (`claim_floats`, `claim_float_dict`:
the storage's slots are emptied), undoes the writes and appends on its own adjoint (`pop_float_slot` keeps the
caller's storage as long as the list), and hands the adjoint of the object as it was on entry back where the
caller keeps it (`give_back`: into the storage when there is one, else as the value).
"""
from __future__ import annotations

from typing import Any

from ..tangents import NoTangent
from .shadows import _has_shadow, add_into, current, remember, shadow

def claim_floats(xs: list) -> list:
    """The adjoint the caller keeps for its list of floats xs as it is after the call, as a list of the pullback's own,
    the storage's slots emptied (the pullback returns the adjoint of xs as it was before, which the caller adds
    back): for a list parameter the function writes floats into (reverse/typed_lists.py).  xs's state is
    remembered, as undoing the writes rolls it back (`remember`)."""
    remember(xs)
    if not _has_shadow(xs):
        return [0.0] * len(xs)
    sh = shadow(xs)
    out = [0.0] * len(xs)
    for k in range(min(len(xs), len(sh))):  # (storage made before items were appended is shorter: they had none)
        g = sh[k]
        if g is not NoTangent and g is not None:
            out[k] = g
            sh[k] = NoTangent
    return out

def pop_float_slot(xs: list) -> None:
    """Undo `xs.append(v)` of a float into a list parameter of floats (reverse/typed_lists.py): the item goes, and its
    slot of the caller's identity-keyed storage where the caller has storage for xs (so the storage stays as long
    as the list, for the generic undoing of the caller's own appends).  No storage is made for it."""
    xs.pop()
    found = current().shadows.get(id(xs))
    if found is not None and found[0] is xs and len(found[1]) > len(xs):
        found[1].pop()

def give_back(x: Any, x_bar: Any) -> Any:
    """The adjoint of a list or dict parameter as it was on entry (x_bar, of the pullback's own), handed back where
    the caller keeps it: into x's identity-keyed storage when the caller has storage for x -- which it reads rather
    than the returned value (a caller may drop the value: module-level state) -- and that storage returned, as the
    generic path returns it; x_bar itself otherwise (no storage is made for it).  For a list or dict parameter the
    function writes (claim_floats, claim_float_dict)."""
    if not _has_shadow(x):
        return x_bar
    sh = shadow(x)
    if isinstance(sh, dict):
        for k in [k for k in sh if k not in x]:  # (keys the function added, deleted again by its pullback)
            del sh[k]
    add_into(x, x_bar)
    return sh

def claim_float_dict(d: dict) -> dict:
    """The adjoint the caller keeps for its dict of floats d as it is after the call, as a dict of the pullback's own
    with d's keys, the storage's slots emptied: for a dict parameter the function writes floats into
    (reverse/local_dicts.py), whose pullback returns the adjoint of d as it was before.  d's state is remembered,
    as undoing the writes rolls it back (`remember`)."""
    remember(d)
    if not _has_shadow(d):
        return dict.fromkeys(d, 0.0)
    sh = shadow(d)
    out = {}
    for k in d:
        g = sh.get(k, NoTangent)
        out[k] = 0.0 if g is NoTangent or g is None else g
    for k in sh:
        sh[k] = NoTangent
    return out
