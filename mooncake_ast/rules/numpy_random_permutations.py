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
from .registry import defjvp, defrrule_at_run_time, defvjp, defzero


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


# ---------------------------------------------------------------- shuffle (in place) and permuted
# `rng.shuffle(x)` permutes x's rows in place: the derivative is the same permutation of the tangent (forward) and
# its inverse applied to the adjoint (reverse).  The permutation does not depend on the values: shuffle draws it as
# `rng.permutation(n)` does from the same state (NumPy's Fisher-Yates over the n rows, whatever their dtype or
# shape), so it is found exactly, ties included, by drawing it from a copy of the state (then put back): forward
# mode before the call (the template sees x as shuffle will find it), reverse mode before it too, and checked after
# it against what shuffle did (a difference is refused, never differentiated).


def _state(rng):
    return rng.bit_generator.state if isinstance(rng, np.random.Generator) else rng.get_state()


def _set_state(rng, state):
    if isinstance(rng, np.random.Generator):
        rng.bit_generator.state = state
    else:
        rng.set_state(state)


def shuffle_order(rng, n):
    """The permutation `rng.shuffle` of n rows will apply, drawn without moving rng's state."""
    state = _state(rng)
    try:
        return rng.permutation(n)
    finally:
        _set_state(rng, state)


def _shuffle_axis(x, axis):
    if not isinstance(x, np.ndarray):
        raise NotImplementedError("derivative of shuffle of a list: shuffle an array (np.asarray(xs)), or draw the "
                                  "indices (`idx = rng.permutation(len(xs))`) and index with them")
    axis = int(axis)
    return axis + x.ndim if axis < 0 else axis


def shuffle_tangent(rng, x, dx, axis=0):
    """Before `rng.shuffle(x, axis)`: the same permutation of x's tangent storage, in place."""
    if dx is NoTangent or dx is None or np.ndim(x) == 0:
        return None
    ax = _shuffle_axis(x, axis)
    perm = shuffle_order(rng, x.shape[ax])
    dx[...] = np.take(dx, perm, axis=ax)
    return None


def _shuffle_jvp(t, y, self, x, axis=0):
    if t.d(x) is None:
        return None
    t.call(shuffle_tangent, self, x, t.d(x), axis)
    return None


def rrule_shuffle(rng, x, axis=0):
    """`rng.shuffle(x, axis)` in reverse mode (the generator comes first: reverse/runtime.rcall passes it to rules
    marked `takes_self`): the pullback gives x's adjoint storage the inverse permutation and puts x back."""
    from ..reverse import shadows

    ax = _shuffle_axis(x, axis)
    if x.dtype.kind not in "fc":
        return (rng.shuffle(x, axis=axis) if axis else rng.shuffle(x)), lambda g: (NoTangent,) * (1 + (axis != 0))
    old = x.copy()
    perm = shuffle_order(rng, x.shape[ax])
    y = rng.shuffle(x, axis=axis) if axis else rng.shuffle(x)
    if not np.array_equal(x, np.take(old, perm, axis=ax), equal_nan=True):
        x[...] = np.take(old, perm, axis=ax)  # (never reached with NumPy's shuffle; refused rather than guessed)
        raise NotImplementedError("reverse mode of shuffle: the permutation it applied is not the one its generator "
                                  "draws for rng.permutation(n) from the same state; draw the indices instead "
                                  "(`idx = rng.permutation(len(x)); x[idx]`)")

    def pullback(g):
        shadows.remember(x)
        sh = shadows.shadow(x)
        back = np.empty_like(sh)
        index = [slice(None)] * sh.ndim
        index[ax] = perm
        back[tuple(index)] = sh  # (row i of the result was row perm[i] of x)
        sh[...] = back
        x[...] = old
        return (NoTangent,) * (1 + (axis != 0))

    return y, pullback


rrule_shuffle.takes_self = True


def _flat_slices(a, axis):
    """a's values as rows, one row per 1-d slice that permuted shuffles (all of a when axis is None)."""
    a = np.asarray(a)
    if axis is None:
        return a.reshape(1, -1)
    return np.moveaxis(a, int(axis), -1).reshape(-1, a.shape[int(axis)])


def permuted_order(x, y, axis):
    """For each slice, the positions in x of the values of y (`y_row == x_row[idx_row]`); refused where a slice of x
    holds equal values (which went where cannot be told)."""
    rx, ry = _flat_slices(x, axis), _flat_slices(y, axis)
    out = np.empty(rx.shape, dtype=np.intp)
    for r in range(rx.shape[0]):
        xs = rx[r]
        order = np.argsort(xs, kind="stable")
        if len(xs) > 1 and np.any(xs[order][1:] == xs[order][:-1]):
            raise NotImplementedError("derivative of rng.permuted of an array with equal values in a slice it "
                                      "shuffles: which went where is not known; draw the indices instead "
                                      "(`idx = rng.permutation(n); np.take(x, idx, axis)`)")
        pos = np.searchsorted(xs[order], ry[r])
        pos = np.minimum(pos, len(xs) - 1)
        if not np.array_equal(xs[order][pos], ry[r]):
            raise NotImplementedError("derivative of rng.permuted: its result holds values not in the array")
        out[r] = order[pos]
    return out


def _apply_slices(a, idx, axis):
    a = np.asarray(a)
    rows = _flat_slices(a, axis)
    moved = np.take_along_axis(rows, idx, axis=1)
    if axis is None:
        return moved.reshape(a.shape)
    ax = int(axis)
    shape = np.moveaxis(a, ax, -1).shape
    return np.moveaxis(moved.reshape(shape), -1, ax)


def permuted_tangent(x, y, dx, axis=None):
    if dx is NoTangent:
        return NoTangent
    dx = np.broadcast_to(dx, np.shape(x))
    return _apply_slices(dx, permuted_order(x, y, axis), axis)


def permuted_adjoint(x, y, g, axis=None):
    if _no_adjoint(g):
        return NoTangent
    idx = permuted_order(x, y, axis)
    rows = np.zeros(_flat_slices(x, axis).shape, dtype=np.result_type(np.asarray(g).dtype, float))
    np.put_along_axis(rows, idx, _flat_slices(g, axis), axis=1)
    if axis is None:
        return rows.reshape(np.shape(x))
    ax = int(axis)
    shape = np.moveaxis(np.asarray(x), ax, -1).shape
    return np.moveaxis(rows.reshape(shape), -1, ax)


def _permuted_jvp(t, y, self, x, axis=None, out=None):
    return t.call(permuted_tangent, x, y, t.d(x), axis) if t.d(x) is not None else None


def _permuted_vjp(t, g, y, self, x, axis=None, out=None):
    return (None, t.call(permuted_adjoint, x, y, g, axis))


# ---------------------------------------------------------------- models, for derivatives of derivatives
# Differentiated again, a shuffle or permuted call is one of these plain functions (itertools_models.model_for asks
# model_for): the permutation drawn as the call draws it (`rng.permutation(n)` consumes the state shuffle would), the
# values moved by indexing, which every order differentiates.


def generator_shuffle(rng, x, axis=0):
    ax = axis + np.ndim(x) if axis < 0 else axis
    perm = rng.permutation(np.shape(x)[ax])
    x[...] = np.take(x.copy(), perm, axis=ax)


def randomstate_shuffle(rng, x):
    perm = rng.permutation(np.shape(x)[0])
    x[...] = np.take(x.copy(), perm, axis=0)


def generator_permuted(rng, x, axis=None):
    positions = np.arange(np.size(x)).reshape(np.shape(x))
    idx = rng.permuted(positions, axis=axis)
    return np.reshape(x, -1)[np.reshape(idx, -1)].reshape(np.shape(x))


def model_for(f, args, kwargs):
    """The model of `rng.shuffle(x)` / `rng.permuted(x)` of a float array, bound to its generator, or None.  Checked
    against the call itself from the same state (then put back): a difference is refused, never differentiated."""
    import types

    rng = getattr(f, "__self__", None)
    if not isinstance(rng, (np.random.Generator, np.random.RandomState)):
        return None
    name = getattr(f, "__name__", "")
    models = {"shuffle": generator_shuffle if isinstance(rng, np.random.Generator) else randomstate_shuffle}
    if isinstance(rng, np.random.Generator):
        models["permuted"] = generator_permuted
    model = models.get(name)
    if model is None or not args or not isinstance(args[0], np.ndarray) or args[0].dtype.kind != "f":
        return None
    from .forward_code_rules import NestingError

    kw = dict(kwargs or {})
    code = model.__code__
    names = code.co_varnames[1:code.co_argcount]
    if len(args) > len(names) or any(k not in names[len(args):] for k in kw):
        raise NestingError(f"nested derivative of {type(rng).__name__}.{name}: arguments {tuple(kw) or len(args)} are "
                           f"not supported at second order (supported: {', '.join(names)})")
    x = args[0]
    state = _state(rng)
    try:
        a, b = x.copy(), x.copy()
        want = f(a, *args[1:], **kw) if name == "permuted" else (f(a, *args[1:], **kw), a)[1]
        after = _state(rng)
        _set_state(rng, state)
        got = model(rng, b, *args[1:], **kw) if name == "permuted" else (model(rng, b, *args[1:], **kw), b)[1]
        same = np.array_equal(want, got, equal_nan=True) and str(_state(rng)) == str(after)
    finally:
        _set_state(rng, state)
    if not same:
        raise NestingError(f"nested derivative of {type(rng).__name__}.{name}: its second derivative follows a model of "
                           f"the draw, which differs from NumPy's here; draw the indices instead (`idx = "
                           f"rng.permutation(len(x)); x[idx]`)")
    return types.MethodType(model, rng)


def register() -> None:
    for cls in (np.random.Generator, np.random.RandomState):
        defjvp((cls, "permutation"), _permutation_jvp)
        defvjp((cls, "permutation"), _permutation_vjp)
        jvp, vjp = _choice_rules(cls.__name__)
        defjvp((cls, "choice"), jvp)
        defvjp((cls, "choice"), vjp)
        defzero((cls, "poisson"))  # (counts: integers, no derivative in the rate)
        defjvp((cls, "shuffle"), _shuffle_jvp, mutates=(1,))
        defrrule_at_run_time((cls, "shuffle"), rrule_shuffle)
    defjvp((np.random.Generator, "permuted"), _permuted_jvp)
    defvjp((np.random.Generator, "permuted"), _permuted_vjp)
    defzero(shuffle_order)  # (a permutation of positions: no derivative, at any order)
