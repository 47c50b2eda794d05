"""Tuple bunches: SciPy's result classes that are a tuple with extra attributes (issue 12).

`scipy.stats.linregress` returns a `LinregressResult`, made by SciPy's `_make_tuple_bunch`: a tuple of
its fields (slope, intercept, rvalue, pvalue, stderr) that also carries extra fields as attributes
(intercept_stderr), which are not items of the tuple.  Its `__new__` and `__init__` are generated with
`exec`, so they have no source to trace; constructing one is differentiated here, for every such
class (recognised by its shape, `_fields` and `_extra_fields` on a tuple subclass, so SciPy is never
imported for it):

* forward mode: the tangent is a `BunchTangent`, the tuple of the fields' tangents (so unpacking and
  indexing read it as any tuple's) with the extra fields' tangents in `.extra`, which
  `getattr_tangent` reads for `res.intercept_stderr`;
* reverse mode: the adjoint reaching the constructor is a tuple's (the fields', from unpacking,
  indexing or `res.slope`); an extra field's adjoint is kept in the object's storage by the read of
  the attribute (reverse/part_reads.getattr_reverse), and the constructor's pullback takes it from there.
"""
from __future__ import annotations

import inspect
from typing import Any

from ..tangents import NoTangent


class BunchTangent(tuple):
    """The tangent of a tuple bunch: its fields' tangents, in order; the extra fields' in `.extra`."""

    extra: dict = {}

    def __new__(cls, items: Any, extra: dict) -> "BunchTangent":
        out = super().__new__(cls, items)
        out.extra = extra
        return out


def is_tuple_bunch_class(f: Any) -> bool:
    return isinstance(f, type) and issubclass(f, tuple) and isinstance(getattr(f, "_fields", None), tuple) \
        and isinstance(getattr(f, "_extra_fields", None), tuple) \
        and getattr(getattr(f.__new__, "__code__", None), "co_filename", None) == "<string>"


def _bind(cls: type, args: tuple, kwargs: dict) -> list:
    """Where each field's value came from, fields first, then the extra fields: ("arg", i) or ("kw", name)."""
    inspect.signature(cls.__new__).bind(cls, *args, **kwargs)  # raises TypeError as the call would
    out = []
    for i, name in enumerate(cls._fields):
        out.append(("arg", i) if i < len(args) else ("kw", name))
    return out + [("kw", name) for name in cls._extra_fields]


def construct_forward(cls, dcls, args, dargs, kwargs, dkwargs):
    y = cls(*args, **kwargs)  # (raises as the plain call does: a missing or unexpected field)
    where = _bind(cls, args, kwargs)
    n = len(cls._fields)

    def part(w):
        return dargs[w[1]] if w[0] == "arg" else dkwargs.get(w[1], NoTangent)

    fields = tuple(part(w) for w in where[:n])
    extra = {w[1]: part(w) for w in where[n:]}
    if all(p is NoTangent for p in fields) and all(p is NoTangent for p in extra.values()):
        return y, NoTangent
    return y, BunchTangent(fields, extra)


def extra_field_tangent(obj: Any, dobj: Any, name: str) -> Any:
    """`res.name` of an extra field (builtin_rules.getattr_tangent)."""
    return dobj.extra.get(name, NoTangent) if isinstance(dobj, BunchTangent) else NoTangent


def is_extra_field(obj: Any, name: str) -> bool:
    return isinstance(obj, tuple) and name in (getattr(type(obj), "_extra_fields", None) or ()) \
        and is_tuple_bunch_class(type(obj))


def bunch_adjoint(y: Any, g: Any) -> tuple:
    """The adjoint of the tuple bunch y, as (the fields' adjoints, {extra field: adjoint}): the fields' from g (a
    tuple's adjoint), the extra fields' from y's storage, where the reads of `y.name` left them."""
    from ..reverse import shadows

    n = len(type(y)._fields)
    fields = list(g)[:n] if isinstance(g, (tuple, list)) else [NoTangent] * n
    extra: dict = {}
    if shadows._has_shadow(y):
        stored = getattr(shadows.shadow(y), "fields", {})
        for name in type(y)._extra_fields:
            gi = stored.get(name, NoTangent)
            if gi is not NoTangent and gi is not None:
                extra[name] = gi
    return fields, extra


def construct_reverse(cls, args, kwargs):
    from ..reverse.adjoints import AdjDict, AdjTuple

    y = cls(*args, **kwargs)
    where = _bind(cls, args, kwargs)
    n = len(cls._fields)

    def pullback(g):
        fields, extra = bunch_adjoint(y, g)
        bars: list = [NoTangent] * len(args)
        named: dict = dict(extra)
        for w, gi in zip(where[:n], fields):
            if w[0] == "arg":
                bars[w[1]] = gi
            else:
                named[w[1]] = gi
        return NoTangent, AdjTuple(bars), AdjDict(named)

    return y, pullback
