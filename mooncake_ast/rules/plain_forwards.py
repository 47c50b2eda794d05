"""Plain forward functions of primitives: the derivative of a call that forward code dispatches at run time.

Forward code dispatches some calls when it runs (`_mc.fcall(operator.mul, ...)` when an
operand's type is unknown; helpers such as `h.pow_deriv`, `conform`, `view_read` that it
calls).  Differentiated again (a nested derivative, rules/api_rules.py), such a call needs
its forward derivative written as ordinary Python: the `_..._fwd` functions here take
`(*args, *dargs)` and return `(y, dy)`, and are traced like user code, so they can be
differentiated at any order.  `_PLAIN` maps each callable to its function.  Apart from
forward_code_rules.py, which registers rules of the run-time helpers: these are not rules,
they are source to be transformed, and must stay plain Python.
"""
from __future__ import annotations

import operator

import numpy as np

from .. import ops as _ops
from ..forward.runtime import conform as _conform
from ..forward.runtime import fcall as _fcall
from ..tangents import NoTangent
from ..tangents import storage as _storage
from . import builtin_iteration as _builtin_iteration
from . import helpers as h
from . import nested_helpers as nh
from . import numpy_reductions as _numpy_reductions
from . import numpy_shapes as _numpy_shapes


def _mul_fwd(a, b, da, db):
    return a * b, da * b + a * db


def _add_fwd(a, b, da, db):
    return a + b, da + db


def _sub_fwd(a, b, da, db):
    return a - b, da - db


def _truediv_fwd(a, b, da, db):
    y = a / b
    return y, (da - y * db) / b


def _matmul_fwd(a, b, da, db):
    return a @ b, da @ b + a @ db


def _neg_fwd(a, da):
    return -a, -da


def _pow_deriv_fwd(base, p, dbase, dp):
    return h.pow_deriv(base, p), dbase * (p * h.pow_deriv(base, lowered_exponent(p)))


def lowered_exponent(p):
    """p - 1, but 0 where an integer p is 0: so `p * pow_deriv(base, lowered_exponent(p))`, the second derivative
    p (p-1) base**(p-2), is exactly 0 where p == 0, as pow_deriv is (it was 0 * inf = nan at base 0: `x ** np.arange(3)`
    at x = 0, nested).  Only integers are masked: they are never differentiated, so the mask changes no derivative
    (a float p keeps d/dp through p - 1).  Plain Python without rules of its own: differentiated again, it is traced."""
    if isinstance(p, np.ndarray):
        if p.dtype.kind in "iu":
            return np.where(p == 0, 1, p) - 1
        return p - 1.0
    if isinstance(p, (int, np.integer)) and not isinstance(p, bool):
        return float(p - 1) if p != 0 else 0.0
    return p - 1.0


def _pow_deriv_full_fwd(base, p, dbase, dp):
    # d/dp (p * base**(p-1)) = base**(p-1) * (1 + p * log(base)), as _pow_deriv_dp
    return h.pow_deriv(base, p), dbase * (p * h.pow_deriv(base, lowered_exponent(p))) + dp * (
        np.power(base, p - 1.0) * (1.0 + p * h.log_for_pow(base, dp)))


def _pow_full_fwd(a, b, da, db):
    y = a ** b
    return y, da * h.pow_deriv(a, b) + db * (y * h.log_for_pow(a, db))


def _storage_fwd(x, dx, ddx_of_x, ddx):
    return _storage(x, dx), ddx


def _conform_fwd(y, x, dx, dy, dx_, ddx):
    return _conform(y, x, dx), _conform(y, x, ddx)


def _fit_fwd(y, dy, dy_of_y, ddy):
    from ..forward.runtime import fit  # (linear in the tangent: the tangent's tangent is fitted the same way)

    return fit(y, dy), fit(y, ddy)


def _zero_fwd(f, args):
    y = f(*args)
    return y, nh.result_storage(y)


def _zero_kw_fwd(f, args, kwargs):
    y = f(*args, **kwargs)
    return y, nh.result_storage(y)


def _getitem_fwd(a, i, da, di):
    return a[i], da[i]


def _pow_const_fwd(a, b, da, db):
    return a ** b, da * h.pow_deriv(a, b)


def _pow_int_fwd(a, b, da, db):
    # An integer exponent (`x ** 2`) through int(), whose derivative is zero: at every order the exponent has
    # the symbolic zero as its tangent, so no term reads log(a) (nan below 0; nan times zero is nan).
    k = int(b)
    return a ** k, da * h.pow_deriv(a, k)


def _pow_deriv_int_fwd(base, p, dbase, dp):
    k = int(p)
    return h.pow_deriv(base, k), dbase * (k * h.pow_deriv(base, lowered_exponent(k)))


def _log_for_pow_fwd(base, dbase):
    return h.log_for_pow(base), dbase / base


def _log_for_pow_at_fwd(base, z, dbase, dz):
    # (z only picks log|base| or nan below 0: no derivative of its own, and the plan marks it constant)
    return h.log_for_pow(base, z), dbase / base


def _pos_fwd(a, da):
    return +a, da


def _unpack_fwd(x, n, dx, dn):
    return _ops.unpack(x, n), _ops.unpack(dx, n)


def _sequence_fwd(x, dx):
    # `ops.sequence(x)` (what a for loop iterates) and its tangent, as its forward template writes them
    # (an iterator read as the loop asks, as at the first order: reading it whole gave a later reader of the same
    # iterator nothing -- `for v in it: ... break` then `for v in it`, jacfwd(jacfwd) -- a zero second derivative)
    seq = _ops.sequence(x)
    return seq, _builtin_iteration.sequence_tangent(x, seq, dx)


def _all_items_fwd(seq, dseq):
    return _ops.all_items(seq), _builtin_iteration.all_items_tangent(seq, dseq)


def _view_read_fwd(tc, index, dtc, dindex):
    # nested_helpers.view_read and its tangent: the same view of the (dense) tangent
    return nh.view_read(tc, index), nh.view_read(dtc, index)


def _dot_fwd(a, b, da, db):
    return np.dot(a, b), np.dot(da, b) + np.dot(a, db)


def _linear_fwd(*ad):
    # `h.linear(fn, dx, *rest)` (forward code's tangent of a NumPy call linear in its first argument: reshape, sum,
    # np.dot's `dot(da, b)`, ...) and its tangent: the tangent of the call fn(dx, *rest) itself, whose other
    # arguments may be differentiated too (np.dot's b).  Variadic, so a plan of its own (a call with *rest has no
    # positional plan, api_rules._plan).
    k = len(ad) // 2
    args = ad[:k]
    if args[1] is NoTangent:
        return NoTangent, NoTangent
    return _fcall(args[0], NoTangent, args[1:], ad[k + 1:])


def _extremum_fwd(*ad):
    # `extremum_tangent(x, y, dx, axis, keepdims[, where])` (max/min's tangent: dx at the first extremum) and
    # its tangent: linear in dx, its mask piecewise constant in x and y
    k = len(ad) // 2
    args = ad[:k]
    return _numpy_reductions.extremum_tangent(*args), _numpy_reductions.extremum_tangent(args[0], args[1], ad[k + 2],
                                                                                         *args[3:])


def _join_tangent_fwd(join, xs, dxs, axis, t_join, t_xs, t_dxs, t_axis):
    # `join_tangent(join, xs, dxs, axis)` (np.stack/concatenate's tangent) and its tangent: linear in dxs, the parts
    # xs giving shapes only (a third order over np.stack(rows) was refused: randprog rows)
    if t_dxs is NoTangent:
        t_dxs = [NoTangent] * len(xs)
    return _numpy_shapes.join_tangent(join, xs, dxs, axis), _numpy_shapes.join_tangent(join, xs, t_dxs, axis)


def _float_fwd(a=0.0, da=NoTangent):
    # `float(v)` (a NumPy number or a 0-d array made a Python float) and its tangent made a float alike: linear (every
    # second order of a function calling float() was refused, "the forward derivative of float comes from a
    # hand-written rule"); a string's or an int's tangent is a zero
    if da is NoTangent or da is None:
        return float(a), 0.0
    return float(a), float(da)


_PLAIN = {_ops.unpack: _unpack_fwd, operator.getitem: _getitem_fwd, operator.pos: _pos_fwd, operator.mul: _mul_fwd, operator.add: _add_fwd, operator.sub: _sub_fwd, operator.truediv: _truediv_fwd,
          operator.matmul: _matmul_fwd, operator.neg: _neg_fwd, float: _float_fwd}


def _helpers_of_rules() -> None:
    """The plain forwards of run-time helpers that rules and forward code call."""
    from ..forward.runtime import fit

    _PLAIN[nh.view_read] = _view_read_fwd
    _PLAIN[fit] = _fit_fwd
    _PLAIN[_ops.sequence] = _sequence_fwd
    _PLAIN[_ops.all_items] = _all_items_fwd
    _PLAIN[h.linear] = _linear_fwd
    _PLAIN[np.dot] = _dot_fwd
    _PLAIN[_numpy_reductions.extremum_tangent] = _extremum_fwd
    _PLAIN[_numpy_shapes.join_tangent] = _join_tangent_fwd


_helpers_of_rules()


def _putmask_fwd(a, mask, values, da, dmask, dvalues):
    """`np.putmask(a, mask, values)` with values of a's shape or a single value (api_rules checks): a masked write,
    and its tangent's twin into a's tangent."""
    m = np.asarray(mask, dtype=bool)
    a[...] = np.where(m, values, a)
    da[...] = np.where(m, dvalues, da)
    return None, NoTangent


def putmask_plain(args: tuple) -> bool:
    """Is `np.putmask(*args)` a masked write _putmask_fwd follows (a float array, a mask of its shape, values of its
    shape or a single value)?  NumPy repeats other values cyclically, which is refused."""
    if len(args) != 3:
        return False
    a, mask, values = args
    return type(a) is np.ndarray and a.dtype.kind == "f" and np.shape(mask) == a.shape and \
        np.asarray(mask).dtype.kind == "b" and (np.shape(values) == a.shape or np.size(values) == 1) and \
        not (isinstance(values, np.ndarray) and values.dtype.kind == "c")
