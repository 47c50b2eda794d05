"""`check_derivatives`: Mooncake's `test_rule`, for Python functions and rules.

For a function and a point it checks, reporting which check failed and by how much:

* the primal result and the post-call state of every argument equal those of a plain call;
* forward tangents (of the result and of arguments mutated in place) match central
  finite differences along random directions, at several step sizes (the best one counts);
* (reverse mode, when available) the dot-product test ⟨x̄, ẋ⟩ = ⟨ȳ, J ẋ⟩ against forward
  mode, arguments restored after the pullback, aliasing between arguments preserved.
"""
from __future__ import annotations

import copy
import dataclasses
import math
from typing import Any, Callable, Optional

import numpy as np

from .tangents import MutableTangent, NoTangent, Tangent, materialize, zeros_like_tangent


class DerivativeCheckError(AssertionError):
    """A derivative check failed; the message names the check and the discrepancy."""


@dataclasses.dataclass
class Report:
    name: str
    checks: list[str]
    worst_forward_error: float = 0.0

    def __str__(self) -> str:
        return f"{self.name}: " + "; ".join(self.checks)


# ---------------------------------------------------------------- structure helpers


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
    if hasattr(x, "__dict__") and not callable(x) and not isinstance(x, type):
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
        return x + h * np.asarray(dx)
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
        elif hasattr(v, "__dict__") and not callable(v):
            for k in vars(v):
                walk(vars(v)[k])

    walk(x)
    return np.concatenate(out) if out else np.zeros(0)


def tangent_vector(t: Any, primal: Any) -> np.ndarray:
    """Flatten a tangent in the same order as `flatten(primal)` (zeros where symbolic)."""
    return flatten(_dense_like(materialize(t, primal), primal))


def _dense_like(t: Any, p: Any) -> Any:
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
    if hasattr(a, "__dict__") and hasattr(b, "__dict__") and type(a) is type(b) and not callable(a):
        return same_value(vars(a), vars(b), rtol, atol)
    try:
        return bool(a == b)
    except Exception:
        return a is b


# ---------------------------------------------------------------- the check


STEPS = (1e-3, 1e-4, 1e-5, 1e-6, 1e-7)


def check_derivatives(
    f: Callable,
    *args: Any,
    modes: tuple = ("forward", "reverse"),
    rtol: float = 1e-5,
    atol: float = 1e-6,
    seed: int = 0,
    directions: int = 2,
    **kwargs: Any,
) -> Report:
    """Check `f`'s derivatives at `args` in the given modes; raise DerivativeCheckError on failure."""
    from .api import _as_function

    f = _as_function(f)
    name = getattr(f, "__qualname__", repr(f))
    report = Report(name, [])
    rng = np.random.default_rng(seed)

    # The plain call: the reference for results and argument state.
    ref_args = copy.deepcopy(args)
    ref_kwargs = copy.deepcopy(kwargs)
    y_ref = f(*ref_args, **ref_kwargs)

    if "forward" in modes:
        worst = _check_forward(f, args, kwargs, y_ref, ref_args, rng, rtol, atol, directions, name)
        report.checks.append(f"forward ok (worst relative error {worst:.1e})")
        report.worst_forward_error = worst
    if "reverse" in modes:
        _check_reverse(f, args, kwargs, y_ref, ref_args, rng, rtol, atol, name)
        report.checks.append("reverse ok (dot-product test against forward mode)")
    return report


def _call_forward(f: Callable, args: tuple, kwargs: dict, dargs: tuple, dkwargs: dict) -> tuple[Any, Any, tuple, dict]:
    from .forward.runtime import fcall

    y, dy = fcall(f, NoTangent, args, dargs, kwargs, dkwargs)
    return y, dy, dargs, dkwargs


def _check_forward(f, args, kwargs, y_ref, ref_args, rng, rtol, atol, directions, name) -> float:
    worst = 0.0
    for _ in range(directions):
        run_args = copy.deepcopy(args)
        run_kwargs = copy.deepcopy(kwargs)
        memo: dict = {}
        dargs = tuple(random_tangent(a, rng, memo) for a in args)
        dkwargs = {k: random_tangent(v, rng, memo) for k, v in kwargs.items()}
        seeds = (copy.deepcopy(dargs), copy.deepcopy(dkwargs))
        y, dy, dargs_after, dkwargs_after = _call_forward(f, run_args, run_kwargs, tuple(copy.deepcopy(dargs)), copy.deepcopy(dkwargs))
        if not same_value(y, y_ref):
            raise DerivativeCheckError(f"{name}: forward mode returned {y!r}, the plain call {y_ref!r}")
        for i, (a, b) in enumerate(zip(run_args, ref_args)):
            if not same_value(a, b):
                raise DerivativeCheckError(f"{name}: argument {i} after forward mode is {a!r}, after the plain call {b!r}")
        # Outputs whose tangents we check: the result, then every argument (mutated ones change).
        ad = np.concatenate([tangent_vector(dy, y)] + [tangent_vector(d, a) for d, a in zip(dargs_after, run_args)]
                            + [tangent_vector(dkwargs_after[k], run_kwargs[k]) for k in run_kwargs])
        best = math.inf
        best_fd = None
        for h in STEPS:
            plus = _evaluate(f, args, kwargs, seeds, h)
            minus = _evaluate(f, args, kwargs, seeds, -h)
            if plus is None or minus is None:
                continue
            fd = (plus - minus) / (2 * h)
            if fd.shape != ad.shape:
                raise DerivativeCheckError(f"{name}: tangent has {ad.size} numbers, finite differences {fd.size}")
            err = float(np.max(np.abs(ad - fd) / (atol + rtol * np.maximum(np.abs(fd), np.abs(ad))))) if ad.size else 0.0
            if err < best:
                best, best_fd = err, fd
        if best_fd is None:
            raise DerivativeCheckError(f"{name}: finite differences failed at every step size")
        if best > 1.0:
            i = int(np.argmax(np.abs(ad - best_fd)))
            raise DerivativeCheckError(
                f"{name}: forward tangent disagrees with finite differences: component {i} is {ad[i]:.10g}, "
                f"finite differences give {best_fd[i]:.10g} (max error {np.max(np.abs(ad - best_fd)):.3g}; "
                f"{best:.3g}x the tolerance)")
        worst = max(worst, best * rtol)
    return worst


def _evaluate(f, args, kwargs, seeds, h) -> Optional[np.ndarray]:
    dargs, dkwargs = seeds
    memo: dict = {}
    a = tuple(perturb(x, d, h, memo) for x, d in zip(args, dargs))
    k = {key: perturb(v, dkwargs[key], h, memo) for key, v in kwargs.items()}
    try:
        with np.errstate(all="ignore"):
            y = f(*a, **k)
    except (ValueError, ZeroDivisionError, OverflowError, ArithmeticError):
        return None
    return np.concatenate([flatten(y)] + [flatten(x) for x in a] + [flatten(k[key]) for key in k])


def _check_reverse(f, args, kwargs, y_ref, ref_args, rng, rtol, atol, name) -> None:
    """Dot-product test: <x_bar, x_dot> = <y_bar, J x_dot>, with J x_dot from forward mode."""
    from .reverse import shadows

    with shadows.Context():
        _check_reverse_in_context(f, args, kwargs, y_ref, ref_args, rng, rtol, atol, name, shadows)


def _check_reverse_in_context(f, args, kwargs, y_ref, ref_args, rng, rtol, atol, name, shadows) -> None:
    from .api import _to_user
    from .reverse.runtime import rcall

    run_args = copy.deepcopy(args)
    run_kwargs = copy.deepcopy(kwargs)
    y, pb = rcall(f, run_args, run_kwargs)
    post = shadows.snapshot((*run_args, y))
    if not same_value(y, y_ref):
        raise DerivativeCheckError(f"{name}: reverse mode's forward pass returned {y!r}, the plain call {y_ref!r}")
    for i, (a, b) in enumerate(zip(run_args, ref_args)):
        if not same_value(a, b):
            raise DerivativeCheckError(f"{name}: argument {i} after reverse mode's forward pass is {a!r}, after the plain call {b!r}")
    y_bar = random_tangent(y, rng)
    _, args_bar, kwargs_bar = pb(copy.deepcopy(y_bar))
    x_bar = [_to_user(shadows.full_adjoint(a, g), a0) for g, a, a0 in zip(args_bar, run_args, args)]
    for i, (a, a0) in enumerate(zip(run_args, args)):
        if not same_value(a, a0):
            raise DerivativeCheckError(f"{name}: the pullback left argument {i} as {a!r}, not as it was on entry, {a0!r}")
    shadows.reapply((*run_args, y), post)
    for i, (a, b) in enumerate(zip(run_args, ref_args)):
        if not same_value(a, b):
            raise DerivativeCheckError(f"{name}: argument {i} after the pullback is {a!r}; it must be as after the plain call, {b!r}")
    if not same_value(y, y_ref):
        raise DerivativeCheckError(f"{name}: the result after the pullback is {y!r}; it must be as returned, {y_ref!r}")
    k_bar = {k: _to_user(kwargs_bar.get(k, NoTangent), v) for k, v in kwargs.items()}
    memo: dict = {}
    x_dot = tuple(random_tangent(a, rng, memo) for a in args)
    k_dot = {k: random_tangent(v, rng, memo) for k, v in kwargs.items()}
    _, dy, _, _ = _call_forward(f, copy.deepcopy(args), copy.deepcopy(kwargs), copy.deepcopy(x_dot), copy.deepcopy(k_dot))
    # An object passed twice (aliasing) is one input: its adjoint and tangent count once.
    seen: set = set()
    pairs = []
    for g, d, a in [*zip(x_bar, x_dot, args), *((k_bar[k], k_dot[k], kwargs[k]) for k in kwargs)]:
        if isinstance(a, (np.ndarray, list, dict)) or hasattr(a, "__dict__"):
            if id(a) in seen:
                continue
            seen.add(id(a))
        pairs.append((tangent_vector(g, a), tangent_vector(d, a)))
    lhs = float(sum(np.dot(u, v) for u, v in pairs))
    rhs = float(np.dot(tangent_vector(y_bar, y), tangent_vector(dy, y)))
    if not abs(lhs - rhs) <= atol + rtol * max(abs(lhs), abs(rhs)) * 10:
        raise DerivativeCheckError(f"{name}: reverse mode fails the dot-product test: <x_bar, x_dot> = {lhs:.10g} but "
                                   f"<y_bar, J x_dot> = {rhs:.10g} (difference {abs(lhs - rhs):.3g})")
