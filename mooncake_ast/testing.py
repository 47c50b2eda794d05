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
from typing import Any, Callable, Optional

import numpy as np

from .errors import MissingRuleError, MooncakeError
from .tangents import is_data_object


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


# ---------------------------------------------------------------- the check
# (its parts, imported when a check runs, not by `import mooncake_ast`: testing_values.py, testing_inputs.py,
# testing_forward.py and testing_reverse.py)


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
        from .testing_inputs import _groups, _input_labels

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
        from .testing_values import same_value

        for label, a, b in zip(self.labels, values, self.ref_values if against is None else against):
            if not same_value(a, b):
                whose = "after the plain call" if against is None else "on entry"
                raise self.fail(check, f"{label} {when} is {a!r}; {whose} it is {b!r}")

    def check_result(self, y: Any, check: str, when: str) -> None:
        from .testing_values import same_value

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
    from .testing_forward import _check_forward
    from .testing_reverse import _check_reverse

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
