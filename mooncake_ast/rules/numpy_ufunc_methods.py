"""NumPy rules, both modes: the methods reduce, accumulate and outer of the binary arithmetic ufuncs
(np.add.reduce, np.multiply.accumulate, np.subtract.outer, np.maximum.reduce, ...; split from numpy_more.py).

One table gives each ufunc's partial derivatives (d u(a, b) / d a, d u(a, b) / d b) at (a, b, y); the three
methods are written once on top of it:

* outer(a, b) is u on a reshaped against b, so its tangent is pa * da + pb * db and its adjoints those
  products summed over the other operand's axes;
* accumulate(x, axis) is the left fold y[0] = x[0], y[k] = u(y[k-1], x[k]): its tangent runs the fold's
  chain rule forwards, its adjoint runs it backwards;
* reduce(x, axis) is the last entry of that fold (several axes, or None, are flattened into one first,
  which NumPy allows only for ufuncs where the order does not matter; `initial` starts the fold).

Ties of maximum/minimum send the derivative to the first operand (the running result), as np.maximum's
own rule does.  `where=` and `dtype=` are refused.  The unbuffered `at` method of add and subtract has its
rules in numpy_elementwise.py; `at` of the other ufuncs has none (it writes in place).
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent
from . import helpers as h
from .numpy_common import _bind, _no_adjoint, _split, _unb
from .numpy_elementwise import fmax_first, fmin_first
from .numpy_extra import _dz, _number, _zero
from .call_binding import KwAdj
from .registry import defjvp, defvjp

_NV = np._NoValue


def _hypot(a, b, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(y == 0, 0.0, a / np.where(y == 0, 1.0, y)), np.where(y == 0, 0.0, b / np.where(y == 0, 1.0, y))


def _arctan2(a, b, y):
    r = a * a + b * b
    return b / r, -a / r


PARTIALS = {
    np.add: lambda a, b, y: (1.0, 1.0),
    np.subtract: lambda a, b, y: (1.0, -1.0),
    np.multiply: lambda a, b, y: (b, a),
    np.divide: lambda a, b, y: (1.0 / b, -y / b),
    np.power: lambda a, b, y: (h.pow_deriv(a, b), y * h.log_for_pow(a)),
    np.maximum: lambda a, b, y: (np.greater_equal(a, b) * 1.0, np.less(a, b) * 1.0),
    np.minimum: lambda a, b, y: (np.less_equal(a, b) * 1.0, np.greater(a, b) * 1.0),
    np.fmax: lambda a, b, y: (fmax_first(a, b) * 1.0, 1.0 - fmax_first(a, b)),
    np.fmin: lambda a, b, y: (fmin_first(a, b) * 1.0, 1.0 - fmin_first(a, b)),
    np.hypot: _hypot,
    np.arctan2: _arctan2,
    np.logaddexp: lambda a, b, y: (np.exp(a - y), np.exp(b - y)),
    np.logaddexp2: lambda a, b, y: (np.exp2(a - y), np.exp2(b - y)),
    np.remainder: lambda a, b, y: (1.0, -np.floor_divide(a, b)),
    np.floor_divide: lambda a, b, y: (0.0, 0.0),  # piecewise constant
}


def _plain(name, **k):
    for key in ("dtype", "where"):
        v = k.get(key)
        if v is not None and v is not True and v is not _NV:
            raise NotImplementedError(f"derivative of {name} with {key}=")


# ------------------------------------------------------------------ outer
def _outer_operands(a, b):
    a = np.asarray(a)
    return a.reshape(a.shape + (1,) * np.ndim(b)), np.asarray(b)


def outer_tangent(u, a, b, y, da, db, **k):
    _plain(f"np.{u.__name__}.outer", **k)
    A, B = _outer_operands(a, b)
    pa, pb = PARTIALS[u](A, B, np.asarray(y))
    out = 0.0
    if not _zero(da):
        out = out + pa * _outer_operands(_dz(a, da), b)[0]
    if not _zero(db):
        out = out + pb * np.asarray(_dz(b, db))
    return np.broadcast_to(out, np.shape(y)) * 1.0


def outer_adjoint(u, g, a, b, y, **k):
    _plain(f"np.{u.__name__}.outer", **k)
    if _no_adjoint(g):
        return NoTangent, NoTangent
    A, B = _outer_operands(a, b)
    pa, pb = PARTIALS[u](A, B, np.asarray(y))
    g = np.asarray(g)
    abar = np.sum(g * pa, axis=tuple(range(np.ndim(a), g.ndim))) if np.ndim(b) else g * pa
    return _number(_unb(abar, a)), _number(_unb(g * pb, b))


# ------------------------------------------------------------------ the fold behind accumulate and reduce
def _fold_layout(x, axis):
    """x with the folded axis (axes flattened, in C order) first, and the shape the rest has."""
    x = np.asarray(x)
    if axis is None:
        return x.reshape((-1,)), (), tuple(range(x.ndim))
    axes = tuple(int(a) % x.ndim for a in ((axis,) if np.ndim(axis) == 0 else axis))
    moved = np.moveaxis(x, axes, tuple(range(len(axes))))
    rest = moved.shape[len(axes):]
    return moved.reshape((-1,) + rest), rest, axes


def _running(u, xs, initial):
    """The fold's running results r[k] (after x[k]) and the left operand at each step (r[k-1], or initial)."""
    lefts, outs = [], []
    acc = initial
    for k in range(xs.shape[0]):
        if acc is _NV:
            acc = xs[0]
        else:
            lefts.append((k, acc))
            acc = u(acc, xs[k])
        outs.append(acc)
    return outs, dict(lefts)


# Ufuncs whose fold depends on the order of the operands: the rules differentiate the left fold, so they
# check that NumPy's own result is that fold (NumPy 2.4 reduces np.power and np.arctan2 along a
# contiguous axis in another order).
_ORDERED = {np.subtract, np.divide, np.power, np.float_power, np.arctan2, np.remainder, np.fmod}


def _require_left_fold(u, x, axis, initial, last):
    if u not in _ORDERED:
        return
    kw = {} if initial is _NV else {"initial": initial}
    try:
        ours, numpys = np.asarray(last, dtype=float), np.asarray(u.reduce(x, axis=axis, **kw), dtype=float)
        if ours.size != numpys.size:
            return
        same = np.allclose(ours.ravel(), numpys.ravel(), rtol=1e-9, atol=1e-12, equal_nan=True)
    except (TypeError, ValueError):
        return
    if not same:
        raise NotImplementedError(
            f"derivative of np.{u.__name__}.reduce: NumPy {np.__version__} did not compute this reduction as the "
            f"left-to-right fold u(u(x[0], x[1]), x[2])..., and its order is not documented, so its derivative is "
            f"unknown; write the fold as a loop, or take the last entry of np.{u.__name__}.accumulate: "
            f"np.take(np.{u.__name__}.accumulate(x, axis={axis!r}), -1, axis={axis!r})")


def fold_tangent(u, x, dx, axis, initial, last_only, dinitial=None):
    xs, rest, axes = _fold_layout(x, axis)
    ds = _fold_layout(np.broadcast_to(_dz(x, dx), np.shape(x)), axis)[0]
    outs, lefts = _running(u, xs, initial)
    if last_only and outs:
        _require_left_fold(u, x, axis, initial, outs[-1])
    d, douts = (None if _zero(dinitial) else dinitial), []
    for k in range(xs.shape[0]):
        if k not in lefts:
            d = ds[0]
        else:
            pa, pb = PARTIALS[u](lefts[k], xs[k], outs[k])
            d = pb * ds[k] if d is None else pa * d + pb * ds[k]
        douts.append(d)
    if last_only:
        return np.zeros(rest) if d is None else np.broadcast_to(d, rest) * 1.0
    return np.moveaxis(np.stack(douts), 0, axes[0]) if douts else np.zeros(np.shape(x))


def fold_adjoint(u, x, g, axis, initial, last_only):
    """(x's adjoint, the adjoint reaching `initial`, shaped like one slice)."""
    xs, rest, axes = _fold_layout(x, axis)
    outs, lefts = _running(u, xs, initial)
    if last_only and outs:
        _require_left_fold(u, x, axis, initial, outs[-1])
    n = xs.shape[0]
    g = np.asarray(g, dtype=float)
    gs = None if last_only else np.moveaxis(g, axes[0], 0)
    xbar = np.zeros(xs.shape)
    carry = np.zeros(rest)
    for k in range(n - 1, -1, -1):
        carry = carry + (g if (last_only and k == n - 1) else 0.0) + (0.0 if last_only else gs[k])
        if k not in lefts:
            xbar[0] += carry
            break
        pa, pb = PARTIALS[u](lefts[k], xs[k], outs[k])
        xbar[k] += pb * carry
        carry = pa * carry
    shape = np.shape(x)
    if axis is None:
        return xbar.reshape(shape), carry
    moved = xbar.reshape(tuple(shape[a] for a in axes) + rest)
    return np.moveaxis(moved, tuple(range(len(axes))), axes), carry


def accumulate_tangent(u, x, y, dx, axis=0, dtype=None, out=None):
    _plain(f"np.{u.__name__}.accumulate", dtype=dtype)
    return fold_tangent(u, x, dx, 0 if axis is None else axis, _NV, False)


def accumulate_adjoint(u, x, g, axis=0, dtype=None, out=None):
    _plain(f"np.{u.__name__}.accumulate", dtype=dtype)
    return NoTangent if _no_adjoint(g) else fold_adjoint(u, x, g, 0 if axis is None else axis, _NV, False)[0]


def _reduce_shape(x, axis, keepdims):
    if not keepdims:
        return None
    nd = np.ndim(x)
    axes = range(nd) if axis is None else [int(a) % nd for a in ((axis,) if np.ndim(axis) == 0 else axis)]
    return tuple(1 if i in axes else n for i, n in enumerate(np.shape(x)))


def reduce_tangent(u, x, y, dx, dinitial, axis=0, dtype=None, out=None, keepdims=False, initial=_NV, where=True):
    _plain(f"np.{u.__name__}.reduce", dtype=dtype, where=where)
    r = fold_tangent(u, x, _dz(x, dx), axis, initial, True, dinitial)
    r = np.reshape(r, np.shape(y))
    return _number(r[()]) if r.ndim == 0 else r


def reduce_adjoint(u, x, g, axis=0, dtype=None, out=None, keepdims=False, initial=_NV, where=True):
    _plain(f"np.{u.__name__}.reduce", dtype=dtype, where=where)
    if _no_adjoint(g):
        return NoTangent, NoTangent
    rest = _fold_layout(x, axis)[1]
    r, c = fold_adjoint(u, x, np.reshape(g, rest), axis, initial, True)
    ibar = NoTangent if initial is _NV or initial is None else _number(_unb(c, initial))
    return (_number(r[()]) if np.ndim(r) == 0 else r), ibar


_REDUCE = ("axis", "dtype", "out", "keepdims", "initial", "where")


def _reduce_jvp(t, u, y, x, p, k):
    b = _bind(_REDUCE, p, k)
    init = b.get("initial")
    if t.d(x) is None and t.d(init) is None:
        return None
    return t.call(reduce_tangent, u, x, y, t.d(x), t.d(init), **b)


def _reduce_vjp(t, u, g, x, p, k):
    """x's adjoint, and initial's (by position or by name, as it was passed)."""
    b = _bind(_REDUCE, p, k)
    xbar, ibar = _split(t, t.call(reduce_adjoint, u, x, g, **b), 2)
    pos = [xbar] + [None] * len(p)
    if len(p) >= 5:
        pos[5] = ibar
    return tuple(pos) + ((KwAdj(initial=ibar),) if "initial" in k else ())
_ACCUMULATE = ("axis", "dtype", "out")


def _register(u):
    name = f"np.{u.__name__}"

    def live(t, x):
        return t.d(x) is not None

    defjvp(u.outer, lambda t, y, a, b, **k: t.call(outer_tangent, u, a, b, y, t.d(a), t.d(b), **k)
           if (live(t, a) or live(t, b)) else None)
    defvjp(u.outer, lambda t, g, y, a, b, **k: _split(t, t.call(outer_adjoint, u, g, a, b, y, **k), 2))
    defjvp(u.accumulate, lambda t, y, x, *p, **k: t.call(accumulate_tangent, u, x, y, t.d(x), **_bind(_ACCUMULATE, p, k))
           if live(t, x) else None)
    defvjp(u.accumulate, lambda t, g, y, x, *p, **k: (t.call(accumulate_adjoint, u, x, g, **_bind(_ACCUMULATE, p, k)),) + (None,) * len(p))
    defjvp(u.reduce, lambda t, y, x, *p, **k: _reduce_jvp(t, u, y, x, p, k))
    defvjp(u.reduce, lambda t, g, y, x, *p, **k: _reduce_vjp(t, u, g, x, p, k))
    return name


for _u in PARTIALS:
    _register(_u)
