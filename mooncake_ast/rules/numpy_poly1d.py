"""`np.poly1d` in both modes (issue 12): making one, and reading its coefficients.

A poly1d keeps its coefficients in its instance dict under "coeffs" and reads and writes them through
`self.__dict__['coeffs']` (the `_coeffs` property, kept so for SciPy): a plain dict whose items carry no
derivatives, which reverse mode refuses.  So two rules stand in for that storage, and everything else poly1d
does (`p(x)`, `p.deriv()`, `p.integ()`, `p + q`, `p * q`, `p.coeffs`, `p.c`, ...) is its own Python code,
traced as usual, which reads the coefficients through `_coeffs`:

* making one, `np.poly1d(c)` (or `np.poly1d(roots, r=True)`, whose coefficients are `np.poly(roots)`, differentiated
  through its source): the object's tangent holds the coefficients' in its field "coeffs" (leading zeros
  trimmed, as poly1d trims them; a poly1d given shares its coefficients, as poly1d does), and the pullback hands
  the adjoint collected in that field to the argument;
* reading `_coeffs`: the field "coeffs" of the object's tangent (forward); in reverse mode the array read is the
  object's own, so its adjoint collects in that array's storage, which the pullback of making the object reads.

Arithmetic on poly1d objects (`p + q`, `2 * p`) is done by the operators' rules for numbers, which cannot
combine object tangents: refused by name (forward: the tangent's operators; reverse: reading the coefficients of a
poly1d this rule did not make).
"""
from __future__ import annotations

import weakref

import numpy as np

from ..tangents import MutableTangent, NoTangent

_ARITHMETIC = ("derivative of arithmetic on np.poly1d objects (p + q, 2 * p, -p, p ** 2, ...) is not supported: "
               "combine the coefficients instead (np.polyadd, np.polysub, np.polymul, np.polyval on p.coeffs) and "
               "make a poly1d of the result")


class Poly1dTangent(MutableTangent):
    """The tangent of a poly1d: its coefficients' in the field "coeffs".  Arithmetic on poly1d objects is done by
    the operators' rules for numbers, which would combine these as numbers: refused, by name."""

    def _refuse(self, *_):
        raise NotImplementedError(_ARITHMETIC)

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _refuse
    __pow__ = __rpow__ = __neg__ = __pos__ = __matmul__ = __rmatmul__ = _refuse


_MADE: dict = {}  # id -> weakref of the poly1d objects made by the rule below (reverse mode reads only those)


def _remember(p):
    _MADE[id(p)] = weakref.ref(p, lambda _, key=id(p): _MADE.pop(key, None))


def _made_here(p) -> bool:
    ref = _MADE.get(id(p))
    return ref is not None and ref() is p


def _fields(d):
    f = getattr(d, "__dict__", {}).get("fields") if d is not NoTangent and d is not None else None
    return f if isinstance(f, dict) else {}


def _coefficient_source(c, r):
    """(what poly1d trims, how many leading entries it dropped): r=True goes through np.poly."""
    c = np.atleast_1d(c)
    kept = np.trim_zeros(c, trim="f")
    return c, len(c) - len(kept) if len(kept) else len(c) - 1


def construct_tangent(p, c, dc, r=False, variable=None):
    """The tangent of p = np.poly1d(c, r, variable)."""
    if isinstance(c, np.poly1d):
        return Poly1dTangent({"coeffs": _fields(dc).get("coeffs", NoTangent)})
    if dc is NoTangent or dc is None:
        return NoTangent
    if r:
        from ..forward.runtime import fcall

        c, dc = fcall(np.poly, NoTangent, (c,), (dc,))
    full, dropped = _coefficient_source(c, False)
    dfull = np.broadcast_to(np.asarray(dc), full.shape)
    return Poly1dTangent({"coeffs": np.array(dfull[dropped:], dtype=np.result_type(float, dfull))})


def construct_adjoint(p, c, g, r=False, variable=None):
    """The adjoint of c from p's coefficients' storage.  Reading `_coeffs` gives that very array, so its adjoint
    went into the array's own storage by identity; where the array is c or a view of it, that is c's storage
    already (nothing to hand back), otherwise it is moved out and handed to c."""
    from ..reverse import shadows

    coeffs = p.__dict__.get("coeffs")
    if isinstance(c, np.poly1d) or not isinstance(coeffs, np.ndarray) or coeffs.dtype.kind not in "fc":
        return NoTangent
    if isinstance(c, np.ndarray) and np.shares_memory(coeffs, c) and not r:
        return NoTangent
    sh = shadows.shadow(coeffs)
    gc = np.array(sh, copy=True)
    sh[...] = 0
    if r:
        from ..reverse.runtime import rcall

        _, pb = rcall(np.poly, (c,), {})
        return pb(gc)[1][0]
    full, dropped = _coefficient_source(c, False)
    out = np.zeros(full.shape, dtype=gc.dtype)
    out[dropped:] = gc
    if np.ndim(c) == 0:
        return out.reshape(()).item()
    return out if isinstance(c, np.ndarray) else [float(v) for v in out] if isinstance(c, list) else out


def coeffs_tangent(p, dp):
    return _fields(dp).get("coeffs", NoTangent)


def rrule_coeffs(p):
    """Reverse mode's read of `_coeffs`: the array itself (its adjoint collects in its storage, by identity), of a
    poly1d this rule made; one made otherwise (by arithmetic on poly1d objects, run plainly by the operators'
    rules) carries no record of where its coefficients came from: refused."""
    if not _made_here(p):
        raise NotImplementedError(_ARITHMETIC)
    return p.__dict__["coeffs"], lambda g: (NoTangent,)


def rrule_construct(c, *rest, **kw):
    p = np.poly1d(c, *rest, **kw)
    _remember(p)

    def pullback(g):
        r = rest[0] if rest else kw.get("r", False)
        bar = construct_adjoint(p, c, g, r)
        from .call_binding import KwAdj

        return (bar,) + (NoTangent,) * len(rest) + ((KwAdj(),) if kw else ())

    return p, pullback


def _construct_jvp(t, y, c, *rest, **kw):
    if t.d(c) is None:
        return None
    return t.call(construct_tangent, y, c, t.dz(c), *rest, **kw)


def register() -> None:
    from .registry import defjvp, defrrule_at_run_time

    defjvp(np.poly1d, _construct_jvp)
    defrrule_at_run_time(np.poly1d, rrule_construct, construct_adjoint, _remember)
    prop = np.poly1d.__dict__["_coeffs"]
    defjvp(prop.fget, lambda t, y, p: t.call(coeffs_tangent, p, t.dz(p)) if t.d(p) is not None else None)
    defrrule_at_run_time(prop.fget, rrule_coeffs, _made_here)


register()
