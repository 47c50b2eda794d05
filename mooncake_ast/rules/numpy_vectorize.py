"""np.vectorize of a differentiable Python function (issue 12), both modes.

NumPy's vectorize runs the function on every element through compiled code (np.frompyfunc), so it
gets rules that run when the call runs: constructing `np.vectorize(f)` is the plain construction
(the object only stores f), and calling it runs f element by element (after broadcasting the
arguments) through `fcall` (forward) or `rcall` (reverse), the result's tangent and the arguments'
adjoints assembled entry by entry.  Refused rather than approximated: `signature=`, `excluded=`,
keyword arguments to the call, output types that are not floating point, several outputs, and a
function closing over differentiated values (its derivative would be dropped: call the function
through a lambda of the values instead, or pass them as arguments).
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent
from .registry import _entry, _fingerprint, defrule


def _run_time_reverse(fn, rrule):
    r = _entry(fn)
    r.user_rrule = rrule
    r.fingerprint = _fingerprint(r.jvp, r.user_frule, rrule)


def _zeroish(d):
    from ..forward.runtime import _all_zero

    return d is None or d is NoTangent or _all_zero(d)


def _closes_over_numbers(f):
    """Does f read floats or float arrays from closure cells (values reverse mode might differentiate)?"""
    for cell in getattr(f, "__closure__", None) or ():
        try:
            v = cell.cell_contents
        except ValueError:
            continue
        if isinstance(v, (float, complex, np.floating)) or (isinstance(v, np.ndarray) and v.dtype.kind in "fc"):
            return True
    return False


def _check(vec, kwargs):
    if kwargs:
        raise NotImplementedError(f"derivative of an np.vectorize call with keyword arguments {sorted(kwargs)}")
    if getattr(vec, "signature", None) is not None or getattr(vec, "excluded", None):
        raise NotImplementedError("derivative of np.vectorize with signature= or excluded=")
    otypes = getattr(vec, "otypes", None)
    if otypes and any(np.dtype(o).kind not in "fc" for o in otypes):
        raise NotImplementedError(f"derivative of np.vectorize with otypes={otypes!r}")


# ------------------------------------------------------------------ construction
def _function_tangent_zero(d):
    """Is a function's tangent zero: no closure cell and no default carries a nonzero tangent?"""
    from ..tangents import FunctionTangent

    if not isinstance(d, FunctionTangent):
        return _zeroish(d)
    cells = d.cells if isinstance(d.cells, tuple) else ()
    return (all(c is None or _zeroish(getattr(c, "cell_contents", None)) for c in cells)
            and all(_zeroish(v) for v in d.defaults) and all(_zeroish(v) for v in d.kwdefaults.values()))


def frule_construct(args, dargs, **kwargs):
    if dargs and not _function_tangent_zero(dargs[0]):
        raise NotImplementedError("forward mode of np.vectorize of a function closing over differentiated values "
                                  "(pass them to it as arguments)")
    return np.vectorize(*args, **kwargs), NoTangent


def rrule_construct(*args, **kwargs):
    if args and _closes_over_numbers(args[0]):
        raise NotImplementedError("reverse mode of np.vectorize of a function closing over numbers "
                                  "(pass them to it as arguments)")
    return np.vectorize(*args, **kwargs), lambda g: (NoTangent,) * len(args)


# ------------------------------------------------------------------ the call
def _broadcast(args):
    arrays = [np.asarray(a) for a in args]
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    return [np.broadcast_to(a, shape) for a in arrays], shape


def _item(v):
    return v.item() if isinstance(v, np.ndarray) and v.dtype.kind in "fc" else v


def frule_call(args, dargs, **kwargs):
    from ..forward.runtime import fcall

    vec, xs = args[0], args[1:]
    _check(vec, kwargs)
    arrays, shape = _broadcast(xs)
    dense = [None if _zeroish(d) else np.broadcast_to(np.asarray(d), shape) for d in dargs[1:]]
    ys, dys = [], []
    for i in np.ndindex(*shape):
        v, dv = fcall(vec.pyfunc, NoTangent, tuple(_item(a[i]) for a in arrays),
                      tuple(NoTangent if d is None else _item(d[i]) for d in dense))
        if isinstance(v, tuple):
            raise NotImplementedError("derivative of np.vectorize of a function with several outputs")
        ys.append(v)
        dys.append(0.0 if _zeroish(dv) else dv)
    y = np.array(ys).reshape(shape)  # (complex where the function returns complex numbers)
    dy = np.array(dys, dtype=np.result_type(float, *[np.asarray(d).dtype for d in dys])).reshape(shape)
    return (y[()], dy[()]) if y.ndim == 0 else (y, dy)


def rrule_call(vec, *xs, **kwargs):
    from ..reverse.adjoints import unbroadcast
    from ..reverse.runtime import rcall

    _check(vec, kwargs)
    arrays, shape = _broadcast(xs)
    ys, pbs = [], {}
    for i in np.ndindex(*shape):
        v, pb = rcall(vec.pyfunc, tuple(_item(a[i]) for a in arrays), {})
        if isinstance(v, tuple):
            raise NotImplementedError("derivative of np.vectorize of a function with several outputs")
        ys.append(v)
        pbs[i] = pb
    y = np.array(ys).reshape(shape)

    def pullback(g):
        if g is NoTangent or g is None:
            return (NoTangent,) * (1 + len(xs))
        g = np.broadcast_to(np.asarray(g, dtype=float), shape)
        bars = [np.zeros(shape) for _ in xs]
        for i, pb in pbs.items():
            _, ab, _ = pb(float(g[i]))
            for j, b in enumerate(ab):
                if b is not NoTangent and b is not None:
                    bars[j][i] += b
        out = []
        for x, b in zip(xs, bars):
            if isinstance(x, (bool, int, np.integer)) or (isinstance(x, np.ndarray) and x.dtype.kind not in "fc"):
                out.append(NoTangent)
                continue
            u = unbroadcast(b, np.asarray(x))
            out.append(float(u) if np.ndim(x) == 0 and not isinstance(x, np.ndarray) else u)
        return (NoTangent, *out)

    return (y[()] if y.ndim == 0 else y), pullback


defrule(np.vectorize, frule_construct)
_run_time_reverse(np.vectorize, rrule_construct)
defrule(np.vectorize.__call__, frule_call)
_run_time_reverse(np.vectorize.__call__, rrule_call)
