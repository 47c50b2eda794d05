"""NumPy functions that call a function the user passes (issue 12): np.piecewise and
np.apply_along_axis, both modes.

Their source is NumPy's Python, but it reaches compiled helpers and `try` statements, so they get
rules that run when the call runs (like functools.reduce in python_lib.py): every call of the user's
function goes through `fcall` (forward) or `rcall` (reverse), so it may be any differentiable
callable (a lambda, a user function, a closure over differentiated values, a ufunc).

* piecewise(x, condlist, funclist, *args): y[cond_k] = funclist[k](x[cond_k], *args) (a constant
  where funclist[k] is not callable), one more function than conditions giving the "otherwise"
  piece; a later condition overwrites an earlier one, so an entry's adjoint goes to the last piece
  that wrote it.  Conditions are not differentiated (they only select).
* apply_along_axis(func1d, axis, arr, *args): func1d of every 1-D slice along axis, the results'
  axes put where axis was (as NumPy does).
Keyword arguments passed on to the function are refused (pass them positionally), so that none of
their derivatives is dropped.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent
from .registry import defrrule_at_run_time, defrule


def _no_kwargs(name, kwargs):
    if kwargs:
        raise NotImplementedError(f"derivative of np.{name} with keyword arguments for the function "
                                  f"({sorted(kwargs)}): pass them positionally")


def _items(xs, dxs):
    from .builtin_iteration import iter_tangents

    if dxs is NoTangent or dxs is None:
        return [NoTangent] * len(xs)
    return list(iter_tangents(xs, dxs))


def _dense(x, dx):
    x = np.asarray(x)
    if dx is NoTangent or dx is None:
        return np.zeros(x.shape, dtype=np.result_type(float, x.dtype))
    return np.array(np.broadcast_to(dx, x.shape), dtype=np.result_type(float, x.dtype, np.asarray(dx).dtype))


# ------------------------------------------------------------------ np.piecewise
def _conditions(x, condlist, n_funcs):
    """The conditions as one boolean array per piece, "otherwise" appended, as np.piecewise reads them."""
    if np.isscalar(condlist) or (not isinstance(condlist[0], (list, np.ndarray)) and x.ndim != 0):
        condlist = [condlist]
    conds = np.asarray(condlist, dtype=bool)
    if len(conds) == n_funcs - 1:
        conds = np.concatenate([conds, ~np.any(conds, axis=0, keepdims=True)], axis=0)
    if len(conds) != n_funcs:
        raise ValueError(f"with {len(conds)} condition(s), either {len(conds)} or {len(conds) + 1} functions are expected")
    return conds


def _owner(conds):
    """Per entry, the index of the last piece writing it (-1: none)."""
    owner = np.full(conds.shape[1:], -1)
    for k in range(len(conds)):
        owner = np.where(conds[k], k, owner)
    return owner


def frule_piecewise(args, dargs, **kwargs):
    from ..forward.runtime import fcall

    _no_kwargs("piecewise", kwargs)
    x, condlist, funclist, extra = np.asarray(args[0]), args[1], args[2], tuple(args[3:])
    dx, dfuncs, dextra = dargs[0], _items(funclist, dargs[2]), tuple(dargs[3:])
    conds = _conditions(x, condlist, len(funclist))
    y = np.zeros_like(x)
    dy = np.zeros(x.shape, dtype=np.result_type(float, x.dtype))
    dxd = _dense(x, dx)
    for cond, f, df in zip(conds, funclist, dfuncs):
        if not callable(f):
            y[cond] = f
            dy[cond] = 0.0 if df is NoTangent or df is None else df
            continue
        vals = x[cond]
        if vals.size == 0:
            continue
        v, dv = fcall(f, df, (vals, *extra), (dxd[cond], *dextra))
        y[cond] = v
        dy[cond] = 0.0 if dv is NoTangent or dv is None else dv
    return (y[()], dy[()]) if y.ndim == 0 else (y, dy)


def rrule_piecewise(x, condlist, funclist, *extra, **kwargs):
    from ..reverse.adjoints import accumulate
    from ..reverse.builtin_adjoints import _like
    from ..reverse.runtime import rcall

    _no_kwargs("piecewise", kwargs)
    xa = np.asarray(x)
    conds = _conditions(xa, condlist, len(funclist))
    y = np.zeros_like(xa)
    steps = []
    for k, (cond, f) in enumerate(zip(conds, funclist)):
        if not callable(f):
            y[cond] = f
            steps.append(None)
            continue
        vals = xa[cond]
        if vals.size == 0:
            steps.append(None)
            continue
        v, pb = rcall(f, (vals, *extra), {})
        y[cond] = v
        steps.append(pb)
    owner = _owner(conds)

    def pullback(g):
        if g is NoTangent or g is None:
            return (NoTangent,) * (3 + len(extra))
        g = np.broadcast_to(np.asarray(g, dtype=float), xa.shape)
        xbar = np.zeros(xa.shape)
        fbars = [NoTangent] * len(funclist)
        ebars = [NoTangent] * len(extra)
        for k, (cond, f) in enumerate(zip(conds, funclist)):
            mine = conds[k] & (owner == k)
            if not callable(f):
                if not isinstance(f, (bool, int, np.integer)):
                    fbars[k] = float(np.sum(g[mine]))
                continue
            if steps[k] is None:
                continue
            gv = np.where(mine[cond], g[cond], 0.0)
            fb, ab, _ = steps[k](gv)
            fbars[k] = fb
            if ab[0] is not NoTangent and ab[0] is not None:
                xbar[cond] += np.asarray(ab[0], dtype=float)
            for i in range(len(extra)):
                ebars[i] = accumulate(ebars[i], ab[1 + i])
        funcs_bar = _like(funclist, fbars) if any(b is not NoTangent for b in fbars) else NoTangent
        xb = xbar[()] if xa.ndim == 0 else xbar
        return (xb, NoTangent, funcs_bar, *ebars)

    return (y[()] if y.ndim == 0 else y), pullback


defrule(np.piecewise, frule_piecewise)
defrrule_at_run_time(np.piecewise, rrule_piecewise)


# ------------------------------------------------------------------ np.apply_along_axis
def _slices(arr, axis):
    """arr with axis moved last, and the indices of its 1-D slices."""
    a = np.moveaxis(np.asarray(arr), axis, -1)
    return a, list(np.ndindex(*a.shape[:-1]))


def _assemble(results, lead, axis):
    """The slices' results stacked (lead + result shape), their axes moved to where axis was."""
    res = [np.asarray(r) for r in results]
    buff = np.stack(res).reshape(lead + res[0].shape)
    nlead, nres = len(lead), res[0].ndim
    perm = list(range(axis)) + list(range(nlead, nlead + nres)) + list(range(axis, nlead))
    return np.transpose(buff, perm), perm


def frule_apply_along_axis(args, dargs, **kwargs):
    from ..forward.runtime import fcall

    _no_kwargs("apply_along_axis", kwargs)
    f, axis, arr, extra = args[0], args[1], np.asarray(args[2]), tuple(args[3:])
    axis = int(axis) % arr.ndim
    a, idx = _slices(arr, axis)
    da = np.moveaxis(_dense(arr, dargs[2]), axis, -1)
    if not idx:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    outs, douts = [], []
    for i in idx:
        v, dv = fcall(f, dargs[0], (a[i], *extra), (da[i], *dargs[3:]))
        outs.append(v)
        douts.append(np.zeros(np.shape(v)) if dv is NoTangent or dv is None else dv)
    y, _ = _assemble(outs, a.shape[:-1], axis)
    dy, _ = _assemble(douts, a.shape[:-1], axis)
    return y, dy.astype(np.result_type(float, dy.dtype))


def rrule_apply_along_axis(f, axis, arr, *extra, **kwargs):
    from ..reverse.adjoints import accumulate
    from ..reverse.runtime import rcall

    _no_kwargs("apply_along_axis", kwargs)
    arr_a = np.asarray(arr)
    ax = int(axis) % arr_a.ndim
    a, idx = _slices(arr_a, ax)
    if not idx:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    outs, pbs = [], []
    for i in idx:
        v, pb = rcall(f, (a[i].copy(), *extra), {})  # a copy: a view's adjoint would also land in arr's storage
        outs.append(v)
        pbs.append(pb)
    y, perm = _assemble(outs, a.shape[:-1], ax)

    def pullback(g):
        if g is NoTangent or g is None:
            return (NoTangent,) * (3 + len(extra))
        gbuff = np.transpose(np.broadcast_to(np.asarray(g, dtype=float), y.shape), np.argsort(perm))
        abar = np.zeros(a.shape)
        fbar = NoTangent
        ebars = [NoTangent] * len(extra)
        for i, pb in zip(idx, pbs):
            fb, ab, _ = pb(gbuff[i])
            fbar = accumulate(fbar, fb)
            if ab[0] is not NoTangent and ab[0] is not None:
                abar[i] += np.asarray(ab[0], dtype=float)
            for j in range(len(extra)):
                ebars[j] = accumulate(ebars[j], ab[1 + j])
        return (fbar, NoTangent, np.moveaxis(abar, -1, ax), *ebars)

    return y, pullback


defrule(np.apply_along_axis, frule_apply_along_axis)
defrrule_at_run_time(np.apply_along_axis, rrule_apply_along_axis)
