"""Values and tangents as flat vectors, for mc.testing.check_derivatives: random tangents, perturbed
points, and the structural equality results and argument states are compared with.

Finite differences and dot products need every differentiable number of a value (a float, a complex
number as its two parts, an array, and the containers and data objects holding them) in one fixed
order: `flatten` gives it, and `tangent_vector` gives a tangent's numbers in the same order.
"""
from __future__ import annotations

import copy
from typing import Any, Optional

import numpy as np

from .tangents import MutableTangent, NoTangent, Tangent, is_data_object, materialize, zeros_like_tangent


def _is_leaf_float(x: Any) -> bool:
    return isinstance(x, (float, np.floating)) and not isinstance(x, bool)


def random_tangent(x: Any, rng: np.random.Generator, _memo: Optional[dict] = None) -> Any:
    """A random tangent with the structure of `x` (NoTangent where x is not differentiable).

    An object reached twice (aliasing: `f(a, a)`, a list holding `a` twice) gets one tangent.
    """
    memo = {} if _memo is None else _memo
    if id(x) in memo and memo[id(x)][0] is x:
        return memo[id(x)][1]
    t = _random_tangent(x, rng, memo)
    if isinstance(x, (np.ndarray, list, dict)) or hasattr(x, "__dict__"):
        memo[id(x)] = (x, t)
    return t


def _random_tangent(x: Any, rng: np.random.Generator, memo: dict) -> Any:
    random_tangent_ = lambda v, r: random_tangent(v, r, memo)  # noqa: E731
    if _is_leaf_float(x):
        return float(rng.normal())
    if isinstance(x, (complex, np.complexfloating)):
        return complex(rng.normal(), rng.normal())
    if isinstance(x, np.ndarray):
        if x.dtype.kind == "f":
            return rng.normal(size=x.shape).astype(x.dtype)
        if x.dtype.kind == "c":
            return (rng.normal(size=x.shape) + 1j * rng.normal(size=x.shape)).astype(x.dtype)
        return NoTangent
    if isinstance(x, list):
        return [random_tangent_(v, rng) for v in x]
    if isinstance(x, tuple):
        return tuple(random_tangent_(v, rng) for v in x)
    if isinstance(x, dict):
        return {k: random_tangent_(v, rng) for k, v in x.items()}
    if hasattr(x, "__dict__") and is_data_object(x):
        return MutableTangent({k: random_tangent_(v, rng) for k, v in vars(x).items()})
    return NoTangent


def perturb(x: Any, dx: Any, h: float, _memo: Optional[dict] = None) -> Any:
    """x + h·dx, as a new object of x's structure (an object reached twice is perturbed once)."""
    memo = {} if _memo is None else _memo
    if id(x) in memo and memo[id(x)][0] is x:
        return memo[id(x)][1]
    out = _perturb(x, dx, h, memo)
    if isinstance(x, (np.ndarray, list, dict)) or hasattr(x, "__dict__"):
        memo[id(x)] = (x, out)
    return out


def _perturb(x: Any, dx: Any, h: float, memo: dict) -> Any:
    perturb_ = lambda v, d, hh: perturb(v, d, hh, memo)  # noqa: E731
    if dx is NoTangent:
        return copy.deepcopy(x)
    if _is_leaf_float(x) or isinstance(x, (complex, np.complexfloating)):
        return type(x)(x + h * dx) if not isinstance(x, np.generic) else x + h * dx
    if isinstance(x, np.ndarray):
        moved = x + h * np.asarray(dx)
        if moved.shape != x.shape:
            return moved
        # laid out as x (an F-ordered x with a C-ordered dx gave a C-ordered sum): functions that read memory
        # order (ravel(order="K"/"A"), flatten("K")) must see the same layout at the shifted points
        out = np.empty_like(x, dtype=moved.dtype)
        out[...] = moved
        return out
    if isinstance(x, list):
        return [perturb_(v, d, h) for v, d in zip(x, dx)]
    if isinstance(x, tuple):
        out = [perturb_(v, d, h) for v, d in zip(x, dx)]
        return type(x)(*out) if hasattr(x, "_fields") else tuple(out)
    if isinstance(x, dict):
        return {k: perturb_(v, dx[k], h) for k, v in x.items()}
    if isinstance(dx, MutableTangent):
        y = copy.copy(x)
        for k, v in vars(x).items():
            object.__setattr__(y, k, perturb_(v, dx.fields.get(k, NoTangent), h))
        return y
    return copy.deepcopy(x)


def flatten(x: Any) -> np.ndarray:
    """The differentiable numbers in `x` as one float vector (complex as pairs)."""
    out: list[np.ndarray] = []

    def walk(v: Any) -> None:
        if v is NoTangent or v is None or isinstance(v, (bool, str, bytes, int, np.integer, np.bool_)):
            return
        if _is_leaf_float(v):
            out.append(np.array([float(v)]))
        elif isinstance(v, (complex, np.complexfloating)):
            out.append(np.array([v.real, v.imag]))
        elif isinstance(v, np.ndarray):
            if v.dtype.kind == "f":
                out.append(v.astype(float).ravel())
            elif v.dtype.kind == "c":
                out.append(np.concatenate([v.real.ravel(), v.imag.ravel()]))
        elif isinstance(v, (list, tuple)):
            for e in v:
                walk(e)
        elif isinstance(v, dict):
            for k in v:
                walk(v[k])
        elif isinstance(v, (MutableTangent, Tangent)):
            for k in v.fields:
                walk(v.fields[k])
        elif hasattr(v, "__dict__") and is_data_object(v):
            for k in vars(v):
                walk(vars(v)[k])

    walk(x)
    return np.concatenate(out) if out else np.zeros(0)


def tangent_vector(t: Any, primal: Any) -> np.ndarray:
    """Flatten a tangent in the same order as `flatten(primal)` (zeros where symbolic)."""
    return flatten(_dense_like(materialize(t, primal), primal))


def _dense_like(t: Any, p: Any) -> Any:
    if isinstance(p, (bool, int, str, bytes, type(None), np.integer, np.bool_)) and not isinstance(p, float) or \
            (isinstance(p, np.ndarray) and p.dtype.kind not in "fc"):
        return NoTangent  # (flatten(p) has no numbers for it, whatever tangent a derivative gives it)
    if t is NoTangent:
        return zeros_like_tangent(p)
    if isinstance(p, (list, tuple)) and isinstance(t, (list, tuple)):
        return [_dense_like(a, b) for a, b in zip(t, p)]
    if isinstance(p, dict) and isinstance(t, dict):
        return {k: _dense_like(t.get(k, NoTangent), v) for k, v in p.items()}
    if isinstance(t, MutableTangent) and hasattr(p, "__dict__"):
        return MutableTangent({k: _dense_like(t.fields.get(k, NoTangent), v) for k, v in vars(p).items()})
    if _is_leaf_float(p) and isinstance(t, (int, float, np.floating, np.integer)):
        return float(t)
    if isinstance(p, np.ndarray) and p.dtype.kind in "fc" and not isinstance(t, np.ndarray):
        return np.full(p.shape, t, dtype=p.dtype)
    return t


def same_value(a: Any, b: Any, rtol: float = 1e-10, atol: float = 1e-12) -> bool:
    """Structural equality for results and argument states (NaNs equal, floats approximately)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "fc" or b.dtype.kind in "fc":
            return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))
        return bool(np.array_equal(a, b))
    if isinstance(a, (float, complex, np.floating)) and isinstance(b, (float, complex, np.floating, int)):
        return (a == b) or (abs(a - b) <= atol + rtol * abs(b)) or (a != a and b != b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same_value(x, y, rtol, atol) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k], rtol, atol) for k in a)
    if hasattr(a, "__dict__") and hasattr(b, "__dict__") and type(a) is type(b) and is_data_object(a):
        return same_value(vars(a), vars(b), rtol, atol)
    try:
        return bool(a == b)
    except Exception:
        return a is b
