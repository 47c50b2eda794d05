"""What the `__init__` that @dataclass generates does, computed without running it.

Both modes differentiate the construction of a dataclass instance field by field (the
generated `__init__` is not source the transforms can read), so they need the fields it
would set, with defaults and factories filled in as it fills them.  A module of its own:
it is about dataclasses, not about the operator protocol of forward/objects.py.
"""
from __future__ import annotations

from typing import Any


def dataclass_init(cls: type, args: tuple, kwargs: dict) -> tuple[list, list, Any]:
    """What the `__init__` that @dataclass generates does, without running it.

    Returns (fields, initvars, bound): fields is [(name, value, from_argument)] in
    definition order, with defaults and `default_factory()` results filled in as the
    generated `__init__` fills them (a factory runs once per object); initvars is
    [(name, value, from_argument)] for `InitVar` pseudo-fields, which go to `__post_init__`.
    """
    import dataclasses
    import inspect

    bound = inspect.signature(cls).bind(*args, **kwargs)
    fields, initvars = [], []
    for name, spec in cls.__dataclass_fields__.items():  # type: ignore[attr-defined]
        kind = getattr(spec, "_field_type", None)
        if kind is getattr(dataclasses, "_FIELD_CLASSVAR", object()):
            continue
        if spec.init and name in bound.arguments:
            value, given = bound.arguments[name], True
        elif spec.default is not dataclasses.MISSING:
            value, given = spec.default, False
        elif spec.default_factory is not dataclasses.MISSING:
            value, given = spec.default_factory(), False
        else:
            continue  # init=False without a default: the generated __init__ leaves it unset
        if kind is getattr(dataclasses, "_FIELD_INITVAR", object()):
            initvars.append((name, value, given))
        else:
            fields.append((name, value, given))
    return fields, initvars, bound
