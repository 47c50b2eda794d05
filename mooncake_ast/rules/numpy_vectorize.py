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
from .registry import defrrule_at_run_time, defrule


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


def elementwise_forward(pyfunc, xs, dxs, what):
    """pyfunc applied entry by entry to the broadcast arguments xs, with tangents dxs: (values, tangents), as lists
    in C order, and the shape."""
    from ..forward.runtime import fcall

    arrays, shape = _broadcast(xs)
    dense = [None if _zeroish(d) else np.broadcast_to(np.asarray(d), shape) for d in dxs]
    ys, dys = [], []
    for i in np.ndindex(*shape):
        v, dv = fcall(pyfunc, NoTangent, tuple(_item(a[i]) for a in arrays),
                      tuple(NoTangent if d is None else _item(d[i]) for d in dense))
        if isinstance(v, tuple):
            raise NotImplementedError(f"derivative of {what} of a function with several outputs")
        ys.append(v)
        dys.append(0.0 if _zeroish(dv) else dv)
    return ys, dys, shape


def _tangent_array(dys, shape):
    return np.array(dys, dtype=np.result_type(float, *[np.asarray(d).dtype for d in dys])).reshape(shape)


def frule_call(args, dargs, **kwargs):
    vec, xs = args[0], args[1:]
    _check(vec, kwargs)
    ys, dys, shape = elementwise_forward(vec.pyfunc, xs, dargs[1:], "np.vectorize")
    y = np.array(ys).reshape(shape)  # (complex where the function returns complex numbers)
    dy = _tangent_array(dys, shape)
    return (y[()], dy[()]) if y.ndim == 0 else (y, dy)


def elementwise_reverse(pyfunc, xs, what):
    """pyfunc applied entry by entry to the broadcast arguments xs: (values as a list in C order, shape, pullback);
    the pullback takes the result's adjoint (an array of that shape) and gives the arguments' adjoints."""
    from ..reverse.adjoints import unbroadcast
    from ..reverse.runtime import rcall

    arrays, shape = _broadcast(xs)
    ys, pbs = [], {}
    for i in np.ndindex(*shape):
        v, pb = rcall(pyfunc, tuple(_item(a[i]) for a in arrays), {})
        if isinstance(v, tuple):
            raise NotImplementedError(f"derivative of {what} of a function with several outputs")
        ys.append(v)
        pbs[i] = pb

    def pullback(g):
        g = np.asarray(g)
        if g.dtype == object:  # (the adjoint of an object array, e.g. from `.astype(float)`)
            g = g.astype(np.result_type(float, *[np.asarray(v).dtype for v in g.ravel()]))
        g = np.broadcast_to(g.astype(float) if g.dtype.kind not in "fc" else g, shape)
        bars = [np.zeros(shape, dtype=g.dtype) for _ in xs]
        for i, pb in pbs.items():
            _, ab, _ = pb(g[i].item())
            for j, b in enumerate(ab):
                if b is not NoTangent and b is not None:
                    bars[j][i] += b
        out = []
        for x, b in zip(xs, bars):
            if isinstance(x, (bool, int, np.integer)) or (isinstance(x, np.ndarray) and x.dtype.kind not in "fc"):
                out.append(NoTangent)
                continue
            u = unbroadcast(b, np.asarray(x))
            if not np.iscomplexobj(x) and np.iscomplexobj(u):
                u = u.real
            out.append(u.item() if np.ndim(x) == 0 and not isinstance(x, np.ndarray) else u)
        return out

    return ys, shape, pullback


def rrule_call(vec, *xs, **kwargs):
    _check(vec, kwargs)
    ys, shape, pb = elementwise_reverse(vec.pyfunc, xs, "np.vectorize")
    y = np.array(ys).reshape(shape)

    def pullback(g):
        if g is NoTangent or g is None:
            return (NoTangent,) * (1 + len(xs))
        return (NoTangent, *pb(g))

    return (y[()] if y.ndim == 0 else y), pullback


# ------------------------------------------------------------------ np.frompyfunc
# `np.frompyfunc(f, nin, nout)` is a ufunc on objects that calls f entry by entry, returning an object array
# (a number for numbers).  Calling it is differentiated as np.vectorize's call is (one output); its tangent is a
# float (complex) array, its adjoint taken from an object array as from a numeric one.  The ufunc does not show
# its function to Python: `pyfunc_of` finds it among the objects the ufunc refers to.  Its methods (reduce,
# accumulate, outer, at) have no rule.
def pyfunc_of(u):
    """The Python function a ufunc made by np.frompyfunc calls, or None for any other ufunc."""
    import gc

    if not isinstance(u, np.ufunc) or u.types and any(t.replace("->", "").strip("O") for t in u.types):
        return None  # (NumPy's own ufuncs work on numbers: 'dd->d', ...; frompyfunc's on objects: 'O->O')
    found = [r for r in gc.get_referents(u) if callable(r)]
    return found[0] if len(found) == 1 else None


def _frompyfunc_check(u, kwargs):
    if kwargs:
        raise NotImplementedError(f"derivative of a call of np.frompyfunc's ufunc with keyword arguments {sorted(kwargs)}")
    if u.nout != 1:
        raise NotImplementedError("derivative of np.frompyfunc of a function with several outputs (nout > 1)")


def _object_result(ys, shape):
    y = np.empty(shape, dtype=object)
    for i, v in zip(np.ndindex(*shape), ys):
        y[i] = v
    return y[()] if y.ndim == 0 else y


def call_frompyfunc_forward(f, df, args, dargs, kwargs, dkwargs):
    _frompyfunc_check(f, kwargs)
    ys, dys, shape = elementwise_forward(pyfunc_of(f), args, dargs, "np.frompyfunc")
    dy = _tangent_array(dys, shape)
    return _object_result(ys, shape), (dy[()] if dy.ndim == 0 else dy)


def call_frompyfunc_reverse(f, args, kwargs):
    from ..reverse.adjoints import AdjDict, AdjTuple

    _frompyfunc_check(f, kwargs)
    ys, shape, pb = elementwise_reverse(pyfunc_of(f), args, "np.frompyfunc")

    def pullback(g):
        if g is NoTangent or g is None:
            return NoTangent, AdjTuple([NoTangent] * len(args)), AdjDict()
        return NoTangent, AdjTuple(pb(g)), AdjDict()

    return _object_result(ys, shape), pullback


def frule_frompyfunc(args, dargs, **kwargs):
    if dargs and not _function_tangent_zero(dargs[0]):
        raise NotImplementedError("forward mode of np.frompyfunc of a function closing over differentiated values "
                                  "(pass them to it as arguments)")
    return np.frompyfunc(*args, **kwargs), NoTangent


def rrule_frompyfunc(*args, **kwargs):
    if args and _closes_over_numbers(args[0]):
        raise NotImplementedError("reverse mode of np.frompyfunc of a function closing over numbers "
                                  "(pass them to it as arguments)")
    return np.frompyfunc(*args, **kwargs), lambda g: (NoTangent,) * len(args)


defrule(np.vectorize, frule_construct)
defrrule_at_run_time(np.vectorize, rrule_construct)
defrule(np.vectorize.__call__, frule_call)
defrrule_at_run_time(np.vectorize.__call__, rrule_call)
defrule(np.frompyfunc, frule_frompyfunc)
defrrule_at_run_time(np.frompyfunc, rrule_frompyfunc)
