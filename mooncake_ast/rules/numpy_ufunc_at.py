"""NumPy rules, both modes: the unbuffered in-place method `at` of the ufuncs other than add and subtract
(np.multiply.at, np.divide.at, np.maximum.at, np.power.at, ..., and of the one-argument float ufuncs such
as np.negative.at, np.square.at or np.sin.at); and reduce/accumulate/outer of the arithmetic ufuncs that
numpy_ufunc_methods.py lacked (float_power, fmod, copysign, heaviside); issue 12.  add.at and subtract.at keep their own rules
(numpy_elementwise.py forward, reverse/runtime.py reverse).

`u.at(a, indices, b)` applies `a[p] = u(a[p], b[k])` once per selected entry, in order, so a position
that is selected twice sees the result of its first update.  The rules replay that sequence in rounds:
round r holds the r-th visit of every position, so the positions inside a round are distinct and each
round is one vectorised step, and the rounds keep NumPy's order.  The partial derivatives at each step
come from numpy_ufunc_methods.PARTIALS (the table its reduce/accumulate/outer rules use), so ties of
maximum/minimum go to the first operand (the entry of `a`), as there.

* forward: before the primal write, the tangent storage of `a` is updated round by round,
  da[p] = pa * da[p] + pb * db[k];
* reverse: the primal runs; the pullback walks the rounds backwards on a's adjoint storage,
  giving b its share pb * abar[p] and leaving pa * abar[p] for the earlier value of a[p], then puts
  a's old value back (the pattern of numpy_writes.py).

Complex values: forward mode for the holomorphic ufuncs only (add, subtract, multiply, divide, power and
the holomorphic one-argument ones); reverse mode refuses complex values, as the other writes do.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent
from . import helpers as h
from .numpy_ufunc_methods import _ORDERED, PARTIALS, _register
from .numpy_writes import _dest, _dest_tangent, _refuse_complex, _shaped_like
from .registry import defjvp, defrrule_at_run_time

# Arithmetic ufuncs numpy_ufunc_methods.PARTIALS lacks: added to it, with their reduce/accumulate/outer rules
# (order-dependent folds, so NumPy's result is checked to be the left fold, as for power and fmod there).
MORE_PARTIALS = {
    np.float_power: lambda a, b, y: (h.pow_deriv(a, b), y * h.log_for_pow(a)),
    np.fmod: lambda a, b, y: (1.0, -np.trunc(np.divide(a, b))),
    np.copysign: lambda a, b, y: (np.sign(a) * np.where(np.signbit(b), -1.0, 1.0), 0.0),  # slope 0 at a == 0
    np.heaviside: lambda a, b, y: (0.0, np.equal(a, 0) * 1.0),  # b is the value taken where a == 0
}
PARTIALS.update(MORE_PARTIALS)
_ORDERED.update(MORE_PARTIALS)
for _u in MORE_PARTIALS:
    _register(_u)

_LN2, _LN10 = np.log(2.0), np.log(10.0)
# one-argument ufuncs: dy/dx at (x, y); the piecewise constant ones (floor, sign, ...) have slope 0
UNARY = {
    np.negative: lambda x, y: -1.0,
    np.positive: lambda x, y: 1.0,
    np.square: lambda x, y: 2.0 * x,
    np.reciprocal: lambda x, y: -y * y,
    np.exp: lambda x, y: y,
    np.log: lambda x, y: 1.0 / x,
    np.sqrt: lambda x, y: 0.5 / y,
    np.sin: lambda x, y: np.cos(x),
    np.cos: lambda x, y: -np.sin(x),
    np.tanh: lambda x, y: 1.0 - y * y,
    np.absolute: lambda x, y: np.sign(x),
    np.fabs: lambda x, y: np.sign(x),
    np.tan: lambda x, y: 1.0 + y * y,
    np.sinh: lambda x, y: np.cosh(x),
    np.cosh: lambda x, y: np.sinh(x),
    np.arcsin: lambda x, y: 1.0 / np.sqrt(1.0 - x * x),
    np.arccos: lambda x, y: -1.0 / np.sqrt(1.0 - x * x),
    np.arctan: lambda x, y: 1.0 / (1.0 + x * x),
    np.arcsinh: lambda x, y: 1.0 / np.sqrt(x * x + 1.0),
    np.arccosh: lambda x, y: 1.0 / np.sqrt(x * x - 1.0),
    np.arctanh: lambda x, y: 1.0 / (1.0 - x * x),
    np.exp2: lambda x, y: y * _LN2,
    np.expm1: lambda x, y: y + 1.0,
    np.log2: lambda x, y: 1.0 / (x * _LN2),
    np.log10: lambda x, y: 1.0 / (x * _LN10),
    np.log1p: lambda x, y: 1.0 / (1.0 + x),
    np.cbrt: lambda x, y: 1.0 / (3.0 * y * y),
    np.deg2rad: lambda x, y: np.pi / 180.0,
    np.rad2deg: lambda x, y: 180.0 / np.pi,
    np.radians: lambda x, y: np.pi / 180.0,
    np.degrees: lambda x, y: 180.0 / np.pi,
    np.conjugate: lambda x, y: 1.0,  # (real values only: conj is not holomorphic)
    **{u: (lambda x, y: 0.0) for u in (np.floor, np.ceil, np.trunc, np.rint, np.sign, np.spacing)},
}
_HOLOMORPHIC = {np.add, np.subtract, np.multiply, np.divide, np.power, np.float_power, np.negative, np.positive,
                np.square, np.reciprocal, np.exp, np.log, np.sqrt, np.sin, np.cos, np.tanh, np.tan, np.sinh, np.cosh,
                np.arcsin, np.arccos, np.arctan, np.arcsinh, np.arccosh, np.arctanh, np.exp2, np.expm1, np.log2,
                np.log10, np.log1p, np.deg2rad, np.rad2deg, np.radians, np.degrees}
BINARY = [u for u in PARTIALS if u not in (np.add, np.subtract)]


def _rounds(a, indices, b):
    """The steps of u.at(a, indices, b) as rounds of (positions in a.ravel(), positions in b.ravel()):
    round r holds every position's r-th visit, in NumPy's (C) order of the selected entries."""
    pos = np.arange(a.size).reshape(a.shape)[indices]  # (raises as the primal would for a bad index)
    flat = np.ravel(pos)
    if b is None:
        kb = np.zeros(flat.shape, dtype=np.intp)
    else:
        kb = np.ravel(np.broadcast_to(np.arange(np.size(b)).reshape(np.shape(b)), np.shape(pos)))
    n = flat.size
    if n == 0:
        return []
    order = np.argsort(flat, kind="stable")
    s = flat[order]
    starts = np.concatenate(([True], s[1:] != s[:-1]))
    first = np.maximum.accumulate(np.where(starts, np.arange(n), 0))
    rank = np.empty(n, dtype=np.intp)
    rank[order] = np.arange(n) - first
    return [(flat[rank == r], kb[rank == r]) for r in range(int(rank.max()) + 1)]


def _replay(u, a, rounds, b):
    """Each round's (positions, b positions, partial wrt a, partial wrt b), replaying the writes on a copy."""
    acc = np.array(a).reshape(-1)
    bflat = None if b is None else np.ravel(np.asarray(b))
    steps = []
    with np.errstate(divide="ignore", invalid="ignore"):
        for p, k in rounds:
            left = acc[p]
            if b is None:
                acc[p] = u(left)
                pa, pb = UNARY[u](left, acc[p]), 0.0
            else:
                right = bflat[k]
                acc[p] = u(left, right)
                pa, pb = PARTIALS[u](left, right, acc[p])
            steps.append((p, k, np.broadcast_to(pa, p.shape), np.broadcast_to(pb, p.shape)))
    return steps


def _check(u, a, b):
    name = f"np.{u.__name__}.at"
    _dest(name, a)
    if u not in _HOLOMORPHIC and (np.iscomplexobj(a) or np.iscomplexobj(b)):
        raise NotImplementedError(f"derivative of {name} with complex values ({u.__name__} is not holomorphic)")
    return name


def at_tangent(u, a, da, indices, b, db):
    """Before the primal write: the same sequence of updates applied to a's tangent storage."""
    name = _check(u, a, b)
    live_b = b is not None and db is not NoTangent and db is not None
    da = _dest_tangent(name, a, da, live_b)
    if da is None:
        return
    work = np.array(da).reshape(-1)
    dbflat = np.ravel(np.asarray(db)) if live_b else None
    for p, k, pa, pb in _replay(u, a, _rounds(a, indices, b), b):
        work[p] = pa * work[p] + (pb * dbflat[k] if live_b else 0.0)
    da[...] = work.reshape(da.shape)


def _jvp(u):
    def jvp(t, y, a, indices, b=None, /):
        if t.d(a) is None and (b is None or t.d(b) is None):
            return None
        t.call(at_tangent, u, a, t.dz(a), indices, b, NoTangent if b is None else t.dz(b))
        return None

    return jvp


def _rrule(u):
    def rrule(a, indices, b=None, /):
        from ..reverse import shadows

        name = _check(u, a, b)
        _refuse_complex(name, a, b)
        old = a.copy()
        steps = _replay(u, a, _rounds(a, indices, b), b)
        y = u.at(a, indices) if b is None else u.at(a, indices, b)

        def pullback(g):
            shadows.remember(a)  # (before the caller's pullback rolls `a` back)
            sh = shadows.shadow(a)
            work = np.array(sh, dtype=float).reshape(-1)
            bbar = np.zeros(max(int(np.size(b)), 1)) if b is not None else None
            for p, k, pa, pb in reversed(steps):
                gp = work[p]
                if bbar is not None:
                    np.add.at(bbar, k, pb * gp)
                work[p] = pa * gp
            sh[...] = work.reshape(np.shape(sh))
            a[...] = old
            bars = [NoTangent, NoTangent]
            if b is not None:
                bars.append(_shaped_like(b, bbar.reshape(np.shape(b)) if np.ndim(b) else bbar[0]))
            return tuple(bars)

        return y, pullback

    return rrule


for _u in BINARY + list(UNARY):
    defjvp(_u.at, _jvp(_u), mutates=(0,))
    defrrule_at_run_time(_u.at, _rrule(_u))


# ---------------------------------------------------------------- add.at / subtract.at at higher orders
def add_at_forward(a, indices, b, da, dindices, db):
    """`np.add.at(a, indices, b)` and its tangent's twin `np.add.at(da, indices, db)`, as plain NumPy: the forward
    derivative of a scatter-add is the same scatter-add of the tangents, so an outer derivative differentiates this
    function (np.add.at has rules in both modes) instead of a hand-written rule with no derivative of its own."""
    np.add.at(a, indices, b)
    np.add.at(da, indices, db)
    return None, NoTangent


def subtract_at_forward(a, indices, b, da, dindices, db):
    """`np.subtract.at(a, indices, b)` and `np.subtract.at(da, indices, db)`: add_at_forward's twin."""
    np.subtract.at(a, indices, b)
    np.subtract.at(da, indices, db)
    return None, NoTangent


def scatter_forward(f, args: tuple, dargs: tuple):
    """The plain forward of `np.add.at(a, idx, b)` / `np.subtract.at` (forward code's dispatched call, reached by an
    outer derivative), or None where it does not apply: a must be a float array whose tangent is an array of its
    shape that forward code writes (a symbolic zero there would be a fresh array, and the write lost), b a float
    value or array, the index not differentiated."""
    if len(args) != 3 or len(dargs) != 3:
        return None
    plain = add_at_forward if f == np.add.at else subtract_at_forward if f == np.subtract.at else None
    if plain is None:
        return None
    a, _, b = args
    da, dindices, db = dargs
    if type(a) is not np.ndarray or a.dtype.kind != "f" or type(da) is not np.ndarray or da.shape != a.shape:
        return None
    if not _index_tangent(dindices):
        return None
    if isinstance(b, np.ndarray) and b.dtype.kind not in "fiu" or isinstance(b, complex):
        return None
    return plain


def _index_tangent(d) -> bool:
    """Is d what forward code holds as the tangent of an index (none, or integer storage, also inside a tuple or a
    list: `np.add.at(out, [0, 1, 1], v)`'s index list has a list of zeros for its tangent)?"""
    if isinstance(d, (tuple, list)):
        return all(_index_tangent(v) for v in d)
    return d is NoTangent or d is None or isinstance(d, np.ndarray) and d.dtype.kind not in "fc"
