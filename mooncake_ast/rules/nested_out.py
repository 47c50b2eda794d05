"""Nested derivatives of a NumPy ufunc that writes its result into `out=` (`np.add(b, s, out=b)`, `np.sin(b, out=b)`).

Forward code runs such a call as `fcall(np.add, 0, (b, s), (db, ds), {'out': b}, {'out': db})`, and the plain
forward functions that nesting differentiates take positional arguments only.  But the call means no more than

    into2(b, b, s):   out[...] = np.add(a, b); return out

ordinary Python (below) that every order differentiates: the ufunc on fresh operands (read before the write, as the
ufunc reads them), then an in-place write that forward code and reverse mode already handle at every order (the
write's tangent goes into out's tangent storage; reverse mode saves and restores the overwritten values).  So a
call with `out=` is planned as a call of (a copy of) `into1` / `into2` with out first, and the adjoints of out
(and of its tangent) are handed back under the keyword.

Rewritten: `out=` (a float array, bare or in a one-array tuple, as NumPy takes both) of a one-result ufunc, of np.clip
and np.cumsum, and of a reduction over a constant axis -- np.sum / prod / mean / std / var / max / min / cumsum /
cumprod, the same ndarray methods (`A.max(0, out=o)`, `A.sum(0, None, o)` with its out given positionally: the
method's array is the helper's first operand) and ufunc.reduce / accumulate (nested_ufunc_methods.py); OutCall
records where each of the helper's arguments comes from.  `where=`, `dtype=`, `keepdims=` and the rest keep the
refusal.  (Was: ufuncs only; a reduction with out= was refused at second order.)
"""
from __future__ import annotations

import types
from typing import Any

import numpy as np

from .. import method_out
from ..reverse.adjoints import AdjDict, AdjTuple, MethodAdjoint
from ..tangents import MethodTangent, NoTangent
from . import nested_ufunc_methods
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
# NumPy reductions whose `out=` is their result's storage and whose second parameter is the axis, never differentiated:
# `np.sum(A, 0, None, o)` (its out moved to the keyword before the transforms run: ir/ufunc_out.py), `np.sum(A,
# axis=1, out=o)`, and the same ndarray methods (`A.max(0, out=o)`, `A.max(0, o)`) are `into2(o, A, axis)` of the
# function (a method's array its first operand).  Other keywords (dtype=, keepdims=, where=) keep the refusal.
_AXIS_FUNCTIONS = {np.sum, np.prod, np.mean, np.std, np.var, np.max, np.min, np.amax, np.amin, np.cumsum, np.cumprod}
_AXIS_METHODS = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "std": np.std, "var": np.var, "max": np.max,
                 "min": np.min, "cumsum": np.cumsum, "cumprod": np.cumprod}


class OutCall:
    """A call writing `out=` rewritten as its helper's positional call: where each of the helper's arguments (out,
    then the operands) comes from in the original call -- ("self",) a method's array, ("arg", i) a positional
    argument, ("kw", name) a keyword, ("const", v) a value the call leaves implicit (a ufunc method's default axis) --
    so that values, tangents and adjoints move between the two forms alike."""

    def __init__(self, helper: Any, sources: tuple, method: bool, n_args: int) -> None:
        self.helper, self.sources, self.method, self.n_args = helper, sources, method, n_args

    def values(self, f: Any, args: tuple, kwargs: Any) -> tuple:
        return tuple(_pick(s, f.__self__ if self.method else None, args, kwargs, False) for s in self.sources)

    def tangents(self, df: Any, dargs: Any, dkwargs: Any) -> tuple:
        """The tangents of the helper's arguments from those of the call (df: the method's, a MethodTangent)."""
        dself = df.self_tangent if isinstance(df, MethodTangent) else NoTangent
        dargs = _expand(dargs, self.n_args)
        return tuple(_pick(s, dself, dargs, dkwargs, True) for s in self.sources)

    def adjoints(self, bars: Any, kwargs: Any) -> tuple:
        """(the method's adjoint, the positional arguments' adjoints, the keywords' adjoints) from the helper's."""
        bars = _expand(bars, len(self.sources))
        f_bar, a_bar, k_bar = NoTangent, [NoTangent] * self.n_args, {}
        for s, b in zip(self.sources, bars):
            if s[0] == "self":
                f_bar = MethodAdjoint(b)
            elif s[0] == "arg":
                a_bar[s[1]] = b
            elif s[0] == "kw":
                k_bar[s[1]] = AdjTuple((b,)) if s[1] == "out" and isinstance(kwargs[s[1]], tuple) else b
        return f_bar, AdjTuple(a_bar), AdjDict(k_bar)


def _pick(source: tuple, own: Any, args: Any, kwargs: Any, tangents: bool) -> Any:
    if source[0] == "const":  # (a ufunc method's default axis, made explicit)
        return NoTangent if tangents else source[1]
    if source[0] == "self":
        return own
    if source[0] == "arg":
        return args[source[1]]
    if not isinstance(kwargs, dict):  # (a symbolic zero for all the keywords' tangents)
        return NoTangent
    v = kwargs.get(source[1], NoTangent if tangents else None)
    if source[1] == "out" and isinstance(v, (tuple, list)):
        return v[0] if len(v) == 1 else NoTangent
    return NoTangent if (tangents and v is None) else v


def out_call(f: Any, args: Any, kwargs: Any, methods: bool = True) -> Any:
    """The OutCall of `f(*args, **kwargs)` writing a float array out= (a one-result ufunc with its operands, np.clip,
    np.cumsum, a reduction over an axis, or, with `methods`, such an ndarray method); else None."""
    args = tuple(args)
    kwargs = dict(kwargs) if isinstance(kwargs, dict) else {}
    owner = getattr(f, "__self__", None)
    method = type(owner) is np.ndarray and owner.dtype.kind == "f" and not isinstance(f, np.ufunc)
    reduction = nested_ufunc_methods.equivalent(f)  # (`np.add.reduce(A, 0, None, o)`: np.sum's)
    moved = method_out.moved_out(f, args, kwargs) if method or reduction is not None else None
    n_args = len(args)
    if moved is not None:  # (`A.max(0, o)`, `A.sum(0, None, o)`: o is the method's out, given positionally)
        k, names = moved
        at = k + names.index("out") if "out" in names else -1
        if at < 0 or any(v is not None for i, v in enumerate(args[k:], k) if i != at):
            return None  # (only dtype=None, NumPy's default, besides out)
        out_src, args, kwargs = ("arg", at), args[:k], {**kwargs, "out": args[at]}
    else:
        out_src = ("kw", "out")
    if "out" not in kwargs or not _float_out(kwargs["out"]):
        return None
    n = len(args)
    if method:
        fn = _AXIS_METHODS.get(getattr(f, "__name__", None))
        if not methods or fn is None or type(f) is not types.BuiltinMethodType:
            return None
        if any(a is not None for a in args[1:]):  # (`A.sum(0, None, o)`: dtype=None, NumPy's default, is no operand)
            return None
        operands = (("self",),) + tuple(("arg", i) for i in range(min(n, 1)))
    elif reduction is not None:
        if not args or type(args[0]) is not np.ndarray or args[0].dtype.kind != "f" or \
                any(a is not None for a in args[2:]):
            return None
        fn = reduction
        operands = (("arg", 0),) + ((("arg", 1),) if n >= 2 else () if "axis" in kwargs else (("const", 0),))
    else:
        fn, operands = f, tuple(("arg", i) for i in range(n))
    if fn in _AXIS_FUNCTIONS if _hashable(fn) else False:
        if not set(kwargs) <= {"out", "axis"} or ("axis" in kwargs and len(operands) != 1) or len(operands) > 2:
            return None
        if "axis" in kwargs:
            operands += (("kw", "axis"),)
        axis = _pick(operands[1], None, args, kwargs, False) if len(operands) == 2 else None
        if not _constant_axis(axis):
            return None
        return OutCall(_helper(fn, len(operands)), (out_src,) + operands, method, n_args)
    if method or set(kwargs) != {"out"}:
        return None
    if isinstance(f, np.ufunc):
        if f.nout != 1 or f.nin != n or n not in (1, 2) or getattr(np, f.__name__, None) is not f:
            return None  # (NumPy's own ufuncs: a copy's module is named by the ufunc's name)
    elif not _known_function(f) or n not in _OUT_FUNCTIONS[f]:
        return None
    return OutCall(_helper(f, n), (out_src,) + operands, False, n)


def _float_out(o: Any) -> bool:
    if isinstance(o, tuple):
        if len(o) != 1:
            return False
        o = o[0]
    return type(o) is np.ndarray and o.dtype.kind == "f"


def _constant_axis(axis: Any) -> bool:
    """An axis as NumPy takes it (None, an int, a tuple of ints): never a differentiated value."""
    if axis is None or (isinstance(axis, (int, np.integer)) and not isinstance(axis, bool)):
        return True
    return isinstance(axis, tuple) and all(isinstance(a, (int, np.integer)) for a in axis)


def _hashable(f: Any) -> bool:
    try:
        hash(f)
        return True
    except TypeError:
        return False


def _known_function(f: Any) -> bool:
    try:
        return f in _OUT_FUNCTIONS
    except TypeError:  # (an unhashable callable)
        return False


def rrule(call: OutCall, f: Any, df: Any, args: tuple, dargs: Any, kwargs: Any, dkwargs: Any) -> tuple:
    """fcall's reverse rule for the call: reverse mode over the helper's forward code; the pullback gives one
    adjoint per argument of fcall (f, df, args, dargs[, kwargs, dkwargs])."""
    from .api_rules import _rev_fcall

    out, pb = _rev_fcall(call.helper, NoTangent, call.values(f, tuple(args), kwargs),
                         call.tangents(df, dargs, dkwargs))

    def pullback(g: Any) -> tuple:
        _, a_bar, d_bar, _ = pb(g)
        f_bar, a_bar, k_bar = call.adjoints(a_bar, kwargs)
        df_bar, d_bar, dk_bar = call.adjoints(d_bar, kwargs)
        if kwargs is None:  # (`A.max(0, o)` called with no keywords: fcall(f, df, args, dargs))
            return f_bar, df_bar, a_bar, d_bar
        return f_bar, df_bar, a_bar, d_bar, k_bar, dk_bar if isinstance(dkwargs, dict) else NoTangent

    return out, pullback


def frule(call: OutCall, f: Any, df: Any, args: tuple, dargs: Any, kwargs: Any, dkwargs: Any, tf: Any, tdf: Any,
          targs: Any, tdargs: Any, tkwargs: Any, tdkwargs: Any) -> tuple:
    """fcall's forward rule for the call: forward mode over the helper's forward code."""
    from .api_rules import _fwd_fcall

    return _fwd_fcall(call.helper, NoTangent, call.values(f, tuple(args), kwargs), call.tangents(df, dargs, dkwargs),
                      NoTangent, NoTangent, call.tangents(tf, targs, tkwargs), call.tangents(tdf, tdargs, tdkwargs))


def fcall_plan(call: OutCall, f: Any, fargs: Any, fdargs: Any, rest: list, dargs: tuple) -> Any:
    """The plan of fcall of `fcall(f, df, args, dargs, kwargs, dkwargs)` (forward code differentiated forward, the
    step of a third order): the helper's positional call, the keywords' adjoints given back as dicts.  (A function's
    call only: out_call(..., methods=False).)"""
    from . import api_rules as api

    fargs = tuple(fargs)
    kw, dkw = rest[0], (rest[1] if len(rest) > 1 else None)
    _, _, tfargs, tfdargs, tkw, tdkw = (tuple(dargs) + (NoTangent,) * 6)[:6]
    inner = api._jvp_plan((call.helper, call.values(f, fargs, kw), call.tangents(NoTangent, fdargs, dkw)),
                          (NoTangent, call.tangents(NoTangent, tfargs, tkw), call.tangents(NoTangent, tfdargs, tdkw)),
                          fresh=False)
    k = 4 + len(rest)  # (fcall's own arguments: f, df, args, dargs, kwargs[, dkwargs])

    def parts(b: Any) -> tuple:
        _, a_bar, k_bar = call.adjoints(b, kw)
        return a_bar, k_bar

    def split(b: Any) -> tuple:
        _, (_, a1, a2), (_, d1, d2) = inner.split(b)
        (a1, k1), (a2, k2), (d1, l1), (d2, l2) = parts(a1), parts(a2), parts(d1), parts(d2)
        return NoTangent, (NoTangent, NoTangent, a1, a2, k1, k2)[:k], (NoTangent, NoTangent, d1, d2, l1, l2)[:k]

    def outer(t_f: Any, targs: tuple, tdargs: tuple) -> tuple:
        targs, tdargs = _expand(targs, 6), _expand(tdargs, 6)
        return inner.outer(NoTangent, (NoTangent, call.tangents(NoTangent, targs[2], targs[4]),
                                       call.tangents(NoTangent, targs[3], targs[5])),
                           (NoTangent, call.tangents(NoTangent, tdargs[2], tdargs[4]),
                            call.tangents(NoTangent, tdargs[3], tdargs[5])))

    return api._Plan(inner.fn, inner.call_args, split, outer)
