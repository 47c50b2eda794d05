"""The one run-time helper of objects whose field adjoints are local variables (reverse/object_fields.py): what a
read-only method's pullback gives for its `self`, as one adjoint per field.

A method derived for a `self` whose fields are all floats returns `self`'s adjoint as a value (a MutableTangent
of its fields, reverse/typed_dicts.py); one derived generically adds it into the object's identity-keyed storage
instead.  Either way, the caller wants the fields' adjoints as numbers, to add to its own variables, and the
storage emptied so that nothing is counted twice.
"""
from __future__ import annotations

from typing import Any

from ..tangents import MutableTangent, NoTangent, Tangent
from .adjoints import MethodAdjoint
from .shadows import _has_shadow, shadow


def _field(t: Any, name: str) -> float:
    if isinstance(t, (MutableTangent, Tangent)):
        v = t.fields.get(name, NoTangent)
        return 0.0 if v is NoTangent or v is None else v
    return 0.0


def method_self_adjoints(obj: Any, g: Any, names: tuple) -> tuple:
    """The adjoints of obj's fields `names` that a call of one of its methods gave back (g: the bound method's
    adjoint) or left in obj's storage (which is emptied)."""
    inner = g.self_adjoint if isinstance(g, MethodAdjoint) else g
    stored = shadow(obj) if _has_shadow(obj) else None
    out = [0.0] * len(names)
    for k, name in enumerate(names):
        if inner is not stored and inner is not NoTangent and inner is not None:
            out[k] += _field(inner, name)
        if stored is not None:
            out[k] += _field(stored, name)
    if stored is not None:
        for name in names:
            stored.fields[name] = NoTangent
    return tuple(out)
