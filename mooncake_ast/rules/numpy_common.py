"""Helpers shared by the NumPy rule modules (numpy_*.py); this module registers no rule.

They live here, not in one of the rule modules, because several of those need them: splitting a
helper's tuple result, unbroadcasting an adjoint, refusing `out=` and differentiated keyword
arguments, binding a template's operands by name, and telling symbolic zeros and adjoint storage
apart.  Templates reach the public ones from generated code as `_mc.<name>` (mooncake_ast/runtime.py).
"""
from __future__ import annotations

import operator

import numpy as np

from ..arrays import as_array

_NV = np._NoValue  # numpy's "argument not given"


def _split(t, both, n):
    """The n parts of a helper's tuple result (unpacked in one statement in generated code)."""
    if hasattr(both, "tuple_size"):
        both.tuple_size = n
    return tuple(t.call(operator.getitem, both, i) for i in range(n))


def _unb(g, like):
    from ..reverse.adjoints import unbroadcast

    return unbroadcast(g, like)


def cj(t, v, *like):
    """conj(v) in a reverse template, for complex values (x_bar = conj(f'(x)) y_bar: README "Complex numbers"); v
    itself where each of `like` (the operands v is made from) is certainly real when the pullback is made, so
    real code is generated as before.  At run time (EagerReverse) conj leaves real values as they are."""
    if v is None:
        return None
    real = getattr(t, "certainly_real", None)
    if real is not None and like and all(_certainly_real(t, real, x) for x in like):
        return v
    from ..reverse.adjoints import conj

    return t.call(conj, v)


def _certainly_real(t, real, x):
    if isinstance(x, (int, float)):
        return True
    v = getattr(x, "v", None)  # (a PH: a primal operand)
    return v is not None and real(v)


def _no_out(t, name, k):
    """Keyword arguments without `out=` (a call writing into `out=` is refused when it runs)."""
    if "out" in k:
        _keep(t.call(out_unsupported, name, k["out"]))
    return {key: v for key, v in k.items() if key != "out"}


def _keep(stmt):
    """Mark a generated check as needed although nothing reads its result (dead-code removal keeps it)."""
    for attr in ("effect", "keep"):
        try:
            setattr(stmt, attr, True)
        except AttributeError:  # run time: the check already ran
            pass
    return stmt


def out_unsupported(name, out):
    if out is not None:
        raise NotImplementedError(f"derivative of {name} with out=: assign the result instead")


def _no():
    from ..tangents import NoTangent

    return NoTangent


def _dense(x, dx):
    """A tangent that NumPy can make an array of: symbolic zeros become zeros shaped like x."""
    from ..tangents import NoTangent, materialize

    return materialize(dx, x) if _has_no(dx) else dx


def _has_no(dx):
    from ..tangents import NoTangent

    if dx is NoTangent:
        return True
    if isinstance(dx, (list, tuple)):
        return any(_has_no(d) for d in dx)
    return False


def _bind(names, a, k):
    """A template's operands by parameter name (positional ones first, then keywords)."""
    out = dict(zip(names, a))
    out.update(k)
    return out


def _refuse_keywords(t, name, **kw):
    """Templates return adjoints for positional arguments only: a differentiated keyword argument is
    refused (NotImplementedError when the pullback runs) rather than silently given a zero adjoint."""
    needs = getattr(t, "needs", None)
    live = [v for v in kw.values() if needs is None or needs(v)]
    if live and getattr(t, "keyword_adjoints", False):
        # The caller takes keyword adjoints: each gets a refused adjoint (call_binding._binding_vjp adds them),
        # which a constant operand discards unread -- refusing here from the value alone would refuse
        # constants a helper function was called with.
        pending = getattr(t, "refused_keywords", None)
        if pending is None:
            pending = {}
            t.refused_keywords = pending
        pending.update({k: name for k, v in kw.items() if needs is None or needs(v)})
        return
    if live:
        _keep(t.call(keyword_adjoint_unsupported, name, *live))


def refused_keyword_adjoint(g, name, key, value):
    """The adjoint of a keyword operand whose derivative a rule does not give (see _refuse_keywords)."""
    from .numpy_extra import refused_adjoint

    return refused_adjoint(g, name, f"{key}= (a differentiated keyword argument: pass it positionally)", value)


def keyword_adjoint_unsupported(name, *values):
    from ..reverse.runtime import _nondifferentiable

    if not all(_nondifferentiable(v) for v in values):
        raise NotImplementedError(f"reverse mode of {name} with a differentiated keyword argument: pass it positionally")


def _float_dtype(x):
    return np.result_type(as_array(x).dtype, float)


def _inexact(x):
    """x as a float array, or a complex one if it is complex: `dtype=float` would silently drop imaginary parts."""
    x = as_array(x)
    return x if x.dtype.kind in "fc" else x.astype(float)


def _in_storage(x, g):
    """Is g (the adjoint of a view y of x) already part of x's adjoint storage?  Then it is counted there:
    a view's adjoint storage is the same view of its base's (reverse/shadows.py)."""
    if not (isinstance(x, np.ndarray) and isinstance(g, np.ndarray)):
        return False
    from ..reverse import shadows

    return np.shares_memory(g, shadows.shadow(x))


def _no_adjoint(g):
    """Is g the zero adjoint: the symbolic zero, or a scalar 0 standing for an array's (an unused result's
    adjoint can arrive as a plain 0.0)?  Adjoint helpers then return NoTangent without doing any work."""
    from ..tangents import NoTangent

    if g is NoTangent or g is None:
        return True
    if isinstance(g, (int, float, complex, np.number)) or (isinstance(g, np.ndarray) and g.ndim == 0):
        return not bool(g != 0)
    return False


def _linear(t, fn, dx, *args, **kwargs):
    """`fn(dx, *args)` for fn linear in dx, through helpers.linear so that a tangent that is the symbolic zero
    when the code runs stays NoTangent (NumPy 2's np.trace and np.diagonal no longer call a method of
    their argument, so they fail on NoTangent)."""
    if dx is None:
        return None
    from . import helpers

    return t.call(helpers.linear, fn, dx, *args, **kwargs)
