"""Rules of NumPy, both modes: ufuncs, reductions, products, shapes, creation, linalg, array methods.

Forward mode needs no unbroadcasting: tangents broadcast like their primals.
Linear functions applied to a tangent go through `t.lin`, so a zero tangent
costs nothing.  Reverse templates return one adjoint per positional argument
and undo broadcasting (`t.unb`); adjoints `g` reaching a helper may be the
symbolic zero `NoTangent`.

Conventions at non-differentiable points (documented in docs/rules.md): `abs`
and `sign`-like kinks take 0; `maximum`/`max`/`sort`/`clip` ties go to the first
argument (or the first position, or the inside of the interval); `sqrt` at 0
gives an infinite derivative.  Linear algebra rules assume real matrices;
`eigh`/`svd` need distinct eigen-/singular values, `cholesky` a positive
definite matrix, `qr` a tall (or square) full-rank matrix, `lstsq` a full-rank one.
"""
from __future__ import annotations

import operator
import string

import numpy as np

from .. import ops
from ..tangents import NoTangent
from . import helpers as h
from .registry import defjvp, defmethod, defvjp, defvjp_method, defzero

_NV = np._NoValue  # numpy's "argument not given"


def unary(fn, dfdx):
    """Register y = fn(x) elementwise: forward and reverse from one derivative."""
    defjvp(fn, lambda t, y, x, *a, **k: t.mul(t.d(x), dfdx(t, y, x)))
    defvjp(fn, lambda t, g, y, x, *a, **k: (t.mul(g, dfdx(t, y, x)),))


# ------------------------------------------------------------------ elementwise, one argument
unary(np.sin, lambda t, y, x: t.call(np.cos, x))
unary(np.cos, lambda t, y, x: t.neg(t.call(np.sin, x)))
unary(np.tan, lambda t, y, x: t.add(1.0, t.mul(y, y)))
unary(np.arcsin, lambda t, y, x: t.div(1.0, t.call(np.sqrt, t.sub(1.0, t.mul(x, x)))))
unary(np.arccos, lambda t, y, x: t.neg(t.div(1.0, t.call(np.sqrt, t.sub(1.0, t.mul(x, x))))))
unary(np.arctan, lambda t, y, x: t.div(1.0, t.add(1.0, t.mul(x, x))))
unary(np.sinh, lambda t, y, x: t.call(np.cosh, x))
unary(np.cosh, lambda t, y, x: t.call(np.sinh, x))
unary(np.tanh, lambda t, y, x: t.sub(1.0, t.mul(y, y)))
unary(np.arcsinh, lambda t, y, x: t.div(1.0, t.call(np.sqrt, t.add(t.mul(x, x), 1.0))))
unary(np.arccosh, lambda t, y, x: t.div(1.0, t.call(np.sqrt, t.sub(t.mul(x, x), 1.0))))
unary(np.arctanh, lambda t, y, x: t.div(1.0, t.sub(1.0, t.mul(x, x))))
unary(np.exp, lambda t, y, x: y)
unary(np.exp2, lambda t, y, x: t.mul(y, np.log(2.0)))
unary(np.expm1, lambda t, y, x: t.call(np.exp, x))
unary(np.log, lambda t, y, x: t.div(1.0, x))
unary(np.log2, lambda t, y, x: t.div(1.0, t.mul(x, np.log(2.0))))
unary(np.log10, lambda t, y, x: t.div(1.0, t.mul(x, np.log(10.0))))
unary(np.log1p, lambda t, y, x: t.div(1.0, t.add(1.0, x)))
unary(np.sqrt, lambda t, y, x: t.div(0.5, y))
unary(np.cbrt, lambda t, y, x: t.div(1.0, t.mul(3.0, t.mul(y, y))))
unary(np.square, lambda t, y, x: t.mul(2.0, x))
unary(np.reciprocal, lambda t, y, x: t.neg(t.mul(y, y)))
defjvp(np.abs, lambda t, y, x, *a, **k: t.call(abs_tangent, x, t.d(x)) if t.d(x) is not None else None)
defvjp(np.abs, lambda t, g, y, x, *a, **k: (t.mul(g, t.call(np.sign, x)),))
unary(np.fabs, lambda t, y, x: t.call(np.sign, x))
defjvp(np.negative, lambda t, y, x: t.neg(t.d(x)))
defjvp(np.positive, lambda t, y, x: t.d(x))
defjvp(np.conjugate, lambda t, y, x: t.lin(np.conjugate, t.d(x)))
defjvp(np.real, lambda t, y, x: t.lin(np.real, t.d(x)))
defjvp(np.imag, lambda t, y, x: t.lin(np.imag, t.d(x)))

# ------------------------------------------------------------------ elementwise, two arguments
defjvp(np.add, lambda t, y, a, b, **k: t.add(t.d(a), t.d(b)))
defjvp(np.subtract, lambda t, y, a, b, **k: t.sub(t.d(a), t.d(b)))
defjvp(np.multiply, lambda t, y, a, b, **k: t.add(t.mul(t.d(a), b), t.mul(a, t.d(b))))
defjvp(np.divide, lambda t, y, a, b, **k: t.div(t.sub(t.d(a), t.mul(y, t.d(b))), b))
defjvp(np.power, lambda t, y, a, b, **k: t.add(
    t.mul(t.d(a), t.call(h.pow_deriv, a, b)),
    t.mul(t.d(b), t.mul(y, t.call(h.log_for_pow, a)))))
defjvp(np.maximum, lambda t, y, a, b, **k: t.call(np.where, t.call(np.greater_equal, a, b), t.dz(a), t.dz(b)))
defjvp(np.minimum, lambda t, y, a, b, **k: t.call(np.where, t.call(np.less_equal, a, b), t.dz(a), t.dz(b)))
defjvp(np.fmax, lambda t, y, a, b, **k: t.call(np.where, t.call(fmax_first, a, b), t.dz(a), t.dz(b)))
defjvp(np.fmin, lambda t, y, a, b, **k: t.call(np.where, t.call(fmin_first, a, b), t.dz(a), t.dz(b)))
defjvp(np.arctan2, lambda t, y, a, b, **k: t.div(t.sub(t.mul(t.d(a), b), t.mul(a, t.d(b))), t.add(t.mul(a, a), t.mul(b, b))))
defjvp(np.hypot, lambda t, y, a, b, **k: t.add(t.mul(t.d(a), t.div(a, y)), t.mul(t.d(b), t.div(b, y))))
defjvp(np.logaddexp, lambda t, y, a, b, **k: t.add(t.mul(t.d(a), t.call(np.exp, t.sub(a, y))), t.mul(t.d(b), t.call(np.exp, t.sub(b, y)))))
defjvp(np.where, lambda t, y, c, a=None, b=None: t.call(np.where, c, t.dz(a), t.dz(b)) if (t.d(a) is not None or t.d(b) is not None) else None)
defjvp(np.clip, lambda t, y, x, *a, **k: _clip_jvp(t, x, *_clip_bounds(a, k)))


def abs_tangent(x, dx):
    """d|x| = sign(x) dx, 0 at x == 0; for complex x the real Re(conj(x) dx) / |x|."""
    if np.iscomplexobj(x):
        return np.real(np.conjugate(np.sign(x)) * dx)
    return dx * np.sign(x)


def fmax_first(a, b):
    """Where np.fmax takes its first argument: a >= b (ties: the first), or b is NaN."""
    return np.logical_or(np.greater_equal(a, b), np.isnan(b))


def fmin_first(a, b):
    return np.logical_or(np.less_equal(a, b), np.isnan(b))


def _clip_bounds(a, k):
    """The bounds of np.clip / ndarray.clip however they were passed: positionally, a_min/a_max or min/max."""
    lo = a[0] if len(a) > 0 else k.get("a_min", k.get("min", None))
    hi = a[1] if len(a) > 1 else k.get("a_max", k.get("max", None))
    return lo, hi


def _clip_jvp(t, x, lo, hi):
    if t.d(x) is None and t.d(lo) is None and t.d(hi) is None:
        return None
    return t.call(clip_tangent, x, lo, hi, t.dz(x), t.dz(lo), t.dz(hi))


def clip_tangent(x, lo, hi, dx, dlo, dhi):
    """Tangent of clip(x, lo, hi) = min(max(x, lo), hi): dx inside, a bound's tangent where it is active.

    Ties go inside the interval (x == lo takes dx); with lo > hi NumPy returns hi, and so does the tangent.
    """
    out = np.where(True, dx, 0.0)
    m = x
    if lo is not None:
        out = np.where(np.less(x, lo), dlo, out)
        m = np.maximum(x, lo)
    if hi is not None:
        out = np.where(np.greater(m, hi), dhi, out)
    return out[()] if out.ndim == 0 else out


def _clip_vjp(t, g, x, a, k, name):
    _refuse_keywords(t, name, **{key: v for key, v in k.items() if key in ("a_min", "a_max", "min", "max")})
    lo, hi = _clip_bounds(a, k)
    return _split(t, t.call(clip_vjp, g, x, lo, hi), 3)[:1 + len(a)]


def _split(t, both, n):
    """The n parts of a helper's tuple result (unpacked in one statement in generated code)."""
    if hasattr(both, "tuple_size"):
        both.tuple_size = n
    return tuple(t.call(operator.getitem, both, i) for i in range(n))


def _unb(g, like):
    from ..reverse.adjoints import unbroadcast

    return unbroadcast(g, like)


def clip_vjp(g, x, lo, hi):
    """Adjoints of clip(x, lo, hi) for x, lo and hi (the reverse of clip_tangent)."""
    if g is NoTangent:
        return NoTangent, NoTangent, NoTangent
    gx = np.where(True, g, 0.0)
    m = x
    g_lo = g_hi = NoTangent
    if hi is not None:
        m = np.maximum(x, lo) if lo is not None else x
        above = np.greater(m, hi)
        g_hi = _unb(np.where(above, gx, 0.0), hi)
        gx = np.where(above, 0.0, gx)
    if lo is not None:
        below = np.less(x, lo)
        g_lo = _unb(np.where(below, gx, 0.0), lo)
        gx = np.where(below, 0.0, gx)
    return _unb(gx, x), g_lo, g_hi


# ------------------------------------------------------------------ reductions
defjvp(np.sum, lambda t, y, x, axis=None, **k: t.lin(np.sum, t.d(x), axis=axis, **k))
defjvp(np.mean, lambda t, y, x, axis=None, **k: t.lin(np.mean, t.d(x), axis=axis, **k))
defjvp(np.cumsum, lambda t, y, x, axis=None, **k: t.lin(np.cumsum, t.d(x), axis=axis, **k))
defjvp(np.max, lambda t, y, x, axis=None, keepdims=False, **k: t.call(extremum_tangent, x, y, t.d(x), axis, keepdims, *_where(k)) if t.d(x) is not None else None)
defjvp(np.min, lambda t, y, x, axis=None, keepdims=False, **k: t.call(extremum_tangent, x, y, t.d(x), axis, keepdims, *_where(k)) if t.d(x) is not None else None)
defjvp(np.prod, lambda t, y, x, axis=None, keepdims=False: t.call(prod_tangent, x, t.d(x), axis, keepdims) if t.d(x) is not None else None)


def _where(k):
    """The `where=` of a reduction, as extra helper arguments (none when not given, so the common call stays short)."""
    return [k["where"]] if "where" in k else []


def _first_extremum(x, y, axis, keepdims, where=True):
    """A mask of the first position attaining the max/min y along axis (NaN matches NaN); all False where
    nothing attains it (an `initial=` value won)."""
    x = np.asarray(x)
    yk = np.asarray(y)
    if axis is not None and not keepdims:
        yk = np.expand_dims(yk, axis)
    hit = x == yk
    if x.dtype.kind in "fc":
        hit = hit | (np.isnan(x) & np.isnan(yk))
    if where is not True:
        hit = hit & np.asarray(where)
    hit = np.broadcast_to(hit, x.shape)
    axes = tuple(range(x.ndim)) if axis is None else ((axis,) if np.ndim(axis) == 0 else tuple(axis))
    axes = tuple(a % x.ndim for a in axes) if x.ndim else ()
    if not axes:
        return np.array(hit)
    moved = np.moveaxis(hit, axes, tuple(range(-len(axes), 0)))
    flat = moved.reshape(moved.shape[: moved.ndim - len(axes)] + (-1,))
    first = np.argmax(flat, axis=-1)[..., None]
    mask = np.zeros(flat.shape, dtype=bool)
    np.put_along_axis(mask, first, True, axis=-1)
    mask &= flat
    return np.moveaxis(mask.reshape(moved.shape), tuple(range(-len(axes), 0)), axes)


def extremum_tangent(x, y, dx, axis, keepdims, where=True):
    """Tangent of max/min: the tangent at the first position attaining the extremum."""
    mask = _first_extremum(x, y, axis, keepdims, where)
    out = np.sum(np.where(mask, dx, 0.0), axis=axis, keepdims=keepdims)
    return out[()] if isinstance(out, np.ndarray) and out.ndim == 0 else out


def prod_tangent(x, dx, axis, keepdims):
    """Sum over i of dx_i * prod_{j != i} x_j, exact also when some x_j are zero."""
    x = np.asarray(x, dtype=float)
    dx = np.broadcast_to(dx, x.shape)
    ax = tuple(range(x.ndim)) if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
    total = 0.0
    moved = np.moveaxis(x, ax, tuple(range(-len(ax), 0)))
    dmoved = np.moveaxis(dx, ax, tuple(range(-len(ax), 0)))
    flat = moved.reshape(moved.shape[: moved.ndim - len(ax)] + (-1,))
    dflat = dmoved.reshape(flat.shape)
    n = flat.shape[-1]
    for i in range(n):
        others = np.prod(np.delete(flat, i, axis=-1), axis=-1)
        total = total + dflat[..., i] * others
    if keepdims:
        for a in sorted(a % x.ndim for a in ax):
            total = np.expand_dims(total, a)
    return total


# ------------------------------------------------------------------ products
defjvp(np.dot, lambda t, y, a, b: t.add(t.lin(np.dot, t.d(a), b), t.linr(np.dot, a, t.d(b))))
defjvp(np.matmul, lambda t, y, a, b: t.add(t.lin(np.matmul, t.d(a), b), t.linr(np.matmul, a, t.d(b))))
defjvp(np.inner, lambda t, y, a, b: t.add(t.lin(np.inner, t.d(a), b), t.linr(np.inner, a, t.d(b))))
defjvp(np.outer, lambda t, y, a, b: t.add(t.lin(np.outer, t.d(a), b), t.linr(np.outer, a, t.d(b))))

# ------------------------------------------------------------------ shapes and copies (linear)
for _fn in (np.reshape, np.transpose, np.ravel, np.squeeze, np.expand_dims, np.swapaxes, np.moveaxis,
            np.broadcast_to, np.flip, np.roll, np.tile, np.repeat, np.diag, np.copy, np.atleast_1d,
            np.atleast_2d, np.triu, np.tril, np.fliplr, np.flipud, np.rot90, np.diagonal):
    defjvp(_fn, lambda t, y, x, *a, _fn=_fn, **k: t.lin(_fn, t.d(x), *a, **k))
# np.trace and np.take take `out=`: the tangent must not be written into the primal's buffer.
defjvp(np.trace, lambda t, y, x, *a, **k: t.lin(np.trace, t.d(x), *a, **_no_out(t, "np.trace", k)))
defjvp(np.take, lambda t, y, x, *a, **k: t.lin(np.take, t.d(x), *a, **_no_out(t, "np.take", k)))


def _no_out(t, name, k):
    """Keyword arguments without `out=` (a call writing into `out=` is refused when it runs)."""
    if "out" in k:
        _keep(t.call(out_unsupported, name, k["out"]))
    return {key: v for key, v in k.items() if key != "out"}


def _keep(stmt):
    """Mark a generated check as needed although nothing reads its result (dead-code removal keeps it)."""
    for attr in ("effect", "keep"):
        try:
            setattr(stmt, attr, True)
        except AttributeError:  # run time: the check already ran
            pass
    return stmt


def out_unsupported(name, out):
    if out is not None:
        raise NotImplementedError(f"derivative of {name} with out=: assign the result instead")
defjvp(np.array, lambda t, y, x, *a, **k: t.call(array_tangent, y, x, t.d(x)) if t.d(x) is not None else None)
defjvp(np.asarray, lambda t, y, x, *a, **k: t.call(asarray_tangent, y, x, t.d(x)) if t.d(x) is not None else None)
defjvp(np.concatenate, lambda t, y, xs, axis=0, **k: t.call(join_tangent, np.concatenate, xs, t.d(xs), axis) if t.d(xs) is not None else None)
defjvp(np.stack, lambda t, y, xs, axis=0, **k: t.call(join_tangent, np.stack, xs, t.d(xs), axis) if t.d(xs) is not None else None)
defjvp(np.vstack, lambda t, y, xs, **k: t.call(join_tangent, np.vstack, xs, t.d(xs), None) if t.d(xs) is not None else None)
defjvp(np.hstack, lambda t, y, xs, **k: t.call(join_tangent, np.hstack, xs, t.d(xs), None) if t.d(xs) is not None else None)


def array_tangent(y, x, dx):
    if y.dtype.kind not in "fc":
        return _no()
    return np.array(_dense(x, dx), dtype=y.dtype)


def asarray_tangent(y, x, dx):
    if y is x:
        return dx
    return array_tangent(y, x, dx)


def _no():
    from ..tangents import NoTangent

    return NoTangent


def _dense(x, dx):
    """A tangent that NumPy can make an array of: symbolic zeros become zeros shaped like x."""
    from ..tangents import NoTangent, materialize

    return materialize(dx, x) if _has_no(dx) else dx


def _has_no(dx):
    from ..tangents import NoTangent

    if dx is NoTangent:
        return True
    if isinstance(dx, (list, tuple)):
        return any(_has_no(d) for d in dx)
    return False


def join_tangent(join, xs, dxs, axis):
    parts = [np.asarray(_dense(x, d), dtype=float) for x, d in zip(xs, dxs)]
    return join(parts) if join in (np.vstack, np.hstack) else join(parts, axis=axis)


# ------------------------------------------------------------------ linear algebra
defjvp(np.linalg.norm, lambda t, y, x, ord=None, axis=None, keepdims=False: t.call(norm_tangent, x, y, t.d(x), ord, axis, keepdims) if t.d(x) is not None else None)
defjvp(np.linalg.inv, lambda t, y, a: t.neg(t.call(np.matmul, y, t.lin(np.matmul, t.d(a), y))))
defjvp(np.linalg.solve, lambda t, y, a, b: t.call(solve_tangent, a, b, y, t.dz(a), t.dz(b)) if (t.d(a) is not None or t.d(b) is not None) else None)


def solve_tangent(a, b, y, da, db):
    """x = solve(a, b): dx = solve(a, db - da x).  A 1-D b is one vector, also against a stack of a's."""
    rhs = 0.0 if db is NoTangent else np.asarray(db)
    if da is not NoTangent:
        rhs = rhs - (np.matmul(da, np.asarray(y)[..., None])[..., 0] if np.ndim(b) == 1 else np.matmul(da, y))
    rhs = np.broadcast_to(rhs, np.shape(y))
    if np.ndim(b) == 1:
        return np.linalg.solve(a, rhs[..., None])[..., 0]
    return np.linalg.solve(a, rhs)
defjvp(np.linalg.det, lambda t, y, a: t.mul(y, t.call(np.trace, t.call(np.linalg.solve, a, t.d(a)), axis1=-2, axis2=-1)) if t.d(a) is not None else None)


def _norm_gradient(x, ord, axis):
    """G with the shape of x such that d norm(x) = sum(G * dx) over the reduced axes, and those axes.

    Vector norms (ord None/2, 1, any p, inf, -inf, 0) and matrix norms ('fro', 'nuc', 2, -2, 1, -1, inf,
    -inf).  At kinks the documented choices: 0 where the norm or an entry is 0 (no direction is
    preferred), the first position attaining a max/min; matrix 2-norms need a simple extreme singular value.
    """
    x = np.asarray(x)
    if axis is None:
        if ord is None:
            axes, kind = tuple(range(x.ndim)), "euclid"
        else:
            axes, kind = ((0,), "vec") if x.ndim == 1 else ((0, 1), "mat")
    else:
        axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
        axes = tuple(int(a) % x.ndim for a in axes)
        kind = "vec" if len(axes) == 1 else "mat"
    xf = x.astype(float) if x.dtype.kind not in "fc" else x
    y = np.linalg.norm(xf, ord=ord, axis=axis, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        if kind == "euclid" or (kind == "vec" and ord in (None, 2)) or (kind == "mat" and ord in (None, "fro")):
            return np.where(y == 0, 0.0, xf / np.where(y == 0, 1.0, y)), axes
        if kind == "vec":
            if ord == 0:
                return np.zeros(x.shape), axes
            if ord in (np.inf, -np.inf):
                return np.sign(xf) * _first_along(np.abs(xf) == y, axes[0]), axes
            p = float(ord)
            a = np.abs(xf)
            grad = np.sign(xf) * (a / np.where(y == 0, 1.0, y)) ** (p - 1)
            return np.where((xf == 0) | (y == 0), 0.0, grad), axes
        xm = np.moveaxis(xf, axes, (-2, -1))
        if ord == "nuc":
            u, _, vh = np.linalg.svd(xm, full_matrices=False)
            gm = u @ vh
        elif ord in (2, -2):
            u, _, vh = np.linalg.svd(xm, full_matrices=False)
            k = 0 if ord == 2 else -1
            gm = u[..., :, [k]] @ vh[..., [k], :]
        elif ord in (1, -1, np.inf, -np.inf):
            along = -2 if ord in (1, -1) else -1  # 1: column sums (over rows); inf: row sums
            sums = np.sum(np.abs(xm), axis=along, keepdims=True)
            best = np.max(sums, axis=-1 if along == -2 else -2, keepdims=True) if ord in (1, np.inf) else \
                np.min(sums, axis=-1 if along == -2 else -2, keepdims=True)
            pick = _first_along(np.broadcast_to(sums == best, sums.shape), -1 if along == -2 else -2)
            gm = np.sign(xm) * pick
        else:
            raise NotImplementedError(f"derivative of np.linalg.norm with ord={ord!r} for matrices")
        return np.moveaxis(gm, (-2, -1), axes), axes


def _first_along(hit, axis):
    """A mask of the first True along axis (all False where there is none)."""
    first = np.argmax(hit, axis=axis)
    mask = np.zeros(hit.shape, dtype=bool)
    np.put_along_axis(mask, np.expand_dims(first, axis), True, axis=axis)
    return mask & hit


def norm_tangent(x, y, dx, ord, axis, keepdims):
    grad, axes = _norm_gradient(x, ord, axis)
    out = np.sum(grad * dx, axis=axes, keepdims=keepdims)
    return out[()] if out.ndim == 0 else out


# ------------------------------------------------------------------ not differentiable
defzero(np.zeros, np.ones, np.empty, np.zeros_like, np.ones_like, np.empty_like, np.eye, np.identity,
        np.shape, np.ndim, np.size, np.argmax, np.argmin, np.argsort, np.sign, np.floor, np.ceil,
        np.round, np.rint, np.trunc, np.isnan, np.isinf, np.isfinite, np.greater, np.less, np.equal,
        np.not_equal, np.greater_equal, np.less_equal, np.logical_and, np.logical_or, np.logical_not,
        np.all, np.any, np.nonzero, np.count_nonzero, np.allclose, np.isclose, np.array_equal, np.searchsorted)


def _bind(names, a, k):
    """A template's operands by parameter name (positional ones first, then keywords)."""
    out = dict(zip(names, a))
    out.update(k)
    return out


def _refuse_keywords(t, name, **kw):
    """Templates return adjoints for positional arguments only: a differentiated keyword argument is
    refused (NotImplementedError when the pullback runs) rather than silently given a zero adjoint."""
    needs = getattr(t, "needs", None)
    live = [v for v in kw.values() if needs is None or needs(v)]
    if live:
        _keep(t.call(keyword_adjoint_unsupported, name, *live))


def keyword_adjoint_unsupported(name, *values):
    from ..reverse.runtime import _nondifferentiable

    if not all(_nondifferentiable(v) for v in values):
        raise NotImplementedError(f"reverse mode of {name} with a differentiated keyword argument: pass it positionally")


# np.full(shape, fill_value), np.full_like(a, fill_value): linear in the fill value.
defjvp(np.full, lambda t, y, *a, **k: _fill_jvp(t, y, _bind(("shape", "fill_value"), a, k).get("fill_value")))
defvjp(np.full, lambda t, g, y, *a, **k: _fill_vjp(t, g, y, a, k, "np.full"))
defjvp(np.full_like, lambda t, y, *a, **k: _fill_jvp(t, y, _bind(("a", "fill_value"), a, k).get("fill_value")))
defvjp(np.full_like, lambda t, g, y, *a, **k: _fill_vjp(t, g, y, a, k, "np.full_like"))


def _fill_jvp(t, y, v):
    return t.call(full_tangent, y, t.d(v)) if t.d(v) is not None else None


def _fill_vjp(t, g, y, a, k, name):
    if len(a) > 1:
        return (None, t.call(full_adjoint, y, g, a[1]))
    _refuse_keywords(t, name, **{key: v for key, v in k.items() if key == "fill_value"})
    return ()


def full_tangent(y, dv):
    if np.asarray(y).dtype.kind not in "fc":
        return NoTangent  # an integer array: the fill value was truncated
    return np.full_like(y, dv)


def full_adjoint(y, g, v):
    if g is NoTangent or np.asarray(y).dtype.kind not in "fc":
        return NoTangent
    return _unb(g, v)


# np.arange(start, stop, step): y[i] = start + i * step (stop only decides the length).
defjvp(np.arange, lambda t, y, *a, **k: _arange_jvp(t, y, *_arange_args(a, k)))
defvjp(np.arange, lambda t, g, y, *a, **k: _arange_vjp(t, g, y, a, k))


def _arange_args(a, k):
    if len(a) == 1 and "stop" not in k:
        return k.get("start"), k.get("step")
    b = _bind(("start", "stop", "step"), a, k)
    return b.get("start"), b.get("step")


def _arange_jvp(t, y, start, step):
    if t.d(start) is None and t.d(step) is None:
        return None
    return t.call(arange_tangent, y, t.dz(start), t.dz(step))


def _arange_vjp(t, g, y, a, k):
    _refuse_keywords(t, "np.arange", **{key: v for key, v in k.items() if key in ("start", "step")})
    if len(a) < 2:
        return ()
    return (t.call(arange_adjoint, y, g, a[0], 0), None) + ((t.call(arange_adjoint, y, g, a[2], 2),) if len(a) > 2 else ())


def arange_tangent(y, dstart, dstep):
    y = np.asarray(y)
    if y.dtype.kind not in "fc":
        return NoTangent
    out = np.zeros(y.shape, dtype=y.dtype)
    if dstart is not NoTangent:
        out = out + dstart
    if dstep is not NoTangent:
        out = out + np.arange(y.size) * dstep
    return out


def arange_adjoint(y, g, x, which):
    if g is NoTangent or np.asarray(y).dtype.kind not in "fc":
        return NoTangent
    g = np.asarray(g)
    return _unb(np.sum(g) if which == 0 else np.sum(g * np.arange(g.size)), x)


# np.linspace(start, stop, num, endpoint, retstep, dtype, axis): y = start + w * (stop - start).
_LINSPACE = ("start", "stop", "num", "endpoint", "retstep", "dtype", "axis")
defjvp(np.linspace, lambda t, y, *a, **k: _linspace_jvp(t, y, _bind(_LINSPACE, a, k)))
defvjp(np.linspace, lambda t, g, y, *a, **k: _linspace_vjp(t, g, y, a, k))


def _linspace_jvp(t, y, b):
    start, stop = b.get("start"), b.get("stop")
    if t.d(start) is None and t.d(stop) is None:
        return None
    return t.call(linspace_tangent, y, t.dz(start), t.dz(stop), b.get("num", 50), b.get("endpoint", True),
                  b.get("axis", 0), b.get("retstep", False))


def _linspace_vjp(t, g, y, a, k):
    _refuse_keywords(t, "np.linspace", **{key: v for key, v in k.items() if key in ("start", "stop")})
    b = _bind(_LINSPACE, a, k)
    args = (y, g, b.get("start"), b.get("stop"), b.get("num", 50), b.get("endpoint", True), b.get("axis", 0), b.get("retstep", False))
    return tuple(t.call(linspace_adjoint, *args, which) for which in range(min(len(a), 2)))


def _linspace_weights(num, endpoint, ndim):
    w = np.linspace(0.0, 1.0, num, endpoint=endpoint)
    return w.reshape((-1,) + (1,) * (ndim - 1))


def _linspace_div(num, endpoint):
    return (num - 1 if endpoint else num) or np.nan


def linspace_tangent(y, dstart, dstop, num=50, endpoint=True, axis=0, retstep=False):
    samples = np.asarray(y[0] if retstep else y)
    if samples.dtype.kind not in "fc":
        return (NoTangent, NoTangent) if retstep else NoTangent
    w = _linspace_weights(num, endpoint, samples.ndim)
    d0 = 0.0 if dstart is NoTangent else np.asarray(dstart)
    d1 = 0.0 if dstop is NoTangent else np.asarray(dstop)
    d = (1.0 - w) * d0 + w * d1
    d = np.broadcast_to(d, np.moveaxis(samples, axis, 0).shape)
    d = np.moveaxis(d, 0, axis).copy()
    if retstep:
        return d, (d1 - d0) / _linspace_div(num, endpoint)
    return d


def linspace_adjoint(y, g, start, stop, num=50, endpoint=True, axis=0, retstep=False, which=0):
    """The adjoint of start (which=0) or stop (which=1)."""
    if g is NoTangent:
        return NoTangent
    samples = np.asarray(y[0] if retstep else y)
    if samples.dtype.kind not in "fc":
        return NoTangent
    gs, gstep = (g[0], g[1]) if retstep else (g, NoTangent)
    total = 0.0
    if gs is not NoTangent:
        w = _linspace_weights(num, endpoint, samples.ndim)
        gm = np.moveaxis(np.asarray(gs), axis, 0)
        total = np.sum((w if which else 1.0 - w) * gm, axis=0)
    if gstep is not NoTangent:
        total = total + (1.0 if which else -1.0) * np.asarray(gstep) / _linspace_div(num, endpoint)
    return _unb(np.asarray(total, dtype=float), start if which == 0 else stop)


def linspace_weight(num, upper, endpoint=True, **_):
    w = np.linspace(0.0, 1.0, num, endpoint=endpoint)
    return w if upper else 1.0 - w


# ------------------------------------------------------------------ array methods (self first)
nd = np.ndarray
defmethod(nd, "sum", lambda t, y, x, axis=None, **k: t.lin(np.sum, t.d(x), axis=axis, **k))
defmethod(nd, "mean", lambda t, y, x, axis=None, **k: t.lin(np.mean, t.d(x), axis=axis, **k))
defmethod(nd, "cumsum", lambda t, y, x, axis=None, **k: t.lin(np.cumsum, t.d(x), axis=axis, **k))
defmethod(nd, "dot", lambda t, y, a, b: t.add(t.lin(np.dot, t.d(a), b), t.linr(np.dot, a, t.d(b))))
defmethod(nd, "reshape", lambda t, y, x, *shape, **k: t.lin(reshape_tangent, t.d(x), *shape, **k))
defmethod(nd, "transpose", lambda t, y, x, *axes: t.lin(transpose_tangent, t.d(x), *axes))
defmethod(nd, "copy", lambda t, y, x, *a, **k: t.lin(np.copy, t.d(x)))
defmethod(nd, "ravel", lambda t, y, x, *a, **k: t.lin(np.ravel, t.d(x), *a, **k))
defmethod(nd, "flatten", lambda t, y, x, *a, **k: t.lin(flatten_tangent, t.d(x), *a, **k))
defmethod(nd, "squeeze", lambda t, y, x, *a, **k: t.lin(np.squeeze, t.d(x), *a, **k))
defmethod(nd, "max", lambda t, y, x, axis=None, keepdims=False, **k: t.call(extremum_tangent, x, y, t.d(x), axis, keepdims, *_where(k)) if t.d(x) is not None else None)
defmethod(nd, "min", lambda t, y, x, axis=None, keepdims=False, **k: t.call(extremum_tangent, x, y, t.d(x), axis, keepdims, *_where(k)) if t.d(x) is not None else None)
defmethod(nd, "prod", lambda t, y, x, axis=None, keepdims=False: t.call(prod_tangent, x, t.d(x), axis, keepdims) if t.d(x) is not None else None)
defmethod(nd, "astype", lambda t, y, x, dtype, *a, **k: t.call(astype_tangent, y, t.d(x)) if t.d(x) is not None else None)
defmethod(nd, "item", lambda t, y, x, *a: t.call(item_tangent, t.d(x), *a) if t.d(x) is not None else None)
defmethod(nd, "tolist", lambda t, y, x: t.call(tolist_tangent, t.d(x)) if t.d(x) is not None else None)
defmethod(nd, "clip", lambda t, y, x, *a, **k: _clip_jvp(t, x, *_clip_bounds(a, k)))
defmethod(nd, "fill", lambda t, y, x, v: t.call(fill_tangent, t.d(x), t.dz(v)) if t.d(x) is not None else None, mutates=(0,))
defzero(*[(nd, _name) for _name in ("argmax", "argmin", "argsort", "nonzero", "all", "any", "__len__", "round")])


def reshape_tangent(dx, *shape, **k):
    return np.reshape(dx, shape[0] if len(shape) == 1 else shape, **k)


def transpose_tangent(dx, *axes):
    return np.transpose(dx, axes[0] if len(axes) == 1 else (axes or None))


def flatten_tangent(dx, *a, **k):
    return np.array(dx).flatten(*a, **k)


def astype_tangent(y, dx):
    if y.dtype.kind not in "fc":
        return _no()
    return np.asarray(dx).astype(y.dtype)


def item_tangent(dx, *a):
    return np.asarray(dx).item(*a)


def tolist_tangent(dx):
    return np.asarray(dx).tolist()


def fill_tangent(dx, dv):
    dx.fill(float(dv))


# ------------------------------------------------------------------ unbuffered in-place ufunc methods
defjvp(np.add.at, lambda t, y, a, idx, b=None: t.call(np.add.at, t.d(a), idx, t.d(b)) if t.d(a) is not None and t.d(b) is not None else None, mutates=(0,))
defjvp(np.subtract.at, lambda t, y, a, idx, b=None: t.call(np.subtract.at, t.d(a), idx, t.d(b)) if t.d(a) is not None and t.d(b) is not None else None, mutates=(0,))


# ------------------------------------------------------------------ statistics
defjvp(np.var, lambda t, y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False: t.call(var_tangent, x, t.d(x), axis, ddof, keepdims) if t.d(x) is not None else None)
defjvp(np.std, lambda t, y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False: t.call(std_tangent, x, y, t.d(x), axis, ddof, keepdims) if t.d(x) is not None else None)
defmethod(nd, "var", lambda t, y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False: t.call(var_tangent, x, t.d(x), axis, ddof, keepdims) if t.d(x) is not None else None)
defmethod(nd, "std", lambda t, y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False: t.call(std_tangent, x, y, t.d(x), axis, ddof, keepdims) if t.d(x) is not None else None)
defjvp(np.split, lambda t, y, x, *a, **k: t.call(split_tangent, np.split, t.d(x), *a, **k) if t.d(x) is not None else None)
defjvp(np.array_split, lambda t, y, x, *a, **k: t.call(split_tangent, np.array_split, t.d(x), *a, **k) if t.d(x) is not None else None)
defjvp(np.asanyarray, lambda t, y, x, *a, **k: t.call(asarray_tangent, y, x, t.d(x)) if t.d(x) is not None else None)


def var_tangent(x, dx, axis, ddof, keepdims):
    """d var = 2/(N - ddof) * sum((x - mean) * dx): the mean's own change sums to zero."""
    x = np.asarray(x)
    n = x.size if axis is None else np.prod([x.shape[a] for a in np.atleast_1d(axis)])
    centred = x - x.mean(axis=axis, keepdims=True)
    return 2.0 / (n - ddof) * np.sum(centred * np.broadcast_to(dx, x.shape), axis=axis, keepdims=keepdims)


def std_tangent(x, y, dx, axis, ddof, keepdims):
    with np.errstate(divide="ignore", invalid="ignore"):
        return var_tangent(x, dx, axis, ddof, keepdims) / (2.0 * (y if keepdims or axis is None else y))


def split_tangent(split, dx, *a, **k):
    from ..tangents import NoTangent

    return split(np.asarray(dx), *a, **k) if dx is not NoTangent else NoTangent


# ================================================================== reverse rules
defvjp(np.negative, lambda t, g, y, x: (t.neg(g),))
defvjp(np.positive, lambda t, g, y, x: (g,))
defvjp(np.add, lambda t, g, y, a, b, **k: (t.unb(g, a), t.unb(g, b)))
defvjp(np.subtract, lambda t, g, y, a, b, **k: (t.unb(g, a), t.unb(t.neg(g), b)))
defvjp(np.multiply, lambda t, g, y, a, b, **k: (t.unb(t.mul(g, b), a), t.unb(t.mul(g, a), b)))
defvjp(np.divide, lambda t, g, y, a, b, **k: (t.unb(t.div(g, b), a), t.unb(t.neg(t.div(t.mul(g, y), b)), b)))
defvjp(np.power, lambda t, g, y, a, b, **k: (t.unb(t.mul(g, t.call(h.pow_deriv, a, b)), a),
                                             t.unb(t.mul(g, t.mul(y, t.call(h.log_for_pow, a))), b)))
defvjp(np.maximum, lambda t, g, y, a, b, **k: (t.unb(t.call(np.where, t.call(np.greater_equal, a, b), g, 0.0), a),
                                               t.unb(t.call(np.where, t.call(np.greater_equal, a, b), 0.0, g), b)))
defvjp(np.minimum, lambda t, g, y, a, b, **k: (t.unb(t.call(np.where, t.call(np.less_equal, a, b), g, 0.0), a),
                                               t.unb(t.call(np.where, t.call(np.less_equal, a, b), 0.0, g), b)))
defvjp(np.where, lambda t, g, y, c, a=None, b=None: (None, t.unb(t.call(np.where, c, g, 0.0), a), t.unb(t.call(np.where, c, 0.0, g), b))
       if a is not None else (None,))
defvjp(np.sum, lambda t, g, y, x, axis=None, **k: (t.call(sum_adjoint, x, g, axis, k.get("keepdims", False), *_where(k)),))
defvjp(np.mean, lambda t, g, y, x, axis=None, **k: (t.call(mean_adjoint, x, g, axis, k.get("keepdims", False), *_where(k)),))
defvjp(np.dot, lambda t, g, y, a, b: (t.call(dot_adjoint_a, g, a, b), t.call(dot_adjoint_b, g, a, b)))
defvjp(np.matmul, lambda t, g, y, a, b: (t.call(matmul_adjoint_a, g, a, b), t.call(matmul_adjoint_b, g, a, b)))
defvjp_method(nd, "sum", lambda t, g, y, x, axis=None, **k: (t.call(sum_adjoint, x, g, axis, k.get("keepdims", False), *_where(k)),))
defvjp_method(nd, "mean", lambda t, g, y, x, axis=None, **k: (t.call(mean_adjoint, x, g, axis, k.get("keepdims", False), *_where(k)),))
defvjp_method(nd, "dot", lambda t, g, y, a, b: (t.call(dot_adjoint_a, g, a, b), t.call(dot_adjoint_b, g, a, b)))


def sum_adjoint(x, g, axis=None, keepdims=False, where=True):
    """Spread g back over the summed axes (only onto the positions `where=` selected)."""
    if g is NoTangent:
        return NoTangent
    if where is not True:
        return np.where(where, sum_adjoint(x, g, axis, keepdims), 0.0)
    if axis is None and np.ndim(g) == 0:
        return np.full(np.shape(x), g, dtype=float)
    x = np.asarray(x)
    g = np.asarray(g, dtype=float)
    if axis is not None and not keepdims:
        g = np.expand_dims(g, axis)
    return np.broadcast_to(g, x.shape).copy()


def mean_adjoint(x, g, axis=None, keepdims=False, where=True):
    if g is NoTangent:
        return NoTangent
    if where is not True:
        x = np.asarray(x)
        count = np.sum(np.broadcast_to(where, x.shape), axis=axis, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(where, sum_adjoint(x, g, axis, keepdims) / count, 0.0)
    if axis is None and np.ndim(g) == 0:
        return np.full(np.shape(x), g / np.size(x), dtype=float)
    x = np.asarray(x)
    n = x.size if axis is None else np.prod([x.shape[a] for a in np.atleast_1d(axis)])
    return sum_adjoint(x, g, axis, keepdims) / n


def dot_adjoint_a(g, a, b):
    """np.dot(a, b) sums a's last axis against b's second-to-last (its only one if b is a vector)."""
    if g is NoTangent:
        return NoTangent
    a, b, g = np.asarray(a), np.asarray(b), np.asarray(g)
    if a.ndim == 0 or b.ndim == 0:
        return (g * b).sum() if a.ndim == 0 else g * b
    if b.ndim == 1:
        return np.multiply.outer(g, b) if a.ndim > 1 else g * b
    if b.ndim == 2:
        return np.dot(g, b.T) if a.ndim > 1 or g.ndim else g * b
    # y[i.., k.., m] = sum_n a[i.., n] b[k.., n, m]: contract g's (k.., m) with b's (k.., m)
    gk = list(range(a.ndim - 1, g.ndim))
    bk = list(range(b.ndim - 2)) + [b.ndim - 1]
    return np.tensordot(g, b, axes=(gk, bk))


def dot_adjoint_b(g, a, b):
    if g is NoTangent:
        return NoTangent
    a, b, g = np.asarray(a), np.asarray(b), np.asarray(g)
    if a.ndim == 0 or b.ndim == 0:
        return (g * a).sum() if b.ndim == 0 else g * a
    if a.ndim == 1:
        out = np.multiply.outer(a, g) if b.ndim > 1 else g * a
    else:
        out = np.tensordot(a, g, axes=(list(range(a.ndim - 1)), list(range(a.ndim - 1))))
    return np.moveaxis(out, 0, -2) if b.ndim > 2 else out  # (n, k.., m) -> (k.., n, m)


def matmul_adjoint_a(g, a, b):
    a, b, g = np.asarray(a), np.asarray(b), np.asarray(g)
    if a.ndim == 2 and b.ndim == 2:
        return g @ b.T
    if a.ndim == 2 and b.ndim == 1:
        return np.outer(g, b)
    if b.ndim == 1:
        return np.multiply.outer(g, b) if a.ndim > 1 else g * b
    gb = np.matmul(g[..., None, :] if a.ndim == 1 else g, np.swapaxes(b, -1, -2))
    gb = gb[..., 0, :] if a.ndim == 1 else gb
    from ..reverse.adjoints import unbroadcast

    return unbroadcast(gb, a)


def matmul_adjoint_b(g, a, b):
    a, b, g = np.asarray(a), np.asarray(b), np.asarray(g)
    if a.ndim == 2 and b.ndim in (1, 2):
        return a.T @ g  # matrix-vector stays matrix-vector
    if a.ndim == 1:
        return a[:, None] * g[..., None, :] if b.ndim > 1 else g * a
    ga = np.matmul(np.swapaxes(a, -1, -2), g[..., :, None] if b.ndim == 1 else g)
    ga = ga[..., 0] if b.ndim == 1 else ga
    from ..reverse.adjoints import unbroadcast

    return unbroadcast(ga, b)


def extremum_adjoint(x, y, g, axis=None, keepdims=False, where=True):
    """max/min: g goes to the first position attaining the extremum (ties: the first)."""
    if g is NoTangent:
        return NoTangent
    mask = _first_extremum(x, y, axis, keepdims, where)
    gk = np.asarray(g) if keepdims or axis is None else np.expand_dims(g, axis)
    return np.where(mask, gk, 0.0)


def array_adjoint(x, g):
    """The adjoint of the argument of np.array(x): g, split back into x's nesting if x is a list/tuple."""
    from ..reverse.adjoints import AdjList, AdjTuple

    if isinstance(x, (list, tuple)):
        items = [array_adjoint(v, g[i]) for i, v in enumerate(x)]
        return AdjList(items) if isinstance(x, list) else AdjTuple(items)
    if isinstance(x, np.ndarray):
        return np.asarray(g).reshape(x.shape)
    return float(g) if np.ndim(g) == 0 else g


def join_adjoint(kind, xs, g, axis):
    """Split the adjoint of np.concatenate/stack/vstack/hstack back into the pieces."""
    from ..reverse.adjoints import AdjList, AdjTuple

    g = np.asarray(g)
    arrays = [np.asarray(x) for x in xs]
    if kind == "stack":
        pieces = [np.take(g, i, axis=axis) for i in range(len(arrays))]
    else:
        if kind == "vstack":
            normal = [np.atleast_2d(a) for a in arrays]
            ax = 0
        elif kind == "hstack":
            normal = [np.atleast_1d(a) for a in arrays]
            ax = 0 if normal[0].ndim == 1 else 1
        else:
            normal = [a.reshape(-1) for a in arrays] if axis is None else arrays
            ax = 0 if axis is None else axis
            g = g.reshape(-1) if axis is None else g
        bounds = np.cumsum([a.shape[ax] for a in normal])[:-1]
        pieces = [p.reshape(a.shape) for p, a in zip(np.split(g, bounds, axis=ax), arrays)]
    return AdjList(pieces) if isinstance(xs, list) else AdjTuple(pieces)


def norm_adjoint(x, y, g, ord=None, axis=None, keepdims=False):
    if g is NoTangent:
        return NoTangent
    grad, axes = _norm_gradient(x, ord, axis)
    gk = np.asarray(g) if keepdims else np.expand_dims(g, axes)
    return grad * gk


def transpose_adjoint(x, g, axes=None):
    if g is NoTangent:
        return NoTangent
    if axes is None:
        return np.transpose(g)
    n = np.ndim(x)
    return np.transpose(g, np.argsort([a % n for a in axes]))


defvjp(np.max, lambda t, g, y, x, axis=None, keepdims=False, **k: (t.call(extremum_adjoint, x, y, g, axis, keepdims, *_where(k)),))
defvjp(np.min, lambda t, g, y, x, axis=None, keepdims=False, **k: (t.call(extremum_adjoint, x, y, g, axis, keepdims, *_where(k)),))
defvjp_method(nd, "max", lambda t, g, y, x, axis=None, keepdims=False, **k: (t.call(extremum_adjoint, x, y, g, axis, keepdims, *_where(k)),))
defvjp_method(nd, "min", lambda t, g, y, x, axis=None, keepdims=False, **k: (t.call(extremum_adjoint, x, y, g, axis, keepdims, *_where(k)),))
defvjp(np.array, lambda t, g, y, x, *a, **k: (t.call(array_adjoint, x, g),) + (None,) * len(a))
defvjp(np.asarray, lambda t, g, y, x, *a, **k: (t.call(array_adjoint, x, g),) + (None,) * len(a))
defvjp(np.copy, lambda t, g, y, x, *a, **k: (g,))
defvjp_method(nd, "copy", lambda t, g, y, x, *a, **k: (g,))
defvjp(np.reshape, lambda t, g, y, x, *a, **k: (t.call(np.reshape, g, t.call(np.shape, x)),) + (None,) * len(a))
defvjp_method(nd, "reshape", lambda t, g, y, x, *a, **k: (t.call(np.reshape, g, t.call(np.shape, x)),) + (None,) * len(a))
defvjp(np.ravel, lambda t, g, y, x, *a, **k: (t.call(np.reshape, g, t.call(np.shape, x)),))
defvjp_method(nd, "ravel", lambda t, g, y, x, *a, **k: (t.call(np.reshape, g, t.call(np.shape, x)),))
defvjp_method(nd, "flatten", lambda t, g, y, x, *a, **k: (t.call(np.reshape, g, t.call(np.shape, x)),))
defvjp(np.squeeze, lambda t, g, y, x, *a, **k: (t.call(np.reshape, g, t.call(np.shape, x)),) + (None,) * len(a))
defvjp(np.expand_dims, lambda t, g, y, x, *a, **k: (t.call(np.reshape, g, t.call(np.shape, x)),) + (None,) * len(a))
defvjp(np.transpose, lambda t, g, y, x, axes=None: (t.call(transpose_adjoint, x, g, axes), None))
defvjp(np.concatenate, lambda t, g, y, xs, axis=0, **k: (t.call(join_adjoint, "concatenate", xs, g, axis), None))
defvjp(np.stack, lambda t, g, y, xs, axis=0, **k: (t.call(join_adjoint, "stack", xs, g, axis), None))
defvjp(np.vstack, lambda t, g, y, xs, **k: (t.call(join_adjoint, "vstack", xs, g, 0),))
defvjp(np.hstack, lambda t, g, y, xs, **k: (t.call(join_adjoint, "hstack", xs, g, 0),))
defvjp(np.linalg.norm, lambda t, g, y, x, ord=None, axis=None, keepdims=False: (t.call(norm_adjoint, x, y, g, ord, axis, keepdims),))
defvjp(np.linalg.inv, lambda t, g, y, a: (t.neg(t.call(np.matmul, t.call(np.swapaxes, y, -1, -2), t.call(np.matmul, g, t.call(np.swapaxes, y, -1, -2)))),))
defvjp(np.cumsum, lambda t, g, y, x, axis=None, **k: (t.call(cumsum_adjoint, x, g, axis),))
defvjp(np.prod, lambda t, g, y, x, axis=None, keepdims=False: (t.call(prod_adjoint, x, g, axis, keepdims),))
defvjp(np.var, lambda t, g, y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False: (t.call(var_adjoint, x, g, axis, ddof, keepdims),))
defvjp(np.std, lambda t, g, y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False: (t.call(var_adjoint, x, t.div(g, t.mul(2.0, y)), axis, ddof, keepdims),))
defvjp(np.clip, lambda t, g, y, x, *a, **k: _clip_vjp(t, g, x, a, k, "np.clip"))
defvjp(np.trace, lambda t, g, y, x, offset=0, axis1=0, axis2=1, **k: (t.call(trace_adjoint, x, g, offset, axis1, axis2),))
defvjp(np.outer, lambda t, g, y, a, b: (t.call(outer_adjoint, g, a, b, 0), t.call(outer_adjoint, g, a, b, 1)))
defvjp(np.inner, lambda t, g, y, a, b: (t.call(inner_adjoint_a, g, a, b), t.call(inner_adjoint_b, g, a, b)))


def outer_adjoint(g, a, b, which):
    """np.outer flattens its inputs: y[i, j] = a.flat[i] * b.flat[j]."""
    if g is NoTangent:
        return NoTangent
    g = np.asarray(g)
    out = g @ np.ravel(b) if which == 0 else g.T @ np.ravel(a)
    x = a if which == 0 else b
    return _scalar_like(x, out.reshape(np.shape(x)))


def inner_adjoint_a(g, a, b):
    """np.inner: y[i.., j..] = sum_k a[i.., k] b[j.., k] (a product when either is a scalar)."""
    if g is NoTangent:
        return NoTangent
    a, b, g = np.asarray(a), np.asarray(b), np.asarray(g)
    if a.ndim == 0 or b.ndim == 0:
        return (g * b).sum() if a.ndim == 0 else g * b
    nb = b.ndim - 1
    return np.tensordot(g, b, axes=(list(range(g.ndim - nb, g.ndim)), list(range(nb))))


def inner_adjoint_b(g, a, b):
    if g is NoTangent:
        return NoTangent
    a, b, g = np.asarray(a), np.asarray(b), np.asarray(g)
    if a.ndim == 0 or b.ndim == 0:
        return (g * a).sum() if b.ndim == 0 else g * a
    na = a.ndim - 1
    return np.tensordot(g, a, axes=(list(range(na)), list(range(na))))


def _scalar_like(x, arr):
    """arr as the kind of number x is (a Python float for a Python float), arr itself for arrays."""
    if isinstance(x, np.ndarray):
        return arr
    arr = np.asarray(arr)
    if isinstance(x, (bool, int, float)) and arr.ndim == 0:
        return float(arr.real)
    if isinstance(x, complex) and arr.ndim == 0:
        return complex(arr)
    return arr


def cumsum_adjoint(x, g, axis=None):
    x = np.asarray(x)
    if axis is None:
        return np.flip(np.cumsum(np.flip(np.asarray(g).reshape(-1)))).reshape(x.shape)
    return np.flip(np.cumsum(np.flip(g, axis), axis=axis), axis)


def prod_adjoint(x, g, axis=None, keepdims=False):
    x = np.asarray(x, dtype=float)
    dx = np.zeros(x.shape)
    from ..reverse.adjoints import unbroadcast

    # d prod / d x_i = prod of the others (exact with zeros)
    it = np.nditer(x, flags=["multi_index"])
    for _ in it:
        e = np.zeros(x.shape)
        e[it.multi_index] = 1.0
        dx[it.multi_index] = np.sum(np.asarray(prod_tangent(x, e, axis, True)) * (g if keepdims or axis is None else np.expand_dims(g, axis)))
    return dx


def var_adjoint(x, g, axis, ddof, keepdims):
    x = np.asarray(x)
    n = x.size if axis is None else np.prod([x.shape[a] for a in np.atleast_1d(axis)])
    centred = x - x.mean(axis=axis, keepdims=True)
    gk = g if keepdims or axis is None else np.expand_dims(g, axis)
    return 2.0 / (n - ddof) * centred * gk


def trace_adjoint(x, g, offset=0, axis1=0, axis2=1):
    """np.trace sums the diagonal (offset, axis1, axis2): g goes back onto that diagonal."""
    if g is NoTangent:
        return NoTangent
    return _diagonal_scatter(np.shape(x), np.asarray(g)[..., None], offset, axis1, axis2, _float_dtype(x))

defvjp(np.arctan2, lambda t, g, y, a, b, **k: (t.unb(t.div(t.mul(g, b), t.add(t.mul(a, a), t.mul(b, b))), a),
                                               t.unb(t.neg(t.div(t.mul(g, a), t.add(t.mul(a, a), t.mul(b, b)))), b)))
defvjp(np.hypot, lambda t, g, y, a, b, **k: (t.unb(t.mul(g, t.div(a, y)), a), t.unb(t.mul(g, t.div(b, y)), b)))
defvjp(np.logaddexp, lambda t, g, y, a, b, **k: (t.unb(t.mul(g, t.call(np.exp, t.sub(a, y))), a), t.unb(t.mul(g, t.call(np.exp, t.sub(b, y))), b)))
defvjp(np.atleast_1d, lambda t, g, y, x: (t.call(np.reshape, g, t.call(np.shape, x)),))
defvjp(np.atleast_2d, lambda t, g, y, x: (t.call(np.reshape, g, t.call(np.shape, x)),))
defvjp(np.roll, lambda t, g, y, x, shift, axis=None: (t.call(roll_adjoint, g, shift, axis), None, None))


def roll_adjoint(g, shift, axis=None):
    return NoTangent if g is NoTangent else np.roll(g, np.negative(shift), axis=axis)
defvjp(np.flip, lambda t, g, y, x, axis=None: (t.call(np.flip, g, axis=axis), None))
defvjp(np.asanyarray, lambda t, g, y, x, *a, **k: (t.call(array_adjoint, x, g),) + (None,) * len(a))
defvjp(np.split, lambda t, g, y, x, *a, **k: (t.call(split_adjoint, x, g, *a, **k),) + (None,) * len(a))
defvjp(np.array_split, lambda t, g, y, x, *a, **k: (t.call(split_adjoint, x, g, *a, **k),) + (None,) * len(a))
defvjp_method(nd, "clip", lambda t, g, y, x, *a, **k: _clip_vjp(t, g, x, a, k, "ndarray.clip"))
defvjp_method(nd, "transpose", lambda t, g, y, x, *axes: (t.call(transpose_adjoint, x, g, axes[0] if len(axes) == 1 else (t.call(ops.tuple_of, *axes) if axes else None)),) + (None,) * len(axes))
defvjp_method(nd, "astype", lambda t, g, y, x, *a, **k: (t.call(astype_adjoint, x, g, y),) + (None,) * len(a))
defvjp_method(nd, "item", lambda t, g, y, x, *a: (t.call(item_adjoint_array, x, g, *a),) + (None,) * len(a))
defvjp_method(nd, "squeeze", lambda t, g, y, x, *a, **k: (t.call(np.reshape, g, t.call(np.shape, x)),) + (None,) * len(a))
defvjp_method(nd, "cumsum", lambda t, g, y, x, axis=None, **k: (t.call(cumsum_adjoint, x, g, axis),))
defvjp_method(nd, "prod", lambda t, g, y, x, axis=None, keepdims=False: (t.call(prod_adjoint, x, g, axis, keepdims),))
defvjp_method(nd, "var", lambda t, g, y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False: (t.call(var_adjoint, x, g, axis, ddof, keepdims),))
defvjp_method(nd, "std", lambda t, g, y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False: (t.call(var_adjoint, x, t.div(g, t.mul(2.0, y)), axis, ddof, keepdims),))


def split_adjoint(x, g, *a, **k):
    if g is _no():
        return _no()
    shapes = [np.shape(p) for p in np.array_split(np.asarray(x), *a, **k)]
    pieces = [np.zeros(sh) if p is _no() or _inside_storage_of(x, p) else np.asarray(p) for p, sh in zip(g, shapes)]
    axis = k.get("axis", a[1] if len(a) > 1 else 0)
    return np.concatenate(pieces, axis=axis).reshape(np.shape(x))


def _inside_storage_of(x, g):
    """Is g (a piece's adjoint) a view into x's adjoint storage?  Then it is already counted there."""
    from ..reverse import shadows
    from ..tangents import is_mutable

    return isinstance(g, np.ndarray) and is_mutable(x) and np.shares_memory(g, shadows.shadow(x))


def repeat_adjoint(x, g, repeats, axis=None):
    """Each element's adjoint is the sum over its copies."""
    x = np.asarray(x)
    g = np.asarray(g)
    if axis is None:
        flat = np.zeros(x.size)
        idx = np.repeat(np.arange(x.size), repeats)
        np.add.at(flat, idx, g.reshape(-1))
        return flat.reshape(x.shape)
    idx = np.repeat(np.arange(x.shape[axis]), repeats)
    out = np.zeros(x.shape)
    moved_out = np.moveaxis(out, axis, 0)
    np.add.at(moved_out, idx, np.moveaxis(g, axis, 0))
    return out


def astype_adjoint(x, g, y=None):
    if g is NoTangent or np.asarray(x).dtype.kind not in "fc" or (y is not None and np.asarray(y).dtype.kind not in "fc"):
        return NoTangent  # an integer result carries no derivative
    return np.asarray(g).astype(np.asarray(x).dtype)


def item_adjoint_array(x, g, *a):
    """x.item(*a): one int is an index into the flattened array, several (or a tuple) a multi-index."""
    if g is NoTangent:
        return NoTangent
    out = np.zeros(np.shape(x), dtype=np.result_type(np.asarray(x).dtype, float))
    if len(a) == 1 and isinstance(a[0], (int, np.integer)):
        out.reshape(-1)[a[0]] = g
    elif a:
        out[a if len(a) > 1 else a[0]] = g
    else:
        out.reshape(-1)[0] = g
    return out
defvjp(np.repeat, lambda t, g, y, x, repeats, axis=None: (t.call(repeat_adjoint, x, g, repeats, axis), None, None))
defvjp(np.tile, lambda t, g, y, x, reps: (t.call(tile_adjoint, x, g, reps), None))


def tile_adjoint(x, g, reps):
    x = np.asarray(x)
    g = np.asarray(g)
    reps = (reps,) if np.ndim(reps) == 0 else tuple(reps)
    shape = (1,) * (g.ndim - x.ndim) + x.shape
    split = []
    for n, r in zip(shape, (1,) * (g.ndim - len(reps)) + reps):
        split += [r, n]
    return g.reshape(split).sum(axis=tuple(range(0, len(split), 2))).reshape(x.shape)


# ================================================================== reverse rules of the shape functions
def _float_dtype(x):
    return np.result_type(np.asarray(x).dtype, float)


def _in_storage(x, g):
    """Is g (the adjoint of a view y of x) already part of x's adjoint storage?  Then it is counted there:
    a view's adjoint storage is the same view of its base's (reverse/shadows.py)."""
    if not (isinstance(x, np.ndarray) and isinstance(g, np.ndarray)):
        return False
    from ..reverse import shadows

    return np.shares_memory(g, shadows.shadow(x))


def swapaxes_adjoint(g, axis1, axis2):
    return NoTangent if g is NoTangent else np.swapaxes(g, axis1, axis2)


def moveaxis_adjoint(g, source, destination):
    return NoTangent if g is NoTangent else np.moveaxis(g, destination, source)


def broadcast_to_adjoint(x, g):
    """y = np.broadcast_to(x, shape) is a read-only view: sum g back over the broadcast axes."""
    if g is NoTangent or _in_storage(x, g):
        return NoTangent
    return _unb(np.asarray(g), x)


def _diagonal_scatter(shape, g, offset, axis1, axis2, dtype):
    """Zeros of `shape` with g written onto the diagonal np.diagonal(., offset, axis1, axis2) reads."""
    out = np.zeros(shape, dtype=dtype)
    moved = np.moveaxis(out, (axis1, axis2), (-2, -1))  # a writable view of out
    n1, n2 = moved.shape[-2:]
    k = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
    rows = np.arange(k) + max(-offset, 0)
    cols = np.arange(k) + max(offset, 0)
    moved[..., rows, cols] = g
    return out


def diagonal_adjoint(x, g, offset=0, axis1=0, axis2=1):
    if g is NoTangent or _in_storage(x, g):
        return NoTangent
    return _diagonal_scatter(np.shape(x), np.asarray(g), offset, axis1, axis2, _float_dtype(x))


def diag_adjoint(v, g, k=0):
    """np.diag builds a matrix from a vector (adjoint: its diagonal) or reads a matrix's diagonal (a view)."""
    if g is NoTangent:
        return NoTangent
    if np.ndim(v) == 1:
        return np.diagonal(np.asarray(g), k).copy()
    return diagonal_adjoint(v, g, k)


def take_adjoint(a, g, indices, axis=None, mode="raise"):
    """np.take copies: each position's adjoint is the sum over the places it was copied to."""
    if g is NoTangent:
        return NoTangent
    a = np.asarray(a)
    out = np.zeros(a.shape, dtype=_float_dtype(a))
    idx = np.asarray(indices)
    n = a.size if axis is None else a.shape[axis]
    if mode == "wrap":
        idx = idx % n
    elif mode == "clip":
        idx = np.clip(idx, 0, n - 1)
    if axis is None:
        np.add.at(out.reshape(-1), idx, g)
    else:
        np.add.at(out, (slice(None),) * (axis % a.ndim) + (idx,), g)
    return out


def tri_adjoint(fn, g, k=0):
    return NoTangent if g is NoTangent else fn(g, k)


def flip2_adjoint(fn, g):
    return NoTangent if g is NoTangent else fn(g)


def rot90_adjoint(g, k=1, axes=(0, 1)):
    return NoTangent if g is NoTangent else np.rot90(g, -k, axes)


_DIFF = ("n", "axis", "prepend", "append")


def _diff_parts(a, kw):
    b = _bind(_DIFF, a, kw)
    return (b.get("n", 1), b.get("axis", -1), b.get("prepend"), "prepend" in b, b.get("append"), "append" in b)


def diff_tangent(a, da, n, axis, prepend, has_prepend, dprepend, append, has_append, dappend):
    """np.diff is linear in everything it differences (a, and prepend/append when given)."""
    parts = _diff_pieces(a, n, axis, prepend, has_prepend, append, has_append)
    tangents = [d for d, given in ((dprepend, has_prepend), (da, True), (dappend, has_append)) if given]
    if all(d is NoTangent for d in tangents):
        return NoTangent
    dense = [np.broadcast_to(np.asarray(0.0 if d is NoTangent else d, dtype=float), p.shape) for d, p in zip(tangents, parts)]
    return np.diff(np.concatenate(dense, axis=axis), n, axis=axis)


def _diff_pieces(a, n, axis, prepend, has_prepend, append, has_append):
    """The arrays np.diff concatenates (scalars spread along the axis as NumPy does)."""
    a = np.asarray(a)
    out = []
    for v, given in ((prepend, has_prepend), (a, True), (append, has_append)):
        if not given:
            continue
        v = np.asarray(v)
        if v.ndim == 0:
            shape = list(a.shape)
            shape[axis] = 1
            v = np.broadcast_to(v, shape)
        out.append(v)
    return out


def diff_vjp(g, a, n=1, axis=-1, prepend=None, has_prepend=False, append=None, has_append=False):
    """Adjoints of (a, prepend, append): each difference y[i] = c[i+1] - c[i] sends g[i] to c[i+1] and -g[i] to c[i]."""
    if g is NoTangent:
        return NoTangent, NoTangent, NoTangent
    pieces = _diff_pieces(a, n, axis, prepend, has_prepend, append, has_append)
    c = np.asarray(g, dtype=float)
    ax = axis % c.ndim
    for _ in range(n):
        front = [(0, 0)] * c.ndim
        back = [(0, 0)] * c.ndim
        front[ax], back[ax] = (1, 0), (0, 1)
        c = np.pad(c, front) - np.pad(c, back)
    bounds = np.cumsum([p.shape[ax] for p in pieces])[:-1]
    split = np.split(c, bounds, axis=ax)
    out = {}
    for name, v, given in (("prepend", prepend, has_prepend), ("a", a, True), ("append", append, has_append)):
        if given:
            out[name] = _unb(split.pop(0), v) if not isinstance(v, np.ndarray) or v.ndim == 0 else split.pop(0)
    return out["a"], out.get("prepend", NoTangent), out.get("append", NoTangent)


def _diff_jvp(t, x, a, k):
    n, axis, pre, has_pre, app, has_app = _diff_parts(a, k)
    if t.d(x) is None and t.d(pre) is None and t.d(app) is None:
        return None
    return t.call(diff_tangent, x, t.dz(x), n, axis, pre, has_pre, t.dz(pre), app, has_app, t.dz(app))


def _diff_vjp(t, g, x, a, k):
    _refuse_keywords(t, "np.diff", **{key: v for key, v in k.items() if key in ("prepend", "append")})
    n, axis, pre, has_pre, app, has_app = _diff_parts(a, k)
    abar, pbar, qbar = _split(t, t.call(diff_vjp, g, x, n, axis, pre, has_pre, app, has_app), 3)
    return (abar, None, None, pbar, qbar)[:1 + len(a)]


defjvp(np.diff, lambda t, y, x, *a, **k: _diff_jvp(t, x, a, k))
defvjp(np.diff, lambda t, g, y, x, *a, **k: _diff_vjp(t, g, x, a, k))
defvjp(np.swapaxes, lambda t, g, y, x, axis1, axis2: (t.call(swapaxes_adjoint, g, axis1, axis2), None, None))
defvjp(np.moveaxis, lambda t, g, y, x, source, destination: (t.call(moveaxis_adjoint, g, source, destination), None, None))
defvjp(np.broadcast_to, lambda t, g, y, x, *a, **k: (t.call(broadcast_to_adjoint, x, g),))
defvjp(np.diagonal, lambda t, g, y, x, offset=0, axis1=0, axis2=1: (t.call(diagonal_adjoint, x, g, offset, axis1, axis2),))
defvjp(np.diag, lambda t, g, y, x, k=0: (t.call(diag_adjoint, x, g, k),))
defvjp(np.take, lambda t, g, y, x, indices, axis=None, out=None, mode="raise": (t.call(take_adjoint, x, g, indices, axis, mode),))
defvjp(np.triu, lambda t, g, y, x, k=0: (t.call(tri_adjoint, np.triu, g, k),))
defvjp(np.tril, lambda t, g, y, x, k=0: (t.call(tri_adjoint, np.tril, g, k),))
defvjp(np.fliplr, lambda t, g, y, x: (t.call(flip2_adjoint, np.fliplr, g),))
defvjp(np.flipud, lambda t, g, y, x: (t.call(flip2_adjoint, np.flipud, g),))
defvjp(np.rot90, lambda t, g, y, x, k=1, axes=(0, 1): (t.call(rot90_adjoint, g, k, axes),))


# np.pad: every mode that copies entries (constant, edge, reflect, symmetric, wrap) is linear in the array.
_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def _pad_mode(mode, kw):
    if mode not in _PAD_MODES or kw.get("reflect_type", "even") != "even":
        raise NotImplementedError(f"derivative of np.pad with mode={mode!r}: only {', '.join(_PAD_MODES)} (reflect_type='even')")


def pad_tangent(x, dx, pad_width, mode="constant", dvalues=NoTangent, **kw):
    _pad_mode(mode, kw)
    dx = np.broadcast_to(np.asarray(0.0 if dx is NoTangent else dx, dtype=float), np.shape(x))
    if mode == "constant":
        return np.pad(dx, pad_width, mode="constant", constant_values=0.0 if dvalues is NoTangent else dvalues)
    return np.pad(dx, pad_width, mode=mode, **kw)


def pad_adjoint(x, g, pad_width, mode="constant", **kw):
    """Each entry of y is a copy of an entry of x (or a constant): x's adjoint sums g over its copies."""
    if g is NoTangent:
        return NoTangent
    _pad_mode(mode, kw)
    shape = np.shape(x)
    index = np.arange(int(np.prod(shape))).reshape(shape)
    if mode == "constant":
        index = np.pad(index, pad_width, mode="constant", constant_values=-1)
    else:
        index = np.pad(index, pad_width, mode=mode, **{k: v for k, v in kw.items() if k == "reflect_type"})
    keep = index >= 0
    g = np.asarray(g)
    return np.bincount(index[keep], weights=g[keep], minlength=index.size and int(np.prod(shape))).reshape(shape)


def constant_values_adjoint(x, g, pad_width):
    """The adjoint of a scalar constant_values: the sum of g over the padding."""
    if g is NoTangent:
        return NoTangent
    inside = np.pad(np.zeros(np.shape(x), dtype=bool), pad_width, mode="constant", constant_values=True)
    return float(np.sum(np.asarray(g)[inside]))


def _pad_jvp(t, x, pad_width, mode, k):
    cv = k.get("constant_values")
    if t.d(x) is None and t.d(cv) is None:
        return None
    rest = {key: v for key, v in k.items() if key != "constant_values"}
    return t.call(pad_tangent, x, t.dz(x), pad_width, mode, t.dz(cv), **rest)


def _pad_vjp(t, g, x, pad_width, mode, k):
    rest = {key: v for key, v in k.items() if key != "constant_values"}
    _refuse_keywords(t, "np.pad", **{key: v for key, v in k.items() if key == "constant_values"})
    return (t.call(pad_adjoint, x, g, pad_width, mode, **rest), None, None)


defjvp(np.pad, lambda t, y, x, pad_width, mode="constant", **k: _pad_jvp(t, x, pad_width, mode, k))
defvjp(np.pad, lambda t, g, y, x, pad_width, mode="constant", **k: _pad_vjp(t, g, x, pad_width, mode, k))

# ================================================================== elementwise: complex parts, fmax/fmin, more ufuncs


def conjugate_adjoint(g, x=None):
    """conj is its own adjoint.  ndarray.conj() of a real array returns the array itself: then g is x's
    own adjoint storage and is already counted."""
    if g is NoTangent or _in_storage(x, g):
        return NoTangent
    return np.conjugate(g)


def real_adjoint_np(x, g):
    """y = Re(x): for complex x the adjoint is g as a complex number (inner product Re(conj(a) b))."""
    if g is NoTangent:
        return NoTangent
    if np.iscomplexobj(x):
        return np.asarray(g).astype(np.asarray(x).dtype) if isinstance(x, np.ndarray) else complex(g)
    return g


def imag_adjoint_np(x, g):
    """y = Im(x): x's adjoint is 1j * g (zero for real x, whose imaginary part is constant)."""
    if g is NoTangent or not np.iscomplexobj(x):
        return NoTangent
    return 1j * np.asarray(g) if isinstance(x, np.ndarray) else 1j * complex(g)


defvjp(np.conjugate, lambda t, g, y, x, *a, **k: (t.call(conjugate_adjoint, g),))
defvjp(np.real, lambda t, g, y, x: (t.call(real_adjoint_np, x, g),))
defvjp(np.imag, lambda t, g, y, x: (t.call(imag_adjoint_np, x, g),))
defvjp(np.fmax, lambda t, g, y, a, b, **k: (t.unb(t.call(np.where, t.call(fmax_first, a, b), g, 0.0), a),
                                            t.unb(t.call(np.where, t.call(fmax_first, a, b), 0.0, g), b)))
defvjp(np.fmin, lambda t, g, y, a, b, **k: (t.unb(t.call(np.where, t.call(fmin_first, a, b), g, 0.0), a),
                                            t.unb(t.call(np.where, t.call(fmin_first, a, b), 0.0, g), b)))

unary(np.deg2rad, lambda t, y, x: np.pi / 180.0)
unary(np.radians, lambda t, y, x: np.pi / 180.0)
unary(np.rad2deg, lambda t, y, x: 180.0 / np.pi)
unary(np.degrees, lambda t, y, x: 180.0 / np.pi)
unary(np.sinc, lambda t, y, x: t.call(sinc_deriv, x, y))


def sinc_deriv(x, y):
    """d sinc(x)/dx = (cos(pi x) - sinc(x)) / x, and 0 at x == 0 (sinc is even there)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(x == 0, 0.0, (np.cos(np.pi * x) - y) / np.where(x == 0, 1.0, x))
    return out[()] if out.ndim == 0 else out


defjvp(np.logaddexp2, lambda t, y, a, b, **k: t.add(t.mul(t.d(a), t.call(np.exp2, t.sub(a, y))), t.mul(t.d(b), t.call(np.exp2, t.sub(b, y)))))
defvjp(np.logaddexp2, lambda t, g, y, a, b, **k: (t.unb(t.mul(g, t.call(np.exp2, t.sub(a, y))), a), t.unb(t.mul(g, t.call(np.exp2, t.sub(b, y))), b)))
defjvp(np.float_power, lambda t, y, a, b, **k: t.add(
    t.mul(t.d(a), t.call(h.pow_deriv, a, b)),
    t.mul(t.d(b), t.mul(y, t.call(h.log_for_pow, a)))))
defvjp(np.float_power, lambda t, g, y, a, b, **k: (t.unb(t.mul(g, t.call(h.pow_deriv, a, b)), a),
                                                   t.unb(t.mul(g, t.mul(y, t.call(h.log_for_pow, a))), b)))
# remainder (np.mod): a - floor(a / b) * b;  fmod: a - trunc(a / b) * b.  Piecewise; the jumps are not counted.
defjvp(np.remainder, lambda t, y, a, b, **k: t.sub(t.d(a), t.mul(t.call(np.floor_divide, a, b), t.d(b))))
defvjp(np.remainder, lambda t, g, y, a, b, **k: (t.unb(g, a), t.unb(t.neg(t.mul(g, t.call(np.floor_divide, a, b))), b)))
defjvp(np.fmod, lambda t, y, a, b, **k: t.sub(t.d(a), t.mul(t.call(fmod_quotient, a, b, y), t.d(b))))
defvjp(np.fmod, lambda t, g, y, a, b, **k: (t.unb(g, a), t.unb(t.neg(t.mul(g, t.call(fmod_quotient, a, b, y))), b)))
# copysign(a, b) = |a| sign(b): slope sign(a) sign(y) in a (0 at a == 0), none in b.
defjvp(np.copysign, lambda t, y, a, b, **k: t.mul(t.d(a), t.mul(t.call(np.sign, a), t.call(np.sign, y))))
defvjp(np.copysign, lambda t, g, y, a, b, **k: (t.unb(t.mul(g, t.mul(t.call(np.sign, a), t.call(np.sign, y))), a), None))
defzero(np.floor_divide, np.heaviside, np.signbit, np.fix, np.isreal, np.iscomplex, np.isin, np.argwhere,
        np.flatnonzero, np.digitize, np.tri, np.diag_indices, np.tril_indices, np.triu_indices, np.indices)


def fmod_quotient(a, b, y):
    """trunc(a / b), recovered from the result: (a - fmod(a, b)) / b is that integer up to rounding."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.round((np.asarray(a) - y) / b)  # an integer up to rounding: not trunc


# ================================================================== products: tensordot, einsum, kron, vdot, cross


def _einsum_terms(subscripts, shapes):
    """The input terms and the output term of an einsum, '...' spelled out as letters, implicit output made explicit."""
    if not isinstance(subscripts, str):
        raise NotImplementedError("derivatives of np.einsum need the subscripts-string form, not the interleaved one")
    s = subscripts.replace(" ", "")
    lhs, out = s.split("->") if "->" in s else (s, None)
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"einsum subscripts {subscripts!r} name {len(terms)} operands, {len(shapes)} given")
    spare = [c for c in string.ascii_letters if c not in s]
    n_ell = max([len(sh) - (len(tm) - 3) for tm, sh in zip(terms, shapes) if "..." in tm], default=0)
    ell = "".join(spare[:n_ell])
    full = []
    for tm, sh in zip(terms, shapes):
        if "..." in tm:
            k = len(sh) - (len(tm) - 3)
            tm = tm.replace("...", ell[n_ell - k:] if k else "")
        full.append(tm)
    if out is None:
        letters = lhs.replace(".", "").replace(",", "")
        out = ell + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    else:
        out = out.replace("...", ell)
    return full, out


def einsum_tangent(subscripts, operands, tangents, **kw):
    """Linear in each operand: the sum of einsums with one operand replaced by its tangent."""
    kw = {k: v for k, v in kw.items() if k != "out"}
    total = NoTangent
    for i, d in enumerate(tangents):
        if d is NoTangent:
            continue
        ops_ = list(operands)
        ops_[i] = np.broadcast_to(d, np.shape(operands[i]))
        term = np.einsum(subscripts, *ops_, **kw)
        total = term if total is NoTangent else total + term
    return total


def einsum_adjoint(subscripts, k, g, *operands):
    """The adjoint of operand k: an einsum of g with the other operands onto k's letters.

    Letters only operand k has were summed over: g spreads along them.  A repeated letter (a trace,
    a diagonal) writes the result onto that diagonal of zeros.  Size-1 axes broadcast against larger
    ones are summed back.
    """
    if g is NoTangent:
        return NoTangent
    arrays = [np.asarray(o) for o in operands]
    terms, out = _einsum_terms(subscripts, [a.shape for a in arrays])
    mine, x = terms[k], arrays[k]
    uniq = "".join(dict.fromkeys(mine))
    others = [(tm, a) for j, (tm, a) in enumerate(zip(terms, arrays)) if j != k]
    avail = set(out).union(*[set(tm) for tm, _ in others])
    kept = "".join(c for c in uniq if c in avail)
    part = np.einsum(",".join([out] + [tm for tm, _ in others]) + "->" + kept, np.asarray(g), *[a for _, a in others])
    own = dict(zip(mine, x.shape))
    part = part.reshape([part.shape[kept.index(c)] if c in avail else 1 for c in uniq])
    for ax, c in enumerate(uniq):
        if own[c] == 1 and part.shape[ax] != 1:
            part = part.sum(axis=ax, keepdims=True)
    part = np.broadcast_to(part, [own[c] for c in uniq])
    dtype = np.result_type(part.dtype, _float_dtype(x))
    if len(uniq) == len(mine):
        res = np.array(part, dtype=dtype)
    else:
        res = np.zeros(x.shape, dtype=dtype)
        np.einsum(mine + "->" + uniq, res)[...] = part  # a writable view of the diagonal
    return _scalar_like(operands[k], res)


def _einsum_jvp(t, subscripts, operands, k):
    if all(t.d(o) is None for o in operands):
        return None
    return t.call(einsum_tangent, subscripts, t.call(ops.tuple_of, *operands), t.call(ops.tuple_of, *[t.dz(o) for o in operands]), **k)


defjvp(np.einsum, lambda t, y, subscripts, *operands, **k: _einsum_jvp(t, subscripts, operands, k))
defvjp(np.einsum, lambda t, g, y, subscripts, *operands, **k: (None,) + tuple(
    t.call(einsum_adjoint, subscripts, i, g, *operands) for i in range(len(operands))))


def tensordot_subscripts(a, b, axes=2):
    """np.tensordot(a, b, axes) as einsum subscripts."""
    na, nb = np.ndim(a), np.ndim(b)
    if np.ndim(axes) == 0:
        axes = int(axes)
        ax_a, ax_b = list(range(na - axes, na)), list(range(axes))
    else:
        ax_a, ax_b = axes
        ax_a = [ax_a] if np.ndim(ax_a) == 0 else list(ax_a)
        ax_b = [ax_b] if np.ndim(ax_b) == 0 else list(ax_b)
    ax_a = [int(i) % na for i in ax_a]
    ax_b = [int(i) % nb for i in ax_b]
    letters = iter(string.ascii_letters)
    la = [next(letters) for _ in range(na)]
    lb = [""] * nb
    for i, j in zip(ax_a, ax_b):
        lb[j] = la[i]
    lb = [c or next(letters) for c in lb]
    out = [la[i] for i in range(na) if i not in ax_a] + [lb[j] for j in range(nb) if j not in ax_b]
    return "".join(la) + "," + "".join(lb) + "->" + "".join(out)


def tensordot_right(db, a, axes=2):
    return np.tensordot(a, db, axes)


def tensordot_adjoint(k, g, a, b, axes=2):
    return einsum_adjoint(tensordot_subscripts(a, b, axes), k, g, a, b)


defjvp(np.tensordot, lambda t, y, a, b, axes=2: t.add(t.lin(np.tensordot, t.d(a), b, axes), t.lin(tensordot_right, t.d(b), a, axes)))
defvjp(np.tensordot, lambda t, g, y, a, b, axes=2: (t.call(tensordot_adjoint, 0, g, a, b, axes), t.call(tensordot_adjoint, 1, g, a, b, axes), None))


def kron_adjoint(k, g, a, b):
    """kron(a, b) viewed with shape (a0, b0, a1, b1, ...) is the outer product: contract g with the other factor."""
    if g is NoTangent:
        return NoTangent
    A, B = np.asarray(a), np.asarray(b)
    nd = max(A.ndim, B.ndim)
    sa = (1,) * (nd - A.ndim) + A.shape
    sb = (1,) * (nd - B.ndim) + B.shape
    G = np.asarray(g).reshape([n for pair in zip(sa, sb) for n in pair])
    la, lb = string.ascii_letters[:nd], string.ascii_letters[nd:2 * nd]
    lg = "".join(p + q for p, q in zip(la, lb))
    if k == 0:
        res = np.einsum(f"{lg},{lb}->{la}", G, B.reshape(sb)).reshape(A.shape)
    else:
        res = np.einsum(f"{lg},{la}->{lb}", G, A.reshape(sa)).reshape(B.shape)
    return _scalar_like(a if k == 0 else b, res)


defjvp(np.kron, lambda t, y, a, b: t.add(t.lin(np.kron, t.d(a), b), t.linr(np.kron, a, t.d(b))))
defvjp(np.kron, lambda t, g, y, a, b: (t.call(kron_adjoint, 0, g, a, b), t.call(kron_adjoint, 1, g, a, b)))


def vdot_adjoint(g, a, b, which):
    """vdot(a, b) = sum(conj(a) * b) over the flattened arrays: a's adjoint conj(g) b, b's g a."""
    if g is NoTangent:
        return NoTangent
    other = b if which == 0 else a
    res = (np.conjugate(g) if which == 0 else g) * np.ravel(other)
    x = a if which == 0 else b
    return _scalar_like(x, res.reshape(np.shape(x)))


defjvp(np.vdot, lambda t, y, a, b: t.add(t.lin(np.vdot, t.d(a), b), t.linr(np.vdot, a, t.d(b))))
defvjp(np.vdot, lambda t, g, y, a, b: (t.call(vdot_adjoint, g, a, b, 0), t.call(vdot_adjoint, g, a, b, 1)))


def _cross_check(a, b, kw):
    if kw or np.shape(a)[-1:] != (3,) or np.shape(b)[-1:] != (3,):
        raise NotImplementedError("derivative of np.cross: 3-vectors along the last axis only")


def cross_tangent(a, b, da, db, **kw):
    _cross_check(a, b, kw)
    out = NoTangent
    if da is not NoTangent:
        out = np.cross(np.broadcast_to(da, np.shape(a)), b)
    if db is not NoTangent:
        out = out + np.cross(a, np.broadcast_to(db, np.shape(b)))
    return out


def cross_adjoint(g, a, b, which, **kw):
    """y = a x b: a's adjoint is b x g, b's is g x a (then summed over broadcast axes)."""
    _cross_check(a, b, kw)
    if g is NoTangent:
        return NoTangent
    res = np.cross(b, g) if which == 0 else np.cross(g, a)
    return _unb(res, a if which == 0 else b)


defjvp(np.cross, lambda t, y, a, b, **k: t.call(cross_tangent, a, b, t.dz(a), t.dz(b), **k) if (t.d(a) is not None or t.d(b) is not None) else None)
defvjp(np.cross, lambda t, g, y, a, b, **k: (t.call(cross_adjoint, g, a, b, 0, **k), t.call(cross_adjoint, g, a, b, 1, **k)))


# ================================================================== cumulative products, sorting, gathering


def _cumprod_last(x, axis):
    """x with the cumulated axis last (flattened first when axis is None)."""
    x = np.asarray(x)
    if axis is None:
        return x.reshape(-1), 0
    return np.moveaxis(x, axis, -1), axis


def _cumprod_jacobian(v):
    """J[..., i, j] = d cumprod(v)[i] / d v[j] = prod(v[:j]) * prod(v[j+1:i+1]) for j <= i (exact with zeros)."""
    n = v.shape[-1]
    J = np.zeros(v.shape + (n,), dtype=_float_dtype(v))
    for j in range(n):
        before = np.prod(v[..., :j], axis=-1)
        J[..., j, j] = before
        if j + 1 < n:
            J[..., j + 1:, j] = before[..., None] * np.cumprod(v[..., j + 1:], axis=-1)
    return J


def cumprod_tangent(x, y, dx, axis=None):
    v, ax = _cumprod_last(x, axis)
    dv, _ = _cumprod_last(np.broadcast_to(dx, np.shape(x)), axis)
    yv, _ = _cumprod_last(y, None if axis is None else axis)
    if np.all(v != 0):
        d = yv * np.cumsum(dv / v, axis=-1)
    else:
        d = np.einsum("...ij,...j->...i", _cumprod_jacobian(v), dv)
    return d if axis is None else np.moveaxis(d, -1, ax)


def cumprod_adjoint(x, y, g, axis=None):
    if g is NoTangent:
        return NoTangent
    v, ax = _cumprod_last(x, axis)
    gv, _ = _cumprod_last(np.asarray(g), axis)
    yv, _ = _cumprod_last(y, axis)
    if np.all(v != 0):
        d = np.flip(np.cumsum(np.flip(gv * yv, -1), axis=-1), -1) / v
    else:
        d = np.einsum("...ij,...i->...j", _cumprod_jacobian(v), gv)
    return d.reshape(np.shape(x)) if axis is None else np.moveaxis(d, -1, ax)


defjvp(np.cumprod, lambda t, y, x, axis=None, **k: t.call(cumprod_tangent, x, y, t.d(x), axis) if t.d(x) is not None else None)
defvjp(np.cumprod, lambda t, g, y, x, axis=None, **k: (t.call(cumprod_adjoint, x, y, g, axis),))


def _sort_order(a, axis):
    """The permutation np.sort applies; ties in their original order (the documented choice)."""
    a = np.asarray(a)
    if axis is None:
        return np.argsort(a.reshape(-1), kind="stable")
    return np.argsort(a, axis=axis, kind="stable")


def sort_tangent(a, da, axis=-1):
    order = _sort_order(a, axis)
    da = np.broadcast_to(np.asarray(da), np.shape(a))
    if axis is None:
        return da.reshape(-1)[order]
    return np.take_along_axis(da, order, axis=axis)


def sort_adjoint(a, g, axis=-1):
    if g is NoTangent:
        return NoTangent
    order = _sort_order(a, axis)
    out = np.zeros(np.shape(a), dtype=_float_dtype(a))
    if axis is None:
        out.reshape(-1)[order] = np.asarray(g)
    else:
        np.put_along_axis(out, order, g, axis=axis)
    return out


defjvp(np.sort, lambda t, y, a, axis=-1, **k: t.call(sort_tangent, a, t.d(a), axis) if t.d(a) is not None else None)
defvjp(np.sort, lambda t, g, y, a, axis=-1, **k: (t.call(sort_adjoint, a, g, axis),))


def _along_axis_index(shape, indices, axis):
    """The fancy index np.take_along_axis uses: `indices` on axis, aranges (broadcasting) on the others."""
    idx = []
    for d, n in enumerate(shape):
        if d == axis:
            idx.append(indices)
        else:
            s = [1] * len(shape)
            s[d] = n
            idx.append(np.arange(n).reshape(s))
    return tuple(idx)


def take_along_axis_adjoint(arr, g, indices, axis=-1):
    if g is NoTangent:
        return NoTangent
    arr = np.asarray(arr)
    out = np.zeros(arr.shape, dtype=_float_dtype(arr))
    if axis is None:
        np.add.at(out.reshape(-1), np.asarray(indices), g)
    else:
        np.add.at(out, _along_axis_index(arr.shape, np.asarray(indices), axis % arr.ndim), g)
    return out


defjvp(np.take_along_axis, lambda t, y, arr, indices, axis=-1: t.lin(np.take_along_axis, t.d(arr), indices, axis))
defvjp(np.take_along_axis, lambda t, g, y, arr, indices, axis=-1: (t.call(take_along_axis_adjoint, arr, g, indices, axis), None, None))


def polyval_tangent(p, x, dp, dx):
    """np.polyval(p, x) = sum_k p[k] x**(n-1-k): linear in p, and p'(x) in x."""
    out = NoTangent
    if dp is not NoTangent:
        out = np.polyval(np.broadcast_to(dp, np.shape(p)), x)
    if dx is not NoTangent:
        out = out + np.polyval(np.polyder(p), x) * dx if len(p) > 1 else out
    return out


def polyval_adjoint(p, x, g, which):
    if g is NoTangent:
        return NoTangent
    p = np.asarray(p)
    if which == 1:
        if len(p) < 2:
            return NoTangent
        return _unb(np.asarray(g) * np.polyval(np.polyder(p), x), x)
    n = len(p)
    x = np.asarray(x, dtype=float)
    return np.array([np.sum(np.asarray(g) * x ** (n - 1 - k)) for k in range(n)])


defjvp(np.polyval, lambda t, y, p, x: t.call(polyval_tangent, p, x, t.dz(p), t.dz(x)) if (t.d(p) is not None or t.d(x) is not None) else None)
defvjp(np.polyval, lambda t, g, y, p, x: (t.call(polyval_adjoint, p, x, g, 0), t.call(polyval_adjoint, p, x, g, 1)))


# ================================================================== linear algebra (real matrices)


def _mT(a):
    return np.swapaxes(a, -1, -2)


def _parts(g, n):
    """The n component adjoints of a tuple result's adjoint (NoTangent where it has none)."""
    if g is NoTangent or g is None:
        return [NoTangent] * n
    items = [NoTangent if v is None else v for v in list(g)]
    return items + [NoTangent] * (n - len(items))


def _dense_or_zero(g, like):
    return np.zeros(np.shape(like)) if g is NoTangent else np.asarray(g)


def solve_vjp(g, y, a, b):
    """x = solve(a, b): b's adjoint solve(a^T, g); a's -b_bar x^T.  A 1-D b is one vector (NumPy 2 rule)."""
    if g is NoTangent:
        return NoTangent, NoTangent
    g = np.asarray(g)
    if np.ndim(b) == 1:
        bb = np.linalg.solve(_mT(a), g[..., None])[..., 0]
        ab = -bb[..., :, None] * np.asarray(y)[..., None, :]
    else:
        bb = np.linalg.solve(_mT(a), g)
        ab = -(bb @ _mT(np.asarray(y)))
    return _unb(ab, a), _unb(bb, b)


def det_adjoint(a, y, g):
    """d det(A) = det(A) tr(A^-1 dA): A's adjoint g det(A) A^-T (a singular A raises LinAlgError)."""
    if g is NoTangent:
        return NoTangent
    return (np.asarray(g) * y)[..., None, None] * _mT(np.linalg.inv(a))


def slogdet_tangent(a, y, da):
    """(sign, log|det|): the sign is locally constant; d log|det A| = tr(A^-1 dA)."""
    if np.iscomplexobj(a):
        raise NotImplementedError("derivative of np.linalg.slogdet of a complex matrix")
    return NoTangent, np.trace(np.linalg.solve(a, da), axis1=-2, axis2=-1)


def slogdet_adjoint(a, y, g):
    if np.iscomplexobj(a):
        raise NotImplementedError("derivative of np.linalg.slogdet of a complex matrix")
    g_log = _parts(g, 2)[1]
    if g_log is NoTangent:
        return NoTangent
    return np.asarray(g_log)[..., None, None] * _mT(np.linalg.inv(a))


defvjp(np.linalg.solve, lambda t, g, y, a, b: _split(t, t.call(solve_vjp, g, y, a, b), 2))
defvjp(np.linalg.det, lambda t, g, y, a: (t.call(det_adjoint, a, y, g),))
defjvp(np.linalg.slogdet, lambda t, y, a: t.call(slogdet_tangent, a, y, t.d(a)) if t.d(a) is not None else None)
defvjp(np.linalg.slogdet, lambda t, g, y, a: (t.call(slogdet_adjoint, a, y, g),))


def _sym_seen(d, upper):
    """The symmetric matrix a routine that reads one triangle (cholesky, eigh) sees, from a full one."""
    if upper:
        return np.triu(d) + _mT(np.triu(d, 1))
    return np.tril(d) + _mT(np.tril(d, -1))


def _sym_seen_adjoint(p, upper):
    """The adjoint of _sym_seen: the triangle read gets p plus the mirrored p^T."""
    if upper:
        return np.triu(p) + np.triu(_mT(p), 1)
    return np.tril(p) + np.tril(_mT(p), -1)


def _phi(x):
    """The lower triangle of x with half its diagonal (cholesky's derivative)."""
    return np.tril(x) - 0.5 * (np.eye(x.shape[-1]) * x)


def cholesky_tangent(a, y, da, upper=False):
    """A = L L^T: dL = L Phi(L^-1 dS L^-T), dS the symmetric change numpy sees (the lower, or upper, triangle)."""
    L = _mT(y) if upper else y
    S = _sym_seen(np.broadcast_to(da, np.shape(a)), upper)
    X = np.linalg.solve(L, _mT(np.linalg.solve(L, S)))  # L^-1 S L^-T (S symmetric)
    dL = L @ _phi(X)
    return _mT(dL) if upper else dL


def cholesky_adjoint(a, y, g, upper=False):
    if g is NoTangent:
        return NoTangent
    L = _mT(y) if upper else y
    Lbar = _mT(np.asarray(g)) if upper else np.asarray(g)
    W = np.linalg.solve(_mT(L), _phi(_mT(L) @ Lbar))  # L^-T Phi(L^T Lbar)
    P = _mT(np.linalg.solve(_mT(L), _mT(W)))  # W L^-1
    return _sym_seen_adjoint(P, upper)


defjvp(np.linalg.cholesky, lambda t, y, a, upper=False: t.call(cholesky_tangent, a, y, t.d(a), upper) if t.d(a) is not None else None)
defvjp(np.linalg.cholesky, lambda t, g, y, a, upper=False: (t.call(cholesky_adjoint, a, y, g, upper),))


def _gaps(w):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it (distinct values assumed; equal ones give inf)."""
    diff = w[..., None, :] - w[..., :, None]
    n = w.shape[-1]
    with np.errstate(divide="ignore"):
        return np.where(np.eye(n, dtype=bool), 0.0, 1.0 / np.where(np.eye(n, dtype=bool), 1.0, diff))


def eigh_tangent(a, y, da, UPLO="L"):
    """A V = V diag(w): dw = diag(V^T dS V), dV = V (F * (V^T dS V)).  A symmetric with distinct eigenvalues."""
    w, V = y
    S = _sym_seen(np.broadcast_to(da, np.shape(a)), UPLO == "U")
    M = _mT(V) @ S @ V
    return np.diagonal(M, axis1=-2, axis2=-1).copy(), V @ (_gaps(w) * M)


def eigh_adjoint(a, y, g, UPLO="L"):
    w, V = y
    wbar, Vbar = _parts(g, 2)
    if wbar is NoTangent and Vbar is NoTangent:
        return NoTangent
    inner = np.zeros(V.shape)
    if Vbar is not NoTangent:
        inner = _gaps(w) * (_mT(V) @ np.asarray(Vbar))
    if wbar is not NoTangent:
        inner = inner + np.asarray(wbar)[..., None, :] * np.eye(w.shape[-1])
    return _sym_seen_adjoint(V @ inner @ _mT(V), UPLO == "U")


def eigvalsh_tangent(a, y, da, UPLO="L"):
    _, V = np.linalg.eigh(a, UPLO=UPLO)
    S = _sym_seen(np.broadcast_to(da, np.shape(a)), UPLO == "U")
    return np.diagonal(_mT(V) @ S @ V, axis1=-2, axis2=-1).copy()


def eigvalsh_adjoint(a, y, g, UPLO="L"):
    if g is NoTangent:
        return NoTangent
    _, V = np.linalg.eigh(a, UPLO=UPLO)
    return _sym_seen_adjoint((V * np.asarray(g)[..., None, :]) @ _mT(V), UPLO == "U")


defjvp(np.linalg.eigh, lambda t, y, a, UPLO="L": t.call(eigh_tangent, a, y, t.d(a), UPLO) if t.d(a) is not None else None)
defvjp(np.linalg.eigh, lambda t, g, y, a, UPLO="L": (t.call(eigh_adjoint, a, y, g, UPLO),))
defjvp(np.linalg.eigvalsh, lambda t, y, a, UPLO="L": t.call(eigvalsh_tangent, a, y, t.d(a), UPLO) if t.d(a) is not None else None)
defvjp(np.linalg.eigvalsh, lambda t, g, y, a, UPLO="L": (t.call(eigvalsh_adjoint, a, y, g, UPLO),))


def _qr_check(a, mode):
    m, n = np.shape(a)[-2:]
    if mode not in ("reduced", "complete", "r") or m < n or (mode == "complete" and m != n):
        raise NotImplementedError(f"derivative of np.linalg.qr with mode={mode!r} for a {m}x{n} matrix: "
                                  "tall or square matrices, mode 'reduced' or 'r' (or 'complete' when square)")


def _qr_factors(a, y, mode):
    return (np.linalg.qr(a)[0], y) if mode == "r" else (y[0], y[1])


def qr_tangent(a, y, da, mode="reduced"):
    """A = QR (R invertible): with X = Q^T dA R^-1, dR = (X - C) R and dQ = dA R^-1 - Q (X - C),
    C = tril(X, -1) - tril(X, -1)^T the antisymmetric part Q^T dQ."""
    _qr_check(a, mode)
    Q, R = _qr_factors(a, y, mode)
    Y = _mT(np.linalg.solve(_mT(R), _mT(np.broadcast_to(da, np.shape(a)))))  # dA R^-1
    X = _mT(Q) @ Y
    low = np.tril(X, -1)
    U = X - (low - _mT(low))
    dR = U @ R
    return dR if mode == "r" else (Y - Q @ U, dR)


def qr_adjoint(a, y, g, mode="reduced"):
    _qr_check(a, mode)
    Q, R = _qr_factors(a, y, mode)
    Qbar, Rbar = (NoTangent, g) if mode == "r" else _parts(g, 2)
    if Qbar is NoTangent and Rbar is NoTangent:
        return NoTangent
    Qbar, Rbar = _dense_or_zero(Qbar, Q), _dense_or_zero(Rbar, R)
    M = Rbar @ _mT(R) - _mT(Q) @ Qbar
    Xbar = M - np.tril(M - _mT(M), -1)
    Ybar = Qbar + Q @ Xbar
    return _mT(np.linalg.solve(R, _mT(Ybar)))  # Ybar R^-T


defjvp(np.linalg.qr, lambda t, y, a, mode="reduced": t.call(qr_tangent, a, y, t.d(a), mode) if t.d(a) is not None else None)
defvjp(np.linalg.qr, lambda t, g, y, a, mode="reduced": (t.call(qr_adjoint, a, y, g, mode),))


def _svd_check(a, full_matrices, hermitian):
    m, n = np.shape(a)[-2:]
    if hermitian:
        raise NotImplementedError("derivative of np.linalg.svd with hermitian=True")
    if full_matrices and m != n:
        raise NotImplementedError("derivative of np.linalg.svd of a non-square matrix needs full_matrices=False "
                                  "(the extra singular vectors are not unique)")


def _svd_gaps(s):
    """F[i, j] = 1 / (s[j]^2 - s[i]^2) off the diagonal (distinct singular values assumed)."""
    return _gaps(s * s)


def svd_tangent(a, y, da, full_matrices=True, compute_uv=True, hermitian=False):
    """A = U diag(s) V^T with dP = U^T dA V: ds = diag(dP);
    dU = U (F * (dP S + S dP^T)) + (I - U U^T) dA V S^-1, dV = V (F * (S dP + dP^T S)) + (I - V V^T) dA^T U S^-1."""
    da = np.broadcast_to(da, np.shape(a))
    if not compute_uv:
        U, s, Vh = np.linalg.svd(a, full_matrices=False)
        return np.diagonal(_mT(U) @ da @ _mT(Vh), axis1=-2, axis2=-1).copy()
    _svd_check(a, full_matrices, hermitian)
    U, s, Vh = y
    V = _mT(Vh)
    dP = _mT(U) @ da @ V
    F = _svd_gaps(s)
    row, col = s[..., :, None], s[..., None, :]
    dU = U @ (F * (dP * col + row * _mT(dP)))
    dU = dU + (da @ V - U @ (_mT(U) @ da @ V)) / col
    dV = V @ (F * (row * dP + _mT(dP) * col))
    dV = dV + (_mT(da) @ U - V @ (_mT(V) @ _mT(da) @ U)) / col
    return dU, np.diagonal(dP, axis1=-2, axis2=-1).copy(), _mT(dV)


def svd_adjoint(a, y, g, full_matrices=True, compute_uv=True, hermitian=False):
    if not compute_uv:
        if g is NoTangent:
            return NoTangent
        U, s, Vh = np.linalg.svd(a, full_matrices=False)
        return (U * np.asarray(g)[..., None, :]) @ Vh
    _svd_check(a, full_matrices, hermitian)
    U, s, Vh = y
    Ubar, sbar, Vhbar = _parts(g, 3)
    if Ubar is NoTangent and sbar is NoTangent and Vhbar is NoTangent:
        return NoTangent
    V = _mT(Vh)
    F = _svd_gaps(s)
    row, col = s[..., :, None], s[..., None, :]
    Pbar = np.zeros(np.shape(a)[:-2] + (s.shape[-1], s.shape[-1]))
    out = 0.0
    if Ubar is not NoTangent:
        Ubar = np.asarray(Ubar)
        J = F * (_mT(U) @ Ubar)
        Pbar = Pbar + (J + _mT(J)) * col
        out = out + ((Ubar - U @ (_mT(U) @ Ubar)) / col) @ Vh
    if Vhbar is not NoTangent:
        Vbar = _mT(np.asarray(Vhbar))
        K = F * (_mT(V) @ Vbar)
        Pbar = Pbar + row * (K + _mT(K))
        out = out + U @ _mT((Vbar - V @ (_mT(V) @ Vbar)) / col)
    if sbar is not NoTangent:
        Pbar = Pbar + np.asarray(sbar)[..., None, :] * np.eye(s.shape[-1])
    return out + U @ Pbar @ Vh


defjvp(np.linalg.svd, lambda t, y, a, full_matrices=True, compute_uv=True, hermitian=False:
       t.call(svd_tangent, a, y, t.d(a), full_matrices, compute_uv, hermitian) if t.d(a) is not None else None)
defvjp(np.linalg.svd, lambda t, g, y, a, full_matrices=True, compute_uv=True, hermitian=False:
       (t.call(svd_adjoint, a, y, g, full_matrices, compute_uv, hermitian),))


def _lstsq_parts(a, b, y):
    """pinv(a), x and the residual r = b - a x, as matrices (a 1-D b as one column); a must have full rank."""
    x, _, rank, _ = y
    if rank < min(np.shape(a)):
        raise NotImplementedError("derivative of np.linalg.lstsq of a rank-deficient matrix (the solution jumps)")
    P = np.linalg.pinv(a)
    X = np.asarray(x).reshape(np.shape(x)[0], -1)
    B = np.asarray(b, dtype=float).reshape(np.shape(b)[0], -1)
    return P, X, B - np.asarray(a) @ X


def lstsq_tangent(a, b, y, da, db):
    """x = pinv(A) b for a full-rank A: dx = -A+ dA x + A+ A+^T dA^T r + (I - A+ A) dA^T A+^T x + A+ db;
    the residual sums |r_j|^2 change by 2 r_j^T (db_j - dA x_j); the singular values by u_i^T dA v_i."""
    P, X, R = _lstsq_parts(a, b, y)
    x, res, _, s = y
    n = np.shape(a)[1]
    dA = 0.0 if da is NoTangent else np.broadcast_to(da, np.shape(a))
    dB = 0.0 if db is NoTangent else np.asarray(db, dtype=float).reshape(R.shape)
    dX = P @ (dB - dA @ X) + P @ _mT(P) @ (_mT(dA) @ R) + (np.eye(n) - P @ np.asarray(a)) @ (_mT(dA) @ (_mT(P) @ X))
    dres = 2.0 * np.sum(R * (dB - dA @ X), axis=0) if np.size(res) else np.zeros(np.shape(res))
    if da is NoTangent:
        ds = np.zeros(np.shape(s))
    else:
        U, _, Vh = np.linalg.svd(a, full_matrices=False)
        ds = np.diagonal(_mT(U) @ dA @ _mT(Vh)).copy()
    return dX.reshape(np.shape(x)), dres, NoTangent, ds


def lstsq_adjoint(a, b, y, g, which):
    """The adjoint of a (which=0) or b (which=1) of np.linalg.lstsq."""
    xbar, resbar, _, sbar = _parts(g, 4)
    if xbar is NoTangent and resbar is NoTangent and (sbar is NoTangent or which == 1):
        return NoTangent
    P, X, R = _lstsq_parts(a, b, y)
    A = np.asarray(a)
    n = A.shape[1]
    Xbar = np.zeros(X.shape) if xbar is NoTangent else np.asarray(xbar).reshape(X.shape)
    if which == 1:
        out = _mT(P) @ Xbar
        if resbar is not NoTangent and np.size(y[1]):
            out = out + 2.0 * R * np.asarray(resbar)
        return out.reshape(np.shape(b))
    W = P @ (_mT(P) @ Xbar)
    out = -_mT(P) @ Xbar @ _mT(X) + R @ _mT(W) + (_mT(P) @ X) @ _mT((np.eye(n) - P @ A) @ Xbar)
    if resbar is not NoTangent and np.size(y[1]):
        out = out - 2.0 * (R * np.asarray(resbar)) @ _mT(X)
    if sbar is not NoTangent:
        U, _, Vh = np.linalg.svd(A, full_matrices=False)
        out = out + (U * np.asarray(sbar)) @ Vh
    return out


defjvp(np.linalg.lstsq, lambda t, y, a, b, rcond=None: t.call(lstsq_tangent, a, b, y, t.dz(a), t.dz(b)) if (t.d(a) is not None or t.d(b) is not None) else None)
defvjp(np.linalg.lstsq, lambda t, g, y, a, b, rcond=None: (t.call(lstsq_adjoint, a, b, y, g, 0), t.call(lstsq_adjoint, a, b, y, g, 1), None))

if hasattr(np.linalg, "svdvals"):
    defjvp(np.linalg.svdvals, lambda t, y, a: t.call(svd_tangent, a, y, t.d(a), False, False) if t.d(a) is not None else None)
    defvjp(np.linalg.svdvals, lambda t, g, y, a: (t.call(svd_adjoint, a, y, g, False, False),))
if hasattr(np, "matrix_transpose"):
    defjvp(np.matrix_transpose, lambda t, y, x: t.lin(np.matrix_transpose, t.d(x)))
    defvjp(np.matrix_transpose, lambda t, g, y, x: (t.call(h.linear, np.matrix_transpose, g),))


# ================================================================== array methods
defmethod(nd, "diagonal", lambda t, y, x, *a, **k: t.lin(np.diagonal, t.d(x), *a, **k))
defvjp_method(nd, "diagonal", lambda t, g, y, x, offset=0, axis1=0, axis2=1: (t.call(diagonal_adjoint, x, g, offset, axis1, axis2),))
defmethod(nd, "trace", lambda t, y, x, *a, **k: t.lin(np.trace, t.d(x), *a, **_no_out(t, "ndarray.trace", k)))
defvjp_method(nd, "trace", lambda t, g, y, x, offset=0, axis1=0, axis2=1, **k: (t.call(trace_adjoint, x, g, offset, axis1, axis2),))
defmethod(nd, "swapaxes", lambda t, y, x, axis1, axis2: t.lin(np.swapaxes, t.d(x), axis1, axis2))
defvjp_method(nd, "swapaxes", lambda t, g, y, x, axis1, axis2: (t.call(swapaxes_adjoint, g, axis1, axis2), None, None))
for _name in ("conj", "conjugate"):
    defmethod(nd, _name, lambda t, y, x: t.lin(np.conjugate, t.d(x)))
    defvjp_method(nd, _name, lambda t, g, y, x: (t.call(conjugate_adjoint, g, x),))
defmethod(nd, "take", lambda t, y, x, *a, **k: t.lin(np.take, t.d(x), *a, **_no_out(t, "ndarray.take", k)))
defvjp_method(nd, "take", lambda t, g, y, x, indices, axis=None, out=None, mode="raise": (t.call(take_adjoint, x, g, indices, axis, mode),))
defmethod(nd, "repeat", lambda t, y, x, *a, **k: t.lin(np.repeat, t.d(x), *a, **k))
defvjp_method(nd, "repeat", lambda t, g, y, x, repeats, axis=None: (t.call(repeat_adjoint, x, g, repeats, axis), None, None))
defmethod(nd, "cumprod", lambda t, y, x, axis=None, **k: t.call(cumprod_tangent, x, y, t.d(x), axis) if t.d(x) is not None else None)
defvjp_method(nd, "cumprod", lambda t, g, y, x, axis=None, **k: (t.call(cumprod_adjoint, x, y, g, axis),))
defvjp_method(nd, "tolist", lambda t, g, y, x: (t.call(tolist_adjoint, x, g),))


def tolist_adjoint(x, g):
    """x.tolist() (nested lists of Python numbers): their adjoints, back as an array (zeros where none)."""
    if g is NoTangent:
        return NoTangent

    def dense(v):
        if v is NoTangent or v is None:
            return 0.0
        if isinstance(v, (list, tuple)):
            return [dense(e) for e in v]
        return v

    return np.asarray(dense(g), dtype=_float_dtype(x)).reshape(np.shape(x))
