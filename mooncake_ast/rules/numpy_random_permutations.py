"""Random permutations and subsets of an array with derivatives (`rng.permutation(x)`, `rng.choice(x, size=2)`), and
draws whose result has no derivative (a Poisson count).

A permutation of x, or a choice of its rows, is linear in x: `y = x[idx]` for the indices the draw picked, so the
tangent is `dx[idx]` and the adjoint of x is g added back at idx.  The draw has consumed the generator's state by
the time a rule sees y, so idx is found from the values: each row of y is the row of x equal to it.  That is exact
where the rows of x are distinct; where two rows are equal (and so cannot be told apart) the call is refused by
name, never answered with one guess.  Which rows are picked does not change with x (the draw is a function of the
generator's state), and the probabilities `p=` only choose: they have no derivative.  Registered on first need, once
the user's code has imported numpy.random (registry._LAZY_TABLES).
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent
from .numpy_common import _no_adjoint
from .registry import defjvp, defvjp, defzero


def _rows(a):
    a = np.asarray(a)
    return a.reshape(a.shape[0], -1) if a.ndim > 1 else a.reshape(-1, 1)


def picked_rows(x, y):
    """idx with y == x[idx] along axis 0, the rows matched by value; refused where x has equal rows."""
    rx, ry = _rows(x), _rows(y)
    order = np.lexsort(rx.T[::-1])
    sx = rx[order]
    if len(sx) > 1 and np.any(np.all(sx[1:] == sx[:-1], axis=1)):
        raise NotImplementedError("derivative of a random permutation or choice of an array with equal rows: which "
                                  "of the equal rows went where is not known; draw the indices instead "
                                  "(`idx = rng.permutation(len(x)); x[idx]`)")
    found = {rx[i].tobytes(): i for i in range(len(rx))}
    try:
        return np.array([found[r.tobytes()] for r in ry], dtype=np.intp)
    except KeyError:
        raise NotImplementedError("derivative of a random permutation or choice: its result holds rows that are not "
                                  "rows of the array drawn from") from None


def _axis_zero(axis):
    if not (isinstance(axis, (int, np.integer)) and int(axis) == 0):
        raise NotImplementedError("derivative of a random permutation or choice along an axis other than 0")


def picked_tangent(x, y, dx, axis=0):
    _axis_zero(axis)
    if dx is NoTangent:
        return NoTangent
    return np.broadcast_to(dx, np.shape(x))[picked_rows(x, y)]


def picked_adjoint(x, y, g, axis=0):
    _axis_zero(axis)
    if _no_adjoint(g):
        return NoTangent
    out = np.zeros(np.shape(x), dtype=np.result_type(np.asarray(g).dtype, float))
    np.add.at(out, picked_rows(x, y), np.asarray(g))
    return out


def _permutation_jvp(t, y, self, x, axis=0):
    return t.call(picked_tangent, x, y, t.d(x), axis) if t.d(x) is not None else None


def _permutation_vjp(t, g, y, self, x, axis=0):
    return (None, t.call(picked_adjoint, x, y, g, axis))


_CHOICE_NAMES = {"Generator": ("size", "replace", "p", "axis", "shuffle"), "RandomState": ("size", "replace", "p")}


def _operand(args, kwargs):
    """(the array drawn from, the other positional arguments, whether it came by name as `a=`)."""
    if args:
        return args[0], args[1:], False
    kwargs = dict(kwargs)
    return kwargs.pop("a"), (), True


def _choice_rules(kind):
    names = _CHOICE_NAMES[kind]

    def axis_of(args, kwargs):  # (a literal, or the template's placeholder of the value: checked when it runs)
        return dict(zip(names, args), **kwargs).get("axis", 0)

    def jvp(t, y, self, *args, **kwargs):
        a, args, by_name = _operand(args, kwargs)
        if t.d(a) is None:
            return None
        return t.call(picked_tangent, a, y, t.d(a), axis_of(args, kwargs))

    def vjp(t, g, y, self, *args, **kwargs):
        a, args, by_name = _operand(args, kwargs)
        adjoint = t.call(picked_adjoint, a, y, g, axis_of(args, kwargs))
        if by_name:  # (`rng.choice(a=x, ...)`: its adjoint by name, not dropped as a positional one)
            from .call_binding import KwAdj

            return (None,) + (None,) * len(args) + (KwAdj({"a": adjoint}),)
        return (None, adjoint) + (None,) * len(args)

    return jvp, vjp


def register() -> None:
    for cls in (np.random.Generator, np.random.RandomState):
        defjvp((cls, "permutation"), _permutation_jvp)
        defvjp((cls, "permutation"), _permutation_vjp)
        jvp, vjp = _choice_rules(cls.__name__)
        defjvp((cls, "choice"), jvp)
        defvjp((cls, "choice"), vjp)
        defzero((cls, "poisson"))  # (counts: integers, no derivative in the rate)
