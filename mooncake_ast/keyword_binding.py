"""Keyword arguments given to a derivative of a derivative (`mc.hessian(f)(x, scale=2.0)`).

JAX's rule, which the first-order entry points already follow: positional arguments are the ones `argnums`
picks from, keyword arguments are passed through to f as constants.  A nested derivative differentiates f's
generated code again through the rules of the inner entry points (rules/api_rules.py), which take positional
arguments only; so the keywords are bound to the innermost function first, `functools.partial(f, **kwargs)`,
and the same tower of derivatives is rebuilt on top of it.  The partial is differentiated like any callable
(its keywords are constants: it holds them, nothing moves them), and argnums still counts the positional
arguments, which the partial leaves in place.
"""
from __future__ import annotations

import functools
import types
from typing import Any, Callable

import numpy as np

from .api import ValueAndGrad


def is_nested(f: Any) -> bool:
    """Is f itself a derivative function (mc.grad / value_and_grad / jacfwd / jacrev / hessian of something)?"""
    return isinstance(f, ValueAndGrad) or getattr(f, "__mc_jacobian__", None) is not None


def _array_leaves(v: Any, out: list) -> list:
    if isinstance(v, np.ndarray):
        out.append(v)
    elif isinstance(v, (tuple, list)):
        for item in v:
            _array_leaves(item, out)
    elif isinstance(v, dict):
        for item in v.values():
            _array_leaves(item, out)
    return out


def _unshared(v: Any, arrays: list) -> Any:
    """v with each array in it that shares memory with one of `arrays` replaced by a copy (containers rebuilt)."""
    if isinstance(v, np.ndarray):
        return v.copy() if any(np.shares_memory(v, a) for a in arrays) else v
    if type(v) in (tuple, list):
        return type(v)(_unshared(item, arrays) for item in v)
    if type(v) is dict:
        return {k: _unshared(item, arrays) for k, item in v.items()}
    return v


def bind_keywords(f: Callable, kwargs: dict, args: tuple = ()) -> Callable:
    """The derivative tower f with kwargs passed, as constants, to the function at its bottom.

    A keyword array that shares memory with a positional argument (`mc.hessian(f)(x, w=x)`) is bound as a copy:
    reverse mode keys adjoints by identity, so the bound x moved with the differentiated one, and the Hessian was
    that of `f(x, w=x)` while the gradient (and JAX) hold w constant."""
    from . import higher

    arrays = _array_leaves(tuple(args), [])
    if arrays:
        kwargs = {k: _unshared(v, arrays) for k, v in kwargs.items()}

    hessian_of = getattr(f, "__mc_hessian_of__", None)
    if hessian_of is not None:  # (mc.hessian: rebuilt as a Hessian, which also takes vector-valued functions)
        g, argnums, has_aux = hessian_of
        return higher.hessian(bind_keywords(g, kwargs), argnums, has_aux)
    if isinstance(f, ValueAndGrad):  # (Grad and ValueAndGrad: the same class, with the same arguments)
        return type(f)(bind_keywords(f.f, kwargs), f.argnums, f.has_aux)
    spec = getattr(f, "__mc_jacobian__", None)
    if spec is not None:
        inner, argnums, has_aux, kind = spec
        make = higher.jacfwd if kind == "jacfwd" else higher.jacrev
        return make(bind_keywords(inner, kwargs), argnums, has_aux)
    if isinstance(f, types.MethodType) and isinstance(f.__func__, types.FunctionType):
        # (a method: its function with the object bound first, which nested derivatives place as a plain call; a
        # partial of the bound method itself had no nested plan)
        return functools.partial(f.__func__, f.__self__, **kwargs)
    return functools.partial(f, **kwargs)
