"""scipy.stats functions behind SciPy's `_axis_nan_policy` decorator (entropy, skew, kurtosis, the means, ...),
both modes; registered by scipy_stats.register() once the user's code has imported scipy.stats.

Where SciPy's function is itself long array-API code (moment, variation, tmean, tvar, tstd, tsem, iqr),
a NumPy model of it stands in for the wrapped function (scipy_stats_models.py), under the same check.

The decorator's wrapper (axis=None, `nan_policy`, `keepdims`, broadcasting of samples, too-small samples)
is long Python that the transforms cannot trace (it deletes local variables), and the function it wraps
is plain NumPy code that they can.  So the derivative is that of the wrapped function (`F.__wrapped__`),
called with the same arguments less the wrapper's own options, while the value is the plain call's:

* forward: the tangent is fcall's of the wrapped function (every argument's tangent, keywords too);
* reverse: the pullback runs the wrapped function's derivative (rcall) when it is called.

On data without NaNs the wrapper hands its samples to the wrapped function as they are (after moving
`axis` last, which the wrapped function's own `axis` does as well), so the two agree.  keepdims=True only
inserts axes of length 1: tangents and adjoints are reshaped.  nan_policy='omit' on data holding NaNs
removes them first, which this rule does not follow: refused (NotImplementedError), as is any value the
wrapped function disagrees on (checked when the rule runs, so a mismatch is an error, never a wrong
derivative).  Complex data are refused.
"""
from __future__ import annotations

import numpy as np

from ..tangents import NoTangent

NAMES = ["entropy", "gmean", "hmean", "kurtosis", "median_abs_deviation", "pmean", "sem", "skew", "tmax", "tmin",
         "trim_mean", "moment", "variation", "tmean", "tvar", "tstd", "tsem", "iqr",
         "kstat", "kstatvar", "circmean", "circvar", "circstd", "differential_entropy"]
FUNCTIONS = list(NAMES)  # (docs.py lists them as scipy.stats.<name>)
# the wrapper's options (the wrapped functions ignore a nan_policy they take; `_no_deco`: SciPy's own calls of a
# decorated function from inside another, which skip the wrapper)
_OWN = ("keepdims", "nan_policy", "_no_deco")


def _inner(fn):
    from .scipy_stats_models import MODELS

    model = MODELS.get(fn.__name__)
    if model is not None:
        return model  # (a NumPy model of the statistic: scipy_stats_models.py)
    inner = getattr(fn, "__wrapped__", None)
    if inner is None:
        raise NotImplementedError(f"derivative of {fn.__name__}: SciPy's wrapper hides the function it wraps")
    return inner


def _has_nan(args, kwargs):
    for a in (*args, *kwargs.values()):
        try:
            if isinstance(a, (np.ndarray, float, list, tuple)) and np.isnan(np.asarray(a, dtype=float)).any():
                return True
        except (TypeError, ValueError):
            continue
    return False


def _check(fn, args, kwargs):
    """The keywords for the wrapped function; refuses what it does not follow."""
    if any(np.iscomplexobj(a) for a in (*args, *kwargs.values()) if isinstance(a, (np.ndarray, complex, list, tuple))):
        raise NotImplementedError(f"derivative of scipy.stats.{fn.__name__} of complex data (statistics of real numbers)")
    if kwargs.get("nan_policy", "propagate") == "omit" and _has_nan(args, kwargs):
        raise NotImplementedError(f"derivative of scipy.stats.{fn.__name__} with nan_policy='omit' on data "
                                  "holding NaNs (remove them first, e.g. x[~np.isnan(x)])")
    return {k: v for k, v in kwargs.items() if k not in _OWN}


def _agree(fn, y, y_inner):
    if not np.allclose(np.asarray(y, dtype=float).ravel(), np.asarray(y_inner, dtype=float).ravel(),
                       rtol=1e-9, atol=1e-12, equal_nan=True) or np.size(y) != np.size(y_inner):
        raise NotImplementedError(f"derivative of scipy.stats.{fn.__name__} for these arguments: the function "
                                  "SciPy's wrapper calls gives another value (an option it does not follow)")


def wrapped_tangent(fn, y, args, dargs, kwargs, dkwargs):
    from ..forward.runtime import fcall

    kw = _check(fn, args, kwargs)
    dkw = {k: dkwargs.get(k, NoTangent) for k in kw}
    y_inner, dy = fcall(_inner(fn), NoTangent, tuple(args), tuple(dargs), kw, dkw)
    _agree(fn, y, y_inner)
    if dy is NoTangent or dy is None:
        return NoTangent
    return np.reshape(dy, np.shape(y)) if np.ndim(dy) else dy


def _jvp(fn):
    def jvp(t, y, *args, **kwargs):
        if all(t.d(a) is None for a in (*args, *kwargs.values())):
            return None
        from .. import ops

        names = [z for k, v in kwargs.items() for z in (k, v)]
        dnames = [z for k, v in kwargs.items() for z in (k, t.dz(v))]
        return t.call(wrapped_tangent, fn, y, t.call(ops.tuple_of, *args), t.call(ops.tuple_of, *[t.dz(a) for a in args]),
                      t.call(ops.dict_of, *names), t.call(ops.dict_of, *dnames))

    return jvp


def _rrule(fn):
    def rrule(*args, **kwargs):
        from ..reverse.runtime import rcall
        from .call_binding import KwAdj

        kw = _check(fn, args, kwargs)
        y = fn(*args, **kwargs)
        y_inner, pb = rcall(_inner(fn), tuple(args), kw)
        _agree(fn, y, y_inner)

        def pullback(g):
            if g is NoTangent or g is None:
                return (NoTangent,) * len(args) + ((KwAdj(),) if kwargs else ())
            g = np.reshape(g, np.shape(y_inner)) if np.ndim(g) else g
            _, pos, named = pb(g)
            # (values, not the arguments' identity-keyed storage the traced pullback returns for arrays: the caller
            # may hold an argument's adjoint as a value and add this to it, which would count the storage twice)
            pos = tuple(_as_value(v) for v in pos) + (NoTangent,) * (len(args) - len(pos))
            named = {k: v for k, v in dict(named).items() if v is not NoTangent and v is not None}
            return pos + ((KwAdj(named),) if named else ())

        return y, pullback

    return rrule


def _as_value(v):
    """An argument's adjoint as a value of its own: an array that is the argument's identity-keyed storage is moved
    out (a copy, the storage left zero).  The caller adds it where the argument's adjoint lives -- a variable of its
    pullback, or that storage again; left in, a second such call would add to the value the first handed back."""
    from ..reverse import shadows

    if type(v) is np.ndarray and shadows.is_storage(v):
        moved = v.copy()
        v[...] = 0
        return moved
    return v


def register(stats) -> None:
    """Register the rules (scipy_stats.register calls this with scipy.stats)."""
    from . import scipy_stats as base
    from .fingerprints import _fingerprint
    from .registry import _entry, defjvp

    for name in NAMES:
        fn = getattr(stats, name, None)
        if fn is None or getattr(fn, "__wrapped__", None) is None:
            continue
        base.REGISTERED[fn] = name  # (scipy_stats.FUNCTIONS lists these too)
        defjvp(fn, _jvp(fn))
        r = _entry(fn)
        r.user_rrule = _rrule(fn)
        r.fingerprint = _fingerprint(r.jvp_template, wrapped_tangent, _rrule)
