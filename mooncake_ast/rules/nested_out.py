"""Nested derivatives of a NumPy ufunc that writes its result into `out=` (`np.add(b, s, out=b)`, `np.sin(b, out=b)`).

Forward code runs such a call as `fcall(np.add, 0, (b, s), (db, ds), {'out': b}, {'out': db})`, and the plain
forward functions that nesting differentiates take positional arguments only.  But the call means no more than

    into2(b, b, s):   out[...] = np.add(a, b); return out

ordinary Python (below) that every order differentiates: the ufunc on fresh operands (read before the write, as the
ufunc reads them), then an in-place write that forward code and reverse mode already handle at every order (the
write's tangent goes into out's tangent storage; reverse mode saves and restores the overwritten values).  So a
call with `out=` is planned as a call of (a copy of) `into1` / `into2` with out first, and the adjoints of out
(and of its tangent) are handed back under the keyword.

Only `out=` of a one-result ufunc on float arrays is rewritten (a bare array or a one-array tuple, as NumPy takes
both); `where=`, `dtype=` and the rest keep the refusal.
"""
from __future__ import annotations

import types
from typing import Any

import numpy as np

from ..reverse.adjoints import AdjDict, AdjTuple
from ..tangents import NoTangent
from .forward_code_rules import _expand


# ---------------------------------------------------------------- the plain Python the call is planned as (traced)
# `_u` is a global of each copy of these functions (one copy per ufunc, _helper below): a module whose `op` is the
# ufunc, so forward code is emitted with the ufunc known (a module attribute, as `np.add`), its derivative the ufunc's
# own template (inline NumPy) that every order differentiates; the module's name, part of the cache key, names it.
# `np` is named in the body so that the templates' `np.cos` & co. are this function's global NumPy: as a parameter
# of the generated code (the module handed in as a keyword) the next order could not see which callable it reads.


def into1(out, a):
    """`_u.op(a, out=out)` for a one-operand ufunc."""
    _ = np
    out[...] = _u.op(a)  # noqa: F821  (a global of each copy)
    return out


def into2(out, a, b):
    """`_u.op(a, b, out=out)` for a two-operand ufunc."""
    _ = np
    out[...] = _u.op(a, b)  # noqa: F821  (a global of each copy)
    return out


def into3(out, a, b, c):
    """`_u.op(a, b, c, out=out)` for a three-operand function (np.clip)."""
    _ = np
    out[...] = _u.op(a, b, c)  # noqa: F821  (a global of each copy)
    return out


_COPIES: dict = {}  # (ufunc or function, operands) -> its copy of into1 / into2 / into3

# NumPy functions (not ufuncs) whose `out=` means the same write, with the numbers of positional operands taken:
# the result written, as for a ufunc (np.clip calls the clip ufunc; np.cumsum's out is its result's storage)
_OUT_FUNCTIONS = {np.clip: (3,), np.cumsum: (1,), np.cumprod: (1,)}


def _helper(f: Any, n: int) -> Any:
    """The copy of into1 / into2 / into3 whose `_u.op` is f (the same code, so the same source lines)."""
    fn = _COPIES.get((f, n))
    if fn is None:
        base = (into1, into2, into3)[n - 1]
        u = types.ModuleType(f"{__name__}.numpy_{f.__name__}")
        u.op = f  # type: ignore[attr-defined]
        fn = types.FunctionType(base.__code__, {"__name__": __name__, "__builtins__": __builtins__, "_u": u, "np": np},
                                base.__name__)
        fn.__qualname__ = base.__qualname__
        fn.__module__ = __name__
        _COPIES[(f, n)] = fn
    return fn


# ---------------------------------------------------------------- recognising and rewriting the call


def out_helper(f: Any, n: int, kwargs: Any) -> Any:
    """into1 / into2 for a call `f(*n args, out=o)` of a one-result ufunc with n operands writing a float array o
    (nothing else among the keywords); else None."""
    if not isinstance(kwargs, dict) or set(kwargs) != {"out"}:
        return None
    if isinstance(f, np.ufunc):
        if f.nout != 1 or f.nin != n or n not in (1, 2) or getattr(np, f.__name__, None) is not f:
            return None  # (NumPy's own ufuncs: a copy's module is named by the ufunc's name)
    elif not _known_function(f) or n not in _OUT_FUNCTIONS[f]:
        return None
    o = kwargs["out"]
    if isinstance(o, tuple):
        if len(o) != 1:
            return None
        o = o[0]
    if type(o) is not np.ndarray or o.dtype.kind != "f":
        return None
    return _helper(f, n)


def _known_function(f: Any) -> bool:
    try:
        return f in _OUT_FUNCTIONS
    except TypeError:  # (an unhashable callable)
        return False


def _out(kw: Any) -> Any:
    """The value under `out` of a keywords dict (or of its tangent: NoTangent for a zero), unwrapped from a 1-tuple."""
    if not isinstance(kw, dict):
        return NoTangent
    o = kw.get("out", NoTangent)
    if isinstance(o, (tuple, list)):
        return o[0] if len(o) == 1 else NoTangent
    return NoTangent if o is None else o


def _as_given(kwargs: dict, bar: Any) -> AdjDict:
    """The adjoint of the keywords dict from out's adjoint, in the form out was given (an array or a 1-tuple)."""
    return AdjDict({"out": AdjTuple((bar,)) if isinstance(kwargs["out"], tuple) else bar})


def _pos(kwargs: dict, ts: Any, kwts: Any, n: int) -> tuple:
    """The tangents of the helper's arguments (out, *args) from tangents ts of args and kwts of the keywords."""
    return (_out(kwts), *_expand(ts, n))


def rrule(helper: Any, f: Any, args: tuple, dargs: Any, kwargs: dict, dkwargs: Any) -> tuple:
    """fcall's reverse rule for the call: reverse mode over the helper's forward code; the pullback gives one
    adjoint per argument of fcall (f, df, args, dargs, kwargs, dkwargs)."""
    from .api_rules import _rev_fcall

    args = tuple(args)
    n = len(args)
    out, pb = _rev_fcall(helper, NoTangent, (_out(kwargs), *args), _pos(kwargs, dargs, dkwargs, n))

    def pullback(g: Any) -> tuple:
        _, a_bar, d_bar, _ = pb(g)
        a_bar, d_bar = _expand(a_bar, n + 1), _expand(d_bar, n + 1)
        k_bar = _as_given(kwargs, a_bar[0])
        dk_bar = _as_given(kwargs, d_bar[0]) if isinstance(dkwargs, dict) else NoTangent
        return NoTangent, NoTangent, AdjTuple(a_bar[1:]), AdjTuple(d_bar[1:]), k_bar, dk_bar

    return out, pullback


def frule(helper: Any, f: Any, args: tuple, dargs: Any, kwargs: dict, dkwargs: Any, targs: Any, tdargs: Any,
          tkwargs: Any, tdkwargs: Any) -> tuple:
    """fcall's forward rule for the call: forward mode over the helper's forward code."""
    from .api_rules import _fwd_fcall

    args = tuple(args)
    n = len(args)
    return _fwd_fcall(helper, NoTangent, (_out(kwargs), *args), _pos(kwargs, dargs, dkwargs, n), NoTangent,
                      NoTangent, _pos(kwargs, targs, tkwargs, n), _pos(kwargs, tdargs, tdkwargs, n))


def fcall_plan(helper: Any, f: Any, fargs: Any, fdargs: Any, rest: list, dargs: tuple) -> Any:
    """The plan of fcall of `fcall(f, df, args, dargs, kwargs, dkwargs)` (forward code differentiated forward, the
    step of a third order): the helper's positional call, the keywords' adjoints given back as dicts."""
    from . import api_rules as api

    fargs = tuple(fargs)
    n = len(fargs)
    kw, dkw = rest[0], (rest[1] if len(rest) > 1 else None)
    _, _, tfargs, tfdargs, tkw, tdkw = (tuple(dargs) + (NoTangent,) * 6)[:6]
    inner = api._jvp_plan((helper, (_out(kw), *fargs), _pos(kw, fdargs, dkw, n)),
                          (NoTangent, _pos(kw, tfargs, tkw, n), _pos(kw, tfdargs, tdkw, n)), fresh=False)
    k = 4 + len(rest)  # (fcall's own arguments: f, df, args, dargs, kwargs[, dkwargs])

    def parts(b: Any) -> tuple:
        b = _expand(b, n + 1)
        return AdjTuple(b[1:]), _as_given(kw, b[0])

    def split(b: Any) -> tuple:
        _, (_, a1, a2), (_, d1, d2) = inner.split(b)
        (a1, k1), (a2, k2), (d1, l1), (d2, l2) = parts(a1), parts(a2), parts(d1), parts(d2)
        return NoTangent, (NoTangent, NoTangent, a1, a2, k1, k2)[:k], (NoTangent, NoTangent, d1, d2, l1, l2)[:k]

    def outer(t_f: Any, targs: tuple, tdargs: tuple) -> tuple:
        targs, tdargs = _expand(targs, 6), _expand(tdargs, 6)
        return inner.outer(NoTangent, (NoTangent, _pos(kw, targs[2], targs[4], n), _pos(kw, targs[3], targs[5], n)),
                           (NoTangent, _pos(kw, tdargs[2], tdargs[4], n), _pos(kw, tdargs[3], tdargs[5], n)))

    return api._Plan(inner.fn, inner.call_args, split, outer)
