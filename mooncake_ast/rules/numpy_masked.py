"""numpy.ma (masked arrays) refused by name (issue 12, second pass), both modes.

A MaskedArray is an ndarray subclass: once made, NumPy's functions and methods (sum, mean, arithmetic) reach
the plain ndarray rules, whose derivatives know nothing of the mask -- d/dx of np.ma.array(x, mask=m).sum()
would come out 1 for the masked entries too, a wrong number.  So making one from a differentiated array
refuses: forward mode when its tangent is nonzero, reverse mode when the adjoint that reaches it is used
(scipy_special_more.RefusedAdjoint).  The message says what to write instead (np.where, weights).
"""
from __future__ import annotations

from ..tangents import NoTangent

NAMES = ("array", "masked_array", "asarray", "asanyarray", "masked_where", "masked_invalid", "masked_equal",
         "masked_not_equal", "masked_greater", "masked_greater_equal", "masked_less", "masked_less_equal",
         "masked_inside", "masked_outside", "masked_values", "masked_object", "fix_invalid")
FUNCTIONS = [f"numpy.ma.{n}" for n in NAMES]


def _message(name):
    return (f"derivative through numpy.ma.{name} (masked arrays) is not supported: NumPy's functions treat a "
            "MaskedArray as a plain array, so its mask would be lost from the derivative.  Write the mask into the "
            "computation instead, e.g. np.sum(np.where(mask, 0.0, x)) / np.sum(~mask), or np.average(x, weights=~mask)")


def _live(d):
    from .scipy_optimize_rules import _live as live

    return live(d)


def refuse_masked(name, *tangents):
    if any(_live(d) for d in tangents):
        raise NotImplementedError(_message(name))
    return NoTangent


def refused_masked_adjoint(g, name):
    from .scipy_special_more import RefusedAdjoint

    return RefusedAdjoint(_message(name)) if _live(g) else NoTangent


def _register(fn, name):
    from .registry import defjvp, defvjp

    def jvp(t, y, *args, **kwargs):
        live = [t.dz(v) for v in (*args, *kwargs.values()) if t.d(v) is not None]
        return t.call(refuse_masked, name, *live) if live else None

    def vjp(t, g, y, *args, **kwargs):
        from .call_binding import KwAdj

        needs = getattr(t, "needs", None)
        adj = lambda v: None if needs is not None and not needs(v) else t.call(refused_masked_adjoint, g, name)  # noqa: E731
        named = {k: adj(v) for k, v in kwargs.items()}
        named = {k: v for k, v in named.items() if v is not None}
        return tuple(adj(v) for v in args) + ((KwAdj(named),) if named else ())

    defjvp(fn, jvp)
    defvjp(fn, vjp)


def register() -> None:
    """Register the refusals (registry._LAZY_TABLES: once the user's code has imported numpy.ma, which
    `import numpy` does not do and which costs more to import than a fifth of the library)."""
    import numpy.ma as ma

    for name in NAMES:
        fn = getattr(ma, name, None)
        if fn is not None:
            _register(fn, name)
