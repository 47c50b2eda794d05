"""Reductions asked for an integer or boolean result (`np.sum(x, dtype=int)`, `A.mean(0, int)`, `np.cumsum(x,
dtype=np.int32)`) have a zero derivative.

NumPy casts each entry to the integer type before it adds (or multiplies) them: the result is a step function of x,
flat almost everywhere, as `x.astype(int)` is.  The linear rules of the reductions carry the dtype over to the
tangent (`np.sum(dx, dtype=int)`), which truncates the tangent instead -- a silent wrong derivative (1 per entry for
a basis tangent).  Rather than teach every rule, each named here is wrapped once: where a dtype is given that is not
a float or complex type, its tangent and its adjoint become zero (decided when the code runs, as the dtype may be a
name).  A float dtype (`np.sum(x, None, float)`) leaves the rule as it is.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any

import numpy as np

from ..tangents import NoTangent
from .call_binding import _parameter_names
from .registry import defjvp, defvjp, lookup_exact


def zero_unless_inexact(d: Any, dtype: Any) -> Any:
    """d (a tangent or an adjoint), or the zero where `dtype` makes the result integer or boolean (a step)."""
    if dtype is None or np.dtype(dtype).kind in "fc":
        return d
    return NoTangent


_SIGNATURES: dict = {}


def _dtype_given(t: Any, key: Any, template: Any, skip: int, args: tuple, kwargs: dict) -> Any:
    """The dtype operand of a call (`args` after the template's first `skip`), or None where there is none (or it
    is None or a float type, known now).  By the template's parameters, else by the callable's (a template that
    takes *args: `np.trace(A, 0, 0, 1, int)`)."""
    dtype = kwargs.get("dtype")
    if dtype is None and len(args) < 2:  # (the usual `np.sum(x)`: no dtype -- it comes after the operand and axis)
        return None
    sig = _SIGNATURES.get(template)
    if sig is None:  # (read once: this runs on each call the runtimes dispatch to the rule)
        sig = _SIGNATURES[template] = inspect.signature(template)
    if dtype is None:
        try:
            dtype = sig.bind(*([None] * skip), *args, **kwargs).arguments.get("dtype")
        except TypeError:
            dtype = None
    if dtype is None:
        names = _parameter_names(key) or []
        if "dtype" in names and len(args) > names.index("dtype") and not any(
                p.name == "dtype" for p in sig.parameters.values()):
            dtype = args[names.index("dtype")]
    if dtype is None:
        return None
    known = t.value(dtype)
    if known is None or known in (float, complex, np.float64, np.float32, np.complex128, np.complex64):
        return None
    return dtype


def _guarded_jvp(key: Any, template: Any) -> Any:
    @functools.wraps(template)  # (inspect.signature still sees the template's parameters: call_binding spills by them)
    def jvp(t: Any, y: Any, /, *args: Any, **kwargs: Any) -> Any:
        out = template(t, y, *args, **kwargs)
        dtype = _dtype_given(t, key, template, 2, args, kwargs) if out is not None else None
        return out if dtype is None else t.call(zero_unless_inexact, out, dtype)
    return jvp


def _guarded_vjp(key: Any, template: Any) -> Any:
    @functools.wraps(template)
    def vjp(t: Any, g: Any, y: Any, /, *args: Any, **kwargs: Any) -> Any:
        out = tuple(template(t, g, y, *args, **kwargs))
        dtype = _dtype_given(t, key, template, 3, args, kwargs) if out and out[0] is not None else None
        return out if dtype is None else (t.call(zero_unless_inexact, out[0], dtype), *out[1:])
    return vjp


def guard_integer_dtypes(*keys: Any) -> None:
    """Wrap the rules of these reductions (callables or `(type, method name)` keys) as the module docstring says."""
    for key in keys:
        r = lookup_exact(key)
        if r is None or r.zero:
            continue
        if r.jvp is not None:
            defjvp(key, _guarded_jvp(key, r.jvp_template or r.jvp), mutates=r.mutates)
        if r.vjp is not None:
            defvjp(key, _guarded_vjp(key, getattr(r.vjp, "__wrapped__", r.vjp)))
