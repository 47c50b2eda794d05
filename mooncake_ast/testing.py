"""`check_derivatives`: Mooncake's `test_rule`, for Python functions and rules.

For a function and a point it checks, through the public API's jvp and vjp (so what users get),
and names the check and the argument that failed:

* [jvp primal] / [vjp primal]: the result and the post-call state of every argument equal those
  of a plain call;
* [forward vs finite differences]: forward tangents (of the result and of arguments mutated in
  place) match central finite differences along random directions, at several step sizes (the
  best one counts); on failure, again with a tangent in one argument at a time, to name it;
* [reverse vs forward]: the dot-product test <x_bar, x_dot> = <y_bar, J x_dot> for each argument
  separately (a tangent in that argument only), and for each part of a tuple or list result
  separately, so that an error cannot hide in the sum over all of them;
* [reverse vs finite differences]: for an argument of at most `fd_max` numbers, each number of
  its gradient against central finite differences of <y_bar, f(x)> (catches a mistake both modes
  share);
* [pullback restores], [result after the pullback], [state after the pullback], [cotangent
  unchanged]: the pullback sees the arguments as on entry, and leaves the result, the arguments
  and the cotangent given as after a plain call;
* [gradient structure], [aliased arguments]: gradients have the structure of their argument
  (DESIGN.md §1), and an object passed twice (`f(a, a)`, `f([a], a)`) is one input with one
  gradient: arguments sharing objects are checked together, each shared number counted once.

Complex numbers are checked as pairs of real numbers (real part, imaginary part), in the real inner
product on C = R^2 that reverse mode follows (README "Complex numbers"): tangents and cotangents of complex
values are random complex numbers, <a, b> = Re(sum(conj(a) * b)), so the dot-product test is
Re(sum(conj(x_bar) x_dot)) == Re(sum(conj(y_bar) y_dot)), and finite differences perturb each real and each
imaginary part (d/d Re z of Re<y_bar, f> is Re(z_bar), d/d Im z is Im(z_bar)).  A complex argument's gradient
must be complex, a real argument's real.

Float32 (float16) arguments and results are checked at their precision: the steps and tolerances follow
their machine epsilon, so that a right derivative passes and one off by 1% still fails.

Example:
    >>> report = mc.testing.check_derivatives(lambda x: np.sum(np.tanh(x) * x), np.ones(3))
    >>> report.checks[0].startswith("forward ok"), report.checks[1].startswith("reverse ok")
    (True, True)
"""
from __future__ import annotations

import copy
import dataclasses
import math
from typing import Any, Callable, Optional

import numpy as np

from .tangents import MutableTangent, NoTangent, Tangent, is_data_object, materialize, zeros_like_tangent
from .errors import MissingRuleError, MooncakeError


class DerivativeCheckError(MooncakeError, AssertionError):
    """A derivative check failed; the message names the check and the discrepancy.  An AssertionError, so
    that a test runner reports it as a failed check (and a MooncakeError, as every error of mooncake_ast)."""


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


# ---------------------------------------------------------------- inputs: labels, aliasing groups, vectors


def _input_labels(f: Callable, args: tuple, kwargs: dict) -> list[str]:
    """"argument 1 (y)", "keyword argument 'k'": how failures name an input."""
    import inspect

    names: list = []
    try:
        params = list(inspect.signature(f).parameters.values())
        names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        pass
    labels = [f"argument {i}" + (f" ({names[i]})" if i < len(names) else "") for i in range(len(args))]
    return labels + [f"keyword argument {k!r}" for k in kwargs]


def _groups(values: list) -> list[list[int]]:
    """Inputs that share a mutable object (`f(a, a)`, `f([a], a)`) form one group: one input to differentiate."""
    from .reverse.shadows import reachable_mutables as _reachable_mutables

    owner: dict = {}
    parent = list(range(len(values)))

    def find(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for i, v in enumerate(values):
        for m in _reachable_mutables((v,)):
            j = owner.setdefault(id(m), i)
            if find(j) != find(i):
                parent[find(i)] = find(j)
    out: dict = {}
    for i in range(len(values)):
        out.setdefault(find(i), []).append(i)
    return sorted(out.values())


def _is_shared(p: Any) -> bool:
    return isinstance(p, (np.ndarray, list, dict)) or (hasattr(p, "__dict__") and is_data_object(p))


def _unique_vector(t: Any, p: Any, seen: set) -> list:
    """The numbers of tangent `t` in the order of `flatten(p)`, each mutable part of p counted once (`seen`)."""
    out: list = []

    def walk(t: Any, p: Any) -> None:
        if _is_shared(p):
            if id(p) in seen:
                return
            seen.add(id(p))
        if isinstance(p, (bool, str, bytes, int, np.integer, np.bool_)) or p is None:
            return
        if _is_leaf_float(p):
            out.append(0.0 if t is NoTangent or t is None else float(np.real(t)))
        elif isinstance(p, (complex, np.complexfloating)):
            c = 0j if t is NoTangent or t is None else complex(t)
            out.extend([c.real, c.imag])
        elif isinstance(p, np.ndarray):
            if p.dtype.kind in "fc":
                d = np.zeros(p.shape, p.dtype) if t is NoTangent or t is None else np.broadcast_to(np.asarray(t), p.shape)
                if p.dtype.kind == "f":
                    out.extend(np.asarray(d, dtype=float).ravel().tolist())
                else:
                    out.extend(np.real(d).ravel().tolist() + np.imag(d).ravel().tolist())
        elif isinstance(p, (list, tuple)):
            items = list(t) if isinstance(t, (list, tuple)) else [NoTangent] * len(p)
            for a, b in zip(items, p):
                walk(a, b)
        elif isinstance(p, dict):
            for k in p:
                walk(t.get(k, NoTangent) if isinstance(t, dict) else NoTangent, p[k])
        elif hasattr(p, "__dict__") and is_data_object(p):
            fields = t.fields if isinstance(t, (MutableTangent, Tangent)) else {}
            for k, v in vars(p).items():
                walk(fields.get(k, NoTangent), v)

    walk(t, p)
    return out


def _from_vector(p: Any, it: Any, memo: dict) -> Any:
    """A tangent of p taking its numbers from iterator `it` in `_unique_vector` order (shared parts once)."""
    if _is_shared(p) and id(p) in memo:
        return memo[id(p)]
    if isinstance(p, (bool, str, bytes, int, np.integer, np.bool_)) or p is None:
        return NoTangent
    if _is_leaf_float(p):
        return float(next(it))
    if isinstance(p, (complex, np.complexfloating)):
        return complex(next(it), next(it))
    if isinstance(p, np.ndarray):
        if p.dtype.kind == "f":
            out: Any = np.array([next(it) for _ in range(p.size)], dtype=p.dtype).reshape(p.shape)
        elif p.dtype.kind == "c":
            re = [next(it) for _ in range(p.size)]
            im = [next(it) for _ in range(p.size)]
            out = (np.array(re) + 1j * np.array(im)).astype(p.dtype).reshape(p.shape)
        else:
            return NoTangent
        memo[id(p)] = out
        return out
    if isinstance(p, list):
        out = []
        memo[id(p)] = out
        out.extend(_from_vector(v, it, memo) for v in p)
        return out
    if isinstance(p, tuple):
        return tuple(_from_vector(v, it, memo) for v in p)
    if isinstance(p, dict):
        out = {}
        memo[id(p)] = out
        for k, v in p.items():
            out[k] = _from_vector(v, it, memo)
        return out
    if hasattr(p, "__dict__") and is_data_object(p):
        out = MutableTangent({})
        memo[id(p)] = out
        for k, v in vars(p).items():
            out.fields[k] = _from_vector(v, it, memo)
        return out
    return NoTangent


def _gradient_problem(g: Any, p: Any, where: str) -> Optional[str]:
    """Why gradient `g` does not have the structure DESIGN.md §1 promises for argument `p` (None if it does)."""
    if isinstance(p, (bool, str, bytes, int, np.integer, np.bool_)) or p is None or \
            (isinstance(p, np.ndarray) and p.dtype.kind not in "fcO"):
        return None if g is NoTangent else f"{where} is not differentiable, its gradient must be mc.NoTangent(), not {g!r}"
    if _is_leaf_float(p):
        ok = isinstance(g, (float, np.floating)) and not isinstance(g, np.ndarray)
        return None if ok else f"{where} is a float, its gradient must be a float, not {type(g).__name__} {g!r}"
    if isinstance(p, (complex, np.complexfloating)):
        ok = isinstance(g, (complex, np.complexfloating)) and not isinstance(g, np.ndarray)
        return None if ok else f"{where} is a complex number, its gradient must be one, not {type(g).__name__} {g!r}"
    if isinstance(p, np.ndarray) and p.dtype.kind in "fc":
        if not isinstance(g, np.ndarray) or g.shape != p.shape or g.dtype != p.dtype:
            what = f"an array of shape {g.shape} and dtype {g.dtype}" if isinstance(g, np.ndarray) else repr(g)
            return f"{where} is an array of shape {p.shape} and dtype {p.dtype}, its gradient must be one too, not {what}"
        return None
    if isinstance(p, (list, tuple)):
        if type(g) is not (list if isinstance(p, list) else tuple) or len(g) != len(p):
            return f"{where} is a {type(p).__name__} of length {len(p)}, its gradient must be one too, not {g!r}"
        for i, (a, b) in enumerate(zip(g, p)):
            why = _gradient_problem(a, b, f"{where}[{i}]")
            if why:
                return why
        return None
    if isinstance(p, dict):
        if not isinstance(g, dict) or list(g) != list(p):
            return f"{where} is a dict with keys {list(p)}, its gradient must be one too, not {g!r}"
        for k in p:
            why = _gradient_problem(g[k], p[k], f"{where}[{k!r}]")
            if why:
                return why
        return None
    if hasattr(p, "__dict__") and is_data_object(p):
        if not isinstance(g, Tangent) or list(g.fields) != list(vars(p)):
            return f"{where} is a {type(p).__name__} with fields {list(vars(p))}, its gradient must be an mc.Tangent " \
                   f"with those fields, not {g!r}"
        for k, v in vars(p).items():
            why = _gradient_problem(g.fields[k], v, f"{where}.{k}")
            if why:
                return why
    return None


# ---------------------------------------------------------------- the check


STEPS = (1e-3, 1e-4, 1e-5, 1e-6, 1e-7)


def _coarsest_eps(values: list) -> float:
    """The machine epsilon of the least precise float (NumPy float32, float16, ... scalar or array; complex
    by its parts) in `values` and their containers; 0.0 when there are only float64s and Python floats."""
    worst = 0.0
    seen: set = set()

    def walk(v: Any) -> None:
        nonlocal worst
        if id(v) in seen:
            return
        if isinstance(v, (np.ndarray, np.generic)) and v.dtype.kind in "fc":
            if v.dtype.itemsize < (8 if v.dtype.kind == "f" else 16):
                worst = max(worst, float(np.finfo(v.dtype).eps))
        elif isinstance(v, (list, tuple, dict)) or (hasattr(v, "__dict__") and is_data_object(v)):
            seen.add(id(v))
            items = v.values() if isinstance(v, dict) else vars(v).values() if hasattr(v, "__dict__") and \
                not isinstance(v, (list, tuple)) else v
            for e in items:
                walk(e)

    walk(values)
    return worst

FD_ORDER = (1e-5, 1e-4, 1e-6, 1e-3, 1e-7)  # per-component differences: the usual best step first


class _Case:
    """One function at one point: the inputs (positional, then keyword), labels, groups, the plain call."""

    def __init__(self, f: Callable, args: tuple, kwargs: dict, rtol: float, atol: float, name: str) -> None:
        self.f, self.args, self.kwargs, self.rtol, self.atol, self.name = f, args, kwargs, rtol, atol, name
        self.keys = list(kwargs)
        self.values = [*args, *kwargs.values()]
        self.labels = _input_labels(f, args, kwargs)
        self.groups = _groups(self.values)
        ref_args, ref_kwargs = copy.deepcopy((args, kwargs))
        self.y_ref = f(*ref_args, **ref_kwargs)
        self.ref_values = [*ref_args, *ref_kwargs.values()]
        self.steps, self.fd_order = STEPS, FD_ORDER
        eps = _coarsest_eps([*self.values, self.y_ref])
        if eps > 1e-12:
            # float32 (float16) numbers: a difference quotient rounds at their precision, so the best step is
            # about eps ** (1/3) and its error about eps ** (2/3) relative: tolerances and steps follow (a
            # float64 tolerance would call a right float32 derivative wrong).
            self.rtol = max(rtol, 100.0 * eps ** (2.0 / 3.0))
            self.atol = max(atol, 0.1 * self.rtol)
            h = eps ** (1.0 / 3.0)
            self.steps = self.fd_order = (h, 2.0 * h, 0.5 * h, 4.0 * h, 0.25 * h)

    def split(self, values: list) -> tuple[tuple, dict]:
        n = len(self.args)
        return tuple(values[:n]), dict(zip(self.keys, values[n:]))

    def fresh(self) -> tuple[tuple, dict]:
        """A deep copy of the inputs (aliasing between them kept)."""
        return copy.deepcopy((self.args, self.kwargs))

    def group_label(self, group: list) -> str:
        if len(group) == 1:
            return self.labels[group[0]]
        return " and ".join(self.labels[i] for i in group) + " (sharing objects)"

    def fail(self, check: str, msg: str) -> DerivativeCheckError:
        return DerivativeCheckError(f"{self.name}: [{check}] {msg}")

    def check_state(self, values: list, check: str, when: str, against: Optional[list] = None) -> None:
        for label, a, b in zip(self.labels, values, self.ref_values if against is None else against):
            if not same_value(a, b):
                whose = "after the plain call" if against is None else "on entry"
                raise self.fail(check, f"{label} {when} is {a!r}; {whose} it is {b!r}")

    def check_result(self, y: Any, check: str, when: str) -> None:
        if not same_value(y, self.y_ref):
            raise self.fail(check, f"the result {when} is {y!r}; the plain call returns {self.y_ref!r}")

    def within(self, ad: float, ref: float, scale: float = 0.0) -> float:
        """|ad - ref| in units of the tolerance (<= 1 passes)."""
        return abs(ad - ref) / (self.atol + self.rtol * max(abs(ad), abs(ref), scale))


def check_derivatives(
    f: Callable,
    *args: Any,
    modes: tuple = ("forward", "reverse"),
    rtol: float = 1e-5,
    atol: float = 1e-6,
    seed: int = 0,
    directions: int = 2,
    fd_max: int = 20,
    **kwargs: Any,
) -> Report:
    """Check `f`'s derivatives at `args` in the given modes; raise DerivativeCheckError on failure.

    Forward mode is compared with central finite differences in random directions; reverse mode with
    forward mode (the dot-product test <y_bar, J x_dot> = <J^T y_bar, x_dot>) and, for inputs of at most
    `fd_max` numbers, with finite differences of each number.  Arguments are not changed.

    Args:
        f: the function (its source must be available, as for mc.grad).
        *args, **kwargs: the point; every float, float array and container of them is differentiated.
        modes: ("forward", "reverse"), or one of them.
        rtol, atol: the tolerances of the comparisons.
        seed: the random directions' seed.
        directions: how many random directions forward mode is checked in.
        fd_max: reverse mode compares each number of an input (a group of inputs sharing objects)
            with central finite differences when it has at most this many.
    Returns:
        a Report (`checks`: what was checked, with the worst errors).
    Raises:
        DerivativeCheckError: a derivative disagrees (the message names the check and the argument).
        The errors of mc.jvp / mc.vjp (SourceUnavailableError for a function without source, ...).

    Example:
        >>> report = mc.testing.check_derivatives(lambda x, y: np.sum(np.sin(x) * y), np.ones(3), 2.0)
        >>> report.checks[0].startswith("forward ok")
        True
    """
    from .api import _as_function
    from .errors import refuse_not_callable

    refuse_not_callable(f, "mc.testing.check_derivatives")
    f = _as_function(f)
    name = getattr(f, "__qualname__", repr(f))
    report = Report(name, [])
    rng = np.random.default_rng(seed)
    case = _Case(f, args, kwargs, rtol, atol, name)

    try:
        if "forward" in modes:
            worst = _check_forward(case, rng, directions)
            report.checks.append(f"forward ok (worst relative error {worst:.1e})")
            report.worst_forward_error = worst
        if "reverse" in modes:
            done = _check_reverse(case, rng, fd_max)
            report.checks.append("reverse ok (" + ", ".join(done) + ")")
    except MissingRuleError as e:  # (no source: a SourceUnavailableError that says where functions can live)
        from .tracebacks import for_user

        raise for_user(e)
    return report


# ---------------------------------------------------------------- forward mode


def _call_forward(case: _Case, dvalues: list) -> tuple[Any, Any, list, list]:
    """jvp on fresh inputs with tangents `dvalues` (None: zero): (y, dy, inputs after, tangents after)."""
    from .api import _jvp

    run_args, run_kwargs = case.fresh()
    dargs, dkwargs = case.split(copy.deepcopy(list(dvalues)))
    y, dy, dargs_after, dkwargs_after = _jvp(case.f, run_args, dargs, run_kwargs, dkwargs, api="check_derivatives")
    return y, dy, [*run_args, *run_kwargs.values()], [*dargs_after, *dkwargs_after.values()]


def _random_dvalues(case: _Case, rng: np.random.Generator, only: Optional[list] = None) -> list:
    """Random tangents; with `only`, in those inputs only, dense zeros elsewhere (not None, the symbolic zero:
    the derivative specialised on the same kinds of tangents is checked, and no other is generated)."""
    memo: dict = {}
    return [random_tangent(v, rng, memo) if only is None or i in only else zeros_like_tangent(v)
            for i, v in enumerate(case.values)]


def _forward_error(case: _Case, dvalues: list, check_primal: bool) -> tuple[float, np.ndarray, Optional[np.ndarray], list]:
    """(error in tolerance units, AD tangents, best finite differences, output labels per component)."""
    y, dy, after, dafter = _call_forward(case, dvalues)
    if check_primal:
        case.check_result(y, "jvp primal", "of jvp")
        case.check_state(after, "jvp primal", "after jvp")
    parts = [tangent_vector(dy, y)] + [tangent_vector(d, a) for d, a in zip(dafter, after)]
    out_labels = ["the result"] + [f"{label} after the call" for label in case.labels]
    owners = [lab for part, lab in zip(parts, out_labels) for _ in range(part.size)]
    ad = np.concatenate(parts)
    seeds = [NoTangent if d is None else d for d in dvalues]
    best, best_fd = math.inf, None
    for h in case.steps:
        plus, minus = _evaluate(case, seeds, h), _evaluate(case, seeds, -h)
        if plus is None or minus is None or plus.shape != ad.shape or minus.shape != ad.shape:
            continue
        fd = (plus - minus) / (2 * h)
        err = float(np.max(np.abs(ad - fd) / (case.atol + case.rtol * np.maximum(np.abs(fd), np.abs(ad))))) if ad.size else 0.0
        if err < best:
            best, best_fd = err, fd
    return best, ad, best_fd, owners


def _check_forward(case: _Case, rng: np.random.Generator, directions: int) -> float:
    worst = 0.0
    for _ in range(directions):
        dvalues = _random_dvalues(case, rng)
        best, ad, fd, owners = _forward_error(case, dvalues, check_primal=True)
        if fd is None:
            raise case.fail("forward vs finite differences", "finite differences failed at every step size "
                            "(the function raised, or its result changed structure, near the point)")
        if best > 1.0:
            # Which input is wrong: the same check with a tangent in one input (group) at a time.
            culprit = ""
            for group in case.groups:
                g_best, g_ad, g_fd, g_owners = _forward_error(case, _random_dvalues(case, rng, group), check_primal=False)
                if g_fd is not None and g_best > 1.0:
                    ad, fd, owners = g_ad, g_fd, g_owners
                    culprit = f"with a tangent in {case.group_label(group)} only: "
                    break
            i = int(np.argmax(np.abs(ad - fd)))
            raise case.fail("forward vs finite differences",
                            f"{culprit}forward tangent disagrees with finite differences: the tangent of {owners[i]} "
                            f"(component {i}) is {ad[i]:.10g}, finite differences "
                            f"give {fd[i]:.10g} (max error {np.max(np.abs(ad - fd)):.3g}; {best:.3g}x the tolerance)")
        worst = max(worst, best * case.rtol)
    return worst


def _evaluate(case: _Case, seeds: list, h: float, result_only: bool = False) -> Optional[np.ndarray]:
    memo: dict = {}
    values = [perturb(x, d, h, memo) for x, d in zip(case.values, seeds)]
    a, k = case.split(values)
    try:
        with np.errstate(all="ignore"):
            y = case.f(*a, **k)
    except (ValueError, ZeroDivisionError, OverflowError, ArithmeticError):
        return None
    if result_only:
        return flatten(y)
    return np.concatenate([flatten(y)] + [flatten(x) for x in values])


# ---------------------------------------------------------------- reverse mode


def _pull(case: _Case, y_bar_of: Callable, check: bool) -> tuple[Any, Any, list]:
    """A vjp on fresh inputs, pulled back with cotangent `y_bar_of(y)`: (y, y_bar, gradients per input)."""
    from .api import _vjp

    run_args, run_kwargs = case.fresh()
    run_values = [*run_args, *run_kwargs.values()]
    entry = copy.deepcopy(run_values)

    def restored() -> None:
        if check:
            case.check_state(run_values, "pullback restores", "at the end of the pullback", against=entry)

    y, pullback = _vjp(case.f, run_args, run_kwargs, api="check_derivatives", on_restored=restored)
    if check:
        case.check_result(y, "vjp primal", "of vjp")
        case.check_state(run_values, "vjp primal", "after vjp")
    y_bar = y_bar_of(y)
    given = copy.deepcopy(y_bar)
    g_args, g_kwargs = pullback(y_bar)
    grads = [*g_args, *(g_kwargs[k] for k in case.keys)]
    if check:
        if not same_value(y_bar, given, rtol=0.0, atol=0.0):
            raise case.fail("cotangent unchanged", f"the pullback changed the cotangent it was given: {given!r} "
                                                   f"became {y_bar!r}")
        case.check_result(y, "result after the pullback", "after the pullback")
        case.check_state(run_values, "state after the pullback", "after the pullback")
        for label, g, p in zip(case.labels, grads, case.values):
            why = _gradient_problem(g, p, label)
            if why:
                raise case.fail("gradient structure", why)
        for group in case.groups:
            for i in group:
                for j in group:
                    if i < j and case.values[i] is case.values[j] and not same_value(grads[i], grads[j], 0.0, 0.0):
                        raise case.fail("aliased arguments", f"{case.labels[i]} and {case.labels[j]} are the same "
                                        f"object but got different gradients, {grads[i]!r} and {grads[j]!r}")
    return y, y_bar, grads


def _group_vector(case: _Case, group: list, ts: list) -> np.ndarray:
    seen: set = set()
    return np.array([v for i in group for v in _unique_vector(ts[i], case.values[i], seen)], dtype=float)


def _check_reverse(case: _Case, rng: np.random.Generator, fd_max: int) -> list:
    """Reverse mode against forward mode, input by input (and output by output), and against finite differences."""
    y, y_bar, grads = _pull(case, lambda y: random_tangent(y, rng), check=True)
    ybar_vec = tangent_vector(y_bar, y)
    done = ["per-input dot-product tests against forward mode"]
    tangents = {}
    for group in case.groups:
        dvalues = _random_dvalues(case, rng, group)
        y2, dy, _, _ = _call_forward(case, dvalues)
        xdot = _group_vector(case, group, [NoTangent if d is None else d for d in dvalues])
        if not xdot.size:
            continue
        dy_vec = tangent_vector(dy, y2)
        tangents[tuple(group)] = (xdot, dy_vec)
        _dot_test(case, group, _group_vector(case, group, grads), xdot, ybar_vec, dy_vec, "")

    # Output by output, for a result made of several parts: errors in one part cannot hide in another's.
    if isinstance(y, (tuple, list)) and 2 <= len(y) <= 8 and tangents:
        sizes = [flatten(part).size for part in y]
        if sum(sizes) == ybar_vec.size and sum(1 for s in sizes if s) > 1:
            for j, size in enumerate(sizes):
                if size:
                    def only_j(y: Any, j: int = j) -> Any:
                        parts = [random_tangent(p, rng) if i == j else None for i, p in enumerate(y)]
                        return parts if isinstance(y, list) else tuple(parts)

                    yj, ybar_j, grads_j = _pull(case, only_j, check=False)
                    ybar_j_vec = tangent_vector([NoTangent if t is None else t for t in ybar_j], list(yj))
                    for group in case.groups:
                        if tuple(group) in tangents:
                            xdot, dy_vec = tangents[tuple(group)]
                            _dot_test(case, group, _group_vector(case, group, grads_j), xdot, ybar_j_vec, dy_vec,
                                      f", output {j} of the result")
            done.append("output by output")

    for group in case.groups:
        g_vec = _group_vector(case, group, grads)
        if 0 < g_vec.size <= fd_max:
            _fd_test(case, group, g_vec, ybar_vec)
            done.append(f"finite differences for {case.group_label(group)}")
    return done


def _dot_test(case: _Case, group: list, xbar: np.ndarray, xdot: np.ndarray, ybar: np.ndarray, dy: np.ndarray,
              where: str) -> None:
    lhs, rhs = float(np.dot(xbar, xdot)), float(np.dot(ybar, dy)) if ybar.size == dy.size else math.nan
    scale = max(float(np.sum(np.abs(xbar * xdot))), float(np.sum(np.abs(ybar * dy))) if ybar.size == dy.size else 0.0)
    if not case.within(lhs, rhs, scale) <= 10.0:  # a sum of products: ten times the tolerance, as ever
        raise case.fail("reverse vs forward", f"{case.group_label(group)}{where}: <x_bar, x_dot> = {lhs:.10g} from the "
                        f"pullback, but <y_bar, J x_dot> = {rhs:.10g} from forward mode with a tangent in this input "
                        f"only (difference {abs(lhs - rhs):.3g})")


def _fd_test(case: _Case, group: list, g_vec: np.ndarray, ybar_vec: np.ndarray) -> None:
    """Each number of the gradient against central finite differences of <y_bar, f(x)>."""
    n = g_vec.size
    offsets = []
    for i in group:
        offsets += [(i, k) for k in range(len(_unique_vector(NoTangent, case.values[i], set())))]

    def phi(k: int, h: float) -> Optional[float]:
        e = np.zeros(n)
        e[k] = 1.0
        it, memo = iter(e.tolist()), {}
        seeds = [_from_vector(case.values[i], it, memo) if i in group else NoTangent for i in range(len(case.values))]
        out = _evaluate(case, seeds, h, result_only=True)
        if out is None or out.size != ybar_vec.size:
            return None
        return float(np.dot(ybar_vec, out))

    best_err = np.full(n, math.inf)
    best_fd = np.full(n, math.nan)
    remaining = list(range(n))
    for h in case.fd_order:
        still = []
        for k in remaining:
            plus, minus = phi(k, h), phi(k, -h)
            if plus is not None and minus is not None:
                fd = (plus - minus) / (2 * h)
                err = case.within(float(g_vec[k]), fd)
                if err < best_err[k]:
                    best_err[k], best_fd[k] = err, fd
            if not best_err[k] <= 1.0:
                still.append(k)
        remaining = still
        if not remaining:
            return
    k = max(remaining, key=lambda k: best_err[k] if np.isfinite(best_err[k]) else math.inf)
    label_i, idx = offsets[k] if k < len(offsets) else (group[0], k)
    if not np.isfinite(best_fd[k]):
        raise case.fail("reverse vs finite differences", f"{case.labels[label_i]}: finite differences failed at every "
                        f"step size for number {idx}")
    raise case.fail("reverse vs finite differences",
                    f"{case.labels[label_i]}: number {idx} of its gradient is {g_vec[k]:.10g}, finite differences of "
                    f"<y_bar, f(x)> give {best_fd[k]:.10g} ({best_err[k]:.3g}x the tolerance)")
