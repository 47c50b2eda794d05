"""Filter design in `scipy.signal` (butter, cheby1, cheby2, ellip, bessel, iirfilter, iirnotch, iirpeak, firwin,
firwin2, remez, and the conversions between transfer function, zeros-poles-gain and second-order sections), both
modes; registered when scipy.signal is imported (registry._LAZY_TABLES).  This module never imports SciPy itself.

A filter designed from constants (an order, a cutoff) is data: `lfilter(*butter(2, 0.3), x)` differentiates in x
only.  Traced, the design ran through complex zeros and poles, and reverse mode refused the complex arrays it met
although nothing of them was differentiated.  So these functions are rules: their result has a zero tangent when
nothing they read is differentiated.  A differentiated specification (a cutoff frequency being fitted, coefficients
converted between forms) is refused by name in both modes (forward when its tangent is live; reverse when the
operand is differentiated, decided where the code is generated): the derivative of a filter design is not
implemented.
"""
from __future__ import annotations

from ..tangents import NoTangent

DESIGNS = ["bessel", "butter", "cheby1", "cheby2", "ellip", "firwin", "firwin2", "iirfilter", "iirnotch", "iirpeak",
           "remez", "sos2tf", "sos2zpk", "tf2sos", "tf2zpk", "zpk2sos", "zpk2tf"]
FUNCTIONS = sorted(f"signal.{n}" for n in DESIGNS)
REGISTERED: dict = {}


def _message(name):
    return (f"derivative of scipy.signal.{name} with respect to its specification (a cutoff, an order, "
            f"coefficients) is not implemented: a filter design is used as data.  Design the filter from constants, "
            f"or write the filter's coefficients as a NumPy function of the parameter")


def design_tangent(name, *tangents):
    from .scipy_optimize_rules import _live

    if any(_live(d) for d in tangents):
        raise NotImplementedError(_message(name))
    return NoTangent


def refuse_design(name, g):
    from .scipy_optimize_rules import _live

    if _live(g):
        raise NotImplementedError(_message(name))
    return NoTangent


def register() -> None:
    import scipy.signal

    from .call_binding import KwAdj
    from .registry import _entry, defcomplex, defjvp, defvjp

    for name in DESIGNS:
        fn = getattr(scipy.signal, name, None)
        if fn is None:
            continue
        REGISTERED[fn] = f"signal.{name}"

        def jvp(t, y, *args, name=name, **kw):
            live = [t.d(a) for a in (*args, *kw.values()) if t.d(a) is not None]
            if not live:
                return None
            return t.call(design_tangent, name, *live)

        def vjp(t, g, y, *args, name=name, **kw):
            needs = getattr(t, "needs", None)

            def adjoint(a):
                if needs is not None and not needs(a):
                    return None
                return t.call(refuse_design, name, g)

            out = tuple(adjoint(a) for a in args)
            named = {k: adjoint(v) for k, v in kw.items()}
            named = {k: v for k, v in named.items() if v is not None}
            return out + ((KwAdj(named),) if named else ())

        defjvp(fn, jvp)
        defvjp(fn, vjp)
        defcomplex(fn)  # (right for complex zeros and poles: it gives no adjoint, or refuses)
        _entry(fn).fresh = True  # (a new result: no part of what it was given)
