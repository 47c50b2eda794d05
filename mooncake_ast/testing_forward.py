"""The forward-mode part of mc.testing.check_derivatives: jvp against central finite differences.

Tangents in random directions (of the result and of arguments mutated in place) are compared with
finite differences at several step sizes, the best one counting; on failure the check is repeated
with a tangent in one input (group) at a time, to name the wrong one.
"""
from __future__ import annotations

import copy
import math
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from .tangents import NoTangent, zeros_like_tangent
from .testing_values import flatten, perturb, random_tangent, tangent_vector

if TYPE_CHECKING:
    from .testing import _Case


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
