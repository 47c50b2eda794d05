"""Forward rules of NumPy: ufuncs, reductions, products, shapes, creation, linalg, array methods.

Forward mode needs no unbroadcasting: tangents broadcast like their primals.
Linear functions applied to a tangent go through `t.lin`, so a zero tangent
costs nothing.
"""
from __future__ import annotations

import numpy as np

from . import helpers as h
from .registry import defjvp, defmethod, defvjp, defvjp_method, defzero


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
unary(np.abs, lambda t, y, x: t.call(np.sign, x))
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
defjvp(np.fmax, lambda t, y, a, b, **k: t.call(np.where, t.call(np.greater_equal, a, b), t.dz(a), t.dz(b)))
defjvp(np.fmin, lambda t, y, a, b, **k: t.call(np.where, t.call(np.less_equal, a, b), t.dz(a), t.dz(b)))
defjvp(np.arctan2, lambda t, y, a, b, **k: t.div(t.sub(t.mul(t.d(a), b), t.mul(a, t.d(b))), t.add(t.mul(a, a), t.mul(b, b))))
defjvp(np.hypot, lambda t, y, a, b, **k: t.add(t.mul(t.d(a), t.div(a, y)), t.mul(t.d(b), t.div(b, y))))
defjvp(np.logaddexp, lambda t, y, a, b, **k: t.add(t.mul(t.d(a), t.call(np.exp, t.sub(a, y))), t.mul(t.d(b), t.call(np.exp, t.sub(b, y)))))
defjvp(np.where, lambda t, y, c, a, b: t.call(np.where, c, t.dz(a), t.dz(b)) if (t.d(a) is not None or t.d(b) is not None) else None)
defjvp(np.clip, lambda t, y, x, lo=None, hi=None, **k: t.call(clip_tangent, x, lo, hi, t.dz(x), t.dz(lo), t.dz(hi)))


def clip_tangent(x, lo, hi, dx, dlo, dhi):
    """Tangent of clip: dx inside the interval; the bound's tangent where a bound is active (ties: inside)."""
    out = np.where(True, dx, 0.0) if not isinstance(dx, np.ndarray) else dx
    if lo is not None:
        out = np.where(np.less(x, lo), dlo, out)
    if hi is not None:
        out = np.where(np.greater(x, hi), dhi, out)
    return out


# ------------------------------------------------------------------ reductions
defjvp(np.sum, lambda t, y, x, axis=None, **k: t.lin(np.sum, t.d(x), axis=axis, **k))
defjvp(np.mean, lambda t, y, x, axis=None, **k: t.lin(np.mean, t.d(x), axis=axis, **k))
defjvp(np.cumsum, lambda t, y, x, axis=None, **k: t.lin(np.cumsum, t.d(x), axis=axis, **k))
defjvp(np.max, lambda t, y, x, axis=None, keepdims=False: t.call(extremum_tangent, x, y, t.d(x), axis, keepdims) if t.d(x) is not None else None)
defjvp(np.min, lambda t, y, x, axis=None, keepdims=False: t.call(extremum_tangent, x, y, t.d(x), axis, keepdims) if t.d(x) is not None else None)
defjvp(np.prod, lambda t, y, x, axis=None, keepdims=False: t.call(prod_tangent, x, t.d(x), axis, keepdims) if t.d(x) is not None else None)


def extremum_tangent(x, y, dx, axis, keepdims):
    """Tangent of max/min: the tangent at the first position attaining the extremum."""
    x = np.asarray(x)
    dx = np.broadcast_to(np.asarray(dx, dtype=float) if not isinstance(dx, np.ndarray) else dx, x.shape)
    yk = y if keepdims or axis is None else np.expand_dims(y, axis)
    hit = x == yk
    if axis is None:
        return dx.reshape(-1)[int(np.argmax(hit.reshape(-1)))]
    first = np.argmax(hit, axis=axis)
    out = np.take_along_axis(dx, np.expand_dims(first, axis), axis=axis)
    return out if keepdims else np.squeeze(out, axis=axis)


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
            np.broadcast_to, np.flip, np.roll, np.tile, np.repeat, np.diag, np.trace, np.copy, np.atleast_1d,
            np.atleast_2d, np.diff, np.triu, np.tril, np.fliplr, np.flipud, np.rot90, np.diagonal, np.take):
    defjvp(_fn, lambda t, y, x, *a, _fn=_fn, **k: t.lin(_fn, t.d(x), *a, **k))
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
    return join(parts) if axis is None else join(parts, axis=axis)


# ------------------------------------------------------------------ linear algebra
defjvp(np.linalg.norm, lambda t, y, x, ord=None, axis=None, keepdims=False: t.call(norm_tangent, x, y, t.d(x), ord, axis, keepdims) if t.d(x) is not None else None)
defjvp(np.linalg.inv, lambda t, y, a: t.neg(t.call(np.matmul, y, t.lin(np.matmul, t.d(a), y))))
defjvp(np.linalg.solve, lambda t, y, a, b: t.call(np.linalg.solve, a, t.sub(t.d(b), t.lin(np.matmul, t.d(a), y))) if (t.d(a) is not None or t.d(b) is not None) else None)
defjvp(np.linalg.det, lambda t, y, a: t.mul(y, t.call(np.trace, t.call(np.linalg.solve, a, t.d(a)))) if t.d(a) is not None else None)


def norm_tangent(x, y, dx, ord, axis, keepdims):
    if ord not in (None, 2, "fro") or (axis is not None and not isinstance(axis, int)) and ord not in (None, "fro"):
        raise NotImplementedError(f"forward rule of np.linalg.norm with ord={ord!r}")
    yk = y if keepdims or axis is None else np.expand_dims(y, axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.sum(np.where(yk == 0, 0.0, x * dx / np.where(yk == 0, 1.0, yk)), axis=axis, keepdims=keepdims)


# ------------------------------------------------------------------ not differentiable
defzero(np.zeros, np.ones, np.empty, np.zeros_like, np.ones_like, np.empty_like, np.full, np.eye, np.identity,
        np.arange, np.shape, np.ndim, np.size, np.argmax, np.argmin, np.argsort, np.sign, np.floor, np.ceil,
        np.round, np.rint, np.trunc, np.isnan, np.isinf, np.isfinite, np.greater, np.less, np.equal,
        np.not_equal, np.greater_equal, np.less_equal, np.logical_and, np.logical_or, np.logical_not,
        np.all, np.any, np.nonzero, np.count_nonzero, np.allclose, np.isclose, np.array_equal, np.searchsorted)
defjvp(np.full_like, lambda t, y, x, v, *a, **k: t.call(np.full_like, y, t.dz(v), dtype=float) if t.d(v) is not None else None)
defjvp(np.linspace, lambda t, y, a, b, num=50, **k: t.add(t.mul(t.d(a), t.call(linspace_weight, num, False, **k)), t.mul(t.d(b), t.call(linspace_weight, num, True, **k))))


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
defmethod(nd, "max", lambda t, y, x, axis=None, keepdims=False: t.call(extremum_tangent, x, y, t.d(x), axis, keepdims) if t.d(x) is not None else None)
defmethod(nd, "min", lambda t, y, x, axis=None, keepdims=False: t.call(extremum_tangent, x, y, t.d(x), axis, keepdims) if t.d(x) is not None else None)
defmethod(nd, "prod", lambda t, y, x, axis=None, keepdims=False: t.call(prod_tangent, x, t.d(x), axis, keepdims) if t.d(x) is not None else None)
defmethod(nd, "astype", lambda t, y, x, dtype, *a, **k: t.call(astype_tangent, y, t.d(x)) if t.d(x) is not None else None)
defmethod(nd, "item", lambda t, y, x, *a: t.call(item_tangent, t.d(x), *a) if t.d(x) is not None else None)
defmethod(nd, "tolist", lambda t, y, x: t.call(tolist_tangent, t.d(x)) if t.d(x) is not None else None)
defmethod(nd, "clip", lambda t, y, x, lo=None, hi=None, **k: t.call(clip_tangent, x, lo, hi, t.dz(x), t.dz(lo), t.dz(hi)))
defmethod(nd, "fill", lambda t, y, x, v: t.call(fill_tangent, t.d(x), t.dz(v)) if t.d(x) is not None else None, mutates=(0,))
for _name in ("argmax", "argmin", "argsort", "nonzero", "all", "any", "__len__"):
    defmethod(nd, _name, lambda t, y, *a, **k: None)


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
defvjp(np.where, lambda t, g, y, c, a, b: (None, t.unb(t.call(np.where, c, g, 0.0), a), t.unb(t.call(np.where, c, 0.0, g), b)))
defvjp(np.sum, lambda t, g, y, x, axis=None, **k: (t.call(sum_adjoint, x, g, axis, k.get("keepdims", False)),))
defvjp(np.mean, lambda t, g, y, x, axis=None, **k: (t.call(mean_adjoint, x, g, axis, k.get("keepdims", False)),))
defvjp(np.dot, lambda t, g, y, a, b: (t.call(dot_adjoint_a, g, a, b), t.call(dot_adjoint_b, g, a, b)))
defvjp(np.matmul, lambda t, g, y, a, b: (t.call(matmul_adjoint_a, g, a, b), t.call(matmul_adjoint_b, g, a, b)))
defvjp_method(nd, "sum", lambda t, g, y, x, axis=None, **k: (t.call(sum_adjoint, x, g, axis, k.get("keepdims", False)),))
defvjp_method(nd, "mean", lambda t, g, y, x, axis=None, **k: (t.call(mean_adjoint, x, g, axis, k.get("keepdims", False)),))
defvjp_method(nd, "dot", lambda t, g, y, a, b: (t.call(dot_adjoint_a, g, a, b), t.call(dot_adjoint_b, g, a, b)))


def sum_adjoint(x, g, axis=None, keepdims=False):
    """Spread g back over the summed axes."""
    if axis is None and np.ndim(g) == 0:
        return np.full(np.shape(x), g, dtype=float)
    x = np.asarray(x)
    g = np.asarray(g, dtype=float)
    if axis is not None and not keepdims:
        g = np.expand_dims(g, axis)
    return np.broadcast_to(g, x.shape).copy()


def mean_adjoint(x, g, axis=None, keepdims=False):
    if axis is None and np.ndim(g) == 0:
        return np.full(np.shape(x), g / np.size(x), dtype=float)
    x = np.asarray(x)
    n = x.size if axis is None else np.prod([x.shape[a] for a in np.atleast_1d(axis)])
    return sum_adjoint(x, g, axis, keepdims) / n


def dot_adjoint_a(g, a, b):
    a, b, g = np.asarray(a), np.asarray(b), np.asarray(g)
    if a.ndim == 0 or b.ndim == 0:
        return (g * b).sum() if a.ndim == 0 else g * b
    if b.ndim == 1:
        return np.multiply.outer(g, b) if a.ndim > 1 else g * b
    return np.dot(g, np.swapaxes(b, -1, -2)) if a.ndim > 1 or g.ndim else g * b


def dot_adjoint_b(g, a, b):
    a, b, g = np.asarray(a), np.asarray(b), np.asarray(g)
    if a.ndim == 0 or b.ndim == 0:
        return (g * a).sum() if b.ndim == 0 else g * a
    if a.ndim == 1:
        return np.multiply.outer(a, g) if b.ndim > 1 else g * a
    return np.tensordot(a, g, axes=(list(range(a.ndim - 1)), list(range(a.ndim - 1))))


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
        return np.multiply.outer(a, g) if b.ndim > 1 else g * a
    ga = np.matmul(np.swapaxes(a, -1, -2), g[..., :, None] if b.ndim == 1 else g)
    ga = ga[..., 0] if b.ndim == 1 else ga
    from ..reverse.adjoints import unbroadcast

    return unbroadcast(ga, b)


def extremum_adjoint(x, y, g, axis=None, keepdims=False):
    """max/min: g goes to the first position attaining the extremum (ties: the first)."""
    x = np.asarray(x)
    out = np.zeros(x.shape, dtype=float)
    if axis is None:
        flat = int(np.argmax((x == y).reshape(-1)))
        out.reshape(-1)[flat] = g
        return out
    yk = y if keepdims else np.expand_dims(y, axis)
    first = np.argmax(x == yk, axis=axis)
    gk = g if keepdims else np.expand_dims(g, axis)
    np.put_along_axis(out, np.expand_dims(first, axis), gk, axis=axis)
    return out


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
    if ord not in (None, 2, "fro"):
        raise NotImplementedError(f"reverse rule of np.linalg.norm with ord={ord!r}")
    x = np.asarray(x)
    yk = y if keepdims or axis is None else np.expand_dims(y, axis)
    gk = g if keepdims or axis is None else np.expand_dims(g, axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(yk == 0, 0.0, gk * x / np.where(yk == 0, 1.0, yk))


def transpose_adjoint(x, g, axes=None):
    if axes is None:
        return np.transpose(g)
    return np.transpose(g, np.argsort(axes))


defvjp(np.max, lambda t, g, y, x, axis=None, keepdims=False: (t.call(extremum_adjoint, x, y, g, axis, keepdims),))
defvjp(np.min, lambda t, g, y, x, axis=None, keepdims=False: (t.call(extremum_adjoint, x, y, g, axis, keepdims),))
defvjp_method(nd, "max", lambda t, g, y, x, axis=None, keepdims=False: (t.call(extremum_adjoint, x, y, g, axis, keepdims),))
defvjp_method(nd, "min", lambda t, g, y, x, axis=None, keepdims=False: (t.call(extremum_adjoint, x, y, g, axis, keepdims),))
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
defvjp(np.linspace, lambda t, g, y, a, b, num=50, **k: (t.call(np.sum, t.mul(g, t.call(linspace_weight, num, False, **k))),
                                                        t.call(np.sum, t.mul(g, t.call(linspace_weight, num, True, **k))), None))
defvjp(np.cumsum, lambda t, g, y, x, axis=None, **k: (t.call(cumsum_adjoint, x, g, axis),))
defvjp(np.prod, lambda t, g, y, x, axis=None, keepdims=False: (t.call(prod_adjoint, x, g, axis, keepdims),))
defvjp(np.var, lambda t, g, y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False: (t.call(var_adjoint, x, g, axis, ddof, keepdims),))
defvjp(np.std, lambda t, g, y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False: (t.call(var_adjoint, x, t.div(g, t.mul(2.0, y)), axis, ddof, keepdims),))
defvjp(np.clip, lambda t, g, y, x, lo=None, hi=None, **k: (t.call(clip_adjoint, x, lo, hi, g), None, None))
defvjp(np.trace, lambda t, g, y, x, *a, **k: (t.call(trace_adjoint, x, g),))
defvjp(np.outer, lambda t, g, y, a, b: (t.call(np.dot, g, t.call(np.ravel, b)), t.call(np.dot, t.call(np.transpose, g), t.call(np.ravel, a))))
defvjp(np.inner, lambda t, g, y, a, b: (t.mul(g, b), t.mul(g, a)))


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


def clip_adjoint(x, lo, hi, g):
    inside = np.ones(np.shape(x), dtype=bool)
    if lo is not None:
        inside &= ~np.less(x, lo)
    if hi is not None:
        inside &= ~np.greater(x, hi)
    return np.where(inside, g, 0.0)


def trace_adjoint(x, g):
    return g * np.eye(*np.shape(x)[-2:])

defvjp(np.arctan2, lambda t, g, y, a, b, **k: (t.unb(t.div(t.mul(g, b), t.add(t.mul(a, a), t.mul(b, b))), a),
                                               t.unb(t.neg(t.div(t.mul(g, a), t.add(t.mul(a, a), t.mul(b, b)))), b)))
defvjp(np.hypot, lambda t, g, y, a, b, **k: (t.unb(t.mul(g, t.div(a, y)), a), t.unb(t.mul(g, t.div(b, y)), b)))
defvjp(np.logaddexp, lambda t, g, y, a, b, **k: (t.unb(t.mul(g, t.call(np.exp, t.sub(a, y))), a), t.unb(t.mul(g, t.call(np.exp, t.sub(b, y))), b)))
defvjp(np.atleast_1d, lambda t, g, y, x: (t.call(np.reshape, g, t.call(np.shape, x)),))
defvjp(np.atleast_2d, lambda t, g, y, x: (t.call(np.reshape, g, t.call(np.shape, x)),))
defvjp(np.roll, lambda t, g, y, x, shift, axis=None: (t.call(np.roll, g, t.neg(shift), axis=axis), None, None))
defvjp(np.flip, lambda t, g, y, x, axis=None: (t.call(np.flip, g, axis=axis), None))
defvjp(np.asanyarray, lambda t, g, y, x, *a, **k: (t.call(array_adjoint, x, g),) + (None,) * len(a))
defvjp(np.split, lambda t, g, y, x, *a, **k: (t.call(split_adjoint, x, g, *a, **k),) + (None,) * len(a))
defvjp(np.array_split, lambda t, g, y, x, *a, **k: (t.call(split_adjoint, x, g, *a, **k),) + (None,) * len(a))
defvjp_method(nd, "clip", lambda t, g, y, x, lo=None, hi=None, **k: (t.call(clip_adjoint, x, lo, hi, g), None, None))
defvjp_method(nd, "transpose", lambda t, g, y, x, *axes: (t.call(transpose_adjoint, x, g, axes[0] if len(axes) == 1 else (axes or None)),) + (None,) * len(axes))
defvjp_method(nd, "astype", lambda t, g, y, x, *a, **k: (t.call(astype_adjoint, x, g),) + (None,) * len(a))
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


def astype_adjoint(x, g):
    if np.asarray(x).dtype.kind not in "fc":
        return _no()
    return np.asarray(g).astype(np.asarray(x).dtype)


def item_adjoint_array(x, g, *a):
    out = np.zeros(np.shape(x))
    if a:
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
