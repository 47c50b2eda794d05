"""Complex values in reverse mode (README "Complex numbers"): the run-time pieces generated pullbacks call.

The convention is the real inner product on C = R^2, <a, b> = Re(sum(conj(a) * b)): a pullback gives x_bar with
<x_bar, x_dot> == <y_bar, y_dot>, so x_bar = conj(f'(z)) * y_bar for a holomorphic f, and the adjoint of a real
value is real.  Only reverse templates marked right for complex values (rules/registry.defcomplex) take them; the
refusals here stop every other one where the types do not prove the values real (reverse/templates.py).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..arrays import is_other_array
from ..tangents import NoTangent


def _is_complex(v: Any) -> bool:
    return type(v) is complex or isinstance(v, np.complexfloating) or \
        ((isinstance(v, np.ndarray) or is_other_array(v)) and v.dtype.kind == "c")


def refuse_complex(*values: Any) -> None:
    """For paths that have no complex adjoint (Dask/CuPy unbroadcasting): say so, never guess."""
    for v in values:
        if _is_complex(v):
            from .runtime import ReverseError

            raise ReverseError("reverse mode of complex values is not supported here (forward mode supports them: "
                               "use mc.jvp)")


def refuse_complex_rule(name: str, *values: Any) -> None:
    """The pullback of a rule whose reverse template is not marked right for complex values (registry.defcomplex)
    met a complex result or operand: refuse, rather than run a real formula on it (a missing conj is a wrong
    gradient).  Emitted where the types do not prove the values real (reverse/templates.py)."""
    for v in values:
        if _is_complex(v):
            from .runtime import ReverseError

            raise ReverseError(f"reverse mode of {name} with complex values is not supported (its pullback is "
                               f"written for real numbers; forward mode supports them: use mc.jvp). Complex "
                               f"reverse mode covers the rules listed in README 'Complex numbers'")


def refuse_complex_power(a: Any, b: Any) -> None:
    """`a ** b` of Python numbers gives a complex number for a negative base and a fractional power: the code after
    it was made for real numbers (its inferred type is a number), so reverse mode refuses it.  (a is on the tape
    already, for the derivative; the result is not kept for this.)"""
    if type(a) in (float, int) and a < 0 and type(a ** b) is complex:
        from .runtime import ReverseError

        raise ReverseError(f"reverse mode of a ** b of real numbers with a complex result ({a!r} ** {b!r}: a negative "
                           f"base to a fractional power) is not supported; make the base complex (complex(a) ** b) "
                           f"or use forward mode (mc.jvp)")


def conj(v: Any) -> Any:
    """np.conj(v) for a complex v, v itself otherwise (a real adjoint stays what it is: a float stays a float)."""
    tp = type(v)
    if tp is np.ndarray:
        return np.conj(v) if v.dtype.kind == "c" else v
    if tp is float or v is NoTangent:
        return v
    return np.conj(v) if _is_complex(v) else v
